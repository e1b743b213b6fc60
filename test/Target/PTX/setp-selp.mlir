// setp with every comparison (signed, unsigned lo/ls/hi/hs, NaN-aware
// equ..geu/num/nan), ftz, predicate combining, and selp.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry int_compares(
ptx.entry @int_compares(%a: i32, %b: i32, %w: i64, %h: i16) {
  // CHECK:      setp.eq.s32 %p1, %r1, %r2;
  // CHECK-NEXT: setp.ne.s32 %p2, %r1, %r2;
  // CHECK-NEXT: setp.lt.s32 %p3, %r1, %r2;
  // CHECK-NEXT: setp.le.s32 %p4, %r1, %r2;
  // CHECK-NEXT: setp.gt.s32 %p5, %r1, %r2;
  // CHECK-NEXT: setp.ge.s32 %p6, %r1, %r2;
  // CHECK-NEXT: setp.lo.u32 %p7, %r1, %r2;
  // CHECK-NEXT: setp.ls.u32 %p8, %r1, %r2;
  // CHECK-NEXT: setp.hi.u32 %p9, %r1, %r2;
  // CHECK-NEXT: setp.hs.u32 %p10, %r1, %r2;
  // CHECK-NEXT: setp.lt.u32 %p11, %r1, %r2;
  // CHECK-NEXT: setp.eq.b32 %p12, %r1, %r2;
  // CHECK-NEXT: setp.ne.b64 %p13, %rd1, %rd1;
  // CHECK-NEXT: setp.ge.s64 %p14, %rd1, %rd1;
  // CHECK-NEXT: setp.hi.u64 %p15, %rd1, %rd1;
  // CHECK-NEXT: setp.lt.s16 %p16, %rs1, %rs1;
  // CHECK-NEXT: setp.ls.u16 %p17, %rs1, %rs1;
  %0 = ptx.setp eq s32 %a, %b : i32
  %1 = ptx.setp ne s32 %a, %b : i32
  %2 = ptx.setp lt s32 %a, %b : i32
  %3 = ptx.setp le s32 %a, %b : i32
  %4 = ptx.setp gt s32 %a, %b : i32
  %5 = ptx.setp ge s32 %a, %b : i32
  %6 = ptx.setp lo u32 %a, %b : i32
  %7 = ptx.setp ls u32 %a, %b : i32
  %8 = ptx.setp hi u32 %a, %b : i32
  %9 = ptx.setp hs u32 %a, %b : i32
  %10 = ptx.setp lt u32 %a, %b : i32
  %11 = ptx.setp eq b32 %a, %b : i32
  %12 = ptx.setp ne b64 %w, %w : i64
  %13 = ptx.setp ge s64 %w, %w : i64
  %14 = ptx.setp hi u64 %w, %w : i64
  %15 = ptx.setp lt s16 %h, %h : i16
  %16 = ptx.setp ls u16 %h, %h : i16
  ptx.ret
}

// CHECK-LABEL: .visible .entry float_compares(
ptx.entry @float_compares(%x: f32, %y: f32, %u: f64, %h: f16) {
  // CHECK:      setp.eq.f32 %p1, %f1, %f2;
  // CHECK-NEXT: setp.ne.f32 %p2, %f1, %f2;
  // CHECK-NEXT: setp.lt.ftz.f32 %p3, %f1, %f2;
  // CHECK-NEXT: setp.le.f32 %p4, %f1, %f2;
  // CHECK-NEXT: setp.gt.f32 %p5, %f1, %f2;
  // CHECK-NEXT: setp.ge.f32 %p6, %f1, %f2;
  // CHECK-NEXT: setp.equ.f32 %p7, %f1, %f2;
  // CHECK-NEXT: setp.neu.f32 %p8, %f1, %f2;
  // CHECK-NEXT: setp.ltu.f32 %p9, %f1, %f2;
  // CHECK-NEXT: setp.leu.f32 %p10, %f1, %f2;
  // CHECK-NEXT: setp.gtu.ftz.f32 %p11, %f1, %f2;
  // CHECK-NEXT: setp.geu.f32 %p12, %f1, %f2;
  // CHECK-NEXT: setp.num.f32 %p13, %f1, %f2;
  // CHECK-NEXT: setp.nan.f32 %p14, %f1, %f2;
  // CHECK-NEXT: setp.ltu.f64 %p15, %fd1, %fd1;
  // CHECK-NEXT: setp.nan.f64 %p16, %fd1, %fd1;
  // CHECK-NEXT: setp.ge.f16 %p17, %h1, %h1;
  // CHECK-NEXT: setp.neu.ftz.f16 %p18, %h1, %h1;
  %0 = ptx.setp eq f32 %x, %y : f32
  %1 = ptx.setp ne f32 %x, %y : f32
  %2 = ptx.setp lt ftz f32 %x, %y : f32
  %3 = ptx.setp le f32 %x, %y : f32
  %4 = ptx.setp gt f32 %x, %y : f32
  %5 = ptx.setp ge f32 %x, %y : f32
  %6 = ptx.setp equ f32 %x, %y : f32
  %7 = ptx.setp neu f32 %x, %y : f32
  %8 = ptx.setp ltu f32 %x, %y : f32
  %9 = ptx.setp leu f32 %x, %y : f32
  %10 = ptx.setp gtu ftz f32 %x, %y : f32
  %11 = ptx.setp geu f32 %x, %y : f32
  %12 = ptx.setp num f32 %x, %y : f32
  %13 = ptx.setp nan f32 %x, %y : f32
  %14 = ptx.setp ltu f64 %u, %u : f64
  %15 = ptx.setp nan f64 %u, %u : f64
  %16 = ptx.setp ge f16 %h, %h : f16
  %17 = ptx.setp neu ftz f16 %h, %h : f16
  ptx.ret
}

// CHECK-LABEL: .visible .entry combine_and_select(
ptx.entry @combine_and_select(%a: i32, %b: i32, %x: f32, %y: f32, %w: i64) {
  // CHECK:      setp.lt.s32 %p1, %r1, %r2;
  // CHECK-NEXT: setp.ge.and.f32 %p2, %f1, %f2, %p1;
  // CHECK-NEXT: setp.ne.or.s32 %p3, %r1, %r2, %p2;
  // CHECK-NEXT: setp.nan.xor.f32 %p4, %f1, %f2, %p3;
  // CHECK-NEXT: setp.lt.and.ftz.f32 %p5, %f1, %f2, %p4;
  %p = ptx.setp lt s32 %a, %b : i32
  %q = ptx.setp ge and f32 %x, %y, %p : f32
  %r = ptx.setp ne or s32 %a, %b, %q : i32
  %s = ptx.setp nan xor f32 %x, %y, %r : f32
  %t = ptx.setp lt and ftz f32 %x, %y, %s : f32
  // CHECK-NEXT: selp.b32 %r3, %r1, %r2, %p5;
  // CHECK-NEXT: selp.s32 %r4, %r1, %r2, %p1;
  // CHECK-NEXT: selp.f32 %f3, %f1, %f2, %p2;
  // CHECK-NEXT: selp.u64 %rd2, %rd1, %rd1, %p3;
  %0 = ptx.selp b32 %a, %b, %t : i32
  %1 = ptx.selp s32 %a, %b, %p : i32
  %2 = ptx.selp f32 %x, %y, %q : f32
  %3 = ptx.selp u64 %w, %w, %r : i64
  ptx.ret
}
