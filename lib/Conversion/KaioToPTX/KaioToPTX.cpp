//===- KaioToPTX.cpp - kaio kernels and SIMT ops to the ptx dialect -------===//

#include "Kaio/Conversion/Passes.h"

#include "IndexBits.h"

#include "Kaio/Conversion/PTXBuilder.h"
#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringSet.h"

namespace kaio {
#define GEN_PASS_DEF_CONVERTKAIOTOPTX
#include "Kaio/Conversion/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio;
using namespace kaio::ptx;

namespace {

unsigned elementBytes(Type type) {
  return std::max(1u, type.getIntOrFloatBitWidth() / 8);
}

/// Whether `ptr` is (an offset of) a kernel parameter marked kaio.readonly.
bool isReadOnlyPointer(Value ptr) {
  while (auto add = ptr.getDefiningOp<PtrAddOp>())
    ptr = add.getBase();
  auto arg = dyn_cast<BlockArgument>(ptr);
  if (!arg)
    return false;
  auto kernel = dyn_cast<KernelOp>(arg.getOwner()->getParentOp());
  return kernel && arg.getOwner()->isEntryBlock() &&
         kernel.getArgAttr(arg.getArgNumber(), KaioDialect::kReadOnlyAttrName);
}

/// Declares a module-level `.shared` array just before the kernel being
/// converted and returns its symbol name.
std::string declareShared(ConversionPatternRewriter &rewriter, Operation *op,
                          PTXType elemType, int64_t count, StringRef stem,
                          int64_t align = 16) {
  auto module = op->getParentOfType<ModuleOp>();
  Operation *kernel = op;
  while (kernel->getParentOp() != module.getOperation())
    kernel = kernel->getParentOp();
  SymbolTable table(module);
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = ("__kaio_" + stem + "_" + Twine(i)).str();
    if (!table.lookup(name))
      break;
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(kernel);
  GlobalVarOp::create(rewriter, op->getLoc(), StateSpace::shared, name,
                      elemType, rewriter.getI64IntegerAttr(count), false,
                      rewriter.getI64IntegerAttr(align));
  return name;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

struct DynamicSharedLayout;
int64_t getDynamicSharedBytes(const DynamicSharedLayout &layout,
                              Operation *kernel);

struct KernelLowering : OpConversionPattern<KernelOp> {
  KernelLowering(const TypeConverter &converter, MLIRContext *ctx,
                 const DynamicSharedLayout &dynamic)
      : OpConversionPattern(converter, ctx), dynamic(dynamic) {}
  const DynamicSharedLayout &dynamic;

  LogicalResult
  matchAndRewrite(KernelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    TypeConverter::SignatureConversion signature(op.getNumArguments());
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes())) {
      Type converted = converter.convertType(type);
      if (!converted)
        return rewriter.notifyMatchFailure(op, "unsupported parameter type");
      signature.addInputs(i, converted);
    }
    auto funcType = rewriter.getFunctionType(signature.getConvertedTypes(), {});

    SmallVector<Attribute> argAttrs;
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes())) {
      NamedAttrList attrs;
      if (op.getArgAttr(i, KaioDialect::kSignedAttrName))
        attrs.append(PTXDialect::kSignedAttrName, rewriter.getUnitAttr());
      if (isa<TensorMapType>(type))
        attrs.append(PTXDialect::kTensorMapAttrName, rewriter.getUnitAttr());
      if (auto ptr = dyn_cast<PtrType>(type)) {
        attrs.append(PTXDialect::kPtrElementAttrName,
                     TypeAttr::get(ptr.getElementType()));
        attrs.append(PTXDialect::kAlignAttrName,
                     rewriter.getI64IntegerAttr(
                         elementBytes(ptr.getElementType())));
        if (op.getArgAttr(i, KaioDialect::kReadOnlyAttrName))
          attrs.append(PTXDialect::kReadOnlyAttrName, rewriter.getUnitAttr());
      }
      argAttrs.push_back(attrs.getDictionary(getContext()));
    }

    bool exact = op->hasAttr(KaioDialect::kExactBlockSizeAttrName);
    auto entry = EntryOp::create(
        rewriter, op.getLoc(), op.getSymName(), funcType,
        rewriter.getArrayAttr(argAttrs), ArrayAttr(),
        exact ? DenseI32ArrayAttr() : op.getBlockSizeAttr(),
        exact ? op.getBlockSizeAttr() : DenseI32ArrayAttr(),
        op.getMinBlocksPerSmAttr(), op.getMaxRegistersAttr(),
        getDynamicSharedBytes(dynamic, op)
            ? rewriter.getI64IntegerAttr(getDynamicSharedBytes(dynamic, op))
            : IntegerAttr(),
        op.getClusterSizeAttr());
    rewriter.inlineRegionBefore(op.getBody(), entry.getBody(),
                                entry.getBody().end());
    if (failed(rewriter.convertRegionTypes(&entry.getBody(), converter,
                                           &signature)))
      return failure();

    rewriter.eraseOp(op);
    return success();
  }
};

