//===- KaioHopperOps.cpp - TMA, mbarrier and warpgroup MMA ops ------------===//
//
// Verifiers of the sm_90a tile ops. Besides shapes and types they check
// what a wrong kernel would otherwise only show as garbage on the GPU:
// TMA destinations and wgmma operands in the swizzled layout the hardware
// writes and reads, a TMA destination read before its mbarrier wait (in
// straight-line code), and a warpgroup_mma result read before
// kaio.warpgroup_wait (through scf.for and scf.if).
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace kaio;

static std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

static int64_t bytesOf(Type type) {
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

/// A 1-D tile of i64, one mbarrier per element, and an index into it.
static LogicalResult verifyBarrier(Operation *op, SmemType bars, Value index) {
  if (bars.getShape().size() != 1 || !bars.getElementType().isInteger(64))
    return op->emitOpError() << "mbarriers live in a 1-D tile of i64, got "
                             << bars;
  if (std::optional<int64_t> i = constantOf(index);
      i && (*i < 0 || *i >= bars.getShape()[0]))
    return op->emitOpError() << "mbarrier " << *i << " is outside the "
                             << bars.getShape()[0] << " of " << bars;
  return success();
}

/// The bytes of a row of a 2-D tile that wgmma and TMA address as swizzled
/// rows: the tile must state a row-major layout without padding whose
/// swizzle is the identity or one of the hardware's 32/64/128-byte modes
/// (Swizzle<1|2|3, 4, 3>) with rows of exactly that many bytes. Returns the
/// swizzle's bytes (0: not swizzled).
static FailureOr<int64_t> verifyHardwareLayout(Operation *op, SmemType tile,
                                               StringRef what) {
  if (tile.getShape().size() != 2)
    return op->emitOpError() << what << " must be a 2-D tile, got " << tile;
  LayoutAttr layout = tile.getLayout();
  if (!layout)
    return op->emitOpError()
           << what << " needs an explicit layout (the hardware fixes it), e.g. "
                      "#kaio.layout<row_major, swizzle = <3, 4, 3>>";
  if (layout.getPad() || tile.isColumnMajor())
    return op->emitOpError() << what
                             << " must be row-major without padding, got "
                             << tile;
  if (!layout.isSwizzled())
    return int64_t(0);
  ptx::Swizzle swizzle = layout.getSwizzle();
  std::optional<ptx::WgmmaSwizzle> mode = ptx::getWgmmaSwizzle(swizzle);
  if (!mode || *mode == ptx::WgmmaSwizzle::None)
    return op->emitOpError()
           << what << " has swizzle <" << swizzle.bits << ", " << swizzle.base
           << ", " << swizzle.shift
           << ">, which is not a hardware mode: use <1|2|3, 4, 3> "
              "(32/64/128 bytes)";
  int64_t span = int64_t(16) << swizzle.bits;
  int64_t rowBytes = tile.getShape()[1] * bytesOf(tile.getElementType());
  if (rowBytes != span)
    return op->emitOpError() << what << " rows are " << rowBytes
                             << " bytes; its " << span
                             << "-byte swizzle needs rows of exactly " << span;
  return span;
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

LogicalResult MBarrierInitOp::verify() {
  if (failed(verifyBarrier(*this, getBars().getType(), getIndex())))
    return failure();
  if (std::optional<int64_t> n = constantOf(getCount());
      n && (*n < 1 || *n >= (1 << 20)))
    return emitOpError() << "arrival count must be in [1, 2^20), got " << *n;
  return success();
}

/// The blocks of the cluster of `op`'s kernel (its cluster_size), or
/// nothing (reported, naming `what`) when the kernel has none.
static FailureOr<int64_t> clusterBlocks(Operation *op, StringRef what) {
  auto kernel = op->getParentOfType<KernelOp>();
  std::optional<ArrayRef<int32_t>> cluster =
      kernel ? kernel.getClusterSize() : std::nullopt;
  if (!cluster)
    return op->emitOpError() << what << " needs a kernel with cluster_size";
  int64_t blocks = 1;
  for (int32_t d : *cluster)
    blocks *= d;
  return blocks;
}

LogicalResult MBarrierArriveOp::verify() {
  if (failed(verifyBarrier(*this, getBars().getType(), getIndex())))
    return failure();
  if (Value block = getBlock()) {
    FailureOr<int64_t> blocks = clusterBlocks(*this, "on_block");
    if (failed(blocks))
      return failure();
    if (std::optional<int64_t> r = constantOf(block);
        r && (*r < 0 || *r >= *blocks))
      return emitOpError() << "on_block " << *r << " is not a block of the "
                           << *blocks << "-block cluster";
  }
  if (getTxBytes())
    if (std::optional<int64_t> n = constantOf(getTxBytes());
        n && (*n < 0 || *n >= (1 << 20)))
      return emitOpError() << "transaction bytes must be in [0, 2^20), got "
                           << *n;
  return success();
}

LogicalResult MBarrierWaitOp::verify() {
  if (failed(verifyBarrier(*this, getBars().getType(), getIndex())))
    return failure();
  if (std::optional<int64_t> p = constantOf(getParity()); p && *p != 0 && *p != 1)
    return emitOpError() << "phase parity must be 0 or 1, got " << *p;
  return success();
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

/// Whether `op` writes a shared tile through a kaio op.
static bool isTileWrite(Operation *op) {
  return isa<SharedStoreOp, SharedStoreVectorOp, SharedStoreFragmentOp,
             AsyncCopyOp>(op);
}

/// The first op in `op` (or nested in it) that reads or writes `tile`
/// through a kaio op (another TMA copy into it, at other rows, is fine).
static Operation *findTileAccess(Operation *op, Value tile) {
  Operation *found = nullptr;
  op->walk([&](Operation *nested) {
    if (!isa<SharedLoadOp, SharedLoadVectorOp, SharedAddressOp, LoadFragmentOp,
             WarpgroupMmaOp>(nested) &&
        !isTileWrite(nested))
      return WalkResult::advance();
    if (!llvm::is_contained(nested->getOperands(), tile))
      return WalkResult::advance();
    found = nested;
    return WalkResult::interrupt();
  });
  return found;
}

/// A TMA box and the tile rows from `row` it lands in (or is read from):
/// the same element type, the map's swizzle as the tile's hardware layout,
/// box rows the tile's rows, inside the tile.
static LogicalResult verifyTmaTile(Operation *op, TensorMapType map,
                                   size_t coords, SmemType tile, Value rowValue,
                                   StringRef what) {
  if (coords != map.getBox().size())
    return op->emitOpError() << "expected " << map.getBox().size()
                             << " coordinates for " << map;
  if (tile.getElementType() != map.getElementType())
    return op->emitOpError() << "copies " << map.getElementType()
                             << " elements " << (what == "destination" ? "into" : "from")
                             << " a tile of " << tile.getElementType();
  FailureOr<int64_t> span = verifyHardwareLayout(op, tile, ("the " + what).str());
  if (failed(span))
    return failure();
  if (*span != map.getSwizzle())
    return op->emitOpError()
           << "the map swizzles " << map.getSwizzle() << " bytes but the "
           << what << " tile "
           << (*span ? "swizzles " + std::to_string(*span) + " bytes"
                     : std::string("is not swizzled"))
           << ": TMA uses the map's layout";
  ArrayRef<int64_t> box = map.getBox();
  if (box.back() != tile.getShape()[1])
    return op->emitOpError() << "the box's rows are " << box.back()
                             << " elements but the tile's are "
                             << tile.getShape()[1]
                             << ": TMA moves box rows one after another";
  int64_t rows = 1;
  for (int64_t d : box.drop_back())
    rows *= d;
  std::optional<int64_t> row = constantOf(rowValue);
  int64_t rowBytes = tile.getShape()[1] * bytesOf(tile.getElementType());
  if (row && (*row * rowBytes) % 128)
    return op->emitOpError() << "row " << *row << " starts " << *row * rowBytes
                             << " bytes into the tile; TMA needs 128-byte "
                                "aligned shared addresses";
  if (rows > tile.getShape()[0] ||
      (row && (*row < 0 || *row + rows > tile.getShape()[0])))
    return op->emitOpError() << "the box's " << rows << " rows "
                             << (row ? "at row " + std::to_string(*row) + " " : "")
                             << "do not fit the tile's " << tile.getShape()[0];
  return success();
}

/// Whether two i32 values are different constants.
static bool provablyDifferent(Value a, Value b) {
  std::optional<int64_t> x = constantOf(a), y = constantOf(b);
  return x && y && *x != *y;
}

LogicalResult TmaLoadOp::verify() {
  if (failed(verifyTmaTile(*this, getMap().getType(), getCoords().size(),
                           getDst().getType(), getRow(), "destination")))
    return failure();
  if (failed(verifyBarrier(*this, getBars().getType(), getIndex())))
    return failure();
  if (Value mask = getMulticast()) {
    // The mask names blocks of the kernel's cluster.
    FailureOr<int64_t> blocks = clusterBlocks(*this, "multicast");
    if (failed(blocks))
      return failure();
    if (std::optional<int64_t> m = constantOf(mask);
        m && (*m <= 0 || (*m >> *blocks) != 0))
      return emitOpError() << "multicast mask " << *m
                           << " must name blocks 0.." << *blocks - 1
                           << " of the cluster";
  }

  // Straight-line code after the copy must wait on the barrier before it
  // reads the tile, or writes it (the copy may land after the write).
  for (Operation *op = (*this)->getNextNode(); op; op = op->getNextNode()) {
    if (auto wait = dyn_cast<MBarrierWaitOp>(op);
        wait && wait.getBars() == getBars() &&
        !provablyDifferent(wait.getIndex(), getIndex()))
      break;
    if (Operation *access = findTileAccess(op, getDst())) {
      if (isTileWrite(access)) {
        InFlightDiagnostic diag =
            emitOpError() << "destination is written before a "
                             "kaio.mbarrier_wait on its barrier: the copy "
                             "may land over the write";
        diag.attachNote(access->getLoc()) << "written here";
        return diag;
      }
      InFlightDiagnostic diag =
          emitOpError() << "destination is read before a kaio.mbarrier_wait "
                           "on its barrier: the copy may not have landed";
      diag.attachNote(access->getLoc()) << "read here";
      return diag;
    }
  }
  return success();
}

LogicalResult TmaStoreOp::verify() {
  return verifyTmaTile(*this, getMap().getType(), getCoords().size(),
                       getSrc().getType(), getRow(), "source");
}

LogicalResult TmaStoreWaitOp::verify() {
  if (getPending() < 0 || getPending() > 255)
    return emitOpError() << "pending must be in [0, 255], got "
                         << getPending();
  return success();
}

//===----------------------------------------------------------------------===//
// Fragments through shared memory
//===----------------------------------------------------------------------===//

LogicalResult SharedStoreFragmentOp::verify() {
  auto frag = cast<FragType>(getFrag().getType());
  SmemType tile = getTile().getType();
  if (frag.getRole() != FragRole::acc)
    return emitOpError() << "stores accumulator fragments, got " << frag;
  if (!kaio::lookupMmaFor(frag))
    return emitOpError() << "no mma takes " << frag;
  Type elem = tile.getElementType();
  Type accElem = frag.getElementType();
  if (accElem.isInteger(32)) {
    // Integer sums are stored as they are.
    if (!elem.isInteger(32))
      return emitOpError() << "stores i32 accumulators into i32 tiles, got "
                           << elem;
  } else if (!accElem.isF32() && !accElem.isF16()) {
    return emitOpError() << "stores f32, f16 or i32 accumulators, got "
                         << accElem;
  } else if (!(elem.isF32() || elem.isF16() || elem.isBF16())) {
    return emitOpError()
           << "stores float accumulators into f32, f16 or bf16 tiles, got "
           << elem;
  }
  if (tile.getShape().size() != 2)
    return emitOpError() << "stores into a 2-D tile, got " << tile;
  auto [atomRows, atomCols] = frag.getAtomExtent();
  int64_t rows = int64_t(atomRows) * frag.getTileRows(),
          cols = int64_t(atomCols) * frag.getTileCols();
  std::optional<int64_t> row = constantOf(getRow()), col = constantOf(getCol());
  if (rows > tile.getShape()[0] || cols > tile.getShape()[1] ||
      (row && (*row < 0 || *row + rows > tile.getShape()[0])) ||
      (col && (*col < 0 || *col + cols > tile.getShape()[1])))
    return emitOpError() << "the " << rows << " x " << cols
                         << " accumulator does not fit the " << tile
                         << " there";
  return success();
}

//===----------------------------------------------------------------------===//
// Warpgroup MMA
//===----------------------------------------------------------------------===//

/// Uses of an in-flight accumulator that do not read it: the accumulator of
/// another warpgroup_mma (as its only use: wgmma overwrites it in place, so
/// a second use would need a copy of registers still being written), a
/// wait, and scf.for/scf.if carrying it on (whose block arguments and
/// results are then in flight too). Any other use, and a yield to another
/// parent, counts as a read.
static LogicalResult checkInFlightUses(WarpgroupMmaOp mma) {
  SmallVector<Value> work{mma.getResult()};
  llvm::DenseSet<Value> seen;
  auto read = [&](Operation *user, StringRef what) {
    InFlightDiagnostic diag = mma.emitOpError() << what;
    diag.attachNote(user->getLoc()) << "used here";
    return diag;
  };
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    Operation *accumulatedBy = nullptr;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto next = dyn_cast<WarpgroupMmaOp>(user);
          next && &use == &next.getAccMutable()) {
        accumulatedBy = user;
        continue;
      }
      if (isa<WarpgroupWaitOp>(user))
        continue;
      unsigned n = use.getOperandNumber();
      if (auto loop = dyn_cast<scf::ForOp>(user);
          loop && n >= loop.getNumControlOperands() &&
          n - loop.getNumControlOperands() < loop.getNumRegionIterArgs()) {
        unsigned i = n - loop.getNumControlOperands();
        work.push_back(loop.getRegionIterArgs()[i]);
        work.push_back(loop.getResult(i));
        continue;
      }
      if (isa<scf::YieldOp>(user)) {
        Operation *parent = user->getParentOp();
        if (auto loop = dyn_cast<scf::ForOp>(parent);
            loop && n < loop.getNumRegionIterArgs()) {
          work.push_back(loop.getRegionIterArgs()[n]);
          work.push_back(loop.getResult(n));
          continue;
        }
        if (isa<scf::IfOp>(parent) && n < parent->getNumResults()) {
          work.push_back(parent->getResult(n));
          continue;
        }
      }
      return read(user, "result is read before kaio.warpgroup_wait: wgmma "
                        "writes it asynchronously");
    }
    if (accumulatedBy && !value.hasOneUse())
      return read(accumulatedBy,
                  "result, still in flight, is the accumulator of another "
                  "kaio.warpgroup_mma and has other uses: wgmma overwrites "
                  "its accumulator in place");
  }
  return success();
}

