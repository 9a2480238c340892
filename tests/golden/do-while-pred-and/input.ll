; do-while-pred-and: clang -O0 shape of
;   int i = 0; float acc = 0;
;   do { if (is_invocable(__builtin_amdgcn_fdot2)) acc = fdot2(x, x, acc); else acc = fmul_legacy(acc, 2);
;        ++i; } while (is_invocable(__builtin_amdgcn_fdot2) && i < n);
;   out[0] = rcp(acc);
; The loop condition is phi i1 [false, %do.cond], [%cmp, %land.rhs]; back edge is a plain branch.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [18 x i8] c"has.dot10-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare float @llvm.amdgcn.fdot2(<2 x half>, <2 x half>, float, i1 immarg)
declare float @llvm.amdgcn.fmul.legacy(float, float)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @do_while_pred_and(ptr addrspace(1) %out, <2 x half> %x, i32 %n) {
entry:
  %i = alloca i32, align 4
  %acc = alloca float, align 4
  store i32 0, ptr %i, align 4
  store float 0.0, ptr %acc, align 4
  br label %do.body

do.body:
  %av = load float, ptr %acc, align 4
  %q = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %q, label %dot, label %mul

dot:
  %d = call float @llvm.amdgcn.fdot2(<2 x half> %x, <2 x half> %x, float %av, i1 false)
  store float %d, ptr %acc, align 4
  br label %body.next

mul:
  %m = call float @llvm.amdgcn.fmul.legacy(float %av, float 2.0)
  store float %m, ptr %acc, align 4
  br label %body.next

body.next:
  %iv = load i32, ptr %i, align 4
  %inc = add nsw i32 %iv, 1
  store i32 %inc, ptr %i, align 4
  br label %do.cond

do.cond:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p, label %land.rhs, label %land.end

land.rhs:
  %iv2 = load i32, ptr %i, align 4
  %cmp = icmp slt i32 %iv2, %n
  br label %land.end

land.end:
  %c = phi i1 [ false, %do.cond ], [ %cmp, %land.rhs ]
  br i1 %c, label %do.body, label %do.end

do.end:
  %res = load float, ptr %acc, align 4
  %r = call float @llvm.amdgcn.rcp.f32(float %res)
  store float %r, ptr addrspace(1) %out, align 4
  ret void
}
