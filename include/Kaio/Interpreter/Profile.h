//===- Profile.h - an interpreted kernel's counts, as ncu's -----*- C++ -*-===//
//
// An interpreter run with `LaunchOptions::profile` set fills a Profile: per
// kernel and per source location, the warp instructions issued by class,
// the active-lane fraction, shared-memory wavefronts and bank conflicts
// under the chip's bank rules, global-memory sectors per request, bytes and
// FLOPs. The counts are exact for the launch that was interpreted; they are
// defined as Nsight Compute defines them (docs/profiling.md):
//
//   Profile profile;
//   LaunchOptions opts;
//   opts.profile = &profile;
//   interp.launch("matmul", grid, block, args, opts);
//   const KernelProfile *k = profile.find("matmul");
//   EXPECT_EQ(k->sharedTotal().bankConflicts(), 0u);
//   llvm::outs() << profile.str();
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_INTERPRETER_PROFILE_H
#define KAIO_INTERPRETER_PROFILE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kaio::interp {

/// Shared-memory traffic of one kind of access (ld.shared, ldmatrix, ...).
/// A request is one warp instruction; a wavefront one pass of the shared
/// memory pipeline. The ideal is the fewest wavefronts the same bytes could
/// take; the difference is what ncu calls bank conflicts
/// (l1tex__data_bank_conflicts_pipe_lsu_mem_shared).
struct SharedStats {
  uint64_t requests = 0;
  uint64_t wavefronts = 0;
  uint64_t idealWavefronts = 0;

  uint64_t bankConflicts() const { return wavefronts - idealWavefronts; }
  SharedStats &operator+=(const SharedStats &o);
};

/// Global-memory traffic of one kind of access: 32-byte sectors touched per
/// warp request (ncu's sectors/request) against the fewest sectors the
/// requested bytes fit in, and the bytes the lanes asked for.
struct GlobalStats {
  uint64_t requests = 0;
  uint64_t sectors = 0;
  uint64_t idealSectors = 0;
  uint64_t bytes = 0;

  double sectorsPerRequest() const {
    return requests ? double(sectors) / double(requests) : 0.0;
  }
  GlobalStats &operator+=(const GlobalStats &o);
};

/// Counters of a kernel or of one source location.
struct ProfileCounters {
  /// Warp instructions issued (a partially active warp issues once).
  uint64_t warpInstructions = 0;
  /// Threads that executed them (active lanes, predicated-off included).
  uint64_t threadInstructions = 0;
  /// Threads whose guard predicate was true.
  uint64_t predicatedOnThreads = 0;
  /// Conditional branches where the warp's lanes went both ways.
  uint64_t divergentBranches = 0;
  /// Warp instructions by class: "fp32", "int", "f16x2", "sfu", "cvt",
  /// "mma.m16n8k16.f32.f16.f16.f32", "ldmatrix.x4.trans", "ld.global.16B",
  /// "st.shared.4B", "cp.async.16B", "bar", "shfl", "vote", "branch", ...
  std::map<std::string, uint64_t> mix;
  /// Shared-memory traffic by access kind: "ld.shared", "st.shared",
  /// "atom.shared", "ldmatrix", "stmatrix", "cp.async" (destination writes).
  std::map<std::string, SharedStats> shared;
  /// Global-memory traffic by access kind: "ld.global", "st.global",
  /// "atom.global", "cp.async" (source reads). Generic accesses are counted
  /// under the space they reach.
  std::map<std::string, GlobalStats> global;
  /// Bytes cp.async copied (requested by the lanes).
  uint64_t cpAsyncBytes = 0;
  /// FLOPs: tensor-core (2·m·n·k per mma, integer ops included) by the
  /// A operand's PTX type ("f16", "bf16", "tf32", "s8", ...), and scalar by
  /// precision ("fp32", "fp64", "fp16"; add/sub/mul count 1, fma 2, packed
  /// x2 instructions twice).
  std::map<std::string, uint64_t> mmaFlops;
  std::map<std::string, uint64_t> scalarFlops;

  /// Fraction of the 32 lanes that executed, over all warp instructions.
  double activeLaneFraction() const;
  SharedStats sharedTotal() const;
  GlobalStats globalTotal() const;
  uint64_t flops() const;
  ProfileCounters &operator+=(const ProfileCounters &o);
};

/// One source location (file:line of the .mlir op that produced the
/// instructions) of a kernel.
struct LocationProfile : ProfileCounters {
  std::string location;
};

struct KernelProfile : ProfileCounters {
  std::string name;
  uint64_t launches = 0;
  /// The last launch's grid and block.
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  /// Global bytes read and written as the lanes requested them (L1/L2 see
  /// these), and the compulsory traffic: distinct 32-byte sectors read and
  /// written per launch, times 32 (a lower bound on DRAM traffic; L2 reuse
  /// across blocks is out of scope).
  uint64_t globalBytesRead = 0, globalBytesWritten = 0;
  uint64_t compulsoryBytesRead = 0, compulsoryBytesWritten = 0;
  /// Per location, the hottest (most warp instructions) first.
  std::vector<LocationProfile> locations;

  /// FLOPs per compulsory byte (0 when nothing was moved).
  double arithmeticIntensity() const;
};

/// Profiles of every kernel launched with it, in first-launch order; a
/// kernel launched again adds to its counts.
class Profile {
public:
  const std::vector<KernelProfile> &kernels() const { return kernels_; }
  const KernelProfile *find(const std::string &kernel) const;
  KernelProfile &getOrCreate(const std::string &kernel);
  bool empty() const { return kernels_.empty(); }
  void clear() { kernels_.clear(); }

  /// A text report: totals, instruction mix, shared and global memory
  /// tables, and the `topLocations` hottest source locations per kernel.
  std::string str(unsigned topLocations = 10) const;
  /// The same as JSON (docs/profiling.md documents the schema).
  std::string json() const;

private:
  std::vector<KernelProfile> kernels_;
};

} // namespace kaio::interp

#endif // KAIO_INTERPRETER_PROFILE_H