bool kaio::isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

ptx::PTXType kaio::getWgmmaType(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return ptx::PTXType::e4m3;
  if (isa<Float8E5M2Type>(type))
    return ptx::PTXType::e5m2;
  return type.isBF16() ? ptx::PTXType::bf16 : ptx::PTXType::f16;
}

int64_t WarpgroupMmaOp::getKExtent() {
  if (getTransposeA())
    return int64_t(getK().value_or(0));
  if (auto tile = dyn_cast<SmemType>(getA().getType()))
    return tile.getShape()[1];
  return int64_t(cast<FragType>(getA().getType()).getTileCols()) * 16;
}

LogicalResult WarpgroupMmaOp::verify() {
  SmemType b = getB().getType();
  auto aTile = dyn_cast<SmemType>(getA().getType());
  auto aFrag = dyn_cast<FragType>(getA().getType());
  Type elem = aTile ? aTile.getElementType() : aFrag.getElementType();
  int64_t k = 0, aRows = 64;
  if (getK() && !getTransposeA())
    return emitOpError("k is for a transposed A; otherwise K is A's columns");
  if (aTile) {
    FailureOr<int64_t> span = verifyHardwareLayout(*this, aTile, "A");
    if (failed(span))
      return failure();
    if (!*span)
      return emitOpError("A must be swizzled (32, 64 or 128 bytes): wgmma "
                         "reads KAIO's tiles through swizzled descriptors");
    if (!getARow())
      return emitOpError("A from a shared tile needs its first row: %a[%row]");
    if (getTransposeA()) {
      // M-major: K rows per block of the tile's width along M's 64.
      if (!getK())
        return emitOpError("a transposed A needs its K: {k = 64}");
      k = getKExtent();
      if (k <= 0 || k % 16)
        return emitOpError() << "k must be a positive multiple of 16, got "
                             << k;
      int64_t w = aTile.getShape()[1];
      if (64 % w)
        return emitOpError() << "a transposed A's 64 columns of M are not "
                                "whole blocks of the tile's "
                             << w << " columns";
      aRows = 64 / w * k;
      if (aRows > aTile.getShape()[0])
        return emitOpError() << "A needs " << aRows << " rows (64 / " << w
                             << " blocks of K = " << k << "), the tile has "
                             << aTile.getShape()[0];
    } else {
      if (aTile.getShape()[0] < 64)
        return emitOpError() << "A has " << aTile.getShape()[0]
                             << " rows; a warpgroup multiplies 64";
      k = aTile.getShape()[1];
    }
  } else {
    if (getTransposeA())
      return emitOpError("A in registers is not transposed: only a shared "
                         "tile can hold A^T");
    if (aFrag.getRole() != FragRole::a ||
        aFrag.getShape() != ptx::MMAShape::m16n8k16 ||
        aFrag.getTileRows() != 1)
      return emitOpError() << "A in registers is a warp's 16 rows, "
                              "!kaio.frag<a, m16n8k16, f16|bf16, 1xK/16>; got "
                           << aFrag;
    if (getARow())
      return emitOpError("A in registers takes no row");
    k = int64_t(aFrag.getTileCols()) * 16;
  }
  FailureOr<int64_t> bSpan = verifyHardwareLayout(*this, b, "B");
  if (failed(bSpan))
    return failure();
  if (!*bSpan)
    return emitOpError("B must be swizzled (32, 64 or 128 bytes): wgmma "
                       "reads KAIO's tiles through swizzled descriptors");
  // 16-bit operands of one type, or 8-bit floats (E4M3/E5M2, mixed too),
  // which wgmma reads K-major from shared memory only.
  const bool fp8 = isFloat8(elem) && isFloat8(b.getElementType());
  if (!fp8 &&
      (!(elem.isF16() || elem.isBF16()) || b.getElementType() != elem))
    return emitOpError() << "multiplies f16 or bf16 operands of one type or "
                            "8-bit floats (f8E4M3FN, f8E5M2), got "
                         << elem << " and " << b.getElementType();
  if (fp8 && (!aTile || getTransposeA() || !getTranspose()))
    return emitOpError("8-bit float operands are K-major shared tiles: A "
                       "not transposed, B with `transpose` (wgmma reads FP8 "
                       "K-major only)");
  // One wgmma covers 32 bytes of K (K is a whole swizzle row of A, or the
  // checked multiple of 16 of a transposed A).
  const int64_t kInstr = fp8 ? 32 : 16;
  auto acc = cast<FragType>(getAcc().getType());
  if (acc.getRole() != FragRole::acc ||
      acc.getShape() != ptx::MMAShape::m16n8k16 ||
      !acc.getElementType().isF32() || acc.getTileRows() != 1)
    return emitOpError() << "the accumulator is a warp's 16 rows, "
                            "!kaio.frag<acc, m16n8k16, f32, 1xN/8>; got "
                         << acc;
  int64_t n = int64_t(acc.getTileCols()) * 8;
  const ptx::WgmmaVariant *variant =
      ptx::lookupWgmma(ptx::PTXType::f32, getWgmmaType(elem),
                       getWgmmaType(b.getElementType()));
  if (!variant || !variant->isLegalN(n))
    return emitOpError() << "no wgmma m64n" << n << "k" << kInstr
                         << " (N is 8 to 256 in steps of 8)";
  int64_t w = b.getShape()[1], bRows = 0;
  if (getTranspose()) {
    // K-major: N rows of K.
    if (w != k)
      return emitOpError() << "a transposed B holds rows of K = " << k
                           << ", the tile's are " << w;
    bRows = n;
  } else {
    if (n % w)
      return emitOpError() << "N = " << n << " is not a multiple of B's "
                           << w << "-column blocks";
    bRows = n / w * k;
  }
  if (bRows > b.getShape()[0])
    return emitOpError() << "B needs " << bRows << " rows (N = " << n
                         << ", K = " << k << "), the tile has "
                         << b.getShape()[0];
  SmallVector<std::tuple<Value, int64_t, SmemType, StringRef>> rows = {
      {getBRow(), bRows, b, "B"}};
  if (aTile)
    rows.push_back({getARow(), aRows, aTile, "A"});
  for (auto [value, count, tile, name] : rows) {
    std::optional<int64_t> row = constantOf(value);
    if (!row)
      continue;
    if (*row % 8 || *row < 0 || *row + count > tile.getShape()[0])
      return emitOpError() << name << " starts at row " << *row
                           << ": it needs a multiple of 8 with " << count
                           << " rows inside the tile's " << tile.getShape()[0];
  }
  return checkInFlightUses(*this);
}

