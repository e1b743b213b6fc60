//===- Compile.cpp - kaio module to PTX (and cubin), in process -----------===//

#include "Kaio/Compiler/Compile.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/InitAll.h"
#include "Kaio/Pipeline/Pipeline.h"
#include "Kaio/Support/SourceCheck.h"
#include "Kaio/Target/PTX/PTXEmitter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "Kaio/Support/Diagnostics.h"

#include <cstdlib>

using namespace mlir;
using namespace kaio;

namespace {

/// Collects the context's diagnostics into `out` while alive. The located
/// message is enough: no dump of the failing op (a whole kernel, for a
/// kernel verifier) after it.
class DiagnosticCollector {
public:
  DiagnosticCollector(MLIRContext *context, std::string &out)
      : context(context), printedOps(context->shouldPrintOpOnDiagnostic()),
        os(out), handler(context, [this](Diagnostic &diag) {
          formatDiagnostic(diag, os);
          return success();
        }) {
    context->printOpOnDiagnostic(false);
  }
  ~DiagnosticCollector() { context->printOpOnDiagnostic(printedOps); }

private:
  MLIRContext *context;
  bool printedOps;
  llvm::raw_string_ostream os;
  ScopedDiagnosticHandler handler;
};

void registerDialects(MLIRContext *context) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context->appendDialectRegistry(registry);
}

/// The chip to compile for: the option, the module's kaio.target or
/// ptx.target, or sm_80.
std::string chooseChip(ModuleOp module, const CompileOptions &options) {
  if (!options.chip.empty())
    return options.chip;
  for (StringRef name :
       {StringRef(KaioDialect::kTargetAttrName),
        StringRef(ptx::PTXDialect::kTargetAttrName)})
    if (auto attr = module->getAttrOfType<StringAttr>(name))
      return attr.str();
  return "sm_80";
}

KernelInfo describeKernel(ptx::EntryOp entry) {
  KernelInfo info;
  info.name = entry.getSymName().str();
  info.signature = ptx::formatKernelSignature(entry);
  // "name(p0,p1,...)", then launch requirements (" smem=N") if any.
  StringRef sig = info.signature;
  StringRef params = sig.drop_front(info.name.size() + 1)
                         .take_front(sig.rfind(')') - info.name.size() - 1);
  SmallVector<StringRef> parts;
  params.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef part : parts)
    info.params.push_back(part.str());
  if (auto dims = entry.getReqntid())
    info.blockSize.assign(dims->begin(), dims->end());
  else if (auto dims = entry.getMaxntid())
    info.blockSize.assign(dims->begin(), dims->end());
  return info;
}

/// Compiles `module` in place; diagnostics go to the caller's collector.
void compileInPlace(ModuleOp module, const CompileOptions &options,
                    PTXResult &result) {
  std::string chip = chooseChip(module, options);
  if (failed(lowerToPTXDialect(module, options)))
    return;
  const ptx::ChipInfo *chipInfo = ptx::lookupChip(chip);
  ptx::PTXEmitOptions emit;
  emit.defaultChip = chip;
  emit.isaVersion = options.ptxVersion;
  emit.lineInfo = options.lineInfo;
  emit.verifyCoalescing = options.verifyRegisterCoalescing;
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  if (failed(ptx::translateModuleToPTX(module, os, emit)))
    return;
  // The printer reads the module's ptx.target first, as does this.
  if (auto target =
          module->getAttrOfType<StringAttr>(ptx::PTXDialect::kTargetAttrName))
    if (const ptx::ChipInfo *info = ptx::lookupChip(target.getValue()))
      chipInfo = info;
  FailureOr<unsigned> version =
      ptx::selectISAVersion(module, *chipInfo, options.ptxVersion);
  result.ptxVersion = succeeded(version) ? *version : 0;
  result.chip = chipInfo->name.str();
  module.walk([&](ptx::EntryOp entry) {
    result.kernels.push_back(describeKernel(entry));
  });
  result.ptx = std::move(ptx);
  result.succeeded = true;
}

} // namespace

