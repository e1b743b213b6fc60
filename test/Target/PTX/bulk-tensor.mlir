// Tensor copies through a tensor map (TMA, sm_90, PTX 8.0): a 2d tile load
// completing on an mbarrier, a multicast 1d load (sm_90a), 3d and 5d tile
// stores in a bulk async-group and an L2 prefetch. The tensor map is the
// generic address of a CUtensorMap the host wrote to global memory.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90a %s | FileCheck %s
// RUN: %ptx-check %s sm_90a

ptx.var shared @tile : f32 [1024] align 128
ptx.var shared @bar : b64 [1] align 8

// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90a
// CHECK-LABEL: .visible .entry tensor_copy(
ptx.entry @tensor_copy(%map: i64, %x: i32, %y: i32) {
  %tile = ptx.addressof @tile : i32
  %bar = ptx.addressof @bar : i32
  %one = ptx.constant 1 : i32
  %bytes = ptx.constant 4096 : i32
  %mask = ptx.constant 15 : i16
  ptx.mbarrier_init [%bar], %one : i32
  ptx.fence_mbarrier_init

  // CHECK:      cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];
  // CHECK-NEXT: mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r4], %r6;
  // CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r1, %r2}], [%r4];
  // CHECK-NEXT: cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [%rd1, {%r1}], [%r4], %rs1;
  // CHECK-NEXT: mbarrier.try_wait.shared::cta.b64 %p1, [%r4], %rd2;
  ptx.cp_async_bulk_prefetch_tensor 2d [%map, {%x, %y}]
  %state = ptx.mbarrier_arrive expect_tx shared [%bar], %bytes : i32 -> i64
  ptx.cp_async_bulk_tensor_load 2d [%tile], [%map, {%x, %y}], [%bar] : i32, i32
  ptx.cp_async_bulk_tensor_load 1d [%tile], [%map, {%x}], [%bar] multicast %mask : i32, i32
  %done = ptx.mbarrier_try_wait [%bar], %state : i32, i64

  // CHECK:      fence.proxy.async.shared::cta;
  // CHECK-NEXT: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r2, %r1}], [%r3];
  // CHECK-NEXT: mov.u64 %rd3, tile;
  // CHECK-NEXT: @%p1 cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r2, %r1, %r2, %r1}], [%rd3];
  // CHECK-NEXT: cp.async.bulk.commit_group;
  // CHECK-NEXT: cp.async.bulk.wait_group.read 0;
  ptx.fence_proxy_async shared
  ptx.cp_async_bulk_tensor_store 3d [%map, {%x, %y, %x}], [%tile] : i32
  %tile64 = ptx.addressof @tile : i64
  ptx.cp_async_bulk_tensor_store if %done 5d [%map, {%x, %y, %x, %y, %x}], [%tile64] : i64
  ptx.cp_async_bulk_commit_group
  ptx.cp_async_bulk_wait_group read 0
  ptx.ret
}
