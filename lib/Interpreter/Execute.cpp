//===- Execute.cpp - run a decoded kernel over a grid ---------------------===//
//
// Blocks run one after another; a block runs warp by warp. A warp executes
// a group of lanes that share a pc, one instruction at a time across the
// group. When lanes diverge, the group with the lowest pc runs first (join
// points come later in block order, so the lanes meet there again). A group
// stops at a branch, at a bar.sync (its lanes wait for the block), at a warp
// collective whose other lanes have not arrived yet, or at exit. When every
// warp is waiting, barriers are released (or diagnosed as divergent).
//
// Shared memory keeps a shadow per byte: the last writer thread and epoch,
// the last reader (or "several") and epoch, and whether the block has
// initialised it (or a cp.async is pending on it). Epochs advance at every
// barrier release, so a conflicting access by another thread in the same
// epoch is a race.
//
//===----------------------------------------------------------------------===//

#include "Arith.h"

#include "llvm/ADT/Twine.h"
#include <cinttypes>
#include <cstdio>
#include <deque>

using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

namespace {

template <typename F>
inline void forLanes(uint32_t mask, F &&f) {
  while (mask) {
    unsigned l = __builtin_ctz(mask);
    mask &= mask - 1;
    f(l);
  }
}

std::string hex(uint64_t v) {
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
constexpr uint32_t kPending = 0xffffffff;

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

struct Warp {
  unsigned index = 0;
  uint32_t exists = 0, exited = 0, blocked = 0;
  uint32_t pc[32] = {};
  uint64_t *regs = nullptr;
  LaneAsync async[32];
  uint32_t asyncLanes = 0; // lanes with pending cp.async state
  uint32_t runnable() const { return exists & ~exited & ~blocked; }
};

enum class Access { Read, Write, Atomic, AsyncIssue, AsyncLand };

const char *spaceName(StateSpace s) {
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
  uint8_t *sharedAccess(Warp &w, unsigned lane, uint32_t pc, uint64_t off,
                        unsigned size, Access kind, const char *what);
  void load(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void store(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void atomic(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void cpAsync(const Instr &in, Warp &w, uint32_t pc, uint32_t em);
  void landGroup(Warp &w, unsigned lane, std::vector<PendingCopy> &group);
  void landAll(Warp &w, unsigned lane);

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
  Buffer *lastBuffer = nullptr;
};

} // namespace

void Runner::report(uint32_t pc, int tid, const llvm::Twine &what) {
  std::string msg = formatLocation(prog.locs[pc]) + ": " + what.str() +
                    " (kernel '" + prog.name + "', block (" +
                    std::to_string(ctaid[0]) + "," + std::to_string(ctaid[1]) +
                    "," + std::to_string(ctaid[2]) + ")";
  if (tid >= 0)
    msg += ", thread " + threadName(unsigned(tid));
  msg += ")";
  result.errors.push_back(std::move(msg));
  aborted = true;
}

//===----------------------------------------------------------------------===//
// Launch and block scheduling
//===----------------------------------------------------------------------===//

void Runner::run() {
  numThreads = unsigned(block.count());
  if (opts.maxInstructions)
    instrLimit = opts.maxInstructions;
  unsigned numWarps = (numThreads + 31) / 32;
  warps.resize(numWarps);
  regs.assign(size_t(numWarps) * prog.numSlots * 32, 0);
  for (unsigned i = 0; i < numWarps; ++i) {
    warps[i].index = i;
    warps[i].regs = regs.data() + size_t(i) * prog.numSlots * 32;
    unsigned lanes = std::min(32u, numThreads - 32 * i);
    warps[i].exists = lanes == 32 ? ~0u : (1u << lanes) - 1;
  }
  sharedSize = prog.dynamicSharedOffset + opts.dynamicSharedBytes;
  shared.assign(sharedSize, 0);
  shadow.assign(sharedSize, ShadowByte());
  for (uint32_t z = 0; z < grid.z && !aborted; ++z)
    for (uint32_t y = 0; y < grid.y && !aborted; ++y)
      for (uint32_t x = 0; x < grid.x && !aborted; ++x)
        runBlock(x, y, z);
  result.instructions = threadInstrs;
  result.warpInstructions = warpInstrs;
  result.success = result.errors.empty();
}

void Runner::runBlock(uint32_t bx, uint32_t by, uint32_t bz) {
  ctaid[0] = bx;
  ctaid[1] = by;
  ctaid[2] = bz;
  ++epoch;
  ++blockSerial;
  std::fill(std::begin(arrived), std::end(arrived), 0);
  for (Warp &w : warps) {
    w.exited = 0;
    w.blocked = 0;
    std::fill(std::begin(w.pc), std::end(w.pc), 0);
    for (auto [i, slotOff] : llvm::enumerate(prog.paramSlots)) {
      uint64_t v = args[i] & maskBits(prog.paramBits[i]);
      std::fill(w.regs + slotOff, w.regs + slotOff + 32, v);
    }
  }
  for (;;) {
    // Each warp runs until all its lanes wait or have exited; only a barrier
    // release can wake them again.
    for (Warp &w : warps) {
      if (w.runnable())
        runWarp(w);
      if (aborted)
        return;
    }
    bool allExited = true;
    for (Warp &w : warps)
      allExited &= (w.exited == w.exists);
    if (allExited || !releaseBarriers())
      return;
  }
}

void Runner::runWarp(Warp &w) {
  while (!aborted) {
    uint32_t runnable = w.runnable();
    if (!runnable)
      return;
    if (opts.maxInstructions && threadInstrs > opts.maxInstructions) {
      report(w.pc[__builtin_ctz(runnable)], int(tidOf(w, __builtin_ctz(runnable))),
             "instruction limit of " + llvm::Twine(opts.maxInstructions) +
                 " reached");
      return;
    }
    // The lanes at the lowest pc run next.
    uint32_t pc = UINT32_MAX;
    forLanes(runnable, [&](unsigned l) { pc = std::min(pc, w.pc[l]); });
    uint32_t mask = 0;
    forLanes(runnable, [&](unsigned l) {
      if (w.pc[l] == pc)
        mask |= 1u << l;
    });
    execute(w, pc, mask);
  }
}

/// Releases every barrier whose participants have all arrived, or reports
/// why none can be: threads waiting at a block-wide barrier while others
/// have exited or wait elsewhere.
bool Runner::releaseBarriers() {
  unsigned waiting[16] = {};
  uint32_t firstPc[16], count[16] = {};
  bool mixedPcs[16] = {};
  int firstTid[16];
  std::fill(std::begin(firstPc), std::end(firstPc), UINT32_MAX);
  unsigned live = 0, collectiveWaiters = 0;
  uint32_t collectivePc = 0;
  int collectiveTid = -1;
  for (Warp &w : warps) {
    live += __builtin_popcount(w.exists & ~w.exited);
    forLanes(w.blocked & ~w.exited, [&](unsigned l) {
      uint32_t pc = w.pc[l];
      const Instr &in = prog.code[pc];
      if (in.op != Opc::BarSync) {
        if (!collectiveWaiters++) {
          collectivePc = pc;
          collectiveTid = int(tidOf(w, l));
        }
        return;
      }
      unsigned id = in.aux;
      if (!waiting[id]++) {
        firstPc[id] = pc;
        firstTid[id] = int(tidOf(w, l));
      } else if (firstPc[id] != pc) {
        mixedPcs[id] = true;
      }
      count[id] = in.aux2;
    });
  }
  unsigned exitedThreads = numThreads - live;
  bool released = false;
  for (unsigned id = 0; id < 16; ++id) {
    if (!waiting[id])
      continue;
    if (count[id] == 0) { // the whole block participates
      if (exitedThreads) {
        report(firstPc[id], firstTid[id],
               "barrier divergence: " + llvm::Twine(waiting[id]) +
                   " thread(s) wait at bar.sync " + llvm::Twine(id) +
                   " while " + llvm::Twine(exitedThreads) +
                   " thread(s) of the block have exited");
        return false;
      }
      if (mixedPcs[id]) {
        uint32_t other = firstPc[id];
        int otherTid = -1;
        for (Warp &w : warps)
          forLanes(w.blocked & ~w.exited, [&](unsigned l) {
            const Instr &in = prog.code[w.pc[l]];
            if (in.op == Opc::BarSync && in.aux == id && w.pc[l] != firstPc[id] &&
                otherTid < 0) {
              other = w.pc[l];
              otherTid = int(tidOf(w, l));
            }
          });
        report(firstPc[id], firstTid[id],
               "barrier divergence: threads wait at different barrier ops "
               "(this one and " +
                   formatLocation(prog.locs[other]) + ", thread " +
                   threadName(unsigned(otherTid)) + ")");
        return false;
      }
      if (waiting[id] != numThreads)
        continue;
    } else if (waiting[id] + arrived[id] < std::min(count[id], numThreads)) {
      continue;
    } else {
      arrived[id] = 0;
    }
    released = true;
    for (Warp &w : warps) {
      uint32_t free = 0;
      forLanes(w.blocked & ~w.exited, [&](unsigned l) {
        const Instr &in = prog.code[w.pc[l]];
        if (in.op == Opc::BarSync && in.aux == id) {
          free |= 1u << l;
          ++w.pc[l];
        }
      });
      w.blocked &= ~free;
    }
  }
  if (released) {
    ++epoch;
    return true;
  }
  // Nothing can move: describe the first waiter.
  for (unsigned id = 0; id < 16; ++id) {
    if (!waiting[id])
      continue;
    std::string others =
        collectiveWaiters
            ? std::to_string(collectiveWaiters) +
                  " thread(s) wait at a warp-level op at " +
                  formatLocation(prog.locs[collectivePc])
            : std::to_string(numThreads - waiting[id]) +
                  " thread(s) wait at other barriers";
    report(firstPc[id], firstTid[id],
           "barrier divergence: " + llvm::Twine(waiting[id]) +
               " thread(s) wait at bar.sync " + llvm::Twine(id) +
               " which can never complete; " + others);
    return false;
  }
  report(collectivePc, collectiveTid,
         "warp divergence: " + llvm::Twine(collectiveWaiters) +
             " lane(s) wait at a warp-level op for lanes that never arrive");
  return false;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

uint8_t *Runner::globalAccess(Warp &w, unsigned lane, uint32_t pc,
                              uint64_t addr, unsigned size, const char *what,
                              StateSpace space) {
  Buffer *b = lastBuffer;
  if (!b || addr - b->base >= b->size) {
    b = impl.findBuffer(addr);
    if (!b) {
      std::string detail = "address is not inside any global allocation";
      auto it = impl.buffers.upper_bound(addr);
      if (it != impl.buffers.begin()) {
        --it;
        detail = std::to_string(addr - (it->second.base + it->second.size)) +
                 " bytes past the end of the " +
                 std::to_string(it->second.size) + "-byte allocation at " +
                 hex(it->second.base);
      }
      report(pc, int(tidOf(w, lane)),
             llvm::Twine("out-of-bounds ") + spaceName(space) + " " + what +
                 " of " + llvm::Twine(size) + " bytes at address " +
                 hex(addr) + ": " + detail);
      return nullptr;
    }
    lastBuffer = b;
  }
  uint64_t off = addr - b->base;
  if (off + size > b->size) {
    report(pc, int(tidOf(w, lane)),
           llvm::Twine("out-of-bounds ") + spaceName(space) + " " + what +
               " of " + llvm::Twine(size) + " bytes at address " + hex(addr) +
               ": runs past the end of the " + llvm::Twine(b->size) +
               "-byte allocation at " + hex(b->base));
    return nullptr;
  }
  return b->data.get() + off;
}

uint8_t *Runner::sharedAccess(Warp &w, unsigned lane, uint32_t pc,
                              uint64_t off, unsigned size, Access kind,
                              const char *what) {
  const unsigned tid = tidOf(w, lane);
  if (off >= sharedSize || sharedSize - off < size) {
    report(pc, int(tid),
           llvm::Twine("out-of-bounds shared ") + what + " of " +
               llvm::Twine(size) + " bytes at shared address " + hex(off) +
               ": the block has " + llvm::Twine(sharedSize) +
               " bytes of shared memory");
    return nullptr;
  }
  for (unsigned i = 0; i < size; ++i) {
    ShadowByte &s = shadow[off + i];
    auto race = [&](unsigned other, const char *how) {
      report(pc, int(tid),
             llvm::Twine("shared-memory race: ") + what + " of shared address " +
                 hex(off + i) + " " + how + " thread " + threadName(other) +
                 " with no barrier in between");
    };
    switch (kind) {
    case Access::Read:
    case Access::Atomic:
      if (s.init != blockSerial) {
        if (s.init == kPending) {
          report(pc, int(tid),
                 llvm::Twine(what) + " of shared address " + hex(off + i) +
                     " reads the destination of a cp.async that has not "
                     "been waited for (cp.async.wait_group/wait_all)");
          return nullptr;
        }
        if (opts.checkUninitialized) {
          report(pc, int(tid),
                 llvm::Twine("read of uninitialised shared memory: ") + what +
                     " of " + llvm::Twine(size) + " bytes at shared address " +
                     hex(off) + " (byte " + hex(off + i) +
                     " was never written in this block)");
          return nullptr;
        }
      }
      if (kind == Access::Atomic) {
        s.init = blockSerial;
        break;
      }
      if (opts.checkRaces) {
        if (s.wEpoch == epoch && s.wTid != tid) {
          race(s.wTid, "reads a value written by");
          return nullptr;
        }
        if (s.rEpoch == epoch) {
          if (s.rTid != tid)
            s.rTid = kManyReaders;
        } else {
          s.rEpoch = epoch;
          s.rTid = uint16_t(tid);
        }
      }
      break;
    case Access::Write:
    case Access::AsyncLand:
      if (kind == Access::Write && s.init == kPending) {
        report(pc, int(tid),
               llvm::Twine(what) + " to shared address " + hex(off + i) +
                   " overwrites the destination of a cp.async that has not "
                   "been waited for");
        return nullptr;
      }
      if (opts.checkRaces) {
        if (s.wEpoch == epoch && s.wTid != tid) {
          race(s.wTid, "overwrites a value written by");
          return nullptr;
        }
        if (s.rEpoch == epoch && s.rTid != tid) {
          if (s.rTid == kManyReaders)
            report(pc, int(tid),
                   llvm::Twine("shared-memory race: ") + what +
                       " of shared address " + hex(off + i) +
                       " overwrites a value other threads read with no "
                       "barrier in between");
          else
            race(s.rTid, "overwrites a value read by");
          return nullptr;
        }
        s.wEpoch = epoch;
        s.wTid = uint16_t(tid);
      }
      s.init = blockSerial;
      break;
    case Access::AsyncIssue:
      s.init = kPending;
      break;
    }
  }
  return shared.data() + off;
}

uint8_t *Runner::access(Warp &w, unsigned lane, uint32_t pc, StateSpace space,
                        uint64_t addr, unsigned size, unsigned align,
                        Access kind, const char *what) {
  if (align > 1 && (addr & (align - 1))) {
    report(pc, int(tidOf(w, lane)),
           llvm::Twine("misaligned ") + spaceName(space) + " " + what + " of " +
               llvm::Twine(size) + " bytes at address " + hex(addr) +
               ": not a multiple of " + llvm::Twine(align));
    return nullptr;
  }
  switch (space) {
  case StateSpace::generic:
    if (addr - kSharedWindow < kWindowSize)
      return sharedAccess(w, lane, pc, addr - kSharedWindow, size, kind, what);
    if (addr - kLocalWindow < kWindowSize)
      return access(w, lane, pc, StateSpace::local, addr - kLocalWindow, size,
                    1, kind, what);
    return globalAccess(w, lane, pc, addr, size, what, StateSpace::global);
  case StateSpace::global:
  case StateSpace::Const:
    return globalAccess(w, lane, pc, addr, size, what, space);
  case StateSpace::shared:
    return sharedAccess(w, lane, pc, addr, size, kind, what);
  case StateSpace::local: {
    uint64_t per = opts.localBytesPerThread;
    if (addr >= per || per - addr < size) {
      report(pc, int(tidOf(w, lane)),
             llvm::Twine("out-of-bounds local ") + what + " of " +
                 llvm::Twine(size) + " bytes at local address " + hex(addr) +
                 ": each thread has " + llvm::Twine(per) +
                 " bytes of local memory");
      return nullptr;
    }
    if (local.empty())
      local.assign(size_t(per) * warps.size() * 32, 0);
    return local.data() + size_t(tidOf(w, lane)) * per + addr;
  }
  case StateSpace::param:
    report(pc, int(tidOf(w, lane)),
           "the interpreter has no .param space: kernel parameters are the "
           "entry block's arguments");
    return nullptr;
  }
  return nullptr;
}

void Runner::load(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  uint64_t *R = w.regs;
  const unsigned esz = std::max(1u, getBitWidth(in.type) / 8);
  const unsigned total = esz * in.n;
  const bool sgn = isSigned(in.type);
  const uint64_t rmask = maskBits(in.rbits);
  const uint32_t *dst = prog.extra.data() + in.ext;
  const StateSpace space = StateSpace(in.aux);
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    uint64_t addr = R[in.a + l] + uint64_t(in.imm);
    const uint8_t *p =
        access(w, l, pc, space, addr, total, total, Access::Read, "load");
    if (!p)
      return;
    for (unsigned i = 0; i < in.n; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, p + i * esz, esz);
      if (sgn)
        v = uint64_t(signExtend(v, esz * 8));
      R[dst[i] + l] = v & rmask;
    }
  });
}

void Runner::store(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  uint64_t *R = w.regs;
  const unsigned esz = std::max(1u, getBitWidth(in.type) / 8);
  const unsigned total = esz * in.n;
  const uint32_t *src = prog.extra.data() + in.ext;
  const StateSpace space = StateSpace(in.aux);
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    uint64_t addr = R[in.a + l] + uint64_t(in.imm);
    uint8_t *p =
        access(w, l, pc, space, addr, total, total, Access::Write, "store");
    if (!p)
      return;
    for (unsigned i = 0; i < in.n; ++i) {
      uint64_t v = R[src[i] + l];
      std::memcpy(p + i * esz, &v, esz);
    }
  });
}

