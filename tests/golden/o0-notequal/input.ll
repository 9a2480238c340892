; o0-notequal: clang -O0 shape, the branch tests `icmp ne i1 %p, false`
; (OpLogicalNotEqual %bool %p %false), which the reference resolver misses.
;   if (__builtin_amdgcn_processor_is("gfx942")) readfirstlane
;   if (__builtin_amdgcn_is_invocable(__builtin_amdgcn_mfma_f32_16x16x4f32)) mfma else rcp
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [28 x i8] c"has.mai-insts 1\00is.gfx942 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

define spir_kernel void @o0_notequal(ptr addrspace(1) %out, ptr addrspace(1) %iout, float %a, float %b) {
entry:
  %out.addr = alloca ptr addrspace(1), align 8
  store ptr addrspace(1) %out, ptr %out.addr, align 8
  %p0 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  %tobool0 = icmp ne i1 %p0, false
  br i1 %tobool0, label %if.then0, label %if.end0

if.then0:
  %v = load i32, ptr addrspace(1) %iout, align 4
  %rfl = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %v)
  store i32 %rfl, ptr addrspace(1) %iout, align 4
  br label %if.end0

if.end0:
  %p1 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  %tobool1 = icmp ne i1 %p1, false
  br i1 %tobool1, label %if.then1, label %if.else1

if.then1:
  %o1 = load ptr addrspace(1), ptr %out.addr, align 8
  %acc = load <4 x float>, ptr addrspace(1) %o1, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %o1, align 16
  br label %if.end1

if.else1:
  %o2 = load ptr addrspace(1), ptr %out.addr, align 8
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %o2, align 4
  br label %if.end1

if.end1:
  ret void
}
