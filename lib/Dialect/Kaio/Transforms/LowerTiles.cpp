//===- LowerTiles.cpp - tile ops to per-warp and per-thread ops -----------===//
//
// Fragments become the registers each lane holds (1:N type conversion, also
// through scf loops): A/B operands and f16 accumulators as packed 32-bit
// registers, f32/s32 accumulators one register per element. Which matrix
// element sits in which register comes from the fragment layouts in PTXInfo;
// they are affine in (lane / 4, lane % 4), so the lowering evaluates the
// table at lanes 0, 1 and 4 and emits the affine index arithmetic.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"
#include "TileEmitter.h"
#include "TilePatterns.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>
#include <memory>
#include <numeric>

namespace kaio {
#define GEN_PASS_DEF_LOWERTILES
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio;

namespace {

//===----------------------------------------------------------------------===//
// Fragment registers
//===----------------------------------------------------------------------===//

/// Elements per 32-bit register of a fragment: A/B operands pack 16-, 8-
/// and 4-bit elements; accumulators pack f16 pairs.
unsigned elementsPerRegister(FragType type) {
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (type.getRole() == FragRole::acc)
    return bits == 16 ? 2 : 1;
  return 32 / bits;
}

/// 16-bit elements, which pack/unpack split and join.
bool isPacked(FragType type) {
  return type.getElementType().getIntOrFloatBitWidth() == 16;
}

/// Whether ldmatrix (8 x 16-byte matrices, a lane's register 4 bytes of one
/// stored row) loads an operand fragment from a tile stored row-major
/// (`colMajor` false) or as its transpose: 16-bit elements either way
/// (.trans swaps 16-bit halves); tf32 and 8-bit ones only where a
/// register's elements are consecutive in a stored row: A from [m][k] rows,
/// B from [n][k] rows (K-major operands).
bool loadsByMatrices(FragType type, bool colMajor) {
  if (type.getRole() == FragRole::acc)
    return false;
  if (isPacked(type))
    return true;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return (bits == 32 || bits == 8) &&
         (type.getRole() == FragRole::a) != colMajor;
}

/// A/B operands live in .b32 registers (packed halves or bytes, or tf32
/// bits); accumulators in f32 or i32 registers, f16 ones packed.
Type registerType(FragType type) {
  MLIRContext *ctx = type.getContext();
  if (type.getRole() != FragRole::acc || isPacked(type) ||
      type.getElementType().isInteger())
    return IntegerType::get(ctx, 32);
  return Float32Type::get(ctx);
}

/// f32 → tf32 bits (cvt.rna.tf32.f32), the register an A/B tf32 operand takes.
Value toTF32(OpBuilder &b, Location loc, Value v) {
  return ptx::CvtOp::create(b, loc, b.getI32Type(),
                            ptx::RoundingAttr::get(b.getContext(),
                                                   ptx::Rounding::rna),
                            false, false, false, ptx::PTXType::tf32,
                            ptx::PTXType::f32, v, Value(), false);
}

/// Registers of one atom of a fragment.
unsigned numRegisters(FragType type) {
  return type.getElementsPerLane() / elementsPerRegister(type);
}

/// Registers of a whole fragment tile: the atoms' registers, atom (i, j)
/// at (i * tileCols + j) * numRegisters.
unsigned numTileRegisters(FragType type) {
  return numRegisters(type) * type.getNumAtoms();
}

class TileTypeConverter : public TypeConverter {
public:
  TileTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](FragType type, SmallVectorImpl<Type> &results)
                      -> std::optional<LogicalResult> {
      if (!lookupMmaFor(type))
        return failure();
      results.append(numTileRegisters(type), registerType(type));
      return success();
    });
    // Tokens carry no data once copies are commit groups.
    addConversion([](TokenType type) -> Type {
      return IntegerType::get(type.getContext(), 32);
    });
  }
};


/// row/col of element `i` of a lane as affine functions of g = lane / 4 and
/// t = lane % 4, read off the PTXInfo layout functions.
struct AffineCoord {
  int64_t row0, rowG, rowT, col0, colG, colT;
};

template <typename Fn>
AffineCoord affineCoord(Fn coord, unsigned i) {
  ptx::FragmentCoord c0 = coord(0, i), ct = coord(1, i), cg = coord(4, i);
  return {c0.row, int64_t(cg.row) - c0.row, int64_t(ct.row) - c0.row,
          c0.col, int64_t(cg.col) - c0.col, int64_t(ct.col) - c0.col};
}

/// Whether coordinates `b` are `a`'s right-hand row neighbour in every lane,
/// `a` at an even column: the two elements make one aligned pair.
bool isAlignedPair(const AffineCoord &a, const AffineCoord &b) {
  return a.row0 == b.row0 && a.rowG == b.rowG && a.rowT == b.rowT &&
         a.col0 + 1 == b.col0 && a.colG == b.colG && a.colT == b.colT &&
         a.col0 % 2 == 0 && a.colG % 2 == 0 && a.colT % 2 == 0;
}

/// The row and column of coordinates `c` in this lane (g = lane / 4,
/// t = lane % 4), offset by (row, col).
std::pair<Value, Value> lanePosition(Emitter &e, const AffineCoord &c,
                                     Value row, Value col, Value g, Value t) {
  Value r = e.add(row, e.add(e.i32(c.row0), e.add(e.mul(g, e.i32(c.rowG)),
                                                  e.mul(t, e.i32(c.rowT)))));
  Value cc = e.add(col, e.add(e.i32(c.col0), e.add(e.mul(g, e.i32(c.colG)),
                                                   e.mul(t, e.i32(c.colT)))));
  return {r, cc};
}

