//===- fuzz_interpreter.cpp - the interpreter on fuzzed kernels -----------===//
//
// Input: .mlir text (kaio or ptx dialect). What parses, verifies and lowers
// is run in the CPU interpreter: every pointer parameter a 64 KiB zeroed
// buffer, every scalar a small value, two blocks of the kernel's declared
// block size (at most 256 threads), at most 2^18 thread instructions. Out
// of bounds accesses, races, unaligned or misused instructions and runaway
// loops must come back as launch errors, never crash the host or read
// outside the interpreter's memory.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Compiler/Compile.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/InitAll.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Support/SourceCheck.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

/// A fresh context per input, as every entry point (kaio_compile, the
/// tools) makes one: state left by a failed parse must not leak into the
/// next input.
std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  kaio::registerAllDialects(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  return ctx;
}

/// The block the kernel declares (reqntid, else maxntid), capped at 256
/// threads; 32 when it declares none.
kaio::interp::Dim3 blockOf(kaio::ptx::EntryOp entry) {
  std::optional<llvm::ArrayRef<int32_t>> dims = entry.getReqntid();
  if (!dims)
    dims = entry.getMaxntid();
  if (!dims || dims->empty())
    return {32};
  uint32_t d[3] = {1, 1, 1};
  for (size_t i = 0; i < std::min<size_t>(dims->size(), 3); ++i)
    d[i] = uint32_t(std::clamp((*dims)[i], 1, 256));
  if (uint64_t(d[0]) * d[1] * d[2] > 256)
    return {32};
  return {d[0], d[1], d[2]};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  if (size > 8192)
    return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  if (!kaio::findKnownParserCrash(text, "fuzz.mlir").empty())
    return 0;
  std::unique_ptr<mlir::MLIRContext> owned = makeContext();
  mlir::MLIRContext &ctx = *owned;
  mlir::ScopedDiagnosticHandler quiet(
      &ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  kaio::CompileOptions options;
  options.chip = "sm_90";
  if (mlir::failed(kaio::lowerToPTXDialect(*module, options)))
    return 0;
  kaio::interp::Interpreter interp(*module);
  for (auto entry : module->getOps<kaio::ptx::EntryOp>()) {
    std::vector<uint64_t> args;
    mlir::ArrayAttr attrs = entry.getArgAttrsAttr();
    unsigned n = entry.getFunctionType().getNumInputs();
    for (unsigned i = 0; i < n; ++i) {
      auto dict = attrs && i < attrs.size()
                      ? llvm::dyn_cast<mlir::DictionaryAttr>(attrs[i])
                      : mlir::DictionaryAttr();
      if (dict && dict.get("ptx.ptr"))
        args.push_back(interp.allocGlobal(1 << 16));
      else
        args.push_back(uint64_t(i % 7 + 1));
    }
    kaio::interp::LaunchOptions launch;
    launch.maxInstructions = 1 << 18;
    launch.dynamicSharedBytes =
        uint32_t(std::min<int64_t>(entry.getDynamicSmem().value_or(0), 1 << 17));
    (void)interp.launch(entry.getSymName(), {2}, blockOf(entry), args, launch);
  }
  return 0;
}
