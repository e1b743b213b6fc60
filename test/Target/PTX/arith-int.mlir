// Integer add/sub/min/max/abs/neg in every width, with add.sat.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry int_add_sub(
ptx.entry @int_add_sub(%a: i32, %b: i32, %c: i64, %d: i16) {
  // CHECK:      add.s32 %r3, %r1, %r2;
  // CHECK-NEXT: add.u32 %r4, %r1, %r2;
  // CHECK-NEXT: add.sat.s32 %r5, %r1, %r2;
  // CHECK-NEXT: sub.s32 %r6, %r1, %r2;
  // CHECK-NEXT: sub.sat.s32 %r7, %r1, %r2;
  // CHECK-NEXT: add.s64 %rd2, %rd1, %rd1;
  // CHECK-NEXT: sub.u64 %rd3, %rd1, %rd1;
  // CHECK-NEXT: add.s16 %rs2, %rs1, %rs1;
  // CHECK-NEXT: sub.u16 %rs3, %rs1, %rs1;
  %0 = ptx.add s32 %a, %b : i32
  %1 = ptx.add u32 %a, %b : i32
  %2 = ptx.add sat s32 %a, %b : i32
  %3 = ptx.sub s32 %a, %b : i32
  %4 = ptx.sub sat s32 %a, %b : i32
  %5 = ptx.add s64 %c, %c : i64
  %6 = ptx.sub u64 %c, %c : i64
  %7 = ptx.add s16 %d, %d : i16
  %8 = ptx.sub u16 %d, %d : i16
  // CHECK-NEXT: ret;
  ptx.ret
}

// CHECK-LABEL: .visible .entry int_min_max(
ptx.entry @int_min_max(%a: i32, %b: i32, %c: i64, %d: i16) {
  // CHECK:      min.s32 %r3, %r1, %r2;
  // CHECK-NEXT: min.u32 %r4, %r1, %r2;
  // CHECK-NEXT: max.s32 %r5, %r1, %r2;
  // CHECK-NEXT: max.u32 %r6, %r1, %r2;
  // CHECK-NEXT: min.s64 %rd2, %rd1, %rd1;
  // CHECK-NEXT: max.u64 %rd3, %rd1, %rd1;
  // CHECK-NEXT: min.u16 %rs2, %rs1, %rs1;
  // CHECK-NEXT: max.s16 %rs3, %rs1, %rs1;
  %0 = ptx.min s32 %a, %b : i32
  %1 = ptx.min u32 %a, %b : i32
  %2 = ptx.max s32 %a, %b : i32
  %3 = ptx.max u32 %a, %b : i32
  %4 = ptx.min s64 %c, %c : i64
  %5 = ptx.max u64 %c, %c : i64
  %6 = ptx.min u16 %d, %d : i16
  %7 = ptx.max s16 %d, %d : i16
  ptx.ret
}

// CHECK-LABEL: .visible .entry int_abs_neg(
ptx.entry @int_abs_neg(%a: i32, %c: i64, %d: i16) {
  // CHECK:      abs.s32 %r2, %r1;
  // CHECK-NEXT: neg.s32 %r3, %r1;
  // CHECK-NEXT: abs.s64 %rd2, %rd1;
  // CHECK-NEXT: neg.s64 %rd3, %rd1;
  // CHECK-NEXT: abs.s16 %rs2, %rs1;
  // CHECK-NEXT: neg.s16 %rs3, %rs1;
  %0 = ptx.abs s32 %a : i32
  %1 = ptx.neg s32 %a : i32
  %2 = ptx.abs s64 %c : i64
  %3 = ptx.neg s64 %c : i64
  %4 = ptx.abs s16 %d : i16
  %5 = ptx.neg s16 %d : i16
  ptx.ret
}