/// How many low bits of an i32 index are known to be zero: from
/// constants, products (the factors' zeros add), sums and differences (the
/// fewer), left shifts by a constant and masks with a constant.
unsigned knownTrailingZeros(Value v, unsigned depth = 16) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.isZero() ? 32 : c.countr_zero();
  Operation *def = v.getDefiningOp();
  if (!depth || !def)
    return 0;
  auto of = [&](unsigned i) {
    return knownTrailingZeros(def->getOperand(i), depth - 1);
  };
  if (isa<arith::MulIOp>(def))
    return std::min(32u, of(0) + of(1));
  if (isa<arith::AddIOp, arith::SubIOp, arith::OrIOp, arith::XOrIOp>(def))
    return std::min(of(0), of(1));
  if (isa<arith::AndIOp>(def))
    return std::max(of(0), of(1));
  if (isa<arith::ShLIOp>(def) &&
      matchPattern(def->getOperand(1), m_ConstantInt(&c)) && c.ult(32))
    return std::min<unsigned>(32, of(0) + unsigned(c.getZExtValue()));
  return 0;
}

/// The value of an i32 index computed from constants only (sums,
/// differences and products: a warp's offset times a constant 0, say), which
/// the canonicalizer has not folded yet when tiles are lowered.
std::optional<int64_t> foldIndex(Value v, unsigned depth = 8) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  Operation *def = v.getDefiningOp();
  if (!depth || !def || !isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return std::nullopt;
  std::optional<int64_t> x = foldIndex(def->getOperand(0), depth - 1);
  std::optional<int64_t> y = foldIndex(def->getOperand(1), depth - 1);
  if (isa<arith::MulIOp>(def) && ((x && *x == 0) || (y && *y == 0)))
    return 0;
  if (!x || !y)
    return std::nullopt;
  // i32 arithmetic wraps.
  uint32_t a = uint32_t(*x), b = uint32_t(*y);
  uint32_t r = isa<arith::AddIOp>(def)   ? a + b
               : isa<arith::SubIOp>(def) ? a - b
                                         : a * b;
  return int64_t(int32_t(r));
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct FragFillLowering : OpConversionPattern<FragFillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FragFillOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FragType type = op.getType();
    Value v = adaptor.getValue();
    Value reg = v;
    if (isPacked(type)) {
      reg = ptx::PackOp::create(rewriter, op.getLoc(), rewriter.getI32Type(),
                                ptx::PTXType::b32, ValueRange{v, v}, Value(),
                                false);
    } else if (elementsPerRegister(type) == 4) {
      // Bytes: replicate into the four bytes of the register.
      Emitter e(rewriter, op.getLoc());
      Value wide = arith::ExtUIOp::create(rewriter, op.getLoc(),
                                          rewriter.getI32Type(), v);
      reg = e.mul(wide, e.i32(0x01010101));
    } else if (elementsPerRegister(type) != 1) {
      return rewriter.notifyMatchFailure(op, "sub-byte fragment fill");
    } else if (type.getRole() != FragRole::acc && v.getType().isF32()) {
      reg = toTF32(rewriter, op.getLoc(), v);
    }
    SmallVector<Value> regs(numTileRegisters(type), reg);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct LoadFragmentLowering : OpConversionPattern<LoadFragmentOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadFragmentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FragType frag = op.getType();
    SmemType tile = op.getTile().getType();
    if (!tile.getLayout())
      return rewriter.notifyMatchFailure(op, "tile has no layout");
    FragType atom = frag.withTile(1, 1);
    auto [atomRows, atomCols] = frag.getAtomExtent();
    Emitter e(rewriter, op.getLoc());
    // A row-major tile of an operand's transpose reads like a column-major
    // operand.
    bool transpose = op.getTranspose();
    bool colMajor =
        transpose || tile.getLayout().getOrder() == MatrixOrder::col_major;
    bool byMatrices = loadsByMatrices(frag, colMajor) &&
                      (isPacked(frag) || matrixRowsStayWhole(op, tile));
    // B atoms side by side share one ldmatrix.x4: matrices 0-1 are atom j's
    // two k halves, 2-3 atom j + 1's.
    bool pairB = byMatrices && frag.getRole() == FragRole::b &&
                 numRegisters(atom) == 2;
    SmallVector<Value> regs;
    for (unsigned i = 0; i < frag.getTileRows(); ++i) {
      for (unsigned j = 0; j < frag.getTileCols(); ++j) {
        // (row, col): the atom's first (k, n) for B; the tile's indices
        // come swapped for a transposed B.
        Value row0 = transpose ? op.getCol() : op.getRow();
        Value col0 = transpose ? op.getRow() : op.getCol();
        int64_t dRow = int64_t(i) * atomRows, dCol = int64_t(j) * atomCols;
        // Constant indices join the atom's offset: loads at (16 kk, c) of
        // one tile then share their address registers.
        if (std::optional<int64_t> c = foldIndex(row0)) {
          dRow += *c;
          row0 = e.i32(0);
        }
        if (std::optional<int64_t> c = foldIndex(col0)) {
          dCol += *c;
          col0 = e.i32(0);
        }
        if (!byMatrices) {
          Value row = e.add(row0, e.i32(dRow)), col = e.add(col0, e.i32(dCol));
          FailureOr<SmallVector<Value>> atomRegs =
              loadElementwise(op, atom, row, col, rewriter);
          if (failed(atomRegs))
            return failure();
          regs.append(atomRegs->begin(), atomRegs->end());
          continue;
        }
        bool paired = pairB && j + 1 < frag.getTileCols();
        SmallVector<Value> loaded =
            loadMatrices(op, atom, row0, col0, dRow, dCol,
                         paired ? 4 : numRegisters(atom), colMajor, rewriter);
        regs.append(loaded.begin(), loaded.end());
        if (paired)
          ++j;
      }
    }
    // A paired load fills atoms j and j + 1 of row i in that order: the
    // registers are already atom-major.
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }

  /// Whether the 16-byte rows ldmatrix would read of a tf32 or 8-bit
  /// fragment are whole and aligned: a row-major tile layout whose rows
  /// are 16-byte multiples, a swizzle (if any) that moves 16-byte units,
  /// and a column index (constant, or known by its trailing zeros) at a
  /// 16-byte boundary. Else the element-wise load, which any layout takes.
  /// (16-bit fragments have only the ldmatrix form; the verifier holds
  /// their tiles to the same.)
  static bool matrixRowsStayWhole(LoadFragmentOp op, SmemType tile) {
    LayoutAttr layout = tile.getLayout();
    if (!layout || tile.isColumnMajor() || tile.getShape().size() != 2)
      return false;
    int64_t bytes =
        std::max<int64_t>(1, tile.getElementType().getIntOrFloatBitWidth() / 8);
    if (layout.isSwizzled() && layout.getSwizzleBase() < 4)
      return false;
    if ((tile.getRowStride() * bytes) % 16 != 0)
      return false;
    if (std::optional<int64_t> c = foldIndex(op.getCol()))
      return (*c * bytes) % 16 == 0;
    unsigned zeros = std::min(knownTrailingZeros(op.getCol()), 30u);
    return ((int64_t(1) << zeros) * bytes) % 16 == 0;
  }

  /// `n` matrices of 8 rows x 16 bytes (one register each) of a fragment
  /// whose atom starts at (row, col), in ldmatrix's lane order: lane l gives
  /// the address of row l % 8 of matrix l / 8. With s elements in 16 bytes
  /// (8 at 16 bits, 4 tf32, 16 bytes): for A, matrix j holds rows
  /// 8 (j % 2).., k from s (j / 2); for B, matrices 2p and 2p + 1 hold the
  /// two k halves (s apart) of the atom p columns of 8 further on. tf32
  /// registers are rounded (cvt.rna) as an element-wise load rounds them.
  SmallVector<Value> loadMatrices(LoadFragmentOp op, FragType atom, Value row,
                                  Value col, int64_t dRow, int64_t dCol,
                                  unsigned n, bool colMajor,
                                  ConversionPatternRewriter &rewriter) const {
    Emitter e(rewriter, op.getLoc());
    // Elements of a 16-byte matrix row: 4 registers' worth of a lane's.
    const int64_t step = 4 * elementsPerRegister(atom);
    Value lane = e.lane();
    Value r = arith::RemUIOp::create(rewriter, op.getLoc(), lane, e.i32(8));
    Value j = arith::RemUIOp::create(
        rewriter, op.getLoc(),
        arith::DivUIOp::create(rewriter, op.getLoc(), lane, e.i32(8)),
        e.i32(n));
    bool trans = false;
    Value addrRow, addrCol;
    if (atom.getRole() == FragRole::a) {
      Value jr = arith::RemUIOp::create(rewriter, op.getLoc(), j, e.i32(2));
      Value jc = arith::DivUIOp::create(rewriter, op.getLoc(), j, e.i32(2));
      if (!colMajor) {
        addrRow = e.add(row, e.add(r, e.mul(jr, e.i32(8))));
        addrCol = e.add(col, e.mul(jc, e.i32(step)));
      } else {
        // A stored [k][m] (a tile of A^T): each stored row is one k, 8 m's
        // long; transpose on load.
        addrRow = e.add(row, e.mul(jr, e.i32(8)));
        addrCol = e.add(col, e.add(r, e.mul(jc, e.i32(8))));
        trans = true;
      }
    } else {
      // Matrix j: k half j % 2 of the atom j / 2 columns of 8 further.
      Value jk = arith::RemUIOp::create(rewriter, op.getLoc(), j, e.i32(2));
      Value jn = arith::DivUIOp::create(rewriter, op.getLoc(), j, e.i32(2));
      if (!colMajor) {
        // B stored [k][n]: rows are k; transpose on load.
        addrRow = e.add(row, e.add(r, e.mul(jk, e.i32(8))));
        addrCol = e.add(col, e.mul(jn, e.i32(8)));
        trans = true;
      } else {
        // B stored column-major: each stored row is one n, 16 bytes of k.
        addrRow = e.add(row, e.mul(jk, e.i32(step)));
        addrCol = e.add(col, e.add(r, e.mul(jn, e.i32(8))));
      }
    }
    // The atom's constant offset (dRow, dCol) from the op's indices. When
    // the op's index along the tile's rows is a constant (folded into the
    // offset, so 0 here), the lane's column in the tile is below 2 step
    // (32 bytes).
    // A run-time index that is a multiple of 2^t (a warp's column, say)
    // leaves that much room for the steps.
    bool transposed = op.getTranspose();
    Value tileCol = transposed ? row : col;
    int64_t colAlign = 0;
    if (!matchPattern(tileCol, m_Zero())) {
      unsigned zeros = knownTrailingZeros(tileCol);
      colAlign = zeros >= 4 && zeros < 31 ? int64_t(1) << zeros : -1;
    }
    // The lane's column within two matrices' 32 bytes.
    int64_t colBound = colAlign >= 0 ? 2 * step : 0;
    Value addr =
        transposed
            ? e.tileAddress(op.getTile(), addrCol, addrRow, dCol, dRow,
                            colBound, colAlign)
            : e.tileAddress(op.getTile(), addrRow, addrCol, dRow, dCol,
                            colBound, colAlign);
    SmallVector<Type> types(n, rewriter.getI32Type());
    auto ld = ptx::LdMatrixOp::create(rewriter, op.getLoc(), types, trans,
                                      addr, /*offset=*/0, Value(), false);
    SmallVector<Value> regs(ld.getResults());
    if (atom.getElementType().isF32())
      for (Value &reg : regs)
        reg = toTF32(rewriter, op.getLoc(),
                     arith::BitcastOp::create(rewriter, op.getLoc(),
                                              rewriter.getF32Type(), reg));
    return regs;
  }

  /// tf32 and 8-bit operands stored M- or N-major have no ldmatrix form
  /// (.trans moves 16-bit halves), nor do 4-bit ones: each lane reads its
  /// elements from shared memory at the coordinates the fragment layout
  /// table gives, then converts (f32 → tf32) or packs four bytes per
  /// register, lowest k in the lowest byte.
  FailureOr<SmallVector<Value>>
  loadElementwise(LoadFragmentOp op, FragType frag, Value atomRow,
                  Value atomCol, ConversionPatternRewriter &rewriter) const {
    const ptx::MmaVariant *v = lookupMmaFor(frag);
    if (!v || elementsPerRegister(frag) > 4)
      return rewriter.notifyMatchFailure(op, "no element-wise fragment load");
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    Value lane = e.lane();
    Value g = arith::DivUIOp::create(rewriter, loc, lane, e.i32(4));
    Value t = arith::RemUIOp::create(rewriter, loc, lane, e.i32(4));
    Type elem = frag.getElementType();
    unsigned perReg = elementsPerRegister(frag);
    bool isA = frag.getRole() == FragRole::a;
    SmallVector<Value> regs;
    for (unsigned reg = 0; reg < numRegisters(frag); ++reg) {
      Value packed;
      for (unsigned k = 0; k < perReg; ++k) {
        unsigned i = reg * perReg + k;
        AffineCoord c = affineCoord(
            [&](unsigned l, unsigned idx) {
              return isA ? ptx::getMmaACoord(*v, l, idx)
                         : ptx::getMmaBCoord(*v, l, idx);
            },
            i);
        Value row = e.add(atomRow,
                          e.add(e.i32(c.row0), e.add(e.mul(g, e.i32(c.rowG)),
                                                     e.mul(t, e.i32(c.rowT)))));
        Value col = e.add(atomCol,
                          e.add(e.i32(c.col0), e.add(e.mul(g, e.i32(c.colG)),
                                                     e.mul(t, e.i32(c.colT)))));
        Value x = SharedLoadOp::create(
            rewriter, loc, elem, op.getTile(),
            op.getTranspose() ? ValueRange{col, row} : ValueRange{row, col});
        if (perReg == 1) {
          packed = toTF32(rewriter, loc, x);
          continue;
        }
        Value byte = arith::ExtUIOp::create(rewriter, loc,
                                            rewriter.getI32Type(), x);
        Value shifted = k ? Value(arith::ShLIOp::create(rewriter, loc, byte,
                                                        e.i32(8 * k)))
                          : byte;
        packed = k ? Value(arith::OrIOp::create(rewriter, loc, packed, shifted))
                   : shifted;
      }
      regs.push_back(packed);
    }
    return regs;
  }
};

