//===- KaioOps.cpp - kaio dialect operations ------------------------------===//

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "Kaio/Runtime/Types.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace kaio;

/// `mask %m else %other` after a load's types; the fallback has the result
/// type.
static ParseResult
parseMaskElse(OpAsmParser &parser,
              std::optional<OpAsmParser::UnresolvedOperand> &mask,
              std::optional<OpAsmParser::UnresolvedOperand> &other,
              Type resultType, Type &otherType) {
  if (failed(parser.parseOptionalKeyword("mask")))
    return success();
  OpAsmParser::UnresolvedOperand m, o;
  if (parser.parseOperand(m) || parser.parseKeyword("else") ||
      parser.parseOperand(o))
    return failure();
  mask = m;
  other = o;
  otherType = resultType;
  return success();
}

static void printMaskElse(OpAsmPrinter &p, Operation *, Value mask,
                          Value other, Type, Type) {
  if (mask)
    p << "mask " << mask << " else " << other;
}

/// The same after a vector load's result types; the fallback has their
/// element type.
static ParseResult
parseMaskElseVector(OpAsmParser &parser,
                    std::optional<OpAsmParser::UnresolvedOperand> &mask,
                    std::optional<OpAsmParser::UnresolvedOperand> &other,
                    TypeRange resultTypes, Type &otherType) {
  Type elem = resultTypes.empty() ? Type() : resultTypes.front();
  return parseMaskElse(parser, mask, other, elem, otherType);
}

static void printMaskElseVector(OpAsmPrinter &p, Operation *op, Value mask,
                                Value other, TypeRange, Type) {
  printMaskElse(p, op, mask, other, Type(), Type());
}

#define GET_OP_CLASSES
#include "Kaio/Dialect/Kaio/IR/KaioOps.cpp.inc"

