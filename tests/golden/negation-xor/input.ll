; negation-xor: `if (!__builtin_amdgcn_is_invocable(<gfx950 builtin>))` as
; `xor i1 %p, true` (OpLogicalNotEqual %bool %p %true) feeding the branch.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [19 x i8] c"has.gfx950-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half>, <8 x half>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @negation_xor(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  %lnot = xor i1 %p, true
  br i1 %lnot, label %if.then, label %if.else

if.then:                                  ; no gfx950-insts: rcp
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %if.end

if.else:                                  ; gfx950-insts: mfma 16x16x32 f16
  %x = load <8 x half>, ptr addrspace(1) %in, align 16
  %acc = load <4 x float>, ptr addrspace(1) %out, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half> %x, <8 x half> %x, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %out, align 16
  br label %if.end

if.end:
  ret void
}
