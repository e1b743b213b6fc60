//===- Passes.td - kaio dialect transforms -----------------*- tablegen -*-===//

#ifndef KAIO_DIALECT_KAIO_TRANSFORMS_PASSES_TD
#define KAIO_DIALECT_KAIO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PipelineCopies : Pass<"kaio-pipeline-copies", "::mlir::ModuleOp"> {
  let summary = "software-pipeline the async copies of loops marked kaio.pipeline_stages";
  let description = [{
    A loop written as "copy k-tile → wait → compute", marked
    `{kaio.pipeline_stages = N}` (N >= 2), becomes an N-stage cp.async
    pipeline: each shared tile an `async_copy` in the loop fills gets N
    buffers, the copy of iteration i + N - 1 is issued while iteration i
    computes (MLIR's scf::pipelineForLoop with the copies and what they
    depend on in stage 0 and everything else in stage N - 1; prologue
    peeled, the copies of the last N - 1 iterations predicated off), and the
    waits then leave the newer stages in flight (kaio-group-async-copies).
    A buffer must not be refilled while other warps read it: either a
    barrier follows the body's last read of a copied tile, or one lies
    between its last wait and its first read (the copies are then issued
    right after it: one barrier an iteration). In that second form, a loop
    also marked `{kaio.pipeline_prefetch}` (N >= 3) issues each iteration's
    leading tile reads (an mma's first fragments) one iteration early,
    between the previous iteration's last read and the rest of its compute.
  }];
  let dependentDialects = ["::kaio::KaioDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def UnrollLoops : Pass<"kaio-unroll-loops", "::mlir::ModuleOp"> {
  let summary = "unroll the scf.for loops marked kaio.unroll";
  let description = [{
    A loop marked `{kaio.unroll = N}` runs N iterations per trip of its
    main loop (MLIR's generateUnrolledLoop: the body cloned N times, the
    loop-carried values threaded through), and the trip count mod N
    remaining iterations in a copy of the original loop after it. Bounds may
    be dynamic, signed or unsigned. With a constant step the split point is
    computed with unsigned arithmetic from the trip count (ceil((hi - lo) /
    step), 0 when hi <= lo), so an empty loop stays empty and no iteration
    runs past hi; constant trip counts fold (canonicalize): no remainder
    loop when N divides them. With a run-time step (a block-stride walk) the
    main loop runs while iv < hi - (N - 1) step and carries its next
    induction value to the remainder loop: no run-time division. Inner
    loops are unrolled before outer ones.

    Why: a thread whose loop body loads and then folds the loaded value
    (a walk down a column, a reduction) has one memory request in flight;
    unrolled, the N loads of a trip are independent and ptxas issues them
    before their first use. Loops with kaio.pipeline_stages are pipelined
    first (kaio-pipeline-copies runs before this pass).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def AssignSharedLayouts : Pass<"kaio-assign-shared-layouts", "::mlir::ModuleOp"> {
  let summary = "choose a swizzle or padding for shared tiles without a layout";
  let description = [{
    A 2-D tile that ldmatrix reads or cp.async fills gets the swizzle
    table's entry for its row width (Kaio/Dialect/PTX/IR/Swizzle.h), which
    makes both conflict-free without padding; rows that are not a power of
    two get 16 bytes of padding instead. Other 2-D tiles of 4-byte elements
    get one element of padding, the classic fix for column reads. Tiles that
    flow together (scf.for iter_args, scf.if results, arith.select) get one
    layout. 1-D arrays and tiles with an explicit layout are left alone.
  }];
  let dependentDialects = ["::kaio::KaioDialect"];
}

def GroupAsyncCopies : Pass<"kaio-group-async-copies", "::mlir::ModuleOp"> {
  let summary = "turn async-copy tokens into cp.async commit-group counts";
  let description = [{
    Every `kaio.async_copy` forms one commit group. A `kaio.async_wait` on a
    token may leave the groups issued after the token's copy in flight: this
    pass counts them (copies later in the same block before the wait, and
    for a loop-carried token those after its copy in the previous iteration
    or before the loop, whichever is fewer; for a loop's token result those
    after the copy its last iteration yields, or its init when it runs
    none, again the fewer, plus those after the loop) and records the count as
    `pending`, which becomes `cp.async.wait_group N`. A written `pending` is
    kept when provably safe, else replaced with a warning; when a copy in a
    nested region could intervene the count is 0 (wait for everything), with
    a remark.
  }];
}

def LowerTiles : Pass<"kaio-lower-tiles", "::mlir::ModuleOp"> {
  let summary = "lower tile ops to per-warp and per-thread ops";
  let description = [{
    async_copy becomes each thread's cp.async chunks, unrolled for the
    kernel's block size: full chunks for a tile inside the matrix, zero fill
    at the edge (and a synchronous path when the source is not aligned);
    load_fragment becomes ldmatrix (x4, and x4.trans pairs for B tiles);
    mma becomes mma.sync, one per atom of a fragment tile; fragments become
    the registers the PTX fragment layouts give each lane; frag_map is
    applied per element; store_fragment becomes vector stores of row
    neighbours inside the matrix and masked per-element stores at the edge.
    On sm_90a: warpgroup_mma becomes wgmma.mma_async through shared memory
    descriptors (one per 16 of K, one commit group), warpgroup_wait
    wgmma.wait_group, mbarrier_wait a try_wait.parity loop.
  }];
  let dependentDialects = ["::kaio::ptx::PTXDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def RematerializeOffsets : Pass<"kaio-rematerialize-offsets", "::mlir::ModuleOp"> {
  let summary = "recompute loop-invariant `x ^ c` / `x + c` next to their uses in loops";
  let description = [{
    LICM hoists every loop-invariant value out of a loop, including
    addresses that differ from one another by a constant: the ldmatrix
    addresses of one shared tile at k = 0, 16, 32, ... (kaio-lower-tiles
    writes them as one address XOR a constant). Hoisted, each takes a
    register for the whole loop; a kernel that reads a few tiles at eight
    k steps loses dozens of registers to them, and ptxas spills. This pass
    moves such an op back into the loop, before each use there, when its
    other operand is live in the loop anyway (used there by another op): a
    register for the whole loop becomes one integer op per use per
    iteration (none for `x + c`, which ptx-fold-address-offsets folds into
    the load's immediate). Run after loop-invariant-code-motion, and CSE
    after it (the copies in one block merge).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def OrderByDataflow : Pass<"kaio-order-by-dataflow", "::mlir::ModuleOp"> {
  let summary = "reorder effect-free ops into an order fixed by the dataflow";
  let description = [{
    Reorders every block (but the module's own) so that the order depends
    only on the dataflow and on the order of the ops that may write memory,
    have regions or end the block, which keep theirs. Reads (ops whose only
    effect is reading) stay between the same two such ops. An effect-free
    op computed from a read's or a kept op's result comes as soon as its
    inputs exist (an mma right after its fragment loads), but never above a
    kept op it was written after (which may be what makes its input valid:
    wgmma.wait_group); one computed only from block arguments, outside
    values and constants comes right before the first op that needs it.
    Reads and the ops computed from them go by level (a read at the depth
    of its first use, an op at the latest level of its reads), then by a
    depth-first walk from the kept ops, operands left to right: a GEMM's
    loads and fmas k step by k step. Two modules that differ only in the
    order of their effect-free ops and of reads between the same writes
    come out the same (ops nothing uses keep their order: the C++ builder
    erases them first). The builder runs it when a module is finished: C++
    leaves the operands of `a + b` unsequenced, and without it gcc and clang
    builds of one generator wrote different IR (and ptxas different
    register counts).
  }];
}

#endif // KAIO_DIALECT_KAIO_TRANSFORMS_PASSES_TD
