; direct-branch: optimised shape, the predicate is the branch condition itself.
;   if (__builtin_amdgcn_is_invocable(__builtin_amdgcn_mfma_f32_16x16x4f32)) mfma else rcp
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [16 x i8] c"has.mai-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @direct_branch(ptr addrspace(1) %out, float %a, float %b) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p, label %if.then, label %if.else

if.then:
  %acc = load <4 x float>, ptr addrspace(1) %out, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %out, align 16
  br label %if.end

if.else:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  %s = fmul float %r, %b
  store float %s, ptr addrspace(1) %out, align 4
  br label %if.end

if.end:
  ret void
}
