//===- RowKernelsTest.cpp - the library's row kernels in the interpreter --===//
//
// Builds the op library's softmax and norm kernels (lib/Ops/Kernels) in
// process, lowers them through the whole pipeline and runs them in the
// interpreter, with its memory sanitizer, against f64 references computed
// from the same (rounded) inputs: every dtype, vector and scalar variants,
// ragged row lengths (1, not multiples of the vector, warp or block), a row
// past 100k elements, padded leading dimensions, -inf and fully masked rows,
// and every optional operand of the norms. The profile checks that the
// vector variants really move 16 bytes per access.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace kaio;
using namespace kaio::test;

namespace {

class RowKernelsTest : public OpsKernelsTest {};

void expectNear(double got, double want, double rel, double floor,
                const std::string &at) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << at;
    return;
  }
  if (std::isinf(want)) {
    EXPECT_EQ(got, want) << at;
    return;
  }
  ASSERT_NEAR(got, want, rel * (std::fabs(want) + floor)) << at;
}

//===----------------------------------------------------------------------===//
// Softmax and log-softmax
//===----------------------------------------------------------------------===//

/// softmax or log_softmax of scale * row in f64; all -inf gives 0 / -inf.
std::vector<double> softmaxRef(const std::vector<double> &row, double scale,
                               bool log) {
  double mx = -INFINITY;
  for (double v : row)
    mx = std::max(mx, v * scale);
  double off = mx == -INFINITY ? 0 : mx;
  double sum = 0;
  for (double v : row)
    sum += std::exp(v * scale - off);
  std::vector<double> out;
  for (double v : row) {
    double s = v * scale - off;
    if (log)
      out.push_back(sum > 0 ? s - std::log(sum) : s);
    else
      out.push_back(sum > 0 ? std::exp(s) / sum : 0.0);
  }
  return out;
}

/// Which softmax kernel (a block per row, a warp per row, or the row held
/// in registers), and its causal mask (period 0: none).
struct SoftmaxMode {
  bool log = false, warp = false;
  uint32_t period = 0;
  int32_t offset = 0;
  /// The register-row kernel holding this many chunks a thread (0: none).
  unsigned regs = 0;
};

/// The register-row kernels for rows of n (16-byte accesses only): the
/// fewest chunks that hold the row (the host's choice) and the most (dead
/// chunks skipped), as chunk counts; none past their limit.
std::vector<unsigned> registerRowKernels(const RowKernelsTest &t, uint32_t n) {
  unsigned fewest = registerRowChunks(n, elemBytes(t.elem()));
  if (!t.vectorized() || !fewest)
    return {};
  if (fewest == kRegisterRowChunks)
    return {fewest};
  return {fewest, kRegisterRowChunks};
}

/// "_regs<R>" for the register-row kernel of R chunks.
std::string regsPart(unsigned chunks) {
  return "_regs" + std::to_string(chunks);
}

/// The softmax kernels a variant has, as (warp, register-row chunks).
std::vector<std::pair<bool, unsigned>> softmaxKernels(const RowKernelsTest &t,
                                                      uint32_t n) {
  std::vector<std::pair<bool, unsigned>> kinds = {{false, 0}, {true, 0}};
  for (unsigned chunks : registerRowKernels(t, n))
    kinds.push_back({false, chunks});
  return kinds;
}

void runSoftmax(RowKernelsTest *t, Interpreter &interp, SoftmaxMode mode,
                std::vector<std::vector<double>> rows, uint32_t n,
                float scale);

