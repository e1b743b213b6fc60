//===- Ops.cpp - C API: the op library ------------------------------------===//
//
// Each kaio_<op> converts its kaio_matrix arguments (checking the enums a C
// caller can get wrong), then calls kaio::ops::Library, which validates
// everything else before launching.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>

using namespace kaio;
using namespace kaio::capi;

namespace {

/// One matrix argument of an op: its name for messages, and whether it may
/// be NULL (absent).
struct MatrixArg {
  const char *name;
  const kaio_matrix *matrix;
  bool optional = false;
};

MatrixArg opt(const char *name, const kaio_matrix *m) {
  return {name, m, true};
}

// kaio_dtype and kaio::ops::DType number the types alike.
static_assert(KAIO_E5M2 == int(ops::DType::E5M2) &&
                  KAIO_S64 == int(ops::DType::S64),
              "kaio_dtype and ops::DType disagree");

kaio_status checkDType(const char *fn, const char *name, kaio_dtype dtype) {
  if (dtype >= KAIO_F16 && dtype <= KAIO_E5M2)
    return KAIO_SUCCESS;
  return fail(KAIO_ERROR_INVALID_VALUE, std::string(fn) + ": " + name +
                                            ": dtype " + std::to_string(dtype) +
                                            " is not a kaio_dtype");
}

kaio_status convert(const char *fn, const MatrixArg &arg, ops::Matrix &out) {
  out = ops::Matrix();
  if (!arg.matrix)
    return arg.optional ? KAIO_SUCCESS : failNull(fn, arg.name);
  const kaio_matrix &m = *arg.matrix;
  // An absent optional argument is spelt NULL, never a zero address.
  if (!m.data)
    return fail(KAIO_ERROR_INVALID_VALUE,
                std::string(fn) + ": " + arg.name +
                    ": data is 0 (pass NULL for an absent optional matrix)");
  if (kaio_status s = checkDType(fn, arg.name, m.dtype))
    return s;
  if (m.layout != KAIO_ROW_MAJOR && m.layout != KAIO_COL_MAJOR)
    return fail(KAIO_ERROR_INVALID_VALUE,
                std::string(fn) + ": " + arg.name + ": layout " +
                    std::to_string(m.layout) + " is not a kaio_layout");
  out.data = m.data;
  out.dtype = static_cast<ops::DType>(m.dtype);
  out.layout = static_cast<ops::Layout>(m.layout);
  out.rows = m.rows;
  out.cols = m.cols;
  out.ld = m.ld;
  out.capacityBytes = m.capacity_bytes;
  return KAIO_SUCCESS;
}

kaio_status checkEnum(const char *fn, const char *name, int32_t value,
                      int32_t last) {
  if (value >= 0 && value <= last)
    return KAIO_SUCCESS;
  return fail(KAIO_ERROR_INVALID_VALUE, std::string(fn) + ": " + name + ": " +
                                            std::to_string(value) +
                                            " is out of range");
}

/// Converts the matrices, loads the library, borrows the stream, then runs
/// `body(library, stream, matrices)`.
template <typename Body>
kaio_status runOp(const char *fn, kaio_context ctx, kaio_stream stream,
                  std::initializer_list<MatrixArg> args, Body &&body) {
  return guard(fn, [&]() -> kaio_status {
    if (!ctx)
      return failNull(fn, "ctx");
    ops::Matrix matrices[12];
    std::size_t i = 0;
    for (const MatrixArg &arg : args)
      if (kaio_status s = convert(fn, arg, matrices[i++]))
        return s;
    rt::Expected<ops::Library *> lib = getLibrary(ctx);
    if (!lib)
      return fail(lib.error());
    rt::Stream borrowed = rt::Stream::borrow(*ctx->device, stream);
    if (rt::Error e = body(**lib, stream ? &borrowed : nullptr, matrices))
      return fail(e);
    return KAIO_SUCCESS;
  });
}

} // namespace

kaio_status kaio_gemm(kaio_context ctx, const kaio_matrix *a,
                      const kaio_matrix *b, const kaio_matrix *c, float alpha,
                      float beta, kaio_stream stream) {
  return runOp("kaio_gemm", ctx, stream, {{"a", a}, {"b", b}, {"c", c}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::GemmOptions o;
                 o.alpha = alpha;
                 o.beta = beta;
                 o.stream = s;
                 return lib.gemm(m[0], m[1], m[2], o);
               });
}