void Runner::atomic(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  uint64_t *R = w.regs;
  const unsigned esz = getBitWidth(in.type) / 8;
  const StateSpace space = StateSpace(in.aux);
  const AtomicOp op = AtomicOp(in.aux2);
  // Lanes apply their updates one after another, in lane order.
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    uint64_t addr = R[in.a + l] + uint64_t(in.imm);
    uint8_t *p = access(w, l, pc, space, addr, esz, esz, Access::Atomic,
                        in.op == Opc::Atom ? "atom" : "red");
    if (!p)
      return;
    uint64_t old = 0;
    std::memcpy(&old, p, esz);
    uint64_t c = in.c != kNoSlot ? R[in.c + l] : 0;
    uint64_t v = atomicResult(op, in.type, old, R[in.b + l], c);
    std::memcpy(p, &v, esz);
    if (in.r != kNoSlot)
      R[in.r + l] = old;
  });
}

void Runner::cpAsync(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  uint64_t *R = w.regs;
  const unsigned bytes = in.aux;
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    uint64_t srcSize = in.c != kNoSlot ? (R[in.c + l] & 0xffffffff) : bytes;
    if (srcSize > bytes) {
      report(pc, int(tidOf(w, l)),
             "cp.async source size " + llvm::Twine(srcSize) +
                 " exceeds the copy size " + llvm::Twine(bytes));
      return;
    }
    PendingCopy copy;
    copy.dst = uint32_t(R[in.a + l]);
    copy.bytes = uint8_t(bytes);
    copy.pc = pc;
    uint64_t src = R[in.b + l];
    if (src & (bytes - 1)) {
      report(pc, int(tidOf(w, l)),
             "misaligned cp.async source at address " + hex(src) +
                 ": not a multiple of " + llvm::Twine(bytes));
      return;
    }
    if (srcSize) {
      const uint8_t *s = access(w, l, pc, StateSpace::global, src,
                                unsigned(srcSize), 1, Access::Read,
                                "cp.async source read");
      if (!s)
        return;
      std::memcpy(copy.data, s, srcSize);
    }
    if (!access(w, l, pc, StateSpace::shared, R[in.a + l], bytes, bytes,
                Access::AsyncIssue, "cp.async"))
      return;
    w.async[l].open.push_back(copy);
    w.asyncLanes |= 1u << l;
  });
}

