//===- Runner.h - the interpreter's execution state -------------*- C++ -*-===//
//
// One launch: the cluster of blocks being run (one block unless the launch
// names cluster dimensions), each with its warps, their registers, lane pcs
// and pending cp.async copies, shared memory and its shadow for the
// sanitizer. Execute.cpp schedules and dispatches, Memory.cpp implements
// loads, stores, atomics and cp.async, WarpOps.cpp the warp-level ops,
// HopperOps.cpp mbarriers, bulk copies and the cluster operations.
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
#include <optional>

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
  /// Lanes that arrived at the cluster barrier and have not waited yet, and
  /// the cluster barrier phase each arrived in.
  uint32_t clusterArrived = 0;
  uint32_t clusterArrivePhase[32] = {};
  uint32_t pc[32] = {};
  uint64_t *regs = nullptr;
  LaneAsync async[32];
  uint32_t asyncLanes = 0; // lanes with pending cp.async state
  uint32_t runnable() const { return exists & ~exited & ~blocked; }
};

/// Shared::cluster addresses: `mapa` gives the variable of the cluster's
/// CTA `rank` the address `(rank + 1) * kClusterWindow + offset` (in the
/// generic shared window too). A `.shared::cta` address is also a
/// `.shared::cluster` address of the running CTA, as on the GPU: outside
/// clusters and in a cluster's CTA 0 a variable's address is its offset
/// below the block's shared size; in a cluster's CTA of rank r > 0 it is
/// the CTA's own cluster address, with bits above 2^24 set, as the GPU's
/// are above 2^18 (an H100 showed it: a wgmma descriptor built from such
/// an address without masking its 14-bit field reads the wrong smem).
inline constexpr uint64_t kClusterWindow = uint64_t(1) << 24;
/// Thread ids recorded in shared shadows by another CTA of the cluster
/// (remote accesses, multicast copies): kRemoteTid * (rank + 1) + tid.
inline constexpr unsigned kRemoteTid = 1024;

/// The state of one CTA (thread block): its warps and registers, shared
/// and local memory with the sanitizer's shadow, bar.sync arrivals and
/// mbarriers. The CTAs of a cluster run side by side: the Runner holds the
/// running CTA's state (it derives from CtaState) and parks the others in
/// `ctas`, swapping on a switch (the vectors' storage, and so every Warp
/// reference, stays put).
struct CtaState {
  uint32_t ctaid[3] = {};
  unsigned rank = 0; // %cluster_ctarank
  std::vector<Warp> warps;
  std::vector<uint64_t> regs;
  std::vector<uint8_t> shared;
  std::vector<ShadowByte> shadow;
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

  bool allExited() const {
    for (const Warp &w : warps)
      if (w.exited != w.exists)
        return false;
    return true;
  }
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

class Runner : private CtaState {
public:
  Runner(Interpreter::Impl &impl, const Program &prog, Dim3 grid, Dim3 block,
         llvm::ArrayRef<uint64_t> args, const LaunchOptions &opts,
         LaunchResult &result)
      : impl(impl), prog(prog), grid(grid), block(block), args(args),
        opts(opts), result(result) {}

  void run();

private:
  /// Runs the cluster whose first block is (bx, by, bz): its CTAs in turn,
  /// each until all its warps wait, then releases whatever barrier can be.
  void runCluster(uint32_t bx, uint32_t by, uint32_t bz);
  /// Resets the running CTA's state for the block at `ctaid`.
  void startBlock(const uint32_t ctaid[3]);
  void runWarp(Warp &w);
  void execute(Warp &w, uint32_t pc, uint32_t mask);
  /// Releases the running CTA's barriers that can be; when none can, with
  /// `reportStuck` reports why (a deadlock), otherwise returns false
  /// quietly (another CTA of the cluster may still release its waiters).
  bool releaseBarriers(bool reportStuck);

