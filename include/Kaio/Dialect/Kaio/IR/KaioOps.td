//===- KaioOps.td - kaio dialect operations ----------------*- tablegen -*-===//

#ifndef KAIO_DIALECT_KAIO_IR_KAIOOPS_TD
#define KAIO_DIALECT_KAIO_IR_KAIOOPS_TD

include "Kaio/Dialect/Kaio/IR/KaioBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

class Kaio_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kaio_Dialect, mnemonic, traits>;

def Kaio_Scalar : AnyTypeOf<[I8, I16, I32, I64, F16, BF16, F32, F64],
                            "scalar">;
defvar Kaio_LoadStoreValue = Kaio_Scalar;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Kaio_KernelOp : Kaio_Op<"kernel", [
    IsolatedFromAbove, FunctionOpInterface, AutomaticAllocationScope]> {
  let summary = "a GPU kernel";
  let description = [{
    ```mlir
    kaio.kernel @vector_add(%a: !kaio.ptr<f32> {kaio.readonly},
                            %b: !kaio.ptr<f32> {kaio.readonly},
                            %c: !kaio.ptr<f32>, %n: i32)
        attributes {block_size = array<i32: 256>} { ... kaio.return }
    ```
    Parameters are global pointers and scalars; `kaio.readonly` pointers are
    read through the non-coherent cache. `block_size` (1-3 dims) becomes
    `.maxntid` (a launch may use fewer threads); `max_registers` → `.maxnreg`; `min_blocks_per_sm` →
    `.minnctapersm`; `cluster_size` (1-3 dims, at most 16 blocks, sm_90) →
    `.reqnctapercluster`: the kernel runs in thread block clusters of that
    shape (`kaio.cluster_barrier`, `kaio.block_rank`, multicast TMA).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       DenseI32ArrayAttr:$block_size,
                       OptionalAttr<I32Attr>:$max_registers,
                       OptionalAttr<I32Attr>:$min_blocks_per_sm,
                       OptionalAttr<DenseI32ArrayAttr>:$cluster_size);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// Threads per block.
    int64_t getNumThreads();
  }];
}

