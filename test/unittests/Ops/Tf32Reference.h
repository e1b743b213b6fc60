//===- Tf32Reference.h - f32 rounded to tf32 for test references -*- C++ -*-===//
//
// What cvt.rna.tf32.f32 gives (nearest, ties away from zero: the top 19
// bits kept): test inputs already in tf32 make products exact in f32, so a
// reference does not depend on how a kernel rounds (cvt.rna or wgmma's
// truncation).
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_TEST_UNITTESTS_OPS_TF32REFERENCE_H
#define KAIO_TEST_UNITTESTS_OPS_TF32REFERENCE_H

#include <cstdint>
#include <cstring>

namespace kaio::test {

inline float roundToTf32(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x1000u) & ~0x1FFFu;
  std::memcpy(&x, &bits, 4);
  return x;
}

} // namespace kaio::test

#endif // KAIO_TEST_UNITTESTS_OPS_TF32REFERENCE_H
