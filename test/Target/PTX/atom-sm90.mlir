// Atomics that need sm_90: bf16/bf16x2 adds (.noftz) and .cluster scope.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s | FileCheck %s
// RUN: %ptx-check %s sm_90 sm_90a sm_100a

// CHECK: .version 7.8
// CHECK-LABEL: .visible .entry atom_sm90(
ptx.entry @atom_sm90(%p: i64 {ptx.ptr = bf16}, %h: bf16, %hh: vector<2xbf16>, %a: i32) {
  // CHECK:      atom.global.add.noftz.bf16 %h2, [%rd1], %h1;
  // CHECK-NEXT: atom.add.noftz.bf16x2 %hh2, [%rd1], %hh1;
  // CHECK-NEXT: atom.relaxed.cluster.global.add.u32 %r2, [%rd1], %r1;
  // CHECK-NEXT: red.global.add.noftz.bf16 [%rd1], %h1;
  // CHECK-NEXT: red.release.cluster.global.add.noftz.bf16x2 [%rd1], %hh1;
  %0 = ptx.atom global add bf16 [%p], %h : i64, bf16 -> bf16
  %1 = ptx.atom generic add bf16x2 [%p], %hh : i64, vector<2xbf16> -> vector<2xbf16>
  %2 = ptx.atom global relaxed cluster add u32 [%p], %a : i64, i32 -> i32
  ptx.red global add bf16 [%p], %h : i64, bf16
  ptx.red global release cluster add bf16x2 [%p], %hh : i64, vector<2xbf16>
  ptx.ret
}
