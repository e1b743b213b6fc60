// stmatrix .x1/.x2/.x4, plain and .trans (sm_90, PTX 7.8).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s | FileCheck %s
// RUN: %ptx-check %s sm_90 sm_90a sm_100a

ptx.var shared @tile : b16 [512] align 16

// CHECK:      .version 7.8
// CHECK-NEXT: .target sm_90
// CHECK-LABEL: .visible .entry stmatrix(
ptx.entry @stmatrix(%v: i32) {
  // CHECK:      mov.u32 %r2, tile;
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r2], {%r1};
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r2], {%r1, %r1};
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r2], {%r1, %r1, %r1, %r1};
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r2], {%r1};
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r2], {%r1, %r1, %r1, %r1};
  // CHECK-NEXT: mov.u64 %rd1, tile;
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%rd1], {%r1, %r1};
  // Round trip through ldmatrix.
  // CHECK-NEXT: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r3, %r4, %r5, %r6}, [%r2];
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r2], {%r3, %r4, %r5, %r6};
  %s = ptx.addressof @tile : i32
  ptx.stmatrix [%s], %v : i32, i32
  ptx.stmatrix [%s], %v, %v : i32, i32, i32
  ptx.stmatrix [%s], %v, %v, %v, %v : i32, i32, i32, i32, i32
  ptx.stmatrix trans [%s], %v : i32, i32
  ptx.stmatrix trans [%s], %v, %v, %v, %v : i32, i32, i32, i32, i32
  %s64 = ptx.addressof @tile : i64
  ptx.stmatrix trans [%s64], %v, %v : i64, i32, i32
  %m:4 = ptx.ldmatrix [%s] : i32 -> i32, i32, i32, i32
  ptx.stmatrix [%s], %m#0, %m#1, %m#2, %m#3 : i32, i32, i32, i32, i32
  ptx.ret
}
