//===- WarpOps.cpp - shfl, vote, match, redux, mma, ldmatrix --------------===//

#include "Runner.h"

using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

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
      const uint8_t *p = access(w, lane, pc, StateSpace::shared, R[in.a + lane] + uint64_t(in.imm),
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
      uint8_t *p = access(w, lane, pc, StateSpace::shared, R[in.a + lane] + uint64_t(in.imm), 16,
                          16, Access::Write, "stmatrix row write");
      if (!p)
        return;
      std::memcpy(p, M[m][r], 16);
    }
}