struct MmaLowering : OpConversionPattern<MmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MmaOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto a = cast<FragType>(op.getA().getType());
    auto b = cast<FragType>(op.getB().getType());
    auto acc = cast<FragType>(op.getAcc().getType());
    const ptx::MmaVariant *v = lookupMma(a, b, acc);
    if (!v)
      return rewriter.notifyMatchFailure(op, "no mma variant");
    // A [tm, tk] x B [tk, tn] into [tm, tn]: for each k step, the rows of
    // atoms in a serpentine order (left to right, then right to left), so
    // that consecutive mma.sync share an A or a B operand.
    unsigned tm = acc.getTileRows(), tn = acc.getTileCols(),
             tk = a.getTileCols();
    unsigned na = numRegisters(a.withTile(1, 1)),
             nb = numRegisters(b.withTile(1, 1)),
             nc = numRegisters(acc.withTile(1, 1));
    ValueRange aRegs = adaptor.getA(), bRegs = adaptor.getB();
    SmallVector<Value> cRegs(adaptor.getAcc().begin(), adaptor.getAcc().end());
    SmallVector<Type> types(nc, registerType(acc));
    for (unsigned kk = 0; kk < tk; ++kk)
      for (unsigned i = 0; i < tm; ++i)
        for (unsigned jj = 0; jj < tn; ++jj) {
          unsigned j = i % 2 ? tn - 1 - jj : jj;
          auto mma = ptx::MmaSyncOp::create(
              rewriter, op.getLoc(), types, v->shape, ptx::MMALayout::row,
              ptx::MMALayout::col, v->accType, v->aType, v->bType, v->accType,
              v->accType == ptx::PTXType::s32,
              aRegs.slice((i * tk + kk) * na, na),
              bRegs.slice((kk * tn + j) * nb, nb),
              ArrayRef<Value>(cRegs).slice((i * tn + j) * nc, nc), Value(),
              false);
          llvm::copy(mma.getD(), cRegs.begin() + (i * tn + j) * nc);
        }
    rewriter.replaceOpWithMultiple(op, {cRegs});
    return success();
  }
};

