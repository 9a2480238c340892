; unresolved-composite: the predicate inserted into a <2 x i1> vector (OpCompositeInsert),
; extracted again and branched on (a specializer must FAIL on the OpCompositeInsert).
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [18 x i8] c"has.dot10-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare float @llvm.amdgcn.fdot2(<2 x half>, <2 x half>, float, i1 immarg)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @unresolved_composite(ptr addrspace(1) %out, <2 x half> %x, float %a, i32 %n) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  %pos = icmp sgt i32 %n, 0
  %v0 = insertelement <2 x i1> poison, i1 %p, i32 0
  %v1 = insertelement <2 x i1> %v0, i1 %pos, i32 1
  %e = extractelement <2 x i1> %v1, i32 0
  br i1 %e, label %then, label %else

then:
  %d = call float @llvm.amdgcn.fdot2(<2 x half> %x, <2 x half> %x, float %a, i1 false)
  store float %d, ptr addrspace(1) %out, align 4
  br label %end

else:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %end

end:
  ret void
}
