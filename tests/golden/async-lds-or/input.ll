; async-lds-or: a requirement with `|` (OR). `__builtin_amdgcn_asyncmark` requires
; `vmem-to-lds-load-insts|asynccnt`: LDS-direct loads either way, chosen by processor inside:
;   if (is_invocable(__builtin_amdgcn_asyncmark)) {                 // has.vmem-to-lds-load-insts|asynccnt
;     if (processor_is("gfx1250") || processor_is("gfx1251")) {      // asynccnt: async loads to LDS
;       global_load_async_to_lds_b32(g, l, 0, 0); s_wait_asynccnt(0);
;     } else global_load_lds(g, l, 4, 0, 0);                          // vmem-to-lds-load-insts
;   } else l[0] = g[0];
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [64 x i8] c"has.vmem-to-lds-load-insts|asynccnt 0\00is.gfx1250 1\00is.gfx1251 2\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare void @llvm.amdgcn.global.load.async.to.lds.b32(ptr addrspace(1), ptr addrspace(3), i32 immarg, i32 immarg)
declare void @llvm.amdgcn.s.wait.asynccnt(i16 immarg)
declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32 immarg, i32 immarg, i32 immarg)

define spir_kernel void @async_lds_or(ptr addrspace(1) %g, ptr addrspace(3) %l) {
entry:
  %any = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %any, label %lds, label %copy

lds:
  %is1250 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %is1250, label %async, label %not.1250

not.1250:
  %is1251 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %is1251, label %async, label %vmem

async:
  call void @llvm.amdgcn.global.load.async.to.lds.b32(ptr addrspace(1) %g, ptr addrspace(3) %l, i32 0, i32 0)
  call void @llvm.amdgcn.s.wait.asynccnt(i16 0)
  br label %done

vmem:
  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %g, ptr addrspace(3) %l, i32 4, i32 0, i32 0)
  br label %done

copy:
  %v = load i32, ptr addrspace(1) %g, align 4
  store i32 %v, ptr addrspace(3) %l, align 4
  br label %done

done:
  ret void
}