void Runner::landGroup(Warp &w, unsigned lane,
                       std::vector<PendingCopy> &group) {
  for (PendingCopy &c : group) {
    uint8_t *p = sharedAccess(w, lane, c.pc, c.dst, c.bytes, Access::AsyncLand,
                              "cp.async write");
    if (!p)
      return;
    std::memcpy(p, c.data, c.bytes);
  }
  group.clear();
}

void Runner::landAll(Warp &w, unsigned lane) {
  LaneAsync &a = w.async[lane];
  while (!a.groups.empty() && !aborted) {
    landGroup(w, lane, a.groups.front());
    a.groups.pop_front();
  }
  landGroup(w, lane, a.open);
  w.asyncLanes &= ~(1u << lane);
}

//===----------------------------------------------------------------------===//
// Warp-level operations
//===----------------------------------------------------------------------===//

/// A warp-level op at `pc`: the lanes in `mask` arrive; if all `required`
/// lanes are there (now or waiting from before), `mask` becomes all of them
/// and the op runs, otherwise the arrivals wait.
bool Runner::arrive(Warp &w, uint32_t pc, uint32_t &mask, uint32_t required) {
  uint32_t waiting = 0;
  forLanes(w.blocked, [&](unsigned l) {
    if (w.pc[l] == pc)
      waiting |= 1u << l;
  });
  uint32_t here = mask | waiting;
  required &= w.exists;
  if (uint32_t gone = required & w.exited & ~here) {
    report(pc, int(tidOf(w, __builtin_ctz(mask))),
           "warp divergence: the op needs lane " +
               llvm::Twine(__builtin_ctz(gone)) + ", which has exited");
    return false;
  }
  if (required & ~here) {
    w.blocked |= mask;
    forLanes(mask, [&](unsigned l) { w.pc[l] = pc; });
    return false;
  }
  w.blocked &= ~waiting;
  mask = here;
  return true;
}

