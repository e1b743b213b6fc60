//===- FloatSemantics.cpp - exact PTX floating-point rounding -------------===//
//
// Built with -frounding-math: the *ToOdd and directed-rounding helpers change
// the host rounding mode around single operations, which the compiler must
// neither fold nor move across the mode switch.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Interpreter/FloatSemantics.h"

#include <cfenv>
#include <cmath>
#include <limits>

using namespace kaio::interp;

uint64_t kaio::interp::roundToFormat(bool neg, uint64_t sig, int exp,
                                     FloatFormat fmt, RoundMode mode) {
  const unsigned eb = fmt.expBits, mb = fmt.mantBits;
  const uint64_t signBit = uint64_t(neg) << (eb + mb);
  if (sig == 0)
    return signBit;
  const int msb = 63 - __builtin_clzll(sig);
  const int e = msb + exp; // exponent of the leading bit
  const int bias = (1 << (eb - 1)) - 1;
  const int emin = 1 - bias;
  // Exponent of the last stored fraction bit: fixed below emin (subnormals).
  int qe = (e < emin ? emin : e) - int(mb);
  const int shift = qe - exp;
  uint64_t q;
  if (shift <= 0) {
    q = sig << -shift;
  } else {
    int cmp; // remainder against half an ulp: -1 below, 0 equal, 1 above
    bool inexact = true;
    if (shift > 64) {
      q = 0;
      cmp = -1;
    } else if (shift == 64) {
      q = 0;
      const uint64_t half = 1ull << 63;
      cmp = sig > half ? 1 : sig == half ? 0 : -1;
    } else {
      q = sig >> shift;
      const uint64_t rem = sig & ((1ull << shift) - 1);
      const uint64_t half = 1ull << (shift - 1);
      cmp = rem > half ? 1 : rem == half ? 0 : -1;
      inexact = rem != 0;
    }
    bool up = false;
    switch (mode) {
    case RoundMode::NearestEven:
      up = cmp > 0 || (cmp == 0 && (q & 1));
      break;
    case RoundMode::NearestAway:
      up = cmp >= 0;
      break;
    case RoundMode::TowardZero:
      break;
    case RoundMode::Down:
      up = neg && inexact;
      break;
    case RoundMode::Up:
      up = !neg && inexact;
      break;
    }
    q += up;
  }
  if (q >> (mb + 1)) { // the rounding carried into a new binade
    q >>= 1;
    ++qe;
  }
  const uint64_t fracMask = (1ull << mb) - 1;
  const uint64_t expMax = (1ull << eb) - 1;
  uint64_t biased = 0, frac = q;
  if (q >> mb) {
    biased = uint64_t(qe + int(mb) + bias);
    frac = q & fracMask;
  }
  if (biased >= expMax) {
    bool toInf = mode == RoundMode::NearestEven ||
                 mode == RoundMode::NearestAway ||
                 (mode == RoundMode::Up && !neg) ||
                 (mode == RoundMode::Down && neg);
    return toInf ? signBit | (expMax << mb)
                 : signBit | ((expMax - 1) << mb) | fracMask;
  }
  return signBit | (biased << mb) | frac;
}

uint64_t kaio::interp::canonicalNaN(FloatFormat fmt) {
  return (1ull << (fmt.expBits + fmt.mantBits)) - 1;
}

bool kaio::interp::isNaNBits(uint64_t bits, FloatFormat fmt) {
  const uint64_t expMax = (1ull << fmt.expBits) - 1;
  return ((bits >> fmt.mantBits) & expMax) == expMax &&
         (bits & ((1ull << fmt.mantBits) - 1)) != 0;
}

uint64_t kaio::interp::flushSubnormal(uint64_t bits, FloatFormat fmt) {
  const uint64_t expMax = (1ull << fmt.expBits) - 1;
  if (((bits >> fmt.mantBits) & expMax) == 0)
    return bits & (1ull << (fmt.expBits + fmt.mantBits));
  return bits;
}

