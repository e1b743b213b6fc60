//===- ActivationReference.h - the activations in f64, for tests -*- C++ -*-===//
//
// The definitions (Kaio/Ops/Elementwise.h) evaluated in double with the C
// library's exp, tanh and erf: the reference every kernel that applies an
// activation is checked against.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_TEST_UNITTESTS_OPS_ACTIVATIONREFERENCE_H
#define KAIO_TEST_UNITTESTS_OPS_ACTIVATIONREFERENCE_H

#include "Kaio/Ops/Elementwise.h"

#include <algorithm>
#include <cmath>

namespace kaio::test {

inline double referenceActivation(ops::Activation act, double x) {
  switch (act) {
  case ops::Activation::None:
    return x;
  case ops::Activation::Relu:
    return std::max(x, 0.0);
  case ops::Activation::Silu:
    return x / (1 + std::exp(-x));
  case ops::Activation::GeluTanh:
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  case ops::Activation::GeluErf:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  }
  return x;
}

} // namespace kaio::test

#endif // KAIO_TEST_UNITTESTS_OPS_ACTIVATIONREFERENCE_H
