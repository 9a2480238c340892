; unresolved-return: a (non-kernel) function returns the predicate; the kernel branches on the
; call's result (a specializer must FAIL on the OpReturnValue of the predicate).
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [12 x i8] c"is.gfx950 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)

define internal spir_func zeroext i1 @is_gfx950() {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  ret i1 %p
}

define spir_kernel void @unresolved_return(ptr addrspace(1) %out, float %a) {
entry:
  %c = call spir_func zeroext i1 @is_gfx950()
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