/// The C++ options of kaio_gemm_ex and kaio_gemm_tune (m[3]: the bias).
ops::GemmOptions gemmOptions(float alpha, float beta, const ops::Matrix *m,
                             kaio_activation act, uint32_t flags,
                             const rt::Stream *stream) {
  ops::GemmOptions o;
  o.alpha = alpha;
  o.beta = beta;
  o.bias = m[3];
  o.activation = static_cast<ops::Activation>(act);
  o.allowTf32 = flags & KAIO_GEMM_ALLOW_TF32;
  o.stream = stream;
  return o;
}

/// act in range, no flag bit KAIO does not know.
kaio_status checkGemmEnums(const char *fn, kaio_activation act,
                           uint32_t flags) {
  if (kaio_status s = checkEnum(fn, "act", act, KAIO_ACT_GELU_ERF))
    return s;
  if (flags & ~uint32_t(KAIO_GEMM_ALLOW_TF32))
    return fail(KAIO_ERROR_INVALID_VALUE,
                std::string(fn) + ": flags: unknown bits " +
                    std::to_string(flags & ~uint32_t(KAIO_GEMM_ALLOW_TF32)));
  return KAIO_SUCCESS;
}

kaio_status kaio_gemm_ex(kaio_context ctx, const kaio_matrix *a,
                         const kaio_matrix *b, const kaio_matrix *c,
                         float alpha, float beta, const kaio_matrix *bias,
                         kaio_activation act, uint32_t flags,
                         kaio_stream stream) {
  if (kaio_status s = checkGemmEnums("kaio_gemm_ex", act, flags))
    return s;
  return runOp("kaio_gemm_ex", ctx, stream,
               {{"a", a}, {"b", b}, {"c", c}, opt("bias", bias)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 return lib.gemm(m[0], m[1], m[2],
                                 gemmOptions(alpha, beta, m, act, flags, s));
               });
}

kaio_status kaio_gemm_backward(kaio_context ctx, const kaio_matrix *a,
                               const kaio_matrix *b, const kaio_matrix *dc,
                               const kaio_matrix *da, const kaio_matrix *db,
                               float alpha, float beta, kaio_stream stream) {
  return runOp("kaio_gemm_backward", ctx, stream,
               {{"a", a}, {"b", b}, {"dc", dc}, opt("da", da), opt("db", db)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::GemmBackwardOptions o;
                 o.alpha = alpha;
                 o.beta = beta;
                 o.stream = s;
                 return lib.gemmBackward(m[0], m[1], m[2], m[3], m[4], o);
               });
}

kaio_status kaio_gemm_workspace_elements(kaio_context ctx,
                                         const kaio_matrix *a,
                                         const kaio_matrix *b,
                                         const kaio_matrix *c, float alpha,
                                         float beta, const kaio_matrix *bias,
                                         kaio_activation act, uint32_t flags,
                                         int64_t *elements) {
  const char *fn = "kaio_gemm_workspace_elements";
  if (!elements)
    return guard(fn, [&] { return failNull(fn, "elements"); });
  *elements = 0;
  if (kaio_status s = checkGemmEnums(fn, act, flags))
    return s;
  return runOp(fn, ctx, nullptr,
               {{"a", a}, {"b", b}, {"c", c}, opt("bias", bias)},
               [&](ops::Library &lib, const rt::Stream *, ops::Matrix *m) {
                 *elements = lib.gemmWorkspaceElements(
                     m[0], m[1], m[2],
                     gemmOptions(alpha, beta, m, act, flags, nullptr));
                 return rt::Error::success();
               });
}

kaio_status kaio_gemm_split(kaio_context ctx, const kaio_matrix *a,
                            const kaio_matrix *b, const kaio_matrix *c,
                            float alpha, float beta, const kaio_matrix *bias,
                            kaio_activation act, uint32_t flags,
                            const kaio_matrix *workspace, kaio_stream stream) {
  if (kaio_status s = checkGemmEnums("kaio_gemm_split", act, flags))
    return s;
  return runOp("kaio_gemm_split", ctx, stream,
               {{"a", a},
                {"b", b},
                {"c", c},
                opt("bias", bias),
                opt("workspace", workspace)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::GemmOptions o =
                     gemmOptions(alpha, beta, m, act, flags, s);
                 o.workspace = m[4];
                 return lib.gemm(m[0], m[1], m[2], o);
               });
}