void Runner::shfl(const Instr &in, Warp &w, uint32_t em) {
  uint64_t *R = w.regs;
  uint64_t vals[32];
  for (unsigned l = 0; l < 32; ++l)
    vals[l] = R[in.a + l];
  const ShflMode mode = ShflMode(in.aux);
  forLanes(em, [&](unsigned l) {
    const uint32_t bval = R[in.b + l] & 31, c = uint32_t(R[in.c + l]);
    const uint32_t cval = c & 31, seg = (c >> 8) & 31;
    const int maxLane = int((l & seg) | (cval & ~seg));
    const int minLane = int(l & seg);
    int j;
    bool valid;
    switch (mode) {
    case ShflMode::up:
      j = int(l) - int(bval);
      valid = j >= maxLane;
      break;
    case ShflMode::down:
      j = int(l) + int(bval);
      valid = j <= maxLane;
      break;
    case ShflMode::bfly:
      j = int(l ^ bval);
      valid = j <= maxLane;
      break;
    default: // idx
      j = minLane | int(bval & ~seg);
      valid = j <= maxLane;
      break;
    }
    if (!valid)
      j = int(l);
    R[in.r + l] = vals[j];
    R[in.r2 + l] = valid;
  });
}

void Runner::vote(const Instr &in, Warp &w, uint32_t em) {
  uint64_t *R = w.regs;
  uint32_t ballot = 0;
  forLanes(em, [&](unsigned l) { ballot |= uint32_t(R[in.a + l] & 1) << l; });
  uint64_t v;
  switch (VoteMode(in.aux)) {
  case VoteMode::all:
    v = ballot == em;
    break;
  case VoteMode::any:
    v = ballot != 0;
    break;
  case VoteMode::uni:
    v = ballot == 0 || ballot == em;
    break;
  default:
    v = ballot;
    break;
  }
  forLanes(em, [&](unsigned l) { R[in.r + l] = v; });
}

