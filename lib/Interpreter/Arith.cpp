//===- Arith.cpp - per-lane PTX arithmetic semantics ----------------------===//
//
// Floats: f32/f64 round-to-nearest use the host's IEEE operations; other
// rounding modes and the half types compute in double (exactly, or rounded
// to odd) and round once into the destination format, so every result is
// correctly rounded. NaN results are PTX's canonical NaN.
//
//===----------------------------------------------------------------------===//

#include "Arith.h"

#include <cmath>

using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

RoundMode kaio::interp::detail::roundModeOf(uint8_t rnd) {
  if (rnd == kNoRnd)
    return RoundMode::NearestEven;
  switch (Rounding(rnd)) {
  case Rounding::rz:
  case Rounding::rzi:
    return RoundMode::TowardZero;
  case Rounding::rm:
  case Rounding::rmi:
    return RoundMode::Down;
  case Rounding::rp:
  case Rounding::rpi:
    return RoundMode::Up;
  case Rounding::rna:
    return RoundMode::NearestAway;
  default:
    return RoundMode::NearestEven;
  }
}

FloatFormat kaio::interp::detail::formatOf(PTXType t) {
  switch (t) {
  case PTXType::f16:
  case PTXType::f16x2:
    return kF16;
  case PTXType::bf16:
  case PTXType::bf16x2:
    return kBF16;
  case PTXType::tf32:
    return kTF32;
  case PTXType::f64:
    return kF64;
  default:
    return kF32;
  }
}

