; uncalled-helper: an internal function nothing calls (no linkage, not an entry point) branches
; on has.mai-insts; its dead arm is the only caller of the internal @only_dead_arm, which
; calls the imported rcp. The kernel does not call it.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [16 x i8] c"has.mai-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare float @llvm.amdgcn.fmul.legacy(float, float)
declare float @llvm.amdgcn.rcp.f32(float)

define internal spir_func float @only_dead_arm(float %x) {
entry:
  %r = call float @llvm.amdgcn.rcp.f32(float %x)
  ret float %r
}

define internal spir_func void @uncalled(ptr addrspace(1) %out, float %a, float %b) {
entry:
  %mai = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %mai, label %fast, label %slow
fast:
  %s = call float @llvm.amdgcn.fmul.legacy(float %a, float %b)
  store float %s, ptr addrspace(1) %out, align 4
  br label %done
slow:
  %t = call spir_func float @only_dead_arm(float %a)
  store float %t, ptr addrspace(1) %out, align 4
  br label %done
done:
  ret void
}

define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  store float 1.0, ptr addrspace(1) %out, align 4
  ret void
}