/// Erases every kernel of `module` but `name` (CompileOptions::kernel).
static LogicalResult keepOnlyKernel(ModuleOp module, StringRef name) {
  SmallVector<Operation *> kernels;
  SmallVector<StringRef> names;
  bool found = false;
  for (Operation &op : module.getBody()->getOperations()) {
    StringRef symbol;
    if (auto kernel = dyn_cast<KernelOp>(op))
      symbol = kernel.getSymName();
    else if (auto entry = dyn_cast<ptx::EntryOp>(op))
      symbol = entry.getSymName();
    else
      continue;
    names.push_back(symbol);
    if (symbol == name)
      found = true;
    else
      kernels.push_back(&op);
  }
  if (!found) {
    // A library module has hundreds: the first few name the pattern.
    constexpr size_t kListed = 16;
    std::string listed = llvm::join(
        ArrayRef<StringRef>(names).take_front(kListed), ", ");
    if (names.size() > kListed)
      listed += ", ... (" + std::to_string(names.size()) + " in all)";
    return emitError(module.getLoc())
           << "no kernel '" << name << "' in the module"
           << (names.empty() ? std::string(" (it has none)")
                             : " (it has: " + listed + ")");
  }
  for (Operation *op : kernels)
    op->erase();
  return success();
}

LogicalResult kaio::lowerToPTXDialect(ModuleOp module,
                                      const CompileOptions &options) {
  if (failed(verify(module)))
    return failure();

  std::string chip = chooseChip(module, options);
  if (!ptx::lookupChip(chip)) {
    SmallVector<StringRef> known;
    for (const ptx::ChipInfo &c : ptx::getChips())
      known.push_back(c.name);
    return emitError(module.getLoc())
           << "unknown chip '" << chip << "' (known: "
           << llvm::join(known, ", ") << ")";
  }
  // kaio kernels take the whole pipeline; a ptx-level module only the
  // lowering of the arith and math ops its formulas use, if any.
  bool hasKaio = false, hasFormulas = false;
  module.walk([&](Operation *op) {
    if (isa<KernelOp>(op)) {
      hasKaio = true;
      return WalkResult::interrupt();
    }
    StringRef dialect = op->getName().getDialectNamespace();
    if (dialect == "arith" || dialect == "math")
      hasFormulas = true;
    return WalkResult::advance();
  });
  // The kernel to compile alone, after the pipeline is chosen for the
  // whole module: a ptx.entry beside kaio kernels lowers as it would with
  // them.
  if (!options.kernel.empty() &&
      failed(keepOnlyKernel(module, options.kernel)))
    return failure();
  if (!hasKaio && !hasFormulas)
    return success();
  PassManager pm(module.getContext());
  KaioToPTXOptions pipeline;
  pipeline.chip = chip;
  pipeline.fastMath = options.fastMath;
  if (hasKaio)
    buildKaioToPTXPipeline(pm, pipeline);
  else
    buildPTXFormulaPipeline(pm, pipeline);
  return pm.run(module);
}

