//===- NormBackwardKernels.cpp - RMSNorm and LayerNorm backward -----------===//
//
// dx, a block per row (as the forward): with g = dy * weight and the saved
// rstd r (and mean),
//   RMSNorm:   dx = r (g - h r^2 mean(g h))
//   LayerNorm: dx = r (g - mean(g) - xhat mean(g xhat)), xhat = (h - mean) r.
// dweight = sum over rows of dy * xhat (xhat = h r for RMSNorm) and dbias =
// sum of dy, deterministically: a column per thread sums a fixed slice of
// rows into f32 partials, then a second kernel sums the slices in order.
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "KernelSupport.h"

using namespace kaio;
using namespace kaio::builder;
using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::support;

namespace {

template <class T, unsigned V, bool Layer>
void buildNormDx(ModuleBuilder &mb) {
  mb.kernel(
      kernelName<T, V>(Layer ? "layer_norm_bwd" : "rms_norm_bwd"),
      {int32_t(kRowBlock)}, [](KernelBuilder &k) {
        auto x = k.param<Ptr<const T>>("x");
        auto dy = k.param<Ptr<const T>>("dy");
        auto weight = k.param<Ptr<const T>>("weight");
        auto meanIn = k.param<Ptr<const float>>("mean");
        auto rstdIn = k.param<Ptr<const float>>("rstd");
        auto dx = k.param<Ptr<T>>("dx");
        auto n = k.param<uint32_t>("n");
        auto ldx = k.param<uint32_t>("ld_x");
        auto lddy = k.param<uint32_t>("ld_dy");
        auto lddx = k.param<uint32_t>("ld_dx");
        auto flags = k.param<uint32_t>("flags");
        Pred hasWeight = (flags & uint32_t(kNormBwdWeight)) != 0u;
        U32 tid = k.threadId(), bdim = k.blockDim();
        U64 row = cast<uint64_t>(k.blockId());
        auto xr = rowOf(x, row, ldx);
        auto dyr = rowOf(dy, row, lddy);
        auto dxr = rowOf(dx, row, lddx);
        F32 r = rstdIn.load(row);
        F32 mu = k.constant(0.0f);
        if constexpr (Layer)
          mu = meanIn.load(row);
        else
          (void)meanIn;
        F32 zero = k.constant(0.0f);
        // sum(g) (LayerNorm) and sum(g * xhat), xhat = (h - mu) r.
        auto [sg, sgx] = rowFold<V>(
            k, tid, bdim, n, std::make_tuple(zero, zero),
            [&](auto width, const U32 &i, Pair state) {
              constexpr unsigned W = decltype(width)::value;
              auto [a, b] = state;
              Chunk<W> h = loadChunk<W>(xr, i);
              Chunk<W> d = loadChunk<W>(dyr, i);
              Chunk<W> w = loadChunkOr<W>(weight, i, hasWeight, 1.0f);
              for (unsigned j = 0; j < W; ++j) {
                F32 g = d[j] * w[j];
                a = a + g;
                b = fma(g, (h[j] - mu) * r, b);
              }
              return std::make_tuple(a, b);
            });
        F32 count = cast<float>(n);
        F32 meanG = zero;
        if constexpr (Layer)
          meanG = k.blockReduce(ReduceKind::sum, sg) / count;
        F32 meanGx = k.blockReduce(ReduceKind::sum, sgx) / count;
        rowFor<V>(k, tid, bdim, n, [&](auto width, const U32 &i) {
          constexpr unsigned W = decltype(width)::value;
          Chunk<W> h = loadChunk<W>(xr, i);
          Chunk<W> d = loadChunk<W>(dyr, i);
          Chunk<W> w = loadChunkOr<W>(weight, i, hasWeight, 1.0f);
          for (unsigned j = 0; j < W; ++j) {
            F32 xhat = (h[j] - mu) * r;
            h[j] = r * (d[j] * w[j] - meanG - xhat * meanGx);
          }
          storeChunk<W>(dxr, i, h);
        });
      });
}

template <class T> void buildParams(ModuleBuilder &mb) {
  mb.kernel(
      std::string("norm_bwd_params_") + typeName<T>(),
      {int32_t(kNormParamsBlock)}, [](KernelBuilder &k) {
        auto x = k.param<Ptr<const T>>("x");
        auto dy = k.param<Ptr<const T>>("dy");
        auto meanIn = k.param<Ptr<const float>>("mean");
        auto rstdIn = k.param<Ptr<const float>>("rstd");
        auto partial = k.param<Ptr<float>>("partial");
        auto n = k.param<uint32_t>("n");
        auto rows = k.param<uint32_t>("rows");
        auto ldx = k.param<uint32_t>("ld_x");
        auto lddy = k.param<uint32_t>("ld_dy");
        auto perSplit = k.param<uint32_t>("rows_per_split");
        auto flags = k.param<uint32_t>("flags");
        Pred layer = (flags & uint32_t(kNormBwdLayer)) != 0u;
        U32 col = k.blockId() * kNormParamsBlock + k.threadId();
        U32 split = k.blockId(Dim::y);
        k.if_(col < n, [&] {
          U32 first = split * perSplit;
          U32 last = min(first + perSplit, rows);
          F32 zero = k.constant(0.0f);
          auto [dw, db] = k.unroll(kColumnUnroll).for_(
              first, last, 1u, std::make_tuple(zero, zero),
              [&](U32 r, F32 a, F32 b) {
                U64 r64 = cast<uint64_t>(r);
                F32 h = toF32(x.load(r64 * cast<uint64_t>(ldx) +
                                     cast<uint64_t>(col)));
                F32 d = toF32(dy.load(r64 * cast<uint64_t>(lddy) +
                                      cast<uint64_t>(col)));
                F32 mu = meanIn.load(r, layer, 0.0f);
                F32 xhat = (h - mu) * rstdIn.load(r);
                return std::make_tuple(fma(d, xhat, a), b + d);
              });
          U64 base = cast<uint64_t>(split) * cast<uint64_t>(n) * 2u +
                     cast<uint64_t>(col);
          partial.store(base, dw);
          partial.store(base + cast<uint64_t>(n), db);
        });
      });
}

template <class T> void buildReduce(ModuleBuilder &mb) {
  mb.kernel(std::string("norm_bwd_reduce_") + typeName<T>(),
            {int32_t(kNormParamsBlock)}, [](KernelBuilder &k) {
              auto partial = k.param<Ptr<const float>>("partial");
              auto dweight = k.param<Ptr<T>>("dweight");
              auto dbias = k.param<Ptr<T>>("dbias");
              auto n = k.param<uint32_t>("n");
              auto splits = k.param<uint32_t>("splits");
              auto flags = k.param<uint32_t>("flags");
              U32 col = k.blockId() * kNormParamsBlock + k.threadId();
              k.if_(col < n, [&] {
                F32 zero = k.constant(0.0f);
                auto [dw, db] = k.unroll(kColumnUnroll).for_(
                    0u, splits, 1u, std::make_tuple(zero, zero),
                    [&](U32 p, F32 a, F32 b) {
                      U64 base = cast<uint64_t>(p) * cast<uint64_t>(n) * 2u +
                                 cast<uint64_t>(col);
                      return std::make_tuple(
                          a + partial.load(base),
                          b + partial.load(base + cast<uint64_t>(n)));
                    });
                dweight.store(col, fromF32<T>(dw));
                k.if_((flags & uint32_t(kNormBwdBias)) != 0u,
                      [&] { dbias.store(col, fromF32<T>(db)); });
              });
            });
}

template <class T> void buildForType(ModuleBuilder &mb) {
  constexpr unsigned V = vectorWidth<T>();
  buildNormDx<T, V, false>(mb);
  buildNormDx<T, 1, false>(mb);
  buildNormDx<T, V, true>(mb);
  buildNormDx<T, 1, true>(mb);
  buildParams<T>(mb);
  buildReduce<T>(mb);
}

} // namespace

void kaio::ops::kernels::buildNormBackwardKernels(ModuleBuilder &mb) {
  buildForType<float>(mb);
  buildForType<f16>(mb);
  buildForType<bf16>(mb);
}
