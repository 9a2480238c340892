; alias-and-or: a legacy processor alias (is.tahiti = gfx600), a requirement with `|`
; (OR), and a plain one, each guarding one call:
;   if (processor_is("tahiti")) out_i[0] = readfirstlane(v);
;   if (is_invocable(<needs vmem-to-lds-load-insts|asynccnt>)) global_load_lds(g, l, 4, 0, 0);
;   if (is_invocable(__builtin_amdgcn_s_memtime)) out_l[0] = s_memtime();
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [71 x i8] c"has.s-memtime-inst 2\00is.tahiti 0\00has.vmem-to-lds-load-insts|asynccnt 1\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32 immarg, i32 immarg, i32 immarg)
declare i64 @llvm.amdgcn.s.memtime()

define spir_kernel void @alias_and_or(ptr addrspace(1) %iout, ptr addrspace(1) %lout, ptr addrspace(1) %g, ptr addrspace(3) %l) {
entry:
  %t = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %t, label %tahiti, label %next1

tahiti:
  %v = load i32, ptr addrspace(1) %iout, align 4
  %rf = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %v)
  store i32 %rf, ptr addrspace(1) %iout, align 4
  br label %next1

next1:
  %o = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %o, label %lds, label %next2

lds:
  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %g, ptr addrspace(3) %l, i32 4, i32 0, i32 0)
  br label %next2

next2:
  %mt = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %mt, label %memtime, label %end

memtime:
  %time = call i64 @llvm.amdgcn.s.memtime()
  store i64 %time, ptr addrspace(1) %lout, align 8
  br label %end

end:
  ret void
}
