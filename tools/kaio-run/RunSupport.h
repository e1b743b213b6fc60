//===- RunSupport.h - kaio-run's reusable pieces ----------------*- C++ -*-===//
//
// Argument specs, host buffer initialization, printing and the driver loop
// of kaio-run, as a library (KaioRunSupport) so they are unit-testable and so
// an MLIR-aware front end can reuse them: it passes RunHooks to runTool() to
// compile .mlir inputs to PTX or to run --interpret on a CPU interpreter.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_TOOLS_KAIO_RUN_RUNSUPPORT_H
#define KAIO_TOOLS_KAIO_RUN_RUNSUPPORT_H

#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Module.h"
#include "Kaio/Runtime/TensorMapDesc.h"
#include "Kaio/Runtime/Types.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kaio::run {

using rt::Dim3;
using rt::Error;
using rt::ErrorCode;
using rt::Expected;
using rt::ScalarType;

/// One --arg: `name=type:value` (scalar), `name=type[count]:init` (buffer)
/// or `name=tmap:BUF:DIMS:BOX[:swizzle32|swizzle64|swizzle128][:oobnan]`
/// (a TMA tensor map over the row-major tensor of DIMS, e.g. 100x72, in
/// the earlier buffer BUF, copying BOX boxes, e.g. 16x64; outermost first).
struct ArgSpec {
  enum class Init { Rand, Zeros, Ones, Iota, Constant, File };
  std::string name;
  ScalarType type = ScalarType::F32;
  bool isBuffer = false;
  std::size_t count = 0;    ///< Buffers only.
  Init init = Init::Zeros;  ///< Buffers only.
  double constant = 0;      ///< Init::Constant.
  std::string file;         ///< Init::File.
  std::uint64_t bits = 0;   ///< Scalars: the value's bit pattern.
  std::string text;         ///< The spec as written, for messages.
  /// Tensor maps: the buffer they describe, its shape and the box
  /// (outermost first, as written), swizzle and NaN fill.
  bool isTensorMap = false;
  /// False for --buffer: prepared (and printable) but not a kernel argument.
  bool passed = true;
  std::string mapBuffer;
  std::vector<std::uint64_t> mapDims;
  std::vector<std::uint32_t> mapBox;
  rt::TensorMapSwizzle swizzle = rt::TensorMapSwizzle::None;
  bool oobNaN = false;
};

/// The description of a tensor-map --arg over its buffer (element type
/// `elem`) at `address`: contiguous row-major strides, innermost first.
rt::TensorMapDesc tensorMapDesc(const ArgSpec &spec, ScalarType elem,
                                std::uint64_t address);

/// The most bytes one --arg buffer may hold (its host copy is allocated).
constexpr std::uint64_t kMaxBufferBytes = std::uint64_t(1) << 37;

Expected<ArgSpec> parseArgSpec(std::string_view text);
/// "X", "X,Y" or "X,Y,Z", each >= 1.
Expected<Dim3> parseDim3(std::string_view text);
/// A scalar literal of `type` as its bit pattern (ints: decimal or 0x hex,
/// range-checked; floats: anything strtod accepts, plus inf/nan).
Expected<std::uint64_t> parseScalarBits(ScalarType type, std::string_view text);

/// A typed host array.
struct HostArray {
  ScalarType type = ScalarType::F32;
  std::size_t count = 0;
  std::vector<unsigned char> bytes;

  HostArray() = default;
  HostArray(ScalarType type, std::size_t count);
  double get(std::size_t i) const;
  void set(std::size_t i, double value);
  /// Exact text for integers, %.6g for floats.
  std::string format(std::size_t i) const;
};

/// Fills a buffer per its spec; `seed` makes `rand` reproducible (the
/// argument name is mixed in so that a and b differ).
Expected<HostArray> initHostArray(const ArgSpec &spec, std::uint64_t seed);

struct Summary {
  double min = 0, max = 0, mean = 0;
  std::size_t nanCount = 0;
};
/// Over the non-NaN elements.
Summary summarize(const HostArray &array);
/// Head and tail (`edge` elements each) with indices, then the summary.
std::string formatArray(const std::string &name, const HostArray &array,
                        std::size_t edge = 8);
/// NumPy .npy v1.0 (bf16 is stored as its raw bits, dtype '<u2').
Error writeNpy(const std::string &path, const HostArray &array);
Error writeRaw(const std::string &path, const HostArray &array);

struct RunOptions {
  std::string input;
  std::string kernel;
  Dim3 grid, block;
  /// --cluster: blocks per thread block cluster (sm_90).
  Dim3 cluster;
  unsigned sharedBytes = 0;
  std::vector<ArgSpec> args;
  std::vector<std::string> prints;
  std::vector<std::pair<std::string, std::string>> outs; ///< name, path.
  bool time = false;
  int reps = 20;
  int warmup = 3;
  std::uint64_t seed = 0;
  int device = 0;
  bool interpret = false;
  /// --profile: print the interpreter's profile; --profile-json FILE: write
  /// it as JSON (both need --interpret).
  bool profile = false;
  std::string profileJson;
  /// --profile-top N: hot spots listed per kernel.
  int profileTop = 10;
  /// Chip for compiling .mlir input (default: the device's, else sm_80).
  std::string chip;
  bool verbose = false;
  bool help = false;
};

Expected<RunOptions> parseCommandLine(int argc, const char *const *argv);
std::string getUsage();

/// An argument as prepared on the host: buffers are initialized arrays that
/// receive the results, scalars carry their bits.
struct HostArg {
  ArgSpec spec;
  HostArray data; ///< Buffers only.
};

/// The launch arguments of `args` in --arg order (--buffer ones left out):
/// scalars with their bits,
/// buffers as pointers of their element type at `addresses[i]` (the device
/// or interpreter address of buffer i; unused for scalars), tensor maps as
/// `maps[i]` (null: a placeholder of the right kind, for checking).
std::vector<rt::KernelArg>
toKernelArgs(const std::vector<HostArg> &args,
             const std::vector<std::uint64_t> &addresses,
             const std::vector<const rt::TensorMap *> &maps = {});

/// The one argument contract of both runners (the GPU and --interpret):
/// `args` checked against the kernel's `// kaio.kernel` signature by
/// rt::checkKernelArgs (no implicit conversions). Success without a
/// signature.
Error checkArgsAgainstSignature(const rt::KernelSignature *signature,
                                const std::vector<HostArg> &args);

/// Extension points for front ends that know more than PTX.
struct RunHooks {
  /// Turns a non-.ptx input (e.g. .mlir) into PTX text for `kernel`.
  std::function<Expected<std::string>(const RunOptions &)> compileToPtx;
  /// Runs the kernel on a CPU interpreter (--interpret), updating buffers.
  std::function<Error(const RunOptions &, std::vector<HostArg> &)> interpret;
};

/// Exit codes of runTool.
enum ExitCode {
  ExitOk = 0,
  ExitFailure = 1,     ///< Bad usage or a runtime error.
  ExitUnsupported = 2, ///< Input kind or mode not available in this build.
  ExitNoGpu = 3,       ///< No CUDA driver or GPU.
};

/// The whole of kaio-run; `main` is a one-liner around it.
int runTool(int argc, const char *const *argv, const RunHooks &hooks,
            std::ostream &out, std::ostream &err);

} // namespace kaio::run

#endif // KAIO_TOOLS_KAIO_RUN_RUNSUPPORT_H
