; mfma-gfx950: an is_invocable chain on the exact requirement of each builtin, newest first:
;   if (is_invocable(__builtin_amdgcn_smfmac_f32_16x16x64_f16))            // has.gfx950-insts
;     out = smfmac_f32_16x16x64_f16(...) + mfma_i32_16x16x64_i8(...);
;   else if (is_invocable(__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8))     // has.fp8-insts (gfx940 family)
;     out = mfma_f32_16x16x32_fp8_fp8(...) + smfmac_f32_16x16x64_fp8_fp8(...);
;   else if (is_invocable(__builtin_amdgcn_mfma_f32_16x16x4f32))           // has.mai-insts
;     out = mfma_f32_16x16x4f32(...);
;   else out[0] = fmul_legacy(a, b);
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [51 x i8] c"has.mai-insts 2\00has.gfx950-insts 0\00has.fp8-insts 1\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.smfmac.f32.16x16x64.f16(<8 x half>, <16 x half>, <4 x float>, i32, i32 immarg, i32 immarg)
declare <4 x i32> @llvm.amdgcn.mfma.i32.16x16x64.i8(<4 x i32>, <4 x i32>, <4 x i32>, i32 immarg, i32 immarg, i32 immarg)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64, i64, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare <4 x float> @llvm.amdgcn.smfmac.f32.16x16x64.fp8.fp8(<2 x i32>, <4 x i32>, <4 x float>, i32, i32 immarg, i32 immarg)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.fmul.legacy(float, float)

define spir_kernel void @mfma_gfx950(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a, float %b, i64 %x, i32 %idx) {
entry:
  %p950 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p950, label %gfx950, label %not.950

not.950:
  %pfp8 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %pfp8, label %fp8, label %not.fp8

not.fp8:
  %pmai = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %pmai, label %mai, label %scalar

gfx950:
  %h8 = load <8 x half>, ptr addrspace(1) %in, align 16
  %h16 = load <16 x half>, ptr addrspace(1) %in, align 32
  %c0 = load <4 x float>, ptr addrspace(1) %out, align 16
  %m0 = call <4 x float> @llvm.amdgcn.smfmac.f32.16x16x64.f16(<8 x half> %h8, <16 x half> %h16, <4 x float> %c0, i32 %idx, i32 0, i32 0)
  store <4 x float> %m0, ptr addrspace(1) %out, align 16
  %i4 = load <4 x i32>, ptr addrspace(1) %in, align 16
  %t0 = getelementptr inbounds <4 x i32>, ptr addrspace(1) %out, i64 1
  %ci = load <4 x i32>, ptr addrspace(1) %t0, align 16
  %m1 = call <4 x i32> @llvm.amdgcn.mfma.i32.16x16x64.i8(<4 x i32> %i4, <4 x i32> %i4, <4 x i32> %ci, i32 0, i32 0, i32 0)
  store <4 x i32> %m1, ptr addrspace(1) %t0, align 16
  br label %join

fp8:
  %c2 = load <4 x float>, ptr addrspace(1) %out, align 16
  %m2 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64 %x, i64 %x, <4 x float> %c2, i32 0, i32 0, i32 0)
  store <4 x float> %m2, ptr addrspace(1) %out, align 16
  %i2 = load <2 x i32>, ptr addrspace(1) %in, align 8
  %i4b = load <4 x i32>, ptr addrspace(1) %in, align 16
  %t1 = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 1
  %c3 = load <4 x float>, ptr addrspace(1) %t1, align 16
  %m3 = call <4 x float> @llvm.amdgcn.smfmac.f32.16x16x64.fp8.fp8(<2 x i32> %i2, <4 x i32> %i4b, <4 x float> %c3, i32 %idx, i32 0, i32 0)
  store <4 x float> %m3, ptr addrspace(1) %t1, align 16
  br label %join

mai:
  %c4 = load <4 x float>, ptr addrspace(1) %out, align 16
  %m4 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %c4, i32 0, i32 0, i32 0)
  store <4 x float> %m4, ptr addrspace(1) %out, align 16
  br label %join

scalar:
  %s = call float @llvm.amdgcn.fmul.legacy(float %a, float %b)
  store float %s, ptr addrspace(1) %out, align 4
  br label %join

join:
  ret void
}