TEST_P(RowKernelsTest, SoftmaxAtRaggedLengths) {
  for (bool log : {false, true})
    for (uint32_t n : {1u, 3u, 33u, 257u, 1000u, 1500u, 2051u}) {
      uint32_t rows = n > 1000 ? 2 : 3;
      std::vector<double> x = random(size_t(rows) * leading(n), -8, 8);
      Interpreter interp(**module);
      std::vector<std::vector<double>> byRow;
      for (uint32_t r = 0; r < rows; ++r)
        byRow.emplace_back(x.begin() + r * leading(n),
                           x.begin() + r * leading(n) + n);
      for (auto [warp, regs] : softmaxKernels(*this, n)) {
        runSoftmax(this, interp, {log, warp, 0, 0, regs}, byRow, n, 0.75f);
        if (HasFatalFailure())
          return;
      }
    }
}

TEST_P(RowKernelsTest, SoftmaxOfInfinitiesAndMaskedRows) {
  const uint32_t n = 77;
  std::vector<std::vector<double>> rows(3, random(n, -4, 4));
  rows[0][5] = -INFINITY; // one masked element: exp gives 0 there
  rows[0][60] = -INFINITY;
  for (double &v : rows[1]) // fully masked: 0 (softmax), -inf (log)
    v = -INFINITY;
  rows[2][9] = roundTo(elem(), 60000); // large: no overflow
  for (bool log : {false, true})
    for (auto [warp, regs] : softmaxKernels(*this, n)) {
      Interpreter interp(**module);
      runSoftmax(this, interp, {log, warp, 0, 0, regs}, rows, n, 1.0f);
    }
}

TEST_P(RowKernelsTest, CausalMasks) {
  // 2 x 5 query rows of 9 keys: top-left aligned (offset 0: row q keeps
  // columns 0..q) and bottom-right aligned (offset 9 - 5 = 4); and an
  // offset that masks the whole first row (-1: all -inf, zeros out).
  const uint32_t n = 9, queries = 5;
  std::vector<std::vector<double>> rows;
  for (uint32_t r = 0; r < 2 * queries; ++r)
    rows.push_back(random(n, -3, 3));
  // And an offset near -2^31: the register rows must not wrap the room
  // left in a chunk (limit - first) into keeping the columns.
  for (int32_t offset : {0, 4, -1, -2147483647})
    for (bool log : {false, true})
      for (auto [warp, regs] : softmaxKernels(*this, n))
        // A negative scale too: the register-row kernels mask with +inf.
        for (float scale : {0.5f, -0.5f}) {
          Interpreter interp(**module);
          runSoftmax(this, interp, {log, warp, queries, offset, regs}, rows,
                     n, scale);
          if (HasFatalFailure())
            return;
        }
}

TEST_P(RowKernelsTest, SoftmaxOfALongRow) {
  // Past 100k elements: 400+ chunks per thread.
  const uint32_t n = 100003;
  std::vector<std::vector<double>> rows = {random(n, -3, 3)};
  Interpreter interp(**module);
  runSoftmax(this, interp, {}, rows, n, 1.0f);
}

TEST_P(RowKernelsTest, RegisterRowsAtTheirLongest) {
  if (!vectorized())
    GTEST_SKIP() << "the register-row kernels have 16-byte accesses";
  // Every thread's every chunk full, then one element short of it (the
  // last chunk partial: a 3- or 7-element tail).
  const uint32_t most = registerRowMaxCols(elemBytes(elem()));
  for (uint32_t n : {most, most - 1}) {
    std::vector<std::vector<double>> rows = {random(n, -3, 3)};
    for (bool log : {false, true}) {
      Interpreter interp(**module);
      runSoftmax(this, interp, {log, false, 0, 0, kRegisterRowChunks}, rows,
                 n, 1.0f);
      if (HasFatalFailure())
        return;
    }
  }
}

