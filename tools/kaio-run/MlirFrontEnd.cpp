//===- MlirFrontEnd.cpp - kaio-run with the compiler and interpreter ------===//
//
// The kaio-run of a build with the compiler: .mlir inputs (kaio or ptx
// dialect) go through the kaio-to-ptx pipeline and the PTX printer, and
// --interpret runs the lowered kernel on the CPU interpreter. The
// runtime-only kaio-run (kaio-run-ptx in such builds) shares everything else
// through KaioRunSupport.
//
//===----------------------------------------------------------------------===//

#include "RunSupport.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "Kaio/InitAll.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Pipeline/Pipeline.h"
#include "Kaio/Runtime/Device.h"
#include "Kaio/Target/PTX/PTXEmitter.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
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

/// Parses and lowers a .mlir file; diagnostics go to `diagnostics`.
struct Compiled {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::string diagnostics;
};

Expected<std::unique_ptr<Compiled>> compileModule(const RunOptions &opts,
                                                  const std::string &chip) {
  auto c = std::make_unique<Compiled>();
  DialectRegistry registry;
  kaio::registerAllDialects(registry);
  c->context.appendDialectRegistry(registry);
  llvm::raw_string_ostream diag(c->diagnostics);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &c->context, diag);
  std::string error;
  auto file = openInputFile(opts.input, &error);
  if (!file)
    return Error::make(ErrorCode::Io, error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  c->module = parseSourceFile<ModuleOp>(sourceMgr, &c->context);
  if (!c->module)
    return Error::make(ErrorCode::Parse,
                       "cannot parse '" + opts.input + "':\n" + diag.str());
  bool hasKaio = false;
  c->module->walk([&](kaio::KernelOp) { hasKaio = true; });
  if (hasKaio) {
    PassManager pm(&c->context);
    kaio::KaioToPTXOptions options;
    options.chip = chip;
    kaio::buildKaioToPTXPipeline(pm, options);
    if (failed(pm.run(*c->module)))
      return Error::make(ErrorCode::Parse, "compiling '" + opts.input +
                                               "' failed:\n" + diag.str());
  }
  return c;
}

Expected<std::string> compileToPtx(const RunOptions &opts) {
  std::string chip = opts.chip.empty() ? deviceChip(opts.device) : opts.chip;
  if (chip.empty())
    chip = "sm_80";
  Expected<std::unique_ptr<Compiled>> c = compileModule(opts, chip);
  if (!c)
    return c.error();
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  kaio::ptx::PTXEmitOptions options;
  options.defaultChip = chip;
  if (failed(kaio::ptx::translateModuleToPTX(*(*c)->module, os, options)))
    return Error::make(ErrorCode::Parse, "printing '" + opts.input +
                                             "' as PTX failed:\n" +
                                             (*c)->diagnostics);
  return ptx;
}

Error interpret(const RunOptions &opts, std::vector<HostArg> &args) {
  if (opts.input.size() < 5 ||
      opts.input.compare(opts.input.size() - 5, 5, ".mlir") != 0)
    return Error::make(ErrorCode::Unsupported,
                       "--interpret runs .mlir kernels (kaio or ptx dialect); "
                       "'" + opts.input + "' is not one");
  std::string chip = opts.chip.empty() ? "sm_80" : opts.chip;
  Expected<std::unique_ptr<Compiled>> c = compileModule(opts, chip);
  if (!c)
    return c.error();
  kaio::interp::Interpreter interp(*(*c)->module);
  std::vector<uint64_t> values;
  std::vector<uint64_t> addresses(args.size(), 0);
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (!arg.spec.isBuffer) {
      values.push_back(arg.spec.bits);
      continue;
    }
    uint64_t bytes = arg.data.bytes.size();
    addresses[i] = interp.allocGlobal(std::max<uint64_t>(bytes, 1));
    if (!interp.write(addresses[i], arg.data.bytes.data(), bytes))
      return Error::make(ErrorCode::InvalidValue,
                         "cannot stage buffer '" + arg.spec.name + "'");
    values.push_back(addresses[i]);
  }
  kaio::interp::LaunchOptions launch;
  launch.dynamicSharedBytes = opts.sharedBytes;
  kaio::interp::LaunchResult result = interp.launch(
      opts.kernel, {opts.grid.x, opts.grid.y, opts.grid.z},
      {opts.block.x, opts.block.y, opts.block.z}, values, launch);
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
  RunHooks hooks;
  hooks.compileToPtx = compileToPtx;
  hooks.interpret = interpret;
  return runTool(argc, argv, hooks, std::cout, std::cerr);
}