void Runner::match(const Instr &in, Warp &w, uint32_t em) {
  uint64_t *R = w.regs;
  const uint64_t m = maskBits(getBitWidth(in.type));
  if (MatchMode(in.aux) == MatchMode::all) {
    uint64_t first = R[in.a + __builtin_ctz(em)] & m;
    bool same = true;
    forLanes(em, [&](unsigned l) { same &= (R[in.a + l] & m) == first; });
    forLanes(em, [&](unsigned l) { R[in.r + l] = same ? em : 0; });
    return;
  }
  uint32_t result[32];
  forLanes(em, [&](unsigned l) {
    uint32_t same = 0;
    forLanes(em, [&](unsigned k) {
      if ((R[in.a + k] & m) == (R[in.a + l] & m))
        same |= 1u << k;
    });
    result[l] = same;
  });
  forLanes(em, [&](unsigned l) { R[in.r + l] = result[l]; });
}

void Runner::redux(const Instr &in, Warp &w, uint32_t em) {
  uint64_t *R = w.regs;
  const ReduxOp op = ReduxOp(in.aux);
  const bool sgn = in.type == PTXType::s32;
  uint32_t acc = uint32_t(R[in.a + __builtin_ctz(em)]);
  forLanes(em & (em - 1), [&](unsigned l) {
    uint32_t v = uint32_t(R[in.a + l]);
    switch (op) {
    case ReduxOp::add:
      acc += v;
      break;
    case ReduxOp::min:
      acc = sgn ? uint32_t(std::min(int32_t(acc), int32_t(v))) : std::min(acc, v);
      break;
    case ReduxOp::max:
      acc = sgn ? uint32_t(std::max(int32_t(acc), int32_t(v))) : std::max(acc, v);
      break;
    case ReduxOp::And:
      acc &= v;
      break;
    case ReduxOp::Or:
      acc |= v;
      break;
    case ReduxOp::Xor:
      acc ^= v;
      break;
    }
  });
  forLanes(em, [&](unsigned l) { R[in.r + l] = acc; });
}

namespace {
/// Element `j` (of `perReg`) of a fragment register holding `type` values,
/// as a double (floats) or an integer value in a double (exact for s8/s4).
double fragmentElement(uint64_t reg, unsigned j, PTXType type) {
  const unsigned bits = 32 / getElementsPerRegister(type);
  uint64_t v = (reg >> (j * bits)) & maskBits(bits);
  switch (type) {
  case PTXType::f16:
    return toDouble(v, kF16);
  case PTXType::bf16:
    return toDouble(v, kBF16);
  case PTXType::tf32: // the tensor core reads the top 19 bits
    return toDouble(v & ~0x1fffull, kF32);
  case PTXType::f32:
    return toDouble(v, kF32);
  case PTXType::s8:
  case PTXType::s4:
  case PTXType::s32:
    return double(signExtend(v, bits));
  default:
    return double(v);
  }
}
} // namespace

void Runner::mma(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  if (em != ~0u) {
    report(pc, int(tidOf(w, __builtin_ctz(~em))),
           "mma.sync needs all 32 lanes of the warp");
    return;
  }
  uint64_t *R = w.regs;
  const MmaVariant &v = *prog.mmaVariants[in.aux];
  const MmaShapeInfo s = getMmaShapeInfo(v.shape);
  const uint32_t *d = prog.extra.data() + in.ext;
  const uint32_t *a = d + v.accRegs, *b = a + v.aRegs, *c = b + v.bRegs;
  const unsigned ea = getElementsPerRegister(v.aType);
  const unsigned eb = getElementsPerRegister(v.bType);
  const unsigned ec = getElementsPerRegister(v.accType);
  std::vector<double> A(s.m * s.k), B(s.k * s.n), C(s.m * s.n);
  for (unsigned l = 0; l < 32; ++l) {
    for (unsigned i = 0; i < v.aRegs * ea; ++i) {
      FragmentCoord f = getMmaACoord(v, l, i);
      A[f.row * s.k + f.col] = fragmentElement(R[a[i / ea] + l], i % ea, v.aType);
    }
    for (unsigned i = 0; i < v.bRegs * eb; ++i) {
      FragmentCoord f = getMmaBCoord(v, l, i);
      B[f.row * s.n + f.col] = fragmentElement(R[b[i / eb] + l], i % eb, v.bType);
    }
    for (unsigned i = 0; i < v.accRegs * ec; ++i) {
      FragmentCoord f = getMmaAccCoord(v, l, i);
      C[f.row * s.n + f.col] =
          fragmentElement(R[c[i / ec] + l], i % ec, v.accType);
    }
  }
  const bool isInt = !isFloat(v.accType);
  std::vector<uint64_t> D(s.m * s.n);
  for (unsigned i = 0; i < s.m; ++i)
    for (unsigned j = 0; j < s.n; ++j) {
      if (isInt) {
        int64_t acc = int64_t(C[i * s.n + j]);
        for (unsigned k = 0; k < s.k; ++k)
          acc += int64_t(A[i * s.k + k]) * int64_t(B[k * s.n + j]);
        if (in.flags & FSatFinite)
          acc = std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX);
        D[i * s.n + j] = uint64_t(acc) & 0xffffffff;
      } else {
        double acc = C[i * s.n + j];
        for (unsigned k = 0; k < s.k; ++k)
          acc += A[i * s.k + k] * B[k * s.n + j];
        D[i * s.n + j] = fromDouble(acc, formatOf(v.accType),
                                    RoundMode::NearestEven);
      }
    }
  const unsigned bits = 32 / ec;
  for (unsigned l = 0; l < 32; ++l) {
    uint64_t out[4] = {};
    for (unsigned i = 0; i < v.accRegs * ec; ++i) {
      FragmentCoord f = getMmaAccCoord(v, l, i);
      out[i / ec] |= (D[f.row * s.n + f.col] & maskBits(bits)) << (bits * (i % ec));
    }
    for (unsigned r = 0; r < v.accRegs; ++r)
      R[d[r] + l] = out[r];
  }
}

