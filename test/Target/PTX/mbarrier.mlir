// mbarrier init/inval (sm_80, PTX 7.8 for .shared::cta), arrive with a count
// (sm_90), arrive.expect_tx, expect_tx, remote arrives on .shared::cluster,
// .release/.relaxed with a scope, try_wait and try_wait.parity with a
// suspend-time hint (sm_90); the proxy fences and elect.sync (PTX 8.0).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90a %s | FileCheck %s
// RUN: %ptx-check %s sm_90 sm_90a sm_100a

ptx.var shared @bar : b64 [2] align 8

// CHECK:      .version 8.6
// CHECK-NEXT: .target sm_90a
// CHECK-LABEL: .visible .entry mbarriers(
ptx.entry @mbarriers(%n: i32, %bytes: i32, %hint: i32) {
  // CHECK:      mov.u32 %r4, bar;
  // CHECK-NEXT: mbarrier.init.shared::cta.b64 [%r4], %r1;
  // CHECK-NEXT: mov.u64 %rd1, bar;
  // CHECK-NEXT: mbarrier.init.shared::cta.b64 [%rd1], %r1;
  // CHECK-NEXT: fence.mbarrier_init.release.cluster;
  // CHECK-NEXT: fence.proxy.async;
  // CHECK-NEXT: fence.proxy.async.shared::cta;
  // CHECK-NEXT: fence.proxy.async.shared::cluster;
  // CHECK-NEXT: fence.proxy.async.global;
  %b = ptx.addressof @bar : i32
  ptx.mbarrier_init [%b], %n : i32
  %b64 = ptx.addressof @bar : i64
  ptx.mbarrier_init [%b64], %n : i64
  ptx.fence_mbarrier_init
  ptx.fence_proxy_async
  ptx.fence_proxy_async shared
  ptx.fence_proxy_async shared_cluster
  ptx.fence_proxy_async global

  // CHECK-NEXT: mbarrier.arrive.shared::cta.b64 %rd2, [%r4];
  // CHECK-NEXT: mbarrier.arrive.shared::cta.b64 _, [%rd1], %r1;
  // CHECK-NEXT: mbarrier.arrive.release.cta.shared::cta.b64 %rd3, [%r4];
  // CHECK-NEXT: mbarrier.arrive.relaxed.cluster.shared::cta.b64 %rd4, [%r4], %r1;
  // CHECK-NEXT: mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r4], %r2;
  // CHECK-NEXT: mbarrier.arrive.expect_tx.release.cluster.shared::cta.b64 %rd6, [%r4], %r2;
  // CHECK-NEXT: mbarrier.arrive.shared::cluster.b64 _, [%r4];
  // CHECK-NEXT: mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r4], %r2;
  %s0 = ptx.mbarrier_arrive shared [%b] : i32 -> i64
  ptx.mbarrier_arrive shared [%b64], %n : i64
  %s1 = ptx.mbarrier_arrive release cta shared [%b] : i32 -> i64
  %s2 = ptx.mbarrier_arrive relaxed cluster shared [%b], %n : i32 -> i64
  %s3 = ptx.mbarrier_arrive expect_tx shared [%b], %bytes : i32 -> i64
  %s4 = ptx.mbarrier_arrive expect_tx release cluster shared [%b], %bytes : i32 -> i64
  ptx.mbarrier_arrive shared_cluster [%b] : i32
  ptx.mbarrier_arrive expect_tx release cluster shared_cluster [%b], %bytes : i32

  // CHECK-NEXT: mbarrier.expect_tx.shared::cta.b64 [%r4], %r2;
  // CHECK-NEXT: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r4], %r2;
  // CHECK-NEXT: mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%r4], %r2;
  ptx.mbarrier_expect_tx shared [%b], %bytes : i32
  ptx.mbarrier_expect_tx relaxed cta shared [%b], %bytes : i32
  ptx.mbarrier_expect_tx relaxed cluster shared_cluster [%b], %bytes : i32

  // CHECK-NEXT: mbarrier.try_wait.shared::cta.b64 %p1, [%r4], %rd2;
  // CHECK-NEXT: mbarrier.try_wait.acquire.cluster.shared::cta.b64 %p2, [%r4], %rd3, %r3;
  // CHECK-NEXT: mov.u32 %r5, 0;
  // CHECK-NEXT: mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r4], %r5;
  // CHECK-NEXT: mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p4, [%rd1], %r5, %r3;
  // CHECK-NEXT: mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 %p5, [%r4], %r5;
  %w0 = ptx.mbarrier_try_wait [%b], %s0 : i32, i64
  %w1 = ptx.mbarrier_try_wait acquire cluster [%b], %s1 hint %hint : i32, i64
  %zero = ptx.constant 0 : i32
  %w2 = ptx.mbarrier_try_wait parity [%b], %zero : i32, i32
  %w3 = ptx.mbarrier_try_wait parity acquire cta [%b64], %zero hint %hint : i64, i32
  %w4 = ptx.mbarrier_try_wait parity relaxed cta [%b], %zero : i32, i32

  // A guarded inval, then elect.sync with and without the lane id.
  // CHECK-NEXT: @%p1 mbarrier.inval.shared::cta.b64 [%r4];
  // CHECK-NEXT: mov.u32 %r6, 4294967295;
  // CHECK-NEXT: elect.sync %r7|%p6, %r6;
  // CHECK-NEXT: elect.sync _|%p7, %r6;
  ptx.mbarrier_inval if %w0 [%b] : i32
  %all = ptx.constant -1 : i32
  %lane, %leader = ptx.elect_sync %all
  %unused, %leader2 = ptx.elect_sync %all
  ptx.st shared u32 [%b], %lane : i32, i32
  %x = ptx.selp b32 %n, %bytes, %leader2 : (i32, i32) -> i32
  ptx.st shared u32 [%b], %x : i32, i32
  ptx.ret
}
