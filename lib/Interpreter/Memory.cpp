//===- Memory.cpp - loads, stores, atomics and cp.async -------------------===//
//
// Shared memory keeps a shadow per byte: the last writer thread and epoch,
// the last reader (or "several") and epoch, and whether the block has
// initialised it (or a cp.async is pending on it). Epochs advance at every
// barrier release, so a conflicting access by another thread in the same
// epoch is a race.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

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

uint8_t *Runner::checkedGlobalAccess(Warp &w, unsigned lane, uint32_t pc,
                                     uint64_t addr, unsigned size, Access kind,
                                     const char *what, StateSpace space) {
  uint8_t *p = globalAccess(w, lane, pc, addr, size, what, space);
  if (!p || !opts.checkGlobalRaces ||
      (kind != Access::Read && kind != Access::Write))
    return p;
  const unsigned tid = tidOf(w, lane);
  const char *how = kind == Access::Read ? "reads a value written by"
                                         : "overwrites a value written by";
  for (unsigned i = 0; i < size; ++i) {
    auto it = globalWriters.find(addr + i);
    if (it != globalWriters.end()) {
      const GlobalWriter &prev = it->second;
      // Blocks may be ordered through fences and atomics, which are not
      // modelled: a kernel with fences gets the within-block check only.
      // The blocks of a cluster are ordered by its barrier.
      if (prev.blockSerial != blockSerial && !prog.hasFences &&
          !(prev.clusterPhase != clusterPhase &&
            sameCluster(prev.blockSerial))) {
        // Serials are linear block indices from firstBlockSerial.
        uint32_t s = prev.blockSerial - firstBlockSerial;
        report(pc, int(tid),
               llvm::Twine("global-memory race: ") + what + " of address " +
                   hex(addr + i) + " " + how + " thread " +
                   threadName(prev.tid) + " of block (" +
                   llvm::Twine(s % grid.x) + "," +
                   llvm::Twine(s / grid.x % grid.y) + "," +
                   llvm::Twine(s / (grid.x * grid.y)) +
                   ") (the blocks of a launch are unordered)");
        return nullptr;
      }
      if (prev.blockSerial == blockSerial && prev.epoch == epoch &&
          prev.tid != tid) {
        report(pc, int(tid),
               llvm::Twine("global-memory race: ") + what + " of address " +
                   hex(addr + i) + " " + how + " thread " +
                   threadName(prev.tid) + " with no barrier in between");
        return nullptr;
      }
    }
    // Bounded: past kMaxTrackedGlobalBytes written bytes, later ones are
    // not recorded (the check covers the launch's first writes).
    if (kind == Access::Write &&
        (it != globalWriters.end() ||
         globalWriters.size() < kMaxTrackedGlobalBytes))
      globalWriters[addr + i] = {blockSerial, epoch, tid, clusterPhase};
  }
  return p;
}

uint8_t *Runner::sharedAccess(Warp &w, unsigned lane, uint32_t pc,
                              uint64_t off, unsigned size, Access kind,
                              const char *what) {
  off = ownOffset(off);
  const unsigned tid = tidOf(w, lane);
  if (off >= sharedSize || sharedSize - off < size) {
    report(pc, int(tid),
           llvm::Twine("out-of-bounds shared ") + what + " of " +
               llvm::Twine(size) + " bytes at shared address " + hex(off) +
               ": the block has " + llvm::Twine(sharedSize) +
               " bytes of shared memory");
    return nullptr;
  }
  if ((kind == Access::Write || kind == Access::AsyncIssue) &&
      !checkWgmmaReads(w, lane, pc, off, off + size, what))
    return nullptr;
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
        if (s.init == kPendingBulk) {
          report(pc, int(tid),
                 llvm::Twine(what) + " of shared address " + hex(off + i) +
                     " reads the destination of a bulk (TMA) copy before "
                     "its mbarrier phase completed (mbarrier.try_wait)");
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
      if (kind == Access::Write &&
          (s.init == kPending || s.init == kPendingBulk)) {
        report(pc, int(tid),
               llvm::Twine(what) + " to shared address " + hex(off + i) +
                   " overwrites the destination of " +
                   (s.init == kPending ? "a cp.async" : "a bulk (TMA) copy") +
                   " that has not been waited for");
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
    case Access::BulkLand:
      // Ordered by the mbarrier wait, not by a bar.sync epoch.
      s.wEpoch = 0;
      s.init = blockSerial;
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
      return addr - kSharedWindow < kClusterWindow
                 ? sharedAccess(w, lane, pc, addr - kSharedWindow, size, kind,
                                what)
                 : clusterAccess(w, lane, pc, addr - kSharedWindow, size,
                                 kind, what);
    if (addr - kLocalWindow < kWindowSize)
      return access(w, lane, pc, StateSpace::local, addr - kLocalWindow, size,
                    1, kind, what);
    return checkedGlobalAccess(w, lane, pc, addr, size, kind, what,
                               StateSpace::global);
  case StateSpace::global:
  case StateSpace::Const:
    return checkedGlobalAccess(w, lane, pc, addr, size, kind, what, space);
  case StateSpace::shared:
    return sharedAccess(w, lane, pc, addr, size, kind, what);
  case StateSpace::shared_cluster:
    return clusterAccess(w, lane, pc, addr, size, kind, what);
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
    // The non-coherent (read-only) path may return what the byte held
    // before this launch wrote it, whoever wrote it.
    if ((in.flags & FNc) && opts.checkGlobalRaces)
      for (unsigned i = 0; i < total; ++i)
        if (auto it = globalWriters.find(addr + i);
            it != globalWriters.end()) {
          report(pc, int(tidOf(w, l)),
                 "ld.global.nc of address " + hex(addr + i) +
                     ", which this launch wrote (thread " +
                     threadName(it->second.tid) +
                     "): the read-only path may return the old value; "
                     "read it with a plain ld.global");
          return;
        }
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
    copy.dst = uint32_t(ownOffset(R[in.a + l] + uint64_t(in.imm)));
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
    if (!access(w, l, pc, StateSpace::shared, (R[in.a + l] + uint64_t(in.imm)), bytes, bytes,
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
