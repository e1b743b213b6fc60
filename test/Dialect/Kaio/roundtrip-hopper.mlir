// The sm_90a tile ops and !kaio.tensor_map print in a form that parses back
// to the same IR, in the custom and in the generic form.
// RUN: kaio-opt %s | kaio-opt | FileCheck %s
// RUN: kaio-opt %s --mlir-print-op-generic | kaio-opt | FileCheck %s
// With locations (aliases defined after their use: nothing may take a
// trailing loc(...) for an operand).
// RUN: kaio-opt %s --mlir-print-debuginfo | kaio-opt | FileCheck %s

!T = !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!B = !kaio.smem<4xi64>
!Acc = !kaio.frag<acc, m16n8k16, f32, 1x8>
module attributes {kaio.target = "sm_90a"} {
  // CHECK-LABEL: kaio.kernel @hopper
  // CHECK-SAME: %{{.*}}: !kaio.tensor_map<128x64xf16, swizzle = 128>
  // CHECK-SAME: %{{.*}}: !kaio.tensor_map<8x16x32xbf16>
  // CHECK-SAME: %{{.*}}: !kaio.tensor_map<64x128xf8E4M3FN, swizzle = 128>
  kaio.kernel @hopper(%map: !kaio.tensor_map<128x64xf16, swizzle = 128>,
                      %plain: !kaio.tensor_map<8x16x32xbf16>,
                      %map8: !kaio.tensor_map<64x128xf8E4M3FN, swizzle = 128>,
                      %out: !kaio.ptr<f32>)
      attributes {block_size = array<i32: 256>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %bytes = arith.constant 16384 : i32
    %zero = arith.constant 0.0 : f32
    %t = kaio.shared_alloc : !T
    %bars = kaio.shared_alloc : !B
    // CHECK: kaio.mbarrier_init %{{.*}}[%{{.*}}], %{{.*}} : <4xi64>
    // CHECK: kaio.mbarrier_arrive %{{.*}}[%{{.*}}] expect_tx %{{.*}} : <4xi64>
    // CHECK: kaio.mbarrier_arrive %{{.*}}[%{{.*}}] : <4xi64>
    // CHECK: kaio.tma_load %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : <128x64xf16, swizzle = 128>, <256x64xf16, <row_major, swizzle = <3, 4, 3>>>, <4xi64>
    // CHECK: kaio.mbarrier_wait %{{.*}}[%{{.*}}], %{{.*}} : <4xi64>
    kaio.mbarrier_init %bars[%c0], %c1 : !B
    kaio.mbarrier_arrive %bars[%c0] expect_tx %bytes : !B
    kaio.mbarrier_arrive %bars[%c1] : !B
    kaio.tma_load %map[%c0, %c64] to %t[%c0], %bars[%c0]
        : !kaio.tensor_map<128x64xf16, swizzle = 128>, !T, !B
    kaio.mbarrier_wait %bars[%c0], %c0 : !B
    // CHECK: kaio.setmaxnreg inc 232
    // CHECK: kaio.setmaxnreg dec 40
    kaio.setmaxnreg inc 232
    kaio.setmaxnreg dec 40
    // CHECK: %[[D:.*]] = kaio.warpgroup_mma %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} : !kaio.smem<256x64xf16, <row_major, swizzle = <3, 4, 3>>>, <256x64xf16, <row_major, swizzle = <3, 4, 3>>>, <acc, m16n8k16, f32, 1x8>
    // CHECK: %[[E:.*]] = kaio.warpgroup_mma %{{.*}}, %{{.*}}[%{{.*}}] transpose, %{{.*}} : !kaio.frag<a, m16n8k16, f16, 1x4>, <256x64xf16, <row_major, swizzle = <3, 4, 3>>>, <acc, m16n8k16, f32, 1x8>
    // CHECK: %[[F:.*]] = kaio.warpgroup_mma %{{.*}}[%{{.*}}] transpose, %{{.*}}[%{{.*}}], %[[E]] {k = 64 : i64} : !kaio.smem<256x64xf16, <row_major, swizzle = <3, 4, 3>>>, <256x64xf16, <row_major, swizzle = <3, 4, 3>>>, <acc, m16n8k16, f32, 1x8>
    // 8-bit floats (K-major, one k32 wgmma per 32 bytes of K), E4M3 x E5M2.
    // CHECK: kaio.warpgroup_mma %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] transpose, %{{.*}} : !kaio.smem<64x128xf8E4M3FN, <row_major, swizzle = <3, 4, 3>>>, <128x128xf8E5M2, <row_major, swizzle = <3, 4, 3>>>, <acc, m16n8k16, f32, 1x8>
    // CHECK: kaio.warpgroup_wait pending 1
    // CHECK: kaio.warpgroup_wait %[[F]] pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>
    %init = kaio.frag_fill %zero : f32 -> !Acc
    %d = kaio.warpgroup_mma %t[%c0], %t[%c64], %init : !T, !T, !Acc
    %af = kaio.load_fragment %t[%c0, %c0] : !T -> !kaio.frag<a, m16n8k16, f16, 1x4>
    %e = kaio.warpgroup_mma %af, %t[%c64] transpose, %d
        : !kaio.frag<a, m16n8k16, f16, 1x4>, !T, !Acc
    %f = kaio.warpgroup_mma %t[%c0] transpose, %t[%c64], %e {k = 64}
        : !T, !T, !Acc
    %a8 = kaio.shared_alloc : !kaio.smem<64x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
    %b8 = kaio.shared_alloc : !kaio.smem<128x128xf8E5M2, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
    %g = kaio.warpgroup_mma %a8[%c0], %b8[%c64] transpose, %init
        : !kaio.smem<64x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>,
          !kaio.smem<128x128xf8E5M2, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !Acc
    %g0 = kaio.warpgroup_wait %g pending 0 : !Acc
    kaio.warpgroup_wait pending 1
    %r = kaio.warpgroup_wait %f pending 0 : !Acc
    kaio.store_fragment %r, %out[%c0, %c0] bounds [%c64, %c64] ld %c64
        : !Acc, !kaio.ptr<f32>
    // CHECK: kaio.shared_store_fragment %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : <acc, m16n8k16, f32, 1x8>, <256x64xf16, <row_major, swizzle = <3, 4, 3>>>
    // CHECK: kaio.fence_proxy_async
    // CHECK: kaio.barrier id 1, threads 256
    // CHECK: kaio.barrier{{$}}
    // CHECK: kaio.tma_store %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}] : <256x64xf16, <row_major, swizzle = <3, 4, 3>>>, <128x64xf16, swizzle = 128>
    // CHECK: kaio.tma_store_wait pending 0
    kaio.shared_store_fragment %r, %t[%c0, %c0] : !Acc, !T
    kaio.fence_proxy_async
    kaio.barrier id 1, threads 256
    kaio.barrier
    kaio.tma_store %t[%c64] to %map[%c0, %c64]
        : !T, !kaio.tensor_map<128x64xf16, swizzle = 128>
    kaio.tma_store_wait pending 0
    kaio.return
  }

