//===- Passes.td - kaio dialect transforms -----------------*- tablegen -*-===//

#ifndef KAIO_DIALECT_KAIO_TRANSFORMS_PASSES_TD
#define KAIO_DIALECT_KAIO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AssignSharedLayouts : Pass<"kaio-assign-shared-layouts", "::mlir::ModuleOp"> {
  let summary = "choose padding or swizzling for shared tiles without a layout";
  let description = [{
    A 2-D tile that mma fragments are loaded from gets 16 bytes of padding
    per row, so the eight row addresses of an ldmatrix hit eight different
    bank groups; so does a tile written by `kaio.async_copy`, whose 16-byte
    cp.async chunks must stay aligned. Other 2-D tiles of 4-byte elements get
    one element of padding, the classic fix for column reads.
    1-D arrays and tiles with an explicit layout are left alone.
  }];
  let dependentDialects = ["::kaio::KaioDialect"];
}

def GroupAsyncCopies : Pass<"kaio-group-async-copies", "::mlir::ModuleOp"> {
  let summary = "turn async-copy tokens into cp.async commit-group counts";
  let description = [{
    Every `kaio.async_copy` forms one commit group. A `kaio.async_wait` on a
    token may leave the groups issued after the token's copy in flight: this
    pass counts them (copies later in the same block before the wait) and
    records the count as `pending`, which becomes `cp.async.wait_group N`.
    When a copy in a nested region could intervene the count is 0 (wait for
    everything), which is always correct.
  }];
}

def LowerTiles : Pass<"kaio-lower-tiles", "::mlir::ModuleOp"> {
  let summary = "lower tile ops to per-warp and per-thread ops";
  let description = [{
    async_copy becomes each thread's cp.async chunks with zero fill at the
    matrix edge (and a synchronous path when the source is not aligned);
    load_fragment becomes ldmatrix; mma becomes mma.sync; fragments become the
    registers the PTX fragment layouts give each lane; frag_map is applied
    per element; store_fragment becomes masked per-element stores.
  }];
  let dependentDialects = ["::kaio::ptx::PTXDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // KAIO_DIALECT_KAIO_TRANSFORMS_PASSES_TD
