; empty-has: `has.` (a builtin with no required features, e.g. __builtin_amdgcn_s_barrier) is
; true for every target; `is.gfx1201` beside it.
;   if (is_invocable(__builtin_amdgcn_s_barrier)) s_barrier(); else s_sleep(1);
;   if (processor_is("gfx1201")) s_sleep_var(n); else out[0] = rcp(a);
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [20 x i8] c"is.gfx1201 1\00has. 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare void @llvm.amdgcn.s.barrier()
declare void @llvm.amdgcn.s.sleep(i32 immarg)
declare void @llvm.amdgcn.s.sleep.var(i32)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @empty_has(ptr addrspace(1) %out, i32 %n, float %a) {
entry:
  %h = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %h, label %barrier, label %sleep

barrier:
  call void @llvm.amdgcn.s.barrier()
  br label %next

sleep:
  call void @llvm.amdgcn.s.sleep(i32 1)
  br label %next

next:
  %g = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %g, label %gfx1201, label %other

gfx1201:
  call void @llvm.amdgcn.s.sleep.var(i32 %n)
  br label %end

other:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %end

end:
  ret void
}
