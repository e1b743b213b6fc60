//===- KaioHopperOps.td - TMA, mbarriers, warpgroup MMA ----*- tablegen -*-===//
//
// The sm_90a tile ops: tensor-map (TMA) tile copies completing on
// mbarriers, mbarrier rings for producer/consumer pipelines, warpgroup MMA
// (wgmma) on swizzled shared tiles, and register reallocation for warp
// specialisation. Included by KaioOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_KAIO_IR_KAIOHOPPEROPS_TD
#define KAIO_DIALECT_KAIO_IR_KAIOHOPPEROPS_TD

def Kaio_RegisterAction : Kaio_I32Enum<"RegisterAction",
    "setmaxnreg direction", [
  I32EnumAttrCase<"inc", 0>, I32EnumAttrCase<"dec", 1>]>;

def Kaio_MBarrierInitOp : Kaio_Op<"mbarrier_init"> {
  let summary = "initialise one mbarrier of a shared array of them";
  let description = [{
    `kaio.mbarrier_init %bars[%i], %count : !kaio.smem<8xi64>` makes
    barrier `i` expect `count` arrivals per phase, in phase 0. The calling
    thread initialises it (guard it to one thread) and a `kaio.barrier`
    must follow before other threads use it. The array is a 1-D tile of
    i64, one barrier per element.
  }];
  let arguments = (ins Kaio_SmemType:$bars, I32:$index, I32:$count);
  let assemblyFormat = [{
    $bars `[` $index `]` `,` $count attr-dict `:` type($bars)
  }];
  let hasVerifier = 1;
}