uint64_t kaio::interp::fromDouble(double x, FloatFormat fmt, RoundMode mode) {
  const uint64_t b = f64ToBits(x);
  const bool neg = b >> 63;
  const uint64_t exp = (b >> 52) & 0x7ff, frac = b & ((1ull << 52) - 1);
  const uint64_t signBit = uint64_t(neg) << (fmt.expBits + fmt.mantBits);
  if (exp == 0x7ff) {
    if (frac)
      return canonicalNaN(fmt);
    return signBit | (((1ull << fmt.expBits) - 1) << fmt.mantBits);
  }
  if (exp == 0)
    return roundToFormat(neg, frac, -1074, fmt, mode);
  return roundToFormat(neg, frac | (1ull << 52), int(exp) - 1075, fmt, mode);
}

double kaio::interp::toDouble(uint64_t bits, FloatFormat fmt) {
  const unsigned eb = fmt.expBits, mb = fmt.mantBits;
  const bool neg = (bits >> (eb + mb)) & 1;
  const uint64_t expMax = (1ull << eb) - 1;
  const uint64_t exp = (bits >> mb) & expMax, frac = bits & ((1ull << mb) - 1);
  const int bias = (1 << (eb - 1)) - 1;
  double v;
  if (exp == expMax)
    v = frac ? std::numeric_limits<double>::quiet_NaN()
             : std::numeric_limits<double>::infinity();
  else if (exp == 0)
    v = std::ldexp(double(frac), 1 - bias - int(mb));
  else
    v = std::ldexp(double(frac | (1ull << mb)), int(exp) - bias - int(mb));
  return neg ? -v : v;
}

namespace {
/// Runs `f` rounding toward zero and sets the last bit when it was inexact:
/// round-to-odd, which keeps enough information for one later rounding.
template <typename F>
double toOdd(F f) {
  fenv_t env;
  feholdexcept(&env);
  fesetround(FE_TOWARDZERO);
  volatile double r = f();
  const bool inexact = fetestexcept(FE_INEXACT);
  fesetenv(&env);
  double result = r;
  if (inexact && std::isfinite(result))
    result = bitsToF64(f64ToBits(result) | 1);
  return result;
}

int hostMode(RoundMode mode) {
  switch (mode) {
  case RoundMode::TowardZero:
    return FE_TOWARDZERO;
  case RoundMode::Down:
    return FE_DOWNWARD;
  case RoundMode::Up:
    return FE_UPWARD;
  default:
    return FE_TONEAREST;
  }
}

template <typename F>
double withMode(RoundMode mode, F f) {
  if (mode == RoundMode::NearestEven)
    return f();
  const int old = fegetround();
  fesetround(hostMode(mode));
  volatile double r = f();
  fesetround(old);
  return r;
}
} // namespace

double kaio::interp::addToOdd(double a, double b) {
  volatile double x = a, y = b;
  return toOdd([&] { return x + y; });
}
double kaio::interp::mulToOdd(double a, double b) {
  volatile double x = a, y = b;
  return toOdd([&] { return x * y; });
}
double kaio::interp::fmaToOdd(double a, double b, double c) {
  volatile double x = a, y = b, z = c;
  return toOdd([&] { return std::fma(x, y, z); });
}
double kaio::interp::divToOdd(double a, double b) {
  volatile double x = a, y = b;
  return toOdd([&] { return x / y; });
}
double kaio::interp::sqrtToOdd(double a) {
  volatile double x = a;
  return toOdd([&] { return std::sqrt(double(x)); });
}

double kaio::interp::addF64(double a, double b, RoundMode mode) {
  volatile double x = a, y = b;
  return withMode(mode, [&] { return x + y; });
}
double kaio::interp::mulF64(double a, double b, RoundMode mode) {
  volatile double x = a, y = b;
  return withMode(mode, [&] { return x * y; });
}
double kaio::interp::fmaF64(double a, double b, double c, RoundMode mode) {
  volatile double x = a, y = b, z = c;
  return withMode(mode, [&] { return std::fma(x, y, z); });
}
double kaio::interp::divF64(double a, double b, RoundMode mode) {
  volatile double x = a, y = b;
  return withMode(mode, [&] { return x / y; });
}
double kaio::interp::sqrtF64(double a, RoundMode mode) {
  volatile double x = a;
  return withMode(mode, [&] { return std::sqrt(double(x)); });
}
