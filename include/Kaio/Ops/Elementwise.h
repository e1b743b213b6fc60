//===- Elementwise.h - element-wise ops: activations, GLUs, adds -*- C++ -*-===//
//
// Options and argument checks of Library::biasActivation, gatedActivation
// and add (Kaio/Ops/Library.h), which need no device. Inputs and outputs
// are f32, f16 or bf16 row-major matrices with any leading dimensions;
// arithmetic is f32. Outputs may be an input itself (in place).
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_OPS_ELEMENTWISE_H
#define KAIO_OPS_ELEMENTWISE_H

#include "Kaio/Ops/Tensor.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Stream.h"

#include <cstdint>

namespace kaio::ops {

enum class Activation : std::uint8_t {
  None,     ///< identity
  Relu,     ///< max(x, 0)
  Silu,     ///< x * sigmoid(x) (swish)
  GeluTanh, ///< 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  GeluErf,  ///< 0.5 x (1 + erf(x / sqrt(2)))
};

/// "none", "relu", "silu", "gelu_tanh", "gelu_erf" (also the kernels' names).
constexpr const char *getActivationName(Activation act) {
  switch (act) {
  case Activation::None:
    return "none";
  case Activation::Relu:
    return "relu";
  case Activation::Silu:
    return "silu";
  case Activation::GeluTanh:
    return "gelu_tanh";
  case Activation::GeluErf:
    return "gelu_erf";
  }
  return "?";
}

struct ElementwiseOptions {
  /// biasActivation: a vector of x.cols elements of x's dtype, added before
  /// the activation (optional).
  Matrix bias;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// out = act(x + bias)
rt::Error validateBiasActivation(const Matrix &x, const Matrix &out,
                                 Activation act,
                                 const ElementwiseOptions &options = {});
/// out = act(gate) * up; act is Silu (SwiGLU), GeluTanh or GeluErf (GeGLU).
rt::Error validateGatedActivation(const Matrix &gate, const Matrix &up,
                                  const Matrix &out, Activation act,
                                  const ElementwiseOptions &options = {});
/// out = a + b
rt::Error validateAdd(const Matrix &a, const Matrix &b, const Matrix &out,
                      const ElementwiseOptions &options = {});

/// Which elements of a head rotate together.
enum class RopeLayout : std::uint8_t {
  HalfSplit,   ///< (i, i + head_dim / 2), as in GPT-NeoX and Llama (HF)
  Interleaved, ///< (2i, 2i + 1), as in the original RoFormer and GPT-J
};

struct RopeOptions {
  RopeLayout layout = RopeLayout::HalfSplit;
  /// Null: the legacy default stream.
  const rt::Stream *stream = nullptr;
};

/// rope: rotary position embedding. x is tokens x (heads * head_dim) (f32,
/// f16 or bf16, head_dim even); positions an s32 vector, one per token
/// (offsets, packed sequences and decode steps are just positions); cos and
/// sin f32 tables [max_pos, head_dim / 2] (the angles the caller chose:
/// base, scaling). out may be x (in place). A position outside
/// [0, max_pos) gives NaN in that row (device data the host cannot check).
rt::Error validateRope(const Matrix &x, const Matrix &out,
                       const Matrix &positions, const Matrix &cos,
                       const Matrix &sin, std::int64_t heads,
                       const RopeOptions &options = {});

} // namespace kaio::ops

#endif // KAIO_OPS_ELEMENTWISE_H
