//===- HopperOps.cpp - mbarriers and bulk (TMA) copies --------------------===//
//
// The sm_90 asynchronous machinery and thread block clusters:
//
// - mbarrier objects live at 8-byte aligned shared addresses; their state
//   (expected and pending arrivals, transaction bytes, completed phases) is
//   kept beside shared memory. A phase completes when every expected
//   arrival has happened and the transaction count is back to zero; the
//   completion advances the race detector's epoch, as a barrier does.
// - mbarrier.try_wait blocks the waiting lanes until the phase completes
//   (the hardware returns false after a while and the kernel loops; blocking
//   is the same program without the spinning). A wait no arrival or copy
//   can ever satisfy is reported as a deadlock instead of hanging.
// - Bulk copies into shared memory (cp.async.bulk[.tensor]) read global
//   memory at issue, mark their destination pending and land when a thread
//   waits on their mbarrier (or nothing else can run): a read of the
//   destination before the phase completes is an error. With
//   .multicast::cluster the same bytes land, and complete on the mbarrier
//   at the same offset, in every CTA of the mask.
// - Bulk copies out of shared memory complete at issue.
// - Clusters: the CTAs of a cluster run side by side (Execute.cpp). mapa
//   names another CTA's variable; `.shared::cluster` loads, stores, atomics
//   and mbarrier arrivals reach it (an access to a CTA whose threads have
//   all exited is reported). barrier.cluster.arrive/wait is one barrier
//   for every live thread of the cluster; its completion orders shared and
//   global accesses across the cluster's CTAs.
// Wgmma.cpp has wgmma and elect.sync.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "Kaio/Dialect/PTX/IR/Swizzle.h"
#include "Kaio/Runtime/TensorMapDesc.h"


using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

bool Runner::asyncOp(const Instr &in, Warp &w, uint32_t pc, uint32_t &mask,
                     uint32_t em) {
  const uint64_t *R = w.regs;
  switch (in.op) {
  case Opc::MbarInit:
    mbarrierInit(in, w, pc, em);
    break;
  case Opc::MbarInval:
    forLanes(em, [&](unsigned l) {
      if (!aborted && mbarrierAt(w, l, pc, R[in.a + l], "mbarrier.inval"))
        mbarriers.erase(uint32_t(ownOffset(R[in.a + l])));
    });
    break;
  case Opc::MbarArrive:
  case Opc::MbarExpectTx:
    if (in.flags & FCluster) {
      // One lane at a time, on the CTA its address names.
      forLanes(em, [&](unsigned l) {
        if (aborted)
          return;
        auto target = clusterTarget(w, l, pc, R[in.a + l],
                                    in.op == Opc::MbarArrive
                                        ? "mbarrier.arrive"
                                        : "mbarrier.expect_tx");
        if (!target)
          return;
        onCta(target->first, [&] {
          if (in.op == Opc::MbarArrive)
            mbarrierArrive(in, w, pc, 1u << l);
          else
            mbarrierExpectTx(in, w, pc, 1u << l);
        });
      });
    } else if (in.op == Opc::MbarArrive) {
      mbarrierArrive(in, w, pc, em);
    } else {
      mbarrierExpectTx(in, w, pc, em);
    }
    if (!aborted && phaseCompleted) {
      forLanes(mask, [&](unsigned l) { w.pc[l] = pc + 1; });
      return false;
    }
    break;
  case Opc::Mapa:
    mapa(in, w, pc, em);
    break;
  case Opc::ClusterArrive:
    clusterArrive(in, w, pc, em);
    break;
  case Opc::ClusterWait:
    clusterWait(in, w, pc, mask, em);
    return !aborted && mask;
  case Opc::MbarTryWait:
    mbarrierTryWait(in, w, pc, mask, em);
    return !aborted && mask;
  case Opc::BulkTensorLoad:
  case Opc::BulkTensorStore:
    bulkTensorCopy(in, w, pc, em);
    break;
  case Opc::BulkLoad:
  case Opc::BulkStore:
    bulkCopy(in, w, pc, em);
    break;
  default:
    break;
  }
  return !aborted;
}

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

