// A kernel that names its thread block cluster: `.reqnctapercluster` in
// 1-3 dimensions after the launch bounds (sm_90), and `cluster=XxYxZ` in
// its `kaio.kernel` signature (the runtime checks launches against it).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s | FileCheck %s
// RUN: %ptx-check %s sm_90 sm_90a

// CHECK: // kaio.kernel pair(u32) cluster=2x1x1
// CHECK-LABEL: .visible .entry pair(
// CHECK:      )
// CHECK-NEXT: .reqntid 384
// CHECK-NEXT: .reqnctapercluster 2
// CHECK-NEXT: {
// CHECK: // kaio.kernel quad() cluster=2x2x1
ptx.entry @pair(%n: i32) attributes {reqntid = array<i32: 384>, reqnctapercluster = array<i32: 2>} {
  %r = ptx.sreg cluster_ctarank : i32
  ptx.ret
}

// CHECK-LABEL: .visible .entry quad()
// CHECK-NEXT: .maxntid 128
// CHECK-NEXT: .reqnctapercluster 2, 2, 1
// CHECK-NEXT: {
ptx.entry @quad() attributes {maxntid = array<i32: 128>, reqnctapercluster = array<i32: 2, 2, 1>} {
  ptx.ret
}
