//===- Compile.cpp - C API: kaio-dialect source to PTX --------------------===//
//
// libkaio_compiler.so: the one part of the C API that links MLIR. Errors go
// to libkaio's per-thread state, so kaio_last_error_message() reports them.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include "Kaio/Compiler/Compile.h"

#include <cstring>

using namespace kaio;
using namespace kaio::capi;

struct kaio_ptx_st {
  std::string text, chip, diagnostics;
};

kaio_status kaio_compile(const char *source, size_t len, const char *chip,
                         const char *buffer_name, uint32_t flags,
                         kaio_ptx *out) {
  return guard("kaio_compile", [&]() -> kaio_status {
    if (!out)
      return failNull("kaio_compile", "out");
    *out = nullptr;
    if (!source)
      return failNull("kaio_compile", "source");
    constexpr uint32_t known = KAIO_COMPILE_LINE_INFO | KAIO_COMPILE_FAST_MATH;
    if (flags & ~known)
      return fail(KAIO_ERROR_INVALID_VALUE,
                  "kaio_compile: flags: unknown bits " +
                      std::to_string(flags & ~known));
    CompileOptions options;
    if (chip)
      options.chip = chip;
    options.lineInfo = flags & KAIO_COMPILE_LINE_INFO;
    options.fastMath = flags & KAIO_COMPILE_FAST_MATH;
    PTXResult result = compileSourceToPTX(
        llvm::StringRef(source, len ? len : std::strlen(source)), options,
        buffer_name ? buffer_name : "<source>");
    if (!result)
      return fail(KAIO_ERROR_COMPILE, "kaio_compile: " + result.diagnostics);
    *out = new kaio_ptx_st{std::move(result.ptx), std::move(result.chip),
                           std::move(result.diagnostics)};
    return KAIO_SUCCESS;
  });
}

void kaio_ptx_destroy(kaio_ptx ptx) { delete ptx; }

const char *kaio_ptx_text(kaio_ptx ptx) {
  return ptx ? ptx->text.c_str() : "";
}

const char *kaio_ptx_chip(kaio_ptx ptx) {
  return ptx ? ptx->chip.c_str() : "";
}

const char *kaio_ptx_diagnostics(kaio_ptx ptx) {
  return ptx ? ptx->diagnostics.c_str() : "";
}
