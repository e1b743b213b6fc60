// ldmatrix .x1/.x2/.x4, plain and .trans, from 32- and 64-bit shared
// addresses (sm_75, PTX 6.5).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

ptx.var shared @tile : b16 [512] align 16

// CHECK-LABEL: .visible .entry ldmatrix(
ptx.entry @ldmatrix() {
  // CHECK:      mov.u32 %r1, tile;
  // CHECK-NEXT: ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%r1];
  // CHECK-NEXT: ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r3, %r4}, [%r1];
  // CHECK-NEXT: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r5, %r6, %r7, %r8}, [%r1];
  // CHECK-NEXT: ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r9}, [%r1];
  // CHECK-NEXT: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r10, %r11}, [%r1];
  // CHECK-NEXT: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r12, %r13, %r14, %r15}, [%r1];
  // CHECK-NEXT: mov.u64 %rd1, tile;
  // CHECK-NEXT: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r16, %r17, %r18, %r19}, [%rd1];
  %s = ptx.addressof @tile : i32
  %0 = ptx.ldmatrix [%s] : i32 -> i32
  %1:2 = ptx.ldmatrix [%s] : i32 -> i32, i32
  %2:4 = ptx.ldmatrix [%s] : i32 -> i32, i32, i32, i32
  %3 = ptx.ldmatrix trans [%s] : i32 -> i32
  %4:2 = ptx.ldmatrix trans [%s] : i32 -> i32, i32
  %5:4 = ptx.ldmatrix trans [%s] : i32 -> i32, i32, i32, i32
  %s64 = ptx.addressof @tile : i64
  %6:4 = ptx.ldmatrix [%s64] : i64 -> i32, i32, i32, i32
  ptx.ret
}
