; pred-and-ordinary-specconst: a feature predicate (SpecId 0, in the table) beside an
; ordinary boolean spec constant (SpecId 100, default true, NOT in the table).
;   if (is_invocable(mfma)) mfma else rcp;
;   if (__spirv_SpecConstant(100, true)) s_sleep(1) else sqrt;   -- must stay as is
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [16 x i8] c"has.mai-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)
declare void @llvm.amdgcn.s.sleep(i32 immarg)

define spir_kernel void @pred_and_ordinary(ptr addrspace(1) %out, ptr addrspace(1) %out2, float %a, float %b) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p, label %mai, label %nomai

mai:
  %acc = load <4 x float>, ptr addrspace(1) %out, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %out, align 16
  br label %next

nomai:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %next

next:
  %s = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 100, i1 true)
  br i1 %s, label %user.then, label %user.else

user.then:
  call void @llvm.amdgcn.s.sleep(i32 1)
  br label %end

user.else:
  %q = call float @llvm.amdgcn.sqrt.f32(float %b)
  store float %q, ptr addrspace(1) %out2, align 4
  br label %end

end:
  ret void
}
