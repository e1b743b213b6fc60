//===- InstPrinter.h - what instruction printers need ------------*- C++ -*-===//
//
// The kernel emitter (PTXEmitter.cpp) owns register naming and the output
// of one kernel; the printers of instruction families kept in their own
// files (PTXHopperEmitter.cpp) reach it through this interface.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_TARGET_PTX_INSTPRINTER_H
#define KAIO_LIB_TARGET_PTX_INSTPRINTER_H

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>

namespace kaio::ptx {

class InstPrinter {
public:
  virtual ~InstPrinter() = default;
  /// The register holding `v`, named on first use.
  virtual const std::string &reg(mlir::Value v) = 0;
  /// `[%r1]`, `[%r1+8]`.
  virtual std::string address(mlir::Value addr, int64_t offset = 0) = 0;
  /// `{%r1, %r2}`.
  virtual std::string regList(mlir::ValueRange values) = 0;
  /// Starts an instruction line (indentation and guard) and returns the
  /// stream to print it on.
  virtual llvm::raw_ostream &begin(mlir::Operation *op) = 0;
  /// The stream, for lines that are not `op` itself (register moves).
  virtual llvm::raw_ostream &stream() = 0;
};

/// Prints `op` if it is one of the Hopper families (PTXHopperOps.td);
/// std::nullopt when it is not.
std::optional<mlir::LogicalResult> emitHopperOp(mlir::Operation *op,
                                                InstPrinter &p);

/// `.shared::cta` for `shared`, `.shared::cluster`, `.global`, ... : the
/// spelling of instructions that name the CTA's shared window explicitly.
std::string explicitSpaceMod(StateSpace space);

} // namespace kaio::ptx

#endif // KAIO_LIB_TARGET_PTX_INSTPRINTER_H
