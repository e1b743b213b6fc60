// cvta between generic and the global/shared/local/const windows, both
// directions. (32-bit cvta is a printer error under .address_size 64:
// see errors.mlir.)
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

ptx.var shared @tile : f32 [32]
ptx.var const @coef : f32 [4]

// CHECK-LABEL: .visible .entry windows(
ptx.entry @windows(%p: i64 {ptx.ptr = f32}) {
  // CHECK:      cvta.to.global.u64 %rd2, %rd1;
  // CHECK-NEXT: cvta.global.u64 %rd3, %rd2;
  // CHECK-NEXT: mov.u64 %rd4, tile;
  // CHECK-NEXT: cvta.shared.u64 %rd5, %rd4;
  // CHECK-NEXT: cvta.to.shared.u64 %rd6, %rd5;
  // CHECK-NEXT: cvta.to.local.u64 %rd7, %rd1;
  // CHECK-NEXT: cvta.local.u64 %rd8, %rd7;
  // CHECK-NEXT: mov.u64 %rd9, coef;
  // CHECK-NEXT: cvta.const.u64 %rd10, %rd9;
  // CHECK-NEXT: cvta.to.const.u64 %rd11, %rd10;
  // CHECK-NEXT: ld.f32 %f1, [%rd5];
  // CHECK-NEXT: ld.f32 %f2, [%rd10];
  // CHECK-NEXT: add.rn.f32 %f3, %f1, %f2;
  // CHECK-NEXT: st.f32 [%rd3], %f3;
  %g = ptx.cvta to global %p : i64 -> i64
  %gg = ptx.cvta global %g : i64 -> i64
  %s = ptx.addressof @tile : i64
  %sg = ptx.cvta shared %s : i64 -> i64
  %ss = ptx.cvta to shared %sg : i64 -> i64
  %l = ptx.cvta to local %p : i64 -> i64
  %lg = ptx.cvta local %l : i64 -> i64
  %c = ptx.addressof @coef : i64
  %cg = ptx.cvta const %c : i64 -> i64
  %cc = ptx.cvta to const %cg : i64 -> i64
  %0 = ptx.ld generic f32 [%sg] : i64 -> f32
  %1 = ptx.ld generic f32 [%cg] : i64 -> f32
  %2 = ptx.add rn f32 %0, %1 : f32
  ptx.st generic f32 [%gg], %2 : i64, f32
  ptx.ret
}