struct ReturnLowering : OpConversionPattern<ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReturnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<RetOp>(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Ids
//===----------------------------------------------------------------------===//

template <typename OpTy>
struct IdLowering : OpConversionPattern<OpTy> {
  IdLowering(const TypeConverter &converter, MLIRContext *ctx,
             std::array<SpecialReg, 3> regs)
      : OpConversionPattern<OpTy>(converter, ctx), regs(regs) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    rewriter.replaceOp(op, p.sreg(regs[static_cast<unsigned>(op.getDim())]));
    return success();
  }
  std::array<SpecialReg, 3> regs;
};

struct BlockRankLowering : OpConversionPattern<BlockRankOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BlockRankOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    rewriter.replaceOp(op, p.sreg(SpecialReg::cluster_ctarank));
    return success();
  }
};

/// barrier.cluster.arrive.release then wait.acquire.
struct ClusterBarrierLowering : OpConversionPattern<ClusterBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    BarrierClusterArriveOp::create(
        rewriter, loc, MemOrderAttr::get(ctx, MemOrder::release),
        op.getAligned(), Value(), false);
    BarrierClusterWaitOp::create(rewriter, loc,
                                 MemOrderAttr::get(ctx, MemOrder::acquire),
                                 op.getAligned(), Value(), false);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LaneIdLowering : OpConversionPattern<LaneIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LaneIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    rewriter.replaceOp(op, p.sreg(SpecialReg::laneid));
    return success();
  }
};

/// Linear thread id in the block, from the 1-3 dimensional tid (the x one
/// alone where the op's block is 1-D: getBlockBounds, which still finds the
/// shape once the kernel's body has moved into its ptx.entry).
Value linearThreadId(PTXBuilder &p, const BlockBounds &block) {
  Value tid = p.sreg(SpecialReg::tid_x);
  if (block.dims.size() == 1)
    return tid;
  Value y = p.sreg(SpecialReg::tid_y), z = p.sreg(SpecialReg::tid_z);
  Value nx = p.sreg(SpecialReg::ntid_x), ny = p.sreg(SpecialReg::ntid_y);
  Value zy = p.madLo(PTXType::u32, z, ny, y);
  return p.madLo(PTXType::u32, zy, nx, tid);
}

struct WarpIdLowering : OpConversionPattern<WarpIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    Value linear = linearThreadId(p, getBlockBounds(op));
    rewriter.replaceOp(op, p.shr(PTXType::u32, linear, p.i32(5)));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

struct PtrAddLowering : OpConversionPattern<PtrAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PtrAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    unsigned bytes = elementBytes(op.getBase().getType().getElementType());
    rewriter.replaceOp(op, p.elementAddress(adaptor.getBase(),
                                            adaptor.getOffset(), bytes));
    return success();
  }
};

struct PtrToIntLowering : OpConversionPattern<PtrToIntOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PtrToIntOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getPtr());
    return success();
  }
};

struct LoadLowering : OpConversionPattern<kaio::LoadOp> {
  /// `readOnlyLoads` is computed before conversion moves the kernel bodies.
  LoadLowering(const TypeConverter &converter, MLIRContext *ctx,
               const DenseSet<Operation *> &readOnlyLoads)
      : OpConversionPattern(converter, ctx), readOnlyLoads(readOnlyLoads) {}
  LogicalResult
  matchAndRewrite(kaio::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elem = op.getPtr().getType().getElementType();
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (isa<VectorType>(op.getType()) || !resultType)
      return rewriter.notifyMatchFailure(op, "vector loads are not lowered");
    PTXBuilder p(rewriter, op.getLoc());
    Value addr = p.elementAddress(adaptor.getPtr(), adaptor.getIndex(),
                                  elementBytes(elem));
    Value value = p.ld(StateSpace::global, getMemoryType(elem), addr, 0,
                       resultType, readOnlyLoads.contains(op),
                       adaptor.getMask());
    if (adaptor.getMask())
      value = p.selp(getBitType(resultType), value, adaptor.getOther(),
                     adaptor.getMask());
    rewriter.replaceOp(op, value);
    return success();
  }
  const DenseSet<Operation *> &readOnlyLoads;
};

/// One ld of `count` consecutive `elem` elements at `addr` in `space` (a
/// global one .nc where `readOnly`), as `resultType` values. Eight 16-bit
/// elements travel as four packed 32-bit words (PTX has no .v8 for them):
/// ld.v4.b32, then each word split in two.
SmallVector<Value> loadVectorElements(ConversionPatternRewriter &rewriter,
                                      Location loc, StateSpace space,
                                      bool readOnly, Type elem,
                                      Type resultType, unsigned count,
                                      Value addr, Value mask) {
  bool packed = count == 8;
  SmallVector<Type> types(packed ? 4 : count,
                          packed ? rewriter.getI32Type() : resultType);
  auto ld = ptx::LoadOp::create(rewriter, loc, types, space, readOnly, false,
                                CacheOpAttr(),
                                packed ? PTXType::b32 : getMemoryType(elem),
                                addr, 0, mask, false);
  if (!packed)
    return SmallVector<Value>(ld.getResults());
  SmallVector<Value> values;
  for (Value word : ld.getResults()) {
    auto halves = ptx::UnpackOp::create(rewriter, loc,
                                        TypeRange{resultType, resultType},
                                        PTXType::b32, word, Value(), false);
    values.append(halves.getParts().begin(), halves.getParts().end());
  }
  return values;
}

