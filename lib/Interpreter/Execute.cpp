//===- Execute.cpp - run a decoded kernel over a grid ---------------------===//
//
// Clusters run one after another (a cluster is one block unless the launch
// names cluster dimensions); the blocks of a cluster take turns, each running
// warp by warp until all its warps wait. A warp executes
// a group of lanes that share a pc, one instruction at a time across the
// group. When lanes diverge, the group with the lowest pc runs first (join
// points come later in block order, so the lanes meet there again). A group
// stops at a branch, at a bar.sync (its lanes wait for the block), at a warp
// collective whose other lanes have not arrived yet, or at exit. When every
// warp is waiting, barriers are released (or diagnosed as divergent).
//
// Memory.cpp has the memory instructions and the sanitizer's shared-memory
// shadow; WarpOps.cpp the warp-level collectives.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

void Runner::report(uint32_t pc, int tid, const llvm::Twine &what) {
  auto coords = [](const uint32_t id[3]) {
    return "(" + std::to_string(id[0]) + "," + std::to_string(id[1]) + "," +
           std::to_string(id[2]) + ")";
  };
  // During a remote access the thread belongs to the issuing CTA.
  const uint32_t *block = issuer >= 0 ? cta(unsigned(issuer)).ctaid : ctaid;
  std::string msg = formatLocation(prog.locs[pc]) + ": " + what.str() +
                    " (kernel '" + prog.name + "', block " + coords(block);
  if (tid >= 0)
    msg += ", thread " + threadName(unsigned(tid) % kRemoteTid);
  if (issuer >= 0)
    msg += ", accessing the shared memory of block " + coords(ctaid);
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
  cluster = opts.cluster;
  clusterSize = unsigned(cluster.count());
  sharedSize = prog.dynamicSharedOffset + opts.dynamicSharedBytes;
  unsigned numWarps = (numThreads + 31) / 32;
  ctas.resize(clusterSize);
  for (unsigned r = 0; r < clusterSize; ++r) {
    CtaState &c = ctas[r];
    c.rank = r;
    c.warps.resize(numWarps);
    c.regs.assign(size_t(numWarps) * prog.numSlots * 32, 0);
    for (unsigned i = 0; i < numWarps; ++i) {
      c.warps[i].index = i;
      c.warps[i].regs = c.regs.data() + size_t(i) * prog.numSlots * 32;
      unsigned lanes = std::min(32u, numThreads - 32 * i);
      c.warps[i].exists = lanes == 32 ? ~0u : (1u << lanes) - 1;
    }
    c.shared.assign(sharedSize, 0);
    c.shadow.assign(sharedSize, ShadowByte());
  }
  // The running CTA's slot holds rank 0's state until the first switch.
  static_cast<CtaState &>(*this) = std::move(ctas[0]);
  ctas[0] = CtaState();
  if (opts.profile)
    prof = std::make_unique<ProfileRecorder>(prog);
  for (uint32_t z = 0; z < grid.z && !aborted; z += cluster.z)
    for (uint32_t y = 0; y < grid.y && !aborted; y += cluster.y)
      for (uint32_t x = 0; x < grid.x && !aborted; x += cluster.x)
        runCluster(x, y, z);
  // A failed launch still reports what ran up to the failure.
  if (prof)
    prof->finish(*opts.profile, grid, block);
  result.instructions = threadInstrs;
  result.warpInstructions = warpInstrs;
  result.success = result.errors.empty();
}

void Runner::activate(unsigned r) {
  if (r == rank)
    return;
  CtaState &self = *this;
  std::swap(self, ctas[rank]);
  std::swap(self, ctas[r]);
}

