; negation-swapped: `if (!__builtin_amdgcn_processor_is("gfx950"))` written as a
; branch on the predicate with its targets swapped (true edge -> the else block).
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [12 x i8] c"is.gfx950 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)

define spir_kernel void @negation_swapped(ptr addrspace(1) %out, float %a) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  ; if (!p) { not_gfx950: rcp } else { is_gfx950: sqrt }
  br i1 %p, label %is_gfx950, label %not_gfx950

not_gfx950:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %if.end

is_gfx950:
  %s = call float @llvm.amdgcn.sqrt.f32(float %a)
  store float %s, ptr addrspace(1) %out, align 4
  br label %if.end

if.end:
  ret void
}