MBarrier *Runner::mbarrierAt(Warp &w, unsigned lane, uint32_t pc,
                             uint64_t addr, const char *what) {
  const int tid = int(tidOf(w, lane));
  addr = ownOffset(addr);
  if (addr & 7) {
    report(pc, tid,
           llvm::Twine("misaligned mbarrier at shared address ") + hex(addr) +
               " (" + what + "): not a multiple of 8");
    return nullptr;
  }
  if (addr >= sharedSize || sharedSize - addr < 8) {
    report(pc, tid,
           llvm::Twine("out-of-bounds mbarrier at shared address ") +
               hex(addr) + " (" + what + "): the block has " +
               llvm::Twine(sharedSize) + " bytes of shared memory");
    return nullptr;
  }
  auto it = mbarriers.find(uint32_t(addr));
  if (it == mbarriers.end()) {
    report(pc, tid,
           llvm::Twine(what) + " on shared address " + hex(addr) +
               ", which holds no initialised mbarrier (mbarrier.init)");
    return nullptr;
  }
  return &it->second;
}

void Runner::mbarrierInit(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  const uint64_t *R = w.regs;
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    uint64_t addr = R[in.a + l];
    uint32_t count = uint32_t(R[in.b + l]);
    if (count < 1 || count >= (1u << 20)) {
      report(pc, int(tidOf(w, l)),
             "mbarrier.init count " + llvm::Twine(count) +
                 " is outside [1, 2^20 - 1]");
      return;
    }
    // The object's 8 bytes count as written (they are the barrier now).
    addr = ownOffset(addr);
    if (!access(w, l, pc, StateSpace::shared, addr, 8, 8, Access::Write,
                "mbarrier.init"))
      return;
    MBarrier &mb = mbarriers[uint32_t(addr)];
    if (!mb.copies.empty()) {
      report(pc, int(tidOf(w, l)),
             "mbarrier.init on shared address " + hex(addr) +
                 " while bulk copies are still completing on it");
      return;
    }
    mb = MBarrier();
    mb.expected = mb.pending = count;
  });
}

void Runner::completeTx(MBarrier &mb, int64_t bytes) {
  mb.tx -= bytes;
  if (mb.pending == 0 && mb.tx == 0) {
    ++mb.phase;
    mb.pending = mb.expected;
    phaseCompleted = true;
    // A completed phase orders the arrivals before it against the waits
    // after it, like a barrier release.
    ++epoch;
  }
}

void Runner::mbarrierArrive(const Instr &in, Warp &w, uint32_t pc,
                            uint32_t em) {
  uint64_t *R = w.regs;
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    MBarrier *mb = mbarrierAt(w, l, pc, R[in.a + l], "mbarrier.arrive");
    if (!mb)
      return;
    uint32_t count = 1;
    if (in.flags & FExpectTx)
      mb->tx += int64_t(R[in.b + l] & 0xffffffff);
    else if (in.b != kNoSlot)
      count = uint32_t(R[in.b + l]);
    if (in.r != kNoSlot)
      R[in.r + l] = mb->phase;
    if (count > mb->pending) {
      report(pc, int(tidOf(w, l)),
             "mbarrier.arrive of " + llvm::Twine(count) +
                 " on shared address " + hex(R[in.a + l]) + " when only " +
                 llvm::Twine(mb->pending) + " of its " +
                 llvm::Twine(mb->expected) +
                 " expected arrivals are pending in this phase");
      return;
    }
    mb->pending -= count;
    completeTx(*mb, 0);
  });
}

void Runner::mbarrierExpectTx(const Instr &in, Warp &w, uint32_t pc,
                              uint32_t em) {
  const uint64_t *R = w.regs;
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    if (MBarrier *mb = mbarrierAt(w, l, pc, R[in.a + l], "mbarrier.expect_tx"))
      mb->tx += int64_t(R[in.b + l] & 0xffffffff);
  });
}

