//===- ElementwiseKernels.cpp - activations, GLUs and adds, with the builder ===//
//
// Thread (blockIdx.x * blockDim + threadIdx.x) owns the V-element chunk at
// column c = that * V of every row blockIdx.y, blockIdx.y + gridDim.y, ...:
// one 16-byte access per operand when the chunk lies inside the row, and
// element by element for the part of the row past its last whole chunk.
// Arithmetic is f32 whatever the storage type.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "Activation.h"
#include "KernelSupport.h"

#include <array>
#include <cmath>
#include <tuple>
#include <utility>

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::support;

namespace {

/// Calls body(Width<W>, row pointer offset helper, column) for this thread's
/// chunk of every row it owns: Width<V> inside the row, Width<1> per element
/// of a row's ragged end.
template <unsigned V, class F>
void forEachChunk(KernelBuilder &k, const U32 &rows, const U32 &cols,
                  F body) {
  U32 chunk = k.blockId() * k.blockDim() + k.threadId();
  U32 col = chunk * V;
  k.for_(k.blockId(Dim::y), rows, k.gridDim(Dim::y), [&](U32 row) {
    U64 r = cast<uint64_t>(row);
    if constexpr (V == 1) {
      k.if_(col < cols, [&] { body(Width<1>(), r, col); });
    } else {
      k.if_(
          col + V <= cols, [&] { body(Width<V>(), r, col); },
          [&] {
            k.for_(col, cols, 1u, [&](U32 j) { body(Width<1>(), r, j); });
          });
    }
  });
}

template <class P> P rowAt(const P &base, const U64 &row, const U32 &ld) {
  return base + row * cast<uint64_t>(ld);
}

template <class T, unsigned V>
void buildBiasActivation(ModuleBuilder &mb, Activation act) {
  std::string base = std::string("bias_") + getActivationName(act);
  mb.kernel(kernelName<T, V>(base.c_str()), {int32_t(kElementwiseBlock)},
            [act](KernelBuilder &k) {
              auto x = k.param<Ptr<const T>>("x");
              auto bias = k.param<Ptr<const T>>("bias");
              auto out = k.param<Ptr<T>>("out");
              auto rows = k.param<uint32_t>("rows");
              auto cols = k.param<uint32_t>("cols");
              auto ldx = k.param<uint32_t>("ld_x");
              auto ldout = k.param<uint32_t>("ld_out");
              auto flags = k.param<uint32_t>("flags");
              Pred hasBias = (flags & uint32_t(kBiasPresent)) != 0u;
              forEachChunk<V>(k, rows, cols, [&](auto width, const U64 &row,
                                                 const U32 &col) {
                constexpr unsigned W = decltype(width)::value;
                Chunk<W> v = loadChunk<W>(rowAt(x, row, ldx), col);
                Chunk<W> b = loadChunkOr<W>(bias, col, hasBias, 0.0f);
                for (unsigned j = 0; j < W; ++j)
                  v[j] = activate<!std::is_same_v<T, float>>(act, v[j] + b[j]);
                storeChunk<W>(rowAt(out, row, ldout), col, v);
              });
            });
}

/// out = combine(a, b) element-wise (f32), for two same-shaped inputs named
/// `aName` and `bName` (their leading dimensions ld_<name>).
template <class T, unsigned V, class F>
void buildBinary(ModuleBuilder &mb, const std::string &base,
                 const char *aName, const char *bName, F combine) {
  std::string ldA = std::string("ld_") + aName, ldB = std::string("ld_") + bName;
  mb.kernel(kernelName<T, V>(base.c_str()), {int32_t(kElementwiseBlock)},
            [&](KernelBuilder &k) {
              auto a = k.param<Ptr<const T>>(aName);
              auto b = k.param<Ptr<const T>>(bName);
              auto out = k.param<Ptr<T>>("out");
              auto rows = k.param<uint32_t>("rows");
              auto cols = k.param<uint32_t>("cols");
              auto lda = k.param<uint32_t>(ldA);
              auto ldb = k.param<uint32_t>(ldB);
              auto ldout = k.param<uint32_t>("ld_out");
              forEachChunk<V>(k, rows, cols, [&](auto width, const U64 &row,
                                                 const U32 &col) {
                constexpr unsigned W = decltype(width)::value;
                Chunk<W> x = loadChunk<W>(rowAt(a, row, lda), col);
                Chunk<W> y = loadChunk<W>(rowAt(b, row, ldb), col);
                for (unsigned j = 0; j < W; ++j)
                  x[j] = combine(x[j], y[j]);
                storeChunk<W>(rowAt(out, row, ldout), col, x);
              });
            });
}

/// RoPE: (a, b) -> (a cos - b sin, a sin + b cos) for each pair of every
/// head of each row. Thread t of block (bx, by) rotates group bx * blockDim
/// + t of rows by, by + gridDim.y, ...: one pair (V = 1), or with 16-byte
/// accesses V consecutive pairs (half-split: pairs i0 .. i0 + V - 1, x[i]
/// and x[i + half] each one V-element chunk, V floats of cos and sin; half
/// a multiple of V) or V / 2 (interleaved: one V-element chunk of x; head_dim
/// a multiple of V). The host checks the alignment.
template <class T, unsigned V, bool Interleaved>
void buildRope(ModuleBuilder &mb) {
  constexpr unsigned P = V == 1 ? 1 : Interleaved ? V / 2 : V; // pairs
  std::string name =
      kernelName<T, V>(Interleaved ? "rope_interleaved" : "rope_half");
  mb.kernel(name, {int32_t(kElementwiseBlock)}, [](KernelBuilder &k) {
    auto x = k.param<Ptr<const T>>("x");
    auto out = k.param<Ptr<T>>("out");
    auto positions = k.param<Ptr<const int32_t>>("positions");
    auto cosTable = k.param<Ptr<const float>>("cos");
    auto sinTable = k.param<Ptr<const float>>("sin");
    auto rows = k.param<uint32_t>("rows");
    auto heads = k.param<uint32_t>("heads");
    auto headDim = k.param<uint32_t>("head_dim");
    auto ldx = k.param<uint32_t>("ld_x");
    auto ldout = k.param<uint32_t>("ld_out");
    auto ldcs = k.param<uint32_t>("ld_cs");
    auto maxPos = k.param<uint32_t>("max_pos");
    U32 half = headDim / 2u;
    U32 group = k.blockId() * k.blockDim() + k.threadId();
    U32 groupsPerHead = half / P;
    k.if_(group < heads * groupsPerHead, [&] {
      U32 head = group / groupsPerHead;
      U32 i0 = (group % groupsPerHead) * P; // the first pair
      U32 first = head * headDim + (Interleaved ? 2u * i0 : i0);
      // The partner of element `first` + j: the next one, or half a head on.
      U32 second = Interleaved ? first + 1u : first + half;
      k.for_(k.blockId(Dim::y), rows, k.gridDim(Dim::y), [&](U32 row) {
        U64 r = cast<uint64_t>(row);
        auto xr = x + r * cast<uint64_t>(ldx);
        auto outr = out + r * cast<uint64_t>(ldout);
        I32 pos = positions.load(r);
        Pred valid = (pos >= 0) && (pos.as<uint32_t>() < maxPos);
        U64 at = cast<uint64_t>(pos.as<uint32_t>()) * cast<uint64_t>(ldcs) +
                 cast<uint64_t>(i0);
        // cos and sin of the P pairs, 4 floats (16 bytes) at a time.
        constexpr unsigned W = P < 4 ? P : 4;
        std::array<F32, P> c, s;
        for (unsigned j = 0; j < P; j += W) {
          Chunk<W> cj = loadChunkOr<W>(cosTable + at, k.constant(j), valid, NAN);
          Chunk<W> sj = loadChunkOr<W>(sinTable + at, k.constant(j), valid, NAN);
          for (unsigned e = 0; e < W; ++e) {
            c[j + e] = cj[e];
            s[j + e] = sj[e];
          }
        }
        auto rotate = [&](const F32 &a, const F32 &b, unsigned j) {
          return std::make_pair(a * c[j] - b * s[j], fma(a, s[j], b * c[j]));
        };
        if constexpr (V == 1) {
          auto [a, b] = rotate(toF32(xr.load(first)), toF32(xr.load(second)), 0);
          outr.store(first, fromF32<T>(a));
          outr.store(second, fromF32<T>(b));
        } else if constexpr (Interleaved) {
          Chunk<V> v = loadChunk<V>(xr, first);
          for (unsigned j = 0; j < P; ++j)
            std::tie(v[2 * j], v[2 * j + 1]) = rotate(v[2 * j], v[2 * j + 1], j);
          storeChunk<V>(outr, first, v);
        } else {
          Chunk<V> a = loadChunk<V>(xr, first), b = loadChunk<V>(xr, second);
          for (unsigned j = 0; j < V; ++j)
            std::tie(a[j], b[j]) = rotate(a[j], b[j], j);
          storeChunk<V>(outr, first, a);
          storeChunk<V>(outr, second, b);
        }
      });
    });
  });
}

template <class T> void buildForType(ModuleBuilder &mb) {
  buildRope<T, 1, true>(mb);
  buildRope<T, 1, false>(mb);
  buildRope<T, vectorWidth<T>(), true>(mb);
  buildRope<T, vectorWidth<T>(), false>(mb);
  constexpr unsigned V = vectorWidth<T>();
  for (Activation act : {Activation::None, Activation::Relu, Activation::Silu,
                         Activation::GeluTanh, Activation::GeluErf}) {
    buildBiasActivation<T, V>(mb, act);
    buildBiasActivation<T, 1>(mb, act);
  }
  for (Activation act :
       {Activation::Silu, Activation::GeluTanh, Activation::GeluErf}) {
    auto gated = [act](const F32 &gate, const F32 &up) {
      return activate<!std::is_same_v<T, float>>(act, gate) * up;
    };
    std::string name = std::string("glu_") + getActivationName(act);
    buildBinary<T, V>(mb, name, "gate", "up", gated);
    buildBinary<T, 1>(mb, name, "gate", "up", gated);
  }
  auto add = [](const F32 &a, const F32 &b) { return a + b; };
  buildBinary<T, V>(mb, "add", "a", "b", add);
  buildBinary<T, 1>(mb, "add", "a", "b", add);
}

} // namespace

void kaio::ops::kernels::buildElementwiseKernels(ModuleBuilder &mb) {
  buildForType<float>(mb);
  buildForType<f16>(mb);
  buildForType<bf16>(mb);
}
