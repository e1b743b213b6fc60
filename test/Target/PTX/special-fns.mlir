// ex2, lg2, sin, cos, tanh, rcp, sqrt, rsqrt: .approx, IEEE rounding, ftz,
// f32, f64 and the half-precision ex2/tanh forms.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry f32_fns(
ptx.entry @f32_fns(%x: f32) {
  // CHECK:      ex2.approx.f32 %f2, %f1;
  // CHECK-NEXT: ex2.approx.ftz.f32 %f3, %f1;
  // CHECK-NEXT: lg2.approx.f32 %f4, %f1;
  // CHECK-NEXT: lg2.approx.ftz.f32 %f5, %f1;
  // CHECK-NEXT: sin.approx.f32 %f6, %f1;
  // CHECK-NEXT: cos.approx.ftz.f32 %f7, %f1;
  // CHECK-NEXT: tanh.approx.f32 %f8, %f1;
  // CHECK-NEXT: rcp.approx.f32 %f9, %f1;
  // CHECK-NEXT: rcp.approx.ftz.f32 %f10, %f1;
  // CHECK-NEXT: rcp.rn.f32 %f11, %f1;
  // CHECK-NEXT: rcp.rz.ftz.f32 %f12, %f1;
  // CHECK-NEXT: sqrt.approx.f32 %f13, %f1;
  // CHECK-NEXT: sqrt.rn.f32 %f14, %f1;
  // CHECK-NEXT: sqrt.rm.ftz.f32 %f15, %f1;
  // CHECK-NEXT: rsqrt.approx.f32 %f16, %f1;
  // CHECK-NEXT: rsqrt.approx.ftz.f32 %f17, %f1;
  %0 = ptx.ex2 approx f32 %x : f32
  %1 = ptx.ex2 approx ftz f32 %x : f32
  %2 = ptx.lg2 approx f32 %x : f32
  %3 = ptx.lg2 approx ftz f32 %x : f32
  %4 = ptx.sin approx f32 %x : f32
  %5 = ptx.cos approx ftz f32 %x : f32
  %6 = ptx.tanh approx f32 %x : f32
  %7 = ptx.rcp approx f32 %x : f32
  %8 = ptx.rcp approx ftz f32 %x : f32
  %9 = ptx.rcp rn f32 %x : f32
  %10 = ptx.rcp rz ftz f32 %x : f32
  %11 = ptx.sqrt approx f32 %x : f32
  %12 = ptx.sqrt rn f32 %x : f32
  %13 = ptx.sqrt rm ftz f32 %x : f32
  %14 = ptx.rsqrt approx f32 %x : f32
  %15 = ptx.rsqrt approx ftz f32 %x : f32
  ptx.ret
}

// CHECK-LABEL: .visible .entry f64_fns(
ptx.entry @f64_fns(%u: f64) {
  // CHECK:      rcp.rn.f64 %fd2, %fd1;
  // CHECK-NEXT: rcp.rp.f64 %fd3, %fd1;
  // CHECK-NEXT: rcp.approx.ftz.f64 %fd4, %fd1;
  // CHECK-NEXT: sqrt.rn.f64 %fd5, %fd1;
  // CHECK-NEXT: sqrt.rz.f64 %fd6, %fd1;
  // CHECK-NEXT: rsqrt.approx.f64 %fd7, %fd1;
  %0 = ptx.rcp rn f64 %u : f64
  %1 = ptx.rcp rp f64 %u : f64
  %2 = ptx.rcp approx ftz f64 %u : f64
  %3 = ptx.sqrt rn f64 %u : f64
  %4 = ptx.sqrt rz f64 %u : f64
  %5 = ptx.rsqrt approx f64 %u : f64
  ptx.ret
}

// CHECK-LABEL: .visible .entry half_fns(
ptx.entry @half_fns(%h: f16, %hh: vector<2xf16>) {
  // CHECK:      ex2.approx.f16 %h2, %h1;
  // CHECK-NEXT: ex2.approx.f16x2 %hh2, %hh1;
  // CHECK-NEXT: tanh.approx.f16 %h3, %h1;
  // CHECK-NEXT: tanh.approx.f16x2 %hh3, %hh1;
  %0 = ptx.ex2 approx f16 %h : f16
  %1 = ptx.ex2 approx f16x2 %hh : vector<2xf16>
  %2 = ptx.tanh approx f16 %h : f16
  %3 = ptx.tanh approx f16x2 %hh : vector<2xf16>
  ptx.ret
}