bool Runner::mbarrierReady(const Instr &in, const Warp &w, unsigned lane) {
  auto it = mbarriers.find(uint32_t(ownOffset(w.regs[in.a + lane])));
  if (it == mbarriers.end())
    return true; // reported when the wait runs again
  MBarrier &mb = it->second;
  landBulk(mb);
  uint64_t token = w.regs[in.b + lane];
  // With .parity the operand names the parity of the phase waited for;
  // otherwise it is the phase an arrive returned.
  if (in.flags & FParity)
    return (mb.phase & 1) != (token & 1);
  return mb.phase != uint32_t(token);
}

void Runner::mbarrierTryWait(const Instr &in, Warp &w, uint32_t pc,
                             uint32_t &mask, uint32_t em) {
  uint64_t *R = w.regs;
  uint32_t waiting = 0;
  forLanes(em, [&](unsigned l) {
    if (aborted ||
        !mbarrierAt(w, l, pc, R[in.a + l], "mbarrier.try_wait"))
      return;
    if (mbarrierReady(in, w, l))
      R[in.r + l] = 1;
    else
      waiting |= 1u << l;
  });
  forLanes(waiting, [&](unsigned l) { w.pc[l] = pc; });
  w.blocked |= waiting;
  mask &= ~waiting;
}

void Runner::landBulk(MBarrier &mb) {
  if (mb.copies.empty())
    return;
  std::vector<PendingCopy> copies = std::move(mb.copies);
  std::vector<uint16_t> tids = std::move(mb.copyTids);
  mb.copies.clear();
  mb.copyTids.clear();
  int64_t bytes = 0;
  for (auto [c, tid] : llvm::zip(copies, tids)) {
    // A multicast copy another CTA issued names its thread here.
    Warp &w = warps[tid % kRemoteTid / 32];
    uint8_t *p = sharedAccess(w, tid % 32, c.pc, c.dst, c.bytes,
                              Access::BulkLand, "bulk copy write");
    if (!p)
      return;
    std::memcpy(p, c.data, c.bytes);
    bytes += c.bytes;
  }
  completeTx(mb, bytes);
}

void Runner::landAllBulk() {
  for (auto &entry : mbarriers)
    landBulk(entry.second);
}

bool Runner::releaseMBarrierWaiters() {
  bool released = false;
  for (Warp &w : warps)
    forLanes(w.blocked & ~w.exited, [&](unsigned l) {
      const Instr &in = prog.code[w.pc[l]];
      if (in.op == Opc::MbarTryWait && mbarrierReady(in, w, l)) {
        w.blocked &= ~(1u << l);
        released = true;
      }
    });
  return released;
}

//===----------------------------------------------------------------------===//
// Bulk copies
//===----------------------------------------------------------------------===//

namespace {
/// A box element's bytes for an out-of-bounds element: zero, or a NaN.
void fillOutOfBounds(uint8_t *dst, unsigned size, const kaio::rt::TensorMapDesc &d) {
  std::memset(dst, 0, size);
  if (!d.oobNaN)
    return;
  uint64_t nan = d.elem == kaio::rt::ScalarType::F16    ? 0x7fff
                 : d.elem == kaio::rt::ScalarType::BF16 ? 0x7fff
                 : d.elem == kaio::rt::ScalarType::F32  ? 0x7fffffff
                                                  : 0x7fffffffffffffffull;
  std::memcpy(dst, &nan, size);
}

Swizzle swizzleOf(kaio::rt::TensorMapSwizzle s) {
  switch (s) {
  case kaio::rt::TensorMapSwizzle::B32:
    return Swizzle{1, 4, 3};
  case kaio::rt::TensorMapSwizzle::B64:
    return Swizzle{2, 4, 3};
  case kaio::rt::TensorMapSwizzle::B128:
    return Swizzle{3, 4, 3};
  default:
    return Swizzle{0, 4, 3};
  }
}
} // namespace

