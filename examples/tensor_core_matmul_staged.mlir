// The warp-tile matmul of tensor_core_matmul_tiled.mlir written the short
// way: one loop "copy the K tile, wait, compute", marked
// {kaio.pipeline_stages = 3}. kaio-pipeline-copies turns it into a
// three-stage cp.async pipeline: three buffers per tile, the copies of
// steps k + 32 and k + 64 in flight while step k computes, the copies past
// the end predicated off. One barrier a step: the one after the wait both
// publishes step k's tiles and ends every warp's reads of step k - 32's
// buffers, so the pipeline issues step k + 64's copies (into them) right
// after it (cp.async.wait_group 2 before it). Same tiling: 128 x 128 per
// block of 8 warps, 64 x 32 (4 x 4 atoms) per warp. Launch with grid
// (ceil(N / 128), ceil(M / 128)) and 256 threads.
module {
  kaio.kernel @tensor_core_matmul_staged(%A: !kaio.ptr<f16> {kaio.readonly},
                                        %B: !kaio.ptr<f16> {kaio.readonly},
                                        %C: !kaio.ptr<f32>,
                                        %M: i32, %N: i32, %K: i32)
      attributes {block_size = array<i32: 256>} {
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %c32 = arith.constant 32 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant 0.0 : f32
    %bx = kaio.block_id x : i32
    %by = kaio.block_id y : i32
    %row0 = arith.muli %by, %c128 : i32
    %col0 = arith.muli %bx, %c128 : i32
    // The 8 warps form a 2 x 4 grid of 64 x 32 warp tiles.
    %warp = kaio.warp_id : i32
    %wm = arith.divui %warp, %c4 : i32
    %wn = arith.remui %warp, %c4 : i32
    %wrow = arith.muli %wm, %c64 : i32
    %wcol = arith.muli %wn, %c32 : i32
    %As = kaio.shared_alloc : !kaio.smem<128x32xf16>
    %Bs = kaio.shared_alloc : !kaio.smem<32x128xf16>
    %init = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32, 4x4>
    %acc = scf.for %k0 = %c0 to %K step %c32 iter_args(%c = %init)
        -> (!kaio.frag<acc, m16n8k16, f32, 4x4>) : i32 {
      %ta = kaio.async_copy %A[%row0, %k0] bounds [%M, %K] ld %K to %As
          : !kaio.ptr<f16>, !kaio.smem<128x32xf16>
      %tb = kaio.async_copy %B[%k0, %col0] bounds [%K, %N] ld %N to %Bs
          : !kaio.ptr<f16>, !kaio.smem<32x128xf16>
      kaio.async_wait %ta, %tb
      kaio.barrier
      %fa = kaio.load_fragment %As[%wrow, %c0]
          : !kaio.smem<128x32xf16> -> !kaio.frag<a, m16n8k16, f16, 4x2>
      %fb = kaio.load_fragment %Bs[%c0, %wcol]
          : !kaio.smem<32x128xf16> -> !kaio.frag<b, m16n8k16, f16, 2x4>
      %d = kaio.mma %fa, %fb, %c : !kaio.frag<a, m16n8k16, f16, 4x2>,
          !kaio.frag<b, m16n8k16, f16, 2x4>,
          !kaio.frag<acc, m16n8k16, f32, 4x4>
      scf.yield %d : !kaio.frag<acc, m16n8k16, f32, 4x4>
    } {kaio.pipeline_stages = 3 : i32}
    %r = arith.addi %row0, %wrow : i32
    %q = arith.addi %col0, %wcol : i32
    // The last iteration's copies (past K) land before the kernel ends.
    kaio.async_wait
    kaio.store_fragment %acc, %C[%r, %q] bounds [%M, %N] ld %N
        : !kaio.frag<acc, m16n8k16, f32, 4x4>, !kaio.ptr<f32>
    kaio.return
  }
}