struct LoadVectorLowering : OpConversionPattern<LoadVectorOp> {
  LoadVectorLowering(const TypeConverter &converter, MLIRContext *ctx,
                     const DenseSet<Operation *> &readOnlyLoads)
      : OpConversionPattern(converter, ctx), readOnlyLoads(readOnlyLoads) {}
  LogicalResult
  matchAndRewrite(LoadVectorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elem = op.getPtr().getType().getElementType();
    Type resultType = getTypeConverter()->convertType(op.getResults()[0].getType());
    PTXBuilder p(rewriter, op.getLoc());
    Value addr = p.elementAddress(adaptor.getPtr(), adaptor.getIndex(),
                                  elementBytes(elem));
    SmallVector<Value> values = loadVectorElements(
        rewriter, op.getLoc(), StateSpace::global, readOnlyLoads.contains(op),
        elem, resultType, op.getNumResults(), addr, adaptor.getMask());
    if (adaptor.getMask())
      for (Value &v : values)
        v = p.selp(getBitType(resultType), v, adaptor.getOther(),
                   adaptor.getMask());
    rewriter.replaceOp(op, values);
    return success();
  }
  const DenseSet<Operation *> &readOnlyLoads;
};

/// One st of the consecutive `elem` elements `values` at `addr` in `space`
/// (guarded by `mask` if set). Eight 16-bit elements travel as four packed
/// 32-bit words: st.v4.b32.
void storeVectorElements(ConversionPatternRewriter &rewriter, Location loc,
                         StateSpace space, Type elem, Value addr,
                         ValueRange elements, Value mask) {
  SmallVector<Value> values(elements);
  bool packed = values.size() == 8;
  if (packed) {
    SmallVector<Value> words;
    for (unsigned i = 0; i < 8; i += 2)
      words.push_back(ptx::PackOp::create(
          rewriter, loc, rewriter.getI32Type(), PTXType::b32,
          ValueRange{values[i], values[i + 1]}, Value(), false));
    values = std::move(words);
  }
  ptx::StoreOp::create(rewriter, loc, space, false, CacheOpAttr(),
                       packed ? PTXType::b32 : getMemoryType(elem), addr, 0,
                       values, mask, false);
}

struct StoreVectorLowering : OpConversionPattern<StoreVectorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreVectorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elem = op.getPtr().getType().getElementType();
    PTXBuilder p(rewriter, op.getLoc());
    Value addr = p.elementAddress(adaptor.getPtr(), adaptor.getIndex(),
                                  elementBytes(elem));
    storeVectorElements(rewriter, op.getLoc(), StateSpace::global, elem, addr,
                        adaptor.getValues(), adaptor.getMask());
    rewriter.eraseOp(op);
    return success();
  }
};

struct StoreLowering : OpConversionPattern<kaio::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kaio::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<VectorType>(op.getValue().getType()))
      return rewriter.notifyMatchFailure(op, "vector stores are not lowered");
    Type elem = op.getPtr().getType().getElementType();
    PTXBuilder p(rewriter, op.getLoc());
    Value addr = p.elementAddress(adaptor.getPtr(), adaptor.getIndex(),
                                  elementBytes(elem));
    p.st(StateSpace::global, getMemoryType(elem), addr, 0,
         adaptor.getValue(), adaptor.getMask());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AtomicLowering : OpConversionPattern<kaio::AtomicOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kaio::AtomicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getValue().getType();
    PTXBuilder p(rewriter, op.getLoc());
    Value addr = p.elementAddress(adaptor.getPtr(), adaptor.getIndex(),
                                  elementBytes(type));
    ptx::AtomicOp kind;
    PTXType ptxType;
    switch (op.getKind()) {
    case AtomicKind::add:
      kind = ptx::AtomicOp::add;
      ptxType = isa<FloatType>(type) ? getFloatType(type)
                                     : getIntType(type, /*isSigned=*/false);
      break;
    case AtomicKind::max:
    case AtomicKind::min:
      kind = op.getKind() == AtomicKind::max ? ptx::AtomicOp::max
                                             : ptx::AtomicOp::min;
      ptxType = getIntType(type, !cast<IntegerType>(type).isUnsigned());
      break;
    case AtomicKind::exch:
      kind = ptx::AtomicOp::exch;
      ptxType = getBitType(type);
      break;
    case AtomicKind::And:
      kind = ptx::AtomicOp::And;
      ptxType = getBitType(type);
      break;
    case AtomicKind::Or:
      kind = ptx::AtomicOp::Or;
      ptxType = getBitType(type);
      break;
    case AtomicKind::Xor:
      kind = ptx::AtomicOp::Xor;
      ptxType = getBitType(type);
      break;
    }
    Value old = ptx::AtomOp::create(
        rewriter, op.getLoc(), adaptor.getValue().getType(), StateSpace::global,
        MemOrderAttr(), MemScopeAttr(), kind, ptxType, addr, 0,
        ValueRange{adaptor.getValue()}, Value(), false);
    rewriter.replaceOp(op, old);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

/// Where kernels above the static shared-memory limit keep their tiles: one
/// `extern` (dynamic) array, each tile at an offset.
struct DynamicSharedLayout {
  static constexpr llvm::StringLiteral kSymbol = "__kaio_dyn_smem";
  llvm::DenseMap<Operation *, int64_t> offsets; // shared_alloc → offset
  llvm::DenseMap<Operation *, int64_t> bytes;   // kaio.kernel → total
};