void Runner::bulkTensorCopy(const Instr &in, Warp &w, uint32_t pc,
                            uint32_t em) {
  const bool load = in.op == Opc::BulkTensorLoad;
  const char *name = load ? "cp.async.bulk.tensor load" : "cp.async.bulk.tensor store";
  uint64_t *R = w.regs;
  const uint32_t *coords = prog.extra.data() + in.ext;
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    const int tid = int(tidOf(w, l));
    uint64_t mapAddr = R[in.b + l];
    const uint8_t *raw = access(w, l, pc, StateSpace::generic, mapAddr,
                                kaio::rt::kTensorMapBytes, 64, Access::Read,
                                "tensor map read");
    if (!raw)
      return;
    std::optional<kaio::rt::TensorMapDesc> map = kaio::rt::decodeKaioTensorMap(raw);
    if (!map) {
      report(pc, tid,
             llvm::Twine(name) + ": the 128 bytes at " + hex(mapAddr) +
                 " are not a tensor map the interpreter knows (build it with "
                 "kaio::rt::encodeKaioTensorMap, Kaio/Runtime/TensorMapDesc.h)");
      return;
    }
    if (map->rank != in.n) {
      report(pc, tid,
             llvm::Twine(name) + " names " + llvm::Twine(in.n) +
                 " coordinates for a tensor map of rank " +
                 llvm::Twine(map->rank));
      return;
    }
    // strides[0] is the element size.
    const unsigned esz = unsigned(map->strides[0]);
    if (esz != 1 && esz != 2 && esz != 4 && esz != 8) {
      report(pc, tid,
             llvm::Twine(name) + ": the tensor map's element size is " +
                 llvm::Twine(esz) + " bytes");
      return;
    }
    const unsigned rowBytes = map->box[0] * esz;
    for (unsigned i = 0; i < map->rank; ++i)
      if (map->elementStrides[i] != 1) {
        report(pc, tid,
               llvm::Twine(name) +
                   ": element strides other than 1 are not modelled");
        return;
      }
    if (rowBytes % 16 != 0) {
      report(pc, tid,
             llvm::Twine(name) + ": the box's inner dimension is " +
                 llvm::Twine(rowBytes) + " bytes, not a multiple of 16");
      return;
    }
    // A load's destination is a .shared::cluster address: its offset in
    // the CTA it names (deliverBulk checks the CTA).
    const uint64_t smem =
        load ? R[in.a + l] % kClusterWindow : ownOffset(R[in.a + l]);
    if (smem & 127) {
      report(pc, tid,
             llvm::Twine(name) + ": shared address " + hex(smem) +
                 " is not 128-byte aligned");
      return;
    }
    const uint64_t total = map->boxBytes();
    if (smem >= sharedSize || sharedSize - smem < total) {
      report(pc, tid,
             llvm::Twine("out-of-bounds ") + name + " of " +
                 llvm::Twine(total) + " bytes at shared address " + hex(smem) +
                 ": the block has " + llvm::Twine(sharedSize) +
                 " bytes of shared memory");
      return;
    }
    const Swizzle swizzle = swizzleOf(map->swizzle);
    int64_t origin[kaio::rt::TensorMapDesc::kMaxRank] = {};
    for (unsigned i = 0; i < map->rank; ++i)
      origin[i] = int32_t(R[coords[i] + l]);
    // Walk the box one 16-byte chunk of its dense shared image at a time;
    // the swizzle permutes whole chunks. A load reads every chunk first,
    // then delivers them (to each CTA of a multicast).
    std::vector<PendingCopy> chunks;
    uint64_t index[kaio::rt::TensorMapDesc::kMaxRank] = {};
    for (uint64_t chunk = 0; chunk < total / 16 && !aborted; ++chunk) {
      uint64_t linear = chunk * 16 / esz;
      for (unsigned i = 0; i < map->rank; ++i) {
        index[i] = linear % map->box[i];
        linear /= map->box[i];
      }
      const uint32_t dst = uint32_t(swizzle.apply(smem + chunk * 16));
      PendingCopy copy;
      copy.dst = dst - uint32_t(smem);
      copy.pc = pc;
      copy.bytes = 16;
      for (unsigned e = 0; e < 16 / esz && !aborted; ++e) {
        bool inBounds = true;
        uint64_t offset = 0;
        for (unsigned i = 0; i < map->rank; ++i) {
          int64_t c = origin[i] + int64_t(index[i]) + (i == 0 ? e : 0);
          inBounds &= c >= 0 && uint64_t(c) < map->dims[i];
          offset += uint64_t(c) * map->strides[i];
        }
        uint8_t *element = copy.data + e * esz;
        if (!inBounds) {
          if (load)
            fillOutOfBounds(element, esz, *map);
          continue;
        }
        uint8_t *g = globalAccess(w, l, pc, map->address + offset, esz,
                                  load ? "tensor load" : "tensor store",
                                  StateSpace::global);
        if (!g)
          return;
        if (load) {
          std::memcpy(element, g, esz);
        } else {
          const uint8_t *s = sharedAccess(w, l, pc, dst + e * esz, esz,
                                          Access::Read, name);
          if (!s)
            return;
          std::memcpy(g, s, esz);
        }
      }
      if (load)
        chunks.push_back(copy);
    }
    if (load && !aborted)
      deliverBulk(in, w, l, pc, name, R[in.a + l], R[in.d + l],
                  (in.flags & FMulticast) ? uint32_t(R[in.aux2 + l] & 0xffff)
                                          : 0,
                  chunks);
  });
}

