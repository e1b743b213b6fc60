//===- Arith.h - per-lane PTX arithmetic semantics --------------*- C++ -*-===//
//
// Scalar semantics of the arithmetic, conversion and special-function
// instructions on raw register bits. Execute.cpp runs these over the lanes
// of a warp.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_INTERPRETER_ARITH_H
#define KAIO_LIB_INTERPRETER_ARITH_H

#include "Internal.h"
#include "Kaio/Interpreter/FloatSemantics.h"

namespace kaio::interp::detail {

inline constexpr uint64_t maskBits(unsigned bits) {
  return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}
inline int64_t signExtend(uint64_t v, unsigned bits) {
  return bits >= 64 ? int64_t(v) : int64_t(v << (64 - bits)) >> (64 - bits);
}

RoundMode roundModeOf(uint8_t rnd);
/// The format of a float PTX type (f16x2 → f16, tf32 → tf32).
FloatFormat formatOf(ptx::PTXType t);

/// add/sub/mul/fma/div/min/max/abs/neg of float type `in.type` on one lane.
uint64_t floatBinary(Opc op, const Instr &in, uint64_t a, uint64_t b);
uint64_t floatFma(const Instr &in, uint64_t a, uint64_t b, uint64_t c);
uint64_t floatUnary(Opc op, const Instr &in, uint64_t a);
/// Special functions (ex2 ... rsqrt).
uint64_t specialFunction(Opc op, const Instr &in, uint64_t a);
/// Integer ops that are not simple wrapping arithmetic.
uint64_t intBinary(Opc op, const Instr &in, uint64_t a, uint64_t b);
uint64_t intMad(const Instr &in, uint64_t a, uint64_t b, uint64_t c);
uint64_t bitOp(Opc op, const Instr &in, uint64_t a, uint64_t b, uint64_t c,
               uint64_t d);
bool setpCompare(const Instr &in, uint64_t a, uint64_t b);
uint64_t convert(const Instr &in, uint64_t v);
uint64_t convertPack(const Instr &in, uint64_t hi, uint64_t lo);
uint32_t permute(uint32_t a, uint32_t b, uint32_t c, unsigned mode);
uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut);
/// The new memory value of an atomic `op` of type `t` (old value `old`,
/// operands b and c); for cas, c is the new value.
uint64_t atomicResult(ptx::AtomicOp op, ptx::PTXType t, uint64_t old,
                      uint64_t b, uint64_t c);

} // namespace kaio::interp::detail

#endif // KAIO_LIB_INTERPRETER_ARITH_H
