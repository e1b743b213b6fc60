// fence at .cluster scope needs sm_90 and PTX 7.8.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s | FileCheck %s
// RUN: %ptx-check %s sm_90 sm_90a sm_100a

// CHECK:      .version 7.8
// CHECK-NEXT: .target sm_90
// CHECK-LABEL: .visible .entry cluster_fences(
ptx.entry @cluster_fences() {
  // CHECK:      fence.sc.cluster;
  // CHECK-NEXT: fence.acq_rel.cluster;
  ptx.fence sc cluster
  ptx.fence acq_rel cluster
  ptx.ret
}
