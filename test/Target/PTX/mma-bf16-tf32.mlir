// mma.sync on bf16 (m16n8k8, m16n8k16) and tf32 (m16n8k8) operands with f32
// accumulators (sm_80).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90 sm_100a

// CHECK-LABEL: .visible .entry mma_bf16(
ptx.entry @mma_bf16(%a: i32, %b: i32, %x: f32, %h: vector<2xbf16>) {
  // CHECK:      mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f2, %f3, %f4, %f5}, {%r1, %r1, %r2, %r2}, {%r1, %r2}, {%f1, %f1, %f1, %f1};
  // CHECK-NEXT: mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f6, %f7, %f8, %f9}, {%hh1, %hh1}, {%hh1}, {%f2, %f3, %f4, %f5};
  %d:4 = ptx.mma_sync m16n8k16 row col f32 bf16 bf16 f32
      {%a, %a, %b, %b}, {%a, %b}, {%x, %x, %x, %x}
      : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32)
      -> f32, f32, f32, f32
  %e:4 = ptx.mma_sync m16n8k8 row col f32 bf16 bf16 f32
      {%h, %h}, {%h}, {%d#0, %d#1, %d#2, %d#3}
      : (vector<2xbf16>, vector<2xbf16>), (vector<2xbf16>),
        (f32, f32, f32, f32) -> f32, f32, f32, f32
  ptx.ret
}

// CHECK-LABEL: .visible .entry mma_tf32(
ptx.entry @mma_tf32(%x: f32) {
  // tf32 operands come from cvt.rna.tf32.f32 into .b32 registers.
  // CHECK:      cvt.rna.tf32.f32 %r1, %f1;
  // CHECK-NEXT: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f2, %f3, %f4, %f5}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%f1, %f1, %f1, %f1};
  %t = ptx.cvt rna tf32 f32 %x : f32 -> i32
  %d:4 = ptx.mma_sync m16n8k8 row col f32 tf32 tf32 f32
      {%t, %t, %t, %t}, {%t, %t}, {%x, %x, %x, %x}
      : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32)
      -> f32, f32, f32, f32
  ptx.ret
}
