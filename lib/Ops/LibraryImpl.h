//===- LibraryImpl.h - what a loaded Library holds ---------------*- C++ -*-===//

#ifndef KAIO_LIB_OPS_LIBRARYIMPL_H
#define KAIO_LIB_OPS_LIBRARYIMPL_H

#include "Kaio/Ops/Library.h"
#include "Kaio/Ops/Tuning.h"

#include "Kaio/Runtime/Module.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ops_kernels {
class Kernels;
} // namespace ops_kernels
namespace ops_hopper_kernels {
class Kernels;
} // namespace ops_hopper_kernels

namespace kaio::ops {

/// The loaded embedded kernels (only Library.cpp includes
/// the generated header, megabytes of PTX and cubins). Ops pick kernels by
/// name (dtype and vector variants); each is looked up once.
struct Library::Impl {
  explicit Impl(std::unique_ptr<ops_kernels::Kernels> kernels);
  ~Impl();
  std::unique_ptr<ops_kernels::Kernels> kernels;
  /// The sm_90a kernels (TMA + wgmma) when the GPU is a 9.0 one, else null.
  std::unique_ptr<ops_hopper_kernels::Kernels> hopper;
  /// The GPU's streaming multiprocessors (persistent kernels' grids).
  int smCount = 1;
  /// Shared memory a block may have after opting in, and an SM's (bytes).
  std::uint64_t sharedOptin = 0, sharedPerSM = 0;
  std::unordered_map<std::string, rt::Kernel> byName;
  /// Clusters each clustered kernel runs at once (asked once per kernel:
  /// Kernel::maxActiveClusters at its block and shared memory).
  std::unordered_map<std::string, unsigned> activeClusters;
  /// The device's name and ordinal (tuning keys, tuneGemm's check).
  std::string deviceName;
  int deviceOrdinal = 0;
  /// The GEMM tuning table (Tuning.h): read from the cache directory on
  /// first use, extended by tuneGemm.
  GemmTuningTable gemmTuning;
  bool gemmTuningLoaded = false;
  std::vector<std::string> warnings;
  /// Reads the tuning file into gemmTuning on first use.
  void loadGemmTuning();
  /// The tuned choice for `key`, or null.
  const std::string *gemmChoice(const std::string &key);
  /// The tuning key of the row-major-C problem A x B into C with these
  /// options (getGemmTuningKey: fused epilogue, beta, a portable kernel
  /// forced on a 9.0 GPU).
  std::string gemmTuningKey(const Matrix &a, const Matrix &b, const Matrix &c,
                            const GemmOptions &options) const;
  /// `choice` (a tuner's, being timed) if given, else the table's choice
  /// for the problem's class, else null (the heuristic decides).
  const char *gemmChoiceFor(const Matrix &a, const Matrix &b, const Matrix &c,
                            const GemmOptions &options, const char *choice);
  /// Whether the table has any entry (gemm() skips building keys if not).
  bool hasGemmTuning() {
    loadGemmTuning();
    return !gemmTuning.empty();
  }

  /// The kernel `name` of the portable set, or of the sm_90a set when
  /// `hopperSet`.
  rt::Expected<rt::Kernel *> kernel(const std::string &name,
                                    bool hopperSet = false);
  /// Launches the column kernel `name` (gemv_t, reduce_cols) with
  /// kGemvBlock threads a block over `across` threads' worth of columns
  /// and `slices` row slices (grid y); errors say `op`.
  rt::Error launchColumns(const char *op, const std::string &name,
                          std::int64_t across, std::int64_t slices,
                          const rt::Stream *stream,
                          std::vector<rt::KernelArg> args);
};

} // namespace kaio::ops

#endif // KAIO_LIB_OPS_LIBRARYIMPL_H