/// Elements of a fragment's registers, unpacking packed pairs.
SmallVector<Value> unpackElements(OpBuilder &b, Location loc, FragType type,
                                  ValueRange regs) {
  if (!isPacked(type))
    return SmallVector<Value>(regs);
  SmallVector<Value> elems;
  Type elem = type.getElementType();
  for (Value reg : regs) {
    auto unpack = ptx::UnpackOp::create(b, loc, TypeRange{elem, elem},
                                        ptx::PTXType::b32, reg, Value(), false);
    elems.append(unpack.getParts().begin(), unpack.getParts().end());
  }
  return elems;
}

SmallVector<Value> packElements(OpBuilder &b, Location loc, FragType type,
                                ArrayRef<Value> elems) {
  if (!isPacked(type))
    return SmallVector<Value>(elems);
  SmallVector<Value> regs;
  for (unsigned i = 0; i < elems.size(); i += 2)
    regs.push_back(ptx::PackOp::create(b, loc, b.getI32Type(),
                                       ptx::PTXType::b32,
                                       ValueRange{elems[i], elems[i + 1]},
                                       Value(), false));
  return regs;
}

/// The layout-table coordinate function of a fragment's role.
ptx::FragmentCoord fragCoord(const ptx::MmaVariant &v, FragRole role,
                             unsigned lane, unsigned i) {
  switch (role) {
  case FragRole::a:
    return ptx::getMmaACoord(v, lane, i);
  case FragRole::b:
    return ptx::getMmaBCoord(v, lane, i);
  case FragRole::acc:
    return ptx::getMmaAccCoord(v, lane, i);
  }
  return {};
}

