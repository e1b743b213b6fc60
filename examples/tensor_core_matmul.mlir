// C (f32) = A (f16, M x K) x B (f16, K x N), row-major, any M, N, K.
// One block of 8 warps computes a 64 x 64 tile of C. For each 16-wide step
// of K the block copies A's 64 x 16 and B's 16 x 64 tiles into shared memory
// with cp.async (zero filled past the matrix edges), then each warp loads its
// fragments with ldmatrix and issues four m16n8k16 mma.sync for its 32 x 16
// sub-tile. Launch with grid (ceil(N / 64), ceil(M / 64)).
module {
  kaio.kernel @tensor_core_matmul(%A: !kaio.ptr<f16> {kaio.readonly},
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
    // The 8 warps form a 2 x 4 grid of 32 x 16 sub-tiles.
    %warp = kaio.warp_id : i32
    %wm = arith.divui %warp, %c4 : i32
    %wn = arith.remui %warp, %c4 : i32
    %wrow = arith.muli %wm, %c32 : i32
    %wcol = arith.muli %wn, %c16 : i32
    %wrow1 = arith.addi %wrow, %c16 : i32
    %wcol1 = arith.addi %wcol, %c8 : i32
    %As = kaio.shared_alloc : !kaio.smem<64x16xf16>
    %Bs = kaio.shared_alloc : !kaio.smem<16x64xf16>
    %init = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32>
    %acc:4 = scf.for %k0 = %c0 to %K step %c16
        iter_args(%c00 = %init, %c01 = %init, %c10 = %init, %c11 = %init)
        -> (!kaio.frag<acc, m16n8k16, f32>, !kaio.frag<acc, m16n8k16, f32>,
            !kaio.frag<acc, m16n8k16, f32>, !kaio.frag<acc, m16n8k16, f32>)
        : i32 {
      %ta = kaio.async_copy %A[%row0, %k0] bounds [%M, %K] ld %K to %As
          : !kaio.ptr<f16>, !kaio.smem<64x16xf16>
      %tb = kaio.async_copy %B[%k0, %col0] bounds [%K, %N] ld %N to %Bs
          : !kaio.ptr<f16>, !kaio.smem<16x64xf16>
      kaio.async_wait %ta, %tb
      kaio.barrier
      %a0 = kaio.load_fragment %As[%wrow, %c0]
          : !kaio.smem<64x16xf16> -> !kaio.frag<a, m16n8k16, f16>
      %a1 = kaio.load_fragment %As[%wrow1, %c0]
          : !kaio.smem<64x16xf16> -> !kaio.frag<a, m16n8k16, f16>
      %b0 = kaio.load_fragment %Bs[%c0, %wcol]
          : !kaio.smem<16x64xf16> -> !kaio.frag<b, m16n8k16, f16>
      %b1 = kaio.load_fragment %Bs[%c0, %wcol1]
          : !kaio.smem<16x64xf16> -> !kaio.frag<b, m16n8k16, f16>
      %d00 = kaio.mma %a0, %b0, %c00 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      %d01 = kaio.mma %a0, %b1, %c01 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      %d10 = kaio.mma %a1, %b0, %c10 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      %d11 = kaio.mma %a1, %b1, %c11 : !kaio.frag<a, m16n8k16, f16>,
          !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
      // The next step's copies overwrite the tiles other warps still read.
      kaio.barrier
      scf.yield %d00, %d01, %d10, %d11 : !kaio.frag<acc, m16n8k16, f32>,
          !kaio.frag<acc, m16n8k16, f32>, !kaio.frag<acc, m16n8k16, f32>,
          !kaio.frag<acc, m16n8k16, f32>
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
