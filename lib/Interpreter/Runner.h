//===- Runner.h - the interpreter's execution state -------------*- C++ -*-===//
//
// One launch: the block being run, its warps with their registers, lane
// pcs and pending cp.async copies, shared memory and its shadow for the
// sanitizer. Execute.cpp schedules and dispatches, Memory.cpp implements
// loads, stores, atomics and cp.async, WarpOps.cpp the warp-level ops.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_INTERPRETER_RUNNER_H
#define KAIO_LIB_INTERPRETER_RUNNER_H

#include "Arith.h"
#include "ProfileRecorder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"
#include <cinttypes>
#include <cstdio>
#include <deque>

namespace kaio::interp::detail {
using namespace kaio::ptx;

template <typename F>
inline void forLanes(uint32_t mask, F &&f) {
  while (mask) {
    unsigned l = __builtin_ctz(mask);
    mask &= mask - 1;
    f(l);
  }
}

inline std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
  return buf;
}

struct ShadowByte {
  uint32_t wEpoch = 0, rEpoch = 0;
  uint16_t wTid = 0, rTid = 0;
  uint32_t init = 0; // block serial that wrote it, or kPending
};
constexpr uint16_t kManyReaders = 0xffff;
constexpr uint32_t kPending = 0xffffffff;     // a cp.async destination
constexpr uint32_t kPendingBulk = 0xfffffffe; // a bulk (TMA) destination

struct PendingCopy {
  uint32_t dst = 0;
  uint32_t pc = 0;
  uint8_t bytes = 0;
  uint8_t data[16] = {};
};

struct LaneAsync {
  std::vector<PendingCopy> open;
  std::deque<std::vector<PendingCopy>> groups;
  bool empty() const { return open.empty() && groups.empty(); }
};

/// An mbarrier object (8 bytes of shared memory; the interpreter keeps its
/// state beside them). Bulk copies that complete on it wait in `copies`
/// and land, completing their transaction bytes, when a thread waits on the
/// barrier or nothing else can run: the latest moment the hardware could.
struct MBarrier {
  uint32_t expected = 0, pending = 0; // arrivals per phase / still missing
  int64_t tx = 0;                     // transaction bytes still expected
  uint32_t phase = 0;                 // completed phases
  std::vector<PendingCopy> copies;
  std::vector<uint16_t> copyTids;
};

/// Shared bytes [begin, end) an issued wgmma reads until its group retires.
struct WgmmaRead {
  uint32_t begin = 0, end = 0, pc = 0;
};

struct Warp {
  unsigned index = 0;
  /// wgmma reads not yet committed, and the committed groups in flight.
  std::vector<WgmmaRead> wgmmaOpen;
  std::deque<std::vector<WgmmaRead>> wgmmaGroups;
  uint32_t exists = 0, exited = 0, blocked = 0;
  uint32_t pc[32] = {};
  uint64_t *regs = nullptr;
  LaneAsync async[32];
  uint32_t asyncLanes = 0; // lanes with pending cp.async state
  uint32_t runnable() const { return exists & ~exited & ~blocked; }
};

/// AsyncIssue / AsyncLand: a cp.async; BulkLand: a bulk (TMA) copy landing,
/// ordered by its mbarrier rather than by bar.sync epochs.
enum class Access { Read, Write, Atomic, AsyncIssue, AsyncLand, BulkLand };

inline const char *spaceName(StateSpace s) {
  switch (s) {
  case StateSpace::global:
    return "global";
  case StateSpace::shared:
    return "shared";
  case StateSpace::local:
    return "local";
  case StateSpace::Const:
    return "const";
  case StateSpace::param:
    return "param";
  default:
    return "generic";
  }
}

class Runner {
public:
  Runner(Interpreter::Impl &impl, const Program &prog, Dim3 grid, Dim3 block,
         llvm::ArrayRef<uint64_t> args, const LaunchOptions &opts,
         LaunchResult &result)
      : impl(impl), prog(prog), grid(grid), block(block), args(args),
        opts(opts), result(result) {}

  void run();

private:
  void runBlock(uint32_t bx, uint32_t by, uint32_t bz);
  void runWarp(Warp &w);
  void execute(Warp &w, uint32_t pc, uint32_t mask);
  bool releaseBarriers();

