; dot-families: dot instructions of six `dot*-insts` families, one independent if per builtin,
; each with a plain-IR fallback (the -O2 shape: one diamond per builtin):
;   r0 = is_invocable(__builtin_amdgcn_sdot4)  ? sdot4(x, y, c, false)  : x * y + c;        // has.dot1-insts
;   r1 = is_invocable(__builtin_amdgcn_udot8)  ? udot8(x, y, c, false)  : x + y + c;        // has.dot7-insts
;   r2 = is_invocable(__builtin_amdgcn_sudot4) ? sudot4(1, x, 0, y, c, false) : x - y + c;  // has.dot8-insts
;   f0 = is_invocable(__builtin_amdgcn_fdot2)  ? fdot2(h, h, f, false)  : f * f;            // has.dot10-insts
;   f1 = is_invocable(__builtin_amdgcn_dot4_f32_fp8_bf8) ? dot4_f32_fp8_bf8(x, y, f) : f + f; // has.dot11-insts
;   f2 = is_invocable(__builtin_amdgcn_fdot2_f16_f16) ? fdot2_f16_f16(h, h, hf) : hf;     // has.dot9-insts
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [104 x i8] c"has.dot1-insts 0\00has.dot7-insts 1\00has.dot8-insts 2\00has.dot10-insts 3\00has.dot11-insts 4\00has.dot9-insts 5\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare i32 @llvm.amdgcn.sdot4(i32, i32, i32, i1 immarg)
declare i32 @llvm.amdgcn.udot8(i32, i32, i32, i1 immarg)
declare i32 @llvm.amdgcn.sudot4(i1 immarg, i32, i1 immarg, i32, i32, i1 immarg)
declare float @llvm.amdgcn.fdot2(<2 x half>, <2 x half>, float, i1 immarg)
declare float @llvm.amdgcn.dot4.f32.fp8.bf8(i32, i32, float)
declare half @llvm.amdgcn.fdot2.f16.f16(<2 x half>, <2 x half>, half)

define spir_kernel void @dot_families(ptr addrspace(1) %iout, ptr addrspace(1) %fout, ptr addrspace(1) %hout, i32 %x, i32 %y, i32 %c, <2 x half> %h, float %f, half %hf) {
entry:
  %p0 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p0, label %sdot4, label %sdot4.no

sdot4:
  %d0 = call i32 @llvm.amdgcn.sdot4(i32 %x, i32 %y, i32 %c, i1 false)
  br label %j0

sdot4.no:
  %m0 = mul i32 %x, %y
  %e0 = add i32 %m0, %c
  br label %j0

j0:
  %r0 = phi i32 [ %d0, %sdot4 ], [ %e0, %sdot4.no ]
  store i32 %r0, ptr addrspace(1) %iout, align 4
  %p1 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %p1, label %udot8, label %udot8.no

udot8:
  %d1 = call i32 @llvm.amdgcn.udot8(i32 %x, i32 %y, i32 %c, i1 false)
  br label %j1

udot8.no:
  %m1 = add i32 %x, %y
  %e1 = add i32 %m1, %c
  br label %j1

j1:
  %r1 = phi i32 [ %d1, %udot8 ], [ %e1, %udot8.no ]
  %o1 = getelementptr inbounds i32, ptr addrspace(1) %iout, i64 1
  store i32 %r1, ptr addrspace(1) %o1, align 4
  %p2 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %p2, label %sudot4, label %sudot4.no

sudot4:
  %d2 = call i32 @llvm.amdgcn.sudot4(i1 true, i32 %x, i1 false, i32 %y, i32 %c, i1 false)
  br label %j2

sudot4.no:
  %m2 = sub i32 %x, %y
  %e2 = add i32 %m2, %c
  br label %j2

j2:
  %r2 = phi i32 [ %d2, %sudot4 ], [ %e2, %sudot4.no ]
  %o2 = getelementptr inbounds i32, ptr addrspace(1) %iout, i64 2
  store i32 %r2, ptr addrspace(1) %o2, align 4
  %p3 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 3, i1 false)
  br i1 %p3, label %fdot2, label %fdot2.no

fdot2:
  %d3 = call float @llvm.amdgcn.fdot2(<2 x half> %h, <2 x half> %h, float %f, i1 false)
  br label %j3

fdot2.no:
  %e3 = fmul float %f, %f
  br label %j3

j3:
  %r3 = phi float [ %d3, %fdot2 ], [ %e3, %fdot2.no ]
  store float %r3, ptr addrspace(1) %fout, align 4
  %p4 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 4, i1 false)
  br i1 %p4, label %dot4fp8, label %dot4fp8.no

dot4fp8:
  %d4 = call float @llvm.amdgcn.dot4.f32.fp8.bf8(i32 %x, i32 %y, float %f)
  br label %j4

dot4fp8.no:
  %e4 = fadd float %f, %f
  br label %j4

j4:
  %r4 = phi float [ %d4, %dot4fp8 ], [ %e4, %dot4fp8.no ]
  %o4 = getelementptr inbounds float, ptr addrspace(1) %fout, i64 1
  store float %r4, ptr addrspace(1) %o4, align 4
  %p5 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 5, i1 false)
  br i1 %p5, label %fdot2h, label %j5

fdot2h:
  %d5 = call half @llvm.amdgcn.fdot2.f16.f16(<2 x half> %h, <2 x half> %h, half %hf)
  br label %j5

j5:
  %r5 = phi half [ %d5, %fdot2h ], [ %hf, %j4 ]
  store half %r5, ptr addrspace(1) %hout, align 2
  ret void
}
