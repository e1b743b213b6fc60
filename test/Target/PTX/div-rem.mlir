// div (integer; f32 approx/full/IEEE; f64 IEEE) and rem.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry int_div_rem(
ptx.entry @int_div_rem(%a: i32, %b: i32, %c: i64, %d: i16) {
  // CHECK:      div.s32 %r3, %r1, %r2;
  // CHECK-NEXT: div.u32 %r4, %r1, %r2;
  // CHECK-NEXT: rem.s32 %r5, %r1, %r2;
  // CHECK-NEXT: rem.u32 %r6, %r1, %r2;
  // CHECK-NEXT: div.u64 %rd2, %rd1, %rd1;
  // CHECK-NEXT: rem.s64 %rd3, %rd1, %rd1;
  // CHECK-NEXT: div.s16 %rs2, %rs1, %rs1;
  // CHECK-NEXT: rem.u16 %rs3, %rs1, %rs1;
  %0 = ptx.div s32 %a, %b : i32
  %1 = ptx.div u32 %a, %b : i32
  %2 = ptx.rem s32 %a, %b : i32
  %3 = ptx.rem u32 %a, %b : i32
  %4 = ptx.div u64 %c, %c : i64
  %5 = ptx.rem s64 %c, %c : i64
  %6 = ptx.div s16 %d, %d : i16
  %7 = ptx.rem u16 %d, %d : i16
  ptx.ret
}

// CHECK-LABEL: .visible .entry float_div(
ptx.entry @float_div(%x: f32, %y: f32, %u: f64, %v: f64) {
  // CHECK:      div.approx.f32 %f3, %f1, %f2;
  // CHECK-NEXT: div.approx.ftz.f32 %f4, %f1, %f2;
  // CHECK-NEXT: div.full.f32 %f5, %f1, %f2;
  // CHECK-NEXT: div.full.ftz.f32 %f6, %f1, %f2;
  // CHECK-NEXT: div.rn.f32 %f7, %f1, %f2;
  // CHECK-NEXT: div.rz.ftz.f32 %f8, %f1, %f2;
  // CHECK-NEXT: div.rn.f64 %fd3, %fd1, %fd2;
  // CHECK-NEXT: div.rm.f64 %fd4, %fd1, %fd2;
  // CHECK-NEXT: div.rp.f64 %fd5, %fd1, %fd2;
  %0 = ptx.div approx f32 %x, %y : f32
  %1 = ptx.div approx ftz f32 %x, %y : f32
  %2 = ptx.div full f32 %x, %y : f32
  %3 = ptx.div full ftz f32 %x, %y : f32
  %4 = ptx.div rn f32 %x, %y : f32
  %5 = ptx.div rz ftz f32 %x, %y : f32
  %6 = ptx.div rn f64 %u, %v : f64
  %7 = ptx.div rm f64 %u, %v : f64
  %8 = ptx.div rp f64 %u, %v : f64
  ptx.ret
}
