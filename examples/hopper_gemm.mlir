// C (f32, M x N) = A (f16, M x K) x B (f16, K x N), row-major, on sm_90a:
// TMA copies into a 4-stage ring of 128-byte-swizzled shared tiles guarded
// by mbarriers, warpgroup MMA (wgmma) reading them through descriptors, and
// warp specialisation. A block of three warpgroups (384 threads) walks the
// 128 x 256 tiles of C persistently (tile = block, + grid, ...):
//  - warpgroup 0 produces: one thread waits until a stage is free (`empty`),
//    announces its 48 KiB on `full` and issues five TMA boxes into it
//    (A: 128 x 64, B: four 64 x 64 column blocks);
//  - warpgroups 1 and 2 consume 64 rows each (a 64 x 256 f32 accumulator:
//    128 registers a thread): wait for `full`, issue the stage's wgmma
//    group (4 x m64n256k16), wait until only that group is in flight and
//    free the stage the previous group read.
// The ring position runs on across tiles, so the producer fills the next
// tile's stages while the consumers store. TMA zero-fills outside A and B:
// any M, N, K >= 1 work, with K and N multiples of 8 (16-byte rows for the
// tensor maps). The host builds the maps (rt::makeTensorMap; kaio-run
// `ma=tmap:a:MxK:128x64:swizzle128 mb=tmap:b:KxN:64x64:swizzle128`) and
// launches any grid with 384 threads and the 196672 bytes of dynamic shared
// memory the entry declares (kaio-run and the runtime opt in by themselves).
// 128 x 256 tiles read each A and B tile half as often as 128 x 128 ones:
// on an H100 96 % of cuBLAS at 4096^3 where 128 x 128 reached 73 %
// (docs/perf.md).
!A = !kaio.smem<512x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!B = !kaio.smem<1024x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!Bars = !kaio.smem<4xi64>
!Acc = !kaio.frag<acc, m16n8k16, f32, 1x32>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @hopper_gemm(%ma: !kaio.tensor_map<128x64xf16, swizzle = 128>,
                           %mb: !kaio.tensor_map<64x64xf16, swizzle = 128>,
                           %C: !kaio.ptr<f32>, %M: i32, %N: i32, %K: i32)
      attributes {block_size = array<i32: 384>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %c16 = arith.constant 16 : i32
    %c63 = arith.constant 63 : i32
    %c64 = arith.constant 64 : i32
    %c127 = arith.constant 127 : i32
    %c128 = arith.constant 128 : i32
    %stage_bytes = arith.constant 49152 : i32
    %c192 = arith.constant 192 : i32
    %c255 = arith.constant 255 : i32
    %c256 = arith.constant 256 : i32
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
    %nt_end = arith.addi %N, %c255 : i32
    %tiles_n = arith.divui %nt_end, %c256 : i32
    %tiles = arith.muli %tiles_m, %tiles_n : i32
    %kt_end = arith.addi %K, %c63 : i32
    %k_tiles = arith.divui %kt_end, %c64 : i32
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
          %col0 = arith.muli %tn, %c256 : i32
          %col1 = arith.addi %col0, %c64 : i32
          %col2 = arith.addi %col0, %c128 : i32
          %col3 = arith.addi %col0, %c192 : i32
          %next = scf.for unsigned %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it) -> (i32) : i32 {
            %s = arith.remui %i, %c4 : i32
            %round = arith.divui %i, %c4 : i32
            %phase = arith.remui %round, %c2 : i32
            // Round r waits for the consumers' release of round r - 1
            // (parity 1 - r % 2: round 0 passes at once).
            %free = arith.xori %phase, %c1 : i32
            kaio.mbarrier_wait %empty[%s], %free : !Bars
            kaio.mbarrier_arrive %full[%s] expect_tx %stage_bytes : !Bars
            %k0 = arith.muli %kt, %c64 : i32
            %arow = arith.muli %s, %c128 : i32
            %brow0 = arith.muli %s, %c256 : i32
            %brow1 = arith.addi %brow0, %c64 : i32
            %brow2 = arith.addi %brow0, %c128 : i32
            %brow3 = arith.addi %brow0, %c192 : i32
            kaio.tma_load %ma[%row0, %k0] to %As[%arow], %full[%s]
                : !kaio.tensor_map<128x64xf16, swizzle = 128>, !A, !Bars
            kaio.tma_load %mb[%k0, %col0] to %Bs[%brow0], %full[%s]
                : !kaio.tensor_map<64x64xf16, swizzle = 128>, !B, !Bars
            kaio.tma_load %mb[%k0, %col1] to %Bs[%brow1], %full[%s]
                : !kaio.tensor_map<64x64xf16, swizzle = 128>, !B, !Bars
            kaio.tma_load %mb[%k0, %col2] to %Bs[%brow2], %full[%s]
                : !kaio.tensor_map<64x64xf16, swizzle = 128>, !B, !Bars
            kaio.tma_load %mb[%k0, %col3] to %Bs[%brow3], %full[%s]
                : !kaio.tensor_map<64x64xf16, swizzle = 128>, !B, !Bars
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
          %bstage = arith.muli %s, %c256 : i32
          %arow = arith.addi %stage, %g_rows : i32
          %d1 = kaio.warpgroup_mma %As[%arow], %Bs[%bstage], %d : !A, !B, !Acc
          // The previous group is done: its stage is free.
          kaio.warpgroup_wait pending 1
          %not_first = arith.cmpi ne, %kt, %c0 : i32
          %release = arith.andi %wg_leader, %not_first : i1
          scf.if %release {
            %i_prev = arith.addi %i, %c3 : i32
            %s_prev = arith.remui %i_prev, %c4 : i32
            kaio.mbarrier_arrive %empty[%s_prev] : !Bars
          }
          %i1 = arith.addi %i, %c1 : i32
          scf.yield %d1, %i1 : !Acc, i32
        }
        %res = kaio.warpgroup_wait %acc#0 pending 0 : !Acc
        %any = arith.cmpi ne, %k_tiles, %c0 : i32
        %release = arith.andi %wg_leader, %any : i1
        scf.if %release {
          %i_last = arith.addi %acc#1, %c3 : i32
          %s_last = arith.remui %i_last, %c4 : i32
          kaio.mbarrier_arrive %empty[%s_last] : !Bars
        }
        %tm = arith.remui %t, %tiles_m : i32
        %tn = arith.divui %t, %tiles_m : i32
        %row0 = arith.muli %tm, %c128 : i32
        %col0 = arith.muli %tn, %c256 : i32
        %row = arith.addi %row0, %rows : i32
        kaio.store_fragment %res, %C[%row, %col0] bounds [%M, %N] ld %N
            : !Acc, !kaio.ptr<f32>
        scf.yield %acc#1 : i32
      }
    }
    kaio.return
  }
}