/// Element `idx` of a lane's tile (atom-major) at its row and column in the
/// tile, as affine functions of g = lane / 4 and t = lane % 4.
AffineCoord tileCoord(FragType type, const ptx::MmaVariant &v, unsigned idx) {
  unsigned perAtom = type.getElementsPerLane();
  auto [atomRows, atomCols] = type.getAtomExtent();
  AffineCoord c = affineCoord(
      [&](unsigned l, unsigned k) {
        return fragCoord(v, type.getRole(), l, k);
      },
      idx % perAtom);
  unsigned atom = idx / perAtom;
  c.row0 += int64_t(atom / type.getTileCols()) * atomRows;
  c.col0 += int64_t(atom % type.getTileCols()) * atomCols;
  return c;
}

struct FragMapLowering : OpConversionPattern<FragMapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FragMapOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FragType in = op.getInput().getType(), out = op.getType();
    if (elementsPerRegister(in) > 2 || elementsPerRegister(out) > 2)
      return op.emitOpError("on sub-byte or byte fragments is not supported");
    Location loc = op.getLoc();
    SmallVector<Value> elems =
        unpackElements(rewriter, loc, in, adaptor.getInput());
    // Per extra operand: its value for element idx of the input.
    unsigned perAtom = in.getElementsPerLane();
    SmallVector<std::function<Value(unsigned)>> extras;
    for (auto [extra, regs] : llvm::zip(op.getExtras(), adaptor.getExtras())) {
      auto frag = dyn_cast<FragType>(extra.getType());
      if (!frag) {
        Value scalar = regs.front();
        extras.push_back([scalar](unsigned) { return scalar; });
        continue;
      }
      auto values = std::make_shared<SmallVector<Value>>(
          unpackElements(rewriter, loc, frag, regs));
      bool broadcast = frag.getTileCols() != in.getTileCols();
      unsigned cols = in.getTileCols();
      extras.push_back([values, broadcast, cols, perAtom](unsigned idx) {
        if (!broadcast)
          return (*values)[idx];
        unsigned atom = idx / perAtom;
        return (*values)[(atom / cols) * perAtom + idx % perAtom];
      });
    }
    // With `indexed`: the element's row and column in the tile.
    const ptx::MmaVariant *v = lookupMmaFor(in);
    Value g, t;
    Emitter e(rewriter, loc);
    if (op.getIndexed()) {
      Value lane = e.lane();
      g = arith::DivUIOp::create(rewriter, loc, lane, e.i32(4));
      t = arith::RemUIOp::create(rewriter, loc, lane, e.i32(4));
    }
    auto affine = [&](int64_t c0, int64_t cg, int64_t ct) {
      return e.add(e.i32(c0), e.add(e.mul(g, e.i32(cg)), e.mul(t, e.i32(ct))));
    };
    Block &body = op.getBody().front();
    unsigned leading = op.getIndexed() ? 3 : 1;
    SmallVector<Value> results;
    for (auto [idx, elem] : llvm::enumerate(elems)) {
      IRMapping map;
      map.map(body.getArgument(0), elem);
      if (op.getIndexed()) {
        AffineCoord c = tileCoord(in, *v, idx);
        map.map(body.getArgument(1), affine(c.row0, c.rowG, c.rowT));
        map.map(body.getArgument(2), affine(c.col0, c.colG, c.colT));
      }
      for (auto [arg, extra] :
           llvm::zip(body.getArguments().drop_front(leading), extras))
        map.map(arg, extra(idx));
      for (Operation &inner : body.without_terminator())
        rewriter.clone(inner, map);
      results.push_back(
          map.lookup(cast<YieldOp>(body.getTerminator()).getValue()));
    }
    rewriter.replaceOpWithMultiple(op,
                                   {packElements(rewriter, loc, out, results)});
    return success();
  }
};

