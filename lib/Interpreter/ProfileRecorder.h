//===- ProfileRecorder.h - per-instruction counters of one launch -*- C++ -*-===//
//
// While a profiled kernel runs, the Runner tells the recorder what each
// instruction issue did: which lanes were active and predicated on, the
// lane addresses of memory accesses, divergent branches. The recorder keeps
// counters per pc (cheap on the hot path) and applies the memory models:
// shared-memory wavefronts under the bank rules and global 32-byte sectors.
// At the end of the launch it classifies each pc and folds the counters
// into a Profile, per kernel and per source line.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_INTERPRETER_PROFILERECORDER_H
#define KAIO_LIB_INTERPRETER_PROFILERECORDER_H

#include "Internal.h"
#include "Kaio/Interpreter/Profile.h"

#include "llvm/ADT/DenseSet.h"

namespace kaio::interp::detail {

/// The memory models, exposed for tests.
///
/// Wavefronts a warp's shared access of `size` bytes per lane needs: 32
/// banks of 4 bytes; accesses of 8 and 16 bytes are split into phases of
/// 16 and 8 lanes. In a phase, lanes reading the same 4-byte word share it
/// (broadcast); the phase takes as many wavefronts as the bank holding the
/// most distinct words. `ideal` gets the fewest wavefronts the distinct
/// words of each phase could take (ceil(words / 32), at least one per phase
/// with an active lane). `addr` holds 32 shared-space byte offsets.
unsigned sharedWavefronts(const uint64_t *addr, uint32_t mask, unsigned size,
                          unsigned &ideal);
/// ldmatrix / stmatrix with `matrices` 8x8 matrices: one phase per matrix,
/// whose eight 16-byte rows come from lanes 8m ... 8m+7 of `rowAddr`.
unsigned matrixWavefronts(const uint64_t *rowAddr, unsigned matrices,
                          unsigned &ideal);
/// Distinct 32-byte sectors touched by the lanes in `mask` accessing `size`
/// bytes at `addr`; `ideal` gets ceil(distinct bytes / 32). Appends the
/// sectors' indices (address / 32) to `sectorIds` when it is given.
unsigned globalSectors(const uint64_t *addr, uint32_t mask, unsigned size,
                       unsigned &ideal,
                       llvm::SmallVectorImpl<uint64_t> *sectorIds = nullptr);

struct PcCounters {
  uint64_t issued = 0, lanes = 0, lanesOn = 0, divergent = 0;
  SharedStats shared;
  GlobalStats global;
};

class ProfileRecorder {
public:
  explicit ProfileRecorder(const Program &prog) : prog(prog), pcs(prog.code.size()) {}

  /// The warp issued `pc` with `mask` active and `on` predicated on.
  void issue(uint32_t pc, uint32_t mask, uint32_t on) {
    PcCounters &c = pcs[pc];
    ++c.issued;
    c.lanes += __builtin_popcount(mask);
    c.lanesOn += __builtin_popcount(on);
  }
  void divergentBranch(uint32_t pc) { ++pcs[pc].divergent; }

  /// A memory instruction (ld, st, atom, red, cp.async, ldmatrix, stmatrix)
  /// about to run with registers `R` for the lanes in `em`.
  void memory(uint32_t pc, const Instr &in, const uint64_t *R, uint32_t em);

  /// Adds this launch to `profile`.
  void finish(Profile &profile, const Dim3 &grid, const Dim3 &block) const;

private:
  void sharedAccess(uint32_t pc, const uint64_t *addr, uint32_t mask,
                    unsigned size);
  void globalAccess(uint32_t pc, const uint64_t *addr, uint32_t mask,
                    unsigned size, bool write);

  const Program &prog;
  std::vector<PcCounters> pcs;
  llvm::DenseSet<uint64_t> sectorsRead, sectorsWritten;
  llvm::SmallVector<uint64_t, 64> scratch;
};

} // namespace kaio::interp::detail

#endif // KAIO_LIB_INTERPRETER_PROFILERECORDER_H
