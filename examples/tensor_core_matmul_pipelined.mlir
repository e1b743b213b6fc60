// C (f32) = A (f16, M x K) x B (f16, K x N), row-major, any M, N, K, with
// the copies of the next K step in flight while the current one computes:
// two shared-memory stages, the loop unrolled by two so that each stage is
// its own tile. The tokens carried around the loop let
// kaio-group-async-copies wait for exactly the stage about to be used
// (cp.async.wait_group 2: the other stage's two copies stay in flight).
// Same tiling as tensor_core_matmul.mlir: 8 warps, a 64 x 64 tile per block,
// each warp 32 x 16. Launch with grid (ceil(N / 64), ceil(M / 64)).
module {
  kaio.kernel @tensor_core_matmul_pipelined(%A: !kaio.ptr<f16> {kaio.readonly},
                                            %B: !kaio.ptr<f16> {kaio.readonly},
                                            %C: !kaio.ptr<f32>,
                                            %M: i32, %N: i32, %K: i32)
      attributes {block_size = array<i32: 256>} {
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %c8 = arith.constant 8 : i32
    %c16 = arith.constant 16 : i32
    %c32 = arith.constant 32 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant 0.0 : f32
    %bx = kaio.block_id x : i32
    %by = kaio.block_id y : i32
    %row0 = arith.muli %by, %c64 : i32
    %col0 = arith.muli %bx, %c64 : i32
    %warp = kaio.warp_id : i32
    %wm = arith.divui %warp, %c4 : i32
    %wn = arith.remui %warp, %c4 : i32
    %wrow = arith.muli %wm, %c32 : i32
    %wcol = arith.muli %wn, %c16 : i32
    %wrow1 = arith.addi %wrow, %c16 : i32
    %wcol1 = arith.addi %wcol, %c8 : i32
    %As0 = kaio.shared_alloc : !kaio.smem<64x16xf16>
    %Bs0 = kaio.shared_alloc : !kaio.smem<16x64xf16>
    %As1 = kaio.shared_alloc : !kaio.smem<64x16xf16>
    %Bs1 = kaio.shared_alloc : !kaio.smem<16x64xf16>
    %init = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32>
    // Prologue: stage 0 holds K step 0.
    %pa = kaio.async_copy %A[%row0, %c0] bounds [%M, %K] ld %K to %As0
        : !kaio.ptr<f16>, !kaio.smem<64x16xf16>
    %pb = kaio.async_copy %B[%c0, %col0] bounds [%K, %N] ld %N to %Bs0
        : !kaio.ptr<f16>, !kaio.smem<16x64xf16>
    %acc:6 = scf.for %k0 = %c0 to %K step %c32
        iter_args(%c00 = %init, %c01 = %init, %c10 = %init, %c11 = %init,
                  %ta0 = %pa, %tb0 = %pb)
        -> (!kaio.frag<acc, m16n8k16, f32>, !kaio.frag<acc, m16n8k16, f32>,
            !kaio.frag<acc, m16n8k16, f32>, !kaio.frag<acc, m16n8k16, f32>,
            !kaio.token, !kaio.token) : i32 {
      // Stage 1 <- K step k0 + 16 while stage 0 (step k0) is used.
      %k1 = arith.addi %k0, %c16 : i32
      %ta1 = kaio.async_copy %A[%row0, %k1] bounds [%M, %K] ld %K to %As1
          : !kaio.ptr<f16>, !kaio.smem<64x16xf16>
      %tb1 = kaio.async_copy %B[%k1, %col0] bounds [%K, %N] ld %N to %Bs1
          : !kaio.ptr<f16>, !kaio.smem<16x64xf16>
      kaio.async_wait %ta0, %tb0
      kaio.barrier
      %a0_0 = kaio.load_fragment %As0[%wrow, %c0]
          : !kaio.smem<64x16xf16> -> !kaio.frag<a, m16n8k16, f16>
      %a1_0 = kaio.load_fragment %As0[%wrow1, %c0]
          : !kaio.smem<64x16xf16> -> !kaio.frag<a, m16n8k16, f16>
      %b0_0 = kaio.load_fragment %Bs0[%c0, %wcol]
          : !kaio.smem<16x64xf16> -> !kaio.frag<b, m16n8k16, f16>
      %b1_0 = kaio.load_fragment %Bs0[%c0, %wcol1]
          : !kaio.smem<16x64xf16> -> !kaio.frag<b, m16n8k16, f16>
      %e00 = kaio.mma %a0_0, %b0_0, %c00 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      %e01 = kaio.mma %a0_0, %b1_0, %c01 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      %e10 = kaio.mma %a1_0, %b0_0, %c10 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      %e11 = kaio.mma %a1_0, %b1_0, %c11 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      kaio.barrier
      // Stage 0 <- K step k0 + 32 while stage 1 is used.
      %k2 = arith.addi %k0, %c32 : i32
      %na = kaio.async_copy %A[%row0, %k2] bounds [%M, %K] ld %K to %As0
          : !kaio.ptr<f16>, !kaio.smem<64x16xf16>
      %nb = kaio.async_copy %B[%k2, %col0] bounds [%K, %N] ld %N to %Bs0
          : !kaio.ptr<f16>, !kaio.smem<16x64xf16>
      kaio.async_wait %ta1, %tb1
      kaio.barrier
      %a0_1 = kaio.load_fragment %As1[%wrow, %c0]
          : !kaio.smem<64x16xf16> -> !kaio.frag<a, m16n8k16, f16>
      %a1_1 = kaio.load_fragment %As1[%wrow1, %c0]
          : !kaio.smem<64x16xf16> -> !kaio.frag<a, m16n8k16, f16>
      %b0_1 = kaio.load_fragment %Bs1[%c0, %wcol]
          : !kaio.smem<16x64xf16> -> !kaio.frag<b, m16n8k16, f16>
      %b1_1 = kaio.load_fragment %Bs1[%c0, %wcol1]
          : !kaio.smem<16x64xf16> -> !kaio.frag<b, m16n8k16, f16>
      %d00 = kaio.mma %a0_1, %b0_1, %e00 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      %d01 = kaio.mma %a0_1, %b1_1, %e01 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      %d10 = kaio.mma %a1_1, %b0_1, %e10 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      %d11 = kaio.mma %a1_1, %b1_1, %e11 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      kaio.barrier
      scf.yield %d00, %d01, %d10, %d11, %na, %nb : !kaio.frag<acc, m16n8k16, f32>,
          !kaio.frag<acc, m16n8k16, f32>, !kaio.frag<acc, m16n8k16, f32>,
          !kaio.frag<acc, m16n8k16, f32>, !kaio.token, !kaio.token
    }
    %r0 = arith.addi %row0, %wrow : i32
    %r1 = arith.addi %row0, %wrow1 : i32
    %q0 = arith.addi %col0, %wcol : i32
    %q1 = arith.addi %col0, %wcol1 : i32
    kaio.store_fragment %acc#0, %C[%r0, %q0] bounds [%M, %N] ld %N
        : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
    kaio.store_fragment %acc#1, %C[%r0, %q1] bounds [%M, %N] ld %N
        : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
    kaio.store_fragment %acc#2, %C[%r1, %q0] bounds [%M, %N] ld %N
        : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
    kaio.store_fragment %acc#3, %C[%r1, %q1] bounds [%M, %N] ld %N
        : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
    kaio.return
  }
}
