// FlashAttention forward on sm_90a, O = softmax(Q K^T * scale) V for one
// head with d = 64: Q (Sq x 64), K and V (Sk x 64) f16 row-major, O f32.
// A block of three warpgroups owns 128 query rows:
//  - warpgroup 0 produces: one thread loads Q's 128 rows once, then key
//    blocks of 64 rows of K and V by TMA into a 2-stage ring (`full` /
//    `empty` mbarriers);
//  - warpgroups 1 and 2 consume 64 query rows each. Per key block j:
//      S = Q K^T                 (warpgroup_mma, K read K-major: transpose)
//      m' = max(m, rowmax(S))    (S scaled by scale * log2 e; keys past Sk
//                                 masked to -inf by an indexed frag_map)
//      P = exp2(S - m'), l' = l * exp2(m - m') + rowsum(P)
//      O = O * exp2(m - m') + P V  (P re-used from registers as wgmma's A:
//                                   frag_to_operand)
//    software-pipelined as in FlashAttention-3: S_j = Q K_j^T and
//    O += P_{j-1} V_{j-1} are issued together, S_j is waited for with the
//    P V group still pending (warpgroup_wait ... pending 1), and its
//    softmax runs while the tensor cores finish P V; then block j - 1's
//    stage is freed. Finally O / l, stored with the rows past Sq masked.
// Any Sq, Sk >= 1 (TMA zero-fills past them). Launch with grid
// ceil(Sq / 128) and 384 threads; the host builds the maps with boxes
// 128 x 64 (Q) and 64 x 64 (K, V), 128-byte swizzle. One block per SM
// (min_blocks_per_sm = 1) tells ptxas the register budget at entry, which
// setmaxnreg needs (else it ignores it: ptxas note C7508).
!Q = !kaio.smem<128x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!KV = !kaio.smem<128x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!MQ = !kaio.tensor_map<128x64xf16, swizzle = 128>
!MKV = !kaio.tensor_map<64x64xf16, swizzle = 128>
!Acc = !kaio.frag<acc, m16n8k16, f32, 1x8>
!Row = !kaio.frag<acc, m16n8k16, f32, 1x1>
!P = !kaio.frag<a, m16n8k16, f16, 1x4>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @hopper_attention(%mq: !MQ, %mk: !MKV, %mv: !MKV,
                                %O: !kaio.ptr<f32>, %sq: i32, %sk: i32,
                                %scale: f32)
      attributes {block_size = array<i32: 384>, min_blocks_per_sm = 1 : i32} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c16 = arith.constant 16 : i32
    %c63 = arith.constant 63 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %q_bytes = arith.constant 16384 : i32
    %kv_bytes = arith.constant 16384 : i32
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %log2e = arith.constant 1.44269504088896340736 : f32
    %Qs = kaio.shared_alloc : !Q
    %Ks = kaio.shared_alloc : !KV
    %Vs = kaio.shared_alloc : !KV
    %qbar = kaio.shared_alloc : !kaio.smem<1xi64>
    %full = kaio.shared_alloc : !kaio.smem<2xi64>
    %empty = kaio.shared_alloc : !kaio.smem<2xi64>
    %tid = kaio.thread_id x : i32
    %wg = arith.divui %tid, %c128 : i32
    %wg_lane = arith.remui %tid, %c128 : i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    %wg_leader = arith.cmpi eq, %wg_lane, %c0 : i32
    scf.if %first {
      kaio.mbarrier_init %qbar[%c0], %c1 : !kaio.smem<1xi64>
      scf.for %s = %c0 to %c2 step %c1 : i32 {
        kaio.mbarrier_init %full[%s], %c1 : !kaio.smem<2xi64>
        kaio.mbarrier_init %empty[%s], %c2 : !kaio.smem<2xi64>
      }
    }
    kaio.barrier
    %bx = kaio.block_id x : i32
    %q0 = arith.muli %bx, %c128 : i32
    %kb_end = arith.addi %sk, %c63 : i32
    %key_blocks = arith.divui %kb_end, %c64 : i32
    %producer = arith.cmpi eq, %wg, %c0 : i32
    scf.if %producer {
      kaio.setmaxnreg dec 40
      scf.if %first {
        kaio.mbarrier_arrive %qbar[%c0] expect_tx %q_bytes : !kaio.smem<1xi64>
        kaio.tma_load %mq[%q0, %c0] to %Qs[%c0], %qbar[%c0]
            : !MQ, !Q, !kaio.smem<1xi64>
        scf.for %j = %c0 to %key_blocks step %c1 : i32 {
          %s = arith.remui %j, %c2 : i32
          %round = arith.divui %j, %c2 : i32
          %phase = arith.remui %round, %c2 : i32
          %free = arith.xori %phase, %c1 : i32
          kaio.mbarrier_wait %empty[%s], %free : !kaio.smem<2xi64>
          kaio.mbarrier_arrive %full[%s] expect_tx %kv_bytes : !kaio.smem<2xi64>
          %k0 = arith.muli %j, %c64 : i32
          %row = arith.muli %s, %c64 : i32
          kaio.tma_load %mk[%k0, %c0] to %Ks[%row], %full[%s]
              : !MKV, !KV, !kaio.smem<2xi64>
          kaio.tma_load %mv[%k0, %c0] to %Vs[%row], %full[%s]
              : !MKV, !KV, !kaio.smem<2xi64>
        }
      }
    } else {
      kaio.setmaxnreg inc 232
      %g = arith.subi %wg, %c1 : i32
      %q_rows = arith.muli %g, %c64 : i32
      %scale_log2 = arith.mulf %scale, %log2e : f32
      %zeros = kaio.frag_fill %zero : f32 -> !Acc
      %m0 = kaio.frag_fill %ninf : f32 -> !Row
      %l0 = kaio.frag_fill %zero : f32 -> !Row
      kaio.mbarrier_wait %qbar[%c0], %c0 : !kaio.smem<1xi64>
      // Key block 0: S and its softmax (O is still zero).
      kaio.mbarrier_wait %full[%c0], %c0 : !kaio.smem<2xi64>
      %s0_async = kaio.warpgroup_mma %Qs[%q_rows], %Ks[%c0] transpose, %zeros
          : !Q, !KV, !Acc
      %s0 = kaio.warpgroup_wait %s0_async pending 0 : !Acc
      %k00 = arith.muli %c0, %c64 : i32
      %limit0 = arith.subi %sk, %k00 : i32
      %t0 = kaio.frag_map %s0, %limit0, %scale_log2, %ninf indexed
          : !Acc, i32, f32, f32 -> !Acc {
      ^bb0(%x: f32, %r: i32, %c: i32, %lim: i32, %sl: f32, %inf: f32):
        %in = arith.cmpi slt, %c, %lim : i32
        %y = arith.mulf %x, %sl : f32
        %z = arith.select %in, %y, %inf : f32
        kaio.yield %z : f32
      }
      %mb0 = kaio.frag_reduce_rows max %t0 : !Acc -> !Row
      %mn0 = kaio.frag_map %m0, %mb0 : !Row, !Row -> !Row {
      ^bb0(%x: f32, %y: f32):
        %z = arith.maximumf %x, %y : f32
        kaio.yield %z : f32
      }
      %p0 = kaio.frag_map %t0, %mn0 : !Acc, !Row -> !Acc {
      ^bb0(%x: f32, %mx: f32):
        %d = arith.subf %x, %mx : f32
        %e = math.exp2 %d : f32
        kaio.yield %e : f32
      }
      %alpha0 = kaio.frag_map %m0, %mn0 : !Row, !Row -> !Row {
      ^bb0(%x: f32, %mx: f32):
        %d = arith.subf %x, %mx : f32
        %e = math.exp2 %d : f32
        kaio.yield %e : f32
      }
      %ps0 = kaio.frag_reduce_rows sum %p0 : !Acc -> !Row
      %ln0 = kaio.frag_map %l0, %alpha0, %ps0 : !Row, !Row, !Row -> !Row {
      ^bb0(%x: f32, %a: f32, %y: f32):
        %z = math.fma %x, %a, %y : f32
        kaio.yield %z : f32
      }
      %pa0 = kaio.frag_to_operand %p0 : !Acc -> !P
      // Block j: S_j = Q K_j^T and O += P_{j-1} V_{j-1} in flight together;
      // the softmax of S_j runs while P V does.
      %acc:4 = scf.for unsigned %j = %c1 to %key_blocks step %c1
          iter_args(%o = %zeros, %m = %mn0, %l = %ln0, %pa_prev = %pa0)
          -> (!Acc, !Row, !Row, !P) : i32 {
        %s = arith.remui %j, %c2 : i32
        %round = arith.divui %j, %c2 : i32
        %phase = arith.remui %round, %c2 : i32
        %j_prev = arith.subi %j, %c1 : i32
        %s_prev = arith.remui %j_prev, %c2 : i32
        kaio.mbarrier_wait %full[%s], %phase : !kaio.smem<2xi64>
        %row = arith.muli %s, %c64 : i32
        %row_prev = arith.muli %s_prev, %c64 : i32
        %s_async = kaio.warpgroup_mma %Qs[%q_rows], %Ks[%row] transpose, %zeros
            : !Q, !KV, !Acc
        %o_async = kaio.warpgroup_mma %pa_prev, %Vs[%row_prev], %o : !P, !KV, !Acc
        // S's group is the older one: complete with P V still pending.
        %S = kaio.warpgroup_wait %s_async pending 1 : !Acc
        %k0 = arith.muli %j, %c64 : i32
        %limit = arith.subi %sk, %k0 : i32
        %t = kaio.frag_map %S, %limit, %scale_log2, %ninf indexed
            : !Acc, i32, f32, f32 -> !Acc {
        ^bb0(%x: f32, %r: i32, %c: i32, %lim: i32, %sl: f32, %inf: f32):
          %in = arith.cmpi slt, %c, %lim : i32
          %y = arith.mulf %x, %sl : f32
          %z = arith.select %in, %y, %inf : f32
          kaio.yield %z : f32
        }
        %mb = kaio.frag_reduce_rows max %t : !Acc -> !Row
        %mn = kaio.frag_map %m, %mb : !Row, !Row -> !Row {
        ^bb0(%x: f32, %y: f32):
          %z = arith.maximumf %x, %y : f32
          kaio.yield %z : f32
        }
        %p = kaio.frag_map %t, %mn : !Acc, !Row -> !Acc {
        ^bb0(%x: f32, %mx: f32):
          %d = arith.subf %x, %mx : f32
          %e = math.exp2 %d : f32
          kaio.yield %e : f32
        }
        %alpha = kaio.frag_map %m, %mn : !Row, !Row -> !Row {
        ^bb0(%x: f32, %mx: f32):
          %d = arith.subf %x, %mx : f32
          %e = math.exp2 %d : f32
          kaio.yield %e : f32
        }
        %ps = kaio.frag_reduce_rows sum %p : !Acc -> !Row
        %ln = kaio.frag_map %l, %alpha, %ps : !Row, !Row, !Row -> !Row {
        ^bb0(%x: f32, %a: f32, %y: f32):
          %z = math.fma %x, %a, %y : f32
          kaio.yield %z : f32
        }
        %on = kaio.warpgroup_wait %o_async pending 0 : !Acc
        // P becomes wgmma's A operand once no group is in flight: ptxas
        // serialises wgmma (C7513) when registers a later wgmma reads are
        // defined while one runs.
        %pa = kaio.frag_to_operand %p : !Acc -> !P
        // Block j - 1's K and V are done with.
        scf.if %wg_leader {
          kaio.mbarrier_arrive %empty[%s_prev] : !kaio.smem<2xi64>
        }
        %os = kaio.frag_map %on, %alpha : !Acc, !Row -> !Acc {
        ^bb0(%x: f32, %a: f32):
          %z = arith.mulf %x, %a : f32
          kaio.yield %z : f32
        }
        scf.yield %os, %mn, %ln, %pa : !Acc, !Row, !Row, !P
      }
      // The last block's P V.
      %last = arith.subi %key_blocks, %c1 : i32
      %s_last = arith.remui %last, %c2 : i32
      %row_last = arith.muli %s_last, %c64 : i32
      %o_async = kaio.warpgroup_mma %acc#3, %Vs[%row_last], %acc#0 : !P, !KV, !Acc
      %o_done = kaio.warpgroup_wait %o_async pending 0 : !Acc
      scf.if %wg_leader {
        kaio.mbarrier_arrive %empty[%s_last] : !kaio.smem<2xi64>
      }
      %out = kaio.frag_map %o_done, %acc#2 : !Acc, !Row -> !Acc {
      ^bb0(%x: f32, %y: f32):
        %z = arith.divf %x, %y : f32
        kaio.yield %z : f32
      }
      %warp = kaio.warp_id : i32
      %wq = arith.remui %warp, %c4 : i32
      %w_rows = arith.muli %wq, %c16 : i32
      %r0 = arith.addi %q0, %q_rows : i32
      %r = arith.addi %r0, %w_rows : i32
      kaio.store_fragment %out, %O[%r, %c0] bounds [%sq, %c64] ld %c64
          : !Acc, !kaio.ptr<f32>
    }
    kaio.return
  }
}
