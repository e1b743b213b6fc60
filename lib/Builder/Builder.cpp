//===- Builder.cpp - write kaio kernels in C++ ----------------------------===//
//
// The out-of-line half of include/Kaio/Builder/Builder.h: op creation. The
// builder never asserts on user mistakes: what it can check itself becomes a
// located error in diagnostics(), the rest is left to the verifiers, which
// ModuleBuilder::finish runs.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Builder/Builder.h"
#include "KernelState.h"

#include "Kaio/Support/Diagnostics.h"

#include "Kaio/Dialect/Kaio/IR/KaioDialect.h"
#include "Kaio/Dialect/Kaio/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kaio;
namespace kb = kaio::builder;
namespace kbd = kaio::builder::detail;
using kb::SrcLoc;
using kbd::BinOp;
using kbd::BodyFn;
using kbd::CmpOp;
using kbd::KernelState;
using kbd::Kind;
using kbd::ScalarId;
using kbd::UnOp;

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//


namespace {
/// A value of `type` to keep building with after an error.
Value placeholder(KernelState *st, Type type, Location loc) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(st->b, loc, ft,
                                     st->b.getFloatAttr(ft, 0.0));
  if (auto it = dyn_cast<IntegerType>(type))
    return arith::ConstantOp::create(st->b, loc, it,
                                     st->b.getIntegerAttr(it, 0));
  return {};
}
} // namespace

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

Type kbd::scalarType(KernelState *st, ScalarId id) {
  OpBuilder &b = st->b;
  switch (id) {
  case ScalarId::I1:
    return b.getI1Type();
  case ScalarId::I8:
    return b.getI8Type();
  case ScalarId::I16:
    return b.getI16Type();
  case ScalarId::I32:
    return b.getI32Type();
  case ScalarId::I64:
    return b.getI64Type();
  case ScalarId::F16:
    return b.getF16Type();
  case ScalarId::BF16:
    return b.getBF16Type();
  case ScalarId::F32:
    return b.getF32Type();
  case ScalarId::F64:
    return b.getF64Type();
  }
  llvm_unreachable("unknown scalar");
}

Value kbd::constantInt(KernelState *st, ScalarId id, int64_t value,
                          SrcLoc where) {
  auto type = llvm::cast<IntegerType>(scalarType(st, id));
  if (type.getWidth() == 1)
    value = value != 0;
  return arith::ConstantOp::create(st->b, st->loc(where), type,
                                   st->b.getIntegerAttr(type, value));
}

Value kbd::constantFloat(KernelState *st, ScalarId id, double value,
                            SrcLoc where) {
  auto type = llvm::cast<FloatType>(scalarType(st, id));
  return arith::ConstantOp::create(st->b, st->loc(where), type,
                                   st->b.getFloatAttr(type, value));
}

SrcLoc kbd::lastLoc(KernelState *st) { return st->last; }

void kbd::error(KernelState *st, SrcLoc where, const std::string &message) {
  st->error(where, message);
}

Value kbd::binary(KernelState *st, BinOp op, Kind kind, Value lhs,
                     Value rhs, SrcLoc where) {
  OpBuilder &b = st->b;
  Location loc = st->loc(where);
  bool fp = kind == Kind::Float;
  bool sgn = kind == Kind::Signed;
  switch (op) {
  case BinOp::Add:
    return fp ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
              : Value(arith::AddIOp::create(b, loc, lhs, rhs));
  case BinOp::Sub:
    return fp ? Value(arith::SubFOp::create(b, loc, lhs, rhs))
              : Value(arith::SubIOp::create(b, loc, lhs, rhs));
  case BinOp::Mul:
    return fp ? Value(arith::MulFOp::create(b, loc, lhs, rhs))
              : Value(arith::MulIOp::create(b, loc, lhs, rhs));
  case BinOp::FastDiv:
    return arith::DivFOp::create(b, loc, lhs, rhs, arith::FastMathFlags::arcp);
  case BinOp::Div:
    if (fp)
      return arith::DivFOp::create(b, loc, lhs, rhs);
    return sgn ? Value(arith::DivSIOp::create(b, loc, lhs, rhs))
               : Value(arith::DivUIOp::create(b, loc, lhs, rhs));
  case BinOp::Rem:
    if (fp)
      return arith::RemFOp::create(b, loc, lhs, rhs);
    return sgn ? Value(arith::RemSIOp::create(b, loc, lhs, rhs))
               : Value(arith::RemUIOp::create(b, loc, lhs, rhs));
  case BinOp::Min:
    if (fp)
      return arith::MinNumFOp::create(b, loc, lhs, rhs);
    return sgn ? Value(arith::MinSIOp::create(b, loc, lhs, rhs))
               : Value(arith::MinUIOp::create(b, loc, lhs, rhs));
  case BinOp::Max:
    if (fp)
      return arith::MaxNumFOp::create(b, loc, lhs, rhs);
    return sgn ? Value(arith::MaxSIOp::create(b, loc, lhs, rhs))
               : Value(arith::MaxUIOp::create(b, loc, lhs, rhs));
  default:
    break;
  }
  if (fp) {
    st->error(where, "bitwise operation on a floating-point value");
    return lhs;
  }
  switch (op) {
  case BinOp::And:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case BinOp::Or:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case BinOp::Xor:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  case BinOp::Shl:
    return arith::ShLIOp::create(b, loc, lhs, rhs);
  case BinOp::Shr:
    return sgn ? Value(arith::ShRSIOp::create(b, loc, lhs, rhs))
               : Value(arith::ShRUIOp::create(b, loc, lhs, rhs));
  default:
    llvm_unreachable("handled above");
  }
}

