// wgmma.mma_async (sm_90a, PTX 8.0; mixed-signedness integers 8.4) in small
// complete kernels, one per operand type family: each sets up its A fragment
// or descriptors, fences, issues the MMA (twice where the second chains the
// first's accumulators, which then print as the same registers), commits,
// waits and stores every thread's accumulators. Descriptors come from the
// host (or, for the bf16 kernel, from the shared address of the A tile); the
// values do not matter to ptxas.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90a %s | FileCheck %s
// RUN: %ptx-check %s sm_90a
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_90a --ptx-version=8.3 %s 2>&1 | FileCheck %s --check-prefix=ISA83

// CHECK:      .version 8.4
// CHECK-NEXT: .target sm_90a

ptx.var shared @sB : f16 [128] align 128

// CHECK-LABEL: .visible .entry wgmma_f16_regs(
ptx.entry @wgmma_f16_regs(%a: i64 {ptx.ptr = f16, ptx.readonly, ptx.align = 16},
                          %bdesc: i64,
                          %out: i64 {ptx.ptr = f32, ptx.align = 16})
    attributes {reqntid = array<i32: 128>} {
  %tid = ptx.sreg tid.x : i32
  %bytes = ptx.constant 16 : i32
  %off = ptx.mul wide u32 %tid, %bytes : (i32, i32) -> i64
  %gout = ptx.cvta to global %out : i64 -> i64
  %base = ptx.add s64 %gout, %off : i64
  %c16 = ptx.constant 16 : i32
  %ga = ptx.cvta to global %a : i64 -> i64
  %aoff = ptx.mul wide u32 %tid, %c16 : (i32, i32) -> i64
  %pa = ptx.add s64 %ga, %aoff : i64
  %fa:4 = ptx.ld global u32 [%pa] : i64 -> i32, i32, i32, i32
  %zero = ptx.constant 0.0 : f32
  // scale-d 0 never reads the accumulators: no copies of the zero.
  // CHECK:      wgmma.fence.sync.aligned;
  // CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f2, %f3, %f4, %f5}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, 0, 1, 1, 0;
  // CHECK-NEXT: wgmma.commit_group.sync.aligned;
  // CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
  // CHECK-NEXT: st.global.v4.f32 [%rd{{[0-9]+}}], {%f2, %f3, %f4, %f5};
  // SM90: error: 'ptx.wgmma_fence' op requires sm_90a (arch-specific), but the target is sm_90
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%zero, %zero, %zero, %zero},
      {%fa#0, %fa#1, %fa#2, %fa#3}, %bdesc scale_d_imm 0 : f32, i32
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  ptx.st global f32 [%base], %d#0, %d#1, %d#2, %d#3 : i64, f32, f32, f32, f32
  ptx.ret
}

ptx.var shared @sA : b16 [1024] align 128

