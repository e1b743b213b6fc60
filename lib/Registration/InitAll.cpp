//===- InitAll.cpp - register every KAIO dialect, pass and translation ----===//

#include "Kaio/InitAll.h"

#include "Kaio/Conversion/Passes.h"
#include "Kaio/Dialect/Kaio/IR/KaioDialect.h"
#include "Kaio/Dialect/Kaio/Transforms/Passes.h"
#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Dialect/PTX/Transforms/Passes.h"
#include "Kaio/Pipeline/Pipeline.h"
#include "Kaio/Target/PTX/PTXTranslation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void kaio::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<KaioDialect, ptx::PTXDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect>();
}

void kaio::registerAllPasses() {
  // The upstream passes the pipeline uses, for running steps one by one.
  mlir::registerTransformsPasses();
  mlir::registerSCFToControlFlowPass();
  mlir::registerReconcileUnrealizedCastsPass();
  registerKaioTransformsPasses();
  registerKaioConversionPasses();
  ptx::registerPTXTransformsPasses();
  registerKaioToPTXPipeline();
}

void kaio::registerAllTranslations() { registerToPTXTranslation(); }