def Kaio_MBarrierArriveOp : Kaio_Op<"mbarrier_arrive",
    [AttrSizedOperandSegments]> {
  let summary = "arrive on an mbarrier (each calling thread arrives once)";
  let description = [{
    With `expect_tx %bytes` the arrival also raises the transaction bytes
    the current phase waits for: the bytes of the `kaio.tma_load`s that
    complete on the barrier (`!kaio.tensor_map` box bytes each). A phase
    completes when all arrivals and all expected bytes are in.

    With `on_block %rank` the arrival goes to the same barrier of block
    `rank` of the thread block cluster, with the default `.release.cta`
    semantics: how a consumer frees a stage that another block multicasts
    into (it publishes that this block is done reading the stage, not this
    thread's own writes to other blocks).
  }];
  let arguments = (ins Kaio_SmemType:$bars, I32:$index,
                       Optional<I32>:$tx_bytes, Optional<I32>:$block);
  let assemblyFormat = [{
    $bars `[` $index `]` (`expect_tx` $tx_bytes^)? (`on_block` $block^)?
    attr-dict `:` type($bars)
  }];
  let hasVerifier = 1;
}

def Kaio_MBarrierWaitOp : Kaio_Op<"mbarrier_wait"> {
  let summary = "wait until the mbarrier phase of this parity has completed";
  let description = [{
    `kaio.mbarrier_wait %bars[%i], %parity` returns once the phase whose
    parity (0 or 1, i32) is `%parity` has completed: phase n has parity
    n % 2, so a ring of stages flips its parity each time it wraps. Shared
    memory a `kaio.tma_load` wrote is visible to the waiting threads.
  }];
  let arguments = (ins Kaio_SmemType:$bars, I32:$index, I32:$parity);
  let assemblyFormat = [{
    $bars `[` $index `]` `,` $parity attr-dict `:` type($bars)
  }];
  let hasVerifier = 1;
}

def Kaio_TmaLoadOp : Kaio_Op<"tma_load", [AttrSizedOperandSegments]> {
  let summary = "copy a tensor-map box into a shared tile (TMA), completing "
                "on an mbarrier";
  let description = [{
    ```mlir
    kaio.tma_load %map[%row0, %k0] to %tile[%r], %bars[%s]
        : !kaio.tensor_map<128x64xf16, swizzle = 128>,
          !kaio.smem<512x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>,
          !kaio.smem<8xi64>
    ```
    The calling thread (guard it to one) copies the box of the map whose
    first element is at the coordinates (outermost first) into rows `%r`..
    of the tile: the box's rows, flattened, land one after another, so the
    box's inner dimension must be the tile's row. Elements outside the
    tensor read as zero. The bytes complete on barrier `%s`, which must
    expect them (`kaio.mbarrier_arrive ... expect_tx`); read the tile only
    after `kaio.mbarrier_wait` on that barrier's phase.

    The tile must be laid out as the map swizzles it: no padding, and the
    128/64/32-byte maps need `swizzle = <3|2|1, 4, 3>` with rows of exactly
    that many bytes.

    `multicast %mask` (a kernel with `cluster_size`, sm_90a): the box lands
    in the same rows of the tile, and completes on the same barrier, in
    every block of the cluster whose rank's bit is set in the i32 mask; each
    of them must expect its bytes.
  }];
  let arguments = (ins Kaio_TensorMapType:$map, Variadic<I32>:$coords,
                       Kaio_SmemType:$dst, I32:$row, Kaio_SmemType:$bars,
                       I32:$index, Optional<I32>:$multicast);
  let assemblyFormat = [{
    $map `[` $coords `]` `to` $dst `[` $row `]` `,` $bars `[` $index `]`
    (`multicast` $multicast^)?
    attr-dict `:` type($map) `,` type($dst) `,` type($bars)
  }];
  let hasVerifier = 1;
}

def Kaio_TmaStoreOp : Kaio_Op<"tma_store"> {
  let summary = "copy rows of a shared tile to a tensor-map box (TMA store)";
  let description = [{
    ```mlir
    kaio.tma_store %tile[%r] to %map[%row0, %col0]
        : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>,
          !kaio.tensor_map<64x64xf16, swizzle = 128>
    ```
    The calling thread (guard it to one) copies the tile rows `%r`.., laid
    out as the map swizzles them, into the box of the map whose first
    element is at the coordinates (outermost first); elements outside the
    tensor are not written. The copy is one bulk async-group: the tile may
    be written again after `kaio.tma_store_wait`. The threads that wrote
    the tile must make their writes visible to TMA first
    (`kaio.fence_proxy_async`) and then synchronise with the issuing thread
    (`kaio.barrier`, or a named barrier of the writing warps).
  }];
  let arguments = (ins Kaio_SmemType:$src, I32:$row, Kaio_TensorMapType:$map,
                       Variadic<I32>:$coords);
  let assemblyFormat = [{
    $src `[` $row `]` `to` $map `[` $coords `]` attr-dict `:` type($src) `,`
    type($map)
  }];
  let hasVerifier = 1;
}

def Kaio_TmaStoreWaitOp : Kaio_Op<"tma_store_wait"> {
  let summary = "wait until TMA stores have read their shared tiles";
  let description = [{
    `kaio.tma_store_wait pending 0`: the calling thread's TMA stores, but
    the newest `pending` ones, have finished reading shared memory
    (cp.async.bulk.wait_group.read): their tiles may be written again.
  }];
  let arguments = (ins I32Attr:$pending);
  let assemblyFormat = "`pending` $pending attr-dict";
  let hasVerifier = 1;
}

def Kaio_FenceProxyAsyncOp : Kaio_Op<"fence_proxy_async"> {
  let summary = "make this thread's shared-memory writes visible to TMA";
  let description = [{
    fence.proxy.async.shared::cta: orders the thread's earlier shared
    memory accesses (the generic proxy) before later async-proxy ones
    (`kaio.tma_store` reading the tile, after a barrier).
  }];
  let assemblyFormat = "attr-dict";
}

def Kaio_SharedStoreFragmentOp : Kaio_Op<"shared_store_fragment"> {
  let summary = "store an accumulator tile into a shared tile";
  let description = [{
    `kaio.shared_store_fragment %acc, %tile[%r, %c] : !kaio.frag<acc, ...>,
    !kaio.smem<...>` writes the warp's accumulator (one atom or a tile of
    them) at (`%r`, `%c`) of the tile, converted to the tile's element type
    (f32, f16 or bf16; i32 sums of integer mma into an i32 tile as they
    are), with the tile's layout (padding or swizzle): an
    epilogue staged through shared memory, e.g. for `kaio.tma_store` (after
    `kaio.fence_proxy_async` and a barrier).
  }];
  let arguments = (ins Kaio_FragType:$frag, Kaio_SmemType:$tile, I32:$row,
                       I32:$col);
  let assemblyFormat = [{
    $frag `,` $tile `[` $row `,` $col `]` attr-dict `:` type($frag) `,`
    type($tile)
  }];
  let hasVerifier = 1;
}

