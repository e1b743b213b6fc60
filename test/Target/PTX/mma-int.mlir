// Integer mma.sync: s8/u8 (m16n8k16, m16n8k32) and s4/u4 (m16n8k32,
// m16n8k64), mixed signedness, s32 accumulators, .satfinite.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90 sm_100a

// CHECK-LABEL: .visible .entry mma_int8(
ptx.entry @mma_int8(%a: i32, %b: i32, %c: i32) {
  // CHECK:      mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%r4, %r5, %r6, %r7}, {%r1, %r1}, {%r2}, {%r3, %r3, %r3, %r3};
  // CHECK-NEXT: mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.s8.s32 {%r8, %r9, %r10, %r11}, {%r1, %r1}, {%r2}, {%r3, %r3, %r3, %r3};
  // CHECK-NEXT: mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%r12, %r13, %r14, %r15}, {%r1, %r1, %r1, %r1}, {%r2, %r2}, {%r4, %r5, %r6, %r7};
  // CHECK-NEXT: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {%r16, %r17, %r18, %r19}, {%r1, %r1, %r1, %r1}, {%r2, %r2}, {%r3, %r3, %r3, %r3};
  %0:4 = ptx.mma_sync m16n8k16 row col s32 s8 s8 s32
      {%a, %a}, {%b}, {%c, %c, %c, %c}
      : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
  %1:4 = ptx.mma_sync m16n8k16 row col s32 u8 s8 s32 satfinite
      {%a, %a}, {%b}, {%c, %c, %c, %c}
      : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
  %2:4 = ptx.mma_sync m16n8k32 row col s32 s8 u8 s32
      {%a, %a, %a, %a}, {%b, %b}, {%0#0, %0#1, %0#2, %0#3}
      : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32)
      -> i32, i32, i32, i32
  %3:4 = ptx.mma_sync m16n8k32 row col s32 u8 u8 s32 satfinite
      {%a, %a, %a, %a}, {%b, %b}, {%c, %c, %c, %c}
      : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32)
      -> i32, i32, i32, i32
  ptx.ret
}

// CHECK-LABEL: .visible .entry mma_int4(
ptx.entry @mma_int4(%a: i32, %b: i32, %c: i32) {
  // CHECK:      mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32 {%r4, %r5, %r6, %r7}, {%r1, %r1}, {%r2}, {%r3, %r3, %r3, %r3};
  // CHECK-NEXT: mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32 {%r8, %r9, %r10, %r11}, {%r1, %r1}, {%r2}, {%r3, %r3, %r3, %r3};
  // CHECK-NEXT: mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32 {%r12, %r13, %r14, %r15}, {%r1, %r1, %r1, %r1}, {%r2, %r2}, {%r3, %r3, %r3, %r3};
  // CHECK-NEXT: mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32 {%r16, %r17, %r18, %r19}, {%r1, %r1, %r1, %r1}, {%r2, %r2}, {%r12, %r13, %r14, %r15};
  %0:4 = ptx.mma_sync m16n8k32 row col s32 s4 s4 s32
      {%a, %a}, {%b}, {%c, %c, %c, %c}
      : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
  %1:4 = ptx.mma_sync m16n8k32 row col s32 u4 s4 s32
      {%a, %a}, {%b}, {%c, %c, %c, %c}
      : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
  %2:4 = ptx.mma_sync m16n8k64 row col s32 s4 u4 s32 satfinite
      {%a, %a, %a, %a}, {%b, %b}, {%c, %c, %c, %c}
      : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32)
      -> i32, i32, i32, i32
  %3:4 = ptx.mma_sync m16n8k64 row col s32 u4 u4 s32
      {%a, %a, %a, %a}, {%b, %b}, {%2#0, %2#1, %2#2, %2#3}
      : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32)
      -> i32, i32, i32, i32
  ptx.ret
}
