//===- PTXBuilder.h - terse construction of ptx instructions ----*- C++ -*-===//
//
// The conversions to the ptx dialect emit many short instruction sequences;
// this wraps the generated builders (which spell every modifier) in calls that
// read like the PTX they produce. It also holds the type converter all the
// conversions share.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_CONVERSION_PTXBUILDER_H
#define KAIO_CONVERSION_PTXBUILDER_H

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kaio::ptx {

/// Types in kernels before lowering → PTX register types: kaio pointers and
/// `index` become i64, i8 lives in 16-bit registers, shared tiles become
/// 32-bit shared-window addresses; register types map to themselves.
class PTXTypeConverter : public mlir::TypeConverter {
public:
  PTXTypeConverter();
};

/// Converts every op of dialect `Illegal` below `root` to ptx with
/// `patterns`, leaving other dialects' ops alone: the shape of each
/// `convert-<dialect>-to-ptx` pass.
template <typename Illegal>
mlir::LogicalResult convertDialectToPTX(mlir::Operation *root,
                                        mlir::RewritePatternSet &&patterns) {
  mlir::ConversionTarget target(*root->getContext());
  target.addIllegalDialect<Illegal>();
  target.addLegalDialect<PTXDialect>();
  target.markUnknownOpDynamicallyLegal([](mlir::Operation *) { return true; });
  return mlir::applyPartialConversion(root, target, std::move(patterns));
}

/// The PTX instruction type that operates on registers of `type` as
/// integers of the given signedness, or as floats.
PTXType getIntType(mlir::Type type, bool isSigned);
PTXType getBitType(mlir::Type type);
PTXType getFloatType(mlir::Type type);
/// The load/store type for memory elements of `type` (i8 → s8/u8, f16 →
/// b16, f32 → f32, i32 → b32, ...).
PTXType getMemoryType(mlir::Type type);

class PTXBuilder {
public:
  PTXBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() const { return loc; }
  mlir::MLIRContext *context() { return b.getContext(); }

  // Constants.
  mlir::Value i1(bool v);
  mlir::Value i32(int64_t v);
  mlir::Value i64(int64_t v);
  mlir::Value f32(double v);
  mlir::Value constant(mlir::Type type, mlir::Attribute value);
  /// A constant of `type` (integer or float) with numeric value `v`.
  mlir::Value number(mlir::Type type, double v);

  mlir::Value sreg(SpecialReg reg);

  // Arithmetic; `t` is the PTX instruction type.
  mlir::Value add(PTXType t, mlir::Value a, mlir::Value c,
                  std::optional<Rounding> rnd = std::nullopt);
  mlir::Value sub(PTXType t, mlir::Value a, mlir::Value c,
                  std::optional<Rounding> rnd = std::nullopt);
  mlir::Value mul(PTXType t, mlir::Value a, mlir::Value c,
                  std::optional<Rounding> rnd = std::nullopt);
  mlir::Value mulLo(PTXType t, mlir::Value a, mlir::Value c);
  /// 32 x 32 → 64-bit product.
  mlir::Value mulWide(PTXType t, mlir::Value a, mlir::Value c);
  mlir::Value madLo(PTXType t, mlir::Value a, mlir::Value c, mlir::Value d);
  mlir::Value fma(PTXType t, mlir::Value a, mlir::Value c, mlir::Value d);
  mlir::Value div(PTXType t, mlir::Value a, mlir::Value c,
                  std::optional<Rounding> rnd, bool approx = false);
  /// min/max; with `nan`, the .NaN form (sm_80 on): NaN if either is.
  mlir::Value min(PTXType t, mlir::Value a, mlir::Value c, bool nan = false);
  mlir::Value max(PTXType t, mlir::Value a, mlir::Value c, bool nan = false);
  mlir::Value andOp(PTXType t, mlir::Value a, mlir::Value c);
  mlir::Value orOp(PTXType t, mlir::Value a, mlir::Value c);
  mlir::Value xorOp(PTXType t, mlir::Value a, mlir::Value c);
  mlir::Value notOp(PTXType t, mlir::Value a);
  mlir::Value shl(PTXType t, mlir::Value a, mlir::Value amount);
  mlir::Value shr(PTXType t, mlir::Value a, mlir::Value amount);
  mlir::Value abs(PTXType t, mlir::Value a);
  mlir::Value neg(PTXType t, mlir::Value a);
  mlir::Value setp(CmpOp cmp, PTXType t, mlir::Value a, mlir::Value c);
  mlir::Value selp(PTXType t, mlir::Value ifTrue, mlir::Value ifFalse,
                   mlir::Value cond);
  mlir::Value cvt(PTXType dst, PTXType src, mlir::Value v, mlir::Type result,
                  std::optional<Rounding> rnd = std::nullopt);
  mlir::Value mov(PTXType t, mlir::Value v, mlir::Type result);
  /// f16/bf16 → f32, exactly (bf16 through its bits: the high half of the
  /// f32); f32 passes through.
  mlir::Value widenToF32(mlir::Value v);
  /// f32 → `to` (f16, bf16 or f32), rounding to nearest even.
  mlir::Value narrowFromF32(mlir::Value v, mlir::Type to);
  mlir::Value ex2(mlir::Value v);
  mlir::Value lg2(mlir::Value v);
  mlir::Value rcpApprox(mlir::Value v);

  // Memory.
  mlir::Value ld(StateSpace space, PTXType t, mlir::Value addr,
                 int64_t offset, mlir::Type result, bool nc = false,
                 mlir::Value guard = {});
  void st(StateSpace space, PTXType t, mlir::Value addr, int64_t offset,
          mlir::Value value, mlir::Value guard = {});
  /// `base + index * elementBytes` as a 64-bit address.
  mlir::Value elementAddress(mlir::Value base, mlir::Value index,
                             unsigned elementBytes);
  mlir::Value addressOf(llvm::StringRef symbol, mlir::Type type);

  // Synchronisation and warps.
  void barSync(unsigned id = 0);
  /// shfl.sync over the full warp; `c` packs segment mask and clamp.
  mlir::Value shfl(ShflMode mode, mlir::Value v, mlir::Value lane,
                   int64_t c);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
};

} // namespace kaio::ptx

#endif // KAIO_CONVERSION_PTXBUILDER_H
