// atom: every operation and type, global/shared/generic, cas, memory order
// and scope, and .noftz on the f16 adds.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

ptx.var shared @counters : u32 [32] align 8

// CHECK-LABEL: .visible .entry atom_int(
ptx.entry @atom_int(%p: i64 {ptx.ptr = i32}, %a: i32, %b: i32, %w: i64) {
  // CHECK:      atom.global.add.u32 %r3, [%rd1], %r1;
  // CHECK-NEXT: atom.global.add.s32 %r4, [%rd1+4], %r1;
  // CHECK-NEXT: atom.global.add.u64 %rd3, [%rd1+8], %rd2;
  // CHECK-NEXT: atom.global.min.s32 %r5, [%rd1], %r1;
  // CHECK-NEXT: atom.global.max.u32 %r6, [%rd1], %r1;
  // CHECK-NEXT: atom.global.min.u64 %rd4, [%rd1], %rd2;
  // CHECK-NEXT: atom.global.max.s64 %rd5, [%rd1], %rd2;
  // CHECK-NEXT: atom.global.inc.u32 %r7, [%rd1], %r1;
  // CHECK-NEXT: atom.global.dec.u32 %r8, [%rd1], %r1;
  // CHECK-NEXT: atom.global.and.b32 %r9, [%rd1], %r1;
  // CHECK-NEXT: atom.global.or.b32 %r10, [%rd1], %r1;
  // CHECK-NEXT: atom.global.xor.b64 %rd6, [%rd1], %rd2;
  // CHECK-NEXT: atom.global.exch.b32 %r11, [%rd1], %r1;
  // CHECK-NEXT: atom.global.exch.b64 %rd7, [%rd1], %rd2;
  // CHECK-NEXT: atom.global.cas.b32 %r12, [%rd1], %r1, %r2;
  // CHECK-NEXT: atom.global.cas.b64 %rd8, [%rd1], %rd2, %rd2;
  %0 = ptx.atom global add u32 [%p], %a : i64, i32 -> i32
  %1 = ptx.atom global add s32 [%p + 4], %a : i64, i32 -> i32
  %2 = ptx.atom global add u64 [%p + 8], %w : i64, i64 -> i64
  %3 = ptx.atom global min s32 [%p], %a : i64, i32 -> i32
  %4 = ptx.atom global max u32 [%p], %a : i64, i32 -> i32
  %5 = ptx.atom global min u64 [%p], %w : i64, i64 -> i64
  %6 = ptx.atom global max s64 [%p], %w : i64, i64 -> i64
  %7 = ptx.atom global inc u32 [%p], %a : i64, i32 -> i32
  %8 = ptx.atom global dec u32 [%p], %a : i64, i32 -> i32
  %9 = ptx.atom global and b32 [%p], %a : i64, i32 -> i32
  %10 = ptx.atom global or b32 [%p], %a : i64, i32 -> i32
  %11 = ptx.atom global xor b64 [%p], %w : i64, i64 -> i64
  %12 = ptx.atom global exch b32 [%p], %a : i64, i32 -> i32
  %13 = ptx.atom global exch b64 [%p], %w : i64, i64 -> i64
  %14 = ptx.atom global cas b32 [%p], %a, %b : i64, i32, i32 -> i32
  %15 = ptx.atom global cas b64 [%p], %w, %w : i64, i64, i64 -> i64
  ptx.ret
}

// CHECK-LABEL: .visible .entry atom_spaces_orders(
ptx.entry @atom_spaces_orders(%p: i64 {ptx.ptr = i32}, %a: i32, %h: i16) {
  // CHECK:      mov.u32 %r2, counters;
  // CHECK-NEXT: atom.shared.add.u32 %r3, [%r2+4], %r1;
  // CHECK-NEXT: atom.shared.cas.b32 %r4, [%r2], %r1, %r3;
  // CHECK-NEXT: atom.add.u32 %r5, [%rd1], %r1;
  // CHECK-NEXT: atom.relaxed.gpu.global.add.u32 %r6, [%rd1], %r1;
  // CHECK-NEXT: atom.acquire.cta.shared.exch.b32 %r7, [%r2], %r1;
  // CHECK-NEXT: atom.release.sys.global.or.b32 %r8, [%rd1], %r1;
  // CHECK-NEXT: atom.acq_rel.gpu.cas.b32 %r9, [%rd1], %r1, %r8;
  // CHECK-NEXT: atom.sys.global.inc.u32 %r10, [%rd1], %r1;
  // CHECK-NEXT: atom.global.cas.b16 %rs2, [%rd1], %rs1, %rs1;
  %s = ptx.addressof @counters : i32
  %0 = ptx.atom shared add u32 [%s + 4], %a : i32, i32 -> i32
  %1 = ptx.atom shared cas b32 [%s], %a, %0 : i32, i32, i32 -> i32
  %2 = ptx.atom generic add u32 [%p], %a : i64, i32 -> i32
  %3 = ptx.atom global relaxed gpu add u32 [%p], %a : i64, i32 -> i32
  %4 = ptx.atom shared acquire cta exch b32 [%s], %a : i32, i32 -> i32
  %5 = ptx.atom global release sys or b32 [%p], %a : i64, i32 -> i32
  %6 = ptx.atom generic acq_rel gpu cas b32 [%p], %a, %5 : i64, i32, i32 -> i32
  %7 = ptx.atom global sys inc u32 [%p], %a : i64, i32 -> i32
  %8 = ptx.atom global cas b16 [%p], %h, %h : i64, i16, i16 -> i16
  ptx.ret
}

// CHECK-LABEL: .visible .entry atom_float(
ptx.entry @atom_float(%p: i64 {ptx.ptr = f32}, %x: f32, %u: f64, %h: f16, %hh: vector<2xf16>) {
  // CHECK:      atom.global.add.f32 %f2, [%rd1], %f1;
  // CHECK-NEXT: mov.u64 %rd2, counters;
  // CHECK-NEXT: atom.shared.add.f32 %f3, [%rd2+8], %f1;
  // CHECK-NEXT: atom.global.add.f64 %fd2, [%rd1], %fd1;
  // CHECK-NEXT: atom.global.add.noftz.f16 %h2, [%rd1], %h1;
  // CHECK-NEXT: atom.add.noftz.f16x2 %hh2, [%rd1], %hh1;
  // CHECK-NEXT: atom.relaxed.gpu.global.add.f32 %f4, [%rd1], %f1;
  %0 = ptx.atom global add f32 [%p], %x : i64, f32 -> f32
  %s = ptx.addressof @counters : i64
  %1 = ptx.atom shared add f32 [%s + 8], %x : i64, f32 -> f32
  %2 = ptx.atom global add f64 [%p], %u : i64, f64 -> f64
  %3 = ptx.atom global add f16 [%p], %h : i64, f16 -> f16
  %4 = ptx.atom generic add f16x2 [%p], %hh : i64, vector<2xf16> -> vector<2xf16>
  %5 = ptx.atom global relaxed gpu add f32 [%p], %x : i64, f32 -> f32
  ptx.ret
}