def Kaio_WarpgroupMmaOp : Kaio_Op<"warpgroup_mma",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "D += A * B on a warpgroup, operands in shared tiles (wgmma)";
  let description = [{
    ```mlir
    %d = kaio.warpgroup_mma %a[%ar], %b[%br], %acc
        : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>,
          !kaio.smem<512x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>,
          !kaio.frag<acc, m16n8k16, f32, 1x16>
    ```
    The 128 threads of a warpgroup (warps 4g..4g+3, all of them executing
    the op) multiply A (64 x K) by B (K x N) and add the product to their
    accumulator (64 x N). Each warp holds 16 rows of it, warp w % 4 rows
    16 (w % 4).., as a 1 x N/8 tile of m16n8 accumulator atoms:
    `kaio.frag_map`, `kaio.frag_reduce_rows` and `kaio.store_fragment` work
    on it as on any accumulator.

    A is the 64 tile rows `%ar`.. of a shared tile (K = the tile's columns),
    or registers: each warp's 16 rows as a `!kaio.frag<a, m16n8k16, f16,
    1xK/16>` (from `kaio.load_fragment` or `kaio.frag_to_operand`, whose
    layout is wgmma's). With `transpose` after it, the tile holds A's
    transpose (M-major, as a column-major M x K matrix is, read with
    wgmma's trans-a): the warpgroup's 64 columns of M in blocks of the
    tile's width W, block j (columns jW..) being the K tile rows
    `%ar + j K`.. (the way TMA boxes of W columns of A^T land). K is then
    the attribute `k` (a multiple of 16), which a transposed B (whose
    columns are K) must agree with.

    B is stored by rows of K (N-major, as a row-major K x N matrix is): in
    blocks of the tile's width W, block j (columns jW..) being the K tile
    rows `%br + j K`.. (the way TMA boxes of W columns land). With
    `transpose` the tile holds B's transpose (K-major: N x K, the keys of
    attention's S = Q K^T): the N tile rows `%br`.., K = the tile's columns.

    The tiles are f16 or bf16, swizzled the way wgmma reads them
    (`swizzle = <3|2|1, 4, 3>` with rows of 128/64/32 bytes), and the
    operand rows start on a multiple of 8 rows. The lowering computes the
    descriptors and issues one wgmma.mma_async per 16 of K as one wgmma
    group: the result is in flight until `kaio.warpgroup_wait`, and reading
    it before then (except as the accumulator of the next warpgroup_mma) is
    an error.
  }];
  let arguments = (ins AnyTypeOf<[Kaio_SmemType, Kaio_FragType]>:$a,
                       Optional<I32>:$a_row, UnitAttr:$transpose_a,
                       Kaio_SmemType:$b, I32:$b_row, UnitAttr:$transpose,
                       Kaio_FragType:$acc, OptionalAttr<I64Attr>:$k);
  let results = (outs Kaio_FragType:$result);
  let assemblyFormat = [{
    $a (`[` $a_row^ `]`)? (`transpose` $transpose_a^)? `,` $b `[` $b_row `]`
    (`transpose` $transpose^)? `,` $acc attr-dict `:` type($a) `,` type($b)
    `,` type($acc)
  }];
  let extraClassDeclaration = [{
    /// The K of the product: A's columns, 16 per register atom, or the `k`
    /// attribute of a transposed A.
    int64_t getKExtent();
  }];
  let hasVerifier = 1;
}

def Kaio_WarpgroupWaitOp : Kaio_Op<"warpgroup_wait",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "wait for warpgroup MMA groups (wgmma.wait_group)";
  let description = [{
    `%r = kaio.warpgroup_wait %d pending 0 : !kaio.frag<...>` waits until
    every warpgroup_mma of this warpgroup has completed and returns its
    accumulators, now readable. `pending N` waits until at most the N
    newest warpgroup_mma are in flight: a pipeline frees the shared stage
    an older one read while the newest still runs, or reads an older
    result (FlashAttention's softmax of S while P V runs) — accumulators
    returned with N > 0 must come from a warpgroup_mma followed by at least
    N others before the wait in the same block, so that their group is
    provably complete.
  }];
  let arguments = (ins Variadic<Kaio_FragType>:$accs, I32Attr:$pending);
  let results = (outs Variadic<Kaio_FragType>:$results);
  let assemblyFormat = [{
    ($accs^)? `pending` $pending attr-dict (`:` type($accs)^)?
  }];
  let hasVerifier = 1;
}

def Kaio_SetMaxNRegOp : Kaio_Op<"setmaxnreg"> {
  let summary = "re-allocate registers between warpgroups (setmaxnreg)";
  let description = [{
    `kaio.setmaxnreg dec 40` gives registers back (a producer that only
    issues TMA), `kaio.setmaxnreg inc 232` takes them (consumers holding
    large accumulators). Every warp of the warpgroup executes it; the
    count is a multiple of 8 in [24, 256].
  }];
  let arguments = (ins Kaio_RegisterAction:$action, I32Attr:$count);
  let assemblyFormat = "$action $count attr-dict";
  let hasVerifier = 1;
}

def Kaio_ClusterBarrierOp : Kaio_Op<"cluster_barrier"> {
  let summary = "wait until every thread of the thread block cluster has "
                "arrived";
  let description = [{
    `kaio.cluster_barrier` (`barrier.cluster.arrive.release` then
    `wait.acquire`): shared memory written before it by any block of the
    cluster, and mbarriers initialised before it, are visible to every
    block after it. Needed after `kaio.mbarrier_init` when other blocks
    multicast into or arrive on the barriers, and before a block exits
    while others may still reach its shared memory. `aligned`: every
    thread of each warp reaches it together (the faster form).
  }];
  let arguments = (ins UnitAttr:$aligned);
  let assemblyFormat = "(`aligned` $aligned^)? attr-dict";
}

#endif // KAIO_DIALECT_KAIO_IR_KAIOHOPPEROPS_TD
