//===- Wgmma.cpp - warpgroup MMA and elect.sync ---------------------------===//
//
// wgmma.mma_async computes at issue: each warp of the warpgroup owns 16
// rows of the 64-row tile, so the warps run it independently, reading A
// and B through their shared-memory descriptors (or A from registers). The
// shared bytes it read stay "in flight" until wgmma.wait_group retires its
// group; the wait is warpgroup-wide. Writes over in-flight bytes are
// reported.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "Kaio/Dialect/PTX/IR/Swizzle.h"

#include <cmath>

using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

//===----------------------------------------------------------------------===//
// elect.sync and wgmma
//===----------------------------------------------------------------------===//

void Runner::elect(const Instr &in, Warp &w, uint32_t em) {
  uint64_t *R = w.regs;
  uint32_t members = em;
  forLanes(em, [&](unsigned l) { members &= uint32_t(R[in.d + l]); });
  const unsigned leader = members ? __builtin_ctz(members) : 0;
  forLanes(em, [&](unsigned l) {
    R[in.r + l] = leader;
    R[in.r2 + l] = members && l == leader;
  });
}

namespace {
/// An operand element's value from its bits in memory or a register.
double operandValue(uint64_t bits, PTXType t) {
  switch (t) {
  case PTXType::f16:
    return toDouble(bits & 0xffff, kF16);
  case PTXType::bf16:
    return toDouble(bits & 0xffff, kBF16);
  case PTXType::tf32: // the tensor core reads the top 19 bits
    return toDouble(bits & 0xffffe000ull, kF32);
  case PTXType::e5m2:
    return toDouble(bits & 0xff, FloatFormat{5, 2});
  case PTXType::e4m3: {
    // E4M3FN: no infinities; S.1111.111 is the only NaN.
    unsigned e = (bits >> 3) & 15, m = bits & 7;
    double sign = (bits & 0x80) ? -1.0 : 1.0;
    if (e == 15 && m == 7)
      return std::nan("");
    return sign * (e ? std::ldexp(1.0 + m / 8.0, int(e) - 7)
                     : std::ldexp(m / 8.0, -6));
  }
  case PTXType::s8:
    return double(int8_t(bits));
  case PTXType::u8:
    return double(uint8_t(bits));
  default:
    return 0;
  }
}

unsigned operandBytes(PTXType t) { return std::max(1u, getBitWidth(t) / 8); }
} // namespace

/// Byte offset of element (mn, k) of a wgmma operand from its descriptor's
/// start address, before the swizzle (CuTe's canonical GMMA layouts, in
/// 16-byte chunks of T = 16 / size elements): K-major tiles keep 8 rows of
/// a core matrix (or swizzle atom) `width` bytes apart; MN-major tiles
/// keep 8 K-rows `width` bytes apart. LBO and SBO step between core
/// matrices (no swizzle) or swizzle atoms.
static uint64_t wgmmaOperandOffset(const WgmmaDescriptor &d, bool mnMajor,
                                   unsigned mn, unsigned k, unsigned esz) {
  const unsigned t = 16 / esz;
  const unsigned width = d.swizzle == WgmmaSwizzle::B128  ? 128
                         : d.swizzle == WgmmaSwizzle::B64 ? 64
                         : d.swizzle == WgmmaSwizzle::B32 ? 32
                                                          : 16;
  const uint64_t lbo = d.leadingByteOffset, sbo = d.strideByteOffset;
  if (!mnMajor) {
    uint64_t off = (mn % 8) * width + (mn / 8) * sbo;
    if (d.swizzle == WgmmaSwizzle::None)
      return off + (k % t) * esz + (k / t) * lbo;
    return off + k * esz;
  }
  if (d.swizzle == WgmmaSwizzle::None)
    return (mn % t) * esz + (mn / t) * sbo + (k % 8) * 16 + (k / 8) * lbo;
  const unsigned atom = width / esz; // MN elements per swizzle row
  return (mn % atom) * esz + (mn / atom) * lbo + (k % 8) * width +
         (k / 8) * sbo;
}

