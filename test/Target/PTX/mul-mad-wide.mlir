// Integer mul/mad in the .lo, .hi and .wide forms, mad.hi.sat.s32.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry mul_forms(
ptx.entry @mul_forms(%a: i32, %b: i32, %w: i64, %h: i16) {
  // CHECK:      mul.lo.s32 %r3, %r1, %r2;
  // CHECK-NEXT: mul.lo.u32 %r4, %r1, %r2;
  // CHECK-NEXT: mul.hi.s32 %r5, %r1, %r2;
  // CHECK-NEXT: mul.hi.u32 %r6, %r1, %r2;
  // CHECK-NEXT: mul.wide.s32 %rd2, %r1, %r2;
  // CHECK-NEXT: mul.wide.u32 %rd3, %r1, %r2;
  // CHECK-NEXT: mul.lo.u64 %rd4, %rd1, %rd1;
  // CHECK-NEXT: mul.hi.s64 %rd5, %rd1, %rd1;
  // CHECK-NEXT: mul.lo.s16 %rs2, %rs1, %rs1;
  // CHECK-NEXT: mul.wide.u16 %r7, %rs1, %rs1;
  %0 = ptx.mul lo s32 %a, %b : i32
  %1 = ptx.mul lo u32 %a, %b : i32
  %2 = ptx.mul hi s32 %a, %b : i32
  %3 = ptx.mul hi u32 %a, %b : i32
  %4 = ptx.mul wide s32 %a, %b : (i32, i32) -> i64
  %5 = ptx.mul wide u32 %a, %b : (i32, i32) -> i64
  %6 = ptx.mul lo u64 %w, %w : i64
  %7 = ptx.mul hi s64 %w, %w : i64
  %8 = ptx.mul lo s16 %h, %h : i16
  %9 = ptx.mul wide u16 %h, %h : (i16, i16) -> i32
  ptx.ret
}

// CHECK-LABEL: .visible .entry mad_forms(
ptx.entry @mad_forms(%a: i32, %b: i32, %c: i32, %w: i64) {
  // CHECK:      mad.lo.s32 %r4, %r1, %r2, %r3;
  // CHECK-NEXT: mad.lo.u32 %r5, %r1, %r2, %r3;
  // CHECK-NEXT: mad.hi.u32 %r6, %r1, %r2, %r3;
  // CHECK-NEXT: mad.hi.sat.s32 %r7, %r1, %r2, %r3;
  // CHECK-NEXT: mad.wide.s32 %rd2, %r1, %r2, %rd1;
  // CHECK-NEXT: mad.wide.u32 %rd3, %r1, %r2, %rd1;
  // CHECK-NEXT: mad.lo.s64 %rd4, %rd1, %rd1, %rd1;
  %0 = ptx.mad lo s32 %a, %b, %c : i32
  %1 = ptx.mad lo u32 %a, %b, %c : i32
  %2 = ptx.mad hi u32 %a, %b, %c : i32
  %3 = ptx.mad hi sat s32 %a, %b, %c : i32
  %4 = ptx.mad wide s32 %a, %b, %w : (i32, i32, i64) -> i64
  %5 = ptx.mad wide u32 %a, %b, %w : (i32, i32, i64) -> i64
  %6 = ptx.mad lo s64 %w, %w, %w : i64
  ptx.ret
}