struct SharedAllocLowering : OpConversionPattern<SharedAllocOp> {
  SharedAllocLowering(const TypeConverter &converter, MLIRContext *ctx,
                      const DynamicSharedLayout &dynamic)
      : OpConversionPattern(converter, ctx), dynamic(dynamic) {}
  LogicalResult
  matchAndRewrite(SharedAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmemType type = op.getType();
    if (type.getShape().size() == 2 && !type.getLayout())
      return rewriter.notifyMatchFailure(
          op, "2-D tile has no layout; run kaio-assign-shared-layouts");
    PTXBuilder p(rewriter, op.getLoc());
    if (auto it = dynamic.offsets.find(op); it != dynamic.offsets.end()) {
      Value base = p.addressOf(DynamicSharedLayout::kSymbol,
                               rewriter.getI32Type());
      rewriter.replaceOp(op, it->second ? p.add(PTXType::u32, base,
                                                p.i32(it->second))
                                        : base);
      return success();
    }
    // Declared as bytes so that padded/swizzled layouts fit exactly.
    std::string name =
        declareShared(rewriter, op, PTXType::b8, type.getSizeInBytes(),
                      "smem", type.getAlignment());
    rewriter.replaceOp(op, p.addressOf(name, rewriter.getI32Type()));
    return success();
  }
  const DynamicSharedLayout &dynamic;
};

int64_t getDynamicSharedBytes(const DynamicSharedLayout &layout,
                              Operation *kernel) {
  return layout.bytes.lookup(kernel);
}

/// Lays out the tiles of every kernel whose shared memory exceeds `chip`'s
/// static limit in dynamic shared memory and declares the extern array;
/// fails (located) when a kernel exceeds even the opt-in maximum.
LogicalResult layoutDynamicShared(ModuleOp module, const ChipInfo &chip,
                                  DynamicSharedLayout &layout) {
  int64_t maxAlign = 0;
  WalkResult result = module.walk([&](KernelOp kernel) {
    // Tiles, and the block reductions' scratch (which stays static).
    int64_t tiles = 0, scratch = 0;
    kernel.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<SharedAllocOp>(op))
        tiles += alloc.getType().getSizeInBytes();
      if (isa<BlockReduceOp>(op))
        scratch += 32 * 8;
    });
    if (tiles + scratch <= int64_t(chip.maxStaticSharedPerBlock))
      return WalkResult::advance();
    int64_t offset = 0;
    kernel.walk([&](SharedAllocOp alloc) {
      int64_t align = alloc.getType().getAlignment();
      offset = llvm::alignTo(offset, align);
      layout.offsets[alloc] = offset;
      offset += alloc.getType().getSizeInBytes();
      maxAlign = std::max(maxAlign, align);
    });
    if (offset + scratch > int64_t(chip.maxSharedPerBlock)) {
      kernel.emitOpError() << "uses " << offset + scratch
                           << " bytes of shared memory; " << chip.name
                           << " allows at most " << chip.maxSharedPerBlock
                           << " per block";
      return WalkResult::interrupt();
    }
    layout.bytes[kernel] = offset;
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (!maxAlign)
    return success();
  OpBuilder b(module.getBodyRegion());
  GlobalVarOp::create(b, module.getLoc(), StateSpace::shared,
                      DynamicSharedLayout::kSymbol, PTXType::b8, IntegerAttr(),
                      /*is_extern=*/true, b.getI64IntegerAttr(maxAlign));
  return success();
}

/// S(offset) for the swizzle S: offset ^ ((offset >> (base + shift)) &
/// (2^bits - 1)) << base.
Value swizzleOffset(PTXBuilder &p, const ptx::Swizzle &s, Value offset) {
  Value src = p.shr(PTXType::u32, offset, p.i32(s.base + s.shift));
  Value masked = p.andOp(PTXType::b32, src, p.i32((1 << s.bits) - 1));
  return p.xorOp(PTXType::b32, offset,
                 p.shl(PTXType::b32, masked, p.i32(s.base)));
}

/// Byte offset of tile element `indices` with the tile's layout.
Value tileByteOffset(PTXBuilder &p, SmemType type, ValueRange indices) {
  unsigned eb = elementBytes(type.getElementType());
  if (type.getShape().size() == 1)
    return p.mulLo(PTXType::u32, indices[0], p.i32(eb));
  LayoutAttr layout = type.getLayout();
  Value r = indices[0], c = indices[1];
  if (layout.getOrder() == MatrixOrder::col_major) {
    int64_t stride = type.getShape()[0] + layout.getPad();
    Value linear = p.madLo(PTXType::u32, c, p.i32(stride), r);
    return p.mulLo(PTXType::u32, linear, p.i32(eb));
  }
  int64_t stride = type.getRowStride();
  Value linear = p.madLo(PTXType::u32, r, p.i32(stride), c);
  Value offset = p.mulLo(PTXType::u32, linear, p.i32(eb));
  if (!layout.isSwizzled())
    return offset;
  return swizzleOffset(p, layout.getSwizzle(), offset);
}

