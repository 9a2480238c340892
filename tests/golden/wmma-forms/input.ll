; wmma-forms: WMMA in its gfx11 (256-bit) and gfx12 (128-bit) forms, each in wave32 and
; wave64, SWMMAC, and gfx1250's 16x16x32 WMMA; each arm guarded by its builtin's exact requirement:
;   if (is_invocable(__builtin_amdgcn_wmma_f32_16x16x16_f16_w32))        out = wmma_w32(...);        // has.wmma-256b-insts,wavefrontsize32
;   else if (is_invocable(__builtin_amdgcn_wmma_f32_16x16x16_f16_w64))   out = wmma_w64(...);        // has.wmma-256b-insts,wavefrontsize64
;   else if (is_invocable(__builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12)) {                       // has.wmma-128b-insts,wavefrontsize32
;     out = wmma_w32_gfx12(...); out2 = swmmac_f32_16x16x32_f16_w32(...); }
;   else if (is_invocable(__builtin_amdgcn_wmma_f32_16x16x16_f16_w64_gfx12)) out = wmma_w64_gfx12(...); // has.wmma-128b-insts,wavefrontsize64
;   else if (is_invocable(__builtin_amdgcn_wmma_f32_16x16x32_f16))       out = wmma_16x16x32(...);   // has.gfx1250-insts,wavefrontsize32
;   else out[0] = fmul_legacy(a, b);
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [188 x i8] c"has.wmma-256b-insts,wavefrontsize32 0\00has.wmma-256b-insts,wavefrontsize64 1\00has.wmma-128b-insts,wavefrontsize32 2\00has.wmma-128b-insts,wavefrontsize64 3\00has.gfx1250-insts,wavefrontsize32 4\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16(<16 x half>, <16 x half>, <8 x float>)
declare <4 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v4f32.v16f16(<16 x half>, <16 x half>, <4 x float>)
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16(<8 x half>, <8 x half>, <8 x float>)
declare <8 x float> @llvm.amdgcn.swmmac.f32.16x16x32.f16.v8f32.v8f16.v16f16.i32(<8 x half>, <16 x half>, <8 x float>, i32)
declare <4 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v4f32.v4f16(<4 x half>, <4 x half>, <4 x float>)
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 immarg, <16 x half>, i1 immarg, <16 x half>, i16 immarg, <8 x float>, i1 immarg, i1 immarg)
declare float @llvm.amdgcn.fmul.legacy(float, float)

define spir_kernel void @wmma_forms(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a, float %b, i32 %idx) {
entry:
  %w11 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %w11, label %gfx11.w32, label %n0

n0:
  %w11w64 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %w11w64, label %gfx11.w64, label %n1

n1:
  %w12 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %w12, label %gfx12.w32, label %n2

n2:
  %w12w64 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 3, i1 false)
  br i1 %w12w64, label %gfx12.w64, label %n3

n3:
  %w1250 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 4, i1 false)
  br i1 %w1250, label %gfx1250, label %scalar

gfx11.w32:
  %a0 = load <16 x half>, ptr addrspace(1) %in, align 32
  %c0 = load <8 x float>, ptr addrspace(1) %out, align 32
  %r0 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16(<16 x half> %a0, <16 x half> %a0, <8 x float> %c0)
  store <8 x float> %r0, ptr addrspace(1) %out, align 32
  br label %join

gfx11.w64:
  %a1 = load <16 x half>, ptr addrspace(1) %in, align 32
  %c1 = load <4 x float>, ptr addrspace(1) %out, align 16
  %r1 = call <4 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v4f32.v16f16(<16 x half> %a1, <16 x half> %a1, <4 x float> %c1)
  store <4 x float> %r1, ptr addrspace(1) %out, align 16
  br label %join

gfx12.w32:
  %a2 = load <8 x half>, ptr addrspace(1) %in, align 16
  %c2 = load <8 x float>, ptr addrspace(1) %out, align 32
  %r2 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16(<8 x half> %a2, <8 x half> %a2, <8 x float> %c2)
  store <8 x float> %r2, ptr addrspace(1) %out, align 32
  %b2 = load <16 x half>, ptr addrspace(1) %in, align 32
  %t2 = getelementptr inbounds <8 x float>, ptr addrspace(1) %out, i64 1
  %d2 = load <8 x float>, ptr addrspace(1) %t2, align 32
  %s2 = call <8 x float> @llvm.amdgcn.swmmac.f32.16x16x32.f16.v8f32.v8f16.v16f16.i32(<8 x half> %a2, <16 x half> %b2, <8 x float> %d2, i32 %idx)
  store <8 x float> %s2, ptr addrspace(1) %t2, align 32
  br label %join

gfx12.w64:
  %a3 = load <4 x half>, ptr addrspace(1) %in, align 8
  %c3 = load <4 x float>, ptr addrspace(1) %out, align 16
  %r3 = call <4 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v4f32.v4f16(<4 x half> %a3, <4 x half> %a3, <4 x float> %c3)
  store <4 x float> %r3, ptr addrspace(1) %out, align 16
  br label %join

gfx1250:
  %a4 = load <16 x half>, ptr addrspace(1) %in, align 32
  %c4 = load <8 x float>, ptr addrspace(1) %out, align 32
  %r4 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %a4, i1 false, <16 x half> %a4, i16 0, <8 x float> %c4, i1 false, i1 false)
  store <8 x float> %r4, ptr addrspace(1) %out, align 32
  br label %join

scalar:
  %s = call float @llvm.amdgcn.fmul.legacy(float %a, float %b)
  store float %s, ptr addrspace(1) %out, align 4
  br label %join

join:
  ret void
}