Value kbd::compare(KernelState *st, CmpOp op, Kind kind, Value lhs,
                      Value rhs, SrcLoc where) {
  OpBuilder &b = st->b;
  Location loc = st->loc(where);
  if (kind == Kind::Float) {
    // Ordered comparisons, except != which is true for NaN as in C++.
    static const arith::CmpFPredicate preds[] = {
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE,
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE};
    return arith::CmpFOp::create(b, loc, preds[static_cast<int>(op)], lhs,
                                 rhs);
  }
  static const arith::CmpIPredicate signedPreds[] = {
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge,
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne};
  static const arith::CmpIPredicate unsignedPreds[] = {
      arith::CmpIPredicate::ult, arith::CmpIPredicate::ule,
      arith::CmpIPredicate::ugt, arith::CmpIPredicate::uge,
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne};
  const arith::CmpIPredicate *preds =
      kind == Kind::Signed ? signedPreds : unsignedPreds;
  return arith::CmpIOp::create(b, loc, preds[static_cast<int>(op)], lhs, rhs);
}

Value kbd::unary(KernelState *st, UnOp op, Kind kind, Value x,
                    SrcLoc where) {
  OpBuilder &b = st->b;
  Location loc = st->loc(where);
  Type type = x.getType();
  switch (op) {
  case UnOp::Neg:
    if (kind == Kind::Float)
      return arith::NegFOp::create(b, loc, x);
    return arith::SubIOp::create(
        b, loc,
        arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, 0)), x);
  case UnOp::Not:
    if (kind == Kind::Float)
      break;
    return arith::XOrIOp::create(
        b, loc, x,
        arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, -1)));
  case UnOp::Abs:
    if (kind == Kind::Float)
      return math::AbsFOp::create(b, loc, x);
    return math::AbsIOp::create(b, loc, x);
  default:
    break;
  }
  if (kind != Kind::Float) {
    st->error(where, "math function of an integer value (convert with "
                     "llvm::cast<float>())");
    return x;
  }
  switch (op) {
  case UnOp::Exp:
    return math::ExpOp::create(b, loc, x);
  case UnOp::Exp2:
    return math::Exp2Op::create(b, loc, x);
  case UnOp::FastExp2:
    return math::Exp2Op::create(b, loc, x, arith::FastMathFlags::afn);
  case UnOp::Log:
    return math::LogOp::create(b, loc, x);
  case UnOp::Log2:
    return math::Log2Op::create(b, loc, x);
  case UnOp::Tanh:
    return math::TanhOp::create(b, loc, x);
  case UnOp::Sqrt:
    return math::SqrtOp::create(b, loc, x);
  case UnOp::Rsqrt:
    return math::RsqrtOp::create(b, loc, x);
  case UnOp::Sin:
    return math::SinOp::create(b, loc, x);
  case UnOp::Cos:
    return math::CosOp::create(b, loc, x);
  case UnOp::Erf:
    return math::ErfOp::create(b, loc, x);
  case UnOp::Floor:
    return math::FloorOp::create(b, loc, x);
  case UnOp::Ceil:
    return math::CeilOp::create(b, loc, x);
  case UnOp::Trunc:
    return math::TruncOp::create(b, loc, x);
  default:
    break;
  }
  st->error(where, "bitwise not of a floating-point value");
  return x;
}