kaio_status kaio_gemm_tune(kaio_context ctx, const kaio_matrix *a,
                           const kaio_matrix *b, const kaio_matrix *c,
                           float alpha, float beta, const kaio_matrix *bias,
                           kaio_activation act, uint32_t flags, char *choice,
                           size_t choiceSize, kaio_stream stream) {
  if (kaio_status s = checkGemmEnums("kaio_gemm_tune", act, flags))
    return s;
  return runOp("kaio_gemm_tune", ctx, stream,
               {{"a", a}, {"b", b}, {"c", c}, opt("bias", bias)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 rt::Expected<ops::GemmTuneResult> r = lib.tuneGemm(
                     *ctx->device, m[0], m[1], m[2],
                     gemmOptions(alpha, beta, m, act, flags, s));
                 if (!r)
                   return r.takeError();
                 if (choice && choiceSize) {
                   std::size_t n = std::min(choiceSize - 1, r->choice.size());
                   std::memcpy(choice, r->choice.data(), n);
                   choice[n] = '\0';
                 }
                 return rt::Error::success();
               });
}

kaio_status kaio_gemv(kaio_context ctx, const kaio_matrix *a,
                      const kaio_matrix *x, const kaio_matrix *y,
                      const kaio_matrix *bias, kaio_stream stream) {
  return runOp("kaio_gemv", ctx, stream,
               {{"a", a}, {"x", x}, {"y", y}, opt("bias", bias)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::GemvOptions o;
                 o.bias = m[3];
                 o.stream = s;
                 return lib.gemv(m[0], m[1], m[2], o);
               });
}

kaio_status kaio_gemv_transposed(kaio_context ctx, const kaio_matrix *a,
                                 const kaio_matrix *x, const kaio_matrix *y,
                                 const kaio_matrix *bias,
                                 const kaio_matrix *workspace,
                                 kaio_stream stream) {
  return runOp("kaio_gemv_transposed", ctx, stream,
               {{"a", a},
                {"x", x},
                {"y", y},
                opt("bias", bias),
                opt("workspace", workspace)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::GemvOptions o;
                 o.bias = m[3];
                 o.workspace = m[4];
                 o.stream = s;
                 return lib.gemvTransposed(m[0], m[1], m[2], o);
               });
}

int64_t kaio_gemv_transposed_workspace_elements(int64_t k, int64_t n) {
  return ops::gemvTransposedWorkspaceElements(k, n);
}

namespace {
template <typename Fn>
kaio_status softmaxOp(const char *fn, kaio_context ctx, const kaio_matrix *x,
                      const kaio_matrix *out, float scale, int64_t causalRows,
                      int64_t causalOffset, kaio_stream stream, Fn member) {
  return runOp(fn, ctx, stream, {{"x", x}, {"out", out}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::SoftmaxOptions o;
                 o.scale = scale;
                 o.causalRows = causalRows;
                 o.causalOffset = causalOffset;
                 o.stream = s;
                 return (lib.*member)(m[0], m[1], o);
               });
}

template <typename Fn>
kaio_status softmaxBackwardOp(const char *fn, kaio_context ctx,
                              const kaio_matrix *y, const kaio_matrix *dy,
                              const kaio_matrix *dx, float scale,
                              kaio_stream stream, Fn member) {
  return runOp(fn, ctx, stream, {{"y", y}, {"dy", dy}, {"dx", dx}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::SoftmaxOptions o;
                 o.scale = scale;
                 o.stream = s;
                 return (lib.*member)(m[0], m[1], m[2], o);
               });
}
} // namespace

kaio_status kaio_softmax(kaio_context ctx, const kaio_matrix *x,
                         const kaio_matrix *out, float scale,
                         int64_t causal_rows, int64_t causal_offset,
                         kaio_stream stream) {
  return softmaxOp("kaio_softmax", ctx, x, out, scale, causal_rows,
                   causal_offset, stream, &ops::Library::softmax);
}

