// bar.sync, bar.arrive and barrier.sync with ids and thread counts.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry barriers(
ptx.entry @barriers() attributes {reqntid = array<i32: 128>} {
  // CHECK:      bar.sync 0;
  // CHECK-NEXT: bar.sync 1, 64;
  // CHECK-NEXT: bar.sync 15, 1024;
  // CHECK-NEXT: bar.arrive 2, 64;
  // CHECK-NEXT: barrier.sync 0;
  // CHECK-NEXT: barrier.sync 3, 96;
  // CHECK-NEXT: ret;
  ptx.bar_sync 0
  ptx.bar_sync 1, 64
  ptx.bar_sync 15, 1024
  ptx.bar_arrive 2, 64
  ptx.barrier_sync 0
  ptx.barrier_sync 3, 96
  ptx.ret
}