  // Thread block clusters.
  // CHECK-LABEL: kaio.kernel @cluster
  // CHECK-SAME: cluster_size = array<i32: 2, 2>
  // CHECK: kaio.cluster_id x : i32
  // CHECK: kaio.cluster_grid_dim z : i32
  // CHECK: kaio.block_rank : i32
  // CHECK: kaio.cluster_barrier aligned
  // CHECK: kaio.cluster_barrier{{$}}
  // CHECK: kaio.tma_load %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] multicast %{{.*}} : <128x64xf16, swizzle = 128>
  // CHECK: kaio.mbarrier_arrive %{{.*}}[%{{.*}}] expect_tx %{{.*}} on_block %{{.*}} : <4xi64>
  // CHECK: kaio.mbarrier_arrive %{{.*}}[%{{.*}}] on_block %{{.*}} : <4xi64>
  kaio.kernel @cluster(%map: !kaio.tensor_map<128x64xf16, swizzle = 128>,
                       %mask: i32)
      attributes {block_size = array<i32: 128>,
                  cluster_size = array<i32: 2, 2>} {
    %c0 = arith.constant 0 : i32
    %bytes = arith.constant 16384 : i32
    %id = kaio.cluster_id x : i32
    %n = kaio.cluster_grid_dim z : i32
    %r = kaio.block_rank : i32
    %t = kaio.shared_alloc : !T
    %bars = kaio.shared_alloc : !B
    kaio.cluster_barrier aligned
    kaio.cluster_barrier
    kaio.tma_load %map[%c0, %id] to %t[%c0], %bars[%c0] multicast %mask
        : !kaio.tensor_map<128x64xf16, swizzle = 128>, !T, !B
    kaio.mbarrier_arrive %bars[%c0] expect_tx %bytes on_block %r : !B
    kaio.mbarrier_arrive %bars[%n] on_block %r : !B
    kaio.return
  }
}