static bool isScalar(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return llvm::is_contained({8u, 16u, 32u, 64u}, i.getWidth());
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

static Type elementOf(Type type) {
  if (auto vec = dyn_cast<VectorType>(type))
    return vec.getElementType();
  return type;
}

/// Element types match up to signedness (ui8 pointers hold i8 values).
static bool sameElement(Type a, Type b) {
  if (a == b)
    return true;
  auto ia = dyn_cast<IntegerType>(a), ib = dyn_cast<IntegerType>(b);
  return ia && ib && ia.getWidth() == ib.getWidth();
}

/// The largest opt-in shared memory per block of any chip in the table.
static int64_t getMaxSharedPerBlockOfAnyChip() {
  int64_t limit = 0;
  for (const ptx::ChipInfo &chip : ptx::getChips())
    limit = std::max<int64_t>(limit, chip.maxSharedPerBlock);
  return limit;
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

int64_t KernelOp::getNumThreads() {
  // Saturating: three int32 extents overflow an int64 product.
  int64_t n = 1;
  for (int32_t d : getBlockSize())
    n = std::min<int64_t>(n * d, int64_t(1) << 32);
  return n;
}

LogicalResult KernelOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("kernels return no values");
  for (auto [i, type] : llvm::enumerate(getArgumentTypes())) {
    if (!isa<PtrType, TensorMapType>(type) && !isScalar(type))
      return emitOpError() << "parameter #" << i << " has type " << type
                           << "; kernels take !kaio.ptr, !kaio.tensor_map "
                              "and scalars";
    if (getArgAttr(i, KaioDialect::kSignedAttrName) &&
        (!isa<IntegerType>(type) || type.isInteger(8)))
      return emitOpError() << "'" << KaioDialect::kSignedAttrName
                           << "' marks i16, i32 or i64 parameters only";
    if (getArgAttr(i, KaioDialect::kReadOnlyAttrName) && !isa<PtrType>(type))
      return emitOpError() << "'" << KaioDialect::kReadOnlyAttrName
                           << "' marks pointer parameters only";
  }
  ArrayRef<int32_t> block = getBlockSize();
  if (block.empty() || block.size() > 3)
    return emitOpError("block_size has 1 to 3 dimensions");
  for (int32_t d : block)
    if (d <= 0)
      return emitOpError("block_size dimensions must be positive");
  if (getNumThreads() > 1024)
    return emitOpError() << "block of " << getNumThreads()
                         << " threads exceeds the limit of 1024";
  if (auto r = getMaxRegisters(); r && (*r < 16 || *r > 255))
    return emitOpError("max_registers must be between 16 and 255");
  if (auto m = getMinBlocksPerSm(); m && *m <= 0)
    return emitOpError("min_blocks_per_sm must be positive");
  if (std::optional<ArrayRef<int32_t>> cluster = getClusterSize()) {
    if (cluster->empty() || cluster->size() > 3)
      return emitOpError("cluster_size has 1 to 3 dimensions");
    int64_t blocks = 1;
    for (int32_t d : *cluster) {
      if (d <= 0)
        return emitOpError("cluster_size dimensions must be positive");
      blocks *= d;
    }
    if (blocks > rt::kPortableClusterBlocks)
      return emitOpError() << "cluster of " << blocks
                           << " blocks exceeds the portable limit of "
                           << rt::kPortableClusterBlocks;
  }
  return success();
}

/// Values that may differ between the threads of a block: thread and lane
/// ids and whatever is computed from them, including through loads at such
/// addresses and through structured control flow. Values loaded from memory
/// at uniform addresses are taken as uniform. `acrossCluster`: between the
/// threads of a cluster (block ids and ranks differ too).
static DenseSet<Value> findThreadDependentValues(KernelOp kernel,
                                                 bool acrossCluster = false) {
  DenseSet<Value> dep;
  bool changed = true;
  auto markAll = [&](ValueRange values) {
    for (Value v : values)
      changed |= dep.insert(v).second;
  };
  while (changed) {
    changed = false;
    kernel.walk([&](Operation *op) {
      if (isa<ThreadIdOp, LaneIdOp, WarpIdOp>(op) ||
          (acrossCluster && isa<BlockIdOp, BlockRankOp>(op))) {
        markAll(op->getResults());
        return;
      }
      bool anyDep = llvm::any_of(op->getOperands(),
                                 [&](Value v) { return dep.contains(v); });
      if (anyDep) {
        markAll(op->getResults());
        // Region arguments of a loop or branch driven by thread-dependent
        // operands (bounds, init values) are thread dependent too.
        for (Region &region : op->getRegions())
          for (Block &block : region)
            markAll(block.getArguments());
        // A yield of a thread-dependent value makes the parent's results
        // (and loop-carried arguments) thread dependent.
        if (op->hasTrait<OpTrait::IsTerminator>() && op->getParentOp() &&
            !isa<KernelOp>(op->getParentOp())) {
          Operation *parent = op->getParentOp();
          markAll(parent->getResults());
          for (Region &region : parent->getRegions())
            for (Block &block : region)
              markAll(block.getArguments());
        }
      }
    });
  }
  return dep;
}

/// The control-flow condition, if any, that decides whether `op` runs and
/// that differs between threads.
static Operation *findDivergentGuard(Operation *op, KernelOp kernel,
                                     const DenseSet<Value> &dep) {
  for (Operation *parent = op->getParentOp(); parent && parent != kernel;
       parent = parent->getParentOp()) {
    if (auto ifOp = dyn_cast<scf::IfOp>(parent))
      if (dep.contains(ifOp.getCondition()))
        return parent;
    if (auto forOp = dyn_cast<scf::ForOp>(parent))
      if (dep.contains(forOp.getLowerBound()) ||
          dep.contains(forOp.getUpperBound()) ||
          dep.contains(forOp.getStep()))
        return parent;
    if (auto whileOp = dyn_cast<scf::WhileOp>(parent))
      if (dep.contains(whileOp.getConditionOp().getCondition()))
        return parent;
  }
  return nullptr;
}

LogicalResult KernelOp::verifyRegions() {
  if (getBody().empty())
    return emitOpError("kernel must have a body");
  Block &entry = getBody().front();
  if (entry.getArgumentTypes() != getArgumentTypes())
    return emitOpError("entry block arguments must match the parameters");

  if (failed(verifyProxyFences(*this)))
    return failure();

  // Barriers must be reached by every thread of the block.
  DenseSet<Value> dep = findThreadDependentValues(*this);
  WalkResult barriers = walk([&](Operation *op) {
    if (!isa<BarrierOp, BlockReduceOp, AsyncCopyOp>(op))
      return WalkResult::advance();
    // A named barrier of some warps expects only those.
    if (auto barrier = dyn_cast<BarrierOp>(op); barrier && barrier.getThreads())
      return WalkResult::advance();
    if (Operation *guard = findDivergentGuard(op, *this, dep)) {
      InFlightDiagnostic diag =
          op->emitOpError()
          << "synchronises the block but sits under thread-dependent control "
             "flow: threads that skip it deadlock or race";
      diag.attachNote(guard->getLoc()) << "the condition depends on the thread";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (barriers.wasInterrupted())
    return failure();
  // Cluster barriers by every thread of every block of the cluster.
  DenseSet<Value> clusterDep;
  WalkResult clusterBarriers = walk([&](ClusterBarrierOp op) {
    if (clusterDep.empty())
      clusterDep = findThreadDependentValues(*this, /*acrossCluster=*/true);
    if (Operation *guard = findDivergentGuard(op, *this, clusterDep)) {
      InFlightDiagnostic diag =
          op->emitOpError()
          << "synchronises the cluster but sits under control flow that "
             "depends on the thread or its block: threads that skip it "
             "deadlock";
      diag.attachNote(guard->getLoc())
          << "the condition depends on the thread or its block";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (clusterBarriers.wasInterrupted())
    return failure();

  // Static shared memory, and what the target chip supports.
  const ptx::ChipInfo *chip = nullptr;
  if (auto module = (*this)->getParentOfType<ModuleOp>())
    if (auto target =
            module->getAttrOfType<StringAttr>(KaioDialect::kTargetAttrName))
      chip = ptx::lookupChip(target.getValue());
  if (getClusterSize() && chip && chip->sm < 90)
    return emitOpError() << "cluster_size needs sm_90, but the module "
                            "targets "
                         << chip->name;
  int64_t shared = 0;
  WalkResult limits = walk([&](Operation *op) {
    if (auto alloc = dyn_cast<SharedAllocOp>(op))
      shared += alloc.getType().getSizeInBytes();
    if (isa<BlockReduceOp>(op))
      shared += 32 * 8; // one partial per warp
    if (auto mma = dyn_cast<MmaOp>(op); mma && chip) {
      const ptx::MmaVariant *v =
          kaio::lookupMma(cast<FragType>(mma.getA().getType()),
                          cast<FragType>(mma.getB().getType()),
                          cast<FragType>(mma.getAcc().getType()));
      if (v && !ptx::satisfies(*chip, v->requirement)) {
        mma.emitOpError() << "needs " << ptx::formatSM(v->requirement)
                          << ", but the module targets " << chip->name;
        return WalkResult::interrupt();
      }
    }
    if (chip && failed(verifyHopperOpTarget(op, *chip)))
      return WalkResult::interrupt();
    if (isa<AsyncCopyOp>(op) && chip && chip->sm < 80) {
      op->emitOpError() << "needs cp.async (sm_80), but the module targets "
                        << chip->name;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (limits.wasInterrupted())
    return failure();
  // Above the static limit (48 KiB) the lowering moves the tiles into
  // dynamic shared memory, up to the chip's opt-in maximum (the largest of
  // any chip when the module names none; convert-kaio-to-ptx checks the
  // chip it compiles for).
  int64_t limit = chip ? chip->maxSharedPerBlock : getMaxSharedPerBlockOfAnyChip();
  if (shared > limit)
    return emitOpError() << "uses " << shared
                         << " bytes of shared memory; "
                         << (chip ? chip->name.str() : std::string("any chip"))
                         << " allows at most " << limit << " per block";
  return success();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

static LogicalResult checkVectorWidth(Operation *op, Type value) {
  auto vec = dyn_cast<VectorType>(value);
  if (!vec)
    return success();
  unsigned bits = vec.getNumElements() * vec.getElementTypeBitWidth();
  if (bits > 128)
    return op->emitOpError() << "vector of " << bits
                             << " bits exceeds the 128-bit access limit";
  return success();
}

LogicalResult LoadOp::verify() {
  Type elem = getPtr().getType().getElementType();
  if (!sameElement(elementOf(getResult().getType()), elem))
    return emitOpError() << "loads " << getResult().getType()
                         << " through a pointer to " << elem;
  if (getMask() && !getOther())
    return emitOpError("a masked load needs a fallback value");
  if (getOther() && !getMask())
    return emitOpError("a fallback value needs a mask");
  if (getOther() && getOther().getType() != getResult().getType())
    return emitOpError("fallback value must have the result type");
  return checkVectorWidth(*this, getResult().getType());
}

LogicalResult StoreOp::verify() {
  Type elem = getPtr().getType().getElementType();
  if (!sameElement(elementOf(getValue().getType()), elem))
    return emitOpError() << "stores " << getValue().getType()
                         << " through a pointer to " << elem;
  return checkVectorWidth(*this, getValue().getType());
}

/// Width 2 or 4 (8 for 16-bit elements), one element type matching the
/// pointer, at most 128 bits.
static LogicalResult verifyVectorAccess(Operation *op, Type elem,
                                        TypeRange types) {
  bool halves = elem.getIntOrFloatBitWidth() == 16;
  if (types.size() != 2 && types.size() != 4 &&
      !(halves && types.size() == 8))
    return op->emitOpError() << "accesses 2 or 4 elements"
                             << (halves ? " (8 of 16 bits)" : "") << ", not "
                             << types.size();
  for (Type t : types)
    if (!sameElement(t, elem))
      return op->emitOpError() << "accesses " << t << " through a pointer to "
                               << elem;
  unsigned bits = types.size() * elem.getIntOrFloatBitWidth();
  if (bits > 128)
    return op->emitOpError() << "a " << bits
                             << "-bit access exceeds the 128-bit limit";
  return success();
}

LogicalResult LoadVectorOp::verify() {
  Type elem = getPtr().getType().getElementType();
  if (failed(verifyVectorAccess(*this, elem, getResults().getTypes())))
    return failure();
  if (static_cast<bool>(getMask()) != static_cast<bool>(getOther()))
    return emitOpError("a mask and a fallback value come together");
  if (getOther() && getOther().getType() != getResults().front().getType())
    return emitOpError("fallback value must have the element type");
  return success();
}

LogicalResult StoreVectorOp::verify() {
  return verifyVectorAccess(*this, getPtr().getType().getElementType(),
                            getValues().getTypes());
}

LogicalResult AtomicOp::verify() {
  Type elem = getPtr().getType().getElementType();
  Type type = getValue().getType();
  if (!sameElement(type, elem))
    return emitOpError() << "atomic on " << type << " through a pointer to "
                         << elem;
  if (getResult().getType() != type)
    return emitOpError("result must have the value's type");
  switch (getKind()) {
  case AtomicKind::add:
    if (!(type.isInteger(32) || type.isInteger(64) || type.isF32() ||
          type.isF64() || type.isF16() || type.isBF16()))
      return emitOpError("atomic add takes i32, i64, f16, bf16, f32 or f64");
    break;
  case AtomicKind::max:
  case AtomicKind::min:
    if (!type.isInteger(32) && !type.isInteger(64))
      return emitOpError("atomic min/max take i32 or i64");
    break;
  default:
    if (!type.isInteger(32) && !type.isInteger(64))
      return emitOpError("bitwise and exchange atomics take i32 or i64");
  }
  return success();
}

LogicalResult BarrierOp::verify() {
  if (bool(getId()) != bool(getThreads()))
    return emitOpError("a named barrier takes an id and a thread count");
  if (!getId())
    return success();
  if (*getId() < 1 || *getId() > 15)
    return emitOpError() << "named barrier ids are 1 to 15 (0 is the "
                            "block's), got "
                         << *getId();
  if (*getThreads() < 32 || *getThreads() > 1024 || *getThreads() % 32)
    return emitOpError() << "a named barrier waits for whole warps: 32 to "
                            "1024 threads in steps of 32, got "
                         << *getThreads();
  if (auto kernel = (*this)->getParentOfType<KernelOp>()) {
    int64_t block = 1;
    for (int32_t d : kernel.getBlockSize())
      block *= d;
    if (*getThreads() > block)
      return emitOpError() << "waits for " << *getThreads()
                           << " threads but the block has " << block
                           << ": it would never open";
  }
  return success();
}

LogicalResult SharedAllocOp::verify() {
  int64_t limit = getMaxSharedPerBlockOfAnyChip();
  if (getType().getSizeInBytes() > limit)
    return emitOpError() << "allocates " << getType().getSizeInBytes()
                         << " bytes; no chip has more than " << limit
                         << " bytes of shared memory per block";
  return success();
}

/// 8-bit float tiles hold TMA boxes for warpgroup_mma; threads do not read
/// or write their elements (no arithmetic takes them: shared_load and
/// shared_store take scalars only).
static LogicalResult rejectFP8Tile(Operation *op, SmemType tile) {
  if (isFloat8(tile.getElementType()))
    return op->emitOpError()
           << "a tile of " << tile.getElementType()
           << " is filled by kaio.tma_load and read by kaio.warpgroup_mma "
              "only";
  return success();
}

static LogicalResult verifyTileAccess(Operation *op, SmemType tile,
                                      ValueRange indices, Type value) {
  if (indices.size() != tile.getShape().size())
    return op->emitOpError() << "expected " << tile.getShape().size()
                             << " indices into " << tile;
  if (!sameElement(value, tile.getElementType()))
    return op->emitOpError() << "accesses " << value << " in a tile of "
                             << tile.getElementType();
  for (auto [i, index] : llvm::enumerate(indices)) {
    APInt c;
    if (matchPattern(index, m_ConstantInt(&c)) &&
        (c.isNegative() || c.getSExtValue() >= tile.getShape()[i]))
      return op->emitOpError()
             << "index " << c.getSExtValue() << " is outside dimension " << i
             << " of size " << tile.getShape()[i];
  }
  return success();
}

LogicalResult SharedLoadOp::verify() {
  return verifyTileAccess(*this, getTile().getType(), getIndices(),
                          getResult().getType());
}

/// A vector access to `tile` at `indices` of `types` (a shared_load_vector's
/// results, a shared_store_vector's values): 2 or 4 (8 16-bit) consecutive
/// elements of a row-major row, the first aligned to the access.
static LogicalResult verifySharedVectorAccess(Operation *op, SmemType tile,
                                              ValueRange indices,
                                              TypeRange types,
                                              StringRef verb) {
  Type elem = tile.getElementType();
  if (types.empty())
    return op->emitOpError("accesses 2 or 4 elements, not 0");
  if (failed(verifyTileAccess(op, tile, indices, types.front())) ||
      failed(verifyVectorAccess(op, elem, types)))
    return failure();
  // Consecutive elements of a row: a row-major tile, inside its row.
  if (tile.getShape().size() != 2 && tile.getShape().size() != 1)
    return op->emitOpError()
           << verb << " rows of 1-D or 2-D tiles, not " << tile;
  if (tile.isColumnMajor())
    return op->emitOpError() << verb << " consecutive elements of a row; "
                             << tile << " is column-major";
  unsigned count = types.size();
  unsigned bytes = count * elem.getIntOrFloatBitWidth() / 8;
  if (LayoutAttr layout = tile.getLayout();
      layout && layout.isSwizzled() && (1u << layout.getSwizzle().base) < bytes)
    return op->emitOpError() << "a " << bytes << "-byte access would cross the "
                             << (1u << layout.getSwizzle().base)
                             << "-byte units that " << tile << " swizzles";
  int64_t width = tile.getShape().back();
  if (width % int64_t(count))
    return op->emitOpError() << "rows of " << width
                             << " elements are not whole " << count
                             << "-element accesses";
  // Every row's start aligned to the access (a padded stride that is not
  // would misalign all rows past the first).
  int64_t rowBytes = tile.getRowStride() * (elem.getIntOrFloatBitWidth() / 8);
  if (tile.getShape().size() == 2 && tile.getShape()[0] > 1 &&
      rowBytes % bytes)
    return op->emitOpError() << "rows of " << rowBytes << " bytes in " << tile
                             << " misalign a " << bytes << "-byte access";
  APInt c;
  if (matchPattern(indices.back(), m_ConstantInt(&c)) &&
      c.getSExtValue() % int64_t(count))
    return op->emitOpError() << "element " << c.getSExtValue()
                             << " is not aligned to the " << count
                             << "-element access";
  return success();
}

LogicalResult SharedLoadVectorOp::verify() {
  return verifySharedVectorAccess(*this, getTile().getType(), getIndices(),
                                  getResults().getTypes(), "reads");
}

LogicalResult SharedStoreVectorOp::verify() {
  return verifySharedVectorAccess(*this, getTile().getType(), getIndices(),
                                  getValues().getTypes(), "writes");
}

LogicalResult SharedStoreOp::verify() {
  return verifyTileAccess(*this, getTile().getType(), getIndices(),
                          getValue().getType());
}

LogicalResult SharedAddressOp::verify() {
  SmemType tile = getTile().getType();
  return verifyTileAccess(*this, tile, getIndices(), tile.getElementType());
}

LogicalResult ShuffleOp::verify() {
  uint32_t w = getWidth();
  if (w == 0 || w > 32 || !llvm::isPowerOf2_32(w))
    return emitOpError("width must be a power of two up to 32");
  return success();
}

//===----------------------------------------------------------------------===//
// Tiles and fragments
//===----------------------------------------------------------------------===//

LogicalResult AsyncCopyOp::verify() {
  SmemType dst = getDst().getType();
  Type elem = getSrc().getType().getElementType();
  if (!sameElement(elem, dst.getElementType()))
    return emitOpError() << "copies " << elem << " into a tile of "
                         << dst.getElementType();
  if (dst.getShape().size() != 2)
    return emitOpError("copies into 2-D tiles");
  if (std::optional<ArrayRef<int64_t>> r = getDstRows())
    if (r->size() != 2 || (*r)[0] < 0 || (*r)[1] < 1 ||
        (*r)[0] + (*r)[1] > dst.getShape()[0])
      return emitOpError() << "'rows' must be [first, count] with rows "
                              "first .. first + count - 1 inside the tile's "
                           << dst.getShape()[0];
  // Each cp.async writes consecutive elements of one tile row.
  if (dst.isColumnMajor())
    return emitOpError("copies row-major global rows into row-major tiles "
                       "only");
  unsigned bytes = std::max(1u, elem.getIntOrFloatBitWidth() / 8);
  if ((dst.getShape()[1] * bytes) % 4 != 0)
    return emitOpError() << "tile rows of " << dst.getShape()[1] * bytes
                         << " bytes are not a multiple of 4 (cp.async moves "
                            "4, 8 or 16 bytes)";
  if (dst.getLayout() && (dst.getRowStride() * bytes) % 4 != 0)
    return emitOpError() << "tile rows start " << dst.getRowStride() * bytes
                         << " bytes apart, not a multiple of 4 (cp.async "
                            "writes aligned chunks)";
  return success();
}

static LogicalResult verifyFragment(Operation *op, FragType frag) {
  if (!kaio::lookupMmaFor(frag))
    return op->emitOpError() << "no mma." << ptx::stringifyMMAShape(frag.getShape())
                             << " takes " << frag.getElementType() << " as "
                             << stringifyFragRole(frag.getRole());
  return success();
}

LogicalResult FragFillOp::verify() {
  FragType frag = getResult().getType();
  if (getValue().getType() != frag.getElementType())
    return emitOpError("fill value must have the fragment's element type");
  return verifyFragment(*this, frag);
}

LogicalResult LoadFragmentOp::verify() {
  FragType frag = getResult().getType();
  SmemType tile = getTile().getType();
  if (failed(rejectFP8Tile(*this, tile)))
    return failure();
  if (failed(verifyFragment(*this, frag)))
    return failure();
  if (frag.getRole() == FragRole::acc)
    return emitOpError("accumulators are not loaded from shared tiles");
  if (frag.getElementType().getIntOrFloatBitWidth() == 4)
    return emitOpError("4-bit fragments are not loaded from shared tiles");
  if (!sameElement(tile.getElementType(), frag.getElementType()))
    return emitOpError() << "loads " << frag.getElementType()
                         << " from a tile of " << tile.getElementType();
  if (tile.getShape().size() != 2)
    return emitOpError("loads from 2-D tiles");
  if (frag.getRole() == FragRole::a && tile.getLayout() &&
      tile.getLayout().getOrder() != MatrixOrder::row_major)
    return emitOpError("the A operand comes from a row-major tile");
  // ldmatrix reads 16 contiguous bytes per row: the swizzle must keep them
  // together.
  if (tile.getLayout() && tile.getLayout().isSwizzled() &&
      tile.getLayout().getSwizzleBase() < 4 &&
      frag.getElementType().getIntOrFloatBitWidth() == 16)
    return emitOpError() << "ldmatrix reads 16-byte rows, which swizzle base "
                         << tile.getLayout().getSwizzleBase()
                         << " splits (base must be >= 4)";
  if (getTranspose() && tile.isColumnMajor())
    return emitOpError() << "loads a transposed "
                         << stringifyFragRole(frag.getRole()).upper()
                         << " from a row-major tile";
  auto [atomRows, atomCols] = frag.getAtomExtent();
  int64_t rows = int64_t(atomRows) * frag.getTileRows();
  int64_t cols = int64_t(atomCols) * frag.getTileCols();
  if (getTranspose())
    std::swap(rows, cols);
  if (tile.getShape()[0] < rows || tile.getShape()[1] < cols)
    return emitOpError() << "a " << rows << "x" << cols
                         << " fragment does not fit in " << tile;
  APInt r, c;
  if (matchPattern(getRow(), m_ConstantInt(&r)) &&
      (r.isNegative() || r.getSExtValue() + rows > tile.getShape()[0]))
    return emitOpError() << "rows " << r.getSExtValue() << ".."
                         << r.getSExtValue() + rows - 1
                         << " are outside the tile";
  if (matchPattern(getCol(), m_ConstantInt(&c)) &&
      (c.isNegative() || c.getSExtValue() + cols > tile.getShape()[1]))
    return emitOpError() << "columns " << c.getSExtValue() << ".."
                         << c.getSExtValue() + cols - 1
                         << " are outside the tile";
  return success();
}

LogicalResult TileOffsetOp::verify() {
  auto type = cast<SmemType>(getTileType());
  if (getIndices().size() != type.getShape().size())
    return emitOpError() << "takes " << type.getShape().size()
                         << " indices for " << type << ", got "
                         << getIndices().size();
  if (type.getShape().size() == 2 && !type.getLayout())
    return emitOpError() << "needs a tile type with a layout, got " << type;
  return success();
}

LogicalResult MmaOp::verify() {
  auto a = cast<FragType>(getA().getType());
  auto b = cast<FragType>(getB().getType());
  auto acc = cast<FragType>(getAcc().getType());
  if (a.getRole() != FragRole::a || b.getRole() != FragRole::b ||
      acc.getRole() != FragRole::acc)
    return emitOpError("operands must be A, B and accumulator fragments");
  if (a.getShape() != b.getShape() || a.getShape() != acc.getShape())
    return emitOpError("fragments have different mma shapes");
  // Tiles: A [tm, tk] x B [tk, tn] into an accumulator [tm, tn].
  if (a.getTileRows() != acc.getTileRows() ||
      b.getTileCols() != acc.getTileCols() ||
      a.getTileCols() != b.getTileRows())
    return emitOpError() << "a tile of " << a.getTileRows() << "x"
                         << a.getTileCols() << " A atoms times "
                         << b.getTileRows() << "x" << b.getTileCols()
                         << " B atoms does not make " << acc.getTileRows()
                         << "x" << acc.getTileCols() << " accumulator atoms";
  if (!kaio::lookupMma(a, b, acc))
    return emitOpError() << "no mma." << ptx::stringifyMMAShape(a.getShape())
                         << " multiplies " << a.getElementType() << " x "
                         << b.getElementType() << " into "
                         << acc.getElementType();
  return success();
}

/// Whether `extra` is a row broadcast for `in`: an R x 1 accumulator tile
/// of the same mma shape for an R x C accumulator tile.
static bool isRowBroadcast(FragType in, FragType extra) {
  return in.getRole() == FragRole::acc && extra.getRole() == FragRole::acc &&
         extra.getShape() == in.getShape() &&
         extra.getTileRows() == in.getTileRows() && extra.getTileCols() == 1 &&
         extra.getElementsPerLane() == in.getElementsPerLane();
}

/// The element type the body takes for an extra operand.
static Type bodyTypeOf(Value extra) {
  if (auto frag = dyn_cast<FragType>(extra.getType()))
    return frag.getElementType();
  return extra.getType();
}

LogicalResult FragMapOp::verify() {
  FragType in = getInput().getType(), out = getResult().getType();
  if (in.getRole() != out.getRole() || in.getShape() != out.getShape() ||
      in.getTileRows() != out.getTileRows() ||
      in.getTileCols() != out.getTileCols())
    return emitOpError("result must keep the fragment's role and shape");
  if (failed(verifyFragment(*this, in)) || failed(verifyFragment(*this, out)))
    return failure();
  for (Value extra : getExtras()) {
    auto frag = dyn_cast<FragType>(extra.getType());
    if (!frag)
      continue;
    bool sameTile = frag.getRole() == in.getRole() &&
                    frag.getShape() == in.getShape() &&
                    frag.getTileRows() == in.getTileRows() &&
                    frag.getTileCols() == in.getTileCols();
    if (!sameTile && !isRowBroadcast(in, frag))
      return emitOpError() << "fragment operand " << frag
                           << " is neither the input's tile nor a row "
                              "broadcast (an R x 1 accumulator tile) of it";
    if (failed(verifyFragment(*this, frag)))
      return failure();
  }
  // Checked before the body's own ops are verified: nothing about them may
  // be assumed (a generic-form yield can have no operand; found by fuzzing).
  if (getBody().empty())
    return emitOpError("needs a body");
  Block &body = getBody().front();
  unsigned leading = getIndexed() ? 3 : 1;
  if (body.getNumArguments() != leading + getExtras().size())
    return emitOpError() << "body takes the element"
                         << (getIndexed() ? ", its row and column" : "")
                         << " and each extra operand";
  if (body.getArgument(0).getType() != in.getElementType())
    return emitOpError("first body argument must be the element type");
  if (getIndexed() && (!body.getArgument(1).getType().isInteger(32) ||
                       !body.getArgument(2).getType().isInteger(32)))
    return emitOpError("an indexed body takes the row and column as i32");
  for (auto [arg, extra] :
       llvm::zip(body.getArguments().drop_front(leading), getExtras()))
    if (arg.getType() != bodyTypeOf(extra))
      return emitOpError("body arguments must match the extra operands");
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield || yield->getNumOperands() != 1)
    return emitOpError("body must end in a kaio.yield of one value");
  if (yield.getValue().getType() != out.getElementType())
    return emitOpError("body must yield the result's element type");
  if (out.getElementType() != in.getElementType() && in.getRole() != FragRole::acc)
    return emitOpError("only accumulators change element type");
  return success();
}

LogicalResult FragReduceRowsOp::verify() {
  FragType in = getInput().getType(), out = getResult().getType();
  if (in.getRole() != FragRole::acc)
    return emitOpError("reduces accumulator tiles");
  if (failed(verifyFragment(*this, in)))
    return failure();
  if (!in.getElementType().isF32())
    return emitOpError() << "reduces f32 accumulators, not "
                         << in.getElementType();
  if (out != in.withTile(in.getTileRows(), 1))
    return emitOpError() << "result must be " << in.withTile(in.getTileRows(), 1)
                         << " (one column of atoms), not " << out;
  return success();
}

LogicalResult FragSliceOp::verify() {
  FragType in = getInput().getType(), out = getResult().getType();
  if (failed(verifyFragment(*this, in)))
    return failure();
  if (out != in.withTile(out.getTileRows(), out.getTileCols()))
    return emitOpError("result must keep the role, shape and element type");
  ArrayRef<int64_t> off = getOffsets();
  if (off.size() != 2)
    return emitOpError("takes two atom offsets (row, column)");
  if (off[0] < 0 || off[1] < 0 ||
      off[0] + out.getTileRows() > int64_t(in.getTileRows()) ||
      off[1] + out.getTileCols() > int64_t(in.getTileCols()))
    return emitOpError() << "atoms [" << off[0] << ", " << off[1] << "] + "
                         << out.getTileRows() << "x" << out.getTileCols()
                         << " are outside the " << in.getTileRows() << "x"
                         << in.getTileCols() << " tile";
  return success();
}

LogicalResult FragToOperandOp::verify() {
  FragType in = getInput().getType(), out = getResult().getType();
  if (in.getRole() != FragRole::acc || out.getRole() != FragRole::a)
    return emitOpError("turns an accumulator tile into an A tile");
  if (in.getShape() != out.getShape())
    return emitOpError("keeps the mma shape");
  if (failed(verifyFragment(*this, in)) || failed(verifyFragment(*this, out)))
    return failure();
  Type elem = out.getElementType();
  if (!in.getElementType().isF32() || !(elem.isF16() || elem.isBF16()))
    return emitOpError() << "converts f32 accumulators to f16 or bf16, not "
                         << in.getElementType() << " to " << elem;
  unsigned accCols = in.getAtomExtent().second;
  unsigned aCols = out.getAtomExtent().second;
  if (aCols % accCols)
    return emitOpError("A atoms must span whole accumulator atoms");
  unsigned per = aCols / accCols;
  if (out.getTileRows() != in.getTileRows() ||
      out.getTileCols() * per != in.getTileCols())
    return emitOpError() << "a " << in.getTileRows() << "x"
                         << in.getTileCols() << " accumulator tile makes a "
                         << in.getTileRows() << "x" << in.getTileCols() / per
                         << " A tile (" << per
                         << " accumulator atoms per A atom), not "
                         << out.getTileRows() << "x" << out.getTileCols();
  if (failed(getOperandFromAccumulator(in, out)))
    return emitOpError("the fragment layouts do not put the A elements in "
                       "the lanes that hold them as accumulators");
  return success();
}

LogicalResult StoreFragmentOp::verify() {
  FragType frag = getFrag().getType();
  if (frag.getRole() != FragRole::acc)
    return emitOpError("stores accumulator fragments");
  if (failed(verifyFragment(*this, frag)))
    return failure();
  Type elem = getDst().getType().getElementType();
  if (!(elem.isF32() || elem.isF16() || elem.isBF16() || elem.isInteger(32)))
    return emitOpError() << "stores to f32, f16, bf16 or i32 matrices, not "
                         << elem;
  if (frag.getElementType().isInteger(32) != elem.isInteger(32))
    return emitOpError("integer accumulators store to i32 matrices");
  if (getBeta() && elem.isInteger(32))
    return emitOpError("beta applies to floating-point matrices");
  return success();
}
