//===- fuzz_mlir_to_ptx.cpp - the compiler on untrusted .mlir text --------===//
//
// Input: .mlir text (kaio or ptx dialect), what kaio_compile, kaio.compile
// and the tools accept from users. Parsing, verification, the kaio-to-ptx
// pipeline and the PTX printer must answer with PTX or located diagnostics,
// never crash. (Known MLIR parser crashes are rejected first by
// findKnownParserCrash, as every entry point does.) The printer's register
// coalescing is verified on every kernel that gets that far: a conflict
// (two values live at once in one register) aborts, like a crash.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Compiler/Compile.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  if (size > 16384)
    return 0; // large inputs only slow the search down
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  kaio::CompileOptions options;
  options.chip = "sm_90a";
  options.verifyRegisterCoalescing = true;
  kaio::PTXResult result =
      kaio::compileSourceToPTX(source, options, "fuzz.mlir");
  if (!result.succeeded &&
      result.diagnostics.find("register coalescing gave one register") !=
          std::string::npos)
    abort();
  return 0;
}
