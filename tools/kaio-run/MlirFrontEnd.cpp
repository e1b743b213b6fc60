//===- MlirFrontEnd.cpp - kaio-run with the compiler and interpreter ------===//
//
// The kaio-run of a build with the compiler: .mlir inputs (kaio or ptx
// dialect) are compiled with the compile API (Kaio/Compiler), and
// --interpret runs the lowered kernel on the CPU interpreter. The
// runtime-only kaio-run (kaio-run-ptx in such builds) shares everything else
// through KaioRunSupport.
//
//===----------------------------------------------------------------------===//

#include "RunSupport.h"

#include "Kaio/Compiler/Compile.h"
#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/Runtime/Signature.h"
#include "Kaio/Target/PTX/PTXEmitter.h"
#include "Kaio/InitAll.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Interpreter/Profile.h"
#include "Kaio/Runtime/Device.h"
#include "Kaio/Support/Diagnostics.h"
#include "Kaio/Support/SourceCheck.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>

using namespace mlir;
using namespace kaio::run;

namespace {

/// The chip of device `ordinal`, for compiling .mlir input; empty when there
/// is no usable device.
std::string deviceChip(int ordinal) {
  kaio::rt::Expected<kaio::rt::Device> device = kaio::rt::Device::open(ordinal);
  if (!device)
    return "";
  int cc = device->properties().computeCapability();
  // Arch-specific features (sm_90a) are opt-in with --chip.
  std::string name = "sm_" + std::to_string(cc);
  return kaio::ptx::lookupChip(name) ? name : "";
}

Expected<std::string> compileToPtx(const RunOptions &opts) {
  kaio::CompileOptions options;
  options.chip = opts.chip.empty() ? deviceChip(opts.device) : opts.chip;
  // The kernel that runs alone (a library module's other hundreds are not
  // compiled).
  options.kernel = opts.kernel;
  kaio::PTXResult result = kaio::compileFileToPTX(opts.input, options);
  if (!result)
    return Error::make(ErrorCode::Parse, "compiling '" + opts.input +
                                             "' failed:\n" +
                                             result.diagnostics);
  return result.ptx;
}

Error interpret(const RunOptions &opts, std::vector<HostArg> &args) {
  if (opts.input.size() < 5 ||
      opts.input.compare(opts.input.size() - 5, 5, ".mlir") != 0)
    return Error::make(ErrorCode::Unsupported,
                       "--interpret runs .mlir kernels (kaio or ptx dialect); "
                       "'" + opts.input + "' is not one");
  // The interpreter runs the lowered ptx-dialect module itself.
  MLIRContext context;
  DialectRegistry registry;
  kaio::registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.printOpOnDiagnostic(false); // the location says where
  std::string diagnostics;
  llvm::raw_string_ostream diag(diagnostics);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    kaio::formatDiagnostic(d, diag);
    return success();
  });
  // Read here (a file or, for "-", standard input) so that the text is
  // checked for what MLIR's parser would crash on first.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(opts.input);
  if (!file)
    return Error::make(ErrorCode::Io, "cannot read '" + opts.input +
                                          "': " + file.getError().message());
  std::string crash = kaio::findKnownParserCrash(
      (*file)->getBuffer(), (*file)->getBufferIdentifier());
  if (!crash.empty())
    return Error::make(ErrorCode::Parse, crash);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  kaio::CompileOptions options;
  options.chip = opts.chip;
  options.kernel = opts.kernel;
  if (!module || failed(kaio::lowerToPTXDialect(*module, options)))
    return Error::make(ErrorCode::Parse, "compiling '" + opts.input +
                                             "' failed:\n" + diagnostics);
  // The same argument contract as the GPU path: the kernel's signature.
  for (auto entry : module->getOps<kaio::ptx::EntryOp>()) {
    if (entry.getSymName() != opts.kernel)
      continue;
    Expected<kaio::rt::KernelSignature> sig = kaio::rt::parseKernelSignature(
        kaio::ptx::formatKernelSignature(entry));
    if (!sig)
      return sig.takeError();
    if (Error e = checkArgsAgainstSignature(&*sig, args))
      return e;
  }
  kaio::interp::Interpreter interp(*module);
  std::vector<uint64_t> values;
  std::vector<uint64_t> addresses(args.size(), 0);
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (arg.spec.isTensorMap) {
      // KAIO's encoding in interpreter memory, over the (earlier) buffer.
      std::size_t b = 0;
      while (!(args[b].spec.isBuffer && args[b].spec.name == arg.spec.mapBuffer))
        ++b;
      values.push_back(interp.allocTensorMap(
          tensorMapDesc(arg.spec, args[b].spec.type, addresses[b])));
      continue;
    }
    if (!arg.spec.isBuffer) {
      values.push_back(arg.spec.bits);
      continue;
    }
    uint64_t bytes = arg.data.bytes.size();
    addresses[i] = interp.allocGlobal(std::max<uint64_t>(bytes, 1));
    if (!interp.write(addresses[i], arg.data.bytes.data(), bytes))
      return Error::make(ErrorCode::InvalidValue,
                         "cannot stage buffer '" + arg.spec.name + "'");
    if (arg.spec.passed)
      values.push_back(addresses[i]);
  }
  kaio::interp::LaunchOptions launch;
  launch.dynamicSharedBytes = opts.sharedBytes;
  launch.cluster = {opts.cluster.x, opts.cluster.y, opts.cluster.z};
  kaio::interp::Profile profile;
  if (opts.profile || !opts.profileJson.empty())
    launch.profile = &profile;
  kaio::interp::LaunchResult result = interp.launch(
      opts.kernel, {opts.grid.x, opts.grid.y, opts.grid.z},
      {opts.block.x, opts.block.y, opts.block.z}, values, launch);
  // A failed launch still shows what ran up to the failure.
  if (opts.profile && !profile.empty())
    std::cout << (result ? "" : "(partial profile: the launch failed)\n")
              << profile.str(unsigned(opts.profileTop));
  if (!opts.profileJson.empty() && !profile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(opts.profileJson, ec);
    if (ec)
      return Error::make(ErrorCode::InvalidValue,
                         "--profile-json: cannot write '" + opts.profileJson +
                             "': " + ec.message());
    os << profile.json();
  }
  if (!result)
    return Error::make(ErrorCode::InvalidValue,
                       "kernel '" + opts.kernel + "' failed in the "
                       "interpreter:\n" + result.message());
  for (auto [i, arg] : llvm::enumerate(args))
    if (arg.spec.isBuffer &&
        !interp.read(addresses[i], arg.data.bytes.data(),
                     arg.data.bytes.size()))
      return Error::make(ErrorCode::InvalidValue,
                         "cannot read back buffer '" + arg.spec.name + "'");
  if (opts.verbose)
    std::cerr << "kaio-run: interpreted " << result.instructions
              << " thread instructions\n";
  return Error::success();
}

} // namespace

int main(int argc, char **argv) {
  if (!kaio::checkInputFilesForKnownParserCrashes(argc, argv))
    return ExitFailure;
  RunHooks hooks;
  hooks.compileToPtx = compileToPtx;
  hooks.interpret = interpret;
  return runTool(argc, argv, hooks, std::cout, std::cerr);
}
