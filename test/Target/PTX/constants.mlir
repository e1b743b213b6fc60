// ptx.constant: integer immediates of every width (negative ones in their
// two's-complement unsigned spelling), predicates, and float immediates as
// 0f (f32), 0d (f64) and 0x (f16/bf16 bit patterns).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry ints(
ptx.entry @ints() {
  // CHECK:      mov.u32 %r1, 0;
  // CHECK-NEXT: mov.u32 %r2, 42;
  // CHECK-NEXT: mov.u32 %r3, 4294967295;
  // CHECK-NEXT: mov.u32 %r4, 2147483648;
  // CHECK-NEXT: mov.u64 %rd1, 18446744073709551615;
  // CHECK-NEXT: mov.u64 %rd2, 1099511627776;
  // CHECK-NEXT: mov.u16 %rs1, 65535;
  // CHECK-NEXT: mov.u16 %rs2, 7;
  // CHECK-NEXT: mov.pred %p1, 1;
  // CHECK-NEXT: mov.pred %p2, 0;
  %0 = ptx.constant 0 : i32
  %1 = ptx.constant 42 : i32
  %2 = ptx.constant -1 : i32
  %3 = ptx.constant -2147483648 : i32
  %4 = ptx.constant -1 : i64
  %5 = ptx.constant 1099511627776 : i64
  %6 = ptx.constant -1 : i16
  %7 = ptx.constant 7 : i16
  %8 = ptx.constant true
  %9 = ptx.constant false
  ptx.ret
}

// CHECK-LABEL: .visible .entry floats(
ptx.entry @floats() {
  // CHECK:      mov.f32 %f1, 0f3F800000;
  // CHECK-NEXT: mov.f32 %f2, 0fC0200000;
  // CHECK-NEXT: mov.f32 %f3, 0f00000000;
  // CHECK-NEXT: mov.f32 %f4, 0f80000000;
  // CHECK-NEXT: mov.f32 %f5, 0f7F800000;
  // CHECK-NEXT: mov.f32 %f6, 0f7FC00000;
  // CHECK-NEXT: mov.f64 %fd1, 0d3FF0000000000000;
  // CHECK-NEXT: mov.f64 %fd2, 0dBFB999999999999A;
  // CHECK-NEXT: mov.b16 %h1, 0x3C00;
  // CHECK-NEXT: mov.b16 %h2, 0xC000;
  // CHECK-NEXT: mov.b16 %h3, 0x3F80;
  // CHECK-NEXT: mov.b16 %h4, 0x0000;
  %0 = ptx.constant 1.0 : f32
  %1 = ptx.constant -2.5 : f32
  %2 = ptx.constant 0.0 : f32
  %3 = ptx.constant -0.0 : f32
  %4 = ptx.constant 0x7F800000 : f32
  %5 = ptx.constant 0x7FC00000 : f32
  %6 = ptx.constant 1.0 : f64
  %7 = ptx.constant -0.1 : f64
  %8 = ptx.constant 1.0 : f16
  %9 = ptx.constant -2.0 : f16
  %10 = ptx.constant 1.0 : bf16
  %11 = ptx.constant 0.0 : bf16
  // Immediates feed arithmetic like any register.
  // CHECK-NEXT: add.rn.f32 %f7, %f1, %f2;
  // CHECK-NEXT: add.rn.f16 %h5, %h1, %h2;
  %12 = ptx.add rn f32 %0, %1 : f32
  %13 = ptx.add rn f16 %8, %9 : f16
  ptx.ret
}
