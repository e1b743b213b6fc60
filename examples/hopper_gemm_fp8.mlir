// C (f32, M x N) = scale * A (e4m3, M x K) x B (e4m3, K x N) on sm_90a: the
// FP8 twin of hopper_gemm.mlir. FP8 tensor cores read both operands
// K-major, so B arrives as B^T (N x K row-major: a Linear layer's weight
// as it is stored), A as row-major M x K; K tiles are 128 elements (still
// 128-byte rows, so the same swizzle and box rows, 32 KiB stages) and each
// consumer issues four m64n128k32 wgmmas per stage. `scale` carries the
// per-tensor scales of A and B (scale_a * scale_b), applied in f32 to the
// accumulators before the store. The tensor cores keep FP8 sums to about
// 14 significant bits, so each K tile's sums are promoted: its wgmma group
// starts from zero, is waited for, and is added into an f32 accumulator
// (kaio.frag_map), so the error is one 128-deep tile's whatever K — as
// cuBLAS's and CUTLASS's FP8 GEMMs and the library's (docs/design.md) do.
// Two accumulators of a 64 x 128 tile (64 registers each) fit where two
// of 64 x 256 would not, so the tiles of C are 128 x 128. A block of three
// warpgroups (384 threads) walks them persistently:
//  - warpgroup 0 produces: one thread waits until a stage is free (`empty`),
//    announces its 32 KiB on `full` and issues two TMA boxes into it
//    (A: 128 x 128, B^T: 128 x 128);
//  - warpgroups 1 and 2 consume 64 rows each: wait for `full`, issue the
//    stage's wgmma group, wait for it, free the stage and add the sums in.
//    The producer keeps the next three stages loading meanwhile.
// TMA zero-fills outside A and B^T: any M, N >= 1 and K >= 1 a multiple of
// 16 (16-byte rows for the tensor maps). The host builds the maps (kaio-run
// `ma=tmap:a:MxK:128x128:swizzle128 mb=tmap:b:NxK:128x128:swizzle128` over
// u8 buffers) and launches any grid with 384 threads and the dynamic shared
// memory the entry declares (its `smem=`). Not yet timed on a GPU.
!A = !kaio.smem<512x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!B = !kaio.smem<512x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!MA = !kaio.tensor_map<128x128xf8E4M3FN, swizzle = 128>
!MB = !kaio.tensor_map<128x128xf8E4M3FN, swizzle = 128>
!Bars = !kaio.smem<4xi64>
!Acc = !kaio.frag<acc, m16n8k16, f32, 1x16>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @hopper_gemm_fp8(%ma: !MA, %mb: !MB, %C: !kaio.ptr<f32>,
                               %M: i32, %N: i32, %K: i32, %scale: f32)
      attributes {block_size = array<i32: 384>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c16 = arith.constant 16 : i32
    %c64 = arith.constant 64 : i32
    %c127 = arith.constant 127 : i32
    %c128 = arith.constant 128 : i32
    %stage_bytes = arith.constant 32768 : i32
    %zero = arith.constant 0.0 : f32
    %As = kaio.shared_alloc : !A
    %Bs = kaio.shared_alloc : !B
    %full = kaio.shared_alloc : !Bars
    %empty = kaio.shared_alloc : !Bars
    %tid = kaio.thread_id x : i32
    %wg = arith.divui %tid, %c128 : i32
    %wg_lane = arith.remui %tid, %c128 : i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    %wg_leader = arith.cmpi eq, %wg_lane, %c0 : i32
    // full[s]: the producer's arrival and the stage's bytes; empty[s]: one
    // arrival per consumer warpgroup.
    scf.if %first {
      scf.for unsigned %s = %c0 to %c4 step %c1 : i32 {
        kaio.mbarrier_init %full[%s], %c1 : !Bars
        kaio.mbarrier_init %empty[%s], %c2 : !Bars
      }
    }
    kaio.barrier
    %mt_end = arith.addi %M, %c127 : i32
    %tiles_m = arith.divui %mt_end, %c128 : i32
    %nt_end = arith.addi %N, %c127 : i32
    %tiles_n = arith.divui %nt_end, %c128 : i32
    %tiles = arith.muli %tiles_m, %tiles_n : i32
    %kt_end = arith.addi %K, %c127 : i32
    %k_tiles = arith.divui %kt_end, %c128 : i32
    %bx = kaio.block_id x : i32
    %nbx = kaio.grid_dim x : i32
    %producer = arith.cmpi eq, %wg, %c0 : i32
    scf.if %producer {
      kaio.setmaxnreg dec 40
      scf.if %first {
        %r = scf.for unsigned %t = %bx to %tiles step %nbx iter_args(%it = %c0) -> (i32) : i32 {
          %tm = arith.remui %t, %tiles_m : i32
          %tn = arith.divui %t, %tiles_m : i32
          %row0 = arith.muli %tm, %c128 : i32
          %col0 = arith.muli %tn, %c128 : i32
          %next = scf.for unsigned %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it) -> (i32) : i32 {
            %s = arith.remui %i, %c4 : i32
            %round = arith.divui %i, %c4 : i32
            %phase = arith.remui %round, %c2 : i32
            // Round r waits for the consumers' release of round r - 1
            // (parity 1 - r % 2: round 0 passes at once).
            %free = arith.xori %phase, %c1 : i32
            kaio.mbarrier_wait %empty[%s], %free : !Bars
            kaio.mbarrier_arrive %full[%s] expect_tx %stage_bytes : !Bars
            %k0 = arith.muli %kt, %c128 : i32
            %srow = arith.muli %s, %c128 : i32
            kaio.tma_load %ma[%row0, %k0] to %As[%srow], %full[%s]
                : !MA, !A, !Bars
            kaio.tma_load %mb[%col0, %k0] to %Bs[%srow], %full[%s]
                : !MB, !B, !Bars
            %i1 = arith.addi %i, %c1 : i32
            scf.yield %i1 : i32
          }
          scf.yield %next : i32
        }
      }
    } else {
      kaio.setmaxnreg inc 232
      %g = arith.subi %wg, %c1 : i32
      %g_rows = arith.muli %g, %c64 : i32
      %warp = kaio.warp_id : i32
      %wq = arith.remui %warp, %c4 : i32
      %w_rows = arith.muli %wq, %c16 : i32
      %rows = arith.addi %g_rows, %w_rows : i32
      %init = kaio.frag_fill %zero : f32 -> !Acc
      %r = scf.for unsigned %t = %bx to %tiles step %nbx iter_args(%it = %c0) -> (i32) : i32 {
        %acc:2 = scf.for unsigned %kt = %c0 to %k_tiles step %c1
            iter_args(%d = %init, %i = %it) -> (!Acc, i32) : i32 {
          %s = arith.remui %i, %c4 : i32
          %round = arith.divui %i, %c4 : i32
          %phase = arith.remui %round, %c2 : i32
          kaio.mbarrier_wait %full[%s], %phase : !Bars
          %stage = arith.muli %s, %c128 : i32
          %arow = arith.addi %stage, %g_rows : i32
          // The K tile's sums alone (from zero), waited for: the stage is
          // free at once, and the sums go into the f32 accumulator.
          %p = kaio.warpgroup_mma %As[%arow], %Bs[%stage] transpose, %init
              : !A, !B, !Acc
          %pw = kaio.warpgroup_wait %p pending 0 : !Acc
          scf.if %wg_leader {
            kaio.mbarrier_arrive %empty[%s] : !Bars
          }
          %d1 = kaio.frag_map %d, %pw : !Acc, !Acc -> !Acc {
          ^bb0(%x: f32, %y: f32):
            %sum = arith.addf %x, %y : f32
            kaio.yield %sum : f32
          }
          %i1 = arith.addi %i, %c1 : i32
          scf.yield %d1, %i1 : !Acc, i32
        }
        %tm = arith.remui %t, %tiles_m : i32
        %tn = arith.divui %t, %tiles_m : i32
        %row0 = arith.muli %tm, %c128 : i32
        %col0 = arith.muli %tn, %c128 : i32
        %row = arith.addi %row0, %rows : i32
        %scaled = kaio.frag_map %acc#0, %scale : !Acc, f32 -> !Acc {
        ^bb0(%x: f32, %sc: f32):
          %y = arith.mulf %x, %sc : f32
          kaio.yield %y : f32
        }
        kaio.store_fragment %scaled, %C[%row, %col0] bounds [%M, %N] ld %N
            : !Acc, !kaio.ptr<f32>
        scf.yield %acc#1 : i32
      }
    }
    kaio.return
  }
}