void runSoftmax(RowKernelsTest *t, Interpreter &interp, SoftmaxMode mode,
                std::vector<std::vector<double>> rows, uint32_t n,
                float scale) {
  bool log = mode.log;
  uint32_t ld = t->leading(n), count = rows.size();
  std::vector<std::vector<double>> masked = rows;
  if (mode.period)
    for (uint32_t r = 0; r < count; ++r)
      for (uint32_t c = 0; c < n; ++c)
        if (int64_t(c) > int64_t(r % mode.period) + mode.offset)
          masked[r][c] = scale < 0 ? INFINITY : -INFINITY; // scaled: -inf
  std::vector<double> x(size_t(count) * ld, 0.0);
  for (uint32_t r = 0; r < count; ++r)
    std::copy(rows[r].begin(), rows[r].end(), x.begin() + r * ld);
  // The output is padded differently, and starts as a sentinel that must
  // survive in the padding.
  uint32_t ldOut = ld + t->width();
  std::vector<double> sentinel(size_t(count) * ldOut, 12.0);
  uint64_t dx = t->upload(interp, x), dout = t->upload(interp, sentinel);
  std::string name = t->kernel(
      std::string(log ? "log_softmax" : "softmax") +
      (mode.warp ? "_warp" : mode.regs ? regsPart(mode.regs) : ""));
  uint32_t blocks =
      mode.warp ? (count + kRowsPerWarpBlock - 1) / kRowsPerWarpBlock : count;
  unsigned threads =
      mode.regs && !mode.warp ? registerRowThreads(mode.regs) : kRowBlock;
  auto r = interp.launch(name, {blocks}, {threads},
                         {dx, dout, count, n, ld, ldOut,
                          Interpreter::argF32(scale), mode.period,
                          uint32_t(mode.offset)});
  ASSERT_TRUE(r.success) << name << ": " << r.message();
  std::vector<double> out = t->download(interp, dout, sentinel.size());
  for (uint32_t row = 0; row < count; ++row) {
    std::vector<double> want = softmaxRef(masked[row], scale, log);
    // log-softmax subtracts numbers of the inputs' magnitude: its error is
    // relative to that.
    double magnitude = 1e-3;
    if (log)
      for (double v : rows[row])
        if (std::isfinite(v))
          magnitude = std::max(magnitude, std::fabs(v * scale));
    for (uint32_t c = 0; c < ldOut; ++c) {
      std::string at = name + " n=" + std::to_string(n) + " row " +
                       std::to_string(row) + " col " + std::to_string(c);
      if (c >= n) {
        ASSERT_EQ(out[row * ldOut + c], 12.0) << "wrote past the row: " << at;
        continue;
      }
      expectNear(out[row * ldOut + c], want[c], tolerance(t->elem()),
                 magnitude, at);
      if (::testing::Test::HasFatalFailure())
        return;
    }
  }
}

//===----------------------------------------------------------------------===//
// RMSNorm and LayerNorm
//===----------------------------------------------------------------------===//

struct NormCase {
  bool layer;
  bool weight, bias, residual, mean, rstd;
  unsigned regs = 0; ///< the register-row kernel's chunks (0: none)
  /// sum_out in place of: 0 its own buffer, 1 x, 2 residual.
  int sumAliases = 0;
};

/// The norm kernels a variant has for rows of n: the block kernel (0), and
/// the register-row ones (their chunk counts).
std::vector<unsigned> normKernels(const RowKernelsTest &t, uint32_t n) {
  std::vector<unsigned> kinds = {0};
  for (unsigned chunks : registerRowKernels(t, n))
    kinds.push_back(chunks);
  return kinds;
}