kaio_status kaio_log_softmax(kaio_context ctx, const kaio_matrix *x,
                             const kaio_matrix *out, float scale,
                             int64_t causal_rows, int64_t causal_offset,
                             kaio_stream stream) {
  return softmaxOp("kaio_log_softmax", ctx, x, out, scale, causal_rows,
                   causal_offset, stream, &ops::Library::logSoftmax);
}

kaio_status kaio_softmax_backward(kaio_context ctx, const kaio_matrix *y,
                                  const kaio_matrix *dy, const kaio_matrix *dx,
                                  float scale, kaio_stream stream) {
  return softmaxBackwardOp("kaio_softmax_backward", ctx, y, dy, dx, scale,
                           stream, &ops::Library::softmaxBackward);
}

kaio_status kaio_log_softmax_backward(kaio_context ctx, const kaio_matrix *y,
                                      const kaio_matrix *dy,
                                      const kaio_matrix *dx, float scale,
                                      kaio_stream stream) {
  return softmaxBackwardOp("kaio_log_softmax_backward", ctx, y, dy, dx, scale,
                           stream, &ops::Library::logSoftmaxBackward);
}

kaio_status kaio_rms_norm(kaio_context ctx, const kaio_matrix *x,
                          const kaio_matrix *out, const kaio_matrix *weight,
                          const kaio_matrix *residual,
                          const kaio_matrix *residual_out,
                          const kaio_matrix *rstd, float eps,
                          kaio_stream stream) {
  return runOp("kaio_rms_norm", ctx, stream,
               {{"x", x},
                {"out", out},
                opt("weight", weight),
                opt("residual", residual),
                opt("residual_out", residual_out),
                opt("rstd", rstd)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::NormOptions o;
                 o.eps = eps;
                 o.weight = m[2];
                 o.residual = m[3];
                 o.residualOut = m[4];
                 o.rstd = m[5];
                 o.stream = s;
                 return lib.rmsNorm(m[0], m[1], o);
               });
}

kaio_status kaio_layer_norm(kaio_context ctx, const kaio_matrix *x,
                            const kaio_matrix *out, const kaio_matrix *weight,
                            const kaio_matrix *bias,
                            const kaio_matrix *residual,
                            const kaio_matrix *residual_out,
                            const kaio_matrix *mean, const kaio_matrix *rstd,
                            float eps, kaio_stream stream) {
  return runOp("kaio_layer_norm", ctx, stream,
               {{"x", x},
                {"out", out},
                opt("weight", weight),
                opt("bias", bias),
                opt("residual", residual),
                opt("residual_out", residual_out),
                opt("mean", mean),
                opt("rstd", rstd)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::NormOptions o;
                 o.eps = eps;
                 o.weight = m[2];
                 o.bias = m[3];
                 o.residual = m[4];
                 o.residualOut = m[5];
                 o.mean = m[6];
                 o.rstd = m[7];
                 o.stream = s;
                 return lib.layerNorm(m[0], m[1], o);
               });
}

kaio_status kaio_rms_norm_backward(kaio_context ctx, const kaio_matrix *x,
                                   const kaio_matrix *dy,
                                   const kaio_matrix *dx,
                                   const kaio_matrix *weight,
                                   const kaio_matrix *rstd,
                                   const kaio_matrix *dweight,
                                   const kaio_matrix *workspace,
                                   kaio_stream stream) {
  return runOp("kaio_rms_norm_backward", ctx, stream,
               {{"x", x},
                {"dy", dy},
                {"dx", dx},
                opt("weight", weight),
                {"rstd", rstd},
                opt("dweight", dweight),
                opt("workspace", workspace)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::NormBackwardOptions o;
                 o.weight = m[3];
                 o.rstd = m[4];
                 o.dweight = m[5];
                 o.workspace = m[6];
                 o.stream = s;
                 return lib.rmsNormBackward(m[0], m[1], m[2], o);
               });
}

kaio_status kaio_layer_norm_backward(
    kaio_context ctx, const kaio_matrix *x, const kaio_matrix *dy,
    const kaio_matrix *dx, const kaio_matrix *weight, const kaio_matrix *mean,
    const kaio_matrix *rstd, const kaio_matrix *dweight,
    const kaio_matrix *dbias, const kaio_matrix *workspace,
    kaio_stream stream) {
  return runOp("kaio_layer_norm_backward", ctx, stream,
               {{"x", x},
                {"dy", dy},
                {"dx", dx},
                opt("weight", weight),
                {"mean", mean},
                {"rstd", rstd},
                opt("dweight", dweight),
                opt("dbias", dbias),
                opt("workspace", workspace)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::NormBackwardOptions o;
                 o.weight = m[3];
                 o.mean = m[4];
                 o.rstd = m[5];
                 o.dweight = m[6];
                 o.dbias = m[7];
                 o.workspace = m[8];
                 o.stream = s;
                 return lib.layerNormBackward(m[0], m[1], m[2], o);
               });
}

