; translator-helper: the SPIRV-LLVM-Translator as producer (Debian llvm-spirv-15, LLVM 15 IR with
; typed pointers): the predicates sit in a helper two kernels call, at -O0 (allocas):
;   float dot(half2 h, float f) {
;     float r;
;     if (is_invocable(__builtin_amdgcn_fdot2)) r = fdot2(h, h, f, false);     // has.dot10-insts
;     else if (is_invocable(__builtin_amdgcn_permlane64)) r = f * f;           // has.gfx11-insts (none of gfx11 lacks dot10)
;     else r = fmul_legacy(f, f);
;     return r;
;   }
;   kernel void first(float *out, half2 h, float f)  { out[0] = dot(h, f); }
;   kernel void second(float *out, half2 h, float f) { out[1] = dot(h, f) + 1; }
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [36 x i8] c"has.dot10-insts 0\00has.gfx11-insts 1\00", align 1

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare float @llvm.amdgcn.fdot2(<2 x half>, <2 x half>, float, i1 immarg)
declare float @llvm.amdgcn.fmul.legacy(float, float)

define spir_func float @dot(<2 x half> %h, float %f) {
entry:
  %r = alloca float, align 4
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p, label %fdot2, label %not.dot

fdot2:
  %d = call float @llvm.amdgcn.fdot2(<2 x half> %h, <2 x half> %h, float %f, i1 false)
  store float %d, float* %r, align 4
  br label %ret

not.dot:
  %q = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %q, label %square, label %legacy

square:
  %sq = fmul float %f, %f
  store float %sq, float* %r, align 4
  br label %ret

legacy:
  %l = call float @llvm.amdgcn.fmul.legacy(float %f, float %f)
  store float %l, float* %r, align 4
  br label %ret

ret:
  %v = load float, float* %r, align 4
  ret float %v
}

define spir_kernel void @first(float addrspace(1)* %out, <2 x half> %h, float %f) {
entry:
  %v = call spir_func float @dot(<2 x half> %h, float %f)
  store float %v, float addrspace(1)* %out, align 4
  ret void
}

define spir_kernel void @second(float addrspace(1)* %out, <2 x half> %h, float %f) {
entry:
  %v = call spir_func float @dot(<2 x half> %h, float %f)
  %w = fadd float %v, 1.0
  %o = getelementptr inbounds float, float addrspace(1)* %out, i64 1
  store float %w, float addrspace(1)* %o, align 4
  ret void
}