  // Clusters.
  /// Makes CTA `rank` of the cluster the running one.
  void activate(unsigned rank);
  CtaState &cta(unsigned r) {
    return r == rank ? static_cast<CtaState &>(*this) : ctas[r];
  }
  const CtaState &cta(unsigned r) const {
    return r == rank ? static_cast<const CtaState &>(*this) : ctas[r];
  }
  /// Runs `f` with CTA `target` running on behalf of the current one (a
  /// remote access): reports name both, shadows record the issuer's
  /// threads as kRemoteTid * (rank + 1) + tid.
  template <typename F>
  auto onCta(unsigned target, F &&f) -> decltype(f()) {
    if (target == rank)
      return f();
    unsigned back = rank;
    int outer = issuer;
    issuer = int(back);
    activate(target);
    struct Restore {
      Runner &r;
      unsigned back;
      int outer;
      ~Restore() {
        r.activate(back);
        r.issuer = outer;
      }
    } restore{*this, back, outer};
    return f();
  }
  /// The CTA a `.shared::cluster` address names and the offset in it, or
  /// nullopt (reported) when it names no CTA of the cluster or one that
  /// has exited.
  std::optional<std::pair<unsigned, uint64_t>>
  clusterTarget(Warp &w, unsigned lane, uint32_t pc, uint64_t addr,
                const char *what);
  /// `.shared::cluster` access: the running CTA's shared memory or,
  /// through onCta, another CTA's.
  uint8_t *clusterAccess(Warp &w, unsigned lane, uint32_t pc, uint64_t addr,
                         unsigned size, Access kind, const char *what);
  /// The running CTA's own offset of a `.shared::cta` address (which may be
  /// the running CTA's `.shared::cluster` address).
  uint64_t ownOffset(uint64_t addr) const {
    return addr >= kClusterWindow && addr / kClusterWindow == rank + 1
               ? addr % kClusterWindow
               : addr;
  }
  void mapa(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void clusterArrive(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  /// Blocks the lanes whose cluster barrier phase has not completed.
  void clusterWait(const Instr &in, Warp &w, uint32_t pc, uint32_t &mask,
                   uint32_t em);
  /// Completes the cluster barrier's phase when every live thread of the
  /// cluster has arrived, and unblocks its waiters; true when it did.
  bool releaseClusterBarrier();
  /// The cluster's live (not exited) threads and how many of them arrived
  /// in the current phase (a thread that arrived and exited counts as
  /// neither: the barrier no longer waits for it).
  std::pair<unsigned, unsigned> clusterArrivals() const;
  /// Unblocks the lanes whose cluster barrier phase has completed.
  bool releaseClusterWaiters();

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
  /// Runs an mbarrier, bulk-copy or cluster op; false when the lanes in `mask`
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
  /// Delivers the 16-byte chunks of a bulk load (destinations relative to
  /// `dst`, a `.shared::cluster` address) to their CTA, or with
  /// `ctaMask` (in.flags & FMulticast) to every CTA of the mask, pending
  /// on the mbarrier at `mbar` there. False when reported.
  bool deliverBulk(const Instr &in, Warp &w, unsigned lane, uint32_t pc,
                   const char *name, uint64_t dst, uint64_t mbar,
                   uint32_t ctaMask, std::vector<PendingCopy> &chunks);
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
  /// A thread's coordinates; threads of another CTA of the cluster
  /// (kRemoteTid * (rank + 1) + tid) also name the CTA's rank.
  std::string threadName(unsigned tid) const {
    std::string of;
    if (tid >= kRemoteTid) {
      of = " of the cluster's CTA rank " + std::to_string(tid / kRemoteTid - 1);
      tid %= kRemoteTid;
    }
    return "(" + std::to_string(tid % block.x) + "," +
           std::to_string(tid / block.x % block.y) + "," +
           std::to_string(tid / (block.x * block.y)) + ")" + of;
  }
  void report(uint32_t pc, int tid, const llvm::Twine &what);
  /// The thread id of a lane: during a remote access (onCta), a thread of
  /// the issuing CTA.
  unsigned tidOf(const Warp &w, unsigned lane) const {
    return w.index * 32 + lane +
           (issuer >= 0 ? kRemoteTid * (unsigned(issuer) + 1) : 0);
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
  unsigned numThreads = 0;
  uint64_t sharedSize = 0;
  /// The cluster's shape and its CTAs (`ctas[rank]` parked, the running
  /// one's slot empty); one CTA without cluster dimensions.
  Dim3 cluster;
  unsigned clusterSize = 1;
  std::vector<CtaState> ctas;
  /// The rank on whose behalf the running CTA is accessed (onCta), or -1.
  int issuer = -1;
  /// The cluster barrier's completed phases.
  uint32_t clusterPhase = 0;
  Buffer *lastBuffer = nullptr;
  /// The last writer of each global byte this launch wrote (for
  /// checkGlobalRaces): its block, the block's barrier epoch, its thread,
  /// and the cluster barrier phases completed then.
  struct GlobalWriter {
    uint32_t blockSerial, epoch, tid, clusterPhase;
  };
  llvm::DenseMap<uint64_t, GlobalWriter> globalWriters;
  /// The written bytes checkGlobalRaces records at most per launch (about
  /// 200 MiB of records); later writes go unrecorded.
  static constexpr size_t kMaxTrackedGlobalBytes = size_t(1) << 22;
  /// blockSerial of the launch's first block: a block's serial is
  /// firstBlockSerial plus its linear index (block coordinates in reports).
  uint32_t firstBlockSerial = 1;
  /// Whether the block of `serial` is in the running block's cluster.
  bool sameCluster(uint32_t serial) const {
    uint32_t s = serial - firstBlockSerial;
    return s % grid.x / cluster.x == ctaid[0] / cluster.x &&
           s / grid.x % grid.y / cluster.y == ctaid[1] / cluster.y &&
           s / (grid.x * grid.y) / cluster.z == ctaid[2] / cluster.z;
  }
  /// Set when the launch is profiled.
  std::unique_ptr<ProfileRecorder> prof;
};

} // namespace kaio::interp::detail

#endif // KAIO_LIB_INTERPRETER_RUNNER_H