/// The address of element (row, col) of a swizzled row-major tile at
/// `tile` when the indices are variable parts plus constants whose linear
/// offset sets no bit the variable parts' may (IndexBits.h): the swizzle is
/// linear over xor, so the address is tile + (S(v) ^ S(c)) — S(v) shared
/// by every access with the same variable parts, S(c) a constant. The
/// constant's bits below the tile's alignment are xored into tile + S(v)
/// (the tile's base has none of them), those above added (an immediate
/// offset of the access) where S(v) cannot have them. Null where the
/// indices do not split so.
Value splitSwizzledAddress(PTXBuilder &p, ConversionPatternRewriter &rewriter,
                           SmemType type, Value tile, ValueRange indices) {
  LayoutAttr layout = type.getLayout();
  if (type.getShape().size() != 2 || !layout || !layout.isSwizzled() ||
      layout.getOrder() != MatrixOrder::row_major)
    return Value();
  ConstantSplit row = splitConstant(indices[0]), col = splitConstant(indices[1]);
  const int64_t stride = type.getRowStride();
  const int64_t eb = elementBytes(type.getElementType());
  const int64_t constant = (row.constant * stride + col.constant) * eb;
  if (constant < 0 || constant > int64_t(UINT32_MAX))
    return Value();
  uint64_t rowBits = row.variable ? getPossibleOneBits(row.variable) : 0;
  uint64_t colBits = col.variable ? getPossibleOneBits(col.variable) : 0;
  uint64_t varBits = getPossibleOneBitsOfProduct(
      getPossibleOneBitsOfSum(
          getPossibleOneBitsOfProduct(rowBits, uint64_t(stride)), colBits),
      uint64_t(eb));
  if (varBits & uint64_t(constant))
    return Value();
  ptx::Swizzle s = layout.getSwizzle();
  const uint64_t mask = (uint64_t(1) << s.bits) - 1;
  uint64_t swizzledVarBits =
      varBits | ((varBits >> (s.base + s.shift)) ? mask << s.base : 0);
  uint64_t k = s.apply(uint64_t(constant));
  const uint64_t align = uint64_t(type.getAlignment());
  uint64_t low = k & (align - 1), high = k & ~(align - 1);
  Value base = tile;
  if (row.variable || col.variable) {
    Value r = row.variable ? rewriter.getRemappedValue(row.variable) : Value();
    Value c = col.variable ? rewriter.getRemappedValue(col.variable) : Value();
    if ((row.variable && !r) || (col.variable && !c))
      return Value();
    Value linear = r ? (c ? p.madLo(PTXType::u32, r, p.i32(stride), c)
                          : p.mulLo(PTXType::u32, r, p.i32(stride)))
                     : c;
    Value offset = swizzleOffset(p, s, p.mulLo(PTXType::u32, linear, p.i32(eb)));
    if (swizzledVarBits & high)
      return p.add(PTXType::u32, tile,
                   p.xorOp(PTXType::b32, offset, p.i32(int64_t(k))));
    base = p.add(PTXType::u32, tile, offset);
  }
  if (low)
    base = p.xorOp(PTXType::b32, base, p.i32(int64_t(low)));
  return high ? p.add(PTXType::u32, base, p.i32(int64_t(high))) : base;
}

/// The address of the element an op indexes. Loads and stores split
/// swizzled offsets (`split`): their variable parts recur across a loop's
/// reads. kaio.shared_address does not: the tile lowerings emit it for
/// copy destinations that LICM has already hoisted, one address each,
/// where the split's xor would be an extra op.
template <typename OpTy>
Value tileAddress(PTXBuilder &p, ConversionPatternRewriter &rewriter, OpTy op,
                  typename OpTy::Adaptor adaptor, bool split = true) {
  SmemType type = op.getTile().getType();
  if (split)
    if (Value address = splitSwizzledAddress(p, rewriter, type,
                                             adaptor.getTile(), op.getIndices()))
      return address;
  Value offset = tileByteOffset(p, type, adaptor.getIndices());
  return p.add(PTXType::u32, adaptor.getTile(), offset);
}

struct SharedAddressLowering : OpConversionPattern<SharedAddressOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SharedAddressOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Element (0, ...) is the tile's first byte under every layout.
    if (llvm::all_of(op.getIndices(),
                     [](Value v) { return matchPattern(v, m_Zero()); })) {
      rewriter.replaceOp(op, adaptor.getTile());
      return success();
    }
    PTXBuilder p(rewriter, op.getLoc());
    rewriter.replaceOp(op, tileAddress(p, rewriter, op, adaptor,
                                       /*split=*/false));
    return success();
  }
};

struct TileOffsetLowering : OpConversionPattern<TileOffsetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOffsetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    rewriter.replaceOp(op, tileByteOffset(p, cast<SmemType>(op.getTileType()),
                                          adaptor.getIndices()));
    return success();
  }
};

struct SharedLoadLowering : OpConversionPattern<SharedLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SharedLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    Type type = getTypeConverter()->convertType(op.getType());
    Value value = p.ld(StateSpace::shared, getMemoryType(op.getType()),
                       tileAddress(p, rewriter, op, adaptor), 0, type);
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct SharedLoadVectorLowering
    : OpConversionPattern<SharedLoadVectorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SharedLoadVectorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elem = op.getTile().getType().getElementType();
    Type resultType =
        getTypeConverter()->convertType(op.getResults()[0].getType());
    PTXBuilder p(rewriter, op.getLoc());
    rewriter.replaceOp(
        op, loadVectorElements(rewriter, op.getLoc(), StateSpace::shared,
                               false, elem, resultType, op.getNumResults(),
                               tileAddress(p, rewriter, op, adaptor), Value()));
    return success();
  }
};