// CHECK-LABEL: .visible .entry wgmma_bf16_desc(
ptx.entry @wgmma_bf16_desc(%abits: i64, %bdesc: i64,
                           %out: i64 {ptx.ptr = f32, ptx.align = 16})
    attributes {reqntid = array<i32: 128>} {
  %tid = ptx.sreg tid.x : i32
  %bytes = ptx.constant 512 : i32
  %off = ptx.mul wide u32 %tid, %bytes : (i32, i32) -> i64
  %gout = ptx.cvta to global %out : i64 -> i64
  %base = ptx.add s64 %gout, %off : i64
  // Descriptor bits 0-13: the tile's shared address >> 4.
  %sA = ptx.addressof @sA : i64
  %c4 = ptx.constant 4 : i32
  %start = ptx.shr u64 %sA, %c4 : (i64, i32) -> i64
  %adesc = ptx.or b64 %abits, %start : i64
  %zero = ptx.constant 0.0 : f32
  ptx.wgmma_fence
  // The second MMA reads the first's accumulators only: same registers.
  // CHECK:      wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {[[ACC:%f2, %f3, .*, %f129]]}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, 0, 1, 1, 0, 1;
  // CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {[[ACC]]}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, 1, 1, -1, 1, 1;
  // CHECK-NEXT: wgmma.commit_group.sync.aligned;
  %d:128 = ptx.wgmma_mma_async m64n256k16 f32 bf16 bf16 {%zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero},
      %adesc, %bdesc scale_d_imm 0 trans_b : f32
  %e:128 = ptx.wgmma_mma_async m64n256k16 f32 bf16 bf16 {%d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11, %d#12, %d#13, %d#14, %d#15, %d#16, %d#17, %d#18, %d#19, %d#20, %d#21, %d#22, %d#23, %d#24, %d#25, %d#26, %d#27, %d#28, %d#29, %d#30, %d#31, %d#32, %d#33, %d#34, %d#35, %d#36, %d#37, %d#38, %d#39, %d#40, %d#41, %d#42, %d#43, %d#44, %d#45, %d#46, %d#47, %d#48, %d#49, %d#50, %d#51, %d#52, %d#53, %d#54, %d#55, %d#56, %d#57, %d#58, %d#59, %d#60, %d#61, %d#62, %d#63, %d#64, %d#65, %d#66, %d#67, %d#68, %d#69, %d#70, %d#71, %d#72, %d#73, %d#74, %d#75, %d#76, %d#77, %d#78, %d#79, %d#80, %d#81, %d#82, %d#83, %d#84, %d#85, %d#86, %d#87, %d#88, %d#89, %d#90, %d#91, %d#92, %d#93, %d#94, %d#95, %d#96, %d#97, %d#98, %d#99, %d#100, %d#101, %d#102, %d#103, %d#104, %d#105, %d#106, %d#107, %d#108, %d#109, %d#110, %d#111, %d#112, %d#113, %d#114, %d#115, %d#116, %d#117, %d#118, %d#119, %d#120, %d#121, %d#122, %d#123, %d#124, %d#125, %d#126, %d#127},
      %adesc, %bdesc scale_b -1 trans_a trans_b : f32
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  ptx.st global f32 [%base], %e#0, %e#1, %e#2, %e#3 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 16], %e#4, %e#5, %e#6, %e#7 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 32], %e#8, %e#9, %e#10, %e#11 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 48], %e#12, %e#13, %e#14, %e#15 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 64], %e#16, %e#17, %e#18, %e#19 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 80], %e#20, %e#21, %e#22, %e#23 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 96], %e#24, %e#25, %e#26, %e#27 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 112], %e#28, %e#29, %e#30, %e#31 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 128], %e#32, %e#33, %e#34, %e#35 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 144], %e#36, %e#37, %e#38, %e#39 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 160], %e#40, %e#41, %e#42, %e#43 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 176], %e#44, %e#45, %e#46, %e#47 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 192], %e#48, %e#49, %e#50, %e#51 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 208], %e#52, %e#53, %e#54, %e#55 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 224], %e#56, %e#57, %e#58, %e#59 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 240], %e#60, %e#61, %e#62, %e#63 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 256], %e#64, %e#65, %e#66, %e#67 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 272], %e#68, %e#69, %e#70, %e#71 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 288], %e#72, %e#73, %e#74, %e#75 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 304], %e#76, %e#77, %e#78, %e#79 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 320], %e#80, %e#81, %e#82, %e#83 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 336], %e#84, %e#85, %e#86, %e#87 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 352], %e#88, %e#89, %e#90, %e#91 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 368], %e#92, %e#93, %e#94, %e#95 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 384], %e#96, %e#97, %e#98, %e#99 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 400], %e#100, %e#101, %e#102, %e#103 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 416], %e#104, %e#105, %e#106, %e#107 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 432], %e#108, %e#109, %e#110, %e#111 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 448], %e#112, %e#113, %e#114, %e#115 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 464], %e#116, %e#117, %e#118, %e#119 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 480], %e#120, %e#121, %e#122, %e#123 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 496], %e#124, %e#125, %e#126, %e#127 : i64, f32, f32, f32, f32
  ptx.ret
}

// CHECK-LABEL: .visible .entry wgmma_tf32(
ptx.entry @wgmma_tf32(%adesc: i64, %bdesc: i64,
                      %out: i64 {ptx.ptr = f32, ptx.align = 16})
    attributes {reqntid = array<i32: 128>} {
  %tid = ptx.sreg tid.x : i32
  %bytes = ptx.constant 128 : i32
  %off = ptx.mul wide u32 %tid, %bytes : (i32, i32) -> i64
  %gout = ptx.cvta to global %out : i64 -> i64
  %base = ptx.add s64 %gout, %off : i64
  %zero = ptx.constant 0.0 : f32
  ptx.wgmma_fence
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {%f{{[0-9]+}}, {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, 0, -1, 1;
  %d:32 = ptx.wgmma_mma_async m64n64k8 f32 tf32 tf32 {%zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero},
      %adesc, %bdesc scale_d_imm 0 scale_a -1 : f32
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  ptx.st global f32 [%base], %d#0, %d#1, %d#2, %d#3 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 16], %d#4, %d#5, %d#6, %d#7 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 32], %d#8, %d#9, %d#10, %d#11 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 48], %d#12, %d#13, %d#14, %d#15 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 64], %d#16, %d#17, %d#18, %d#19 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 80], %d#20, %d#21, %d#22, %d#23 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 96], %d#24, %d#25, %d#26, %d#27 : i64, f32, f32, f32, f32
  ptx.st global f32 [%base + 112], %d#28, %d#29, %d#30, %d#31 : i64, f32, f32, f32, f32
  ptx.ret
}

// CHECK-LABEL: .visible .entry wgmma_e4m3(
ptx.entry @wgmma_e4m3(%adesc: i64, %bdesc: i64,
                      %out: i64 {ptx.ptr = f16, ptx.align = 16})
    attributes {reqntid = array<i32: 128>} {
  %tid = ptx.sreg tid.x : i32
  %bytes = ptx.constant 128 : i32
  %off = ptx.mul wide u32 %tid, %bytes : (i32, i32) -> i64
  %gout = ptx.cvta to global %out : i64 -> i64
  %base = ptx.add s64 %gout, %off : i64
  %zero = ptx.constant 0 : i32
  ptx.wgmma_fence
  // CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f16.e4m3.e4m3 {%r{{[0-9]+}}, {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, 0, 1, 1;
  %d:32 = ptx.wgmma_mma_async m64n128k32 f16 e4m3 e4m3 {%zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero},
      %adesc, %bdesc scale_d_imm 0 : i32
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  ptx.st global b32 [%base], %d#0, %d#1, %d#2, %d#3 : i64, i32, i32, i32, i32
  ptx.st global b32 [%base + 16], %d#4, %d#5, %d#6, %d#7 : i64, i32, i32, i32, i32
  ptx.st global b32 [%base + 32], %d#8, %d#9, %d#10, %d#11 : i64, i32, i32, i32, i32
  ptx.st global b32 [%base + 48], %d#12, %d#13, %d#14, %d#15 : i64, i32, i32, i32, i32
  ptx.st global b32 [%base + 64], %d#16, %d#17, %d#18, %d#19 : i64, i32, i32, i32, i32
  ptx.st global b32 [%base + 80], %d#20, %d#21, %d#22, %d#23 : i64, i32, i32, i32, i32
  ptx.st global b32 [%base + 96], %d#24, %d#25, %d#26, %d#27 : i64, i32, i32, i32, i32
  ptx.st global b32 [%base + 112], %d#28, %d#29, %d#30, %d#31 : i64, i32, i32, i32, i32
  ptx.ret
}

// CHECK-LABEL: .visible .entry wgmma_int8(
ptx.entry @wgmma_int8(%a0: i32, %a1: i32, %a2: i32, %a3: i32, %bdesc: i64,
                      %accumulate: i32,
                      %out: i64 {ptx.ptr = i32, ptx.align = 16})
    attributes {reqntid = array<i32: 128>} {
  %tid = ptx.sreg tid.x : i32
  %bytes = ptx.constant 64 : i32
  %off = ptx.mul wide u32 %tid, %bytes : (i32, i32) -> i64
  %gout = ptx.cvta to global %out : i64 -> i64
  %base = ptx.add s64 %gout, %off : i64
  %zero = ptx.constant 0 : i32
  %c0 = ptx.constant 0 : i32
  %scale = ptx.setp ne u32 %accumulate, %c0 : i32
  ptx.wgmma_fence
  // CHECK: wgmma.mma_async.sync.aligned.m64n32k32.satfinite.s32.s8.s8 {%r{{[0-9]+}}, {{.*}}}, {%r1, %r2, %r3, %r4}, %rd{{[0-9]+}}, %p1;
  // CHECK: wgmma.mma_async.sync.aligned.m64n24k32.s32.s8.u8 {%r{{[0-9]+}}, {{.*}}}, {%r1, %r2, %r3, %r4}, %rd{{[0-9]+}}, 1;
  // ISA83: wgmma.mlir:[[@LINE+3]]:{{[0-9]+}}: error: PTX ISA 8.3 is too old: this op needs 8.4
  %d:16 = ptx.wgmma_mma_async m64n32k32 s32 s8 s8 satfinite {%zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero},
      {%a0, %a1, %a2, %a3}, %bdesc scale_d %scale : i32, i32
  %e:12 = ptx.wgmma_mma_async m64n24k32 s32 s8 u8 {%d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7, %d#8, %d#9, %d#10, %d#11},
      {%a0, %a1, %a2, %a3}, %bdesc : i32, i32
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  ptx.st global s32 [%base], %e#0, %e#1, %e#2, %e#3 : i64, i32, i32, i32, i32
  ptx.st global s32 [%base + 16], %e#4, %e#5, %e#6, %e#7 : i64, i32, i32, i32, i32
  ptx.st global s32 [%base + 32], %e#8, %e#9, %e#10, %e#11 : i64, i32, i32, i32, i32
  ptx.st global s32 [%base + 48], %d#12, %d#13, %d#14, %d#15 : i64, i32, i32, i32, i32
  ptx.ret
}

// The accumulators travel in block arguments: the MMA updates the block
// arguments' registers in place, the counter is incremented in place
// (register coalescing), and the back edge moves nothing.
// CHECK-LABEL: .visible .entry wgmma_loop(
ptx.entry @wgmma_loop(%adesc: i64, %bdesc: i64, %n: i32,
                      %out: i64 {ptx.ptr = f16, ptx.align = 16})
    attributes {reqntid = array<i32: 128>} {
  %tid = ptx.sreg tid.x : i32
  %bytes = ptx.constant 16 : i32
  %off = ptx.mul wide u32 %tid, %bytes : (i32, i32) -> i64
  %gout = ptx.cvta to global %out : i64 -> i64
  %base = ptx.add s64 %gout, %off : i64
  %zero = ptx.constant 0 : i32
  %c1 = ptx.constant 1 : i32
  ptx.bra ^loop(%zero, %zero, %zero, %zero, %zero : i32, i32, i32, i32, i32)
^loop(%i: i32, %x0: i32, %x1: i32, %x2: i32, %x3: i32):
  // CHECK:      $L__BB5_1:
  // CHECK-NEXT: wgmma.fence.sync.aligned;
  // CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {[[X:%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+]]}, %rd1, %rd2, 1, 1, 1, 0, 0;
  // CHECK-NEXT: wgmma.commit_group.sync.aligned;
  // CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
  // CHECK-NEXT: add.u32 [[I:%r[0-9]+]], [[I]], %r{{[0-9]+}};
  // CHECK-NEXT: setp.lt.u32
  // CHECK-NEXT: @%p1 bra $L__BB5_1;
  // CHECK:      st.global.v4.b32 [%rd{{[0-9]+}}], {[[X]]};
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async m64n16k16 f16 f16 f16 {%x0, %x1, %x2, %x3},
      %adesc, %bdesc : i32
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  %i2 = ptx.add u32 %i, %c1 : i32
  %more = ptx.setp lt u32 %i2, %n : i32
  ptx.cond_bra %more, ^loop(%i2, %d#0, %d#1, %d#2, %d#3 : i32, i32, i32, i32, i32), ^done
^done:
  ptx.st global b32 [%base], %d#0, %d#1, %d#2, %d#3 : i64, i32, i32, i32, i32
  ptx.ret
}
