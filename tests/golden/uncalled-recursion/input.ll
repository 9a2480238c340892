; uncalled-recursion: @ping and @pong call each other and nothing else calls them (internal,
; not an entry point). @ping branches on has.mai-insts; its dead arm is the only caller of the
; internal @only_dead_arm, which calls the imported rcp. The kernel does not call them.
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

define internal spir_func void @ping(ptr addrspace(1) %out, float %a, i32 %n) {
entry:
  %mai = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %mai, label %fast, label %slow
fast:
  %s = call float @llvm.amdgcn.fmul.legacy(float %a, float %a)
  store float %s, ptr addrspace(1) %out, align 4
  br label %tail
slow:
  %t = call spir_func float @only_dead_arm(float %a)
  store float %t, ptr addrspace(1) %out, align 4
  br label %tail
tail:
  %more = icmp sgt i32 %n, 0
  br i1 %more, label %again, label %done
again:
  %m = sub i32 %n, 1
  call spir_func void @pong(ptr addrspace(1) %out, float %a, i32 %m)
  br label %done
done:
  ret void
}

define internal spir_func void @pong(ptr addrspace(1) %out, float %a, i32 %n) {
entry:
  call spir_func void @ping(ptr addrspace(1) %out, float %a, i32 %n)
  ret void
}

define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  store float 1.0, ptr addrspace(1) %out, align 4
  ret void
}
