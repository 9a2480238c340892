; helper-one-arm: a local (internal) helper called only from the true arm of is.gfx950.
;   if (processor_is("gfx950")) gfx950_path(out, in); else out[0] = rcp(a);
; gfx950_path itself calls the gfx950 MFMA.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [12 x i8] c"is.gfx950 0\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half>, <8 x half>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rcp.f32(float)

define internal spir_func void @gfx950_path(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %x = load <8 x half>, ptr addrspace(1) %in, align 16
  %acc = load <4 x float>, ptr addrspace(1) %out, align 16
  %m = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half> %x, <8 x half> %x, <4 x float> %acc, i32 0, i32 0, i32 0)
  store <4 x float> %m, ptr addrspace(1) %out, align 16
  ret void
}

define spir_kernel void @helper_one_arm(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p, label %if.then, label %if.else

if.then:
  call spir_func void @gfx950_path(ptr addrspace(1) %out, ptr addrspace(1) %in)
  br label %if.end

if.else:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %if.end

if.end:
  ret void
}