bool Runner::deliverBulk(const Instr &in, Warp &w, unsigned lane, uint32_t pc,
                         const char *name, uint64_t dst, uint64_t mbar,
                         uint32_t ctaMask, std::vector<PendingCopy> &chunks) {
  auto dstTarget = clusterTarget(w, lane, pc, dst, name);
  auto barTarget = dstTarget ? clusterTarget(w, lane, pc, mbar, name)
                             : std::nullopt;
  if (!barTarget)
    return false;
  if (barTarget->first != dstTarget->first) {
    report(pc, int(tidOf(w, lane)),
           llvm::Twine(name) + ": the destination (CTA rank " +
               llvm::Twine(dstTarget->first) + ") and the mbarrier (CTA rank " +
               llvm::Twine(barTarget->first) +
               ") must be in the same CTA of the cluster");
    return false;
  }
  if (in.flags & FMulticast) {
    if (ctaMask >> clusterSize) {
      report(pc, int(tidOf(w, lane)),
             llvm::Twine(name) + ": the multicast mask " + hex(ctaMask) +
                 " names CTAs beyond the cluster's " +
                 llvm::Twine(clusterSize));
      return false;
    }
  } else {
    ctaMask = 1u << dstTarget->first;
  }
  const uint64_t base = dstTarget->second, barOff = barTarget->second;
  for (uint32_t m = ctaMask; m && !aborted; m &= m - 1) {
    unsigned r = __builtin_ctz(m);
    if (r != rank && cta(r).allExited()) {
      report(pc, int(tidOf(w, lane)),
             llvm::Twine(name) + " to the cluster's CTA rank " +
                 llvm::Twine(r) + ", whose threads have all exited");
      return false;
    }
    onCta(r, [&] {
      // The issuing thread, as the destination's shadow names it.
      const uint16_t tid = uint16_t(tidOf(w, lane));
      MBarrier *mb = mbarrierAt(w, lane, pc, barOff, name);
      if (!mb)
        return;
      for (const PendingCopy &chunk : chunks) {
        const uint64_t at = base + chunk.dst;
        if (at >= sharedSize || sharedSize - at < chunk.bytes) {
          report(pc, int(tid),
                 llvm::Twine("out-of-bounds ") + name + " at shared address " +
                     hex(at) + ": the block has " + llvm::Twine(sharedSize) +
                     " bytes of shared memory");
          return;
        }
        if (!checkWgmmaReads(w, lane, pc, at, at + chunk.bytes, name))
          return;
        for (unsigned i = 0; i < chunk.bytes; ++i) {
          ShadowByte &s = shadow[at + i];
          if (s.init == kPending || s.init == kPendingBulk) {
            report(pc, int(tid),
                   llvm::Twine(name) + " to shared address " + hex(at + i) +
                       " overwrites the destination of an asynchronous copy "
                       "that has not been waited for");
            return;
          }
          s.init = kPendingBulk;
        }
        PendingCopy copy = chunk;
        copy.dst = uint32_t(at);
        mb->copies.push_back(copy);
        mb->copyTids.push_back(tid);
      }
    });
  }
  return !aborted;
}

