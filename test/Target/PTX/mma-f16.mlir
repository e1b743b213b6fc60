// mma.sync on f16 operands: m16n8k8 and m16n8k16, f16 and f32
// accumulators, A/B in i32 or vector<2xf16> registers.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90 sm_90a sm_100a

// CHECK-LABEL: .visible .entry mma_f16_k16(
ptx.entry @mma_f16_k16(%a: i32, %b: i32, %x: f32, %h: vector<2xf16>) {
  // f32 accumulator.
  // CHECK:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f2, %f3, %f4, %f5}, {%r1, %r1, %r1, %r1}, {%r2, %r2}, {%f1, %f1, %f1, %f1};
  %d:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32
      {%a, %a, %a, %a}, {%b, %b}, {%x, %x, %x, %x}
      : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32)
      -> f32, f32, f32, f32
  // f16 accumulator in packed registers; the result feeds the next mma.
  // CHECK-NEXT: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%hh2, %hh3}, {%hh1, %hh1, %hh1, %hh1}, {%hh1, %hh1}, {%hh1, %hh1};
  // CHECK-NEXT: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r3, %r4}, {%r1, %r1, %r1, %r1}, {%r2, %r2}, {%hh2, %hh3};
  %e:2 = ptx.mma_sync m16n8k16 row col f16 f16 f16 f16
      {%h, %h, %h, %h}, {%h, %h}, {%h, %h}
      : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>),
        (vector<2xf16>, vector<2xf16>), (vector<2xf16>, vector<2xf16>)
      -> vector<2xf16>, vector<2xf16>
  %f:2 = ptx.mma_sync m16n8k16 row col f16 f16 f16 f16
      {%a, %a, %a, %a}, {%b, %b}, {%e#0, %e#1}
      : (i32, i32, i32, i32), (i32, i32), (vector<2xf16>, vector<2xf16>)
      -> i32, i32
  ptx.ret
}

// CHECK-LABEL: .visible .entry mma_f16_k8(
ptx.entry @mma_f16_k8(%a: i32, %b: i32, %x: f32) {
  // CHECK:      mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f2, %f3, %f4, %f5}, {%r1, %r1}, {%r2}, {%f1, %f1, %f1, %f1};
  // CHECK-NEXT: mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r3, %r4}, {%r1, %r1}, {%r2}, {%r1, %r2};
  %d:4 = ptx.mma_sync m16n8k8 row col f32 f16 f16 f32
      {%a, %a}, {%b}, {%x, %x, %x, %x}
      : (i32, i32), (i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
  %e:2 = ptx.mma_sync m16n8k8 row col f16 f16 f16 f16
      {%a, %a}, {%b}, {%a, %b}
      : (i32, i32), (i32), (i32, i32) -> i32, i32
  ptx.ret
}