void runNorm(RowKernelsTest *t, const NormCase &c, uint32_t rows, uint32_t n,
             double offset = 0) {
  Interpreter interp(**OpsKernelsTest::module);
  uint32_t ld = t->leading(n);
  size_t size = size_t(rows) * ld;
  std::vector<double> x = t->random(size, offset - 2, offset + 2);
  std::vector<double> res = t->random(size, -1, 1);
  std::vector<double> w = t->random(n, 0.5, 1.5), b = t->random(n, -1, 1);
  const float eps = 1e-5f;
  uint64_t dx = t->upload(interp, x), dres = t->upload(interp, res),
           dw = t->upload(interp, w), db = t->upload(interp, b),
           dout = t->upload(interp, std::vector<double>(size, 7.0)),
           dsum = t->upload(interp, std::vector<double>(size, 7.0)),
           dmean = t->uploadF32(interp, rows, 7.0f),
           drstd = t->uploadF32(interp, rows, 7.0f);
  uint32_t flags = (c.weight ? kNormWeight : 0) | (c.bias ? kNormBias : 0) |
                   (c.residual ? kNormResidual : 0) |
                   (c.mean ? kNormMean : 0) | (c.rstd ? kNormRstd : 0);
  std::string name =
      t->kernel(std::string(c.layer ? "layer_norm" : "rms_norm") +
                (c.regs ? regsPart(c.regs) : ""));
  // In place: x + residual written over x or over residual.
  uint64_t sumAt = c.sumAliases == 1 ? dx : c.sumAliases == 2 ? dres : dsum;
  uint64_t src = c.residual ? sumAt : dx;
  unsigned threads = c.regs ? registerRowThreads(c.regs) : kRowBlock;
  auto r = interp.launch(name, {rows}, {threads},
                         {dx, dres, dw, db, dout, sumAt, src, dmean, drstd, n,
                          ld, ld, ld, ld, ld, Interpreter::argF32(eps),
                          flags});
  ASSERT_TRUE(r.success) << name << ": " << r.message();
  std::vector<double> out = t->download(interp, dout, size);
  std::vector<double> sum = t->download(interp, sumAt, size);
  std::vector<float> mean(rows), rstd(rows);
  ASSERT_TRUE(interp.read(dmean, mean));
  ASSERT_TRUE(interp.read(drstd, rstd));
  double tol = tolerance(t->elem());
  for (uint32_t row = 0; row < rows; ++row) {
    std::vector<double> h(n);
    for (uint32_t j = 0; j < n; ++j) {
      size_t i = size_t(row) * ld + j;
      h[j] = c.residual ? roundTo(t->elem(), x[i] + res[i]) : x[i];
    }
    double m = 0, ss = 0;
    for (double v : h)
      m += v;
    m /= n;
    for (double v : h)
      ss += c.layer ? (v - m) * (v - m) : v * v;
    double rs = 1 / std::sqrt(ss / n + eps);
    std::string at = name + " n=" + std::to_string(n) + " row " +
                     std::to_string(row);
    EXPECT_NEAR(rstd[row], c.rstd ? rs : 7.0, 2e-5 * rs) << at << " rstd";
    EXPECT_NEAR(mean[row], c.mean ? m : 7.0, 1e-5 * (std::fabs(m) + 1))
        << at << " mean";
    for (uint32_t j = 0; j < ld; ++j) {
      size_t i = size_t(row) * ld + j;
      // (In place, sum_out's buffer is x or residual: its padding and,
      // without a residual, its values are theirs.)
      double unwritten = c.sumAliases == 1   ? x[i]
                         : c.sumAliases == 2 ? res[i]
                                             : 7.0;
      if (j >= n) {
        ASSERT_EQ(out[i], 7.0) << "wrote past the row: " << at;
        ASSERT_EQ(sum[i], unwritten) << "wrote past the row: " << at;
        continue;
      }
      ASSERT_EQ(sum[i], c.residual ? h[j] : unwritten)
          << at << " sum col " << j;
      double y = (c.layer ? h[j] - m : h[j]) * rs;
      if (c.weight)
        y *= w[j];
      if (c.bias)
        y += b[j];
      // h - mean is rounded at the scale of the inputs (|offset|).
      double slack = 4 * 6e-8 * std::fabs(offset) * rs;
      ASSERT_NEAR(out[i], y, tol * (std::fabs(y) + 0.05) + slack)
          << at << " col " << j;
    }
  }
}

