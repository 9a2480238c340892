; unresolved-call-arg: a predicate passed as an argument to a (local) function call
; (a specializer must FAIL; it does not look through call boundaries).
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [16 x i8] c"has.mai-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)

define internal spir_func void @use_flag(ptr addrspace(1) %out, float %a, i1 zeroext %c) {
entry:
  br i1 %c, label %then, label %else

then:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %end

else:
  %s = call float @llvm.amdgcn.sqrt.f32(float %a)
  store float %s, ptr addrspace(1) %out, align 4
  br label %end

end:
  ret void
}

define spir_kernel void @unresolved_call_arg(ptr addrspace(1) %out, float %a) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  call spir_func void @use_flag(ptr addrspace(1) %out, float %a, i1 zeroext %p)
  ret void
}