/// Row reductions of f32 accumulator tiles: each lane combines its own
/// elements of a row (over the tile's atoms), then the lanes that share the
/// row (those differing in t = lane % 4 only, as the accumulator layouts
/// have it) exchange partial results with xor shuffles.
struct FragReduceRowsLowering : OpConversionPattern<FragReduceRowsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FragReduceRowsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FragType in = op.getInput().getType();
    const ptx::MmaVariant *v = lookupMmaFor(in);
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    ValueRange elems = adaptor.getInput();
    unsigned perAtom = in.getElementsPerLane();
    auto combine = [&](Value x, Value y) -> Value {
      switch (op.getKind()) {
      case ReduceKind::sum:
        return arith::AddFOp::create(rewriter, loc, x, y);
      case ReduceKind::max:
        return arith::MaximumFOp::create(rewriter, loc, x, y);
      case ReduceKind::min:
        return arith::MinimumFOp::create(rewriter, loc, x, y);
      }
      return x;
    };
    // The lanes sharing a row differ in the bits of t the column uses.
    AffineCoord first = tileCoord(in, *v, 0);
    if (first.rowT != 0)
      return rewriter.notifyMatchFailure(op, "rows spread across t");
    // Elements of one atom with the same row (by their affine row).
    SmallVector<unsigned> rowOf(perAtom);
    SmallVector<AffineCoord> rows;
    for (unsigned k = 0; k < perAtom; ++k) {
      AffineCoord c = tileCoord(in, *v, k);
      auto it = llvm::find_if(rows, [&](const AffineCoord &r) {
        return r.row0 == c.row0 && r.rowG == c.rowG && r.rowT == c.rowT;
      });
      rowOf[k] = it - rows.begin();
      if (it == rows.end())
        rows.push_back(c);
    }
    SmallVector<Value> out;
    for (unsigned i = 0; i < in.getTileRows(); ++i) {
      SmallVector<Value> partial(rows.size());
      for (unsigned j = 0; j < in.getTileCols(); ++j)
        for (unsigned k = 0; k < perAtom; ++k) {
          Value x = elems[(i * in.getTileCols() + j) * perAtom + k];
          Value &p = partial[rowOf[k]];
          p = p ? combine(p, x) : x;
        }
      for (Value &p : partial)
        for (int64_t mask = 1; mask < 4; mask *= 2) {
          Value other = ShuffleOp::create(rewriter, loc, p.getType(),
                                          ShuffleMode::Xor, p, e.i32(mask),
                                          32u);
          p = combine(p, other);
        }
      for (unsigned k = 0; k < perAtom; ++k)
        out.push_back(partial[rowOf[k]]);
    }
    rewriter.replaceOpWithMultiple(op, {out});
    return success();
  }
};

struct FragSliceLowering : OpConversionPattern<FragSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FragSliceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FragType in = op.getInput().getType(), out = op.getType();
    unsigned n = numRegisters(in.withTile(1, 1));
    ValueRange regs = adaptor.getInput();
    ArrayRef<int64_t> off = op.getOffsets();
    SmallVector<Value> result;
    for (unsigned i = 0; i < out.getTileRows(); ++i)
      for (unsigned j = 0; j < out.getTileCols(); ++j) {
        unsigned atom = (off[0] + i) * in.getTileCols() + off[1] + j;
        llvm::append_range(result, regs.slice(atom * n, n));
      }
    rewriter.replaceOpWithMultiple(op, {result});
    return success();
  }
};

struct FragToOperandLowering : OpConversionPattern<FragToOperandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FragToOperandOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FragType in = op.getInput().getType(), out = op.getType();
    FailureOr<SmallVector<AccumulatorSource>> sources =
        getOperandFromAccumulator(in, out.withTile(1, 1));
    if (failed(sources))
      return rewriter.notifyMatchFailure(op, "layouts do not line up");
    Location loc = op.getLoc();
    ValueRange elems = adaptor.getInput();
    unsigned perAcc = in.getElementsPerLane();
    unsigned per = in.getTileCols() / out.getTileCols();
    Type elem = out.getElementType();
    SmallVector<Value> regs;
    for (unsigned i = 0; i < out.getTileRows(); ++i)
      for (unsigned kk = 0; kk < out.getTileCols(); ++kk) {
        SmallVector<Value> atom;
        for (const AccumulatorSource &src : *sources) {
          unsigned accAtom = i * in.getTileCols() + kk * per + src.atomCol;
          atom.push_back(arith::TruncFOp::create(
              rewriter, loc, elem, elems[accAtom * perAcc + src.element]));
        }
        llvm::append_range(regs, packElements(rewriter, loc, out, atom));
      }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