void Runner::wgmma(const Instr &in, Warp &w, uint32_t pc, uint32_t em) {
  const int tid0 = int(tidOf(w, 0));
  if (em != ~0u) {
    report(pc, int(tidOf(w, __builtin_ctz(~em))),
           "wgmma.mma_async needs all 32 lanes of the warp");
    return;
  }
  if (numThreads % 128) {
    report(pc, tid0,
           "wgmma.mma_async needs whole warpgroups: the block has " +
               llvm::Twine(numThreads) + " threads");
    return;
  }
  uint64_t *R = w.regs;
  const WgmmaInfo &info = prog.wgmmas[in.aux];
  const WgmmaVariant &v = *info.variant;
  const unsigned n = info.n, kk = v.k;
  const unsigned row0 = 16 * (w.index % 4); // this warp's rows of the 64
  const uint32_t *d = prog.extra.data() + in.ext;
  const uint32_t *acc = d + info.accRegs, *aRegs = acc + info.accRegs;
  const unsigned esz = operandBytes(v.aType);

  // The shared bytes this wgmma reads (A's, B's), held until its group
  // retires.
  WgmmaRead reads[2] = {{UINT32_MAX, 0, pc}, {UINT32_MAX, 0, pc}};
  // Reads element (mn, k) of a descriptor operand (0: A, 1: B).
  auto readOperand = [&](unsigned operand, uint64_t descBits, bool mnMajor,
                         unsigned mn, unsigned k, PTXType type, double &out) {
    WgmmaDescriptor desc = WgmmaDescriptor::decode(descBits);
    if (desc.baseOffset != 0) {
      report(pc, tid0,
             "wgmma descriptor with a nonzero matrix base offset is not "
             "modelled");
      return false;
    }
    Swizzle sw{desc.swizzle == WgmmaSwizzle::B128  ? 3u
               : desc.swizzle == WgmmaSwizzle::B64 ? 2u
               : desc.swizzle == WgmmaSwizzle::B32 ? 1u
                                                   : 0u,
               4, 3};
    uint64_t addr = sw.apply(desc.startAddress +
                             wgmmaOperandOffset(desc, mnMajor, mn, k, esz));
    const uint8_t *p = sharedAccess(w, 0, pc, addr, esz, Access::Read,
                                    "wgmma operand read");
    if (!p)
      return false;
    WgmmaRead &range = reads[operand];
    range.begin = std::min(range.begin, uint32_t(addr));
    range.end = std::max(range.end, uint32_t(addr + esz));
    uint64_t bits = 0;
    std::memcpy(&bits, p, esz);
    out = operandValue(bits, type);
    return true;
  };

  std::vector<double> A(16 * kk), B(size_t(kk) * n);
  if (in.a != kNoSlot) {
    for (unsigned r = 0; r < 16; ++r)
      for (unsigned k = 0; k < kk; ++k)
        if (!readOperand(0, R[in.a], info.transA, row0 + r, k, v.aType,
                         A[r * kk + k]))
          return;
  } else {
    // A in registers: each warp's 16 rows as the mma.sync m16n8kK A
    // fragment (the mma table's layout).
    const MMAShape shape = kk == 8    ? MMAShape::m16n8k8
                           : kk == 16 ? MMAShape::m16n8k16
                                      : MMAShape::m16n8k32;
    const MmaVariant *mv =
        lookupMma(shape, v.aType, v.bType,
                  isFloat(v.dType) ? PTXType::f32 : PTXType::s32);
    if (!mv) {
      report(pc, tid0, "no mma.sync A fragment layout for this wgmma's A");
      return;
    }
    const unsigned per = getElementsPerRegister(v.aType);
    const unsigned bits = 32 / per;
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned i = 0; i < info.aRegs * per; ++i) {
        FragmentCoord f = getMmaACoord(*mv, l, i);
        A[f.row * kk + f.col] = operandValue(
            (R[aRegs[i / per] + l] >> (bits * (i % per))) & maskBits(bits),
            v.aType);
      }
  }
  for (unsigned k = 0; k < kk; ++k)
    for (unsigned c = 0; c < n; ++c) {
      double value;
      if (!readOperand(1, R[in.b], info.transB, c, k, v.bType, value))
        return;
      B[k * n + c] = value;
    }

  const bool scaleD =
      in.c != kNoSlot ? (R[in.c] & 1) != 0 : info.scaleD != 0;
  const bool isInt = !isFloat(v.dType);
  const unsigned per = v.accPerReg, bits = 32 / per;
  const FloatFormat fmt = isInt ? kF32 : formatOf(v.dType);
  for (unsigned l = 0; l < 32; ++l) {
    uint64_t out[128] = {};
    for (unsigned e = 0; e < n / 2; ++e) {
      // The m16n8 accumulator layout, once per 8 columns.
      unsigned r = l / 4 + 8 * ((e / 2) % 2);
      unsigned c = 8 * (e / 4) + 2 * (l % 4) + (e % 2);
      uint64_t old = (R[acc[e / per] + l] >> (bits * (e % per))) &
                     maskBits(bits);
      uint64_t result;
      if (isInt) {
        int64_t sum = scaleD ? int64_t(int32_t(old)) : 0;
        for (unsigned k = 0; k < kk; ++k)
          sum += int64_t(A[r * kk + k]) * int64_t(B[k * n + c]) *
                 info.scaleA * info.scaleB;
        if (info.satfinite)
          sum = std::min<int64_t>(std::max<int64_t>(sum, INT32_MIN), INT32_MAX);
        result = uint64_t(sum) & 0xffffffff;
      } else {
        double sum = scaleD ? toDouble(old, fmt) : 0.0;
        for (unsigned k = 0; k < kk; ++k)
          sum += A[r * kk + k] * info.scaleA * B[k * n + c] * info.scaleB;
        result = fromDouble(sum, fmt, RoundMode::NearestEven);
      }
      out[e / per] |= (result & maskBits(bits)) << (bits * (e % per));
    }
    for (unsigned i = 0; i < info.accRegs; ++i)
      R[d[i] + l] = out[i];
  }
  for (const WgmmaRead &range : reads)
    if (range.begin < range.end) {
      w.wgmmaOpen.push_back(range);
      ++wgmmaInFlight;
    }
}