int64_t kaio_norm_backward_workspace_elements(int64_t rows, int64_t cols) {
  return ops::normBackwardWorkspaceElements(rows, cols);
}

kaio_status kaio_cross_entropy(kaio_context ctx, const kaio_matrix *logits,
                               const kaio_matrix *targets,
                               const kaio_matrix *loss, const kaio_matrix *lse,
                               int32_t ignore_index, kaio_stream stream) {
  return runOp("kaio_cross_entropy", ctx, stream,
               {{"logits", logits},
                {"targets", targets},
                {"loss", loss},
                opt("lse", lse)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::CrossEntropyOptions o;
                 o.ignoreIndex = ignore_index;
                 o.lse = m[3];
                 o.stream = s;
                 return lib.crossEntropy(m[0], m[1], m[2], o);
               });
}

kaio_status kaio_cross_entropy_backward(
    kaio_context ctx, const kaio_matrix *logits, const kaio_matrix *targets,
    const kaio_matrix *lse, const kaio_matrix *dloss,
    const kaio_matrix *dlogits, int32_t ignore_index, kaio_stream stream) {
  return runOp("kaio_cross_entropy_backward", ctx, stream,
               {{"logits", logits},
                {"targets", targets},
                {"lse", lse},
                {"dloss", dloss},
                {"dlogits", dlogits}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::CrossEntropyOptions o;
                 o.ignoreIndex = ignore_index;
                 o.stream = s;
                 return lib.crossEntropyBackward(m[0], m[1], m[2], m[3], m[4],
                                                 o);
               });
}

kaio_status kaio_reduce_rows(kaio_context ctx, const kaio_matrix *x,
                             const kaio_matrix *out, kaio_reduction reduction,
                             kaio_stream stream) {
  if (kaio_status s = checkEnum("kaio_reduce_rows", "reduction", reduction,
                                KAIO_REDUCE_MIN))
    return s;
  return runOp("kaio_reduce_rows", ctx, stream, {{"x", x}, {"out", out}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::ReduceOptions o;
                 o.stream = s;
                 return lib.reduceRows(
                     m[0], m[1], static_cast<ops::Reduction>(reduction), o);
               });
}

kaio_status kaio_argmax_rows(kaio_context ctx, const kaio_matrix *x,
                             const kaio_matrix *out, kaio_stream stream) {
  return runOp("kaio_argmax_rows", ctx, stream, {{"x", x}, {"out", out}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::ReduceOptions o;
                 o.stream = s;
                 return lib.argmaxRows(m[0], m[1], o);
               });
}

kaio_status kaio_reduce_all(kaio_context ctx, const kaio_matrix *x,
                            const kaio_matrix *out, kaio_reduction reduction,
                            const kaio_matrix *workspace, kaio_stream stream) {
  if (kaio_status s = checkEnum("kaio_reduce_all", "reduction", reduction,
                                KAIO_REDUCE_MIN))
    return s;
  return runOp("kaio_reduce_all", ctx, stream,
               {{"x", x}, {"out", out}, {"workspace", workspace}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::ReduceOptions o;
                 o.workspace = m[2];
                 o.stream = s;
                 return lib.reduceAll(
                     m[0], m[1], static_cast<ops::Reduction>(reduction), o);
               });
}

kaio_status kaio_argmax_all(kaio_context ctx, const kaio_matrix *x,
                            const kaio_matrix *out,
                            const kaio_matrix *workspace, kaio_stream stream) {
  return runOp("kaio_argmax_all", ctx, stream,
               {{"x", x}, {"out", out}, {"workspace", workspace}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::ReduceOptions o;
                 o.workspace = m[2];
                 o.stream = s;
                 return lib.argmaxAll(m[0], m[1], o);
               });
}

int64_t kaio_argmax_all_workspace_elements(int64_t rows) {
  return ops::argmaxAllWorkspaceElements(rows);
}

