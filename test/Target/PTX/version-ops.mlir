// Ops raise the printed .version above the chip's floor: ldmatrix needs PTX
// 6.5, so sm_75 prints 6.5 rather than 6.3; forcing a lower version is an
// error located at the op that needs more.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_75 %s | FileCheck %s
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_75 --ptx-version=6.4 %s 2>&1 | FileCheck %s --check-prefix=TOOLOW
// RUN: %ptx-check %s sm_75 sm_80 sm_90

ptx.var shared @tile : b16 [64] align 16

// CHECK:      .version 6.5
// CHECK-NEXT: .target sm_75
ptx.entry @needs_65() {
  %s = ptx.addressof @tile : i32
  // TOOLOW: version-ops.mlir:[[@LINE+1]]:8: error: PTX ISA 6.4 is too old: this op needs 6.5
  %m = ptx.ldmatrix [%s] : i32 -> i32
  // CHECK: ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%r1];
  ptx.ret
}
