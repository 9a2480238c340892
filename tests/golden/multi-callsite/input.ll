; multi-callsite: the same SpecIds used from several call sites in two kernels.
; Each call of the builtin is its own OpSpecConstantFalse, so SpecId 0 and 1 each
; appear on several constants; every one of them must be resolved.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [47 x i8] c"is.gfx942 2\00has.mai-insts 0\00has.gfx950-insts 1\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half>, <8 x half>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)
declare float @llvm.amdgcn.sqrt.f32(float)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)

; kernel 1: has.mai-insts (SpecId 0) then has.gfx950-insts (SpecId 1), then has.mai-insts again
define spir_kernel void @multi_a(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a, float %b) {
entry:
  %p0 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p0, label %mai, label %next

mai:
  %acc = load <4 x float>, ptr addrspace(1) %out, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %out, align 16
  br label %next

next:
  %p1 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %p1, label %g950, label %next2

g950:
  %x = load <8 x half>, ptr addrspace(1) %in, align 16
  %acc2 = load <4 x float>, ptr addrspace(1) %out, align 16
  %m2 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half> %x, <8 x half> %x, <4 x float> %acc2, i32 0, i32 0, i32 0)
  store <4 x float> %m2, ptr addrspace(1) %out, align 16
  br label %next2

next2:
  %p0b = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  %t = icmp ne i1 %p0b, false
  br i1 %t, label %end, label %nomai

nomai:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %end

end:
  ret void
}

; kernel 2: is.gfx942 (SpecId 2) and has.mai-insts (SpecId 0) again
define spir_kernel void @multi_b(ptr addrspace(1) %out, ptr addrspace(1) %iout, float %a) {
entry:
  %q2 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %q2, label %g942, label %other

g942:
  %v = load i32, ptr addrspace(1) %iout, align 4
  %rf = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %v)
  store i32 %rf, ptr addrspace(1) %iout, align 4
  br label %next

other:
  br label %next

next:
  %q0 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %q0, label %end, label %nomai

nomai:
  %s = call float @llvm.amdgcn.sqrt.f32(float %a)
  store float %s, ptr addrspace(1) %out, align 4
  br label %end

end:
  ret void
}