kaio_status kaio_reduce_cols(kaio_context ctx, const kaio_matrix *x,
                             const kaio_matrix *out, kaio_reduction reduction,
                             const kaio_matrix *workspace, kaio_stream stream) {
  if (kaio_status s = checkEnum("kaio_reduce_cols", "reduction", reduction,
                                KAIO_REDUCE_MIN))
    return s;
  return runOp("kaio_reduce_cols", ctx, stream,
               {{"x", x}, {"out", out}, {"workspace", workspace}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::ReduceOptions o;
                 o.workspace = m[2];
                 o.stream = s;
                 return lib.reduceCols(
                     m[0], m[1], static_cast<ops::Reduction>(reduction), o);
               });
}

int64_t kaio_reduce_cols_workspace_elements(int64_t rows, int64_t cols) {
  return ops::reduceColsWorkspaceElements(rows, cols);
}

kaio_status kaio_bias_activation(kaio_context ctx, const kaio_matrix *x,
                                 const kaio_matrix *out,
                                 const kaio_matrix *bias, kaio_activation act,
                                 kaio_stream stream) {
  if (kaio_status s = checkEnum("kaio_bias_activation", "act", act,
                                KAIO_ACT_GELU_ERF))
    return s;
  return runOp("kaio_bias_activation", ctx, stream,
               {{"x", x}, {"out", out}, opt("bias", bias)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::ElementwiseOptions o;
                 o.bias = m[2];
                 o.stream = s;
                 return lib.biasActivation(
                     m[0], m[1], static_cast<ops::Activation>(act), o);
               });
}

kaio_status kaio_gated_activation(kaio_context ctx, const kaio_matrix *gate,
                                  const kaio_matrix *up,
                                  const kaio_matrix *out, kaio_activation act,
                                  kaio_stream stream) {
  if (kaio_status s = checkEnum("kaio_gated_activation", "act", act,
                                KAIO_ACT_GELU_ERF))
    return s;
  return runOp("kaio_gated_activation", ctx, stream,
               {{"gate", gate}, {"up", up}, {"out", out}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::ElementwiseOptions o;
                 o.stream = s;
                 return lib.gatedActivation(
                     m[0], m[1], m[2], static_cast<ops::Activation>(act), o);
               });
}

kaio_status kaio_add(kaio_context ctx, const kaio_matrix *a,
                     const kaio_matrix *b, const kaio_matrix *out,
                     kaio_stream stream) {
  return runOp("kaio_add", ctx, stream, {{"a", a}, {"b", b}, {"out", out}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::ElementwiseOptions o;
                 o.stream = s;
                 return lib.add(m[0], m[1], m[2], o);
               });
}

kaio_status kaio_rope(kaio_context ctx, const kaio_matrix *x,
                      const kaio_matrix *out, const kaio_matrix *positions,
                      const kaio_matrix *cos, const kaio_matrix *sin,
                      int64_t heads, kaio_rope_layout layout,
                      kaio_stream stream) {
  if (kaio_status s = checkEnum("kaio_rope", "layout", layout,
                                KAIO_ROPE_INTERLEAVED))
    return s;
  return runOp("kaio_rope", ctx, stream,
               {{"x", x},
                {"out", out},
                {"positions", positions},
                {"cos", cos},
                {"sin", sin}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::RopeOptions o;
                 o.layout = static_cast<ops::RopeLayout>(layout);
                 o.stream = s;
                 return lib.rope(m[0], m[1], m[2], m[3], m[4], heads, o);
               });
}

namespace {
kaio_status convertTensor(const char *fn, const char *name,
                          const kaio_attention_tensor *t,
                          ops::AttentionTensor &out) {
  if (!t)
    return failNull(fn, name);
  if (kaio_status s = checkDType(fn, name, t->dtype))
    return s;
  if (t->reserved)
    return fail(KAIO_ERROR_INVALID_VALUE,
                std::string(fn) + ": " + name + ": reserved must be 0");
  out.data = t->data;
  out.dtype = static_cast<ops::DType>(t->dtype);
  out.batch = t->batch;
  out.seq = t->seq;
  out.heads = t->heads;
  out.dim = t->dim;
  out.batchStride = t->batch_stride;
  out.seqStride = t->seq_stride;
  out.headStride = t->head_stride;
  out.capacityBytes = t->capacity_bytes;
  return KAIO_SUCCESS;
}
} // namespace

