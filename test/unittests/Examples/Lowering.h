//===- Lowering.h - kaio source to a lowered ptx module, for tests -*- C++ -*-===//

#ifndef KAIO_TEST_UNITTESTS_EXAMPLES_LOWERING_H
#define KAIO_TEST_UNITTESTS_EXAMPLES_LOWERING_H

#include "Kaio/Compiler/Compile.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Runtime/TensorMapDesc.h"
#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "Kaio/InitAll.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace kaio::test {
/// Parses kaio (or ptx) source in `context` and lowers it to the ptx dialect
/// the interpreter runs; null on any error.
inline mlir::OwningOpRef<mlir::ModuleOp> lowerSource(mlir::MLIRContext &context,
                                                     llvm::StringRef source) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module || failed(lowerToPTXDialect(*module, CompileOptions())))
    return {};
  return module;
}
/// Sets the unit attribute `name` on every kaio.kernel of `module` (a
/// library variant, as `kaio-embed --variant` makes one); none when empty.
inline void setKernelAttr(mlir::ModuleOp module, llvm::StringRef name) {
  if (name.empty())
    return;
  module.walk([&](KernelOp k) {
    k->setAttr(name, mlir::UnitAttr::get(module.getContext()));
  });
}

/// A 2-D tensor map in the interpreter's memory over the row-major
/// rows x cols matrix of 16-bit `elem` at `address`, with a boxRows x
/// boxCols box and `swizzle` bytes (32, 64, 128).
inline uint64_t makeTensorMap2D(interp::Interpreter &in, uint64_t address,
                                uint64_t rows, uint64_t cols, uint32_t boxRows,
                                uint32_t boxCols, rt::ScalarType elem,
                                unsigned swizzle) {
  rt::TensorMapDesc d;
  d.elem = elem;
  d.rank = 2;
  d.address = address;
  d.dims[0] = cols;
  d.dims[1] = rows;
  d.strides[0] = 2;
  d.strides[1] = cols * 2;
  d.box[0] = boxCols;
  d.box[1] = boxRows;
  d.swizzle = swizzle == 128  ? rt::TensorMapSwizzle::B128
              : swizzle == 64 ? rt::TensorMapSwizzle::B64
                              : rt::TensorMapSwizzle::B32;
  return in.allocTensorMap(d);
}

} // namespace kaio::test

#endif // KAIO_TEST_UNITTESTS_EXAMPLES_LOWERING_H
