//===- KaioBase.td - kaio dialect, enums, attributes, types -*- tablegen -*-===//
//
// The language KAIO users write kernels in: SIMT ops (ids, loads, stores,
// shared memory, barriers, shuffles, reductions, atomics) and tile ops (shared
// tiles, async copies, mma fragments) next to upstream arith/math/scf.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_KAIO_IR_KAIOBASE_TD
#define KAIO_DIALECT_KAIO_IR_KAIOBASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Kaio_Dialect : Dialect {
  let name = "kaio";
  let cppNamespace = "::kaio";
  let summary = "KAIO's kernel language";
  let description = [{
    Kernels (`kaio.kernel`) take global pointers (`!kaio.ptr<f32>`) and
    scalars, and are written with SIMT ops, tile ops and upstream arith,
    math and scf. The `kaio-to-ptx` pipeline lowers them to the ptx dialect.
    A module may name its chip with `kaio.target = "sm_80"`; verifiers then
    check shared-memory limits and per-op SM requirements against it.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr llvm::StringLiteral kTargetAttrName = "kaio.target";
    static constexpr llvm::StringLiteral kReadOnlyAttrName = "kaio.readonly";
    /// A signed integer parameter: typed launches take int32_t, not
    /// uint32_t (arith's integers are signless).
    static constexpr llvm::StringLiteral kSignedAttrName = "kaio.signed";
    /// Set on a kaio.kernel by kaio-lower-tiles when the lowering relies on
    /// exactly `block_size` threads (cooperative copies unrolled for it):
    /// the entry gets `.reqntid` instead of `.maxntid`.
    static constexpr llvm::StringLiteral kExactBlockSizeAttrName =
        "kaio.exact_block_size";
    /// A unit attribute of kaio.kernel: every kaio.async_copy in it is
    /// `aligned` (the caller promises 16-byte aligned sources, leading
    /// dimensions and columns; e.g. a library variant picked by the host).
    static constexpr llvm::StringLiteral kAlignedCopiesAttrName =
        "kaio.aligned_copies";
    /// `{kaio.unroll = N}` on an scf.for: kaio-unroll-loops runs N
    /// iterations per trip (1 <= N <= kMaxUnroll).
    static constexpr llvm::StringLiteral kUnrollAttrName = "kaio.unroll";
    static constexpr int64_t kMaxUnroll = 32;
    /// `{kaio.pipeline_stages = N}` on an scf.for: kaio-pipeline-copies
    /// turns its copies into an N-stage cp.async pipeline
    /// (2 <= N <= kMaxPipelineStages).
    static constexpr llvm::StringLiteral kPipelineStagesAttrName =
        "kaio.pipeline_stages";
    static constexpr int64_t kMaxPipelineStages = 8;
    /// `{kaio.pipeline_prefetch}` (a unit attribute) beside
    /// kaio.pipeline_stages >= 3: the pipeline also issues each iteration's
    /// leading shared-tile reads one iteration early (kaio-pipeline-copies).
    static constexpr llvm::StringLiteral kPipelinePrefetchAttrName =
        "kaio.pipeline_prefetch";
    void registerTypes();
    void registerAttributes();
  }];
}

class Kaio_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::kaio";
}

def Kaio_Dim : Kaio_I32Enum<"Dim", "grid dimension", [
  I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>]>;

def Kaio_ShuffleMode : Kaio_I32Enum<"ShuffleMode", "warp shuffle mode", [
  I32EnumAttrCase<"up", 0>, I32EnumAttrCase<"down", 1>,
  I32EnumAttrCase<"Xor", 2, "xor">, I32EnumAttrCase<"idx", 3>]>;

def Kaio_ReduceKind : Kaio_I32Enum<"ReduceKind", "reduction", [
  I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
  I32EnumAttrCase<"min", 2>]>;

def Kaio_AtomicKind : Kaio_I32Enum<"AtomicKind", "atomic operation", [
  I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>,
  I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"exch", 3>,
  I32EnumAttrCase<"And", 4, "and">, I32EnumAttrCase<"Or", 5, "or">,
  I32EnumAttrCase<"Xor", 6, "xor">]>;

def Kaio_FragRole : Kaio_I32Enum<"FragRole", "mma operand role", [
  I32EnumAttrCase<"a", 0>, I32EnumAttrCase<"b", 1>,
  I32EnumAttrCase<"acc", 2>]>;