struct SharedStoreVectorLowering
    : OpConversionPattern<SharedStoreVectorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SharedStoreVectorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    storeVectorElements(rewriter, op.getLoc(), StateSpace::shared,
                        op.getTile().getType().getElementType(),
                        tileAddress(p, rewriter, op, adaptor),
                        adaptor.getValues(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct SharedStoreLowering : OpConversionPattern<SharedStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SharedStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    p.st(StateSpace::shared, getMemoryType(op.getValue().getType()),
         tileAddress(p, rewriter, op, adaptor), 0, adaptor.getValue());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The shared address of row `row` of a TMA tile (its base `tile`): TMA
/// moves whole rows, swizzled by address.
Value tileRowAddress(PTXBuilder &p, SmemType type, Value tile, Value row) {
  int64_t rowBytes = type.getShape()[1] * elementBytes(type.getElementType());
  return p.add(PTXType::u32, tile,
               p.mulLo(PTXType::u32, row, p.i32(rowBytes)));
}

/// The calling thread's cp.async.bulk.tensor of the box at the coordinates
/// (innermost first in PTX) into the tile rows from `row`, completing on
/// the mbarrier.
struct TmaLoadLowering : OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    Value dstAddr =
        tileRowAddress(p, op.getDst().getType(), adaptor.getDst(),
                       adaptor.getRow());
    Value barAddr = p.add(PTXType::u32, adaptor.getBars(),
                          p.mulLo(PTXType::u32, adaptor.getIndex(), p.i32(8)));
    SmallVector<Value> coords(llvm::reverse(adaptor.getCoords()));
    // The multicast mask is a 16-bit CTA mask.
    Value mask;
    if (Value m = adaptor.getMulticast())
      mask = p.cvt(PTXType::u16, PTXType::u32, m, rewriter.getI16Type());
    CpAsyncBulkTensorLoadOp::create(rewriter, op.getLoc(), coords.size(),
                                    dstAddr, adaptor.getMap(), coords, barAddr,
                                    mask, Value(), false);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The calling thread's cp.async.bulk.tensor store of the tile rows from
/// `row` to the box at the coordinates (innermost first in PTX), as one
/// bulk async-group.
struct TmaStoreLowering : OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    Value srcAddr =
        tileRowAddress(p, op.getSrc().getType(), adaptor.getSrc(),
                       adaptor.getRow());
    SmallVector<Value> coords(llvm::reverse(adaptor.getCoords()));
    CpAsyncBulkTensorStoreOp::create(rewriter, op.getLoc(), coords.size(),
                                     adaptor.getMap(), coords, srcAddr,
                                     Value(), false);
    CpAsyncBulkCommitGroupOp::create(rewriter, op.getLoc(), Value(), false);
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierLowering : OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getId()) {
      BarSyncOp::create(rewriter, op.getLoc(), *op.getId(),
                        op.getThreadsAttr(), Value(), false);
      rewriter.eraseOp(op);
      return success();
    }
    PTXBuilder p(rewriter, op.getLoc());
    p.barSync();
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Warp shuffles and reductions
//===----------------------------------------------------------------------===//

/// shfl.sync's c operand: segment mask in bits 8-12, clamp in bits 0-4.
int64_t shuffleControl(ShflMode mode, unsigned width) {
  int64_t segmask = (32 - width) << 8;
  return mode == ShflMode::up ? segmask : segmask | (width - 1);
}

struct ShuffleLowering : OpConversionPattern<ShuffleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ShuffleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ShflMode mode;
    switch (op.getMode()) {
    case ShuffleMode::up:
      mode = ShflMode::up;
      break;
    case ShuffleMode::down:
      mode = ShflMode::down;
      break;
    case ShuffleMode::Xor:
      mode = ShflMode::bfly;
      break;
    case ShuffleMode::idx:
      mode = ShflMode::idx;
      break;
    }
    PTXBuilder p(rewriter, op.getLoc());
    rewriter.replaceOp(op, p.shfl(mode, adaptor.getValue(),
                                  adaptor.getOffset(),
                                  shuffleControl(mode, op.getWidth())));
    return success();
  }
};

Value combine(PTXBuilder &p, ReduceKind kind, Type type, Value a, Value b) {
  PTXType t = isa<FloatType>(type) ? getFloatType(type)
                                   : getIntType(type, /*isSigned=*/true);
  switch (kind) {
  case ReduceKind::sum:
    return p.add(t, a, b);
  case ReduceKind::max:
    return p.max(t, a, b);
  case ReduceKind::min:
    return p.min(t, a, b);
  }
  llvm_unreachable("unknown reduction");
}

Value identity(PTXBuilder &p, ReduceKind kind, Type type) {
  if (isa<FloatType>(type)) {
    double inf = std::numeric_limits<double>::infinity();
    return p.number(type, kind == ReduceKind::sum   ? 0.0
                          : kind == ReduceKind::max ? -inf
                                                    : inf);
  }
  int64_t v = kind == ReduceKind::sum   ? 0
              : kind == ReduceKind::max ? std::numeric_limits<int32_t>::min()
                                        : std::numeric_limits<int32_t>::max();
  return p.i32(v);
}