void Runner::wgmmaGroupOp(const Instr &in, Warp &w) {
  if (in.aux == kWgmmaCommit) {
    w.wgmmaGroups.push_back(std::move(w.wgmmaOpen));
    w.wgmmaOpen.clear();
  } else if (in.aux == kWgmmaWait) {
    while (w.wgmmaGroups.size() > in.aux2) {
      wgmmaInFlight -= w.wgmmaGroups.front().size();
      w.wgmmaGroups.pop_front();
    }
  }
}

bool Runner::warpgroupWait(const Instr &in, Warp &w, uint32_t pc,
                           uint32_t mask) {
  const unsigned group = w.index / 4;
  const unsigned end = std::min<unsigned>(4 * group + 4, warps.size());
  unsigned live = 0;
  for (unsigned i = 4 * group; i < end; ++i)
    live += (warps[i].exists & ~warps[i].exited) != 0;
  if (warpgroupWaiting.size() <= group)
    warpgroupWaiting.resize(group + 1, 0);
  if (++warpgroupWaiting[group] < live) {
    forLanes(mask, [&](unsigned l) { w.pc[l] = pc; });
    w.blocked |= mask;
    return false;
  }
  warpgroupWaiting[group] = 0;
  for (unsigned i = 4 * group; i < end; ++i) {
    Warp &other = warps[i];
    if (&other == &w)
      continue;
    uint32_t waiting = 0;
    forLanes(other.blocked & ~other.exited, [&](unsigned l) {
      if (other.pc[l] == pc)
        waiting |= 1u << l;
    });
    if (!waiting)
      continue;
    wgmmaGroupOp(in, other);
    other.blocked &= ~waiting;
    forLanes(waiting, [&](unsigned l) { other.pc[l] = pc + 1; });
  }
  return true;
}

bool Runner::checkWgmmaReads(Warp &w, unsigned lane, uint32_t pc,
                             uint64_t begin, uint64_t end, const char *what) {
  if (!wgmmaInFlight)
    return true;
  for (const Warp &reader : warps) {
    auto check = [&](const WgmmaRead &r) {
      if (end <= r.begin || begin >= r.end)
        return true;
      report(pc, int(tidOf(w, lane)),
             llvm::Twine(what) + " overwrites shared memory [" + hex(r.begin) +
                 ", " + hex(r.end) + ") that the wgmma.mma_async at " +
                 formatLocation(prog.locs[r.pc]) + " of warp " +
                 llvm::Twine(reader.index) +
                 " still reads: wait for its group (wgmma.wait_group) before "
                 "reusing the buffer");
      return false;
    };
    for (const WgmmaRead &r : reader.wgmmaOpen)
      if (!check(r))
        return false;
    for (const auto &group : reader.wgmmaGroups)
      for (const WgmmaRead &r : group)
        if (!check(r))
          return false;
  }
  return true;
}
