; or-shortcircuit: clang -O0 shape of
;   if (__builtin_amdgcn_processor_is("gfx950") || __builtin_amdgcn_processor_is("gfx942"))
; short-circuit blocks; the join phi i1 [true, %entry], [%q, %lor.rhs] feeds the branch.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [24 x i8] c"is.gfx942 1\00is.gfx950 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @or_shortcircuit(ptr addrspace(1) %out, float %a, float %b) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p, label %lor.end, label %lor.rhs

lor.rhs:
  %q = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br label %lor.end

lor.end:
  %c = phi i1 [ true, %entry ], [ %q, %lor.rhs ]
  br i1 %c, label %if.then, label %if.else

if.then:                                  ; gfx950 or gfx942
  %acc = load <4 x float>, ptr addrspace(1) %out, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %a, float %b, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %out, align 16
  br label %if.end

if.else:                                  ; any other processor
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %if.end

if.end:
  ret void
}