/// Butterfly reduction over the warp in f32 or i32; every lane ends with the
/// result. f16 is widened to f32 for the reduction and rounded once.
Value warpReduce(PTXBuilder &p, ReduceKind kind, Value v, bool useRedux) {
  Type type = v.getType();
  if (type.isInteger(32) && useRedux) {
    ReduxOp op = kind == ReduceKind::sum   ? ReduxOp::add
                 : kind == ReduceKind::max ? ReduxOp::max
                                           : ReduxOp::min;
    return ReduxSyncOp::create(p.builder(), p.location(), p.builder().getI32Type(),
                               op, PTXType::s32, v, p.i32(-1), Value(), false);
  }
  Value x = v;
  if (type.isF16())
    x = p.cvt(PTXType::f32, PTXType::f16, v, p.builder().getF32Type());
  for (int offset = 16; offset >= 1; offset /= 2) {
    Value other = p.shfl(ShflMode::bfly, x, p.i32(offset),
                         shuffleControl(ShflMode::bfly, 32));
    x = combine(p, kind, x.getType(), x, other);
  }
  if (type.isF16())
    x = p.cvt(PTXType::f16, PTXType::f32, x, type, Rounding::rn);
  return x;
}

struct WarpReduceLowering : OpConversionPattern<WarpReduceOp> {
  WarpReduceLowering(const TypeConverter &converter, MLIRContext *ctx,
                     bool useRedux)
      : OpConversionPattern(converter, ctx), useRedux(useRedux) {}
  LogicalResult
  matchAndRewrite(WarpReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    rewriter.replaceOp(op, warpReduce(p, op.getKind(), adaptor.getValue(),
                                      useRedux));
    return success();
  }
  bool useRedux;
};

