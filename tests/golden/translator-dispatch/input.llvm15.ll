; translator-dispatch: the SPIRV-LLVM-Translator as producer (Debian llvm-spirv-15, LLVM 15 IR with
; typed pointers): MFMA / gfx11 dot / scalar, processor_is inside the MFMA arm:
;   if (is_invocable(__builtin_amdgcn_mfma_f32_16x16x4f32)) {                    // has.mai-insts
;     if (processor_is("gfx942")) out = mfma_f32_16x16x32_fp8_fp8(...);         // gfx940-only shape
;     else out = mfma_f32_16x16x4f32(...);
;   } else if (is_invocable(__builtin_amdgcn_sudot4))                             // has.dot8-insts (gfx11+)
;     out[0] = sudot4(true, x, false, y, 0, false);
;   else out[0] = fmul_legacy(a, b);
; Only intrinsics LLVM 15 knows under the names it gives them (no WMMA: LLVM 15 predates it).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [45 x i8] c"has.mai-insts 0\00is.gfx942 1\00has.dot8-insts 2\00", align 1

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64, i64, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare i32 @llvm.amdgcn.sudot4(i1 immarg, i32, i1 immarg, i32, i32, i1 immarg)
declare float @llvm.amdgcn.fmul.legacy(float, float)

define spir_kernel void @translator_dispatch(<4 x float> addrspace(1)* %out, float %a, float %b, i64 %x, i32 %y) {
entry:
  %mai = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %mai, label %mfma, label %not.mai

mfma:
  %c0 = load <4 x float>, <4 x float> addrspace(1)* %out, align 16
  %is942 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %is942, label %gfx942, label %mfma.base

gfx942:
  %m0 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64 %x, i64 %x, <4 x float> %c0, i32 0, i32 0, i32 0)
  store <4 x float> %m0, <4 x float> addrspace(1)* %out, align 16
  br label %join

mfma.base:
  %m1 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %c0, i32 0, i32 0, i32 0)
  store <4 x float> %m1, <4 x float> addrspace(1)* %out, align 16
  br label %join

not.mai:
  %dot8 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %dot8, label %sudot4, label %scalar

sudot4:
  %d = call i32 @llvm.amdgcn.sudot4(i1 true, i32 %y, i1 false, i32 %y, i32 0, i1 false)
  %outi = bitcast <4 x float> addrspace(1)* %out to i32 addrspace(1)*
  store i32 %d, i32 addrspace(1)* %outi, align 4
  br label %join

scalar:
  %s = call float @llvm.amdgcn.fmul.legacy(float %a, float %b)
  %outf = bitcast <4 x float> addrspace(1)* %out to float addrspace(1)*
  store float %s, float addrspace(1)* %outf, align 4
  br label %join

join:
  ret void
}
