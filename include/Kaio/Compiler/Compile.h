//===- Compile.h - kaio module to PTX (and cubin), in process ----*- C++ -*-===//
//
// How another compiler embeds KAIO: hand it a kaio module (parsed from text
// or a file, or built with Kaio/Builder) and get PTX text back, with each
// kernel's signature as metadata for typed launches. Nothing here aborts on
// bad input: failures come back as diagnostics text in the result.
//
//   kaio::CompileOptions options;
//   options.chip = "sm_90";
//   kaio::PTXResult r = kaio::compileSourceToPTX(text, options);
//   if (!r) report(r.diagnostics);
//   load(r.ptx);  // r.kernels[i].signature: "vector_add(ptr<const f32>,...)"
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_COMPILER_COMPILE_H
#define KAIO_COMPILER_COMPILE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kaio {

struct CompileOptions {
  /// Target chip, e.g. "sm_80", "sm_90a". Empty: the module's kaio.target
  /// (or ptx.target), else sm_80.
  std::string chip;
  /// PTX ISA version x10 (80 = 8.0); by default the lowest that the chip and
  /// the kernels need. An error when lower than that.
  std::optional<unsigned> ptxVersion;
  /// `.file`/`.loc` directives from the IR's file locations (for builder
  /// kernels: the C++ lines).
  bool lineInfo = false;
  /// Approximate f32 division and contraction.
  bool fastMath = false;
  /// Check the printer's register coalescing against an independent
  /// liveness analysis (a conflict is an error; for tests and fuzzing).
  bool verifyRegisterCoalescing = false;
  /// Compile this kernel alone (a kaio.kernel or ptx.entry): the module's
  /// other kernels are dropped before lowering, so running one kernel of
  /// a library module costs that kernel's compile, not the library's. A
  /// name the module lacks is an error listing the kernels it has. Empty:
  /// every kernel.
  std::string kernel;
};

/// What a typed launch needs to know about one kernel.
struct KernelInfo {
  std::string name;
  /// The `// kaio.kernel` comment's text: "vector_add(ptr<const f32>,u32)",
  /// parsed by kaio::rt::parseKernelSignature.
  std::string signature;
  /// One entry per parameter, in the runtime's spelling: "ptr<const f32>",
  /// "ptr<f32>", "u32", "f32", ...
  std::vector<std::string> params;
  /// The kernel's block size (`.reqntid`/`.maxntid`), empty when unknown.
  std::vector<int32_t> blockSize;
};

struct PTXResult {
  bool succeeded = false;
  std::string ptx;
  /// The chip and PTX ISA version (x10) the text was printed for.
  std::string chip;
  unsigned ptxVersion = 0;
  std::vector<KernelInfo> kernels;
  /// Every diagnostic, "file:line:col: error: message" (also warnings and
  /// notes; may be non-empty on success).
  std::string diagnostics;
  explicit operator bool() const { return succeeded; }
  /// The kernel named `name`, or null.
  const KernelInfo *findKernel(llvm::StringRef name) const;
};

/// Lowers `module` in place to the ptx dialect: verifies it, checks the chip
/// (chosen as for compileToPTX) and runs the kaio-to-ptx pipeline when it
/// has kaio kernels (a module already in the ptx dialect is left as is).
/// With `options.kernel` set, the module's other kernels are erased from
/// it first. Diagnostics go to the module's context. What the interpreter
/// runs.
mlir::LogicalResult lowerToPTXDialect(mlir::ModuleOp module,
                                      const CompileOptions &options);

/// Lowers a copy of `module` (kaio + arith/math/scf, or already ptx) and
/// prints it; `module` itself is left untouched. The KAIO dialects are
/// registered with its context as needed.
PTXResult compileToPTX(mlir::ModuleOp module, const CompileOptions &options);
/// Parses `source` (named `bufferName` in diagnostics) in a context of its
/// own and compiles it.
PTXResult compileSourceToPTX(llvm::StringRef source,
                             const CompileOptions &options,
                             llvm::StringRef bufferName = "<source>");
PTXResult compileFileToPTX(llvm::StringRef path, const CompileOptions &options);

/// ptxas: $KAIO_PTXAS, else PATH, else /usr/local/cuda/bin; nullopt when
/// there is none.
std::optional<std::string> findPtxas();

struct CubinResult {
  bool succeeded = false;
  std::vector<char> cubin;
  /// ptxas's messages, or why it could not run.
  std::string diagnostics;
  explicit operator bool() const { return succeeded; }
};

/// Assembles PTX text for `chip` with ptxas (`ptxasPath`, or findPtxas()),
/// passing it `extraArgs` too ("-v" for the resource usage that
/// parsePtxasInfo reads from the diagnostics).
CubinResult assemblePTX(llvm::StringRef ptx, llvm::StringRef chip,
                        const std::string &ptxasPath = "",
                        llvm::ArrayRef<std::string> extraArgs = {});
/// compileToPTX, then assemblePTX for the chip it chose.
CubinResult compileToCubin(mlir::ModuleOp module,
                           const CompileOptions &options);

} // namespace kaio

#endif // KAIO_COMPILER_COMPILE_H
