; gfx12-gfx950-misc: one builtin per if, each guarded by its exact requirement, -O2 shape:
;   v = is_invocable(__builtin_amdgcn_permlane64) ? permlane64(v) : readfirstlane(v);          // has.gfx11-insts
;   if (is_invocable(__builtin_amdgcn_s_sleep_var)) s_sleep_var(n); else s_sleep(1);           // has.gfx12-insts
;   p = is_invocable(__builtin_amdgcn_cvt_scalef32_pk_f32_fp8)                                 // has.fp8-cvt-scale-insts (gfx950)
;         ? cvt_scalef32_pk_f32_fp8(v, f, false) : (float2)(f, f);
;   c = is_invocable(__builtin_amdgcn_cluster_id_x) ? cluster_id_x() : 0;                      // has.gfx1250-insts
;   b = is_invocable(__builtin_amdgcn_bitop3_b32) ? bitop3_b32(v, n, c, 0x96) : v ^ n ^ c;     // has.bitop3-insts
;   r = is_invocable(__builtin_amdgcn_prng_b32) ? prng_b32(b) : b;                              // has.prng-inst
;   s = is_invocable(__builtin_amdgcn_permlane16_swap) ? permlane16_swap(r, v, false, false).x : r; // has.permlane16-swap
target triple = "spirv64-amd-amdhsa"

@llvm.amdgcn.feature.predicate.ids = addrspace(1) constant [139 x i8] c"has.gfx11-insts 0\00has.gfx12-insts 1\00has.fp8-cvt-scale-insts 2\00has.gfx1250-insts 3\00has.bitop3-insts 4\00has.prng-inst 5\00has.permlane16-swap 6\00"

declare spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32, i1 zeroext)
declare i32 @llvm.amdgcn.permlane64.i32(i32)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare void @llvm.amdgcn.s.sleep.var(i32)
declare void @llvm.amdgcn.s.sleep(i32 immarg)
declare <2 x float> @llvm.amdgcn.cvt.scalef32.pk.f32.fp8(i32, float, i1 immarg)
declare i32 @llvm.amdgcn.cluster.id.x()
declare i32 @llvm.amdgcn.bitop3.i32(i32, i32, i32, i32 immarg)
declare i32 @llvm.amdgcn.prng.b32(i32)
declare { i32, i32 } @llvm.amdgcn.permlane16.swap(i32, i32, i1 immarg, i1 immarg)

define spir_kernel void @gfx12_gfx950_misc(ptr addrspace(1) %out, ptr addrspace(1) %fout, i32 %v, i32 %n, float %f) {
entry:
  %p0 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 0, i1 false)
  br i1 %p0, label %permlane64, label %readfirstlane

permlane64:
  %v0 = call i32 @llvm.amdgcn.permlane64.i32(i32 %v)
  br label %j0

readfirstlane:
  %v1 = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %v)
  br label %j0

j0:
  %vv = phi i32 [ %v0, %permlane64 ], [ %v1, %readfirstlane ]
  store i32 %vv, ptr addrspace(1) %out, align 4
  %p1 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 1, i1 false)
  br i1 %p1, label %sleep.var, label %sleep

sleep.var:
  call void @llvm.amdgcn.s.sleep.var(i32 %n)
  br label %j1

sleep:
  call void @llvm.amdgcn.s.sleep(i32 1)
  br label %j1

j1:
  %p2 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 2, i1 false)
  br i1 %p2, label %cvt, label %cvt.no

cvt:
  %pk = call <2 x float> @llvm.amdgcn.cvt.scalef32.pk.f32.fp8(i32 %v, float %f, i1 false)
  br label %j2

cvt.no:
  %s0 = insertelement <2 x float> poison, float %f, i64 0
  %s1 = insertelement <2 x float> %s0, float %f, i64 1
  br label %j2

j2:
  %pp = phi <2 x float> [ %pk, %cvt ], [ %s1, %cvt.no ]
  store <2 x float> %pp, ptr addrspace(1) %fout, align 8
  %p3 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 3, i1 false)
  br i1 %p3, label %cluster, label %j3

cluster:
  %cid = call i32 @llvm.amdgcn.cluster.id.x()
  br label %j3

j3:
  %c = phi i32 [ %cid, %cluster ], [ 0, %j2 ]
  %p4 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 4, i1 false)
  br i1 %p4, label %bitop3, label %bitop3.no

bitop3:
  %b0 = call i32 @llvm.amdgcn.bitop3.i32(i32 %vv, i32 %n, i32 %c, i32 150)
  br label %j4

bitop3.no:
  %x0 = xor i32 %vv, %n
  %x1 = xor i32 %x0, %c
  br label %j4

j4:
  %b = phi i32 [ %b0, %bitop3 ], [ %x1, %bitop3.no ]
  %p5 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 5, i1 false)
  br i1 %p5, label %prng, label %j5

prng:
  %r0 = call i32 @llvm.amdgcn.prng.b32(i32 %b)
  br label %j5

j5:
  %r = phi i32 [ %r0, %prng ], [ %b, %j4 ]
  %p6 = call spir_func zeroext i1 @_Z20__spirv_SpecConstantib(i32 6, i1 false)
  br i1 %p6, label %swap, label %j6

swap:
  %sw = call { i32, i32 } @llvm.amdgcn.permlane16.swap(i32 %r, i32 %vv, i1 false, i1 false)
  %sx = extractvalue { i32, i32 } %sw, 0
  br label %j6

j6:
  %s = phi i32 [ %sx, %swap ], [ %r, %j5 ]
  %o1 = getelementptr inbounds i32, ptr addrspace(1) %out, i64 1
  store i32 %s, ptr addrspace(1) %o1, align 4
  ret void
}
