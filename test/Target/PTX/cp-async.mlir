// cp.async .ca (4/8/16 bytes) and .cg (16 bytes), with a source size for
// zero fill, from 32- and 64-bit shared addresses; commit_group,
// wait_group and wait_all (sm_80, PTX 7.0).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90 sm_90a

ptx.var shared @stage : b8 [256] align 16

// CHECK-LABEL: .visible .entry async_copies(
ptx.entry @async_copies(%src: i64 {ptx.ptr = f32}, %n: i32) {
  // CHECK:      cvta.to.global.u64 %rd2, %rd1;
  // CHECK-NEXT: mov.u32 %r2, stage;
  // CHECK-NEXT: cp.async.ca.shared.global [%r2], [%rd2], 4;
  // CHECK-NEXT: cp.async.ca.shared.global [%r2], [%rd2], 8;
  // CHECK-NEXT: cp.async.ca.shared.global [%r2], [%rd2], 16;
  // CHECK-NEXT: cp.async.cg.shared.global [%r2], [%rd2], 16;
  // CHECK-NEXT: cp.async.cg.shared.global [%r2], [%rd2], 16, %r1;
  // CHECK-NEXT: cp.async.ca.shared.global [%r2], [%rd2], 8, %r1;
  // CHECK-NEXT: mov.u64 %rd3, stage;
  // CHECK-NEXT: cp.async.cg.shared.global [%rd3], [%rd2], 16;
  // CHECK-NEXT: cp.async.commit_group;
  // CHECK-NEXT: cp.async.wait_group 1;
  // CHECK-NEXT: cp.async.wait_group 0;
  // CHECK-NEXT: cp.async.wait_all;
  // CHECK-NEXT: bar.sync 0;
  %g = ptx.cvta to global %src : i64 -> i64
  %s = ptx.addressof @stage : i32
  ptx.cp_async ca 4 [%s], [%g] : i32
  ptx.cp_async ca 8 [%s], [%g] : i32
  ptx.cp_async ca 16 [%s], [%g] : i32
  ptx.cp_async cg 16 [%s], [%g] : i32
  ptx.cp_async cg 16 [%s], [%g], %n : i32
  ptx.cp_async ca 8 [%s], [%g], %n : i32
  %s64 = ptx.addressof @stage : i64
  ptx.cp_async cg 16 [%s64], [%g] : i64
  ptx.cp_async_commit_group
  ptx.cp_async_wait_group 1
  ptx.cp_async_wait_group 0
  ptx.cp_async_wait_all
  ptx.bar_sync 0
  ptx.ret
}