namespace {
/// The C options as kaio::ops::AttentionOptions (matrices set by the
/// caller); false with the error set when flags has unknown bits.
bool convertOptions(const char *fn, const kaio_attention_options *options,
                    ops::AttentionOptions &out) {
  kaio_attention_options o = options ? *options : kaio_attention_defaults();
  const std::uint32_t known = KAIO_ATTENTION_PORTABLE |
                              KAIO_ATTENTION_PING_PONG |
                              KAIO_ATTENTION_INDEPENDENT |
                              KAIO_ATTENTION_ROWS_192 |
                              KAIO_ATTENTION_ROWS_128;
  if (std::uint32_t unknown = std::uint32_t(o.flags) & ~known) {
    fail(KAIO_ERROR_INVALID_VALUE, std::string(fn) +
                                       ": options: flags: unknown bits " +
                                       std::to_string(unknown));
    return false;
  }
  const bool pingPong = o.flags & KAIO_ATTENTION_PING_PONG,
             independent = o.flags & KAIO_ATTENTION_INDEPENDENT;
  if (pingPong && independent) {
    fail(KAIO_ERROR_INVALID_VALUE,
         std::string(fn) + ": options: flags: KAIO_ATTENTION_PING_PONG and "
                           "KAIO_ATTENTION_INDEPENDENT together");
    return false;
  }
  out.portable = o.flags & KAIO_ATTENTION_PORTABLE;
  using Schedule = ops::AttentionOptions::Schedule;
  out.schedule = pingPong      ? Schedule::PingPong
                 : independent ? Schedule::Independent
                               : Schedule::Auto;
  if ((o.flags & KAIO_ATTENTION_ROWS_192) &&
      (o.flags & KAIO_ATTENTION_ROWS_128)) {
    fail(KAIO_ERROR_INVALID_VALUE,
         std::string(fn) + ": options: flags: KAIO_ATTENTION_ROWS_192 and "
                           "KAIO_ATTENTION_ROWS_128 together");
    return false;
  }
  out.queryRows = o.flags & KAIO_ATTENTION_ROWS_192   ? 192
                  : o.flags & KAIO_ATTENTION_ROWS_128 ? 128
                                                      : 0;
  out.scale = o.scale;
  out.causal = o.causal != 0;
  out.bottomRight = o.bottom_right != 0;
  out.windowLeft = o.window_left;
  out.windowRight = o.window_right;
  out.maxSeqlenQ = o.max_seqlen_q;
  out.maxSeqlenK = o.max_seqlen_k;
  return true;
}

template <std::size_t N>
kaio_status convertTensors(const char *fn,
                           const kaio_attention_tensor *const (&in)[N],
                           const char *const (&names)[N],
                           ops::AttentionTensor (&out)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (kaio_status s = convertTensor(fn, names[i], in[i], out[i]))
      return s;
  return KAIO_SUCCESS;
}
} // namespace

kaio_status kaio_flash_attention(kaio_context ctx,
                                 const kaio_attention_tensor *q,
                                 const kaio_attention_tensor *k,
                                 const kaio_attention_tensor *v,
                                 const kaio_attention_tensor *o,
                                 const kaio_matrix *cu_seqlens_q,
                                 const kaio_matrix *cu_seqlens_k,
                                 const kaio_matrix *lse,
                                 const kaio_attention_options *options,
                                 kaio_stream stream) {
  const char *fn = "kaio_flash_attention";
  ops::AttentionTensor t[4];
  if (kaio_status s = convertTensors(fn, {q, k, v, o}, {"q", "k", "v", "o"}, t))
    return s;
  ops::AttentionOptions a;
  if (!convertOptions(fn, options, a))
    return KAIO_ERROR_INVALID_VALUE;
  return runOp(fn, ctx, stream,
               {opt("cu_seqlens_q", cu_seqlens_q),
                opt("cu_seqlens_k", cu_seqlens_k), opt("lse", lse)},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 a.cuSeqlensQ = m[0];
                 a.cuSeqlensK = m[1];
                 a.lse = m[2];
                 a.stream = s;
                 return lib.flashAttention(t[0], t[1], t[2], t[3], a);
               });
}

