// cvt between integer widths (with sat), int<->float with float and integer
// rounding, float widening/narrowing, f16 and bf16 (sm_80) destinations,
// relu, ftz, and cvt.rna.tf32.f32.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90 sm_90a

// CHECK-LABEL: .visible .entry cvt_int(
ptx.entry @cvt_int(%a: i32, %w: i64, %h: i16) {
  // CHECK:      cvt.s64.s32 %rd2, %r1;
  // CHECK-NEXT: cvt.u64.u32 %rd3, %r1;
  // CHECK-NEXT: cvt.u32.u64 %r2, %rd1;
  // CHECK-NEXT: cvt.s32.s8 %r3, %r1;
  // CHECK-NEXT: cvt.u16.u32 %rs2, %r1;
  // CHECK-NEXT: cvt.s32.s16 %r4, %rs1;
  // CHECK-NEXT: cvt.sat.u8.s32 %r5, %r1;
  // CHECK-NEXT: cvt.sat.s16.s64 %rs3, %rd1;
  %0 = ptx.cvt s64 s32 %a : i32 -> i64
  %1 = ptx.cvt u64 u32 %a : i32 -> i64
  %2 = ptx.cvt u32 u64 %w : i64 -> i32
  %3 = ptx.cvt s32 s8 %a : i32 -> i32
  %4 = ptx.cvt u16 u32 %a : i32 -> i16
  %5 = ptx.cvt s32 s16 %h : i16 -> i32
  %6 = ptx.cvt sat u8 s32 %a : i32 -> i32
  %7 = ptx.cvt sat s16 s64 %w : i64 -> i16
  ptx.ret
}

// CHECK-LABEL: .visible .entry cvt_int_float(
ptx.entry @cvt_int_float(%a: i32, %w: i64, %x: f32, %u: f64) {
  // CHECK:      cvt.rn.f32.s32 %f2, %r1;
  // CHECK-NEXT: cvt.rz.f32.u32 %f3, %r1;
  // CHECK-NEXT: cvt.rm.f64.s64 %fd2, %rd1;
  // CHECK-NEXT: cvt.rp.f64.u32 %fd3, %r1;
  // CHECK-NEXT: cvt.rni.s32.f32 %r2, %f1;
  // CHECK-NEXT: cvt.rzi.u32.f32 %r3, %f1;
  // CHECK-NEXT: cvt.rmi.s64.f64 %rd2, %fd1;
  // CHECK-NEXT: cvt.rpi.ftz.sat.s32.f32 %r4, %f1;
  %0 = ptx.cvt rn f32 s32 %a : i32 -> f32
  %1 = ptx.cvt rz f32 u32 %a : i32 -> f32
  %2 = ptx.cvt rm f64 s64 %w : i64 -> f64
  %3 = ptx.cvt rp f64 u32 %a : i32 -> f64
  %4 = ptx.cvt rni s32 f32 %x : f32 -> i32
  %5 = ptx.cvt rzi u32 f32 %x : f32 -> i32
  %6 = ptx.cvt rmi s64 f64 %u : f64 -> i64
  %7 = ptx.cvt rpi ftz sat s32 f32 %x : f32 -> i32
  ptx.ret
}

// CHECK-LABEL: .visible .entry cvt_float(
ptx.entry @cvt_float(%x: f32, %u: f64, %h: f16) {
  // CHECK:      cvt.f64.f32 %fd2, %f1;
  // CHECK-NEXT: cvt.rn.f32.f64 %f2, %fd1;
  // CHECK-NEXT: cvt.rz.ftz.f32.f64 %f3, %fd1;
  // CHECK-NEXT: cvt.rni.f32.f32 %f4, %f1;
  // CHECK-NEXT: cvt.rzi.ftz.f32.f32 %f5, %f1;
  // CHECK-NEXT: cvt.rmi.f64.f64 %fd3, %fd1;
  // CHECK-NEXT: cvt.sat.f32.f32 %f6, %f1;
  // CHECK-NEXT: cvt.f32.f16 %f7, %h1;
  // CHECK-NEXT: cvt.f64.f16 %fd4, %h1;
  // CHECK-NEXT: cvt.rn.f16.f32 %h2, %f1;
  // CHECK-NEXT: cvt.rz.f16.f64 %h3, %fd1;
  // CHECK-NEXT: cvt.rn.relu.f16.f32 %h4, %f1;
  // CHECK-NEXT: cvt.rn.bf16.f32 %h5, %f1;
  // CHECK-NEXT: cvt.rz.relu.bf16.f32 %h6, %f1;
  // CHECK-NEXT: cvt.rna.tf32.f32 %r1, %f1;
  // CHECK-NEXT: cvt.rni.s32.f16 %r2, %h1;
  // CHECK-NEXT: cvt.rn.f16.s32 %h7, %r2;
  %0 = ptx.cvt f64 f32 %x : f32 -> f64
  %1 = ptx.cvt rn f32 f64 %u : f64 -> f32
  %2 = ptx.cvt rz ftz f32 f64 %u : f64 -> f32
  %3 = ptx.cvt rni f32 f32 %x : f32 -> f32
  %4 = ptx.cvt rzi ftz f32 f32 %x : f32 -> f32
  %5 = ptx.cvt rmi f64 f64 %u : f64 -> f64
  %6 = ptx.cvt sat f32 f32 %x : f32 -> f32
  %7 = ptx.cvt f32 f16 %h : f16 -> f32
  %8 = ptx.cvt f64 f16 %h : f16 -> f64
  %9 = ptx.cvt rn f16 f32 %x : f32 -> f16
  %10 = ptx.cvt rz f16 f64 %u : f64 -> f16
  %11 = ptx.cvt rn relu f16 f32 %x : f32 -> f16
  %12 = ptx.cvt rn bf16 f32 %x : f32 -> bf16
  %13 = ptx.cvt rz relu bf16 f32 %x : f32 -> bf16
  %14 = ptx.cvt rna tf32 f32 %x : f32 -> i32
  %15 = ptx.cvt rni s32 f16 %h : f16 -> i32
  %16 = ptx.cvt rn f16 s32 %15 : i32 -> f16
  ptx.ret
}