const KernelInfo *PTXResult::findKernel(StringRef name) const {
  for (const KernelInfo &kernel : kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

PTXResult kaio::compileToPTX(ModuleOp module, const CompileOptions &options) {
  PTXResult result;
  MLIRContext *context = module.getContext();
  registerDialects(context);
  DiagnosticCollector collector(context, result.diagnostics);
  OwningOpRef<ModuleOp> copy = module.clone();
  compileInPlace(*copy, options, result);
  return result;
}

PTXResult kaio::compileSourceToPTX(StringRef source,
                                   const CompileOptions &options,
                                   StringRef bufferName) {
  PTXResult result;
  result.diagnostics = findKnownParserCrash(source, bufferName);
  if (!result.diagnostics.empty())
    return result;
  MLIRContext context;
  registerDialects(&context);
  DiagnosticCollector collector(&context, result.diagnostics);
  // MLIR's lexer stops at a NUL, not at the end of the StringRef: a caller's
  // unterminated buffer (kaio_compile with a length) was read past its end
  // (found by the mlir-to-ptx fuzzer). Parse a terminated copy.
  std::string terminated = source.str();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      terminated, ParserConfig(&context), bufferName);
  if (!module)
    return result;
  compileInPlace(*module, options, result);
  return result;
}

PTXResult kaio::compileFileToPTX(StringRef path,
                                 const CompileOptions &options) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!file) {
    PTXResult result;
    result.diagnostics = (path + ": error: cannot read file: " +
                          file.getError().message() + "\n")
                             .str();
    return result;
  }
  return compileSourceToPTX((*file)->getBuffer(), options, path);
}

std::optional<std::string> kaio::findPtxas() {
  if (const char *env = std::getenv("KAIO_PTXAS"); env && *env)
    return llvm::sys::fs::can_execute(env) ? std::optional<std::string>(env)
                                           : std::nullopt;
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

CubinResult kaio::assemblePTX(StringRef ptx, StringRef chip,
                              const std::string &ptxasPath,
                              ArrayRef<std::string> extraArgs) {
  CubinResult result;
  std::string ptxas = ptxasPath;
  if (ptxas.empty()) {
    std::optional<std::string> found = findPtxas();
    if (!found) {
      result.diagnostics =
          "error: ptxas not found (looked at $KAIO_PTXAS, PATH and "
          "/usr/local/cuda/bin); install the CUDA toolkit or set KAIO_PTXAS\n";
      return result;
    }
    ptxas = *found;
  }
  if (!llvm::sys::fs::can_execute(ptxas)) {
    result.diagnostics = "error: ptxas '" + ptxas + "' is not executable\n";
    return result;
  }
  SmallString<128> ptxPath, cubinPath, logPath;
  auto fail = [&](const Twine &what, std::error_code ec) {
    result.diagnostics = ("error: " + what + ": " + ec.message() + "\n").str();
    return result;
  };
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kaio", "ptx", ptxPath))
    return fail("cannot create a temporary file", ec);
  llvm::FileRemover removePtx(ptxPath);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kaio", "cubin", cubinPath))
    return fail("cannot create a temporary file", ec);
  llvm::FileRemover removeCubin(cubinPath);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kaio", "log", logPath))
    return fail("cannot create a temporary file", ec);
  llvm::FileRemover removeLog(logPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxPath, ec);
    if (ec)
      return fail("cannot write '" + ptxPath + "'", ec);
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas, arch};
  args.append(extraArgs.begin(), extraArgs.end());
  args.append({ptxPath, "-o", cubinPath});
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &execError);
  std::string log;
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    log = (*buffer)->getBuffer().str();
  if (rc != 0) {
    result.diagnostics = "error: ptxas -arch=" + chip.str() + " failed" +
                         (execError.empty() ? "" : " (" + execError + ")") +
                         ":\n" + log;
    return result;
  }
  auto cubin = llvm::MemoryBuffer::getFile(cubinPath, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!cubin)
    return fail("cannot read ptxas output", cubin.getError());
  result.cubin.assign((*cubin)->getBufferStart(), (*cubin)->getBufferEnd());
  result.diagnostics = log;
  result.succeeded = true;
  return result;
}

CubinResult kaio::compileToCubin(ModuleOp module,
                                 const CompileOptions &options) {
  PTXResult ptx = compileToPTX(module, options);
  if (!ptx) {
    CubinResult result;
    result.diagnostics = ptx.diagnostics;
    return result;
  }
  CubinResult result = assemblePTX(ptx.ptx, ptx.chip);
  result.diagnostics = ptx.diagnostics + result.diagnostics;
  return result;
}
