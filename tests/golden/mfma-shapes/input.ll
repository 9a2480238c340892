; mfma-shapes: MFMA / SMFMAC shapes per CDNA generation, guarded the way HIP code does it:
;   if (is_invocable(__builtin_amdgcn_mfma_f32_4x4x1f32)) {      // has.mai-insts
;     if (processor_is("gfx950"))      out = mfma_f32_16x16x32_f16(...);           // gfx950-only shape
;     else if (processor_is("gfx942")) out = mfma_i32_16x16x32_i8(...) + smfmac_f32_16x16x32_f16(...); // gfx940+
;     else if (processor_is("gfx90a")) out = mfma_f64_16x16x4f64(...);            // gfx90a+
;     else                             out = mfma_f32_4x4x1f32(...);               // gfx908+
;   } else out[0] = fmul_legacy(a, b);
; All four MFMA builtins above require `mai-insts`; the backend selects the newer shapes
; only on the processors named, hence processor_is inside.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [52 x i8] c"has.mai-insts 0\00is.gfx950 1\00is.gfx942 2\00is.gfx90a 3\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half>, <8 x half>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare <4 x i32> @llvm.amdgcn.mfma.i32.16x16x32.i8(i64, i64, <4 x i32>, i32 immarg, i32 immarg, i32 immarg)
declare <4 x float> @llvm.amdgcn.smfmac.f32.16x16x32.f16(<4 x half>, <8 x half>, <4 x float>, i32, i32 immarg, i32 immarg)
declare <4 x double> @llvm.amdgcn.mfma.f64.16x16x4f64(double, double, <4 x double>, i32 immarg, i32 immarg, i32 immarg)
declare <4 x float> @llvm.amdgcn.mfma.f32.4x4x1f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.fmul.legacy(float, float)

define spir_kernel void @mfma_shapes(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a, float %b, i64 %x, i32 %idx) {
entry:
  %mai = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %mai, label %mai.yes, label %scalar

mai.yes:
  %is950 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %is950, label %gfx950, label %not.950

not.950:
  %is942 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %is942, label %gfx942, label %not.942

not.942:
  %is90a = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 3, i1 false)
  br i1 %is90a, label %gfx90a, label %gfx908

gfx950:
  %h8 = load <8 x half>, ptr addrspace(1) %in, align 16
  %c0 = load <4 x float>, ptr addrspace(1) %out, align 16
  %m0 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half> %h8, <8 x half> %h8, <4 x float> %c0, i32 0, i32 0, i32 0)
  store <4 x float> %m0, ptr addrspace(1) %out, align 16
  br label %join

gfx942:
  %ci = load <4 x i32>, ptr addrspace(1) %out, align 16
  %m1 = call <4 x i32> @llvm.amdgcn.mfma.i32.16x16x32.i8(i64 %x, i64 %x, <4 x i32> %ci, i32 0, i32 0, i32 0)
  store <4 x i32> %m1, ptr addrspace(1) %out, align 16
  %h4 = load <4 x half>, ptr addrspace(1) %in, align 8
  %h8b = load <8 x half>, ptr addrspace(1) %in, align 16
  %tail = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 1
  %c1 = load <4 x float>, ptr addrspace(1) %tail, align 16
  %m2 = call <4 x float> @llvm.amdgcn.smfmac.f32.16x16x32.f16(<4 x half> %h4, <8 x half> %h8b, <4 x float> %c1, i32 %idx, i32 0, i32 0)
  store <4 x float> %m2, ptr addrspace(1) %tail, align 16
  br label %join

gfx90a:
  %ad = fpext float %a to double
  %bd = fpext float %b to double
  %cd = load <4 x double>, ptr addrspace(1) %out, align 32
  %m3 = call <4 x double> @llvm.amdgcn.mfma.f64.16x16x4f64(double %ad, double %bd, <4 x double> %cd, i32 0, i32 0, i32 0)
  store <4 x double> %m3, ptr addrspace(1) %out, align 32
  br label %join

gfx908:
  %c4 = load <4 x float>, ptr addrspace(1) %out, align 16
  %m4 = call <4 x float> @llvm.amdgcn.mfma.f32.4x4x1f32(float %a, float %b, <4 x float> %c4, i32 0, i32 0, i32 0)
  store <4 x float> %m4, ptr addrspace(1) %out, align 16
  br label %join

scalar:
  %s = call float @llvm.amdgcn.fmul.legacy(float %a, float %b)
  store float %s, ptr addrspace(1) %out, align 4
  br label %join

join:
  ret void
}