/// Each warp reduces, lane 0 of each warp publishes its partial in shared
/// memory, and every warp then reduces the partials, so all threads get the
/// result without a broadcast. The trailing barrier lets the scratch array
/// be reused by the next reduction.
struct BlockReduceLowering : OpConversionPattern<BlockReduceOp> {
  BlockReduceLowering(const TypeConverter &converter, MLIRContext *ctx,
                      bool useRedux)
      : OpConversionPattern(converter, ctx), useRedux(useRedux) {}
  LogicalResult
  matchAndRewrite(BlockReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder p(rewriter, op.getLoc());
    Type type = op.getType();
    Type work = type.isF16() ? rewriter.getF32Type() : type;
    Value v = adaptor.getValue();
    if (type.isF16())
      v = p.cvt(PTXType::f32, PTXType::f16, v, work);
    Value partial = warpReduce(p, op.getKind(), v, useRedux);

    std::string scratch = declareShared(rewriter, op, PTXType::b32, 32,
                                        "reduce");
    Value base = p.addressOf(scratch, rewriter.getI32Type());
    BlockBounds block = getBlockBounds(op);
    Value linear = linearThreadId(p, block);
    Value lane = p.andOp(PTXType::b32, linear, p.i32(31));
    Value warp = p.shr(PTXType::u32, linear, p.i32(5));
    Value isLeader = p.setp(CmpOp::eq, PTXType::u32, lane, p.i32(0));
    Value slot = p.madLo(PTXType::u32, warp, p.i32(4), base);
    PTXType memType = work.isF32() ? PTXType::f32 : PTXType::b32;
    p.st(StateSpace::shared, memType, slot, 0, partial, isLeader);
    p.barSync();

    // Threads of the block, from %ntid: launches may use fewer threads than
    // the kernel's block_size.
    Value threads = p.sreg(SpecialReg::ntid_x);
    if (block.dims.size() != 1) {
      threads = p.mulLo(PTXType::u32, threads, p.sreg(SpecialReg::ntid_y));
      threads = p.mulLo(PTXType::u32, threads, p.sreg(SpecialReg::ntid_z));
    }
    Value warps = p.shr(PTXType::u32, p.add(PTXType::u32, threads, p.i32(31)),
                        p.i32(5));
    Value hasPartial = p.setp(CmpOp::lt, PTXType::u32, lane, warps);
    Value laneSlot = p.madLo(PTXType::u32, lane, p.i32(4), base);
    Value loaded = p.ld(StateSpace::shared, memType, laneSlot, 0, work,
                        false, hasPartial);
    Value mine = p.selp(getBitType(work), loaded,
                        identity(p, op.getKind(), work), hasPartial);
    Value total = warpReduce(p, op.getKind(), mine, useRedux);
    p.barSync();
    if (type.isF16())
      total = p.cvt(PTXType::f16, PTXType::f32, total, type, Rounding::rn);
    rewriter.replaceOp(op, total);
    return success();
  }
  bool useRedux;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertKaioToPTXPass
    : kaio::impl::ConvertKaioToPTXBase<ConvertKaioToPTXPass> {
  using Base::Base;

  void runOnOperation() override {
    // The pass option wins; else the module's kaio.target; else sm_80.
    std::string chipName = chip;
    if (chipName.empty())
      if (auto attr = getOperation()->getAttrOfType<StringAttr>(
              KaioDialect::kTargetAttrName))
        chipName = attr.str();
    if (chipName.empty())
      chipName = "sm_80";
    const ChipInfo *target = lookupChip(chipName);
    if (!target) {
      getOperation().emitError() << "unknown chip '" << chipName << "'";
      return signalPassFailure();
    }
    // Tile ops and fragments must be gone by now.
    WalkResult leftovers = getOperation().walk([](Operation *op) {
      if (isa<AsyncCopyOp, AsyncWaitOp, LoadFragmentOp, MmaOp, FragFillOp,
              FragMapOp, FragReduceRowsOp, FragSliceOp, FragToOperandOp,
              StoreFragmentOp, kaio::MBarrierInitOp, kaio::MBarrierArriveOp,
              MBarrierWaitOp, WarpgroupMmaOp, WarpgroupWaitOp,
              kaio::SetMaxNRegOp, kaio::FenceProxyAsyncOp, TmaStoreWaitOp,
              SharedStoreFragmentOp>(op)) {
        op->emitOpError("must be lowered by kaio-lower-tiles before "
                        "convert-kaio-to-ptx");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (leftovers.wasInterrupted())
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    llvm::StringSet<> kernels;
    getOperation().walk([&](KernelOp k) { kernels.insert(k.getSymName()); });
    PTXTypeConverter converter;
    RewritePatternSet patterns(ctx);
    bool useRedux = target->sm >= 80;
    DynamicSharedLayout dynamic;
    if (failed(layoutDynamicShared(getOperation(), *target, dynamic)))
      return signalPassFailure();
    patterns.add<KernelLowering, SharedAllocLowering>(converter, ctx, dynamic);
    patterns.add<ReturnLowering, LaneIdLowering,
                 WarpIdLowering, PtrAddLowering, PtrToIntLowering, StoreLowering,
                 AtomicLowering, SharedAddressLowering, TileOffsetLowering,
                 SharedLoadLowering, SharedLoadVectorLowering,
                 SharedStoreLowering, SharedStoreVectorLowering, BarrierLowering,
                 ShuffleLowering, TmaLoadLowering, TmaStoreLowering,
                 BlockRankLowering, ClusterBarrierLowering>(converter, ctx);
    patterns.add<WarpReduceLowering, BlockReduceLowering>(converter, ctx,
                                                          useRedux);
    DenseSet<Operation *> readOnlyLoads;
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<kaio::LoadOp>(op);
          load && isReadOnlyPointer(load.getPtr()))
        readOnlyLoads.insert(op);
      if (auto load = dyn_cast<LoadVectorOp>(op);
          load && isReadOnlyPointer(load.getPtr()))
        readOnlyLoads.insert(op);
    });
    patterns.add<LoadLowering, LoadVectorLowering>(converter, ctx,
                                                   readOnlyLoads);
    patterns.add<StoreVectorLowering>(converter, ctx);
    patterns.add<IdLowering<ThreadIdOp>>(
        converter, ctx,
        std::array{SpecialReg::tid_x, SpecialReg::tid_y, SpecialReg::tid_z});
    patterns.add<IdLowering<BlockIdOp>>(
        converter, ctx,
        std::array{SpecialReg::ctaid_x, SpecialReg::ctaid_y,
                   SpecialReg::ctaid_z});
    patterns.add<IdLowering<BlockDimOp>>(
        converter, ctx,
        std::array{SpecialReg::ntid_x, SpecialReg::ntid_y,
                   SpecialReg::ntid_z});
    patterns.add<IdLowering<GridDimOp>>(
        converter, ctx,
        std::array{SpecialReg::nctaid_x, SpecialReg::nctaid_y,
                   SpecialReg::nctaid_z});
    patterns.add<IdLowering<ClusterIdOp>>(
        converter, ctx,
        std::array{SpecialReg::clusterid_x, SpecialReg::clusterid_y,
                   SpecialReg::clusterid_z});
    patterns.add<IdLowering<ClusterGridDimOp>>(
        converter, ctx,
        std::array{SpecialReg::nclusterid_x, SpecialReg::nclusterid_y,
                   SpecialReg::nclusterid_z});

    // Values of kaio types carried between blocks (tiles rotating through a
    // loop's stages, pointers) change type with their block arguments: the
    // branches that pass them are rewritten too.
    populateBranchOpInterfaceTypeConversionPattern(patterns, converter);
    ConversionTarget target2(*ctx);
    target2.addIllegalDialect<KaioDialect>();
    target2.addLegalDialect<PTXDialect>();
    target2.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (isa<BranchOpInterface>(op))
        return isLegalForBranchOpInterfaceTypeConversionPattern(op, converter);
      return true;
    });
    if (failed(applyPartialConversion(getOperation(), target2,
                                      std::move(patterns))))
      return signalPassFailure();
    // Kernel pointers arrive as generic addresses of global memory.
    getOperation().walk([&](EntryOp entry) {
      if (!kernels.contains(entry.getSymName()))
        return;
      Block &body = entry.getBody().front();
      OpBuilder b = OpBuilder::atBlockBegin(&body);
      for (BlockArgument arg : body.getArguments()) {
        if (!entry.getArgAttr(arg.getArgNumber(),
                              PTXDialect::kPtrElementAttrName))
          continue;
        auto global = CvtaOp::create(b, entry.getLoc(), arg.getType(), true,
                                     StateSpace::global, arg, Value(), false);
        arg.replaceAllUsesExcept(global, global);
      }
    });
    getOperation()->setAttr(PTXDialect::kTargetAttrName,
                            StringAttr::get(ctx, target->name));
    getOperation()->removeAttr(KaioDialect::kTargetAttrName);
  }
};

} // namespace
