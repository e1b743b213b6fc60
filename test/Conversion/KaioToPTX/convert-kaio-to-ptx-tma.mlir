// RUN: kaio-opt %s --convert-kaio-to-ptx --split-input-file | FileCheck %s

// A !kaio.tensor_map parameter becomes an i64 {ptx.tensor_map} (printed as
// `.param .align 64 .b8 [128]`); kaio.tma_load one cp.async.bulk.tensor with
// the coordinates innermost first, into the tile's row `row` (128-byte rows)
// and completing on mbarrier `s` (8 bytes each).

// CHECK-LABEL: ptx.entry @tma(%arg0: i64 {ptx.tensor_map}
// CHECK: %[[T:.*]] = ptx.addressof @__kaio_smem_0 : i32
// CHECK: %[[BARS:.*]] = ptx.addressof @__kaio_smem_1 : i32
// CHECK: %[[C128:.*]] = ptx.constant 128 : i32
// CHECK: %[[OFF:.*]] = ptx.mul lo u32 %arg4, %[[C128]] : i32
// CHECK: %[[DST:.*]] = ptx.add u32 %[[T]], %[[OFF]] : i32
// CHECK: %[[C8:.*]] = ptx.constant 8 : i32
// CHECK: %[[BOFF:.*]] = ptx.mul lo u32 %arg5, %[[C8]] : i32
// CHECK: %[[BAR:.*]] = ptx.add u32 %[[BARS]], %[[BOFF]] : i32
// CHECK: ptx.cp_async_bulk_tensor_load 3d [%[[DST]]], [%arg0, {%arg1, %arg2, %arg3}], [%[[BAR]]] : i32, i32
!T = !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!Bars = !kaio.smem<4xi64>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @tma(%map: !kaio.tensor_map<2x64x64xf16, swizzle = 128>,
                   %x: i32, %y: i32, %z: i32, %row: i32, %s: i32)
      attributes {block_size = array<i32: 128>} {
    %t = kaio.shared_alloc : !T
    %bars = kaio.shared_alloc : !Bars
    kaio.tma_load %map[%z, %y, %x] to %t[%row], %bars[%s]
        : !kaio.tensor_map<2x64x64xf16, swizzle = 128>, !T, !Bars
    kaio.return
  }
}

// -----

// kaio.tma_store: the tile rows from `row` to the box, one bulk async-group;
// a named barrier is bar.sync with its thread count.
// CHECK-LABEL: ptx.entry @tma_store(%arg0: i64 {ptx.tensor_map}
// CHECK: %[[T:.*]] = ptx.addressof @__kaio_smem_{{.*}} : i32
// CHECK: ptx.bar_sync 1, 256
// CHECK: %[[OFF:.*]] = ptx.mul lo u32 %arg3, %{{.*}} : i32
// CHECK: %[[SRC:.*]] = ptx.add u32 %[[T]], %[[OFF]] : i32
// CHECK: ptx.cp_async_bulk_tensor_store 2d [%arg0, {%arg2, %arg1}], [%[[SRC]]] : i32
// CHECK-NEXT: ptx.cp_async_bulk_commit_group
!S = !kaio.smem<128x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @tma_store(%map: !kaio.tensor_map<64x64xf16, swizzle = 128>,
                         %y: i32, %x: i32, %row: i32)
      attributes {block_size = array<i32: 256>} {
    %t = kaio.shared_alloc : !S
    kaio.barrier id 1, threads 256
    kaio.tma_store %t[%row] to %map[%y, %x]
        : !S, !kaio.tensor_map<64x64xf16, swizzle = 128>
    kaio.return
  }
}

// -----

// Thread block clusters: cluster_size is the entry's reqnctapercluster; the
// cluster ids and the block's rank are special registers; a cluster barrier
// is barrier.cluster.arrive.release + wait.acquire; a multicast load takes
// the mask as its 16-bit CTA mask.
// CHECK-LABEL: ptx.entry @cluster(%arg0: i64 {ptx.tensor_map}
// CHECK-SAME: reqnctapercluster = array<i32: 2, 1>
// CHECK: ptx.sreg clusterid.y : i32
// CHECK: ptx.sreg nclusterid.x : i32
// CHECK: ptx.sreg cluster_ctarank : i32
// CHECK: ptx.barrier_cluster_arrive release aligned
// CHECK-NEXT: ptx.barrier_cluster_wait acquire aligned
// CHECK: %[[MASK:.*]] = ptx.cvt u16 u32 %arg1 : i32 -> i16
// CHECK: ptx.cp_async_bulk_tensor_load 2d [%{{.*}}], [%arg0, {%{{.*}}, %{{.*}}}], [%{{.*}}] multicast %[[MASK]] : i32, i32
// CHECK: ptx.barrier_cluster_arrive release{{$}}
// CHECK-NEXT: ptx.barrier_cluster_wait acquire{{$}}
!T = !kaio.smem<128x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!Bars = !kaio.smem<4xi64>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @cluster(%map: !kaio.tensor_map<64x64xf16, swizzle = 128>,
                       %mask: i32, %out: !kaio.ptr<i32>)
      attributes {block_size = array<i32: 128>,
                  cluster_size = array<i32: 2, 1>} {
    %c0 = arith.constant 0 : i32
    %cy = kaio.cluster_id y : i32
    %n = kaio.cluster_grid_dim x : i32
    %r = kaio.block_rank : i32
    %t = kaio.shared_alloc : !T
    %bars = kaio.shared_alloc : !Bars
    kaio.cluster_barrier aligned
    kaio.tma_load %map[%r, %c0] to %t[%c0], %bars[%c0] multicast %mask
        : !kaio.tensor_map<64x64xf16, swizzle = 128>, !T, !Bars
    kaio.cluster_barrier
    %s = arith.addi %cy, %n : i32
    %s2 = arith.addi %s, %r : i32
    kaio.store %s2, %out[%c0] : i32, !kaio.ptr<i32>, i32
    kaio.return
  }
}
