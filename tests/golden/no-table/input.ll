; no-table: no predicate table and no predicates; an ordinary branch on a kernel argument
; and an imported intrinsic.  A specializer must leave the module byte-identical.
target triple = "spirv64-amd-amdhsa"

declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)

define spir_kernel void @no_table(ptr addrspace(1) %out, float %a, i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %pos, label %nonpos

pos:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %end

nonpos:
  %s = call float @llvm.amdgcn.sqrt.f32(float %a)
  store float %s, ptr addrspace(1) %out, align 4
  br label %end

end:
  ret void
}
