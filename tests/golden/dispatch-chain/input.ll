; dispatch-chain: MFMA / WMMA (gfx11) / WMMA (gfx12) / scalar dispatch, optimised shape:
;   if (has.mai-insts) mfma(); else if (has.wmma-256b-insts,wavefrontsize32) wmma_gfx11();
;   else if (has.wmma-128b-insts,wavefrontsize32) wmma_gfx12(); else scalar();  then a common join.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [92 x i8] c"has.wmma-128b-insts,wavefrontsize32 1\00has.mai-insts 2\00has.wmma-256b-insts,wavefrontsize32 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16(<16 x half>, <16 x half>, <8 x float>)
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16(<8 x half>, <8 x half>, <8 x float>)
declare float @llvm.amdgcn.fmul.legacy(float, float)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @dispatch_chain(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a, float %b) {
entry:
  %mai = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %mai, label %mfma, label %not.mai

not.mai:
  %w11 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %w11, label %wmma.gfx11, label %not.w11

not.w11:
  %w12 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %w12, label %wmma.gfx12, label %scalar

mfma:
  %acc0 = load <4 x float>, ptr addrspace(1) %out, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %acc0, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %out, align 16
  br label %join

wmma.gfx11:
  %x16 = load <16 x half>, ptr addrspace(1) %in, align 32
  %acc1 = load <8 x float>, ptr addrspace(1) %out, align 32
  %w1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16(<16 x half> %x16, <16 x half> %x16, <8 x float> %acc1)
  store <8 x float> %w1, ptr addrspace(1) %out, align 32
  br label %join

wmma.gfx12:
  %x8 = load <8 x half>, ptr addrspace(1) %in, align 16
  %acc2 = load <8 x float>, ptr addrspace(1) %out, align 32
  %w2 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16(<8 x half> %x8, <8 x half> %x8, <8 x float> %acc2)
  store <8 x float> %w2, ptr addrspace(1) %out, align 32
  br label %join

scalar:
  %s = call float @llvm.amdgcn.fmul.legacy(float %a, float %b)
  store float %s, ptr addrspace(1) %out, align 4
  br label %join

join:
  %tag = phi i32 [ 1, %mfma ], [ 2, %wmma.gfx11 ], [ 3, %wmma.gfx12 ], [ 4, %scalar ]
  %f = uitofp i32 %tag to float
  %r = call float @llvm.amdgcn.rcp.f32(float %f)
  %tail = getelementptr inbounds float, ptr addrspace(1) %out, i64 8
  store float %r, ptr addrspace(1) %tail, align 4
  ret void
}
