// Thread block clusters in the kaio dialect. Block rank 0 of each cluster
// of two loads a 32 x 64 f16 box and multicasts it to both blocks; each
// block's thread 0 expects the bytes on its own barrier (initialised before
// a cluster barrier, so the multicast finds it). Every block copies the tile
// to out[rank], then its thread 0 arrives on rank 0's second barrier
// (on_block): rank 0 waits for both, and a last cluster barrier keeps each
// block's shared memory alive until the other is done with it.
!T = !kaio.smem<32x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!Bars = !kaio.smem<2xi64>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @multicast(%map: !kaio.tensor_map<32x64xf16, swizzle = 128>,
                         %out: !kaio.ptr<f16>, %done: !kaio.ptr<i32>)
      attributes {block_size = array<i32: 128>,
                  cluster_size = array<i32: 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c16 = arith.constant 16 : i32
    %c64 = arith.constant 64 : i32
    %c2048 = arith.constant 2048 : i32
    %bytes = arith.constant 4096 : i32
    %tid = kaio.thread_id x : i32
    %rank = kaio.block_rank : i32
    %t = kaio.shared_alloc : !T
    %bars = kaio.shared_alloc : !Bars
    %first = arith.cmpi eq, %tid, %c0 : i32
    %root = arith.cmpi eq, %rank, %c0 : i32
    scf.if %first {
      kaio.mbarrier_init %bars[%c0], %c1 : !Bars
      kaio.mbarrier_init %bars[%c1], %c2 : !Bars
    }
    kaio.cluster_barrier aligned
    scf.if %first {
      kaio.mbarrier_arrive %bars[%c0] expect_tx %bytes : !Bars
      scf.if %root {
        kaio.tma_load %map[%c0, %c0] to %t[%c0], %bars[%c0] multicast %c3
            : !kaio.tensor_map<32x64xf16, swizzle = 128>, !T, !Bars
      }
    }
    kaio.mbarrier_wait %bars[%c0], %c0 : !Bars
    // 16 elements a thread: element e of the tile is row e / 64, column
    // e % 64 (the layout's swizzle is the TMA's).
    %base = arith.muli %rank, %c2048 : i32
    scf.for unsigned %i = %c0 to %c16 step %c1 : i32 {
      %e0 = arith.muli %tid, %c16 : i32
      %e = arith.addi %e0, %i : i32
      %row = arith.divui %e, %c64 : i32
      %col = arith.remui %e, %c64 : i32
      %v = kaio.shared_load %t[%row, %col] : !T -> f16
      %at = arith.addi %base, %e : i32
      kaio.store %v, %out[%at] : f16, !kaio.ptr<f16>, i32
    }
    scf.if %first {
      kaio.mbarrier_arrive %bars[%c1] on_block %c0 : !Bars
    }
    scf.if %root {
      kaio.mbarrier_wait %bars[%c1], %c0 : !Bars
      scf.if %first {
        kaio.store %c2, %done[%c0] : i32, !kaio.ptr<i32>, i32
      }
    }
    kaio.cluster_barrier
    kaio.return
  }
}