Value kbd::fma(KernelState *st, Value a, Value b, Value c, SrcLoc where) {
  return math::FmaOp::create(st->b, st->loc(where), a, b, c);
}

Value kbd::select(KernelState *st, Value cond, Value a, Value b,
                     SrcLoc where) {
  return arith::SelectOp::create(st->b, st->loc(where), cond, a, b);
}

Value kbd::cast(KernelState *st, Value x, Kind from, ScalarId toId,
                   Kind to, SrcLoc where) {
  OpBuilder &b = st->b;
  Location loc = st->loc(where);
  Type src = x.getType(), dst = scalarType(st, toId);
  if (src == dst)
    return x; // int32_t <-> uint32_t: the same signless bits
  unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
  if (to == Kind::Bool) {
    if (from == Kind::Float)
      return arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::UNE, x,
          arith::ConstantOp::create(b, loc, src, b.getFloatAttr(src, 0.0)));
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, x,
        arith::ConstantOp::create(b, loc, src, b.getIntegerAttr(src, 0)));
  }
  bool srcFloat = from == Kind::Float, dstFloat = to == Kind::Float;
  if (!srcFloat && !dstFloat) {
    if (dw < sw)
      return arith::TruncIOp::create(b, loc, dst, x);
    if (from == Kind::Signed)
      return arith::ExtSIOp::create(b, loc, dst, x);
    return arith::ExtUIOp::create(b, loc, dst, x);
  }
  if (!srcFloat)
    return from == Kind::Signed
               ? Value(arith::SIToFPOp::create(b, loc, dst, x))
               : Value(arith::UIToFPOp::create(b, loc, dst, x));
  if (!dstFloat)
    return to == Kind::Signed ? Value(arith::FPToSIOp::create(b, loc, dst, x))
                              : Value(arith::FPToUIOp::create(b, loc, dst, x));
  if (dw > sw)
    return arith::ExtFOp::create(b, loc, dst, x);
  if (dw < sw)
    return arith::TruncFOp::create(b, loc, dst, x);
  // f16 <-> bf16: through f32, which holds both exactly.
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, dst, wide);
}

