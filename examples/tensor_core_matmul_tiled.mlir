// C (f32) = alpha A B + beta C for A (f16, M x K) and B (f16, K x N),
// row-major, any M, N, K (the op library's GEMM kernel until 2026-11-26), with warp tiles: a block of 8 warps computes a 128 x 128 tile of C, each warp
// a 64 x 32 tile held as 4 x 4 accumulator atoms. Per 32-wide step of K,
// a warp loads a 4 x 2 tile of A atoms (ldmatrix.x4 each) and a 2 x 4 tile
// of B atoms (ldmatrix.x4.trans pairs) and issues 32 mma.sync. Two shared
// stages rotate through the loop's iter_args: the copies of step k + 32 are
// in flight (cp.async.wait_group 2) while step k computes. The tiles are
// XOR-swizzled by kaio-assign-shared-layouts (no bank conflicts), the copies
// unrolled for the 256 threads. Launch with grid (ceil(N / 128),
// ceil(M / 128)) and 256 threads.
module {
  kaio.kernel @tensor_core_matmul_tiled(%A: !kaio.ptr<f16> {kaio.readonly},
                                        %B: !kaio.ptr<f16> {kaio.readonly},
                                        %C: !kaio.ptr<f32>,
                                        %M: i32, %N: i32, %K: i32,
                                        %alpha: f32, %beta: f32)
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
    %As0 = kaio.shared_alloc : !kaio.smem<128x32xf16>
    %Bs0 = kaio.shared_alloc : !kaio.smem<32x128xf16>
    %As1 = kaio.shared_alloc : !kaio.smem<128x32xf16>
    %Bs1 = kaio.shared_alloc : !kaio.smem<32x128xf16>
    %init = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32, 4x4>
    // Prologue: stage 0 <- K step 0.
    %pa = kaio.async_copy %A[%row0, %c0] bounds [%M, %K] ld %K to %As0
        : !kaio.ptr<f16>, !kaio.smem<128x32xf16>
    %pb = kaio.async_copy %B[%c0, %col0] bounds [%K, %N] ld %N to %Bs0
        : !kaio.ptr<f16>, !kaio.smem<32x128xf16>
    %acc, %a_, %b_, %an_, %bn_, %ta_, %tb_ = scf.for %k0 = %c0 to %K step %c32
        iter_args(%c = %init, %a = %As0, %b = %Bs0, %an = %As1, %bn = %Bs1,
                  %ta = %pa, %tb = %pb)
        -> (!kaio.frag<acc, m16n8k16, f32, 4x4>, !kaio.smem<128x32xf16>,
            !kaio.smem<32x128xf16>, !kaio.smem<128x32xf16>,
            !kaio.smem<32x128xf16>, !kaio.token, !kaio.token) : i32 {
      // The next stage <- K step k0 + 32 (zero filled past K).
      %k1 = arith.addi %k0, %c32 : i32
      %ta1 = kaio.async_copy %A[%row0, %k1] bounds [%M, %K] ld %K to %an
          : !kaio.ptr<f16>, !kaio.smem<128x32xf16>
      %tb1 = kaio.async_copy %B[%k1, %col0] bounds [%K, %N] ld %N to %bn
          : !kaio.ptr<f16>, !kaio.smem<32x128xf16>
      kaio.async_wait %ta, %tb
      kaio.barrier
      %fa = kaio.load_fragment %a[%wrow, %c0]
          : !kaio.smem<128x32xf16> -> !kaio.frag<a, m16n8k16, f16, 4x2>
      %fb = kaio.load_fragment %b[%c0, %wcol]
          : !kaio.smem<32x128xf16> -> !kaio.frag<b, m16n8k16, f16, 2x4>
      %d = kaio.mma %fa, %fb, %c : !kaio.frag<a, m16n8k16, f16, 4x2>,
          !kaio.frag<b, m16n8k16, f16, 2x4>,
          !kaio.frag<acc, m16n8k16, f32, 4x4>
      // The next iteration's copies overwrite the stage other warps read.
      kaio.barrier
      scf.yield %d, %an, %bn, %a, %b, %ta1, %tb1
          : !kaio.frag<acc, m16n8k16, f32, 4x4>, !kaio.smem<128x32xf16>,
            !kaio.smem<32x128xf16>, !kaio.smem<128x32xf16>,
            !kaio.smem<32x128xf16>, !kaio.token, !kaio.token
    }
    %r = arith.addi %row0, %wrow : i32
    %q = arith.addi %col0, %wcol : i32
    // Epilogue: C = alpha acc + beta C.
    %scaled = kaio.frag_map %acc, %alpha : !kaio.frag<acc, m16n8k16, f32, 4x4>,
        f32 -> !kaio.frag<acc, m16n8k16, f32, 4x4> {
    ^bb0(%x: f32, %a: f32):
      %y = arith.mulf %x, %a : f32
      kaio.yield %y : f32
    }
    // The last iteration's copies (past K) land before the kernel ends.
    kaio.async_wait
    kaio.store_fragment %scaled, %C[%r, %q] bounds [%M, %N] ld %N beta %beta
        : !kaio.frag<acc, m16n8k16, f32, 4x4>, !kaio.ptr<f32>
    kaio.return
  }
}