TEST_P(RowKernelsTest, RmsNormAtRaggedLengths) {
  for (uint32_t n : {1u, 7u, 129u, 1000u, 1500u, 4099u})
    for (unsigned regs : normKernels(*this, n)) {
      runNorm(this, {false, true, false, false, false, true, regs}, 3, n);
      if (HasFatalFailure())
        return;
    }
}

TEST_P(RowKernelsTest, LayerNormAtRaggedLengths) {
  for (uint32_t n : {1u, 9u, 300u, 1500u, 2049u})
    for (unsigned regs : normKernels(*this, n)) {
      runNorm(this, {true, true, true, false, true, true, regs}, 3, n);
      if (HasFatalFailure())
        return;
    }
}

TEST_P(RowKernelsTest, NormsWithEveryOptionalOperand) {
  for (bool layer : {false, true})
    for (int mask = 0; mask < 16; ++mask)
      for (unsigned regs : normKernels(*this, 70)) {
        NormCase c{layer,          bool(mask & 1),
                   layer && (mask & 2), bool(mask & 4),
                   layer && (mask & 8), bool(mask & 8), regs};
        runNorm(this, c, 2, 70);
        if (HasFatalFailure())
          return;
      }
}

TEST_P(RowKernelsTest, LayerNormOfRowsFarFromZero) {
  // Mean 1000, spread 2: E[x^2] - mean^2 would cancel catastrophically in
  // f32; the kernel sums x - x[0].
  if (elem() != Elem::F32)
    GTEST_SKIP() << "16-bit inputs cannot hold 1000 +- 2 finely";
  for (unsigned regs : normKernels(*this, 1000)) {
    runNorm(this, {true, false, false, false, true, true, regs}, 2, 1000,
            1000);
    if (HasFatalFailure())
      return;
  }
}

TEST_P(RowKernelsTest, NormOfALongRow) {
  runNorm(this, {false, true, false, true, false, true}, 1, 100003);
}

// The fused residual add in place (sum_out is x, or residual: the API
// allows both): every thread reads what it needs, LayerNorm's shift h[0]
// included, before any writes it back.
TEST_P(RowKernelsTest, NormsWithTheSumInPlace) {
  for (int alias : {1, 2})
    for (bool layer : {false, true})
      for (uint32_t n : {5u, 1000u})
        for (unsigned regs : normKernels(*this, n)) {
          NormCase c{layer, true, layer, true, layer, true, regs, alias};
          runNorm(this, c, 3, n, /*offset=*/layer ? 3 : 0);
          if (HasFatalFailure())
            return;
        }
}

TEST_P(RowKernelsTest, RegisterRowNormsAtTheirLongest) {
  if (!vectorized())
    GTEST_SKIP() << "the register-row kernels have 16-byte accesses";
  const uint32_t most = registerRowMaxCols(elemBytes(elem()));
  for (uint32_t n : {most, most - 3}) {
    runNorm(this, {false, true, false, true, false, true, kRegisterRowChunks},
            1, n);
    if (HasFatalFailure())
      return;
    runNorm(this, {true, true, true, true, true, true, kRegisterRowChunks}, 1,
            n);
    if (HasFatalFailure())
      return;
  }
}

TEST_P(RowKernelsTest, VectorKernelsMove16BytesPerAccess) {
  if (!vectorized())
    GTEST_SKIP() << "scalar variant";
  const uint32_t n = 4096, rows = 2, ld = n;
  Interpreter interp(**module);
  std::vector<double> x = random(size_t(rows) * ld, -1, 1);
  uint64_t dx = upload(interp, x), dout = upload(interp, x);
  interp::Profile profile;
  interp::LaunchOptions options;
  options.profile = &profile;
  auto r = interp.launch(kernel("softmax"), {rows}, {kRowBlock},
                         {dx, dout, rows, n, ld, ld, Interpreter::argF32(1.0f),
                          0u, 0u},
                         options);
  ASSERT_TRUE(r.success) << r.message();
  ASSERT_EQ(profile.kernels().size(), 1u);
  const interp::KernelProfile &k = profile.kernels().front();
  // Two reads and one write of every element, all 16-byte accesses with
  // every sector used.
  uint64_t bytes = uint64_t(rows) * n * elemBytes(elem());
  EXPECT_EQ(k.global.at("ld.global").bytes, 2 * bytes);
  EXPECT_EQ(k.global.at("st.global").bytes, bytes);
  uint64_t accesses = bytes / 16;
  EXPECT_EQ(k.mix.at("ld.global.16B"), 2 * accesses / 32);
  EXPECT_EQ(k.mix.at("st.global.16B"), accesses / 32);
  for (auto &[kind, g] : k.global)
    EXPECT_EQ(g.sectors, g.idealSectors) << kind;
  EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u);
}

