//===- HopperOps.cpp - mbarriers and bulk (TMA) copies --------------------===//
//
// The sm_90 asynchronous machinery, one CTA at a time (clusters of one):
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
//   destination before the phase completes is an error.
// - Bulk copies out of shared memory complete at issue.
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
        mbarriers.erase(uint32_t(R[in.a + l]));
    });
    break;
  case Opc::MbarArrive:
    mbarrierArrive(in, w, pc, em);
    if (!aborted && phaseCompleted) {
      forLanes(mask, [&](unsigned l) { w.pc[l] = pc + 1; });
      return false;
    }
    break;
  case Opc::MbarExpectTx:
    mbarrierExpectTx(in, w, pc, em);
    break;
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
  auto it = mbarriers.find(uint32_t(w.regs[in.a + lane]));
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
    Warp &w = warps[tid / 32];
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
    const uint64_t smem = R[in.a + l];
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
    MBarrier *mb = nullptr;
    if (load && !(mb = mbarrierAt(w, l, pc, R[in.d + l], name)))
      return;
    const Swizzle swizzle = swizzleOf(map->swizzle);
    int64_t origin[kaio::rt::TensorMapDesc::kMaxRank] = {};
    for (unsigned i = 0; i < map->rank; ++i)
      origin[i] = int32_t(R[coords[i] + l]);
    // Walk the box one 16-byte chunk of its dense shared image at a time;
    // the swizzle permutes whole chunks.
    uint64_t index[kaio::rt::TensorMapDesc::kMaxRank] = {};
    for (uint64_t chunk = 0; chunk < total / 16 && !aborted; ++chunk) {
      uint64_t linear = chunk * 16 / esz;
      for (unsigned i = 0; i < map->rank; ++i) {
        index[i] = linear % map->box[i];
        linear /= map->box[i];
      }
      const uint32_t dst = uint32_t(swizzle.apply(smem + chunk * 16));
      PendingCopy copy;
      copy.dst = dst;
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
      if (!load)
        continue;
      if (!checkWgmmaReads(w, l, pc, dst, dst + 16, name))
        return;
      for (unsigned i = 0; i < 16; ++i) {
        ShadowByte &s = shadow[dst + i];
        if (s.init == kPending || s.init == kPendingBulk) {
          report(pc, tid,
                 llvm::Twine(name) + " to shared address " + hex(dst + i) +
                     " overwrites the destination of an asynchronous copy "
                     "that has not been waited for");
          return;
        }
        s.init = kPendingBulk;
      }
      mb->copies.push_back(copy);
      mb->copyTids.push_back(uint16_t(tid));
    }
  });
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
    MBarrier *mb = mbarrierAt(w, l, pc, R[in.d + l], name);
    const uint8_t *g = mb ? access(w, l, pc, StateSpace::global, src, size, 16,
                                   Access::Read, name)
                          : nullptr;
    if (!g)
      return;
    if (dst >= sharedSize || sharedSize - dst < size) {
      report(pc, tid,
             llvm::Twine("out-of-bounds ") + name + " of " +
                 llvm::Twine(size) + " bytes at shared address " + hex(dst));
      return;
    }
    if (!checkWgmmaReads(w, l, pc, dst, dst + size, name))
      return;
    for (uint32_t off = 0; off < size; off += 16) {
      PendingCopy copy;
      copy.dst = uint32_t(dst + off);
      copy.pc = pc;
      copy.bytes = 16;
      std::memcpy(copy.data, g + off, 16);
      for (unsigned i = 0; i < 16; ++i)
        shadow[copy.dst + i].init = kPendingBulk;
      mb->copies.push_back(copy);
      mb->copyTids.push_back(uint16_t(tid));
    }
  });
}
