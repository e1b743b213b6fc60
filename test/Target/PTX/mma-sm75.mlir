// The Turing subset of mma.sync: m16n8k8 with f16 inputs, on sm_75 with
// PTX 6.5 (the version mma needs there).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_75 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK:      .version 6.5
// CHECK-NEXT: .target sm_75
// CHECK-LABEL: .visible .entry mma_turing(
ptx.entry @mma_turing(%a: i32, %b: i32, %x: f32) {
  // CHECK:      mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f2, %f3, %f4, %f5}, {%r1, %r2}, {%r2}, {%f1, %f1, %f1, %f1};
  // CHECK-NEXT: mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r3, %r4}, {%r1, %r2}, {%r1}, {%r2, %r2};
  %d:4 = ptx.mma_sync m16n8k8 row col f32 f16 f16 f32
      {%a, %b}, {%b}, {%x, %x, %x, %x}
      : (i32, i32), (i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
  %e:2 = ptx.mma_sync m16n8k8 row col f16 f16 f16 f16
      {%a, %b}, {%a}, {%b, %b}
      : (i32, i32), (i32), (i32, i32) -> i32, i32
  ptx.ret
}
