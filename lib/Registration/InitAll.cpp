//===- InitAll.cpp - register every KAIO dialect, pass and translation ----===//

#include "Kaio/InitAll.h"

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Target/PTX/PTXTranslation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"

void kaio::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<ptx::PTXDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect>();
}

void kaio::registerAllPasses() {}

void kaio::registerAllTranslations() { registerToPTXTranslation(); }