void Runner::bulkCopy(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  const bool load = in.op == Opc::BulkLoad;
  const char *name = load ? "cp.async.bulk load" : "cp.async.bulk store";
  uint64_t *R = w.regs;
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    const int tid = int(tidOf(w, l));
    const uint64_t dst = R[in.a + l], src = R[in.b + l];
    const uint32_t size = uint32_t(R[in.c + l]);
    if (size % 16 || (dst | src) & 15) {
      report(pc, tid,
             llvm::Twine(name) + " of " + llvm::Twine(size) + " bytes from " +
                 hex(src) + " to " + hex(dst) +
                 ": size and addresses must be multiples of 16");
      return;
    }
    if (!load) {
      const uint8_t *s = access(w, l, pc, StateSpace::shared, src, size, 16,
                                Access::Read, name);
      uint8_t *g = s ? access(w, l, pc, StateSpace::global, dst, size, 16,
                              Access::Write, name)
                     : nullptr;
      if (g)
        std::memcpy(g, s, size);
      return;
    }
    const uint8_t *g = access(w, l, pc, StateSpace::global, src, size, 16,
                              Access::Read, name);
    if (!g)
      return;
    std::vector<PendingCopy> chunks(size / 16);
    for (uint32_t i = 0; i < size / 16; ++i) {
      chunks[i].dst = i * 16;
      chunks[i].pc = pc;
      chunks[i].bytes = 16;
      std::memcpy(chunks[i].data, g + i * 16, 16);
    }
    deliverBulk(in, w, l, pc, name, dst, R[in.d + l],
                (in.flags & FMulticast) ? uint32_t(R[in.aux2 + l] & 0xffff) : 0,
                chunks);
  });
}

//===----------------------------------------------------------------------===//
// Clusters
//===----------------------------------------------------------------------===//

std::optional<std::pair<unsigned, uint64_t>>
Runner::clusterTarget(Warp &w, unsigned lane, uint32_t pc, uint64_t addr,
                      const char *what) {
  if (addr < kClusterWindow)
    return std::make_pair(rank, addr);
  const uint64_t r = addr / kClusterWindow - 1;
  if (r >= clusterSize) {
    report(pc, int(tidOf(w, lane)),
           llvm::Twine(what) + " at shared::cluster address " + hex(addr) +
               ": names CTA rank " + llvm::Twine(r) + " of a cluster of " +
               llvm::Twine(clusterSize) + " (addresses come from mapa)");
    return std::nullopt;
  }
  if (r != rank && cta(unsigned(r)).allExited()) {
    report(pc, int(tidOf(w, lane)),
           llvm::Twine(what) + " at shared::cluster address " + hex(addr) +
               ": the cluster's CTA rank " + llvm::Twine(r) +
               " has exited (its shared memory is gone; a cluster barrier "
               "before exiting keeps it alive)");
    return std::nullopt;
  }
  return std::make_pair(unsigned(r), addr % kClusterWindow);
}

uint8_t *Runner::clusterAccess(Warp &w, unsigned lane, uint32_t pc,
                               uint64_t addr, unsigned size, Access kind,
                               const char *what) {
  auto target = clusterTarget(w, lane, pc, addr, what);
  if (!target)
    return nullptr;
  return onCta(target->first, [&] {
    return sharedAccess(w, lane, pc, target->second, size, kind, what);
  });
}