namespace {

bool isPackedType(PTXType t) {
  return t == PTXType::f16x2 || t == PTXType::bf16x2;
}

/// Applies `f` to each 16-bit half of packed operands, or once otherwise.
template <typename F>
uint64_t perHalf(PTXType t, uint64_t a, uint64_t b, uint64_t c, F f) {
  if (!isPackedType(t))
    return f(a, b, c);
  uint64_t lo = f(a & 0xffff, b & 0xffff, c & 0xffff);
  uint64_t hi = f((a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
  return (lo & 0xffff) | ((hi & 0xffff) << 16);
}

uint64_t saturate01(uint64_t bits, FloatFormat fmt) {
  if (isNaNBits(bits, fmt))
    return 0;
  double x = toDouble(bits, fmt);
  if (x <= 0)
    return 0;
  if (x >= 1)
    return fromDouble(1.0, fmt, RoundMode::NearestEven);
  return bits;
}

/// Finishes a result computed exactly (or to odd) in double.
uint64_t finish(double v, FloatFormat fmt, RoundMode mode, bool ftz,
                bool sat) {
  uint64_t r = fromDouble(v, fmt, mode);
  if (ftz)
    r = flushSubnormal(r, fmt);
  if (sat)
    r = saturate01(r, fmt);
  return r;
}

double input(uint64_t bits, FloatFormat fmt, bool ftz) {
  if (ftz)
    bits = flushSubnormal(bits, fmt);
  return toDouble(bits, fmt);
}

uint64_t canonF32(float r) {
  uint32_t b = f32ToBits(r);
  return (b & 0x7fffffff) > 0x7f800000 ? 0x7fffffff : b;
}
uint64_t canonF64(double r) {
  uint64_t b = f64ToBits(r);
  return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull
             ? 0x7fffffffffffffffull
             : b;
}

/// min/max on bits: a NaN operand yields the other operand (both NaN, or
/// .NaN: the canonical NaN); -0 orders below +0.
uint64_t minMax(bool isMax, uint64_t a, uint64_t b, FloatFormat fmt,
                bool ftz, bool propagateNaN) {
  if (ftz) {
    a = flushSubnormal(a, fmt);
    b = flushSubnormal(b, fmt);
  }
  bool na = isNaNBits(a, fmt), nb = isNaNBits(b, fmt);
  if (na || nb) {
    if (propagateNaN || (na && nb))
      return canonicalNaN(fmt);
    return na ? b : a;
  }
  double x = toDouble(a, fmt), y = toDouble(b, fmt);
  if (x == y) {
    bool signA = a >> (fmt.totalBits() - 1);
    // Equal values: pick by sign so min(-0, +0) = -0, max = +0.
    return (signA == isMax) ? b : a;
  }
  return ((x < y) != isMax) ? a : b;
}

} // namespace

uint64_t kaio::interp::detail::floatBinary(Opc op, const Instr &in,
                                           uint64_t a, uint64_t b) {
  const PTXType t = in.type;
  const bool ftz = in.flags & FFtz, sat = in.flags & FSat;
  const RoundMode mode = roundModeOf(in.rnd);
  if (op == Opc::Min || op == Opc::Max) {
    FloatFormat fmt = formatOf(t);
    bool nan = in.flags & FNaN;
    return perHalf(t, a, b, 0, [&](uint64_t x, uint64_t y, uint64_t) {
      return minMax(op == Opc::Max, x, y, fmt, ftz, nan);
    });
  }
  if (t == PTXType::f32) {
    float x = bitsToF32(uint32_t(a)), y = bitsToF32(uint32_t(b));
    if (ftz) {
      x = float(input(a, kF32, true));
      y = float(input(b, kF32, true));
    }
    uint64_t r;
    if (op == Opc::Div && (in.flags & (FApprox | FFull))) {
      r = canonF32(x / y);
    } else if (mode == RoundMode::NearestEven) {
      float v = op == Opc::Add   ? x + y
                : op == Opc::Sub ? x - y
                : op == Opc::Mul ? x * y
                                 : x / y;
      r = canonF32(v);
    } else {
      double v = op == Opc::Add   ? addToOdd(x, y)
                 : op == Opc::Sub ? addToOdd(x, -double(y))
                 : op == Opc::Mul ? mulToOdd(x, y)
                                  : divToOdd(x, y);
      r = fromDouble(v, kF32, mode);
    }
    if (ftz)
      r = flushSubnormal(r, kF32);
    if (sat)
      r = saturate01(r, kF32);
    return r;
  }
  if (t == PTXType::f64) {
    double x = bitsToF64(a), y = bitsToF64(b);
    double v = op == Opc::Add   ? addF64(x, y, mode)
               : op == Opc::Sub ? addF64(x, -y, mode)
               : op == Opc::Mul ? mulF64(x, y, mode)
                                : divF64(x, y, mode);
    return canonF64(v);
  }
  // Half types: the exact sum or product of two halves is a double (the
  // bf16 sum may round, but never across a bf16 rounding boundary).
  FloatFormat fmt = formatOf(t);
  return perHalf(t, a, b, 0, [&](uint64_t p, uint64_t q, uint64_t) {
    double x = input(p, fmt, ftz), y = input(q, fmt, ftz);
    double v = op == Opc::Add ? x + y : op == Opc::Sub ? x - y : x * y;
    return finish(v, fmt, RoundMode::NearestEven, ftz, sat);
  });
}

uint64_t kaio::interp::detail::floatFma(const Instr &in, uint64_t a,
                                        uint64_t b, uint64_t c) {
  const PTXType t = in.type;
  const bool ftz = in.flags & FFtz, sat = in.flags & FSat;
  const RoundMode mode = roundModeOf(in.rnd);
  if (t == PTXType::f32 && !ftz && !sat && mode == RoundMode::NearestEven)
    return canonF32(std::fma(bitsToF32(uint32_t(a)), bitsToF32(uint32_t(b)),
                             bitsToF32(uint32_t(c))));
  if (t == PTXType::f64)
    return canonF64(fmaF64(bitsToF64(a), bitsToF64(b), bitsToF64(c), mode));
  FloatFormat fmt = formatOf(t);
  return perHalf(t, a, b, c, [&](uint64_t p, uint64_t q, uint64_t r) {
    double v = fmaToOdd(input(p, fmt, ftz), input(q, fmt, ftz),
                        input(r, fmt, ftz));
    return finish(v, fmt, mode, ftz, sat);
  });
}

uint64_t kaio::interp::detail::floatUnary(Opc op, const Instr &in,
                                          uint64_t a) {
  const PTXType t = in.type;
  FloatFormat fmt = formatOf(t);
  const bool ftz = in.flags & FFtz;
  return perHalf(t, a, 0, 0, [&](uint64_t x, uint64_t, uint64_t) {
    if (ftz)
      x = flushSubnormal(x, fmt);
    uint64_t sign = 1ull << (fmt.totalBits() - 1);
    return op == Opc::Abs ? x & ~sign : x ^ sign;
  });
}

uint64_t kaio::interp::detail::specialFunction(Opc op, const Instr &in,
                                               uint64_t a) {
  const PTXType t = in.type;
  const bool ftz = in.flags & FFtz;
  const bool approx = in.flags & FApprox;
  const RoundMode mode = roundModeOf(in.rnd);
  if (t == PTXType::f64) {
    double x = bitsToF64(a);
    double v;
    switch (op) {
    case Opc::Rcp:
      v = approx ? 1.0 / x : divF64(1.0, x, mode);
      break;
    case Opc::Sqrt:
      v = sqrtF64(x, mode);
      break;
    case Opc::Rsqrt:
      v = 1.0 / std::sqrt(x);
      break;
    default:
      v = std::numeric_limits<double>::quiet_NaN();
      break;
    }
    return canonF64(v);
  }
  FloatFormat fmt = formatOf(t);
  return perHalf(t, a, 0, 0, [&](uint64_t bits, uint64_t, uint64_t) {
    // f32 ftz, and the approximate functions flush f32 subnormals anyway
    // when .ftz is given; halves keep theirs.
    double x = input(bits, fmt, ftz);
    if (!approx && (op == Opc::Rcp || op == Opc::Sqrt)) {
      // IEEE-rounded rcp/sqrt.
      double v = op == Opc::Rcp ? divToOdd(1.0, x) : sqrtToOdd(x);
      return finish(v, fmt, mode, ftz, false);
    }
    float xf = float(x), v;
    switch (op) {
    case Opc::Ex2:
      v = std::exp2(xf);
      break;
    case Opc::Lg2:
      v = std::log2(xf);
      break;
    case Opc::Sin:
      v = std::sin(xf);
      break;
    case Opc::Cos:
      v = std::cos(xf);
      break;
    case Opc::Tanh:
      v = std::tanh(xf);
      break;
    case Opc::Rcp:
      v = 1.0f / xf;
      break;
    case Opc::Sqrt:
      v = std::sqrt(xf);
      break;
    default: // Rsqrt
      v = 1.0f / std::sqrt(xf);
      break;
    }
    return finish(v, fmt, RoundMode::NearestEven, ftz, false);
  });
}

uint64_t kaio::interp::detail::intBinary(Opc op, const Instr &in, uint64_t a,
                                         uint64_t b) {
  const PTXType t = in.type;
  const unsigned w = getBitWidth(t);
  const bool sgn = isSigned(t);
  const uint64_t m = maskBits(w);
  const int64_t sa = signExtend(a & m, w), sb = signExtend(b & m, w);
  const uint64_t ua = a & m, ub = b & m;
  switch (op) {
  case Opc::Add:
  case Opc::Sub: {
    if (in.flags & FSat) { // add.sat.s32
      int64_t v = op == Opc::Add ? sa + sb : sa - sb;
      v = std::min<int64_t>(std::max<int64_t>(v, INT32_MIN), INT32_MAX);
      return uint64_t(v) & m;
    }
    return (op == Opc::Add ? ua + ub : ua - ub) & m;
  }
  case Opc::Mul: {
    MulMode mode = MulMode(in.aux);
    if (mode == MulMode::lo)
      return (ua * ub) & m;
    if (mode == MulMode::wide)
      return sgn ? uint64_t(sa * sb) & maskBits(2 * w) : (ua * ub);
    // hi
    if (w == 64) {
      if (sgn)
        return uint64_t((__int128(sa) * __int128(sb)) >> 64);
      return uint64_t((unsigned __int128)ua * ub >> 64);
    }
    return (sgn ? uint64_t((sa * sb) >> w) : (ua * ub) >> w) & m;
  }
  case Opc::Div:
    if (ub == 0)
      return m; // machine-specific in PTX; all ones
    if (sgn) {
      if (sb == -1)
        return uint64_t(-uint64_t(sa)) & m;
      return uint64_t(sa / sb) & m;
    }
    return ua / ub;
  case Opc::Rem:
    if (ub == 0)
      return ua;
    if (sgn) {
      if (sb == -1)
        return 0;
      return uint64_t(sa % sb) & m;
    }
    return ua % ub;
  case Opc::Min:
    return sgn ? (sa < sb ? ua : ub) : (ua < ub ? ua : ub);
  case Opc::Max:
    return sgn ? (sa > sb ? ua : ub) : (ua > ub ? ua : ub);
  case Opc::Abs:
    return uint64_t(sa < 0 ? -uint64_t(sa) : sa) & m;
  case Opc::Neg:
    return (-ua) & m;
  default:
    return 0;
  }
}

uint64_t kaio::interp::detail::intMad(const Instr &in, uint64_t a, uint64_t b,
                                      uint64_t c) {
  const PTXType t = in.type;
  const unsigned w = getBitWidth(t);
  MulMode mode = MulMode(in.aux);
  uint64_t prod = intBinary(Opc::Mul, in, a, b);
  if (mode == MulMode::wide)
    return (prod + c) & maskBits(2 * w);
  if (mode == MulMode::hi && (in.flags & FSat)) { // mad.hi.sat.s32
    int64_t v = signExtend(prod, 32) + signExtend(c & 0xffffffff, 32);
    v = std::min<int64_t>(std::max<int64_t>(v, INT32_MIN), INT32_MAX);
    return uint64_t(v) & 0xffffffff;
  }
  return (prod + c) & maskBits(w);
}

uint32_t kaio::interp::detail::permute(uint32_t a, uint32_t b, uint32_t c,
                                       unsigned mode) {
  const uint64_t src = uint64_t(b) << 32 | a;
  auto byteAt = [&](unsigned i) { return uint32_t(src >> (8 * (i & 7))) & 0xff; };
  if (mode == 0) { // default: a selector nibble per result byte
    uint32_t d = 0;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned sel = (c >> (4 * i)) & 0xf;
      uint32_t byte = byteAt(sel & 7);
      if (sel & 8) // replicate the sign bit
        byte = (byte & 0x80) ? 0xff : 0;
      d |= byte << (8 * i);
    }
    return d;
  }
  // PTX ISA prmt table: source byte index for d.b0 .. d.b3.
  static const uint8_t table[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, // rc16
  };
  const uint8_t *row = table[mode - 1][c & 3];
  uint32_t d = 0;
  for (unsigned i = 0; i < 4; ++i)
    d |= byteAt(row[i]) << (8 * i);
  return d;
}

uint32_t kaio::interp::detail::lop3(uint32_t a, uint32_t b, uint32_t c,
                                    uint32_t lut) {
  uint32_t d = 0;
  for (unsigned i = 0; i < 8; ++i)
    if (lut & (1u << i))
      d |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  return d;
}

uint64_t kaio::interp::detail::bitOp(Opc op, const Instr &in, uint64_t a,
                                     uint64_t b, uint64_t c, uint64_t d) {
  const PTXType t = in.type;
  const unsigned w = getBitWidth(t);
  const uint64_t m = maskBits(w);
  switch (op) {
  case Opc::Shl: {
    uint32_t n = uint32_t(b);
    return n >= w ? 0 : (a << n) & m;
  }
  case Opc::Shr: {
    uint32_t n = uint32_t(b);
    if (isSigned(t)) {
      int64_t v = signExtend(a & m, w);
      return uint64_t(v >> std::min<uint32_t>(n, 63)) & m;
    }
    return n >= w ? 0 : (a & m) >> n;
  }
  case Opc::Popc:
    return __builtin_popcountll(a & m);
  case Opc::Clz:
    return (a & m) == 0 ? w : __builtin_clzll(a & m) - (64 - w);
  case Opc::Brev: {
    uint64_t r = 0;
    for (unsigned i = 0; i < w; ++i)
      if (a & (1ull << i))
        r |= 1ull << (w - 1 - i);
    return r;
  }
  case Opc::Bfe: {
    unsigned msb = w - 1, pos = b & 0xff, len = c & 0xff;
    unsigned sbit = 0;
    if (isSigned(t) && len != 0)
      sbit = (a >> std::min(pos + len - 1, msb)) & 1;
    uint64_t r = 0;
    for (unsigned i = 0; i <= msb; ++i) {
      unsigned bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit;
      r |= uint64_t(bit) << i;
    }
    return r;
  }
  case Opc::Bfi: {
    unsigned msb = w - 1, pos = c & 0xff, len = d & 0xff;
    uint64_t f = b & m;
    for (unsigned i = 0; i < len && pos + i <= msb; ++i)
      f = (f & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
    return f;
  }
  default:
    return 0;
  }
}

bool kaio::interp::detail::setpCompare(const Instr &in, uint64_t a,
                                       uint64_t b) {
  const PTXType t = in.type;
  const CmpOp cmp = CmpOp(in.aux);
  if (isFloat(t)) {
    FloatFormat fmt = formatOf(t);
    bool ftz = in.flags & FFtz;
    double x = input(a, fmt, ftz), y = input(b, fmt, ftz);
    bool unord = std::isnan(x) || std::isnan(y);
    switch (cmp) {
    case CmpOp::eq:
      return !unord && x == y;
    case CmpOp::ne:
      return !unord && x != y;
    case CmpOp::lt:
      return !unord && x < y;
    case CmpOp::le:
      return !unord && x <= y;
    case CmpOp::gt:
      return !unord && x > y;
    case CmpOp::ge:
      return !unord && x >= y;
    case CmpOp::equ:
      return unord || x == y;
    case CmpOp::neu:
      return unord || x != y;
    case CmpOp::ltu:
      return unord || x < y;
    case CmpOp::leu:
      return unord || x <= y;
    case CmpOp::gtu:
      return unord || x > y;
    case CmpOp::geu:
      return unord || x >= y;
    case CmpOp::num:
      return !unord;
    case CmpOp::nan:
      return unord;
    default:
      return false;
    }
  }
  const unsigned w = getBitWidth(t);
  const uint64_t m = maskBits(w);
  const uint64_t ua = a & m, ub = b & m;
  const int64_t sa = signExtend(ua, w), sb = signExtend(ub, w);
  const bool sgn = isSigned(t);
  switch (cmp) {
  case CmpOp::eq:
    return ua == ub;
  case CmpOp::ne:
    return ua != ub;
  case CmpOp::lt:
    return sgn ? sa < sb : ua < ub;
  case CmpOp::le:
    return sgn ? sa <= sb : ua <= ub;
  case CmpOp::gt:
    return sgn ? sa > sb : ua > ub;
  case CmpOp::ge:
    return sgn ? sa >= sb : ua >= ub;
  case CmpOp::lo:
    return ua < ub;
  case CmpOp::ls:
    return ua <= ub;
  case CmpOp::hi:
    return ua > ub;
  case CmpOp::hs:
    return ua >= ub;
  default:
    return false;
  }
}

namespace {

double roundIntegral(double x, uint8_t rnd) {
  switch (Rounding(rnd)) {
  case Rounding::rzi:
    return std::trunc(x);
  case Rounding::rmi:
    return std::floor(x);
  case Rounding::rpi:
    return std::ceil(x);
  default:
    return std::nearbyint(x); // host mode is round-to-nearest-even
  }
}

uint64_t extendTo(uint64_t v, PTXType dst, unsigned regBits) {
  unsigned db = getBitWidth(dst);
  v &= maskBits(db);
  if (isSigned(dst))
    v = uint64_t(signExtend(v, db));
  return v & maskBits(regBits);
}

} // namespace

uint64_t kaio::interp::detail::convert(const Instr &in, uint64_t v) {
  const PTXType dst = in.type, src = PTXType(in.aux);
  const unsigned sb = getBitWidth(src), db = getBitWidth(dst);
  const bool fs = isFloat(src), fd = isFloat(dst);
  const bool sat = in.flags & FSat, ftz = in.flags & FFtz;
  const unsigned regBits = in.rbits ? in.rbits : 64;
  if (!fs && !fd) {
    const bool ss = isSigned(src);
    const int64_t sv = signExtend(v & maskBits(sb), sb);
    const uint64_t uv = v & maskBits(sb);
    uint64_t out = ss ? uint64_t(sv) : uv;
    if (sat) {
      if (isSigned(dst)) {
        int64_t hi = int64_t(maskBits(db - 1)), lo = -hi - 1;
        if (ss)
          out = uint64_t(std::min(std::max(sv, lo), hi));
        else
          out = uv > uint64_t(hi) ? uint64_t(hi) : uv;
      } else {
        uint64_t hi = maskBits(db);
        if (ss)
          out = sv < 0 ? 0 : std::min(uint64_t(sv), hi);
        else
          out = std::min(uv, hi);
      }
    }
    return extendTo(out, dst, regBits);
  }
  if (!fs) { // integer → float
    bool neg = false;
    uint64_t mag;
    if (isSigned(src)) {
      int64_t sv = signExtend(v & maskBits(sb), sb);
      neg = sv < 0;
      mag = neg ? 0 - uint64_t(sv) : uint64_t(sv);
    } else {
      mag = v & maskBits(sb);
    }
    FloatFormat fmt = formatOf(dst);
    uint64_t r = roundToFormat(neg, mag, 0, fmt, roundModeOf(in.rnd));
    if (sat)
      r = saturate01(r, fmt);
    return r & maskBits(regBits);
  }
  const FloatFormat sfmt = formatOf(src);
  const double x = input(v & maskBits(sb), sfmt, ftz && src == PTXType::f32);
  if (!fd) { // float → integer: NaN is 0, out-of-range values saturate
    double r = roundIntegral(x, in.rnd);
    uint64_t out;
    if (std::isnan(r)) {
      out = 0;
    } else if (isSigned(dst)) {
      double lim = std::ldexp(1.0, int(db) - 1); // 2^(db-1)
      if (r >= lim)
        out = maskBits(db - 1);
      else if (r < -lim)
        out = uint64_t(-int64_t(maskBits(db - 1)) - 1);
      else
        out = uint64_t(int64_t(r));
    } else {
      double lim = std::ldexp(1.0, int(db));
      if (r <= 0)
        out = 0;
      else if (r >= lim)
        out = maskBits(db);
      else
        out = uint64_t(r);
    }
    return extendTo(out, dst, regBits);
  }
  // float → float
  uint64_t r;
  if (dst == PTXType::tf32) {
    r = fromDouble(x, kTF32, RoundMode::NearestAway) << 13;
    return r & maskBits(regBits);
  }
  const FloatFormat dfmt = formatOf(dst);
  Rounding rnd = Rounding(in.rnd);
  bool toIntegral = in.rnd != kNoRnd &&
                    (rnd == Rounding::rni || rnd == Rounding::rzi ||
                     rnd == Rounding::rmi || rnd == Rounding::rpi);
  if (toIntegral)
    r = fromDouble(roundIntegral(x, in.rnd), dfmt, RoundMode::NearestEven);
  else
    r = fromDouble(x, dfmt, roundModeOf(in.rnd));
  if (in.flags & FRelu) {
    if (isNaNBits(r, dfmt))
      r = canonicalNaN(dfmt);
    else if (r >> (dfmt.totalBits() - 1))
      r = 0;
  }
  if (ftz && dst == PTXType::f32)
    r = flushSubnormal(r, dfmt);
  if (sat)
    r = saturate01(r, dfmt);
  return r & maskBits(regBits);
}

uint64_t kaio::interp::detail::convertPack(const Instr &in, uint64_t hi,
                                           uint64_t lo) {
  const FloatFormat fmt = formatOf(in.type);
  const RoundMode mode = roundModeOf(in.rnd);
  auto one = [&](uint64_t bits) {
    double x = toDouble(bits & 0xffffffff, kF32);
    uint64_t r = fromDouble(x, fmt, mode);
    // .satfinite: infinities become the largest finite value of that sign.
    if ((in.flags & FSatFinite) && !std::isnan(x) &&
        std::isinf(toDouble(r, fmt)))
      r = (r & 0x8000) | (fmt.expBits == 5 ? 0x7bff : 0x7f7f);
    if (in.flags & FRelu) {
      if (isNaNBits(r, fmt))
        r = canonicalNaN(fmt);
      else if (r >> 15)
        r = 0;
    }
    return r & 0xffff;
  };
  return one(lo) | (one(hi) << 16);
}

uint64_t kaio::interp::detail::atomicResult(AtomicOp op, PTXType t,
                                            uint64_t old, uint64_t b,
                                            uint64_t c) {
  const unsigned w = getBitWidth(t);
  const uint64_t m = maskBits(w);
  old &= m;
  b &= m;
  switch (op) {
  case AtomicOp::add:
    if (isFloat(t)) {
      Instr in;
      in.type = t;
      return floatBinary(Opc::Add, in, old, b) & m;
    }
    return (old + b) & m;
  case AtomicOp::min:
  case AtomicOp::max: {
    bool isMax = op == AtomicOp::max;
    if (isSigned(t)) {
      int64_t x = signExtend(old, w), y = signExtend(b, w);
      return (isMax ? (y > x) : (y < x)) ? b : old;
    }
    return (isMax ? (b > old) : (b < old)) ? b : old;
  }
  case AtomicOp::inc:
    return old >= b ? 0 : (old + 1) & m;
  case AtomicOp::dec:
    return (old == 0 || old > b) ? b : old - 1;
  case AtomicOp::And:
    return old & b;
  case AtomicOp::Or:
    return old | b;
  case AtomicOp::Xor:
    return old ^ b;
  case AtomicOp::exch:
    return b;
  case AtomicOp::cas:
    return old == b ? (c & m) : old;
  }
  return old;
}
