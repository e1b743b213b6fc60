//===- TileEmitter.h - index arithmetic for the tile lowerings --*- C++ -*-===//
//
// kaio-lower-tiles' helper building arith and kaio SIMT ops (constants,
// index arithmetic, thread ids, tile element addresses), shared by its
// fragment patterns (LowerTiles.cpp) and copy patterns (LowerAsyncCopies.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_DIALECT_KAIO_TRANSFORMS_TILEEMITTER_H
#define KAIO_LIB_DIALECT_KAIO_TRANSFORMS_TILEEMITTER_H

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include <optional>
#include <utility>

namespace kaio {

/// Builds arith and kaio SIMT ops at one location.
struct Emitter {
  using ArrayRef32 = mlir::ArrayRef<int32_t>;
  using Location = mlir::Location;
  using OpBuilder = mlir::OpBuilder;
  using Type = mlir::Type;
  using Value = mlir::Value;

  Emitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value i32(int64_t v) { return mlir::arith::ConstantIntOp::create(b, loc, v, 32); }
  Value i64(int64_t v) { return mlir::arith::ConstantIntOp::create(b, loc, v, 64); }
  Value add(Value x, Value y) { return mlir::arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return mlir::arith::MulIOp::create(b, loc, x, y); }
  Value lt(Value x, Value y) {
    return mlir::arith::CmpIOp::create(b, loc, mlir::arith::CmpIPredicate::slt, x, y);
  }
  Value andI(Value x, Value y) { return mlir::arith::AndIOp::create(b, loc, x, y); }
  Value ext(Value x) {
    return mlir::arith::ExtSIOp::create(b, loc, b.getI64Type(), x);
  }
  Value lane() { return LaneIdOp::create(b, loc, b.getI32Type()); }
  /// The shared address of element (row, col) of `tile`, as the tile's base
  /// plus a layout offset that depends on the indices only: loop-invariant
  /// indices keep the offset out of loops that rotate tiles.
  Value tileAddress(Value tile, Value row, Value col) {
    auto type = mlir::cast<SmemType>(tile.getType());
    Value zero = i32(0);
    Value base = SharedAddressOp::create(b, loc, b.getI32Type(), tile,
                                         mlir::ValueRange{zero, zero});
    Value offset = TileOffsetOp::create(b, loc, b.getI32Type(),
                                        mlir::TypeAttr::get(type),
                                        mlir::ValueRange{row, col});
    return add(base, offset);
  }
  /// The shared address of element (row + dRow, col + dCol) of `tile`. When
  /// the layout moves every element by the same bytes for that constant
  /// step (padding; a swizzle whose period divides it), the address is
  /// that of (row, col) plus a constant: the tiles of atoms a warp loads
  /// then share one offset register (a loop-invariant one, hoisted) and
  /// differ in the immediate.
  ///
  /// Under a swizzle the column step usually moves elements by different
  /// bytes, but when `col` is known to be a lane part in [0, colBound)
  /// (colBound > 0) plus a multiple of colAlign (0: plus nothing), the
  /// address of (row, col + dCol) may still be that of (row, col) XOR a
  /// constant (xorDelta): the loads of one tile at k = 0, 16, 32, ... (or
  /// of a warp's atoms side by side) then derive from one address register
  /// with an xor each (kaio-rematerialize-offsets keeps them next to their
  /// loads).
  Value tileAddress(Value tile, Value row, Value col, int64_t dRow,
                    int64_t dCol, int64_t colBound = 0, int64_t colAlign = 0) {
    auto type = mlir::cast<SmemType>(tile.getType());
    if (std::optional<int64_t> delta = constantDelta(type, dRow, dCol))
      return *delta ? add(tileAddress(tile, row, col), i32(*delta))
                    : tileAddress(tile, row, col);
    if (std::optional<int64_t> x = xorDelta(type, dCol, colBound, colAlign)) {
      std::optional<int64_t> rowDelta = constantDelta(type, dRow, 0);
      Value base = tileAddress(tile, rowDelta ? row : add(row, i32(dRow)), col);
      Value addr = mlir::arith::XOrIOp::create(b, loc, base, i32(*x));
      return rowDelta && *rowDelta ? add(addr, i32(*rowDelta)) : addr;
    }
    // Else the part of the step that is constant (whole swizzle periods of
    // rows, typically) leaves the address register.
    if (std::optional<int64_t> delta = constantDelta(type, dRow, 0))
      return add(tileAddress(tile, row, add(col, i32(dCol))), i32(*delta));
    if (std::optional<int64_t> delta = constantDelta(type, 0, dCol))
      return add(tileAddress(tile, add(row, i32(dRow)), col), i32(*delta));
    return tileAddress(tile, add(row, i32(dRow)), add(col, i32(dCol)));
  }
  static std::optional<int64_t> constantDelta(SmemType type, int64_t dRow,
                                              int64_t dCol) {
    LayoutAttr layout = type.getLayout();
    if (!layout || type.isColumnMajor() || type.getShape().size() != 2)
      return std::nullopt;
    int64_t bytes =
        std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
    int64_t delta = (dRow * type.getRowStride() + dCol) * bytes;
    if (layout.isSwizzled() &&
        delta % int64_t(layout.getSwizzle().periodBytes()) != 0)
      return std::nullopt;
    return delta;
  }
  /// The constant D with address(row, col + dCol) == address(row, col) ^ D
  /// for every row and every col = l + a (l in [0, colBound), a a multiple
  /// of colAlign, or 0 when colAlign is 0), if there is one. With rows of R
  /// bytes (a power of two), a column step of D bytes that is a multiple of
  /// P (colBound's bytes rounded up to a power of two) and keeps D + P <= R
  /// (and <= colAlign's bytes) sets bits that neither the column (l below
  /// P, a from colAlign up) nor the row (R and above) has: the linear
  /// offset is the unstepped one OR D. The swizzle XORs bits [base, base +
  /// bits) with bits from base + shift up, which D leaves alone when D <
  /// 2^(base + shift): so it commutes with the step. And a tile's base is
  /// aligned past D (D below its alignment), so the XOR can apply to the
  /// whole address.
  static std::optional<int64_t> xorDelta(SmemType type, int64_t dCol,
                                         int64_t colBound, int64_t colAlign) {
    LayoutAttr layout = type.getLayout();
    if (colBound <= 0 || dCol <= 0 || !layout || !layout.isSwizzled() ||
        type.isColumnMajor() || type.getShape().size() != 2)
      return std::nullopt;
    int64_t bytes =
        std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
    int64_t rowBytes = type.getRowStride() * bytes;
    int64_t step = dCol * bytes;
    int64_t span = int64_t(llvm::PowerOf2Ceil(uint64_t(colBound * bytes)));
    int64_t room = colAlign > 0 ? std::min(rowBytes, colAlign * bytes)
                                : rowBytes;
    ptx::Swizzle swizzle = layout.getSwizzle();
    if (!llvm::isPowerOf2_64(uint64_t(rowBytes)) || step % span != 0 ||
        step + span > room ||
        step >= (int64_t(1) << (swizzle.base + swizzle.shift)) ||
        step >= type.getAlignment())
      return std::nullopt;
    return step;
  }
  /// Linear thread id for a block of exactly `dims` threads.
  Value staticLinearThread(ArrayRef32 dims) {
    Value id = ThreadIdOp::create(b, loc, b.getI32Type(), Dim::x);
    if (dims.size() > 1) {
      Value ty = ThreadIdOp::create(b, loc, b.getI32Type(), Dim::y);
      id = add(id, mul(ty, i32(dims[0])));
    }
    if (dims.size() > 2) {
      Value tz = ThreadIdOp::create(b, loc, b.getI32Type(), Dim::z);
      id = add(id, mul(tz, i32(int64_t(dims[0]) * dims[1])));
    }
    return id;
  }
  /// Linear thread id and thread count of the block.
  std::pair<Value, Value> linearThread() {
    Value tx = ThreadIdOp::create(b, loc, b.getI32Type(), Dim::x);
    Value ty = ThreadIdOp::create(b, loc, b.getI32Type(), Dim::y);
    Value tz = ThreadIdOp::create(b, loc, b.getI32Type(), Dim::z);
    Value nx = BlockDimOp::create(b, loc, b.getI32Type(), Dim::x);
    Value ny = BlockDimOp::create(b, loc, b.getI32Type(), Dim::y);
    Value nz = BlockDimOp::create(b, loc, b.getI32Type(), Dim::z);
    Value id = add(tx, mul(nx, add(ty, mul(ny, tz))));
    return {id, mul(nx, mul(ny, nz))};
  }

  OpBuilder &b;
  Location loc;
};

} // namespace kaio

#endif // KAIO_LIB_DIALECT_KAIO_TRANSFORMS_TILEEMITTER_H
