//===- PTXEmitter.h - print the ptx dialect as PTX text ---------*- C++ -*-===//
//
// The hand-written PTX printer. It never rewrites IR and never guesses:
// anything it cannot print is a located error.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_TARGET_PTX_PTXEMITTER_H
#define KAIO_TARGET_PTX_PTXEMITTER_H

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/APFloat.h"
#include <optional>
#include <string>

namespace kaio::ptx {

struct PTXEmitOptions {
  /// Chip to use when the module has no `ptx.target` (e.g. "sm_80").
  std::string defaultChip;
  /// PTX ISA version (x10) to print; by default the lowest that the target
  /// and the module's ops need. The module's `ptx.version` overrides the
  /// default, this overrides both.
  std::optional<unsigned> isaVersion;
  /// Emit `.file`/`.loc` from FileLineColLoc locations.
  bool lineInfo = false;
  /// Let block arguments and wgmma accumulators share registers with the
  /// values they take (lib/Target/PTX/RegisterCoalescing.h); off: one
  /// register per SSA value, for debugging the printer.
  bool coalesceRegisters = true;
  /// Check the shared registers against a liveness dataflow of their own
  /// before printing; a conflict is an error on the kernel.
  bool verifyCoalescing = false;
};

/// Prints `module`, a module of ptx-dialect kernels, as PTX text.
mlir::LogicalResult translateModuleToPTX(mlir::ModuleOp module,
                                         llvm::raw_ostream &os,
                                         const PTXEmitOptions &options = {});

/// The PTX ISA version (x10) the printer uses for `module` on `chip`: the
/// override if given (an error if it is too low), else the lowest version
/// that the chip and every op in the module need.
mlir::FailureOr<unsigned> selectISAVersion(mlir::ModuleOp module,
                                           const ChipInfo &chip,
                                           std::optional<unsigned> override);

/// PTX immediate spelling of a float: 0f3F800000 (f32), 0d3FF0000000000000
/// (f64), 0x3C00 (f16/bf16 bit patterns, for mov.b16).
std::string formatFloatImmediate(const llvm::APFloat &value);

/// The `// kaio.kernel NAME(T1,...)` signature line of a kernel (without
/// the leading comment marker), read by the runtime's typed launch.
std::string formatKernelSignature(mlir::Operation *entryOp);

/// Names virtual registers: one per SSA value, numbered from 1 within each
/// register class (%r1, %rd1, %f1, ...).
class RegisterNamer {
public:
  /// The name of a fresh register of `type`'s class.
  std::string create(mlir::Type type);
  /// The number of registers created in class `prefix` ("%r").
  unsigned count(llvm::StringRef prefix) const;
  /// `.reg` declarations for every class in use, one per line.
  void printDeclarations(llvm::raw_ostream &os) const;

private:
  llvm::SmallVector<unsigned, 8> counts =
      llvm::SmallVector<unsigned, 8>(getRegisterClasses().size(), 0);
};

} // namespace kaio::ptx

#endif // KAIO_TARGET_PTX_PTXEMITTER_H