Value kbd::bitcast(KernelState *st, Value x, ScalarId toId, SrcLoc where) {
  Type dst = scalarType(st, toId);
  Location loc = st->loc(where);
  if (x.getType().getIntOrFloatBitWidth() != dst.getIntOrFloatBitWidth()) {
    st->error(where, "as<>() between types of different widths (use llvm::cast<>())");
    return placeholder(st, dst, loc);
  }
  return arith::BitcastOp::create(st->b, loc, dst, x);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Value kbd::load(KernelState *st, Value ptr, Value index, Value mask,
                   Value other, SrcLoc where) {
  Type elem = llvm::cast<PtrType>(ptr.getType()).getElementType();
  return LoadOp::create(st->b, st->loc(where), elem, ptr, index, mask, other);
}

void kbd::store(KernelState *st, Value value, Value ptr, Value index,
                   Value mask, SrcLoc where) {
  StoreOp::create(st->b, st->loc(where), value, ptr, index, mask);
}

SmallVector<Value, 8> kbd::loadVector(KernelState *st, Value ptr, Value index,
                                      unsigned width, Value mask, Value other,
                                      SrcLoc where) {
  Type elem = llvm::cast<PtrType>(ptr.getType()).getElementType();
  SmallVector<Type, 8> types(width, elem);
  auto op = LoadVectorOp::create(st->b, st->loc(where), types, ptr, index,
                                 mask, other);
  return SmallVector<Value, 8>(op.getResults());
}

void kbd::storeVector(KernelState *st, ArrayRef<Value> values, Value ptr,
                      Value index, Value mask, SrcLoc where) {
  StoreVectorOp::create(st->b, st->loc(where), values, ptr, index, mask);
}

Value kbd::atomic(KernelState *st, AtomicKind kind, Value ptr, Value index,
                     Value value, SrcLoc where) {
  return AtomicOp::create(st->b, st->loc(where), value.getType(), kind, ptr,
                          index, value);
}

Value kbd::ptrAdd(KernelState *st, Value ptr, Value offset, SrcLoc where) {
  return PtrAddOp::create(st->b, st->loc(where), ptr.getType(), ptr, offset);
}

Value kbd::sharedLoad(KernelState *st, Value tile, ArrayRef<Value> indices,
                         SrcLoc where) {
  Type elem = llvm::cast<SmemType>(tile.getType()).getElementType();
  return SharedLoadOp::create(st->b, st->loc(where), elem, tile, indices);
}

SmallVector<Value, 8> kbd::sharedLoadVector(KernelState *st, Value tile,
                                            ArrayRef<Value> indices,
                                            unsigned width, SrcLoc where) {
  Type elem = llvm::cast<SmemType>(tile.getType()).getElementType();
  SmallVector<Type, 8> types(width, elem);
  auto op = SharedLoadVectorOp::create(st->b, st->loc(where), types, tile,
                                       indices);
  return SmallVector<Value, 8>(op.getResults());
}

void kbd::sharedStore(KernelState *st, Value value, Value tile,
                         ArrayRef<Value> indices, SrcLoc where) {
  SharedStoreOp::create(st->b, st->loc(where), value, tile, indices);
}

void kbd::sharedStoreVector(KernelState *st, ArrayRef<Value> values,
                            Value tile, ArrayRef<Value> indices,
                            SrcLoc where) {
  SharedStoreVectorOp::create(st->b, st->loc(where), values, tile, indices);
}

Value kbd::sharedAddress(KernelState *st, Value tile,
                            ArrayRef<Value> indices, SrcLoc where) {
  return SharedAddressOp::create(st->b, st->loc(where), st->b.getI32Type(),
                                 tile, indices);
}

/// A fragment (tile) type; a tile shape the type rejects is reported at the
/// C++ call site and replaced by one atom so that building can go on.
static FragType fragTypeAt(KernelState *st, SrcLoc where, FragRole role,
                           ptx::MMAShape shape, Type elem, unsigned rows,
                           unsigned cols) {
  std::string message;
  FragType type;
  {
    ScopedDiagnosticHandler handler(st->ctx(), [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    type = FragType::getChecked([&] { return emitError(st->loc(where)); },
                                st->ctx(), role, shape, elem, rows, cols);
  }
  if (type)
    return type;
  st->error(where, "invalid fragment tile: " + message);
  return FragType::get(st->ctx(), role, shape, elem);
}

Value kbd::loadFragment(KernelState *st, Value tile, FragRole role,
                           ptx::MMAShape shape, Value row, Value col,
                           unsigned tileRows, unsigned tileCols,
                           bool transpose, SrcLoc where) {
  FragType type = fragTypeAt(
      st, where, role, shape,
      llvm::cast<SmemType>(tile.getType()).getElementType(), tileRows,
      tileCols);
  return LoadFragmentOp::create(st->b, st->loc(where), type, tile, row, col,
                                transpose);
}

Value kbd::fragMap(KernelState *st, Value frag, Type resultElem,
                      function_ref<Value(Value)> fn, SrcLoc where) {
  auto in = llvm::cast<FragType>(frag.getType());
  auto out = FragType::get(st->ctx(), in.getRole(), in.getShape(), resultElem,
                           in.getTileRows(), in.getTileCols());
  Location loc = st->loc(where);
  auto op = FragMapOp::create(st->b, loc, out, frag, ValueRange());
  OpBuilder::InsertionGuard guard(st->b);
  Block *body = st->b.createBlock(&op.getBody(), {}, {in.getElementType()},
                                  {loc});
  Value result = fn(body->getArgument(0));
  YieldOp::create(st->b, loc, result);
  return op;
}

Value kbd::fragMapWith(KernelState *st, Value frag, Type resultElem,
                       ArrayRef<Value> extras, bool indexed,
                       function_ref<Value(ValueRange)> fn, SrcLoc where) {
  auto in = llvm::cast<FragType>(frag.getType());
  auto out = FragType::get(st->ctx(), in.getRole(), in.getShape(), resultElem,
                           in.getTileRows(), in.getTileCols());
  Location loc = st->loc(where);
  auto op = FragMapOp::create(st->b, loc, out, frag, extras, indexed);
  SmallVector<Type> argTypes{in.getElementType()};
  if (indexed)
    argTypes.append(2, st->b.getI32Type());
  for (Value extra : extras) {
    auto f = llvm::dyn_cast<FragType>(extra.getType());
    argTypes.push_back(f ? f.getElementType() : extra.getType());
  }
  OpBuilder::InsertionGuard guard(st->b);
  Block *body = st->b.createBlock(&op.getBody(), {}, argTypes,
                                  SmallVector<Location>(argTypes.size(), loc));
  Value result = fn(body->getArguments());
  YieldOp::create(st->b, loc, result);
  return op;
}

Value kbd::fragReduceRows(KernelState *st, ReduceKind kind, Value frag,
                          SrcLoc where) {
  auto in = llvm::cast<FragType>(frag.getType());
  return FragReduceRowsOp::create(st->b, st->loc(where),
                                  in.withTile(in.getTileRows(), 1), kind, frag);
}

Value kbd::fragSlice(KernelState *st, Value frag, unsigned row, unsigned col,
                     unsigned rows, unsigned cols, SrcLoc where) {
  auto in = llvm::cast<FragType>(frag.getType());
  return FragSliceOp::create(st->b, st->loc(where), in.withTile(rows, cols),
                             frag, ArrayRef<int64_t>{row, col});
}

Value kbd::fragToOperand(KernelState *st, Value frag, Type elem,
                         SrcLoc where) {
  auto in = llvm::cast<FragType>(frag.getType());
  auto [accRows, accCols] = in.getAtomExtent();
  ptx::MmaShapeInfo shape = ptx::getMmaShapeInfo(in.getShape());
  unsigned per = std::max(1u, shape.k / accCols);
  auto out = FragType::get(st->ctx(), FragRole::a, in.getShape(), elem,
                           in.getTileRows(), in.getTileCols() / per);
  return FragToOperandOp::create(st->b, st->loc(where), out, frag);
}

void kbd::storeFragment(KernelState *st, Value frag, Value dst, Value row,
                           Value col, Value rows, Value cols, Value ld,
                           Value beta, SrcLoc where) {
  StoreFragmentOp::create(st->b, st->loc(where), frag, dst, row, col, rows,
                          cols, ld, beta);
}

void kbd::sharedStoreFragment(KernelState *st, Value frag, Value tile,
                              Value row, Value col, SrcLoc where) {
  SharedStoreFragmentOp::create(st->b, st->loc(where), frag, tile, row, col);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

SmallVector<Value> kbd::buildIf(KernelState *st, Value cond,
                                   TypeRange resultTypes, BodyFn thenFn,
                                   BodyFn elseFn, SrcLoc where) {
  OpBuilder &b = st->b;
  Location loc = st->loc(where);
  auto op = scf::IfOp::create(b, loc, resultTypes, cond, /*addThenBlock=*/true,
                              /*addElseBlock=*/static_cast<bool>(elseFn));
  auto fill = [&](Region &region, BodyFn fn) {
    OpBuilder::InsertionGuard guard(b);
    Block &block = region.front();
    if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
      block.back().erase();
    b.setInsertionPointToEnd(&block);
    SmallVector<Value> values = fn();
    scf::YieldOp::create(b, loc, values);
  };
  fill(op.getThenRegion(), thenFn);
  if (elseFn)
    fill(op.getElseRegion(), elseFn);
  return SmallVector<Value>(op.getResults());
}

SmallVector<Value> kbd::buildFor(
    KernelState *st, Value lo, Value hi, Value step, ValueRange inits,
    function_ref<SmallVector<Value>(Value, ValueRange)> body, bool unsignedCmp,
    SrcLoc where) {
  Location loc = st->loc(where);
  // Taken before the body is built: a for_ inside it is not marked.
  unsigned unroll = std::exchange(st->pendingUnroll, 0u);
  unsigned stages = std::exchange(st->pendingStages, 0u);
  bool prefetch = std::exchange(st->pendingPrefetch, false);
  auto op = scf::ForOp::create(
      st->b, loc, lo, hi, step, inits,
      [&](OpBuilder &b, Location l, Value iv, ValueRange iters) {
        SmallVector<Value> next = body(iv, iters);
        scf::YieldOp::create(b, l, next);
      },
      unsignedCmp);
  if (unroll > 1)
    op->setAttr(KaioDialect::kUnrollAttrName,
                st->b.getI32IntegerAttr(int32_t(unroll)));
  if (stages)
    op->setAttr(KaioDialect::kPipelineStagesAttrName,
                st->b.getI32IntegerAttr(int32_t(stages)));
  if (prefetch)
    op->setAttr(KaioDialect::kPipelinePrefetchAttrName, st->b.getUnitAttr());
  return SmallVector<Value>(op.getResults());
}

SmallVector<Value> kbd::buildWhile(
    KernelState *st, ValueRange inits, function_ref<Value(ValueRange)> cond,
    function_ref<SmallVector<Value>(ValueRange)> body, SrcLoc where) {
  Location loc = st->loc(where);
  SmallVector<Type> types(inits.getTypes());
  auto op = scf::WhileOp::create(
      st->b, loc, types, inits,
      [&](OpBuilder &b, Location l, ValueRange args) {
        scf::ConditionOp::create(b, l, cond(args), args);
      },
      [&](OpBuilder &b, Location l, ValueRange args) {
        scf::YieldOp::create(b, l, body(args));
      });
  return SmallVector<Value>(op.getResults());
}

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

Value kb::KernelBuilder::addParam(Type type, bool isPointer, bool readOnly,
                                  bool isSigned, StringRef name,
                                  SrcLoc where) {
  Location loc = st_->loc(where);
  if (!name.empty())
    loc = NameLoc::get(StringAttr::get(st_->ctx(), name), loc);
  if (isPointer)
    type = PtrType::get(st_->ctx(), type);
  st_->argTypes.push_back(type);
  st_->readOnly.push_back(readOnly);
  st_->isSigned.push_back(isSigned);
  return st_->kernel.getBody().front().addArgument(type, loc);
}

kb::KernelBuilder &kb::KernelBuilder::unroll(unsigned factor, SrcLoc where) {
  if (factor < 1 || factor > unsigned(KaioDialect::kMaxUnroll))
    st_->error(where, "unroll factor " + llvm::Twine(factor) +
                          " is outside 1 to " +
                          llvm::Twine(KaioDialect::kMaxUnroll));
  else {
    st_->pendingUnroll = factor;
    st_->unrollAt = where;
  }
  return *this;
}

kb::KernelBuilder &kb::KernelBuilder::pipeline(unsigned stages,
                                               PipelineReads reads,
                                               SrcLoc where) {
  bool prefetch = reads == PipelineReads::Prefetch;
  if (stages < 2 || stages > unsigned(KaioDialect::kMaxPipelineStages))
    st_->error(where, "pipeline stages " + llvm::Twine(stages) +
                          " are outside 2 to " +
                          llvm::Twine(KaioDialect::kMaxPipelineStages));
  else if (prefetch && stages < 3)
    st_->error(where, "a pipeline that prefetches its reads needs 3 stages "
                      "or more, not " + llvm::Twine(stages));
  else {
    st_->pendingStages = stages;
    st_->pendingPrefetch = prefetch;
    st_->stagesAt = where;
  }
  return *this;
}

kb::U32 kb::KernelBuilder::threadId(Dim dim, SrcLoc where) {
  return kb::U32(st_, ThreadIdOp::create(st_->b, st_->loc(where),
                                     st_->b.getI32Type(), dim));
}
kb::U32 kb::KernelBuilder::blockId(Dim dim, SrcLoc where) {
  return kb::U32(st_, BlockIdOp::create(st_->b, st_->loc(where),
                                    st_->b.getI32Type(), dim));
}
kb::U32 kb::KernelBuilder::blockDim(Dim dim, SrcLoc where) {
  return kb::U32(st_, BlockDimOp::create(st_->b, st_->loc(where),
                                     st_->b.getI32Type(), dim));
}
kb::U32 kb::KernelBuilder::gridDim(Dim dim, SrcLoc where) {
  return kb::U32(st_, GridDimOp::create(st_->b, st_->loc(where),
                                    st_->b.getI32Type(), dim));
}
kb::U32 kb::KernelBuilder::laneId(SrcLoc where) {
  return kb::U32(st_,
             LaneIdOp::create(st_->b, st_->loc(where), st_->b.getI32Type()));
}
kb::U32 kb::KernelBuilder::warpId(SrcLoc where) {
  return kb::U32(st_,
             WarpIdOp::create(st_->b, st_->loc(where), st_->b.getI32Type()));
}

void kb::KernelBuilder::barrier(SrcLoc where) {
  BarrierOp::create(st_->b, st_->loc(where), IntegerAttr(), IntegerAttr());
}

void kb::KernelBuilder::barrier(int32_t id, int32_t threads, SrcLoc where) {
  BarrierOp::create(st_->b, st_->loc(where), st_->b.getI32IntegerAttr(id),
                    st_->b.getI32IntegerAttr(threads));
}

Value kb::KernelBuilder::sharedAlloc(ArrayRef<int64_t> shape, Type elem,
                                 std::optional<kb::TileLayout> layout,
                                 SrcLoc where) {
  Location loc = st_->loc(where);
  LayoutAttr layoutAttr;
  if (layout)
    layoutAttr = LayoutAttr::get(st_->ctx(), layout->order, layout->pad,
                                 layout->swizzleBits, layout->swizzleBase,
                                 layout->swizzleShift);
  // The type verifier's message, reported at the C++ call site.
  std::string message;
  SmemType type;
  {
    ScopedDiagnosticHandler handler(st_->ctx(), [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    type = SmemType::getChecked([&] { return emitError(loc); }, st_->ctx(),
                                shape, elem, layoutAttr);
  }
  if (!type) {
    st_->error(where, "invalid shared tile type: " + message);
    type = SmemType::get(st_->ctx(), {1}, elem, nullptr);
  }
  return SharedAllocOp::create(st_->b, loc, type);
}

Value kb::KernelBuilder::shuffleImpl(ShuffleMode mode, Value value, Value offset,
                                 int32_t width, SrcLoc where) {
  return ShuffleOp::create(st_->b, st_->loc(where), value.getType(), mode,
                           value, offset, static_cast<uint32_t>(width));
}

Value kb::KernelBuilder::reduceImpl(bool block, ReduceKind kind, Value value,
                                SrcLoc where) {
  Location loc = st_->loc(where);
  if (block)
    return BlockReduceOp::create(st_->b, loc, value.getType(), kind, value);
  return WarpReduceOp::create(st_->b, loc, value.getType(), kind, value);
}

Value kb::KernelBuilder::asyncCopyImpl(Value src, Value row, Value col,
                                       Value rows, Value cols, Value ld,
                                       Value dst, std::optional<TileRows> into,
                                       bool aligned, SrcLoc where) {
  DenseI64ArrayAttr dstRows;
  if (into) {
    int64_t tileRows = cast<SmemType>(dst.getType()).getShape()[0];
    if (!into->count || int64_t(into->first) + into->count > tileRows)
      st_->error(where, "async copy into rows " + Twine(into->first) +
                            " .. " + Twine(into->first + into->count) +
                            " (exclusive) of a tile of " + Twine(tileRows) +
                            " rows");
    dstRows = st_->b.getDenseI64ArrayAttr(
        {int64_t(into->first), int64_t(into->count)});
  }
  return AsyncCopyOp::create(st_->b, st_->loc(where),
                             TokenType::get(st_->ctx()), src, row, col, rows,
                             cols, ld, dst, dstRows, aligned);
}

void kb::KernelBuilder::asyncWait(std::initializer_list<kb::Token> tokens,
                              SrcLoc where) {
  SmallVector<Value> values;
  for (const kb::Token &t : tokens)
    values.push_back(t.raw());
  AsyncWaitOp::create(st_->b, st_->loc(where), values, IntegerAttr());
}

Value kb::KernelBuilder::fragFillImpl(FragRole role, ptx::MMAShape shape,
                                  Value value, FragTile tile, SrcLoc where) {
  FragType type = fragTypeAt(st_, where, role, shape, value.getType(),
                             tile.rows, tile.cols);
  return FragFillOp::create(st_->b, st_->loc(where), type, value);
}

kb::Frag kb::KernelBuilder::mma(const Frag &a, const Frag &b,
                                const Frag &acc,
                        SrcLoc where) {
  return kb::Frag(st_, MmaOp::create(st_->b, st_->loc(where), acc.type(), a.raw(),
                                 b.raw(), acc.raw()));
}

void kb::KernelBuilder::setMaxRegisters(int32_t n) {
  st_->kernel.setMaxRegistersAttr(st_->b.getI32IntegerAttr(n));
}
void kb::KernelBuilder::setMinBlocksPerSM(int32_t n) {
  st_->kernel.setMinBlocksPerSmAttr(st_->b.getI32IntegerAttr(n));
}

//===----------------------------------------------------------------------===//
// ModuleBuilder
//===----------------------------------------------------------------------===//

kb::ModuleBuilder::ModuleBuilder() {
  auto context = std::make_unique<MLIRContext>();
  impl_ = std::make_unique<Impl>(context.get());
  impl_->ownedContext = std::move(context);
}

kb::ModuleBuilder::ModuleBuilder(MLIRContext &context)
    : impl_(std::make_unique<Impl>(&context)) {}

kb::ModuleBuilder::~ModuleBuilder() {
  // The module goes before the context that owns its types.
  impl_->kernel.reset();
  impl_->module = nullptr;
}

void kb::ModuleBuilder::setTarget(StringRef chip) {
  (*impl_->module)
      ->setAttr(KaioDialect::kTargetAttrName,
                StringAttr::get(impl_->context, chip));
}

KernelState *kb::ModuleBuilder::beginKernel(StringRef name,
                                        ArrayRef<int32_t> blockSize,
                                        SrcLoc where) {
  OpBuilder b(impl_->context);
  b.setInsertionPointToEnd(impl_->module->getBody());
  Location loc =
      FileLineColLoc::get(impl_->context, where.file, where.line, where.column);
  auto kernel = KernelOp::create(
      b, loc, name, FunctionType::get(impl_->context, {}, {}),
      /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr, blockSize,
      /*max_registers=*/nullptr, /*min_blocks_per_sm=*/nullptr,
      /*cluster_size=*/nullptr);
  impl_->kernel = std::make_unique<KernelState>(*impl_, kernel);
  KernelState *st = impl_->kernel.get();
  st->last = where;
  st->b.setInsertionPointToEnd(st->b.createBlock(&kernel.getBody()));
  return st;
}

void kb::ModuleBuilder::endKernel() {
  KernelState *st = impl_->kernel.get();
  KernelOp kernel = st->kernel;
  if (st->pendingUnroll)
    st->error(st->unrollAt, "unroll(" + llvm::Twine(st->pendingUnroll) +
                                ") is not followed by a for_");
  if (st->pendingStages)
    st->error(st->stagesAt, "pipeline(" + llvm::Twine(st->pendingStages) +
                                ") is not followed by a for_");
  ReturnOp::create(st->b, kernel.getLoc());
  kernel.setFunctionTypeAttr(
      TypeAttr::get(FunctionType::get(impl_->context, st->argTypes, {})));
  for (auto [i, isSigned] : llvm::enumerate(st->isSigned))
    if (isSigned)
      kernel.setArgAttr(i, KaioDialect::kSignedAttrName,
                        UnitAttr::get(impl_->context));
  for (auto [i, readOnly] : llvm::enumerate(st->readOnly))
    if (readOnly)
      kernel.setArgAttr(i, KaioDialect::kReadOnlyAttrName,
                        UnitAttr::get(impl_->context));
  impl_->kernel.reset();
}

OwningOpRef<ModuleOp> kb::ModuleBuilder::finish() {
  {
    llvm::raw_string_ostream os(impl_->diagnostics);
    ScopedDiagnosticHandler handler(impl_->context, [&](Diagnostic &diag) {
      formatDiagnostic(diag, os);
      return success();
    });
    if (failed(verify(*impl_->module)))
      impl_->hasErrors = true;
  }
  if (impl_->hasErrors)
    return nullptr;
  // The same IR whatever order the host compiler evaluated unsequenced
  // builder expressions in: values nothing uses go first (their order would
  // be the creation order; canonicalize drops them anyway), then each block
  // is ordered by dataflow.
  kaio::eraseUnusedOps(*impl_->module);
  kaio::orderByDataflow(*impl_->module);
  OwningOpRef<ModuleOp> result = std::move(impl_->module);
  impl_->module = ModuleOp::create(UnknownLoc::get(impl_->context));
  return result;
}

ModuleOp kb::ModuleBuilder::module() { return *impl_->module; }
const std::string &kb::ModuleBuilder::diagnostics() const {
  return impl_->diagnostics;
}
bool kb::ModuleBuilder::hasErrors() const { return impl_->hasErrors; }
MLIRContext &kb::ModuleBuilder::context() { return *impl_->context; }

int kb::generatorMain(int argc, char **argv,
                                 function_ref<void(kb::ModuleBuilder &)> build) {
  kb::ModuleBuilder mb;
  build(mb);
  OwningOpRef<ModuleOp> module = mb.finish();
  if (!module) {
    llvm::errs() << mb.diagnostics();
    return 1;
  }
  std::string path = argc > 1 ? argv[1] : "-";
  std::string error;
  auto out = openOutputFile(path, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  // With locations, so that pipeline errors later point at the C++ lines.
  module->print(out->os(), OpPrintingFlags().enableDebugInfo(
                               /*enable=*/true, /*prettyForm=*/false));
  out->os() << "\n";
  out->keep();
  return 0;
}
