//===- fuzz_run_args.cpp - kaio-run's command-line and --arg parsers ------===//
//
// Input: lines, each one command-line argument of kaio-run. The parsers
// must answer with options or an error, never crash; a parsed scalar
// literal must fit its type.
//
//===----------------------------------------------------------------------===//

#include "RunSupport.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace kaio;
using namespace kaio::run;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::vector<std::string> lines = {"kaio-run"};
  std::size_t start = 0;
  while (start <= text.size() && lines.size() < 64) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::vector<const char *> argv;
  for (const std::string &line : lines)
    argv.push_back(line.c_str());
  (void)parseCommandLine(int(argv.size()), argv.data());
  for (std::size_t i = 1; i < lines.size(); ++i) {
    Expected<ArgSpec> spec = parseArgSpec(lines[i]);
    if (spec && spec->isBuffer &&
        spec->count > kMaxBufferBytes / rt::getScalarTypeSize(spec->type))
      std::abort(); // a buffer whose size overflows slipped through
    (void)parseDim3(lines[i]);
  }
  static const rt::ScalarType types[] = {
      rt::ScalarType::U8,  rt::ScalarType::S8,  rt::ScalarType::U32,
      rt::ScalarType::S32, rt::ScalarType::U64, rt::ScalarType::S64,
      rt::ScalarType::F16, rt::ScalarType::F32, rt::ScalarType::F64};
  for (rt::ScalarType type : types) {
    Expected<std::uint64_t> bits = parseScalarBits(type, lines.back());
    std::size_t bytes = rt::getScalarTypeSize(type);
    if (bits && bytes < 8 && (*bits >> (8 * bytes)) != 0 &&
        !rt::isSignedIntType(type))
      std::abort(); // an unsigned literal wider than its type
  }
  return 0;
}