void Runner::mapa(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  uint64_t *R = w.regs;
  const bool generic = StateSpace(in.aux) == StateSpace::generic;
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    uint64_t addr = R[in.a + l];
    const uint32_t r = uint32_t(R[in.b + l]);
    if (generic) {
      if (addr - kSharedWindow >= kWindowSize) {
        report(pc, int(tidOf(w, l)),
               "mapa of generic address " + hex(addr) +
                   ", which is not in the shared window");
        return;
      }
      addr -= kSharedWindow;
    }
    const uint64_t off = addr % kClusterWindow;
    if (r >= clusterSize || off >= sharedSize) {
      report(pc, int(tidOf(w, l)),
             "mapa of shared address " + hex(addr) + " to CTA rank " +
                 llvm::Twine(r) + ": " +
                 (r >= clusterSize
                      ? "the cluster has " + llvm::Twine(clusterSize) + " CTAs"
                      : "the block has " + llvm::Twine(sharedSize) +
                            " bytes of shared memory"));
      return;
    }
    R[in.r + l] = ((generic ? kSharedWindow : 0) + (r + 1) * kClusterWindow +
                   off) &
                  maskBits(in.rbits);
  });
}

void Runner::clusterArrive(const Instr &in, Warp &w, uint32_t pc,
                           uint32_t em) {
  (void)in;
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    if (w.clusterArrived >> l & 1) {
      report(pc, int(tidOf(w, l)),
             "barrier.cluster.arrive again before barrier.cluster.wait");
      return;
    }
    w.clusterArrived |= 1u << l;
    w.clusterArrivePhase[l] = clusterPhase;
  });
  releaseClusterBarrier();
}

void Runner::clusterWait(const Instr &in, Warp &w, uint32_t pc,
                         uint32_t &mask, uint32_t em) {
  (void)in;
  uint32_t waiting = 0;
  forLanes(em, [&](unsigned l) {
    if (aborted)
      return;
    if (!(w.clusterArrived >> l & 1)) {
      report(pc, int(tidOf(w, l)),
             "barrier.cluster.wait without a barrier.cluster.arrive before it");
      return;
    }
    if (clusterPhase != w.clusterArrivePhase[l])
      w.clusterArrived &= ~(1u << l);
    else
      waiting |= 1u << l;
  });
  forLanes(waiting, [&](unsigned l) { w.pc[l] = pc; });
  w.blocked |= waiting;
  mask &= ~waiting;
}

std::pair<unsigned, unsigned> Runner::clusterArrivals() const {
  unsigned live = 0, arrived = 0;
  for (unsigned r = 0; r < clusterSize; ++r)
    for (const Warp &w : cta(r).warps) {
      const uint32_t lanes = w.exists & ~w.exited;
      live += __builtin_popcount(lanes);
      forLanes(lanes & w.clusterArrived, [&](unsigned l) {
        arrived += w.clusterArrivePhase[l] == clusterPhase;
      });
    }
  return {live, arrived};
}

bool Runner::releaseClusterBarrier() {
  auto [live, arrived] = clusterArrivals();
  if (arrived && arrived == live) {
    // Every live thread arrived: the phase completes and orders every
    // access before the arrivals against every access after the waits.
    ++clusterPhase;
    for (unsigned r = 0; r < clusterSize; ++r)
      ++cta(r).epoch;
  }
  return releaseClusterWaiters();
}

bool Runner::releaseClusterWaiters() {
  bool released = false;
  for (unsigned r = 0; r < clusterSize; ++r)
    for (Warp &w : cta(r).warps)
      forLanes(w.blocked & ~w.exited, [&](unsigned l) {
        if (prog.code[w.pc[l]].op == Opc::ClusterWait &&
            clusterPhase != w.clusterArrivePhase[l]) {
          w.blocked &= ~(1u << l);
          released = true;
        }
      });
  return released;
}
