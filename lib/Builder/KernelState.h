//===- KernelState.h - the builder's state while building a kernel -*- C++ -*-===//
//
// Shared by the builder's source files (Builder.cpp, HopperBuilder.cpp);
// not installed.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_BUILDER_KERNELSTATE_H
#define KAIO_LIB_BUILDER_KERNELSTATE_H

#include "Kaio/Builder/Builder.h"
#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

struct kaio::builder::ModuleBuilder::Impl {
  std::unique_ptr<mlir::MLIRContext> ownedContext;
  mlir::MLIRContext *context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string diagnostics;
  bool hasErrors = false;
  std::unique_ptr<detail::KernelState> kernel;

  explicit Impl(mlir::MLIRContext *context) : context(context) {
    context->loadDialect<kaio::KaioDialect, mlir::arith::ArithDialect,
                         mlir::math::MathDialect, mlir::scf::SCFDialect>();
    module = mlir::ModuleOp::create(mlir::UnknownLoc::get(context));
  }
};

namespace kaio::builder::detail {
class KernelState {
public:
  KernelState(ModuleBuilder::Impl &owner, KernelOp kernel)
      : owner(owner), b(kernel.getContext()), kernel(kernel) {}

  mlir::MLIRContext *ctx() { return b.getContext(); }
  /// The MLIR location of a C++ call site (and the fallback for unlocated
  /// operators from then on).
  mlir::Location loc(SrcLoc where) {
    if (where.line == 0)
      where = last;
    else
      last = where;
    return mlir::FileLineColLoc::get(ctx(), where.file, where.line, where.column);
  }
  void error(SrcLoc where, const llvm::Twine &message) {
    owner.hasErrors = true;
    llvm::raw_string_ostream os(owner.diagnostics);
    os << where.file << ":" << where.line << ":" << where.column
       << ": error: " << message << "\n";
  }

  ModuleBuilder::Impl &owner;
  mlir::OpBuilder b;
  KernelOp kernel;
  llvm::SmallVector<mlir::Type> argTypes;
  llvm::SmallVector<bool> readOnly;
  llvm::SmallVector<bool> isSigned;
  SrcLoc last;
  /// KernelBuilder::unroll's factor for the next for_ (0: none), and where
  /// it was asked for.
  unsigned pendingUnroll = 0;
  SrcLoc unrollAt;
  /// The stages pipeline() asked of the next for_ (0: none).
  unsigned pendingStages = 0;
  bool pendingPrefetch = false;
  SrcLoc stagesAt;
};
} // namespace kaio::builder::detail

#endif // KAIO_LIB_BUILDER_KERNELSTATE_H