  // Memory.
  uint8_t *access(Warp &w, unsigned lane, uint32_t pc, StateSpace space,
                  uint64_t addr, unsigned size, unsigned align, Access kind,
                  const char *what);
  uint8_t *globalAccess(Warp &w, unsigned lane, uint32_t pc, uint64_t addr,
                        unsigned size, const char *what, StateSpace space);
  /// globalAccess, then (LaunchOptions::checkGlobalRaces) the race check of
  /// a read or write against the launch's earlier writes.
  uint8_t *checkedGlobalAccess(Warp &w, unsigned lane, uint32_t pc,
                               uint64_t addr, unsigned size, Access kind,
                               const char *what, StateSpace space);
  uint8_t *sharedAccess(Warp &w, unsigned lane, uint32_t pc, uint64_t off,
                        unsigned size, Access kind, const char *what);
  void load(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void store(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void atomic(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void cpAsync(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void landGroup(Warp &w, unsigned lane, std::vector<PendingCopy> &group);
  void landAll(Warp &w, unsigned lane);

  // Hopper (HopperOps.cpp).
  /// Runs an mbarrier or bulk-copy op; false when the lanes in `mask`
  /// stop here (an error, a wait, or a completed phase whose waiters go
  /// first), their pcs saved.
  bool asyncOp(const Instr &in, Warp &w, uint32_t pc, uint32_t &mask,
               uint32_t em);
  MBarrier *mbarrierAt(Warp &w, unsigned lane, uint32_t pc, uint64_t addr,
                       const char *what);
  void mbarrierInit(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void mbarrierArrive(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void mbarrierExpectTx(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  /// Blocks the lanes whose phase has not completed (and takes them out of
  /// `mask`).
  void mbarrierTryWait(const Instr &in, Warp &w, uint32_t pc, uint32_t &mask,
                       uint32_t em);
  bool mbarrierReady(const Instr &in, const Warp &w, unsigned lane);
  void completeTx(MBarrier &mb, int64_t bytes);
  void landBulk(MBarrier &mb);
  void landAllBulk();
  /// Unblocks threads waiting on mbarrier phases that have completed.
  bool releaseMBarrierWaiters();
  void bulkTensorCopy(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void bulkCopy(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void elect(const Instr &in, Warp &w, uint32_t em);
  void wgmma(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void wgmmaGroupOp(const Instr &in, Warp &w);
  /// wgmma.wait_group is warpgroup-wide: a warp waits until every live warp
  /// of its warpgroup is there (so the group's wgmmas were issued by all
  /// four), then the last one retires everyone's groups and releases them.
  /// False when the warp waits.
  bool warpgroupWait(const Instr &in, Warp &w, uint32_t pc, uint32_t mask);
  /// Reports a write of shared [begin, end) that an in-flight wgmma reads.
  bool checkWgmmaReads(Warp &w, unsigned lane, uint32_t pc, uint64_t begin,
                       uint64_t end, const char *what);

  // Warp-level.
  bool arrive(Warp &w, uint32_t pc, uint32_t &mask, uint32_t required);
  void shfl(const Instr &in, Warp &w, uint32_t em);
  void vote(const Instr &in, Warp &w, uint32_t em);
  void match(const Instr &in, Warp &w, uint32_t em);
  void redux(const Instr &in, Warp &w, uint32_t em);
  void mma(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void ldmatrix(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void stmatrix(const Instr &in, Warp &w, uint32_t pc, uint32_t em);

  void arith(const Instr &in, uint64_t *R, uint32_t em);
  uint64_t specialRegister(SpecialReg reg, const Warp &w, unsigned lane);
  void copyEdge(const Edge &e, uint64_t *R, uint32_t lanes);
  uint32_t guardMask(const Instr &in, const uint64_t *R, uint32_t mask) const {
    if (in.guard == kNoSlot)
      return mask;
    uint32_t g = 0;
    forLanes(mask, [&](unsigned l) { g |= uint32_t(R[in.guard + l] & 1) << l; });
    return (in.flags & FGuardNeg) ? mask & ~g : g;
  }

  // Errors.
  std::string threadName(unsigned tid) const {
    return "(" + std::to_string(tid % block.x) + "," +
           std::to_string(tid / block.x % block.y) + "," +
           std::to_string(tid / (block.x * block.y)) + ")";
  }
  void report(uint32_t pc, int tid, const llvm::Twine &what);
  unsigned tidOf(const Warp &w, unsigned lane) const {
    return w.index * 32 + lane;
  }

  Interpreter::Impl &impl;
  const Program &prog;
  Dim3 grid, block;
  llvm::ArrayRef<uint64_t> args;
  const LaunchOptions &opts;
  LaunchResult &result;

  bool aborted = false;
  uint64_t threadInstrs = 0, warpInstrs = 0;
  uint64_t instrLimit = UINT64_MAX;
  uint32_t ctaid[3] = {};
  unsigned numThreads = 0;
  std::vector<Warp> warps;
  std::vector<uint64_t> regs;
  std::vector<uint8_t> shared;
  std::vector<ShadowByte> shadow;
  uint64_t sharedSize = 0;
  std::vector<uint8_t> local;
  uint32_t epoch = 0, blockSerial = 0;
  uint32_t arrived[16] = {};
  std::map<uint32_t, MBarrier> mbarriers; // by shared address
  unsigned wgmmaInFlight = 0; // wgmma reads of all warps not yet retired
  std::vector<unsigned> warpgroupWaiting; // warps at a wgmma.wait_group
  /// Set when an mbarrier phase completes: the running warp stops so that
  /// the threads waiting for that phase run before it goes on (the most
  /// eager schedule the hardware allows, to expose early buffer reuse).
  bool phaseCompleted = false;
  Buffer *lastBuffer = nullptr;
  /// The last writer of each global byte this launch wrote (for
  /// checkGlobalRaces): its block, the block's barrier epoch, its thread.
  struct GlobalWriter {
    uint32_t blockSerial, epoch, tid;
  };
  llvm::DenseMap<uint64_t, GlobalWriter> globalWriters;
  /// The written bytes checkGlobalRaces records at most per launch (about
  /// 200 MiB of records); later writes go unrecorded.
  static constexpr size_t kMaxTrackedGlobalBytes = size_t(1) << 22;
  /// blockSerial of the launch's first block (block coordinates in
  /// reports).
  uint32_t firstBlockSerial = 1;
  /// Set when the launch is profiled.
  std::unique_ptr<ProfileRecorder> prof;
};

} // namespace kaio::interp::detail

#endif // KAIO_LIB_INTERPRETER_RUNNER_H