/// `value` rounded or widened to the float type `target`.
Value convertFloat(OpBuilder &b, Location loc, Value value, Type target) {
  Type type = value.getType();
  if (type == target)
    return value;
  unsigned from = type.getIntOrFloatBitWidth(),
           to = target.getIntOrFloatBitWidth();
  if (from < to)
    return arith::ExtFOp::create(b, loc, target, value);
  if (from == to) // f16 <-> bf16: through f32, which holds both exactly
    value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  return arith::TruncFOp::create(b, loc, target, value);
}

struct StoreFragmentLowering : OpConversionPattern<StoreFragmentOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreFragmentOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FragType type = op.getFrag().getType();
    const ptx::MmaVariant *v = lookupMmaFor(type);
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    SmallVector<Value> elems =
        unpackElements(rewriter, loc, type, adaptor.getFrag());
    auto one = [](ValueRange r) { return r.front(); };
    Value dst = one(adaptor.getDst()), row = one(adaptor.getRow()),
          col = one(adaptor.getCol()), rows = one(adaptor.getRows()),
          cols = one(adaptor.getCols()), ld = one(adaptor.getLd());
    Value lane = e.lane();
    Value g = arith::DivUIOp::create(rewriter, loc, lane, e.i32(4));
    Value t = arith::RemUIOp::create(rewriter, loc, lane, e.i32(4));
    Type target = op.getDst().getType().getElementType();
    auto [atomRows, atomCols] = type.getAtomExtent();
    auto coordOf = [&](unsigned idx) { return tileCoord(type, *v, idx); };
    auto position = [&](const AffineCoord &c) {
      return lanePosition(e, c, row, col, g, t);
    };
    // With beta: value + beta * old, in f32 (integers: no beta).
    // Set while emitting the accumulating stores (see the end).
    Value beta;
    auto accumulate = [&](Value value, Value old) -> Value {
      if (!beta)
        return value;
      Value v = convertFloat(rewriter, loc, value, rewriter.getF32Type());
      Value o = convertFloat(rewriter, loc, old, rewriter.getF32Type());
      return arith::AddFOp::create(rewriter, loc, v,
                                   arith::MulFOp::create(rewriter, loc, beta,
                                                         o));
    };
    auto storeScalars = [&] {
      Value zero = isa<FloatType>(target)
                       ? Value(arith::ConstantOp::create(
                             rewriter, loc, rewriter.getFloatAttr(target, 0)))
                       : Value();
      for (auto [idx, elem] : llvm::enumerate(elems)) {
        auto [r, cc] = position(coordOf(idx));
        Value inBounds = e.andI(e.lt(r, rows), e.lt(cc, cols));
        Value index = e.add(e.mul(e.ext(r), e.ext(ld)), e.ext(cc));
        Value value = elem;
        if (beta) {
          Value old = kaio::LoadOp::create(rewriter, loc, target, dst, index,
                                           inBounds, zero);
          value = accumulate(elem, old);
        }
        value = convertFloat(rewriter, loc, value, target);
        kaio::StoreOp::create(rewriter, loc, value, dst, index, inBounds);
      }
    };
    // Each lane holds pairs of row neighbours (elements 2i and 2i + 1 at
    // columns c, c + 1): when the whole tile is inside the matrix and pairs
    // stay aligned, one vector store per pair, no bounds arithmetic.
    bool pairs = elems.size() % 2 == 0;
    for (unsigned idx = 0; pairs && idx < elems.size(); idx += 2) {
      pairs = isAlignedPair(coordOf(idx), coordOf(idx + 1));
    }
    auto emitStores = [&] {
      if (!pairs) {
        storeScalars();
        return;
      }
      int64_t pairBytes = 2 * int64_t(target.getIntOrFloatBitWidth() / 8);
      auto isZero = [&](Value v) {
        return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, v,
                                     e.i64(0));
      };
      Value base = PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), dst);
      Value aligned = e.andI(
          isZero(arith::RemUIOp::create(rewriter, loc, base, e.i64(pairBytes))),
          e.andI(isZero(arith::RemUIOp::create(rewriter, loc, e.ext(ld),
                                               e.i64(2))),
                 isZero(arith::RemUIOp::create(rewriter, loc, e.ext(col),
                                               e.i64(2)))));
      auto sle = [&](Value x, Value y) {
        return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle, x,
                                     y);
      };
      Value inside = e.andI(
          sle(e.add(row, e.i32(int64_t(type.getTileRows()) * atomRows)), rows),
          sle(e.add(col, e.i32(int64_t(type.getTileCols()) * atomCols)), cols));
      auto split = scf::IfOp::create(rewriter, loc, e.andI(inside, aligned),
                                     /*else=*/true);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(split.thenBlock());
        for (unsigned idx = 0; idx < elems.size(); idx += 2) {
          auto [r, cc] = position(coordOf(idx));
          Value index = e.add(e.mul(e.ext(r), e.ext(ld)), e.ext(cc));
          Value lo = elems[idx], hi = elems[idx + 1];
          if (beta) {
            auto old = LoadVectorOp::create(rewriter, loc,
                                            TypeRange{target, target}, dst,
                                            index, Value(), Value());
            lo = accumulate(lo, old.getResult(0));
            hi = accumulate(hi, old.getResult(1));
          }
          StoreVectorOp::create(rewriter, loc,
                                ValueRange{convertFloat(rewriter, loc, lo, target),
                                           convertFloat(rewriter, loc, hi, target)},
                                dst, index, Value());
        }
      }
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(split.elseBlock());
      storeScalars();
    };
    if (!op.getBeta()) {
      emitStores();
      rewriter.eraseOp(op);
      return success();
    }
    // beta == 0 must not read C (it may hold anything, NaN included): the
    // accumulating stores run only for a non-zero beta.
    Value betaIn = one(adaptor.getBeta());
    Value nonZero = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::UNE, betaIn,
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0)));
    auto byBeta = scf::IfOp::create(rewriter, loc, nonZero, /*else=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(byBeta.thenBlock());
      beta = betaIn;
      emitStores();
    }
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(byBeta.elseBlock());
      beta = Value();
      emitStores();
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Each lane's accumulator elements at their tile positions (the layout
/// applied by the tile address): pairs of row neighbours as one 4-byte
/// (16-bit) or 8-byte (f32) st.shared where the column is known even and
/// the layout keeps a pair contiguous and aligned, single elements
/// otherwise.
struct SharedStoreFragmentLowering
    : OpConversionPattern<SharedStoreFragmentOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SharedStoreFragmentOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<FragType>(op.getFrag().getType());
    SmemType tile = op.getTile().getType();
    const ptx::MmaVariant *v = lookupMmaFor(type);
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    SmallVector<Value> elems =
        unpackElements(rewriter, loc, type, adaptor.getFrag());
    Value row = adaptor.getRow().front(), col = adaptor.getCol().front();
    Value lane = e.lane();
    Value g = arith::DivUIOp::create(rewriter, loc, lane, e.i32(4));
    Value t = arith::RemUIOp::create(rewriter, loc, lane, e.i32(4));
    Type target = tile.getElementType();
    unsigned bytes = target.getIntOrFloatBitWidth() / 8;
    // 4-byte elements: f32, or i32 sums (as bits).
    const ptx::PTXType wide =
        target.isInteger() ? ptx::PTXType::b32 : ptx::PTXType::f32;
    // A pair (c, c + 1), c even, stays contiguous under padding when rows
    // keep pairs aligned, and under a swizzle of 16-byte (or larger) chunks.
    LayoutAttr layout = tile.getLayout();
    // The pair's first column is col + an even offset: col must be even
    // (a constant, or a product or sum of even terms) for aligned pairs.
    bool pairsStay =
        knownTrailingZeros(op.getCol()) >= 1 && !tile.isColumnMajor() &&
        (tile.getRowStride() * bytes) % (2 * bytes) == 0 &&
        (!layout || !layout.isSwizzled() ||
         (int64_t(1) << layout.getSwizzleBase()) >= 2 * bytes);
    for (unsigned idx = 0; idx < elems.size(); ++idx) {
      AffineCoord a = tileCoord(type, *v, idx);
      bool pair = pairsStay && idx + 1 < elems.size() &&
                  isAlignedPair(a, tileCoord(type, *v, idx + 1));
      auto [r, c] = lanePosition(e, a, row, col, g, t);
      Value addr = e.tileAddress(op.getTile(), r, c);
      Value first = convertFloat(rewriter, loc, elems[idx], target);
      if (!pair) {
        ptx::StoreOp::create(rewriter, loc, ptx::StateSpace::shared, false,
                             ptx::CacheOpAttr(),
                             bytes == 4 ? wide : ptx::PTXType::b16,
                             addr, 0, ValueRange{first}, Value(), false);
        continue;
      }
      Value second = convertFloat(rewriter, loc, elems[++idx], target);
      if (bytes == 4) {
        ptx::StoreOp::create(rewriter, loc, ptx::StateSpace::shared, false,
                             ptx::CacheOpAttr(), wide, addr, 0,
                             ValueRange{first, second}, Value(), false);
        continue;
      }
      Value packed = ptx::PackOp::create(rewriter, loc, rewriter.getI32Type(),
                                         ptx::PTXType::b32,
                                         ValueRange{first, second}, Value(),
                                         false);
      ptx::StoreOp::create(rewriter, loc, ptx::StateSpace::shared, false,
                           ptx::CacheOpAttr(), ptx::PTXType::b32, addr, 0,
                           ValueRange{packed}, Value(), false);
    }
    rewriter.eraseOp(op);
    return success();
  }
};


struct LowerTilesPass : kaio::impl::LowerTilesBase<LowerTilesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    TileTypeConverter converter;
    RewritePatternSet patterns(ctx);
    patterns.add<FragFillLowering, LoadFragmentLowering, MmaLowering,
                 FragMapLowering, FragReduceRowsLowering, FragSliceLowering,
                 FragToOperandLowering, StoreFragmentLowering,
                 SharedStoreFragmentLowering>(converter, ctx);
    ConversionTarget target(*ctx);
    target.addIllegalOp<FragFillOp, LoadFragmentOp, MmaOp, FragMapOp,
                        FragReduceRowsOp, FragSliceOp, FragToOperandOp,
                        StoreFragmentOp, SharedStoreFragmentOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    populateAsyncCopyPatterns(converter, patterns, target);
    populateWarpgroupTilePatterns(converter, patterns, target);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
