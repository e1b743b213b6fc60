// A tensor map passed by value (`__grid_constant__ CUtensorMap` in CUDA):
// `.param .align 64 .b8 name[128]`, its generic address (cvta.param) the
// operand of the tensor copies, `tmap` in the kaio.kernel signature.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90a %s | FileCheck %s
// RUN: %ptx-check %s sm_90a

ptx.var shared @tile : f16 [4096] align 1024
ptx.var shared @bar : b64 [1] align 8

// CHECK:      // kaio.kernel load_tile(tmap,ptr<f16>,tmap,s32)
// CHECK-NEXT: .visible .entry load_tile(
// CHECK-NEXT: 	.param .align 64 .b8 a_map[128],
// CHECK-NEXT: 	.param .u64 .ptr.global.align 16 load_tile_param_1,
// CHECK-NEXT: 	.param .align 64 .b8 load_tile_param_2[128],
// CHECK-NEXT: 	.param .s32 load_tile_param_3
// CHECK-NEXT: )
ptx.entry @load_tile(%a: i64 {ptx.tensor_map, ptx.name = "a_map"},
                     %out: i64 {ptx.ptr = f16, ptx.align = 16},
                     %c: i64 {ptx.tensor_map},
                     %x: i32 {ptx.signed}) {
  // CHECK:      mov.u64 %rd1, a_map;
  // CHECK-NEXT: cvta.param.u64 %rd1, %rd1;
  // CHECK-NEXT: ld.param.u64 %rd2, [load_tile_param_1];
  // CHECK-NEXT: mov.u64 %rd3, load_tile_param_2;
  // CHECK-NEXT: cvta.param.u64 %rd3, %rd3;
  // CHECK-NEXT: ld.param.s32 %r1, [load_tile_param_3];
  %tile = ptx.addressof @tile : i32
  %bar = ptx.addressof @bar : i32
  %one = ptx.constant 1 : i32
  %bytes = ptx.constant 8192 : i32
  ptx.mbarrier_init [%bar], %one : i32
  ptx.fence_mbarrier_init
  %state = ptx.mbarrier_arrive expect_tx shared [%bar], %bytes : i32 -> i64
  // CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd1, {%r1, %r1}], [%r{{[0-9]+}}];
  ptx.cp_async_bulk_tensor_load 2d [%tile], [%a, {%x, %x}], [%bar] : i32, i32
  %done = ptx.mbarrier_try_wait [%bar], %state : i32, i64
  // CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd3, {%r1, %r1}], [%r{{[0-9]+}}];
  ptx.cp_async_bulk_tensor_store 2d [%c, {%x, %x}], [%tile] : i32
  ptx.cp_async_bulk_commit_group
  ptx.cp_async_bulk_wait_group 0
  ptx.ret
}