void Runner::startBlock(const uint32_t id[3]) {
  std::copy(id, id + 3, ctaid);
  ++epoch;
  // Serials follow the blocks' linear index from firstBlockSerial, so a
  // serial names its block (global race reports).
  blockSerial = firstBlockSerial + id[0] + grid.x * (id[1] + grid.y * id[2]);
  std::fill(std::begin(arrived), std::end(arrived), 0);
  mbarriers.clear();
  wgmmaInFlight = 0;
  phaseCompleted = false;
  warpgroupWaiting.clear();
  for (Warp &w : warps) {
    w.wgmmaOpen.clear();
    w.wgmmaGroups.clear();
    w.exited = 0;
    w.blocked = 0;
    w.clusterArrived = 0;
    std::fill(std::begin(w.pc), std::end(w.pc), 0);
    for (auto [i, slotOff] : llvm::enumerate(prog.paramSlots)) {
      uint64_t v = args[i] & maskBits(prog.paramBits[i]);
      std::fill(w.regs + slotOff, w.regs + slotOff + 32, v);
    }
  }
}

void Runner::runCluster(uint32_t bx, uint32_t by, uint32_t bz) {
  for (unsigned r = 0; r < clusterSize; ++r) {
    activate(r);
    const uint32_t id[3] = {bx + r % cluster.x,
                            by + r / cluster.x % cluster.y,
                            bz + r / (cluster.x * cluster.y)};
    startBlock(id);
  }
  for (;;) {
    // Each block runs alone as far as it can: its warps until all wait or
    // have exited, then whatever of its own barriers can be released, and
    // again. Running one block far ahead of the others (which may not
    // have started) exposes a missing cluster barrier: a multicast to a
    // block that has not initialised its mbarrier yet, a read of another
    // block's shared memory before it was written.
    for (unsigned r = 0; r < clusterSize; ++r) {
      activate(r);
      for (;;) {
        for (Warp &w : warps) {
          if (w.runnable())
            runWarp(w);
          if (aborted)
            return;
        }
        // (A warpgroup's last warp at wgmma.wait_group releases the
        // others, which may have run before it.)
        bool anyRunnable = false;
        for (Warp &w : warps)
          anyRunnable |= w.runnable() != 0;
        if (anyRunnable) {
          // A warp stopped after completing an mbarrier phase: wake its
          // waiters, then run everyone again.
          landAllBulk();
          releaseMBarrierWaiters();
          if (aborted)
            return;
          continue;
        }
        if (allExited() || !releaseBarriers(/*reportStuck=*/false))
          break;
      }
      if (aborted)
        return;
    }
    // Another block's cluster arrival or mbarrier phase may have woken
    // one that ran before it.
    bool clusterExited = true, anyRunnable = false;
    for (unsigned r = 0; r < clusterSize; ++r) {
      clusterExited &= cta(r).allExited();
      for (const Warp &w : cta(r).warps)
        anyRunnable |= w.runnable() != 0;
    }
    if (anyRunnable)
      continue;
    if (clusterExited) {
      // Bulk copies nobody waited for still land.
      for (unsigned r = 0; r < clusterSize && !aborted; ++r) {
        activate(r);
        landAllBulk();
      }
      return;
    }
    // Every block waits: the cluster barrier, then what the other blocks
    // did for each (remote arrivals, multicast copies); a deadlock is
    // reported only when no block of the cluster can move.
    if (releaseClusterBarrier())
      continue;
    bool released = false;
    for (unsigned r = 0; r < clusterSize && !aborted; ++r) {
      activate(r);
      if (!allExited())
        released |= releaseBarriers(/*reportStuck=*/false);
    }
    if (aborted)
      return;
    if (released)
      continue;
    // Describe a block waiting on an mbarrier if there is one (the likely
    // cause: its waiters hold the others at their barriers), else the
    // first that has not exited.
    auto waitsOnMBarrier = [&] {
      for (const Warp &w : warps)
        for (uint32_t m = w.blocked & ~w.exited; m; m &= m - 1)
          if (prog.code[w.pc[__builtin_ctz(m)]].op == Opc::MbarTryWait)
            return true;
      return false;
    };
    int stuck = -1;
    for (unsigned r = 0; r < clusterSize && stuck < 0; ++r) {
      activate(r);
      if (waitsOnMBarrier())
        stuck = int(r);
    }
    for (unsigned r = 0; r < clusterSize && stuck < 0; ++r) {
      activate(r);
      if (!allExited())
        stuck = int(r);
    }
    if (stuck >= 0) {
      activate(unsigned(stuck));
      releaseBarriers(/*reportStuck=*/true);
    }
    return;
  }
}