/// The result has the accumulator's type (the last operand).
LogicalResult WarpgroupMmaOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  if (operands.empty())
    return failure();
  inferred.push_back(operands.back().getType());
  return success();
}

LogicalResult WarpgroupWaitOp::verify() {
  if (getPending() < 0 || getPending() > 7)
    return emitOpError() << "pending must be in [0, 7], got " << getPending();
  if (getPending() == 0)
    return success();
  // With N groups left in flight, an accumulator is complete when at least
  // N newer groups were committed after its own: warpgroup_mma ops between
  // its definition and the wait in straight-line code of this block (each
  // is one group; ops inside nested regions may not run, so they do not
  // count).
  for (Value acc : getAccs()) {
    auto mma = acc.getDefiningOp<WarpgroupMmaOp>();
    if (!mma || mma->getBlock() != (*this)->getBlock())
      return emitOpError()
             << "with pending " << getPending()
             << ", an accumulator must come from a kaio.warpgroup_mma earlier "
                "in this block (which group it belongs to must be visible)";
    int64_t newer = 0;
    for (Operation *op = mma->getNextNode(); op && op != *this;
         op = op->getNextNode())
      newer += isa<WarpgroupMmaOp>(op);
    if (newer < getPending())
      return emitOpError() << "with pending " << getPending()
                           << " the accumulator's group may still be in "
                              "flight: only "
                           << newer
                           << " warpgroup_mma follow it before the wait";
  }
  return success();
}

