//===- Activation.h - the library's activation formulas, written once -*- C++ -*-===//
//
// act(x) in f32 for every kernel that applies one: the builder kernels
// (F = builder::F32, ElementwiseKernels.cpp) and the sm_90a GEMM's fused
// epilogue, written as ptx-dialect text (F = TextF32, PtxWriter.h). Both
// spell the formula with the same operators and free functions (max, exp,
// fma, erf: found by argument-dependent lookup), so there is one definition
// of each activation's arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_OPS_KERNELS_ACTIVATION_H
#define KAIO_LIB_OPS_KERNELS_ACTIVATION_H

#include "Kaio/Ops/Elementwise.h"

namespace kaio::ops::kernels {

/// e^-v and a / b: exactly rounded-ish (exp: ~2 ulp, IEEE division) or,
/// with Fast, ex2.approx.ftz of -v log2(e) and div.full (within 2 ulp;
/// builder values only: fastExp2, fastDiv) — for results rounded to 16
/// bits, whose kernels were compute-bound on the exact forms.
template <bool Fast, class F> F expNeg(const F &v) {
  if constexpr (Fast)
    return fastExp2(v * -1.4426950408889634f);
  else
    return exp(-v);
}
template <bool Fast, class F> F quotient(const F &a, const F &b) {
  if constexpr (Fast)
    return fastDiv(a, b);
  else
    return a / b;
}

/// act(x) in f32 (Fast: see expNeg).
template <bool Fast = false, class F> F activate(Activation act, const F &x) {
  switch (act) {
  case Activation::None:
    return x;
  case Activation::Relu:
    return max(x, 0.0f);
  case Activation::Silu:
    // x / (1 + e^-x): 0 (not NaN) where e^-x overflows.
    return quotient<Fast>(x, 1.0f + expNeg<Fast>(x));
  case Activation::GeluTanh: {
    // 0.5 x (1 + tanh(u)) = x / (1 + e^{-2u}), u = sqrt(2 / pi) (x +
    // 0.044715 x^3): one exp and a division where tanh costs an exp, a
    // division and a polynomial (the 16-bit kernels were compute-bound).
    // Saturates like tanh: x for large x, -0 where e^{-2u} overflows.
    const float k2 = 2.0f * 0.7978845608028654f; // 2 sqrt(2 / pi)
    F twoU = k2 * fma(x * x, 0.044715f, 1.0f) * x;
    return quotient<Fast>(x, 1.0f + expNeg<Fast>(twoU));
  }
  case Activation::GeluErf:
    return 0.5f * x * (1.0f + erf(x * 0.7071067811865476f));
  }
  return x;
}

} // namespace kaio::ops::kernels

#endif // KAIO_LIB_OPS_KERNELS_ACTIVATION_H