def Kaio_MatrixOrder : Kaio_I32Enum<"MatrixOrder", "element order", [
  I32EnumAttrCase<"row_major", 0>, I32EnumAttrCase<"col_major", 1>]>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Kaio_LayoutAttr : AttrDef<Kaio_Dialect, "Layout"> {
  let mnemonic = "layout";
  let summary = "how a shared tile is laid out";
  let description = [{
    `#kaio.layout<row_major, pad = 8>`: rows of the tile are `pad` elements
    longer than the tile (bank-conflict padding). In a `col_major` tile,
    element (r, c) sits at `c * (rows + pad) + r`: columns are contiguous.
    `#kaio.layout<row_major, swizzle = <3, 4, 3>>` XOR-swizzles the byte
    offset of each element within the (unpadded, row-major) tile with CuTe's
    Swizzle<bits, base, shift>: bits [base, base + bits) ^= bits [base +
    shift, base + shift + bits) (Kaio/Dialect/PTX/IR/Swizzle.h).
    kaio-assign-shared-layouts picks one from the swizzle table.
  }];
  let parameters = (ins
    EnumParameter<Kaio_MatrixOrder>:$order,
    DefaultValuedParameter<"int64_t", "0">:$pad,
    DefaultValuedParameter<"int64_t", "0">:$swizzleBits,
    DefaultValuedParameter<"int64_t", "0">:$swizzleBase,
    DefaultValuedParameter<"int64_t", "0">:$swizzleShift);
  let extraClassDeclaration = [{
    bool isSwizzled() const { return getSwizzleBits() != 0; }
    ::kaio::ptx::Swizzle getSwizzle() const {
      return {unsigned(getSwizzleBits()), unsigned(getSwizzleBase()),
              unsigned(getSwizzleShift())};
    }
  }];
  // `pad` and `swizzle` are each optional, in either order: a generated
  // format with two optional groups led by `,` cannot parse the second alone.
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Kaio_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Kaio_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Kaio_PtrType : Kaio_Type<"Ptr", "ptr"> {
  let summary = "pointer to global memory";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
  let genVerifyDecl = 1;
}

def Kaio_SmemType : Kaio_Type<"Smem", "smem"> {
  let summary = "a tile in shared memory";
  let description = [{
    `!kaio.smem<64x32xf16, #kaio.layout<row_major, pad = 8>>`. Without a
    layout, `kaio-assign-shared-layouts` chooses one.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        OptionalParameter<"LayoutAttr">:$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
    /// Whether the layout stores columns contiguously.
    bool isColumnMajor() const;
    /// Elements between the starts of consecutive contiguous lines of a 2-D
    /// tile: rows (cols + pad), or columns (rows + pad) when column-major.
    int64_t getRowStride() const;
    /// Bytes the tile occupies with its layout.
    int64_t getSizeInBytes() const;
    /// Bytes the tile's base address is aligned to: 16, or a swizzled
    /// layout's pattern period (up to 1 KiB), so that its offsets fall in
    /// the banks the swizzle was chosen for (and an address XOR below the
    /// alignment moves only the offset).
    int64_t getAlignment() const;
  }];
}

def Kaio_FragType : Kaio_Type<"Frag", "frag"> {
  let summary = "a warp's register fragment of an mma operand, or a tile of them";
  let description = [{
    `!kaio.frag<a, m16n8k16, f16>`: the A operand of an m16n8k16 mma, spread
    over the 32 lanes of a warp as the PTX fragment layout says.

    `!kaio.frag<acc, m16n8k16, f32, 4x4>`: a warp tile of 4 x 4 such
    fragments ("atoms"), here a 64 x 32 accumulator; atom (i, j) covers rows
    i * M.. and columns j * N.. of the tile (M x K atoms for A, K x N for B,
    M x N for accumulators). Tile ops (`load_fragment`, `mma`, `frag_fill`,
    `frag_map`, `store_fragment`) work on whole tiles: `mma` of an A tile
    [tm, tk] and a B tile [tk, tn] into an accumulator [tm, tn] issues
    tm * tn * tk mma.sync, and loads pair atoms into ldmatrix.x4.
  }];
  let parameters = (ins EnumParameter<Kaio_FragRole>:$role,
                        "::kaio::ptx::MMAShape":$shape,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"unsigned", "1">:$tileRows,
                        DefaultValuedParameter<"unsigned", "1">:$tileCols);
  let builders = [
    TypeBuilder<(ins "FragRole":$role, "::kaio::ptx::MMAShape":$shape,
                     "::mlir::Type":$elementType), [{
      return $_get($_ctxt, role, shape, elementType, 1, 1);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements this lane holds of one atom.
    unsigned getElementsPerLane() const;
    /// Atoms in the tile (1 for a single fragment).
    unsigned getNumAtoms() const { return getTileRows() * getTileCols(); }
    bool isTile() const { return getNumAtoms() != 1; }
    /// The same fragment with another tile shape (1 x 1: one atom).
    FragType withTile(unsigned rows, unsigned cols) const {
      return FragType::get(getContext(), getRole(), getShape(),
                           getElementType(), rows, cols);
    }
    /// Rows and columns of the matrix one atom covers (A: M x K, B: K x N,
    /// accumulator: M x N).
    std::pair<unsigned, unsigned> getAtomExtent() const;
  }];
}

def Kaio_TokenType : Kaio_Type<"Token", "token"> {
  let summary = "completion of a group of async copies";
}

def Kaio_TensorMapType : Kaio_Type<"TensorMap", "tensor_map"> {
  let summary = "a TMA tensor map (kernel parameter)";
  let description = [{
    `!kaio.tensor_map<128x64xf16, swizzle = 128>`: a kernel parameter
    holding a CUtensorMap (the host builds it: rt::makeTensorMap, kaio-run's
    `tmap:` arguments) whose box is 128 x 64 f16 elements, outermost first,
    and whose shared-memory swizzle is 128 bytes (0, 32, 64 or 128). The
    box and swizzle are the host's promise; `kaio.tma_load` checks its
    destination tile against them. Lowers to a `.param .align 64 .b8[128]`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$box,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"int64_t", "0">:$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes one box copy lands in shared memory (what its mbarrier expects).
    int64_t getBoxBytes() const;
  }];
}

def Kaio_AnyIndex : AnyTypeOf<[I32, I64], "i32 or i64 index">;

#endif // KAIO_DIALECT_KAIO_IR_KAIOBASE_TD