LogicalResult WarpgroupWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  for (Value v : operands)
    inferred.push_back(v.getType());
  return success();
}

LogicalResult SetMaxNRegOp::verify() {
  int64_t n = getCount();
  if (n < 24 || n > 256 || n % 8)
    return emitOpError() << "count must be a multiple of 8 in [24, 256], got "
                         << n;
  return success();
}

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

LogicalResult kaio::verifyHopperOpTarget(Operation *op,
                                         const ptx::ChipInfo &chip) {
  unsigned sm = 0;
  bool archSpecific = false;
  auto tma = dyn_cast<TmaLoadOp>(op);
  if (isa<WarpgroupMmaOp, WarpgroupWaitOp, SetMaxNRegOp>(op) ||
      (tma && tma.getMulticast()))
    sm = 90, archSpecific = true; // .multicast::cluster too
  else if (isa<TmaLoadOp, TmaStoreOp, TmaStoreWaitOp, FenceProxyAsyncOp,
               MBarrierWaitOp, ClusterBarrierOp, BlockRankOp, ClusterIdOp,
               ClusterGridDimOp>(op))
    sm = 90; // cp.async.bulk(.tensor), fence.proxy.async, try_wait.parity,
             // clusters
  else if (auto arrive = dyn_cast<MBarrierArriveOp>(op))
    sm = arrive.getTxBytes() || arrive.getBlock() ? 90 : 80;
  else if (isa<MBarrierInitOp>(op))
    sm = 80;
  if (!sm || (chip.sm >= sm && (!archSpecific || chip.archSpecific)))
    return success();
  return op->emitOpError() << "needs sm_" << sm << (archSpecific ? "a" : "")
                           << ", but the module targets " << chip.name;
}

