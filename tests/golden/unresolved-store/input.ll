; unresolved-store: predicate values written to memory (a specializer must FAIL).
;   1. `store i1 %p` into a Function variable, later loaded and branched on;
;   2. `store i1 (p && n > 0)` (OpLogicalAnd) into a global bool.
; The direct branch on %p in the entry block is an ordinary, resolvable use.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [28 x i8] c"is.gfx942 1\00has.mai-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)

define spir_kernel void @unresolved_store(ptr addrspace(1) %out, ptr addrspace(1) %bout, float %a, i32 %n) {
entry:
  %flag = alloca i1, align 1
  %g = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %g, label %g942, label %start

g942:
  %s = call float @llvm.amdgcn.sqrt.f32(float %a)
  store float %s, ptr addrspace(1) %out, align 4
  br label %start

start:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  store i1 %p, ptr %flag, align 1
  %x = icmp sgt i32 %n, 0
  %both = and i1 %p, %x
  store i1 %both, ptr addrspace(1) %bout, align 1
  %l = load i1, ptr %flag, align 1
  br i1 %l, label %then, label %end

then:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %end

end:
  ret void
}
