; switch-select: a predicate picks an integer (OpSelect %uint %p 1 2) that an
; OpSwitch dispatches on; the switch folds to the case the predicate picks.
;   switch (__builtin_amdgcn_is_invocable(mfma) ? 1 : 2) { case 1: mfma; case 2: rcp; default: sqrt }
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [16 x i8] c"has.mai-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)

define spir_kernel void @switch_select(ptr addrspace(1) %out, float %a, float %b) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  %s = select i1 %p, i32 1, i32 2
  switch i32 %s, label %def [
    i32 1, label %case1
    i32 2, label %case2
  ]

case1:
  %acc = load <4 x float>, ptr addrspace(1) %out, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %out, align 16
  br label %end

case2:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %end

def:
  %q = call float @llvm.amdgcn.sqrt.f32(float %a)
  store float %q, ptr addrspace(1) %out, align 4
  br label %end

end:
  ret void
}
