//===- Lowering.h - kaio source to a lowered ptx module, for tests -*- C++ -*-===//

#ifndef KAIO_TEST_UNITTESTS_EXAMPLES_LOWERING_H
#define KAIO_TEST_UNITTESTS_EXAMPLES_LOWERING_H

#include "Kaio/Compiler/Compile.h"
#include "../Interpreter/TestUtils.h"
#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "Kaio/InitAll.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace kaio::test {
/// Parses kaio (or ptx) source in `context` and lowers it to the ptx dialect
/// the interpreter runs, for `chip` (empty: the default); null on any error.
inline mlir::OwningOpRef<mlir::ModuleOp>
lowerSource(mlir::MLIRContext &context, llvm::StringRef source,
            llvm::StringRef chip = "") {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  CompileOptions options;
  options.chip = chip.str();
  if (!module || failed(lowerToPTXDialect(*module, options)))
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

/// The interpreter tests' tensor-map helper.
using interp::test::makeTensorMap2D;

} // namespace kaio::test

#endif // KAIO_TEST_UNITTESTS_EXAMPLES_LOWERING_H
