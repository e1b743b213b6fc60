// The sm_90a tile ops the examples do not use, through the whole pipeline,
// the PTX printer (with its register-coalescing check) and ptxas: an
// epilogue staged through a swizzled shared tile and stored with TMA after
// a proxy fence and a named barrier, and a bf16 wgmma with A in registers,
// K-major B and 32-byte swizzle. (The interpreter runs both kernels in
// test/unittests/Examples/WarpgroupTilesTest.cpp.)
// RUN: kaio-opt --kaio-to-ptx %s | kaio-translate --mlir-to-ptx --ptx-verify-coalescing -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75 %}

// CHECK-LABEL: .visible .entry staged(
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: st.shared.b32
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 1, 128;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group.read 0;

// ptxas compiles the entries last to first.
// PTXAS: Compiling entry function 'regs_bf16' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'staged' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// CHECK-LABEL: .visible .entry regs_bf16(
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, 0, 1, 1, 0;

!T = !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!M = !kaio.tensor_map<64x64xf16, swizzle = 128>
!Acc = !kaio.frag<acc, m16n8k16, f32, 1x8>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @staged(%ma: !M, %mb: !M, %mc: !M, %row0: i32, %col0: i32)
      attributes {block_size = array<i32: 128>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %bytes = arith.constant 16384 : i32
    %zero = arith.constant 0.0 : f32
    %as = kaio.shared_alloc : !T
    %bs = kaio.shared_alloc : !T
    %cs = kaio.shared_alloc : !T
    %bar = kaio.shared_alloc : !kaio.smem<1xi64>
    %tid = kaio.thread_id x : i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    scf.if %first {
      kaio.mbarrier_init %bar[%c0], %c1 : !kaio.smem<1xi64>
    }
    kaio.barrier
    scf.if %first {
      kaio.mbarrier_arrive %bar[%c0] expect_tx %bytes : !kaio.smem<1xi64>
      kaio.tma_load %ma[%c0, %c0] to %as[%c0], %bar[%c0] : !M, !T, !kaio.smem<1xi64>
      kaio.tma_load %mb[%c0, %c0] to %bs[%c0], %bar[%c0] : !M, !T, !kaio.smem<1xi64>
    }
    kaio.mbarrier_wait %bar[%c0], %c0 : !kaio.smem<1xi64>
    %init = kaio.frag_fill %zero : f32 -> !Acc
    %d = kaio.warpgroup_mma %as[%c0], %bs[%c0], %init : !T, !T, !Acc
    %r = kaio.warpgroup_wait %d pending 0 : !Acc
    %warp = kaio.warp_id : i32
    %row = arith.muli %warp, %c16 : i32
    kaio.shared_store_fragment %r, %cs[%row, %c0] : !Acc, !T
    kaio.fence_proxy_async
    kaio.barrier id 1, threads 128
    scf.if %first {
      kaio.tma_store %cs[%c0] to %mc[%row0, %col0] : !T, !M
      kaio.tma_store_wait pending 0
    }
    kaio.return
  }

  kaio.kernel @regs_bf16(%ma: !kaio.tensor_map<64x16xbf16, swizzle = 32>,
                         %out: !kaio.ptr<f32>)
      attributes {block_size = array<i32: 128>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %c64 = arith.constant 64 : i32
    %bytes = arith.constant 2048 : i32
    %zero = arith.constant 0.0 : f32
    %t = kaio.shared_alloc : !kaio.smem<64x16xbf16, #kaio.layout<row_major, swizzle = <1, 4, 3>>>
    %bar = kaio.shared_alloc : !kaio.smem<1xi64>
    %tid = kaio.thread_id x : i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    scf.if %first {
      kaio.mbarrier_init %bar[%c0], %c1 : !kaio.smem<1xi64>
    }
    kaio.barrier
    scf.if %first {
      kaio.mbarrier_arrive %bar[%c0] expect_tx %bytes : !kaio.smem<1xi64>
      kaio.tma_load %ma[%c0, %c0] to %t[%c0], %bar[%c0]
          : !kaio.tensor_map<64x16xbf16, swizzle = 32>, !kaio.smem<64x16xbf16, #kaio.layout<row_major, swizzle = <1, 4, 3>>>, !kaio.smem<1xi64>
    }
    kaio.mbarrier_wait %bar[%c0], %c0 : !kaio.smem<1xi64>
    %warp = kaio.warp_id : i32
    %row = arith.muli %warp, %c16 : i32
    %a = kaio.load_fragment %t[%row, %c0] : !kaio.smem<64x16xbf16, #kaio.layout<row_major, swizzle = <1, 4, 3>>> -> !kaio.frag<a, m16n8k16, bf16, 1x1>
    %init = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32, 1x8>
    %d = kaio.warpgroup_mma %a, %t[%c0] transpose, %init
        : !kaio.frag<a, m16n8k16, bf16, 1x1>, !kaio.smem<64x16xbf16, #kaio.layout<row_major, swizzle = <1, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
    %r = kaio.warpgroup_wait %d pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>
    kaio.store_fragment %r, %out[%row, %c0] bounds [%c64, %c64] ld %c64
        : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.ptr<f32>
    kaio.return
  }
}
