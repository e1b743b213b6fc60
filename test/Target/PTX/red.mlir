// red: every reduction, global/shared/generic, memory order and scope, and
// .noftz on the f16 adds.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

ptx.var shared @acc : f32 [32] align 4

// CHECK-LABEL: .visible .entry reductions(
ptx.entry @reductions(%p: i64 {ptx.ptr = i32}, %a: i32, %w: i64, %x: f32, %u: f64, %h: f16, %hh: vector<2xf16>) {
  // CHECK:      red.global.add.u32 [%rd1], %r1;
  // CHECK-NEXT: red.global.add.s32 [%rd1+4], %r1;
  // CHECK-NEXT: red.global.add.u64 [%rd1+8], %rd2;
  // CHECK-NEXT: red.global.min.s32 [%rd1], %r1;
  // CHECK-NEXT: red.global.max.u64 [%rd1], %rd2;
  // CHECK-NEXT: red.global.inc.u32 [%rd1], %r1;
  // CHECK-NEXT: red.global.dec.u32 [%rd1], %r1;
  // CHECK-NEXT: red.global.and.b32 [%rd1], %r1;
  // CHECK-NEXT: red.global.or.b64 [%rd1], %rd2;
  // CHECK-NEXT: red.global.xor.b32 [%rd1], %r1;
  // CHECK-NEXT: red.global.add.f32 [%rd1], %f1;
  // CHECK-NEXT: red.global.add.f64 [%rd1], %fd1;
  // CHECK-NEXT: red.global.add.noftz.f16 [%rd1], %h1;
  // CHECK-NEXT: red.global.add.noftz.f16x2 [%rd1], %hh1;
  ptx.red global add u32 [%p], %a : i64, i32
  ptx.red global add s32 [%p + 4], %a : i64, i32
  ptx.red global add u64 [%p + 8], %w : i64, i64
  ptx.red global min s32 [%p], %a : i64, i32
  ptx.red global max u64 [%p], %w : i64, i64
  ptx.red global inc u32 [%p], %a : i64, i32
  ptx.red global dec u32 [%p], %a : i64, i32
  ptx.red global and b32 [%p], %a : i64, i32
  ptx.red global or b64 [%p], %w : i64, i64
  ptx.red global xor b32 [%p], %a : i64, i32
  ptx.red global add f32 [%p], %x : i64, f32
  ptx.red global add f64 [%p], %u : i64, f64
  ptx.red global add f16 [%p], %h : i64, f16
  ptx.red global add f16x2 [%p], %hh : i64, vector<2xf16>
  // CHECK-NEXT: mov.u32 %r2, acc;
  // CHECK-NEXT: red.shared.add.f32 [%r2+4], %f1;
  // CHECK-NEXT: red.add.u32 [%rd1], %r1;
  // CHECK-NEXT: red.relaxed.gpu.global.add.u32 [%rd1], %r1;
  // CHECK-NEXT: red.release.sys.global.add.f32 [%rd1], %f1;
  // CHECK-NEXT: red.release.cta.shared.add.f32 [%r2], %f1;
  // CHECK-NEXT: red.gpu.global.max.s32 [%rd1], %r1;
  %s = ptx.addressof @acc : i32
  ptx.red shared add f32 [%s + 4], %x : i32, f32
  ptx.red generic add u32 [%p], %a : i64, i32
  ptx.red global relaxed gpu add u32 [%p], %a : i64, i32
  ptx.red global release sys add f32 [%p], %x : i64, f32
  ptx.red shared release cta add f32 [%s], %x : i32, f32
  ptx.red global gpu max s32 [%p], %a : i64, i32
  ptx.ret
}