void Runner::runWarp(Warp &w) {
  while (!aborted) {
    uint32_t runnable = w.runnable();
    if (!runnable)
      return;
    if (phaseCompleted) {
      // Let the waiters of the completed phase run first.
      phaseCompleted = false;
      return;
    }
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
bool Runner::releaseBarriers(bool reportStuck) {
  // mbarrier waits first: their copies may land now that nothing else runs.
  landAllBulk();
  if (aborted || releaseMBarrierWaiters())
    return !aborted;
  unsigned waiting[16] = {};
  uint32_t firstPc[16], count[16] = {};
  bool mixedPcs[16] = {};
  int firstTid[16];
  std::fill(std::begin(firstPc), std::end(firstPc), UINT32_MAX);
  unsigned live = 0, collectiveWaiters = 0, mbarrierWaiters = 0,
           clusterWaiters = 0;
  uint32_t collectivePc = 0, mbarrierPc = 0, clusterPc = 0;
  int collectiveTid = -1, mbarrierTid = -1, clusterTid = -1;
  for (Warp &w : warps) {
    live += __builtin_popcount(w.exists & ~w.exited);
    forLanes(w.blocked & ~w.exited, [&](unsigned l) {
      uint32_t pc = w.pc[l];
      const Instr &in = prog.code[pc];
      if (in.op == Opc::MbarTryWait) {
        if (!mbarrierWaiters++) {
          mbarrierPc = pc;
          mbarrierTid = int(tidOf(w, l));
        }
        return;
      }
      if (in.op == Opc::ClusterWait) {
        if (!clusterWaiters++) {
          clusterPc = pc;
          clusterTid = int(tidOf(w, l));
        }
        return;
      }
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
  if (!reportStuck)
    return false;
  // Nothing can move: describe the first waiter.
  if (mbarrierWaiters) {
    const Warp &w = warps[unsigned(mbarrierTid) / 32];
    const Instr &in = prog.code[mbarrierPc];
    uint32_t addr =
        uint32_t(ownOffset(w.regs[in.a + unsigned(mbarrierTid) % 32]));
    const MBarrier &mb = mbarriers[addr];
    report(mbarrierPc, mbarrierTid,
           "mbarrier deadlock: " + llvm::Twine(mbarrierWaiters) +
               " thread(s) wait on mbarrier phases that can never complete "
               "(this one at shared address " +
               hex(addr) + ": " + llvm::Twine(mb.pending) + " of " +
               llvm::Twine(mb.expected) + " arrivals and " +
               llvm::Twine(mb.tx) + " transaction bytes missing, " +
               llvm::Twine(mb.phase) + " phase(s) completed)");
    return false;
  }
  if (clusterWaiters) {
    auto [clusterLive, clusterArrived] = clusterArrivals();
    report(clusterPc, clusterTid,
           "cluster barrier deadlock: " + llvm::Twine(clusterWaiters) +
               " thread(s) of this block wait at barrier.cluster.wait; " +
               llvm::Twine(clusterArrived) + " of the cluster's " +
               llvm::Twine(clusterLive) +
               " live threads arrived (barrier.cluster.arrive)");
    return false;
  }
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
  case SpecialReg::clusterid_x:
    return ctaid[0] / cluster.x;
  case SpecialReg::clusterid_y:
    return ctaid[1] / cluster.y;
  case SpecialReg::clusterid_z:
    return ctaid[2] / cluster.z;
  case SpecialReg::nclusterid_x:
    return grid.x / cluster.x;
  case SpecialReg::nclusterid_y:
    return grid.y / cluster.y;
  case SpecialReg::nclusterid_z:
    return grid.z / cluster.z;
  case SpecialReg::cluster_ctaid_x:
    return ctaid[0] % cluster.x;
  case SpecialReg::cluster_ctaid_y:
    return ctaid[1] % cluster.y;
  case SpecialReg::cluster_ctaid_z:
    return ctaid[2] % cluster.z;
  case SpecialReg::cluster_nctaid_x:
    return cluster.x;
  case SpecialReg::cluster_nctaid_y:
    return cluster.y;
  case SpecialReg::cluster_nctaid_z:
    return cluster.z;
  case SpecialReg::cluster_ctarank:
    return rank;
  case SpecialReg::cluster_nctarank:
    return clusterSize;
  case SpecialReg::is_explicit_cluster:
    return clusterSize > 1;
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
    // Warp-level ops are counted when they run, after their lanes arrive.
    if (prof && !isWarpCollective(in.op)) {
      prof->issue(pc, mask, em);
      if (isMemoryAccess(in.op))
        prof->memory(pc, in, R, em);
    }
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
    case Opc::AddrOf: {
      // A shared variable (aux 1) of a cluster's CTA of rank > 0: its own
      // cluster address (Runner.h).
      const uint64_t base = in.aux && clusterSize > 1 && rank > 0
                                ? uint64_t(rank + 1) * kClusterWindow
                                : 0;
      forLanes(em, [&](unsigned l) {
        R[in.r + l] = (base + uint64_t(in.imm)) & maskBits(in.rbits);
      });
      break;
    }
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
      const uint64_t base =
          space == StateSpace::shared || space == StateSpace::shared_cluster
              ? kSharedWindow
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
    case Opc::Redux:
    case Opc::Elect: {
      uint32_t required = 0;
      forLanes(mask, [&](unsigned l) { required |= uint32_t(R[in.d + l]); });
      if (!arrive(w, pc, mask, required))
        return;
      em = guardMask(in, R, mask);
      if (prof)
        prof->issue(pc, mask, em);
      if (!em)
        break;
      if (in.op == Opc::Shfl)
        shfl(in, w, em);
      else if (in.op == Opc::Vote)
        vote(in, w, em);
      else if (in.op == Opc::Match)
        match(in, w, em);
      else if (in.op == Opc::Redux)
        redux(in, w, em);
      else
        elect(in, w, em);
      break;
    }
    case Opc::ActiveMask:
      forLanes(em, [&](unsigned l) { R[in.r + l] = mask; });
      break;
    case Opc::Mma:
    case Opc::LdMatrix:
    case Opc::StMatrix:
    case Opc::Wgmma:
    case Opc::WarpSync:
      // .aligned: every lane of the warp executes the same instruction.
      if (!arrive(w, pc, mask, w.exists))
        return;
      if (in.op == Opc::WarpSync && in.aux == kWgmmaWait &&
          !warpgroupWait(in, w, pc, mask))
        return;
      em = guardMask(in, R, mask);
      if (prof) {
        prof->issue(pc, mask, em);
        if ((in.op == Opc::LdMatrix || in.op == Opc::StMatrix) && em)
          prof->memory(pc, in, R, em);
      }
      if (in.op == Opc::Mma)
        mma(in, w, pc, em);
      else if (in.op == Opc::LdMatrix)
        ldmatrix(in, w, pc, em);
      else if (in.op == Opc::StMatrix)
        stmatrix(in, w, pc, em);
      else if (in.op == Opc::Wgmma && em)
        wgmma(in, w, pc, em);
      else if (em)
        wgmmaGroupOp(in, w);
      if (aborted)
        return;
      break;
    case Opc::MbarInit:
    case Opc::MbarInval:
    case Opc::MbarArrive:
    case Opc::MbarExpectTx:
    case Opc::MbarTryWait:
    case Opc::BulkTensorLoad:
    case Opc::BulkTensorStore:
    case Opc::BulkLoad:
    case Opc::BulkStore:
    case Opc::Mapa:
    case Opc::ClusterArrive:
    case Opc::ClusterWait:
      if (!asyncOp(in, w, pc, mask, em))
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
      if (prof && taken && notTaken)
        prof->divergentBranch(pc);
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