void Runner::ldmatrix(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  uint64_t *R = w.regs;
  uint16_t M[4][8][8];
  for (unsigned m = 0; m < in.n; ++m)
    for (unsigned r = 0; r < 8; ++r) {
      unsigned lane = m * 8 + r;
      const uint8_t *p = access(w, lane, pc, StateSpace::shared, R[in.a + lane],
                                16, 16, Access::Read, "ldmatrix row read");
      if (!p)
        return;
      std::memcpy(M[m][r], p, 16);
    }
  const bool trans = in.flags & FTrans;
  const uint32_t *dst = prog.extra.data() + in.ext;
  forLanes(em, [&](unsigned t) {
    unsigned row = t / 4, col = 2 * (t % 4);
    for (unsigned m = 0; m < in.n; ++m) {
      uint32_t lo = trans ? M[m][col][row] : M[m][row][col];
      uint32_t hi = trans ? M[m][col + 1][row] : M[m][row][col + 1];
      R[dst[m] + t] = lo | (hi << 16);
    }
  });
}

void Runner::stmatrix(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  uint64_t *R = w.regs;
  uint16_t M[4][8][8] = {};
  const bool trans = in.flags & FTrans;
  const uint32_t *src = prog.extra.data() + in.ext;
  forLanes(em, [&](unsigned t) {
    unsigned row = t / 4, col = 2 * (t % 4);
    for (unsigned m = 0; m < in.n; ++m) {
      uint32_t v = uint32_t(R[src[m] + t]);
      (trans ? M[m][col][row] : M[m][row][col]) = uint16_t(v);
      (trans ? M[m][col + 1][row] : M[m][row][col + 1]) = uint16_t(v >> 16);
    }
  });
  for (unsigned m = 0; m < in.n; ++m)
    for (unsigned r = 0; r < 8; ++r) {
      unsigned lane = m * 8 + r;
      uint8_t *p = access(w, lane, pc, StateSpace::shared, R[in.a + lane], 16,
                          16, Access::Write, "stmatrix row write");
      if (!p)
        return;
      std::memcpy(p, M[m][r], 16);
    }
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

uint64_t Runner::specialRegister(SpecialReg reg, const Warp &w,
                                 unsigned lane) {
  const unsigned tid = tidOf(w, lane);
  switch (reg) {
  case SpecialReg::tid_x:
    return tid % block.x;
  case SpecialReg::tid_y:
    return tid / block.x % block.y;
  case SpecialReg::tid_z:
    return tid / (block.x * block.y);
  case SpecialReg::ntid_x:
    return block.x;
  case SpecialReg::ntid_y:
    return block.y;
  case SpecialReg::ntid_z:
    return block.z;
  case SpecialReg::ctaid_x:
    return ctaid[0];
  case SpecialReg::ctaid_y:
    return ctaid[1];
  case SpecialReg::ctaid_z:
    return ctaid[2];
  case SpecialReg::nctaid_x:
    return grid.x;
  case SpecialReg::nctaid_y:
    return grid.y;
  case SpecialReg::nctaid_z:
    return grid.z;
  case SpecialReg::laneid:
    return lane;
  case SpecialReg::warpid:
    return w.index;
  case SpecialReg::nwarpid:
    return warps.size();
  case SpecialReg::smid:
    return 0;
  case SpecialReg::nsmid:
    return 1;
  case SpecialReg::clock:
    return warpInstrs & 0xffffffff;
  case SpecialReg::clock64:
    return warpInstrs;
  case SpecialReg::globaltimer:
    return warpInstrs * 1000;
  case SpecialReg::dynamic_smem_size:
    return opts.dynamicSharedBytes;
  case SpecialReg::total_smem_size:
    return sharedSize;
  case SpecialReg::lanemask_eq:
    return 1u << lane;
  case SpecialReg::lanemask_lt:
    return (1u << lane) - 1;
  case SpecialReg::lanemask_le:
    return uint32_t((2ull << lane) - 1);
  case SpecialReg::lanemask_gt:
    return ~uint32_t((2ull << lane) - 1);
  case SpecialReg::lanemask_ge:
    return ~((1u << lane) - 1);
  }
  return 0;
}

void Runner::copyEdge(const Edge &e, uint64_t *R, uint32_t lanes) {
  if (!e.copyCount)
    return;
  const std::pair<uint32_t, uint32_t> *c = prog.copies.data() + e.copyBegin;
  if (!e.needsTemp) {
    for (uint32_t i = 0; i < e.copyCount; ++i)
      forLanes(lanes, [&](unsigned l) { R[c[i].second + l] = R[c[i].first + l]; });
    return;
  }
  std::vector<uint64_t> tmp(e.copyCount * 32);
  for (uint32_t i = 0; i < e.copyCount; ++i)
    forLanes(lanes, [&](unsigned l) { tmp[i * 32 + l] = R[c[i].first + l]; });
  for (uint32_t i = 0; i < e.copyCount; ++i)
    forLanes(lanes, [&](unsigned l) { R[c[i].second + l] = tmp[i * 32 + l]; });
}

void Runner::arith(const Instr &in, uint64_t *R, uint32_t em) {
  const PTXType t = in.type;
  const uint32_t r = in.r, a = in.a, b = in.b, c = in.c;
  switch (in.op) {
  case Opc::Add:
  case Opc::Sub:
  case Opc::Mul:
  case Opc::Div:
  case Opc::Min:
  case Opc::Max:
    if (isFloat(t)) {
      if (t == PTXType::f32 && !in.flags &&
          (in.rnd == kNoRnd || in.rnd == uint8_t(Rounding::rn)) &&
          in.op != Opc::Min && in.op != Opc::Max) {
        // The common case: IEEE f32 round-to-nearest on the host.
        auto f = [&](auto op) {
          forLanes(em, [&](unsigned l) {
            float v = op(bitsToF32(uint32_t(R[a + l])),
                         bitsToF32(uint32_t(R[b + l])));
            uint32_t bits = f32ToBits(v);
            R[r + l] = (bits & 0x7fffffff) > 0x7f800000 ? 0x7fffffff : bits;
          });
        };
        if (in.op == Opc::Add)
          f([](float x, float y) { return x + y; });
        else if (in.op == Opc::Sub)
          f([](float x, float y) { return x - y; });
        else if (in.op == Opc::Mul)
          f([](float x, float y) { return x * y; });
        else
          f([](float x, float y) { return x / y; });
        return;
      }
      forLanes(em, [&](unsigned l) {
        R[r + l] = floatBinary(in.op, in, R[a + l], R[b + l]);
      });
      return;
    }
    if ((in.op == Opc::Add || in.op == Opc::Sub) && !(in.flags & FSat)) {
      const uint64_t m = maskBits(getBitWidth(t));
      if (in.op == Opc::Add)
        forLanes(em, [&](unsigned l) { R[r + l] = (R[a + l] + R[b + l]) & m; });
      else
        forLanes(em, [&](unsigned l) { R[r + l] = (R[a + l] - R[b + l]) & m; });
      return;
    }
    forLanes(em, [&](unsigned l) {
      R[r + l] = intBinary(in.op, in, R[a + l], R[b + l]);
    });
    return;
  case Opc::Rem:
    forLanes(em, [&](unsigned l) {
      R[r + l] = intBinary(Opc::Rem, in, R[a + l], R[b + l]);
    });
    return;
  case Opc::Mad:
    if (!isFloat(t)) {
      if (MulMode(in.aux) == MulMode::lo) {
        const uint64_t m = maskBits(getBitWidth(t));
        forLanes(em, [&](unsigned l) {
          R[r + l] = (R[a + l] * R[b + l] + R[c + l]) & m;
        });
        return;
      }
      forLanes(em, [&](unsigned l) {
        R[r + l] = intMad(in, R[a + l], R[b + l], R[c + l]);
      });
      return;
    }
    [[fallthrough]];
  case Opc::Fma:
    forLanes(em, [&](unsigned l) {
      R[r + l] = floatFma(in, R[a + l], R[b + l], R[c + l]);
    });
    return;
  case Opc::Abs:
  case Opc::Neg:
    if (isFloat(t))
      forLanes(em, [&](unsigned l) { R[r + l] = floatUnary(in.op, in, R[a + l]); });
    else
      forLanes(em, [&](unsigned l) {
        R[r + l] = intBinary(in.op, in, R[a + l], 0);
      });
    return;
  case Opc::And:
  case Opc::Or:
  case Opc::Xor:
  case Opc::Not: {
    const uint64_t m = maskBits(getBitWidth(t));
    if (in.op == Opc::And)
      forLanes(em, [&](unsigned l) { R[r + l] = R[a + l] & R[b + l] & m; });
    else if (in.op == Opc::Or)
      forLanes(em, [&](unsigned l) { R[r + l] = (R[a + l] | R[b + l]) & m; });
    else if (in.op == Opc::Xor)
      forLanes(em, [&](unsigned l) { R[r + l] = (R[a + l] ^ R[b + l]) & m; });
    else
      forLanes(em, [&](unsigned l) { R[r + l] = ~R[a + l] & m; });
    return;
  }
  case Opc::Shl:
  case Opc::Shr:
  case Opc::Popc:
  case Opc::Clz:
  case Opc::Brev:
  case Opc::Bfe:
    forLanes(em, [&](unsigned l) {
      R[r + l] = bitOp(in.op, in, R[a + l], b != kNoSlot ? R[b + l] : 0,
                       c != kNoSlot ? R[c + l] : 0, 0);
    });
    return;
  case Opc::Bfi:
    forLanes(em, [&](unsigned l) {
      R[r + l] = bitOp(in.op, in, R[a + l], R[b + l], R[c + l], R[in.d + l]);
    });
    return;
  case Opc::Prmt:
    forLanes(em, [&](unsigned l) {
      R[r + l] = permute(uint32_t(R[a + l]), uint32_t(R[b + l]),
                         uint32_t(R[c + l]), in.aux);
    });
    return;
  case Opc::Lop3:
    forLanes(em, [&](unsigned l) {
      R[r + l] = lop3(uint32_t(R[a + l]), uint32_t(R[b + l]),
                      uint32_t(R[c + l]), in.aux);
    });
    return;
  case Opc::Selp:
    forLanes(em, [&](unsigned l) {
      R[r + l] = (R[c + l] & 1) ? R[a + l] : R[b + l];
    });
    return;
  case Opc::Setp: {
    const bool combine = in.aux2 != UINT32_MAX;
    forLanes(em, [&](unsigned l) {
      bool v = setpCompare(in, R[a + l], R[b + l]);
      if (combine) {
        bool q = R[c + l] & 1;
        switch (BoolOp(in.aux2)) {
        case BoolOp::And:
          v = v && q;
          break;
        case BoolOp::Or:
          v = v || q;
          break;
        case BoolOp::Xor:
          v = v != q;
          break;
        }
      }
      R[r + l] = v;
    });
    return;
  }
  case Opc::Cvt:
    forLanes(em, [&](unsigned l) { R[r + l] = convert(in, R[a + l]); });
    return;
  case Opc::CvtPack:
    forLanes(em, [&](unsigned l) {
      R[r + l] = convertPack(in, R[a + l], R[b + l]);
    });
    return;
  case Opc::Ex2:
  case Opc::Lg2:
  case Opc::Sin:
  case Opc::Cos:
  case Opc::Tanh:
  case Opc::Rcp:
  case Opc::Sqrt:
  case Opc::Rsqrt:
    forLanes(em, [&](unsigned l) {
      R[r + l] = specialFunction(in.op, in, R[a + l]);
    });
    return;
  default:
    return;
  }
}

void Runner::execute(Warp &w, uint32_t pc, uint32_t mask) {
  uint64_t *R = w.regs;
  const Instr *code = prog.code.data();
  for (;;) {
    const Instr &in = code[pc];
    uint32_t em = guardMask(in, R, mask);
    threadInstrs += __builtin_popcount(mask);
    ++warpInstrs;
    switch (in.op) {
    case Opc::Const:
      forLanes(em, [&](unsigned l) { R[in.r + l] = uint64_t(in.imm); });
      break;
    case Opc::Mov: {
      const uint64_t m = maskBits(in.rbits);
      forLanes(em, [&](unsigned l) { R[in.r + l] = R[in.a + l] & m; });
      break;
    }
    case Opc::Pack: {
      const unsigned bits = getBitWidth(in.type) / in.n;
      const uint32_t *parts = prog.extra.data() + in.ext;
      forLanes(em, [&](unsigned l) {
        uint64_t v = 0;
        for (unsigned i = 0; i < in.n; ++i)
          v |= (R[parts[i] + l] & maskBits(bits)) << (i * bits);
        R[in.r + l] = v;
      });
      break;
    }
    case Opc::Unpack: {
      const unsigned bits = getBitWidth(in.type) / in.n;
      const uint32_t *parts = prog.extra.data() + in.ext;
      forLanes(em, [&](unsigned l) {
        uint64_t v = R[in.a + l];
        for (unsigned i = 0; i < in.n; ++i)
          R[parts[i] + l] = (v >> (i * bits)) & maskBits(bits);
      });
      break;
    }
    case Opc::Sreg:
      forLanes(em, [&](unsigned l) {
        R[in.r + l] = specialRegister(SpecialReg(in.aux), w, l) &
                      maskBits(in.rbits);
      });
      break;
    case Opc::AddrOf:
      forLanes(em, [&](unsigned l) {
        R[in.r + l] = uint64_t(in.imm) & maskBits(in.rbits);
      });
      break;
    case Opc::Ld:
      load(in, w, pc, em);
      if (aborted)
        return;
      break;
    case Opc::St:
      store(in, w, pc, em);
      if (aborted)
        return;
      break;
    case Opc::Cvta: {
      const StateSpace space = StateSpace(in.aux);
      const uint64_t base = space == StateSpace::shared  ? kSharedWindow
                            : space == StateSpace::local ? kLocalWindow
                                                         : 0;
      const bool to = in.flags & FTo;
      const uint64_t m = maskBits(in.rbits);
      forLanes(em, [&](unsigned l) {
        R[in.r + l] = (to ? R[in.a + l] - base : R[in.a + l] + base) & m;
      });
      break;
    }
    case Opc::Atom:
    case Opc::Red:
      atomic(in, w, pc, em);
      if (aborted)
        return;
      break;
    case Opc::Nop:
      break;
    case Opc::BarSync: {
      // Waiting lanes stay at this pc until releaseBarriers; lanes whose
      // guard is false go on.
      forLanes(em, [&](unsigned l) { w.pc[l] = pc; });
      w.blocked |= em;
      mask &= ~em;
      if (!mask)
        return;
      break;
    }
    case Opc::BarArrive:
      arrived[in.aux] += __builtin_popcount(em);
      break;
    case Opc::Shfl:
    case Opc::Vote:
    case Opc::Match:
    case Opc::Redux: {
      uint32_t required = 0;
      forLanes(mask, [&](unsigned l) { required |= uint32_t(R[in.d + l]); });
      if (!arrive(w, pc, mask, required))
        return;
      em = guardMask(in, R, mask);
      if (!em)
        break;
      if (in.op == Opc::Shfl)
        shfl(in, w, em);
      else if (in.op == Opc::Vote)
        vote(in, w, em);
      else if (in.op == Opc::Match)
        match(in, w, em);
      else
        redux(in, w, em);
      break;
    }
    case Opc::ActiveMask:
      forLanes(em, [&](unsigned l) { R[in.r + l] = mask; });
      break;
    case Opc::Mma:
    case Opc::LdMatrix:
    case Opc::StMatrix:
      // .aligned: every lane of the warp executes the same instruction.
      if (!arrive(w, pc, mask, w.exists))
        return;
      em = guardMask(in, R, mask);
      if (in.op == Opc::Mma)
        mma(in, w, pc, em);
      else if (in.op == Opc::LdMatrix)
        ldmatrix(in, w, pc, em);
      else
        stmatrix(in, w, pc, em);
      if (aborted)
        return;
      break;
    case Opc::CpAsync:
      cpAsync(in, w, pc, em);
      if (aborted)
        return;
      break;
    case Opc::CpCommit:
      forLanes(em, [&](unsigned l) {
        LaneAsync &as = w.async[l];
        as.groups.push_back(std::move(as.open));
        as.open.clear();
        w.asyncLanes |= 1u << l;
      });
      break;
    case Opc::CpWaitGroup:
      forLanes(em & w.asyncLanes, [&](unsigned l) {
        LaneAsync &as = w.async[l];
        while (as.groups.size() > in.aux && !aborted) {
          landGroup(w, l, as.groups.front());
          as.groups.pop_front();
        }
      });
      if (aborted)
        return;
      break;
    case Opc::CpWaitAll:
      forLanes(em & w.asyncLanes, [&](unsigned l) { landAll(w, l); });
      if (aborted)
        return;
      break;
    case Opc::Bra: {
      const Edge &e = prog.edges[in.aux];
      copyEdge(e, R, mask);
      // Converged: no other group to schedule (runWarp checks the
      // instruction limit, so loops go back to it once over the limit).
      if (mask == w.runnable() && threadInstrs <= instrLimit) {
        pc = e.target;
        continue;
      }
      forLanes(mask, [&](unsigned l) { w.pc[l] = e.target; });
      return;
    }
    case Opc::CondBra: {
      uint32_t taken = 0;
      forLanes(mask, [&](unsigned l) { taken |= uint32_t(R[in.a + l] & 1) << l; });
      const Edge &te = prog.edges[in.aux], &fe = prog.edges[in.aux2];
      const uint32_t notTaken = mask & ~taken;
      copyEdge(te, R, taken);
      copyEdge(fe, R, notTaken);
      if (mask == w.runnable() && (taken == 0 || notTaken == 0) &&
          threadInstrs <= instrLimit) {
        pc = taken ? te.target : fe.target;
        continue;
      }
      forLanes(taken, [&](unsigned l) { w.pc[l] = te.target; });
      forLanes(notTaken, [&](unsigned l) { w.pc[l] = fe.target; });
      return;
    }
    case Opc::Exit:
      forLanes(mask & w.asyncLanes, [&](unsigned l) { landAll(w, l); });
      forLanes(mask, [&](unsigned l) { w.pc[l] = pc; });
      w.exited |= mask;
      return;
    case Opc::Trap:
      if (em) {
        report(pc, int(tidOf(w, __builtin_ctz(em))), "trap executed");
        return;
      }
      break;
    default:
      arith(in, R, em);
      break;
    }
    ++pc;
  }
}

LaunchResult kaio::interp::detail::runKernel(Interpreter::Impl &impl,
                                             const Program &program, Dim3 grid,
                                             Dim3 block,
                                             llvm::ArrayRef<uint64_t> args,
                                             const LaunchOptions &options) {
  LaunchResult result;
  Runner(impl, program, grid, block, args, options, result).run();
  return result;
}
