// and/or/xor/not on predicates and bit types; shl/shr in every form.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry logic(
ptx.entry @logic(%a: i32, %b: i32, %w: i64, %h: i16) {
  // CHECK:      and.b32 %r3, %r1, %r2;
  // CHECK-NEXT: or.b32 %r4, %r1, %r2;
  // CHECK-NEXT: xor.b32 %r5, %r1, %r2;
  // CHECK-NEXT: not.b32 %r6, %r1;
  // CHECK-NEXT: and.b64 %rd2, %rd1, %rd1;
  // CHECK-NEXT: or.b64 %rd3, %rd1, %rd1;
  // CHECK-NEXT: xor.b16 %rs2, %rs1, %rs1;
  // CHECK-NEXT: not.b16 %rs3, %rs1;
  %0 = ptx.and b32 %a, %b : i32
  %1 = ptx.or b32 %a, %b : i32
  %2 = ptx.xor b32 %a, %b : i32
  %3 = ptx.not b32 %a : i32
  %4 = ptx.and b64 %w, %w : i64
  %5 = ptx.or b64 %w, %w : i64
  %6 = ptx.xor b16 %h, %h : i16
  %7 = ptx.not b16 %h : i16
  // CHECK-NEXT: setp.lt.s32 %p1, %r1, %r2;
  // CHECK-NEXT: setp.gt.s32 %p2, %r1, %r2;
  // CHECK-NEXT: and.pred %p3, %p1, %p2;
  // CHECK-NEXT: or.pred %p4, %p1, %p2;
  // CHECK-NEXT: xor.pred %p5, %p1, %p2;
  // CHECK-NEXT: not.pred %p6, %p1;
  %p = ptx.setp lt s32 %a, %b : i32
  %q = ptx.setp gt s32 %a, %b : i32
  %8 = ptx.and pred %p, %q : i1
  %9 = ptx.or pred %p, %q : i1
  %10 = ptx.xor pred %p, %q : i1
  %11 = ptx.not pred %p : i1
  ptx.ret
}

// CHECK-LABEL: .visible .entry shifts(
ptx.entry @shifts(%a: i32, %n: i32, %w: i64, %h: i16) {
  // CHECK:      shl.b32 %r3, %r1, %r2;
  // CHECK-NEXT: shl.b64 %rd2, %rd1, %r2;
  // CHECK-NEXT: shl.b16 %rs2, %rs1, %r2;
  // CHECK-NEXT: shr.b32 %r4, %r1, %r2;
  // CHECK-NEXT: shr.u32 %r5, %r1, %r2;
  // CHECK-NEXT: shr.s32 %r6, %r1, %r2;
  // CHECK-NEXT: shr.s64 %rd3, %rd1, %r2;
  // CHECK-NEXT: shr.u64 %rd4, %rd1, %r2;
  // CHECK-NEXT: shr.s16 %rs3, %rs1, %r2;
  %0 = ptx.shl b32 %a, %n : i32
  %1 = ptx.shl b64 %w, %n : (i64, i32) -> i64
  %2 = ptx.shl b16 %h, %n : (i16, i32) -> i16
  %3 = ptx.shr b32 %a, %n : i32
  %4 = ptx.shr u32 %a, %n : i32
  %5 = ptx.shr s32 %a, %n : i32
  %6 = ptx.shr s64 %w, %n : (i64, i32) -> i64
  %7 = ptx.shr u64 %w, %n : (i64, i32) -> i64
  %8 = ptx.shr s16 %h, %n : (i16, i32) -> i16
  ptx.ret
}
