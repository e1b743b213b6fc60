//===- FloatSemantics.h - exact PTX floating-point rounding -----*- C++ -*-===//
//
// Bit-exact rounding of real values into the floating-point formats PTX uses
// (f16, bf16, tf32, f32, f64) under every PTX rounding mode. The interpreter
// computes in double (exactly, or rounded to odd so that the final rounding
// is still correct) and rounds once into the instruction's format here.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_INTERPRETER_FLOATSEMANTICS_H
#define KAIO_INTERPRETER_FLOATSEMANTICS_H

#include <cstdint>
#include <cstring>

namespace kaio::interp {

/// IEEE rounding directions plus PTX's `.rna` (nearest, ties away).
enum class RoundMode : uint8_t { NearestEven, TowardZero, Down, Up, NearestAway };

/// A binary floating-point format: sign, `expBits` exponent bits and
/// `mantBits` stored fraction bits.
struct FloatFormat {
  unsigned expBits, mantBits;
  unsigned totalBits() const { return 1 + expBits + mantBits; }
};
inline constexpr FloatFormat kF16{5, 10};
inline constexpr FloatFormat kBF16{8, 7};
/// tf32 as its own 19-bit format; in a register it is the f32 layout with the
/// low 13 bits zero.
inline constexpr FloatFormat kTF32{8, 10};
inline constexpr FloatFormat kF32{8, 23};
inline constexpr FloatFormat kF64{11, 52};

/// The value (-1)^neg * sig * 2^exp rounded into `fmt`, as a bit pattern.
uint64_t roundToFormat(bool neg, uint64_t sig, int exp, FloatFormat fmt,
                       RoundMode mode);
/// `x` rounded into `fmt`; NaN becomes `fmt`'s canonical NaN.
uint64_t fromDouble(double x, FloatFormat fmt, RoundMode mode);
/// The exact value of a bit pattern of `fmt` (f16/bf16/tf32/f32 fit in a
/// double exactly).
double toDouble(uint64_t bits, FloatFormat fmt);
/// PTX's canonical NaN of `fmt` (all exponent and fraction bits set, sign 0).
uint64_t canonicalNaN(FloatFormat fmt);
bool isNaNBits(uint64_t bits, FloatFormat fmt);
/// Subnormal inputs/outputs flushed to a zero of the same sign (`.ftz`).
uint64_t flushSubnormal(uint64_t bits, FloatFormat fmt);

/// a op b evaluated in double with round-to-odd: rounding the result once
/// more into any format with at most 51 fraction bits gives the correctly
/// rounded result of the exact operation.
double addToOdd(double a, double b);
double mulToOdd(double a, double b);
double fmaToOdd(double a, double b, double c);
double divToOdd(double a, double b);
double sqrtToOdd(double a);
/// f64 operations under a directed rounding mode.
double addF64(double a, double b, RoundMode mode);
double mulF64(double a, double b, RoundMode mode);
double fmaF64(double a, double b, double c, RoundMode mode);
double divF64(double a, double b, RoundMode mode);
double sqrtF64(double a, RoundMode mode);

inline float bitsToF32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t f32ToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline double bitsToF64(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline uint64_t f64ToBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

inline float f16ToF32(uint16_t h) { return float(toDouble(h, kF16)); }
inline uint16_t f32ToF16(float f) {
  return uint16_t(fromDouble(f, kF16, RoundMode::NearestEven));
}
inline float bf16ToF32(uint16_t h) { return bitsToF32(uint32_t(h) << 16); }
inline uint16_t f32ToBF16(float f) {
  return uint16_t(fromDouble(f, kBF16, RoundMode::NearestEven));
}

} // namespace kaio::interp

#endif // KAIO_INTERPRETER_FLOATSEMANTICS_H
