; and-shortcircuit: clang -O0 shape of
;   if (is_invocable(<gfx12 builtin>) && is_invocable(__builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12))
; short-circuit blocks; the join phi i1 [false, %entry], [%q, %land.rhs] feeds the branch.
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [56 x i8] c"has.wmma-128b-insts,wavefrontsize32 0\00has.gfx12-insts 1\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16(<8 x half>, <8 x half>, <8 x float>)
declare float @llvm.amdgcn.rcp.f32(float)

define spir_kernel void @and_shortcircuit(ptr addrspace(1) %out, ptr addrspace(1) %in, float %a) {
entry:
  %p = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %p, label %land.rhs, label %land.end

land.rhs:
  %q = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br label %land.end

land.end:
  %c = phi i1 [ false, %entry ], [ %q, %land.rhs ]
  br i1 %c, label %if.then, label %if.else

if.then:                                  ; gfx12 wmma
  %x = load <8 x half>, ptr addrspace(1) %in, align 16
  %acc = load <8 x float>, ptr addrspace(1) %out, align 32
  %w = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16(<8 x half> %x, <8 x half> %x, <8 x float> %acc)
  store <8 x float> %w, ptr addrspace(1) %out, align 32
  br label %if.end

if.else:
  %r = call float @llvm.amdgcn.rcp.f32(float %a)
  store float %r, ptr addrspace(1) %out, align 4
  br label %if.end

if.end:
  ret void
}