LogicalResult kaio::verifyProxyFences(KernelOp kernel) {
  llvm::DenseMap<Value, Operation *> genericWriters;
  SmallVector<std::pair<Operation *, Value>> asyncReads;
  bool fenced = false;
  kernel.walk([&](Operation *op) {
    if (isa<FenceProxyAsyncOp>(op))
      fenced = true;
    else if (auto store = dyn_cast<SharedStoreOp>(op))
      genericWriters.try_emplace(store.getTile(), op);
    else if (auto store = dyn_cast<SharedStoreVectorOp>(op))
      genericWriters.try_emplace(store.getTile(), op);
    else if (auto store = dyn_cast<SharedStoreFragmentOp>(op))
      genericWriters.try_emplace(store.getTile(), op);
    else if (auto copy = dyn_cast<AsyncCopyOp>(op))
      genericWriters.try_emplace(copy.getDst(), op);
    else if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      if (isa<SmemType>(mma.getA().getType()))
        asyncReads.push_back({op, mma.getA()});
      asyncReads.push_back({op, mma.getB()});
    } else if (auto store = dyn_cast<TmaStoreOp>(op))
      asyncReads.push_back({op, store.getSrc()});
  });
  if (fenced)
    return success();
  for (auto [reader, tile] : asyncReads) {
    auto it = genericWriters.find(tile);
    if (it == genericWriters.end())
      continue;
    InFlightDiagnostic diag =
        reader->emitOpError()
        << "reads a tile through the async proxy that generic stores write, "
           "and the kernel never fences them: put kaio.fence_proxy_async "
           "after the writes (before the barrier that orders them)";
    diag.attachNote(it->second->getLoc()) << "written here";
    return diag;
  }
  return success();
}
