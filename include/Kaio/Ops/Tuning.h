//===- Tuning.h - the GEMM tuner's table and its file ------------*- C++ -*-===//
//
// Library::tuneGemm (Kaio/Ops/Library.h) times every kernel configuration
// gemm() could launch for a problem on the device and records the fastest
// per problem class; gemm() then launches that one instead of its shape
// heuristic. The table lives in the runtime's cache directory
// (rt::getCacheDirectory(), file kGemmTuningFileName) as text:
//
//   kaio-gemm-tuning 1
//   <key> TAB <choice>
//
// Keys name the device, the dtypes, the layouts, whether the epilogue is
// fused or reads C and the problem's size class (each of M, N, K rounded up to a power
// of two); choices name a configuration ("n128", "n256", "n128c2",
// "n256c2": the sm_90a kernel's tile width, alone or in clusters of two). A file that does not parse is ignored as a whole,
// with a warning (Library::warnings()); the next tuneGemm rewrites it.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_TUNING_H
#define KAIO_OPS_TUNING_H

#include "Kaio/Ops/Tensor.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Stream.h"

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kaio::ops {

constexpr const char *kGemmTuningFileName = "gemm-tuning.txt";

/// The configurations gemm() chooses among on a 9.0 GPU, by name: the
/// sm_90a kernel's tile width (128 x 128 or 128 x 256), alone or in
/// clusters of two blocks sharing B's k tiles (`c2`: TMA multicast; 16-bit
/// and FP8 inputs).
inline constexpr const char *kGemmTuningChoices[] = {"n128", "n256", "n128c2",
                                                     "n256c2"};
/// ... and with the portable mma.sync kernel (every other GPU, or
/// GemmOptions::portable) for 16-byte aligned operands: built for 2 or 3
/// blocks an SM.
inline constexpr const char *kPortableGemmTuningChoices[] = {"b2", "b3"};

/// key -> choice.
using GemmTuningTable = std::map<std::string, std::string>;

/// The class of a row-major-C problem (as gemm() computes it) on a device;
/// `fused`: a bias or activation; `readsC`: beta != 0 (both change the
/// epilogue); `portable`: GemmOptions::portable on a 9.0 GPU (another
/// kernel than the device's own).
std::string getGemmTuningKey(std::string_view deviceName, const Matrix &a,
                             const Matrix &b, const Matrix &c, bool fused,
                             bool readsC, bool portable = false);

/// The table in a tuning file's text, or an error saying which line is
/// wrong (a wrong header, a line without a key and a choice, an unknown
/// choice).
rt::Expected<GemmTuningTable> parseGemmTuningTable(std::string_view text);
std::string formatGemmTuningTable(const GemmTuningTable &table);

struct GemmTuneOptions {
  /// Untimed runs, then timed runs of each configuration (the median
  /// counts).
  int warmup = 2, reps = 10;
  /// Write the result to the tuning file (when the runtime's cache is
  /// enabled) as well as to the library's table.
  bool save = true;
};

struct GemmTuneResult {
  std::string key;
  /// The fastest configuration, now gemm()'s choice for the class.
  std::string choice;
  /// Median milliseconds of each configuration timed.
  std::vector<std::pair<std::string, double>> timings;
};

} // namespace kaio::ops

#endif // KAIO_OPS_TUNING_H
