// membar at every level and fence.{sc,acq_rel} at every scope below
// .cluster (see fences-cluster.mlir).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry fences(
ptx.entry @fences() {
  // CHECK:      membar.cta;
  // CHECK-NEXT: membar.gl;
  // CHECK-NEXT: membar.sys;
  // CHECK-NEXT: fence.sc.cta;
  // CHECK-NEXT: fence.sc.gpu;
  // CHECK-NEXT: fence.sc.sys;
  // CHECK-NEXT: fence.acq_rel.cta;
  // CHECK-NEXT: fence.acq_rel.gpu;
  // CHECK-NEXT: fence.acq_rel.sys;
  // CHECK-NEXT: ret;
  ptx.membar cta
  ptx.membar gl
  ptx.membar sys
  ptx.fence sc cta
  ptx.fence sc gpu
  ptx.fence sc sys
  ptx.fence acq_rel cta
  ptx.fence acq_rel gpu
  ptx.fence acq_rel sys
  ptx.ret
}
