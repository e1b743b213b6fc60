// f32/f64 add, sub, mul, fma, mad, min, max, abs, neg with every rounding
// and the ftz/sat/NaN modifiers.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90 sm_100a

// CHECK-LABEL: .visible .entry f32_ops(
ptx.entry @f32_ops(%x: f32, %y: f32, %z: f32) {
  // CHECK:      add.f32 %f4, %f1, %f2;
  // CHECK-NEXT: add.rn.f32 %f5, %f1, %f2;
  // CHECK-NEXT: add.rz.ftz.f32 %f6, %f1, %f2;
  // CHECK-NEXT: add.rm.sat.f32 %f7, %f1, %f2;
  // CHECK-NEXT: add.rp.ftz.sat.f32 %f8, %f1, %f2;
  // CHECK-NEXT: sub.rn.f32 %f9, %f1, %f2;
  // CHECK-NEXT: sub.ftz.f32 %f10, %f1, %f2;
  // CHECK-NEXT: mul.rn.f32 %f11, %f1, %f2;
  // CHECK-NEXT: mul.rz.ftz.sat.f32 %f12, %f1, %f2;
  // CHECK-NEXT: fma.rn.f32 %f13, %f1, %f2, %f3;
  // CHECK-NEXT: fma.rm.ftz.sat.f32 %f14, %f1, %f2, %f3;
  // CHECK-NEXT: mad.rn.f32 %f15, %f1, %f2, %f3;
  // CHECK-NEXT: mad.rp.ftz.f32 %f16, %f1, %f2, %f3;
  %0 = ptx.add f32 %x, %y : f32
  %1 = ptx.add rn f32 %x, %y : f32
  %2 = ptx.add rz ftz f32 %x, %y : f32
  %3 = ptx.add rm sat f32 %x, %y : f32
  %4 = ptx.add rp ftz sat f32 %x, %y : f32
  %5 = ptx.sub rn f32 %x, %y : f32
  %6 = ptx.sub ftz f32 %x, %y : f32
  %7 = ptx.mul rn f32 %x, %y : f32
  %8 = ptx.mul rz ftz sat f32 %x, %y : f32
  %9 = ptx.fma rn f32 %x, %y, %z : f32
  %10 = ptx.fma rm ftz sat f32 %x, %y, %z : f32
  %11 = ptx.mad rn f32 %x, %y, %z : f32
  %12 = ptx.mad rp ftz f32 %x, %y, %z : f32
  // CHECK-NEXT: min.f32 %f17, %f1, %f2;
  // CHECK-NEXT: min.ftz.f32 %f18, %f1, %f2;
  // CHECK-NEXT: min.NaN.f32 %f19, %f1, %f2;
  // CHECK-NEXT: max.ftz.NaN.f32 %f20, %f1, %f2;
  // CHECK-NEXT: max.f32 %f21, %f1, %f2;
  // CHECK-NEXT: abs.f32 %f22, %f1;
  // CHECK-NEXT: abs.ftz.f32 %f23, %f1;
  // CHECK-NEXT: neg.f32 %f24, %f1;
  // CHECK-NEXT: neg.ftz.f32 %f25, %f1;
  // CHECK-NEXT: ret;
  %13 = ptx.min f32 %x, %y : f32
  %14 = ptx.min ftz f32 %x, %y : f32
  %15 = ptx.min NaN f32 %x, %y : f32
  %16 = ptx.max ftz NaN f32 %x, %y : f32
  %17 = ptx.max f32 %x, %y : f32
  %18 = ptx.abs f32 %x : f32
  %19 = ptx.abs ftz f32 %x : f32
  %20 = ptx.neg f32 %x : f32
  %21 = ptx.neg ftz f32 %x : f32
  ptx.ret
}

// CHECK-LABEL: .visible .entry f64_ops(
ptx.entry @f64_ops(%x: f64, %y: f64, %z: f64) {
  // CHECK:      add.rn.f64 %fd4, %fd1, %fd2;
  // CHECK-NEXT: sub.rz.f64 %fd5, %fd1, %fd2;
  // CHECK-NEXT: mul.rm.f64 %fd6, %fd1, %fd2;
  // CHECK-NEXT: fma.rp.f64 %fd7, %fd1, %fd2, %fd3;
  // CHECK-NEXT: mad.rn.f64 %fd8, %fd1, %fd2, %fd3;
  // CHECK-NEXT: min.f64 %fd9, %fd1, %fd2;
  // CHECK-NEXT: max.f64 %fd10, %fd1, %fd2;
  // CHECK-NEXT: abs.f64 %fd11, %fd1;
  // CHECK-NEXT: neg.f64 %fd12, %fd1;
  %0 = ptx.add rn f64 %x, %y : f64
  %1 = ptx.sub rz f64 %x, %y : f64
  %2 = ptx.mul rm f64 %x, %y : f64
  %3 = ptx.fma rp f64 %x, %y, %z : f64
  %4 = ptx.mad rn f64 %x, %y, %z : f64
  %5 = ptx.min f64 %x, %y : f64
  %6 = ptx.max f64 %x, %y : f64
  %7 = ptx.abs f64 %x : f64
  %8 = ptx.neg f64 %x : f64
  ptx.ret
}
