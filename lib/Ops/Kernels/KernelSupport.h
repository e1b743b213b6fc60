//===- KernelSupport.h - builder helpers the library's kernels share -----===//
//
// Element-type names, f32 conversions and 16-byte chunk loads and stores for
// kernels written with the C++ builder once for f32, f16 and bf16.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_OPS_KERNELS_KERNELSUPPORT_H
#define KAIO_LIB_OPS_KERNELS_KERNELSUPPORT_H

#include "Kaio/Builder/Builder.h"

#include <array>
#include <string>
#include <type_traits>

namespace kaio::ops::kernels::support {

using namespace kaio::builder;

template <class T> constexpr const char *typeName() {
  if constexpr (std::is_same_v<T, float>)
    return "f32";
  else if constexpr (std::is_same_v<T, f16>)
    return "f16";
  else
    return "bf16";
}

/// `base_type` or `base_type_vN`.
template <class T, unsigned V> std::string kernelName(const char *base) {
  std::string name = std::string(base) + "_" + typeName<T>();
  if (V > 1)
    name += "_v" + std::to_string(V);
  return name;
}

template <class T> F32 toF32(const Val<T> &v) {
  if constexpr (std::is_same_v<T, float>)
    return v;
  else
    return cast<float>(v);
}
template <class T> Val<T> fromF32(const F32 &v) {
  if constexpr (std::is_same_v<T, float>)
    return v;
  else
    return cast<T>(v);
}
/// v rounded to T and back: what storing v as a T and reading it gives.
template <class T> F32 roundTo(const F32 &v) { return toF32(fromF32<T>(v)); }

template <unsigned W> using Chunk = std::array<F32, W>;
template <unsigned W> using Width = std::integral_constant<unsigned, W>;

/// Elements i .. i+W-1 of a row, as f32 (one vector access when W > 1).
template <unsigned W, class T>
Chunk<W> loadChunk(const Ptr<T> &p, const U32 &i) {
  Chunk<W> out;
  if constexpr (W == 1) {
    out[0] = toF32(p.load(i));
  } else {
    auto v = p.template loadVector<W>(i);
    for (unsigned j = 0; j < W; ++j)
      out[j] = toF32(v[j]);
  }
  return out;
}
/// The same where `mask` holds, else `other` everywhere (nothing read).
template <unsigned W, class T>
Chunk<W> loadChunkOr(const Ptr<T> &p, const U32 &i, const Pred &mask,
                     float other) {
  Chunk<W> out;
  if constexpr (W == 1) {
    out[0] = toF32(p.load(i, mask, other));
  } else {
    auto v = p.template loadVector<W>(i, mask, other);
    for (unsigned j = 0; j < W; ++j)
      out[j] = toF32(v[j]);
  }
  return out;
}
/// Stores a chunk, converted to the pointer's element type.
template <unsigned W, class T>
void storeChunk(const Ptr<T> &p, const U32 &i, const Chunk<W> &values,
                const Pred *mask = nullptr) {
  std::array<Val<T>, W> v;
  for (unsigned j = 0; j < W; ++j)
    v[j] = fromF32<T>(values[j]);
  if constexpr (W == 1) {
    if (mask)
      p.store(i, v[0], *mask);
    else
      p.store(i, v[0]);
  } else {
    if (mask)
      p.template storeVector<W>(i, v, *mask);
    else
      p.template storeVector<W>(i, v);
  }
}

/// Elements per 16-byte access of T.
template <class T> constexpr unsigned vectorWidth() {
  return std::is_same_v<T, float> ? 4 : 8;
}

} // namespace kaio::ops::kernels::support

#endif // KAIO_LIB_OPS_KERNELS_KERNELSUPPORT_H