// The register-row kernels read each element once (the block kernels
// twice): softmax and the norms with a residual, 16-byte accesses of whole
// sectors.
TEST_P(RowKernelsTest, RegisterRowKernelsReadTheRowOnce) {
  if (!vectorized())
    GTEST_SKIP() << "scalar variant";
  // 4096 columns, and the longest (the widest kernel: 512 threads).
  for (uint32_t n :
       {4096u, uint32_t(registerRowMaxCols(elemBytes(elem())))}) {
    SCOPED_TRACE(n);
    const uint32_t rows = 2, ld = n;
    const uint64_t bytes = uint64_t(rows) * n * elemBytes(elem());
    Interpreter interp(**module);
    std::vector<double> x = random(size_t(rows) * ld, -1, 1);
    uint64_t dx = upload(interp, x), dres = upload(interp, x),
             dout = upload(interp, x), dsum = upload(interp, x),
             dw = upload(interp, random(n, 0.5, 1.5)),
             dstat = uploadF32(interp, rows, 0.0f);
    interp::Profile profile;
    interp::LaunchOptions options;
    options.profile = &profile;
    const unsigned chunks = registerRowChunks(n, elemBytes(elem()));
    const std::string regs = regsPart(chunks);
    const unsigned threads = registerRowThreads(chunks);
    auto r = interp.launch(kernel("softmax" + regs), {rows}, {threads},
                           {dx, dout, rows, n, ld, ld, Interpreter::argF32(1.0f),
                            0u, 0u},
                           options);
    ASSERT_TRUE(r.success) << r.message();
    // RMSNorm of x + residual with a weight: x, residual and weight read
    // once, the sum and the output written once (src is not read).
    uint32_t flags = kNormWeight | kNormResidual | kNormRstd;
    r = interp.launch(kernel("rms_norm" + regs), {rows}, {threads},
                      {dx, dres, dw, dw, dout, dsum, dsum, dstat, dstat, n, ld,
                       ld, ld, ld, ld, Interpreter::argF32(1e-5f), flags},
                      options);
    ASSERT_TRUE(r.success) << r.message();
    ASSERT_EQ(profile.kernels().size(), 2u);
    for (const interp::KernelProfile &k : profile.kernels()) {
      SCOPED_TRACE(k.name);
      bool norm = k.name.find("rms_norm") != std::string::npos;
      uint64_t weightBytes = norm ? n * elemBytes(elem()) * rows : 0;
      EXPECT_EQ(k.global.at("ld.global").bytes,
                (norm ? 2 : 1) * bytes + weightBytes);
      EXPECT_EQ(k.mix.at("ld.global.16B"),
                ((norm ? 2 : 1) * bytes + weightBytes) / 16 / 32);
      EXPECT_EQ(k.mix.at("st.global.16B"), (norm ? 2 : 1) * bytes / 16 / 32);
      for (auto &[kind, g] : k.global)
        if (kind != "st.global" || !norm) // rstd: one 4-byte store a row
          EXPECT_EQ(g.sectors, g.idealSectors) << kind;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, RowKernelsTest, elemVariants(), elemVariantName);

} // namespace