kaio_status kaio_flash_attention_backward(
    kaio_context ctx, const kaio_attention_tensor *q,
    const kaio_attention_tensor *k, const kaio_attention_tensor *v,
    const kaio_attention_tensor *o, const kaio_attention_tensor *d_o,
    const kaio_attention_tensor *dq, const kaio_attention_tensor *dk,
    const kaio_attention_tensor *dv, const kaio_matrix *cu_seqlens_q,
    const kaio_matrix *cu_seqlens_k, const kaio_matrix *lse,
    const kaio_matrix *workspace, const kaio_attention_options *options,
    kaio_stream stream) {
  const char *fn = "kaio_flash_attention_backward";
  ops::AttentionTensor t[8];
  if (kaio_status s =
          convertTensors(fn, {q, k, v, o, d_o, dq, dk, dv},
                         {"q", "k", "v", "o", "d_o", "dq", "dk", "dv"}, t))
    return s;
  ops::AttentionOptions a;
  if (!convertOptions(fn, options, a))
    return KAIO_ERROR_INVALID_VALUE;
  return runOp(fn, ctx, stream,
               {opt("cu_seqlens_q", cu_seqlens_q),
                opt("cu_seqlens_k", cu_seqlens_k), {"lse", lse},
                {"workspace", workspace}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 a.cuSeqlensQ = m[0];
                 a.cuSeqlensK = m[1];
                 a.lse = m[2];
                 a.workspace = m[3];
                 a.stream = s;
                 return lib.flashAttentionBackward(t[0], t[1], t[2], t[3],
                                                   t[4], t[5], t[6], t[7], a);
               });
}

int64_t kaio_flash_attention_backward_workspace_elements(
    const kaio_attention_tensor *q) {
  if (!q)
    return 0;
  ops::AttentionTensor t;
  t.batch = q->batch;
  t.seq = q->seq;
  t.heads = q->heads;
  return ops::flashAttentionBackwardWorkspaceElements(t);
}

kaio_status kaio_flash_decode(kaio_context ctx, const kaio_attention_tensor *q,
                              const kaio_attention_tensor *k_cache,
                              const kaio_attention_tensor *v_cache,
                              const kaio_matrix *block_table,
                              int64_t page_size, const kaio_matrix *seqlens,
                              const kaio_attention_tensor *o, float scale,
                              int32_t causal, const kaio_matrix *workspace,
                              kaio_stream stream) {
  const char *fn = "kaio_flash_decode";
  ops::AttentionTensor t[4];
  if (kaio_status s = convertTensors(fn, {q, k_cache, v_cache, o},
                                     {"q", "k_cache", "v_cache", "o"}, t))
    return s;
  return runOp(fn, ctx, stream,
               {opt("block_table", block_table), {"seqlens", seqlens},
                {"workspace", workspace}},
               [&](ops::Library &lib, const rt::Stream *s, ops::Matrix *m) {
                 ops::KVCache cache;
                 cache.k = t[1];
                 cache.v = t[2];
                 cache.blockTable = m[0];
                 cache.pageSize = page_size;
                 cache.seqlens = m[1];
                 ops::DecodeOptions d;
                 d.scale = scale;
                 d.causal = causal != 0;
                 d.workspace = m[2];
                 d.stream = s;
                 return lib.flashDecode(t[0], cache, t[3], d);
               });
}

int64_t kaio_flash_decode_workspace_elements(
    const kaio_attention_tensor *q, const kaio_attention_tensor *k_cache,
    const kaio_matrix *block_table, int64_t page_size) {
  if (!q || !k_cache)
    return 0;
  ops::AttentionTensor qt, kt;
  qt.batch = q->batch;
  qt.seq = q->seq;
  qt.heads = q->heads;
  qt.dim = q->dim;
  kt.batch = k_cache->batch;
  kt.seq = k_cache->seq;
  kt.heads = k_cache->heads;
  ops::KVCache cache;
  cache.k = kt;
  if (block_table) {
    // Only the shape matters here (not the data).
    cache.blockTable.data = block_table->data ? block_table->data : 1;
    cache.blockTable.rows = block_table->rows;
    cache.blockTable.cols = block_table->cols;
    cache.blockTable.ld = block_table->ld;
    cache.pageSize = page_size;
  }
  return ops::flashDecodeWorkspaceElements(qt, cache);
}
