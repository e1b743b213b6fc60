// Bulk asynchronous copies (sm_90, PTX 8.0): a global → shared copy that
// completes on an mbarrier's transaction count, unicast and multicast to the
// CTAs of a cluster (sm_90a), then shared → global in a bulk async-group,
// committed and waited for (.read: until the source may be reused; then for
// the writes).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90a %s | FileCheck %s
// RUN: %ptx-check %s sm_90a
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s 2>&1 | FileCheck %s --check-prefix=SM90

ptx.var shared @buf : f32 [64] align 128
ptx.var shared @bar : b64 [1] align 8

// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90a
// CHECK-LABEL: .visible .entry bulk_copy(
ptx.entry @bulk_copy(%in: i64 {ptx.ptr = f32, ptx.readonly, ptx.align = 16},
                     %out: i64 {ptx.ptr = f32, ptx.align = 16}) {
  %src = ptx.cvta to global %in : i64 -> i64
  %dst = ptx.cvta to global %out : i64 -> i64
  %buf = ptx.addressof @buf : i32
  %bar = ptx.addressof @bar : i32
  %one = ptx.constant 1 : i32
  %bytes = ptx.constant 256 : i32
  %mask = ptx.constant 3 : i16
  ptx.mbarrier_init [%bar], %one : i32
  ptx.fence_mbarrier_init

  // CHECK:      mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r2], %r4;
  // CHECK-NEXT: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd3], %r4, [%r2];
  // CHECK-NEXT: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd3], %r4, [%r2], %rs1;
  // CHECK-NEXT: mbarrier.try_wait.shared::cta.b64 %p1, [%r2], %rd5;
  %state = ptx.mbarrier_arrive expect_tx shared [%bar], %bytes : i32 -> i64
  ptx.cp_async_bulk_load [%buf], [%src], %bytes, [%bar] : i32, i32
  // SM90: error: 'ptx.cp_async_bulk_load' op requires sm_90a (arch-specific), but the target is sm_90
  ptx.cp_async_bulk_load [%buf], [%src], %bytes, [%bar] multicast %mask : i32, i32
  %done = ptx.mbarrier_try_wait [%bar], %state : i32, i64

  // CHECK-NEXT: fence.proxy.async.shared::cta;
  // CHECK-NEXT: cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%r1], %r4;
  // CHECK-NEXT: mov.u64 %rd6, buf;
  // CHECK-NEXT: @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%rd6], %r4;
  // CHECK-NEXT: cp.async.bulk.commit_group;
  // CHECK-NEXT: cp.async.bulk.wait_group.read 0;
  // CHECK-NEXT: cp.async.bulk.wait_group 0;
  ptx.fence_proxy_async shared
  ptx.cp_async_bulk_store [%dst], [%buf], %bytes : i32
  %buf64 = ptx.addressof @buf : i64
  ptx.cp_async_bulk_store if %done [%dst], [%buf64], %bytes : i64
  ptx.cp_async_bulk_commit_group
  ptx.cp_async_bulk_wait_group read 0
  ptx.cp_async_bulk_wait_group 0
  ptx.ret
}
