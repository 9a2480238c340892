; for-loop-pred-and: clang -O0 shape of
;   for (int i = 0; is_invocable(__builtin_amdgcn_mfma_f32_16x16x4f32) && i < n; ++i) out[i] = mfma(...);
;   out2[0] = rcp(a);
; The loop condition is phi i1 [false, %for.cond], [%cmp, %land.rhs]; back edge is a plain branch.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [16 x i8] c"has.mai-insts 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @for_loop_pred_and(ptr addrspace(1) %out, ptr addrspace(1) %out2, float %a, float %b, i32 %n) {
entry:
  %i = alloca i32, align 4
  store i32 0, ptr %i, align 4
  br label %for.cond

for.cond:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p, label %land.rhs, label %land.end

land.rhs:
  %iv = load i32, ptr %i, align 4
  %cmp = icmp slt i32 %iv, %n
  br label %land.end

land.end:
  %c = phi i1 [ false, %for.cond ], [ %cmp, %land.rhs ]
  br i1 %c, label %for.body, label %for.end

for.body:
  %ib = load i32, ptr %i, align 4
  %idx = sext i32 %ib to i64
  %gep = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 %idx
  %acc = load <4 x float>, ptr addrspace(1) %gep, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %gep, align 16
  br label %for.inc

for.inc:
  %ii = load i32, ptr %i, align 4
  %inc = add nsw i32 %ii, 1
  store i32 %inc, ptr %i, align 4
  br label %for.cond

for.end:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out2, align 4
  ret void
}