def Kaio_ReturnOp : Kaio_Op<"return", [Terminator, ReturnLike, Pure]> {
  let summary = "end of a kernel";
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// SIMT: ids
//===----------------------------------------------------------------------===//

class Kaio_IdOp<string mnemonic, string what>
    : Kaio_Op<mnemonic, [Pure]> {
  let summary = what # " in dimension x, y or z";
  let arguments = (ins Kaio_Dim:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict `:` type($result)";
}
def Kaio_ThreadIdOp : Kaio_IdOp<"thread_id", "thread index in the block">;
def Kaio_BlockIdOp : Kaio_IdOp<"block_id", "block index in the grid">;
def Kaio_BlockDimOp : Kaio_IdOp<"block_dim", "threads per block">;
def Kaio_GridDimOp : Kaio_IdOp<"grid_dim", "blocks per grid">;
def Kaio_ClusterIdOp : Kaio_IdOp<"cluster_id",
                                 "thread block cluster index in the grid">;
def Kaio_ClusterGridDimOp : Kaio_IdOp<"cluster_grid_dim", "clusters per grid">;

def Kaio_BlockRankOp : Kaio_Op<"block_rank", [Pure]> {
  let summary = "the block's rank in its thread block cluster";
  let description = [{
    `%r = kaio.block_rank : i32`: 0 .. (blocks per cluster - 1), x fastest
    (`%cluster_ctarank`); 0 in a block launched without a cluster.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Kaio_LaneIdOp : Kaio_Op<"lane_id", [Pure]> {
  let summary = "lane of the thread in its warp (0-31)";
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Kaio_WarpIdOp : Kaio_Op<"warp_id", [Pure]> {
  let summary = "warp of the thread in its block (linear thread id / 32)";
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// SIMT: global memory
//===----------------------------------------------------------------------===//

def Kaio_PtrAddOp : Kaio_Op<"ptr_add", [Pure, AllTypesMatch<["base", "result"]>]> {
  let summary = "pointer plus an element offset";
  let arguments = (ins Kaio_PtrType:$base, Kaio_AnyIndex:$offset);
  let results = (outs Kaio_PtrType:$result);
  let assemblyFormat = "$base `,` $offset attr-dict `:` type($base) `,` type($offset)";
}

def Kaio_PtrToIntOp : Kaio_Op<"ptr_to_int", [Pure]> {
  let summary = "the 64-bit global address a pointer holds";
  let arguments = (ins Kaio_PtrType:$ptr);
  let results = (outs I64:$result);
  let assemblyFormat = "$ptr attr-dict `:` type($ptr)";
}

def Kaio_LoadOp : Kaio_Op<"load", [AttrSizedOperandSegments]> {
  let summary = "load element(s) at pointer[index], optionally masked";
  let description = [{
    `%x = kaio.load %p[%i] : !kaio.ptr<f32>, i32 -> f32`. With
    `... -> f32 mask %m else %other`, threads whose mask is false read
    nothing and yield `%other`.
  }];
  let arguments = (ins Arg<Kaio_PtrType, "the buffer", [MemRead]>:$ptr,
                       Kaio_AnyIndex:$index, Optional<I1>:$mask,
                       Optional<Kaio_LoadStoreValue>:$other);
  let results = (outs Kaio_LoadStoreValue:$result);
  let assemblyFormat = [{
    $ptr `[` $index `]` attr-dict `:` type($ptr) `,` type($index) `->`
    type($result) custom<MaskElse>($mask, $other, ref(type($result)),
                                   type($other))
  }];
  let hasVerifier = 1;
}

def Kaio_StoreOp : Kaio_Op<"store"> {
  let summary = "store element(s) at pointer[index], optionally masked";
  let arguments = (ins Kaio_LoadStoreValue:$value, Kaio_PtrType:$ptr,
                       Kaio_AnyIndex:$index, Optional<I1>:$mask);
  let assemblyFormat = [{
    $value `,` $ptr `[` $index `]` (`mask` $mask^)? attr-dict `:`
    type($value) `,` type($ptr) `,` type($index)
  }];
  let hasVerifier = 1;
}

def Kaio_LoadVectorOp : Kaio_Op<"load_vector", [AttrSizedOperandSegments]> {
  let summary = "load 2 or 4 consecutive elements (8 of 16 bits) at once (ld.v2 / ld.v4)";
  let description = [{
    `%a, %b, %c, %d = kaio.load_vector %p[%i] : !kaio.ptr<f32>, i32 -> f32,
    f32, f32, f32` loads elements i .. i+3 with one 16-byte access. The
    address must be aligned to the access size (the interpreter's sanitizer
    reports it when it is not). With `mask %m else %other`, threads whose
    mask is false read nothing and get `%other` in every result.
  }];
  let arguments = (ins Arg<Kaio_PtrType, "the buffer", [MemRead]>:$ptr,
                       Kaio_AnyIndex:$index, Optional<I1>:$mask,
                       Optional<Kaio_Scalar>:$other);
  let results = (outs Variadic<Kaio_Scalar>:$results);
  let assemblyFormat = [{
    $ptr `[` $index `]` attr-dict `:` type($ptr) `,` type($index) `->`
    type($results) custom<MaskElseVector>($mask, $other, ref(type($results)),
                                          type($other))
  }];
  let hasVerifier = 1;
}

def Kaio_StoreVectorOp : Kaio_Op<"store_vector", [AttrSizedOperandSegments]> {
  let summary = "store 2 or 4 consecutive elements (8 of 16 bits) at once (st.v2 / st.v4)";
  let arguments = (ins Variadic<Kaio_Scalar>:$values, Kaio_PtrType:$ptr,
                       Kaio_AnyIndex:$index, Optional<I1>:$mask);
  let assemblyFormat = [{
    $values `to` $ptr `[` $index `]` (`mask` $mask^)? attr-dict `:`
    `(` type($values) `)` `,` type($ptr) `,` type($index)
  }];
  let hasVerifier = 1;
}

def Kaio_AtomicOp : Kaio_Op<"atomic", [AllTypesMatch<["value", "result"]>]> {
  let summary = "atomic read-modify-write at pointer[index]; yields the old value";
  let arguments = (ins Kaio_AtomicKind:$kind, Kaio_PtrType:$ptr,
                       Kaio_AnyIndex:$index, Kaio_Scalar:$value);
  let results = (outs Kaio_Scalar:$result);
  let assemblyFormat = [{
    $kind $ptr `[` $index `]` `,` $value attr-dict `:` type($ptr) `,`
    type($index) `,` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// SIMT: shared memory and synchronisation
//===----------------------------------------------------------------------===//

def Kaio_SharedAllocOp : Kaio_Op<"shared_alloc"> {
  let summary = "a statically sized array or tile in shared memory";
  let results = (outs Kaio_SmemType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Kaio_SharedLoadOp : Kaio_Op<"shared_load"> {
  let summary = "load an element of a shared tile";
  let arguments = (ins Arg<Kaio_SmemType, "the tile", [MemRead]>:$tile,
                       Variadic<I32>:$indices);
  let results = (outs Kaio_Scalar:$result);
  let assemblyFormat = [{
    $tile `[` $indices `]` attr-dict `:` type($tile) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kaio_SharedLoadVectorOp : Kaio_Op<"shared_load_vector"> {
  let summary = "load 2, 4 (or 8 16-bit) consecutive elements of a shared "
                "tile row at once (ld.shared.v2 / .v4)";
  let description = [{
    `%a, %b, %c, %d = kaio.shared_load_vector %t[%r, %c] : !kaio.smem<1x1028xf32>
    -> f32, f32, f32, f32` reads elements (r, c) .. (r, c + 3) with one
    access of up to 16 bytes: e.g. a thread's own 16-byte chunk of a row that
    a kaio.async_copy brought in, without the 4-way bank conflicts of four
    scalar loads at a 16-byte lane stride. The elements must be consecutive
    in the tile's row (row-major layouts: swizzles move whole 16-byte
    chunks, padding ends rows) and the first one aligned to the access size
    (the interpreter's sanitizer reports it when it is not).
  }];
  let arguments = (ins Arg<Kaio_SmemType, "the tile", [MemRead]>:$tile,
                       Variadic<I32>:$indices);
  let results = (outs Variadic<Kaio_Scalar>:$results);
  let assemblyFormat = [{
    $tile `[` $indices `]` attr-dict `:` type($tile) `->` type($results)
  }];
  let hasVerifier = 1;
}

def Kaio_SharedStoreOp : Kaio_Op<"shared_store"> {
  let summary = "store an element of a shared tile";
  let arguments = (ins Kaio_Scalar:$value, Kaio_SmemType:$tile,
                       Variadic<I32>:$indices);
  let assemblyFormat = [{
    $value `,` $tile `[` $indices `]` attr-dict `:` type($value) `,`
    type($tile)
  }];
  let hasVerifier = 1;
}

def Kaio_SharedStoreVectorOp : Kaio_Op<"shared_store_vector",
                                       [AttrSizedOperandSegments]> {
  let summary = "store 2, 4 (or 8 16-bit) consecutive elements of a shared "
                "tile row at once (st.shared.v2 / .v4)";
  let description = [{
    `kaio.shared_store_vector %a, %b, %c, %d to %t[%r, %c] : (f32, f32, f32,
    f32), !kaio.smem<16x128xf32>` writes elements (r, c) .. (r, c + 3) with
    one access of up to 16 bytes: e.g. a thread's 4 consecutive results
    staged in a row that the warp then reads across, one element a lane
    (an epilogue whose global stores would otherwise be 4 bytes a lane 16
    bytes apart), without the conflicts of four scalar stores at a 16-byte
    lane stride. The rules of kaio.shared_load_vector hold: consecutive
    elements of a row-major row, the first aligned to the access.
  }];
  let arguments = (ins Variadic<Kaio_Scalar>:$values, Kaio_SmemType:$tile,
                       Variadic<I32>:$indices);
  let assemblyFormat = [{
    $values `to` $tile `[` $indices `]` attr-dict `:` `(` type($values) `)`
    `,` type($tile)
  }];
  let hasVerifier = 1;
}

def Kaio_TileOffsetOp : Kaio_Op<"tile_offset", [Pure]> {
  let summary = "byte offset of a tile element under a tile type's layout";
  let description = [{
    `kaio.tile_offset [%r, %c] : !kaio.smem<128x32xf16, #kaio.layout<...>>`
    is the byte offset of element (r, c) from the start of any tile of that
    type (padding or swizzle applied). It depends on the indices only, so it
    leaves loops that rotate tiles: kaio-lower-tiles addresses ldmatrix rows
    and copy chunks as `shared_address %tile[0, 0]` plus it.
  }];
  let arguments = (ins TypeAttrOf<Kaio_SmemType>:$tile_type,
                       Variadic<I32>:$indices);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    ` ` `[` $indices `]` attr-dict `:` $tile_type
  }];
  let hasVerifier = 1;
}

def Kaio_SharedAddressOp : Kaio_Op<"shared_address", [Pure]> {
  let summary = "address of a tile element in the shared window (for ptx ops)";
  let description = [{
    The 32-bit shared-memory address of element `[indices]` with the tile's
    layout applied: what ldmatrix and cp.async take.
  }];
  let arguments = (ins Kaio_SmemType:$tile, Variadic<I32>:$indices);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    $tile `[` $indices `]` attr-dict `:` type($tile)
  }];
  let hasVerifier = 1;
}

def Kaio_BarrierOp : Kaio_Op<"barrier"> {
  let summary = "block-wide barrier, or a named barrier of some warps";
  let description = [{
    `kaio.barrier` synchronises the whole block: every thread must reach it
    (the kernel verifier rejects it under thread-dependent control flow).
    `kaio.barrier id 1, threads 256` is named barrier 1 (of 1..15; 0 is the block's)
    among 256 threads, whole warps: e.g. the two consumer warpgroups of a
    warp-specialised kernel before their epilogue, while the producer
    warpgroup goes on. Exactly that many threads must reach it, so it may
    sit under thread-dependent control flow.
  }];
  let arguments = (ins OptionalAttr<I32Attr>:$id, OptionalAttr<I32Attr>:$threads);
  // Keyword-led: a bare `loc(...)` after the op would parse as an id.
  let assemblyFormat = "(`id` $id^ `,` `threads` $threads)? attr-dict";
  let hasVerifier = 1;
}

def Kaio_ShuffleOp : Kaio_Op<"shuffle", [AllTypesMatch<["value", "result"]>]> {
  let summary = "exchange a value between lanes of a warp";
  let description = [{
    `%y = kaio.shuffle down %x, %delta : f32` reads `%x` of lane
    `lane + delta`; lanes with no source keep their own value. `xor` swaps
    with `lane ^ delta`, `idx` reads lane `delta`. `width` (a power of two up
    to 32) splits the warp into independent segments.
  }];
  let arguments = (ins Kaio_ShuffleMode:$mode,
                       AnyTypeOf<[I32, F32]>:$value, I32:$offset,
                       DefaultValuedAttr<I32Attr, "32">:$width);
  let results = (outs AnyTypeOf<[I32, F32]>:$result);
  let assemblyFormat = "$mode $value `,` $offset attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Kaio_WarpReduceOp : Kaio_Op<"warp_reduce", [AllTypesMatch<["value", "result"]>]> {
  let summary = "reduce a value across the 32 lanes of a warp; every lane "
                "gets the result";
  let arguments = (ins Kaio_ReduceKind:$kind,
                       AnyTypeOf<[I32, F32, F16]>:$value);
  let results = (outs AnyTypeOf<[I32, F32, F16]>:$result);
  let assemblyFormat = "$kind $value attr-dict `:` type($value)";
}

def Kaio_BlockReduceOp : Kaio_Op<"block_reduce", [AllTypesMatch<["value", "result"]>]> {
  let summary = "reduce a value across the block; every thread gets the "
                "result (synchronises the block)";
  let arguments = (ins Kaio_ReduceKind:$kind,
                       AnyTypeOf<[I32, F32, F16]>:$value);
  let results = (outs AnyTypeOf<[I32, F32, F16]>:$result);
  let assemblyFormat = "$kind $value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// Tiles, async copies and mma fragments
//===----------------------------------------------------------------------===//

def Kaio_AsyncCopyOp : Kaio_Op<"async_copy"> {
  let summary = "copy a global tile into a shared tile asynchronously";
  let description = [{
    The block copies the `R x C` tile of the row-major global matrix at
    `%src` (leading dimension `%ld` elements) whose top-left element is
    (`%row`, `%col`) into `%dst` (R x C). Elements outside the matrix
    (`%rows` x `%cols`) are zero filled. Lowers to cp.async with src-size;
    the copy is complete once `kaio.async_wait` on its token returns.
    With `rows [F, N]` it fills rows F .. F + N - 1 of `%dst` only (R = N):
    a tile gathered from several sources, e.g. 16-key pages of a paged KV
    cache.

    The block's threads share the chunks (16 bytes where rows allow): the
    copy is unrolled for the kernel's `block_size`, which the kernel then
    requires exactly (`.reqntid`). Unless `aligned` is given, a run-time test
    picks cp.async when `%src`, `%ld` and `%col` keep every row chunk
    aligned, and element-wise loads otherwise; `aligned` promises they do
    (cudaMalloc'd matrices whose leading dimension and column offset are
    multiples of 16 bytes / element size), leaving only the cp.async path.
  }];
  let arguments = (ins Kaio_PtrType:$src, I32:$row, I32:$col, I32:$rows,
                       I32:$cols, I32:$ld, Kaio_SmemType:$dst,
                       OptionalAttr<DenseI64ArrayAttr>:$dst_rows,
                       UnitAttr:$aligned);
  let results = (outs Kaio_TokenType:$token);
  let assemblyFormat = [{
    $src `[` $row `,` $col `]` `bounds` ` ` `[` $rows `,` $cols `]` `ld` $ld
    `to` $dst (`rows` $dst_rows^)? (`aligned` $aligned^)? attr-dict `:`
    type($src) `,` type($dst)
  }];
  let extraClassDeclaration = [{
    /// The first tile row the copy fills and how many (the whole tile
    /// without `rows`).
    std::pair<int64_t, int64_t> getDstRowRange() {
      if (std::optional<llvm::ArrayRef<int64_t>> r = getDstRows())
        return {(*r)[0], (*r)[1]};
      return {0, getDst().getType().getShape()[0]};
    }
  }];
  let hasVerifier = 1;
}

def Kaio_AsyncWaitOp : Kaio_Op<"async_wait"> {
  let summary = "wait until the copies behind these tokens have landed";
  let description = [{
    Copies issued after the tokens' copies may stay in flight: the grouping
    pass turns this into `cp.async.wait_group N` with N the number of newer
    groups. A barrier is still needed before other threads read the tile.
  }];
  let arguments = (ins Variadic<Kaio_TokenType>:$tokens,
                       OptionalAttr<I32Attr>:$pending);
  let assemblyFormat = "$tokens attr-dict";
}

def Kaio_FragFillOp : Kaio_Op<"frag_fill", [Pure]> {
  let summary = "a fragment with every element set to a scalar";
  let arguments = (ins Kaio_Scalar:$value);
  let results = (outs Kaio_FragType:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

def Kaio_LoadFragmentOp : Kaio_Op<"load_fragment"> {
  let summary = "load an mma operand fragment from a shared tile (ldmatrix)";
  let description = [{
    Loads the `16 x K` (A) or `K x 8` (B) block at (`%row`, `%col`) of the
    tile. A must come from a row-major tile; B from a row-major tile ([k][n],
    loaded transposed) or a column-major one.

    With `transpose`, the row-major tile holds the operand's transpose and
    (`%row`, `%col`) is the tile element where the fragment starts:
    - B^T ([n][k]; keys by head dimension in attention's S = Q K^T, or a
      column-major B of a GEMM): element (n, k); a tile of B atoms covers 8
      tile rows per atom column and K tile columns per atom row;
    - A^T ([k][m]; a column-major A of a GEMM): element (k, m); a tile of A
      atoms covers K tile rows per atom column and 16 tile columns per atom
      row. 16-bit fragments load with ldmatrix .trans.
  }];
  let arguments = (ins Arg<Kaio_SmemType, "the tile", [MemRead]>:$tile,
                       I32:$row, I32:$col, UnitAttr:$transpose);
  let results = (outs Kaio_FragType:$result);
  let assemblyFormat = [{
    $tile `[` $row `,` $col `]` (`transpose` $transpose^)? attr-dict `:`
    type($tile) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kaio_MmaOp : Kaio_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "D = A * B + C on fragments (mma.sync)";
  let arguments = (ins Kaio_FragType:$a, Kaio_FragType:$b,
                       Kaio_FragType:$acc);
  let results = (outs Kaio_FragType:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Kaio_FragMapOp : Kaio_Op<"frag_map", [SingleBlock,
    ]> {
  let summary = "element-wise function over a fragment (fused epilogues)";
  let description = [{
    The region maps one element (and the extra operands) to the new
    element; its type may differ (conversion).

    ```mlir
    %r = kaio.frag_map %acc, %alpha : !kaio.frag<acc, m16n8k16, f32>, f32
        -> !kaio.frag<acc, m16n8k16, f32> {
    ^bb0(%x: f32, %s: f32):
      %y = arith.mulf %x, %s : f32
      kaio.yield %y : f32
    }
    ```

    An extra operand is a scalar (the same for every element) or a
    fragment: one of the input's type and tile (its element at the same
    place), or, for an `R x C` accumulator tile, an `R x 1` accumulator tile
    of the same mma shape (row broadcast: its element in the same row, as
    `kaio.frag_reduce_rows` leaves them). The body takes the fragments'
    element types. With `indexed`, the body also takes the element's row and
    column in the tile (i32) right after the element: masks (causal
    attention, ragged edges) are element-wise functions of them.
  }];
  let arguments = (ins Kaio_FragType:$input, Variadic<AnyType>:$extras,
                       UnitAttr:$indexed);
  let results = (outs Kaio_FragType:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $input (`,` $extras^)? (`indexed` $indexed^)? attr-dict `:` type($input)
    (`,` type($extras)^)? `->` type($result) $body
  }];
  let hasVerifier = 1;
}

def Kaio_FragReduceRowsOp : Kaio_Op<"frag_reduce_rows", [Pure]> {
  let summary = "reduce each row of an accumulator tile across its columns";
  let description = [{
    `%m = kaio.frag_reduce_rows max %s : !kaio.frag<acc, m16n8k16, f32, 2x8>
    -> !kaio.frag<acc, m16n8k16, f32, 2x1>`: every element of row r of the
    result holds the reduction (`sum` or `max`; `max` propagates NaN) of row
    r of the input's whole tile, in every lane that holds part of the row.
    The lanes sharing a row exchange their partial results with shuffles;
    a `kaio.frag_map` takes the result as a row broadcast (online softmax:
    subtract the row maximum, rescale by the row sum).
  }];
  let arguments = (ins Kaio_ReduceKind:$kind, Kaio_FragType:$input);
  let results = (outs Kaio_FragType:$result);
  let assemblyFormat = [{
    $kind $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kaio_FragSliceOp : Kaio_Op<"frag_slice", [Pure]> {
  let summary = "a static sub-tile of a fragment tile";
  let description = [{
    `kaio.frag_slice %t [0, 2] : !kaio.frag<a, m16n8k16, f16, 1x4> ->
    !kaio.frag<a, m16n8k16, f16, 1x1>`: the atoms starting at atom (0, 2),
    as many as the result's tile holds. Only a renaming of registers.
  }];
  let arguments = (ins Kaio_FragType:$input, DenseI64ArrayAttr:$offsets);
  let results = (outs Kaio_FragType:$result);
  let assemblyFormat = [{
    $input `` $offsets attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Kaio_FragToOperandOp : Kaio_Op<"frag_to_operand", [Pure]> {
  let summary = "an accumulator tile as the A operand of the next mma";
  let description = [{
    Re-uses the accumulator of one mma as the A operand of another without
    going through shared memory (FlashAttention's P V after S = Q K^T): the
    accumulator's elements convert to the operand's element type (f16 or
    bf16, round to nearest) and move to the A fragment registers that hold
    the same matrix element, which the fragment layouts of the mma shapes
    put in the same lane. An `R x C` accumulator tile of m16n8k16 becomes an
    `R x C/2` A tile (two n8 accumulator atoms make one k16 A atom).
  }];
  let arguments = (ins Kaio_FragType:$input);
  let results = (outs Kaio_FragType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Kaio_YieldOp : Kaio_Op<"yield", [Terminator, Pure,
                                     HasParent<"FragMapOp">]> {
  let summary = "result of a frag_map element function";
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def Kaio_StoreFragmentOp : Kaio_Op<"store_fragment"> {
  let summary = "store an accumulator fragment to a global matrix, masked";
  let description = [{
    Stores the accumulator block (one atom or a tile of them) at (`%row`,
    `%col`) of the row-major matrix at `%dst` (leading dimension `%ld`,
    bounds `%rows` x `%cols`). Elements are converted to the pointer's
    element type. With `beta %b` (f32) the store accumulates:
    dst = frag + b * dst, computed in f32 (GEMM's beta * C; an alpha is a
    frag_map before the store).
  }];
  let arguments = (ins Kaio_FragType:$frag, Kaio_PtrType:$dst, I32:$row,
                       I32:$col, I32:$rows, I32:$cols, I32:$ld,
                       Optional<F32>:$beta);
  let assemblyFormat = [{
    $frag `,` $dst `[` $row `,` $col `]` `bounds` ` ` `[` $rows `,` $cols `]`
    `ld` $ld (`beta` $beta^)? attr-dict `:` type($frag) `,` type($dst)
  }];
  let hasVerifier = 1;
}

include "Kaio/Dialect/Kaio/IR/KaioHopperOps.td"

#endif // KAIO_DIALECT_KAIO_IR_KAIOOPS_TD
