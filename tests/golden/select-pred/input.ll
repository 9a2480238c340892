; select-pred: predicates used through OpSelect.
;   out_i[0] = processor_is("gfx942") ? a : b;                     (OpSelect %uint on the predicate)
;   if (is_invocable(mfma) ? (a > 0) : false) mfma else rcp          (OpSelect %bool feeding the branch)
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [28 x i8] c"has.mai-insts 1\00is.gfx942 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @select_pred(ptr addrspace(1) %out, ptr addrspace(1) %iout, i32 %a, i32 %b, float %fa, float %fb) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  %v = select i1 %p, i32 %a, i32 %b
  store i32 %v, ptr addrspace(1) %iout, align 4
  %q = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  %x = icmp sgt i32 %a, 0
  %c = select i1 %q, i1 %x, i1 false
  br i1 %c, label %if.then, label %if.else

if.then:
  %acc = load <4 x float>, ptr addrspace(1) %out, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %fa, float %fb, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %out, align 16
  br label %if.end

if.else:
  %r = call float @llvm.amdgcn.rcp.f32(float %fa)
  store float %r, ptr addrspace(1) %out, align 4
  br label %if.end

if.end:
  ret void
}
