//===- fuzz_signature.cpp - the `// kaio.kernel` signature parser ---------===//
//
// Input: PTX text (untrusted: any file handed to Module::loadPtx). Every
// signature parsed from it must print back to text that parses to the same
// signature.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Runtime/Signature.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace kaio::rt;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  Expected<std::vector<KernelSignature>> sigs = parseKernelSignatures(text);
  if (!sigs)
    return 0;
  for (const KernelSignature &sig : *sigs) {
    Expected<KernelSignature> again = parseKernelSignature(sig.str());
    if (!again || again->str() != sig.str() ||
        again->dynamicSharedBytes != sig.dynamicSharedBytes)
      std::abort(); // printing and parsing disagree
    (void)findSignature(*sigs, sig.name);
  }
  return 0;
}
