//===- fuzz_mlir_to_ptx.cpp - the compiler on untrusted .mlir text --------===//
//
// Input: .mlir text (kaio or ptx dialect), what kaio_compile, kaio.compile
// and the tools accept from users. Parsing, verification, the kaio-to-ptx
// pipeline and the PTX printer must answer with PTX or located diagnostics,
// never crash. (Known MLIR parser crashes are rejected first by
// findKnownParserCrash, as every entry point does.)
//
//===----------------------------------------------------------------------===//

#include "Kaio/Compiler/Compile.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  if (size > 16384)
    return 0; // large inputs only slow the search down
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  kaio::CompileOptions options;
  options.chip = "sm_90a";
  (void)kaio::compileSourceToPTX(source, options, "fuzz.mlir");
  return 0;
}
