//===- TrainingKernelsTest.cpp - backward, cross-entropy, reductions ------===//
//
// The library's softmax backward, cross-entropy (forward and backward) and
// row reductions in the interpreter, every dtype and variant. Gradients are
// checked against central finite differences of the f64 forward reference
// (the definition, not a second copy of the formula), at ragged lengths;
// reductions against f64 sums and exact extrema, argmax on ties and NaN.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "Kaio/Interpreter/Profile.h"

#include <cmath>
#include <functional>

using namespace kaio;
using namespace kaio::test;

namespace {

class TrainingKernelsTest : public OpsKernelsTest {
public:
  void run(Interpreter &interp, const std::string &name, uint32_t rows,
           std::vector<uint64_t> args, unsigned threads = kRowBlock) {
    auto r = interp.launch(name, {rows}, {threads}, args);
    ASSERT_TRUE(r.success) << name << ": " << r.message();
  }
  /// dx from softmax backward kernel `name` over `rows` rows of n (leading
  /// dimension ld) of y and dy, dx starting as 7.0 (empty on a failure).
  std::vector<double> softmaxBackward(const std::string &name,
                                      const std::vector<double> &y,
                                      const std::vector<double> &dy,
                                      uint32_t rows, uint32_t n, uint32_t ld,
                                      double scale,
                                      unsigned threads = kRowBlock) {
    Interpreter interp(**module);
    uint64_t dyAddr = upload(interp, y), ddy = upload(interp, dy),
             ddx = upload(interp, std::vector<double>(y.size(), 7.0));
    run(interp, name, rows,
        {dyAddr, ddy, ddx, n, ld, ld, ld, Interpreter::argF32(scale)},
        threads);
    if (HasFatalFailure())
      return {};
    return download(interp, ddx, y.size());
  }
  uint64_t uploadI32(Interpreter &interp, const std::vector<int32_t> &v) {
    uint64_t addr = interp.allocGlobal(std::max<size_t>(v.size() * 4, 16));
    EXPECT_TRUE(interp.write(addr, v));
    return addr;
  }
  template <class U>
  std::vector<U> read(Interpreter &interp, uint64_t addr, size_t n) {
    std::vector<U> v(n);
    EXPECT_TRUE(interp.read(addr, v));
    return v;
  }
};

std::vector<double> softmaxOf(const std::vector<double> &x, double scale,
                              bool log) {
  double m = -INFINITY, s = 0;
  for (double v : x)
    m = std::max(m, v * scale);
  for (double v : x)
    s += std::exp(v * scale - m);
  std::vector<double> y;
  for (double v : x)
    y.push_back(log ? v * scale - m - std::log(s) : std::exp(v * scale - m) / s);
  return y;
}

/// d/dx_j of f(x) by central differences.
std::vector<double>
finiteDifference(const std::vector<double> &x,
                 const std::function<double(const std::vector<double> &)> &f) {
  std::vector<double> g(x.size());
  const double h = 1e-5;
  for (size_t j = 0; j < x.size(); ++j) {
    std::vector<double> a = x, b = x;
    a[j] += h;
    b[j] -= h;
    g[j] = (f(a) - f(b)) / (2 * h);
  }
  return g;
}

TEST_P(TrainingKernelsTest, SoftmaxBackwardIsTheForwardsGradient) {
  for (bool log : {false, true})
    for (uint32_t n : {1u, 13u, 130u}) {
      const uint32_t rows = 2, ld = leading(n);
      const double scale = 0.8;
      std::vector<double> x = random(size_t(rows) * ld, -3, 3);
      std::vector<double> dy = random(size_t(rows) * ld, -1, 1);
      std::vector<double> y(size_t(rows) * ld, 0.0);
      for (uint32_t r = 0; r < rows; ++r) {
        std::vector<double> row(x.begin() + r * ld, x.begin() + r * ld + n);
        std::vector<double> s = softmaxOf(row, scale, log);
        for (uint32_t c = 0; c < n; ++c)
          y[r * ld + c] = roundTo(elem(), s[c]);
      }
      std::string name = kernel(log ? "log_softmax_bwd" : "softmax_bwd");
      std::vector<double> dx =
          softmaxBackward(name, y, dy, rows, n, ld, scale);
      if (HasFatalFailure())
        return;
      for (uint32_t r = 0; r < rows; ++r) {
        std::vector<double> row(x.begin() + r * ld, x.begin() + r * ld + n);
        // sum_i dy_i * y_i(x): its gradient is the backward's result (up to
        // the rounding of y to the element type).
        auto f = [&](const std::vector<double> &v) {
          std::vector<double> s = softmaxOf(v, scale, log);
          double sum = 0;
          for (uint32_t i = 0; i < n; ++i)
            sum += dy[r * ld + i] * s[i];
          return sum;
        };
        std::vector<double> want = finiteDifference(row, f);
        for (uint32_t c = 0; c < ld; ++c) {
          double got = dx[r * ld + c];
          if (c >= n) {
            ASSERT_EQ(got, 7.0) << name << " wrote past the row";
            continue;
          }
          ASSERT_NEAR(got, want[c], 3 * tolerance(elem()) + 1e-6)
              << name << " n=" << n << " row " << r << " col " << c;
        }
      }
    }
}

// The register-row kernels (y and dy held, read once) against the closed
// form dx = scale * y * (dy - sum(dy * y)) (log-softmax: scale * (dy -
// exp(y) sum(dy))) in f64 from the same rounded inputs, up to their
// longest row and at ragged lengths.
TEST_P(TrainingKernelsTest, SoftmaxBackwardRegisterRows) {
  if (!vectorized())
    GTEST_SKIP() << "the register-row kernels have 16-byte accesses";
  for (bool log : {false, true})
    for (uint32_t n : {1u, 13u, 1000u,
                       uint32_t(kSoftmaxBwdRegisterRowMaxCols) - 1,
                       uint32_t(kSoftmaxBwdRegisterRowMaxCols)}) {
      const uint32_t rows = 2, ld = leading(n);
      const double scale = 0.8;
      // log-softmax outputs are <= 0; softmax's in (0, 1].
      std::vector<double> y = log ? random(size_t(rows) * ld, -9, 0)
                                  : random(size_t(rows) * ld, 0, 2.0 / n);
      std::vector<double> dy = random(size_t(rows) * ld, -1, 1);
      // Every kernel that holds the row: the fewest chunks (the host's
      // choice) up to the most (dead chunks skipped); dx starts as a
      // sentinel each time.
      for (unsigned chunks : kRegisterRowChunkCounts) {
        if (chunks < softmaxBwdRegisterRowChunks(n, elemBytes(elem())) ||
            chunks * kRowBlock * width() > kSoftmaxBwdRegisterRowMaxCols)
          continue;
        std::string name = kernel(
            std::string(log ? "log_softmax_bwd_regs" : "softmax_bwd_regs") +
            std::to_string(chunks));
        std::vector<double> dx = softmaxBackward(
            name, y, dy, rows, n, ld, scale, registerRowThreads(chunks));
        if (HasFatalFailure())
          return;
        for (uint32_t r = 0; r < rows; ++r) {
          double total = 0;
          for (uint32_t c = 0; c < n; ++c)
            total += log ? dy[r * ld + c] : dy[r * ld + c] * y[r * ld + c];
          for (uint32_t c = 0; c < ld; ++c) {
            double got = dx[r * ld + c];
            if (c >= n) {
              ASSERT_EQ(got, 7.0) << name << " wrote past the row";
              continue;
            }
            double yv = y[r * ld + c], g = dy[r * ld + c];
            double want = log ? scale * (g - std::exp(yv) * total)
                              : scale * yv * (g - total);
            // The error is relative to the terms, which may cancel.
            double terms = log ? scale * (std::fabs(g) +
                                          std::exp(yv) * std::fabs(total))
                               : scale * std::fabs(yv) *
                                     (std::fabs(g) + std::fabs(total));
            ASSERT_NEAR(got, want, tolerance(elem()) * (terms + 1e-3))
                << name << " n=" << n << " row " << r << " col " << c;
          }
        }
      }
    }
}

// torch's class indices are int64: the _t64 kernels read them as they
// are, and an index that only wraps into range in 32 bits is out of range.
TEST_P(TrainingKernelsTest, CrossEntropyInt64Targets) {
  const uint32_t n = 300, rows = 4, ld = leading(n);
  const int32_t ignore = -100;
  std::vector<double> x = random(size_t(rows) * ld, -4, 4);
  std::vector<int64_t> targets = {17, ignore, (int64_t(1) << 32) + 5,
                                  int64_t(n - 1)};
  std::vector<float> dloss = {0.5f, 1.0f, 1.0f, -2.0f};
  Interpreter interp(**module);
  uint64_t dx = upload(interp, x), dt = interp.allocGlobal(64),
           dl = interp.allocGlobal(64), dlse = interp.allocGlobal(64),
           ddl = interp.allocGlobal(64),
           dgrad = upload(interp, std::vector<double>(x.size(), 7.0));
  ASSERT_TRUE(interp.write(dt, targets));
  ASSERT_TRUE(interp.write(ddl, dloss));
  run(interp, kernel("cross_entropy_t64"), rows,
      {dx, dt, dl, dlse, n, ld, uint32_t(ignore), uint32_t(kCrossEntropyLse)});
  if (HasFatalFailure())
    return;
  std::vector<float> loss = read<float>(interp, dl, rows),
                     lse = read<float>(interp, dlse, rows);
  EXPECT_NEAR(loss[0], lse[0] - x[17], 1e-5 * std::fabs(lse[0]) + 1e-5);
  EXPECT_EQ(loss[1], 0.0f) << "ignored row";
  EXPECT_TRUE(std::isnan(loss[2])) << "2^32 + 5 wrapped: " << loss[2];
  EXPECT_NEAR(loss[3], lse[3] - x[3 * ld + n - 1],
              1e-5 * std::fabs(lse[3]) + 1e-5);
  run(interp, kernel("cross_entropy_bwd_t64"), rows,
      {dx, dt, dlse, ddl, dgrad, n, ld, ld, uint32_t(ignore)});
  if (HasFatalFailure())
    return;
  std::vector<double> grad = download(interp, dgrad, x.size());
  for (uint32_t r : {0u, 1u, 3u})
    for (uint32_t c = 0; c < n; ++c) {
      double p = std::exp(x[r * ld + c] - (double)lse[r]);
      double want = targets[r] == ignore
                        ? 0.0
                        : dloss[r] * (p - (int64_t(c) == targets[r] ? 1 : 0));
      ASSERT_NEAR(grad[r * ld + c], want,
                  tolerance(elem()) * (std::fabs(want) + 1e-3) + 1e-7)
          << "row " << r << " col " << c;
    }
}

TEST_P(TrainingKernelsTest, CrossEntropyForwardAndBackward) {
  const uint32_t n = 1003, rows = 5, ld = leading(n);
  const int32_t ignore = -100;
  std::vector<double> x = random(size_t(rows) * ld, -4, 4);
  // A normal row, the last column, the ignored index, the first column and
  // a target out of range (NaN loss).
  std::vector<int32_t> targets = {17, int32_t(n - 1), ignore, 0, int32_t(n)};
  std::vector<float> dloss = {0.5f, 1.0f, 1.0f, -2.0f, 0.0f};
  Interpreter interp(**module);
  uint64_t dx = upload(interp, x), dt = uploadI32(interp, targets);
  uint64_t dl = interp.allocGlobal(64), dlse = interp.allocGlobal(64),
           ddl = interp.allocGlobal(64),
           dgrad = upload(interp, std::vector<double>(x.size(), 7.0));
  ASSERT_TRUE(interp.write(ddl, dloss));
  run(interp, kernel("cross_entropy"), rows,
      {dx, dt, dl, dlse, n, ld, uint32_t(ignore), uint32_t(kCrossEntropyLse)});
  if (HasFatalFailure())
    return;
  std::vector<float> loss = read<float>(interp, dl, rows),
                     lse = read<float>(interp, dlse, rows);
  for (uint32_t r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (uint32_t c = 0; c < n; ++c)
      m = std::max(m, x[r * ld + c]);
    for (uint32_t c = 0; c < n; ++c)
      s += std::exp(x[r * ld + c] - m);
    double wantLse = m + std::log(s);
    EXPECT_NEAR(lse[r], wantLse, 1e-5 * std::fabs(wantLse)) << "row " << r;
    int32_t t = targets[r];
    if (t == ignore)
      EXPECT_EQ(loss[r], 0.0f) << "ignored row";
    else if (t < 0 || t >= int32_t(n))
      EXPECT_TRUE(std::isnan(loss[r])) << "target out of range: " << loss[r];
    else
      EXPECT_NEAR(loss[r], wantLse - x[r * ld + t], 1e-5 * wantLse)
          << "row " << r;
  }
  run(interp, kernel("cross_entropy_bwd"), rows - 1,
      {dx, dt, dlse, ddl, dgrad, n, ld, ld, uint32_t(ignore)});
  if (HasFatalFailure())
    return;
  std::vector<double> grad = download(interp, dgrad, x.size());
  for (uint32_t r = 0; r + 1 < rows; ++r) {
    int32_t t = targets[r];
    for (uint32_t c = 0; c < n; ++c) {
      double p = std::exp(x[r * ld + c] - (double)lse[r]);
      double want =
          t == ignore ? 0.0 : dloss[r] * (p - (int32_t(c) == t ? 1.0 : 0.0));
      ASSERT_NEAR(grad[r * ld + c], want,
                  tolerance(elem()) * (std::fabs(want) + 1e-3) + 1e-7)
          << "row " << r << " col " << c;
    }
    for (uint32_t c = n; c < ld; ++c)
      ASSERT_EQ(grad[r * ld + c], 7.0) << "wrote past the row";
  }
  // The backward is the gradient of the forward: finite differences of
  // dloss * loss(x) on a short row.
  const uint32_t m = 9, ldm = leading(m);
  std::vector<double> xs = random(ldm, -2, 2);
  std::vector<int32_t> ts = {4};
  uint64_t dxs = upload(interp, xs), dts = uploadI32(interp, ts),
           dlse1 = interp.allocGlobal(16), dl1 = interp.allocGlobal(16),
           dd1 = interp.allocGlobal(16),
           dg1 = upload(interp, std::vector<double>(ldm, 7.0));
  ASSERT_TRUE(interp.write(dd1, std::vector<float>{1.5f}));
  run(interp, kernel("cross_entropy"), 1,
      {dxs, dts, dl1, dlse1, m, ldm, uint32_t(ignore),
       uint32_t(kCrossEntropyLse)});
  run(interp, kernel("cross_entropy_bwd"), 1,
      {dxs, dts, dlse1, dd1, dg1, m, ldm, ldm, uint32_t(ignore)});
  if (HasFatalFailure())
    return;
  std::vector<double> g1 = download(interp, dg1, ldm);
  std::vector<double> row(xs.begin(), xs.begin() + m);
  std::vector<double> want = finiteDifference(row, [&](const std::vector<double> &v) {
    double mx = -INFINITY, s = 0;
    for (double e : v)
      mx = std::max(mx, e);
    for (double e : v)
      s += std::exp(e - mx);
    return 1.5 * (mx + std::log(s) - v[4]);
  });
  for (uint32_t c = 0; c < m; ++c)
    EXPECT_NEAR(g1[c], want[c], 3 * tolerance(elem()) + 1e-6) << "col " << c;
}

TEST_P(TrainingKernelsTest, RowReductionsAndArgmax) {
  const uint32_t rows = 4;
  for (uint32_t n : {1u, 37u, 2000u}) {
    uint32_t ld = leading(n);
    std::vector<double> x = random(size_t(rows) * ld, -10, 10);
    // Row 1: a tie for the maximum (the first one wins); row 2: a NaN,
    // which argmax reports and max propagates; row 3 all equal.
    double top = roundTo(elem(), 50);
    x[1 * ld + n / 2] = top;
    x[1 * ld + n - 1] = top;
    if (n > 1)
      x[2 * ld + n - 2] = NAN;
    for (uint32_t c = 0; c < n; ++c)
      x[3 * ld + c] = 1.0;
    Interpreter interp(**module);
    uint64_t dx = upload(interp, x), dout = interp.allocGlobal(64);
    for (const char *kind : {"sum", "max", "min"}) {
      run(interp, kernel((std::string("reduce_") + kind).c_str()), rows,
          {dx, dout, n, ld});
      if (HasFatalFailure())
        return;
      std::vector<float> got = read<float>(interp, dout, rows);
      for (uint32_t r = 0; r < rows; ++r) {
        double want = kind[1] == 'u' ? 0 : kind[1] == 'a' ? -INFINITY : INFINITY;
        bool nan = false;
        double mag = 0;
        for (uint32_t c = 0; c < n; ++c) {
          double v = x[r * ld + c];
          nan |= std::isnan(v);
          mag += std::fabs(v);
          want = kind[1] == 'u' ? want + v
                 : kind[1] == 'a' ? std::max(want, v)
                                  : std::min(want, v);
        }
        std::string at = std::string(kind) + " n=" + std::to_string(n) +
                         " row " + std::to_string(r);
        if (nan)
          EXPECT_TRUE(std::isnan(got[r])) << at << " propagates NaN";
        else if (kind[1] == 'u')
          EXPECT_NEAR(got[r], want, 1e-6 * mag + 1e-6) << at;
        else
          EXPECT_EQ(got[r], want) << at;
      }
    }
    run(interp, kernel("argmax"), rows, {dx, dout, n, ld});
    if (HasFatalFailure())
      return;
    std::vector<int32_t> idx = read<int32_t>(interp, dout, rows);
    for (uint32_t r = 0; r < rows; ++r) {
      int32_t want = 0;
      for (uint32_t c = 0; c < n; ++c) {
        double v = x[r * ld + c], w = x[r * ld + want];
        if (std::isnan(w))
          break;
        if (std::isnan(v) || v > w)
          want = c;
      }
      EXPECT_EQ(idx[r], want) << "argmax n=" << n << " row " << r;
    }
    // argmaxAll, as Library::argmaxAll launches it: the rows' maxima and
    // argmaxes, the argmax of the maxima (an f32 row, the scalar kernel),
    // then row * cols + column: the first maximum (first NaN) in row-major
    // order.
    uint64_t dmax = interp.allocGlobal(64), didx = interp.allocGlobal(64),
             drow = interp.allocGlobal(16), dall = interp.allocGlobal(16);
    run(interp, kernel("reduce_max"), rows, {dx, dmax, n, ld});
    run(interp, kernel("argmax"), rows, {dx, didx, n, ld});
    run(interp, "argmax_f32", 1, {dmax, drow, rows, rows});
    auto fin = interp.launch("argmax_all_finish", {1}, {32},
                             {drow, didx, dall, n});
    ASSERT_TRUE(fin.success) << fin.message();
    int32_t want = 0;
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < n; ++c) {
        double v = x[r * ld + c], w = x[size_t(want / n) * ld + want % n];
        if (std::isnan(w))
          break;
        if (std::isnan(v) || v > w)
          want = int32_t(r * n + c);
      }
    EXPECT_EQ(read<int32_t>(interp, dall, 1)[0], want) << "argmax_all n=" << n;
  }
  // The s64 finish: an index past 2^32 (row 70000 of 100000-column rows,
  // column 12345), not wrapped.
  Interpreter interp(**module);
  uint64_t drow = interp.allocGlobal(16), didx = interp.allocGlobal(70001 * 4),
           dall = interp.allocGlobal(16);
  ASSERT_TRUE(interp.write(drow, std::vector<int32_t>{70000}));
  std::vector<int32_t> perRow(70001, 0);
  perRow[70000] = 12345;
  ASSERT_TRUE(interp.write(didx, perRow));
  auto fin = interp.launch("argmax_all_finish_s64", {1}, {32},
                           {drow, didx, dall, 100000u});
  ASSERT_TRUE(fin.success) << fin.message();
  EXPECT_EQ(read<int64_t>(interp, dall, 1)[0],
            int64_t(70000) * 100000 + 12345);
}

/// Row r's mean (0 for RMSNorm) and 1 / sqrt(var + eps), in f64.
std::pair<double, double> rowNormStats(bool layer, const std::vector<double> &x,
                                       uint32_t r, uint32_t n, uint32_t ld,
                                       double eps) {
  double mu = 0, ss = 0;
  for (uint32_t c = 0; c < n; ++c)
    mu += x[r * ld + c];
  mu = layer ? mu / n : 0;
  for (uint32_t c = 0; c < n; ++c)
    ss += (x[r * ld + c] - mu) * (x[r * ld + c] - mu);
  return {mu, 1 / std::sqrt(ss / n + eps)};
}

/// The forward's saved statistics of each row, in f32 as the forward
/// stores them.
std::pair<std::vector<float>, std::vector<float>>
normStatsOf(bool layer, const std::vector<double> &x, uint32_t rows,
            uint32_t n, uint32_t ld, double eps) {
  std::vector<float> mean(rows), rstd(rows);
  for (uint32_t r = 0; r < rows; ++r) {
    auto [mu, rs] = rowNormStats(layer, x, r, n, ld, eps);
    mean[r] = float(mu);
    rstd[r] = float(rs);
  }
  return {mean, rstd};
}

/// sum over the batch of dy * norm(x) (f64), for finite differences.
double normLoss(bool layer, const std::vector<double> &x,
                const std::vector<double> &dy, const std::vector<double> &w,
                const std::vector<double> &b, uint32_t rows, uint32_t n,
                uint32_t ld, double eps) {
  double total = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    auto [mu, rs] = rowNormStats(layer, x, r, n, ld, eps);
    for (uint32_t c = 0; c < n; ++c)
      total += dy[r * ld + c] *
               ((x[r * ld + c] - mu) * rs * w[c] + (layer ? b[c] : 0));
  }
  return total;
}

TEST_P(TrainingKernelsTest, NormBackwardIsTheForwardsGradient) {
  const float eps = 1e-5f;
  for (bool layer : {false, true})
    for (uint32_t n : {7u, 300u, 0u, 1u}) {
      // 7 and 300 take the 128-thread fused kernel (300 in f32 both of its
      // chunk slots). 0 and 1 stand for rows of 300 and 600 chunks plus a
      // 3-element tail: the 256- and 512-thread kernels, each with its
      // second chunk slot (chunks B and up) and the scalar tail slot in use.
      // Five rows in two slices: a block walks three rows, its pair sums'
      // two buffers each used again (the race check watches them).
      const uint32_t width = elem() == Elem::F32 ? 4 : 8;
      if (n < 2) {
        if (!vectorized())
          continue;
        n = (n == 0 ? 300 : 600) * width + 3;
      }
      const uint32_t rows = n > 1000 ? 2 : 5, ld = leading(n), splits = 2,
                     perSplit = (rows + splits - 1) / splits;
      std::vector<double> x = random(size_t(rows) * ld, -2, 2);
      std::vector<double> dy = random(size_t(rows) * ld, -1, 1);
      // 300 without a weight (flags 0: the kernels take it as 1).
      const bool weighted = n != 300;
      std::vector<double> w = weighted ? random(n, 0.5, 1.5)
                                       : std::vector<double>(n, 1.0),
                          b = random(n, -1, 1);
      const uint32_t weightFlag = weighted ? uint32_t(kNormBwdWeight) : 0u;
      auto [mean, rstd] = normStatsOf(layer, x, rows, n, ld, eps);
      Interpreter interp(**module);
      uint64_t dx = upload(interp, x), ddy = upload(interp, dy),
               dw = weighted ? upload(interp, w) : dx,
               dmean = interp.allocGlobal(rows * 4),
               drstd = interp.allocGlobal(rows * 4),
               dgrad = upload(interp, std::vector<double>(x.size(), 7.0)),
               dpartial = interp.allocGlobal(size_t(splits) * 2 * n * 4),
               ddw = upload(interp, std::vector<double>(n, 7.0)),
               ddb = upload(interp, std::vector<double>(n, 7.0));
      ASSERT_TRUE(interp.write(dmean, mean));
      ASSERT_TRUE(interp.write(drstd, rstd));
      // The vector variants take the fused kernel (dx and the slices'
      // partials in one pass, as the library does for aligned rows), the
      // scalar ones the dx kernel and the slices kernel.
      unsigned block = normFusedBlock(n / width);
      if (n / width >= 300)
        ASSERT_EQ(block, n / width >= 600 ? 512u : 256u);
      std::string fusedBase = std::string(layer ? "layer" : "rms") +
                              "_norm_bwd_fused_b" + std::to_string(block);
      std::string name =
          vectorized() ? kernel(fusedBase.c_str())
                       : kernel(layer ? "layer_norm_bwd" : "rms_norm_bwd");
      if (vectorized()) {
        auto r = interp.launch(name, {splits}, {block},
                               {dx, ddy, dw, dmean, drstd, dgrad, dpartial, n,
                                rows, ld, ld, ld, perSplit, weightFlag});
        ASSERT_TRUE(r.success) << name << ": " << r.message();
      } else {
        run(interp, name, rows,
            {dx, ddy, dw, dmean, drstd, dgrad, n, ld, ld, ld, weightFlag});
        uint32_t flags = layer ? uint32_t(kNormBwdLayer) : 0u;
        std::string params =
            std::string("norm_bwd_params_") + elemName(elem());
        auto r1 = interp.launch(
            params, {(n + kNormParamsBlock - 1) / kNormParamsBlock, splits},
            {kNormParamsBlock},
            {dx, ddy, dmean, drstd, dpartial, n, rows, ld, ld, perSplit,
             flags});
        ASSERT_TRUE(r1.success) << r1.message();
      }
      std::string reduce = std::string("norm_bwd_reduce_") + elemName(elem());
      auto r2 = interp.launch(
          reduce, {(n + kNormParamsBlock - 1) / kNormParamsBlock},
          {kNormParamsBlock},
          {dpartial, ddw, ddb, n, splits,
           layer ? uint32_t(kNormBwdBias) : 0u});
      ASSERT_TRUE(r2.success) << r2.message();
      if (HasFatalFailure())
        return;
      std::vector<double> grad = download(interp, dgrad, x.size());
      std::vector<double> gw = download(interp, ddw, n),
                          gb = download(interp, ddb, n);
      auto loss = [&](const std::vector<double> &xx,
                      const std::vector<double> &ww,
                      const std::vector<double> &bb) {
        return normLoss(layer, xx, dy, ww, bb, rows, n, ld, eps);
      };
      std::vector<double> wantX =
          finiteDifference(x, [&](const std::vector<double> &v) {
            return loss(v, w, b);
          });
      std::vector<double> wantW =
          finiteDifference(w, [&](const std::vector<double> &v) {
            return loss(x, v, b);
          });
      std::vector<double> wantB =
          finiteDifference(b, [&](const std::vector<double> &v) {
            return loss(x, w, v);
          });
      double tol = 4 * tolerance(elem());
      std::string at = name + " n=" + std::to_string(n);
      for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t c = 0; c < ld; ++c) {
          size_t i = size_t(r) * ld + c;
          if (c >= n)
            ASSERT_EQ(grad[i], 7.0) << at << ": wrote past the row";
          else
            ASSERT_NEAR(grad[i], wantX[i], tol * (std::fabs(wantX[i]) + 0.1))
                << at << " dx row " << r << " col " << c;
        }
      for (uint32_t c = 0; c < n; ++c) {
        ASSERT_NEAR(gw[c], wantW[c], tol * (std::fabs(wantW[c]) + 0.1))
            << at << " dweight " << c;
        if (layer)
          ASSERT_NEAR(gb[c], wantB[c], tol * (std::fabs(wantB[c]) + 0.1))
              << at << " dbias " << c;
        else
          ASSERT_EQ(gb[c], 7.0) << at << ": RMSNorm has no dbias";
      }
    }
}

/// dx, dweight and dbias of RMSNorm / LayerNorm in closed form (f64), for
/// rows too long for finite differences (NormBackwardIsTheForwardsGradient
/// checks the same formula against them on shorter rows).
struct NormGrads {
  std::vector<double> dx, dw, db;
};
NormGrads normBackwardRef(bool layer, const std::vector<double> &x,
                          const std::vector<double> &dy,
                          const std::vector<double> &w,
                          const std::vector<float> &mean,
                          const std::vector<float> &rstd, uint32_t rows,
                          uint32_t n, uint32_t ld) {
  NormGrads g{std::vector<double>(x.size()), std::vector<double>(n),
              std::vector<double>(n)};
  for (uint32_t r = 0; r < rows; ++r) {
    double mu = layer ? mean[r] : 0, rs = rstd[r], sg = 0, sgx = 0;
    for (uint32_t c = 0; c < n; ++c) {
      double gc = dy[r * ld + c] * w[c], xhat = (x[r * ld + c] - mu) * rs;
      sg += gc;
      sgx += gc * xhat;
      g.dw[c] += dy[r * ld + c] * xhat;
      g.db[c] += dy[r * ld + c];
    }
    for (uint32_t c = 0; c < n; ++c) {
      double xhat = (x[r * ld + c] - mu) * rs;
      g.dx[r * ld + c] = rs * (dy[r * ld + c] * w[c] - (layer ? sg / n : 0) -
                               xhat * sgx / n);
    }
  }
  return g;
}

TEST_P(TrainingKernelsTest, FusedNormBackwardWideRows) {
  if (!vectorized())
    GTEST_SKIP() << "the fused kernel moves 16-byte chunks";
  // Rows past the 512-thread variant's 1024 chunks take the wide one (512
  // threads, 4 chunks each): 1500 chunks and a 3-element tail (the fourth
  // chunk slot, a chunk the row ends inside and the tail in use), and the
  // longest, 2048 chunks. Five rows in two slices: the accumulators carry
  // across rows, the staging buffers alternate.
  const uint32_t width = elem() == Elem::F32 ? 4 : 8;
  ASSERT_EQ(normFusedBlock(1025), 0u);
  for (uint32_t n : {1500 * width + 3, 2048 * width})
    for (bool layer : {false, true}) {
      const uint32_t rows = 5, splits = 2, ld = leading(n),
                     perSplit = (rows + splits - 1) / splits;
      std::vector<double> x = random(size_t(rows) * ld, -2, 2);
      std::vector<double> dy = random(size_t(rows) * ld, -1, 1);
      std::vector<double> w = random(n, 0.5, 1.5);
      auto [mean, rstd] = normStatsOf(layer, x, rows, n, ld, 1e-5);
      Interpreter interp(**module);
      uint64_t dx = upload(interp, x), ddy = upload(interp, dy),
               dw = upload(interp, w), dmean = interp.allocGlobal(rows * 4),
               drstd = interp.allocGlobal(rows * 4),
               dgrad = upload(interp, std::vector<double>(x.size(), 7.0)),
               dpartial = interp.allocGlobal(size_t(splits) * 2 * n * 4);
      ASSERT_TRUE(interp.write(dmean, mean));
      ASSERT_TRUE(interp.write(drstd, rstd));
      std::string name = kernel(
          (std::string(layer ? "layer" : "rms") + "_norm_bwd_fused_b" +
           std::to_string(kNormFusedWideBlock) + "r" +
           std::to_string(kNormFusedWideChunks))
              .c_str());
      auto r = interp.launch(name, {splits}, {kNormFusedWideBlock},
                             {dx, ddy, dw, dmean, drstd, dgrad, dpartial, n,
                              rows, ld, ld, ld, perSplit,
                              uint32_t(kNormBwdWeight)});
      ASSERT_TRUE(r.success) << name << ": " << r.message();
      NormGrads want =
          normBackwardRef(layer, x, dy, w, mean, rstd, rows, n, ld);
      std::vector<double> grad = download(interp, dgrad, x.size());
      std::vector<float> partial(size_t(splits) * 2 * n);
      ASSERT_TRUE(interp.read(dpartial, partial));
      const double tol = tolerance(elem());
      const std::string at = name + " n=" + std::to_string(n);
      for (uint32_t row = 0; row < rows; ++row)
        for (uint32_t c = 0; c < ld; ++c) {
          size_t i = size_t(row) * ld + c;
          if (c >= n)
            ASSERT_EQ(grad[i], 7.0) << at << ": wrote past the row";
          else
            ASSERT_NEAR(grad[i], want.dx[i],
                        tol * (std::fabs(want.dx[i]) + 0.1))
                << at << " dx row " << row << " col " << c;
        }
      // dx written over dy (the library allows it): the same bits. The
      // pipeline's copy of row r + 1 runs while row r's dx is stored.
      uint64_t inPlace = upload(interp, dy);
      auto again = interp.launch(name, {splits}, {kNormFusedWideBlock},
                                 {dx, inPlace, dw, dmean, drstd, inPlace,
                                  dpartial, n, rows, ld, ld, ld, perSplit,
                                  uint32_t(kNormBwdWeight)});
      ASSERT_TRUE(again.success) << name << ": " << again.message();
      std::vector<double> overDy = download(interp, inPlace, x.size());
      for (uint32_t row = 0; row < rows; ++row)
        for (uint32_t c = 0; c < n; ++c) {
          size_t i = size_t(row) * ld + c;
          ASSERT_EQ(overDy[i], grad[i]) << name << " in place, row " << row
                                        << " col " << c;
        }
      // The slices' partials (f32) sum to dweight and dbias.
      for (uint32_t c = 0; c < n; ++c) {
        double gw = 0, gb = 0;
        for (uint32_t p = 0; p < splits; ++p) {
          gw += partial[size_t(p) * 2 * n + c];
          gb += partial[size_t(p) * 2 * n + n + c];
        }
        ASSERT_NEAR(gw, want.dw[c], 1e-4 * (std::fabs(want.dw[c]) + 1))
            << at << " dweight " << c;
        ASSERT_NEAR(gb, want.db[c], 1e-4 * (std::fabs(want.db[c]) + 1))
            << at << " dbias " << c;
      }
    }
}

TEST_P(TrainingKernelsTest, FusedNormBackwardReadsEachRowOnce) {
  if (!vectorized())
    GTEST_SKIP() << "the fused kernel moves 16-byte chunks";
  // Rows of 1024 chunks (the 512-thread kernel) and of 2048 (the wide one),
  // eight of them in two slices: x and dy staged once each by 16-byte
  // cp.async of whole sectors (the next row's while the block works on
  // this one), the weight once a block; each thread reading its staged
  // chunks twice (the sums, then dx) in 16-byte shared loads without bank
  // conflicts; two barriers a row (the copies landed, which also frees the
  // row before's buffers for the next row's copies; the two sums
  // together).
  const uint32_t width = elem() == Elem::F32 ? 4 : 8, rows = 8, splits = 2;
  const uint64_t eb = elemBytes(elem());
  ASSERT_EQ(normFusedBlock(1024), 512u);
  for (bool wide : {false, true})
    for (bool layer : {false, true}) {
      SCOPED_TRACE(std::string(layer ? "LayerNorm" : "RMSNorm") +
                   (wide ? ", wide" : ""));
      const uint32_t n = (wide ? 2048 : 1024) * width, block = 512,
                     chunks = wide ? kNormFusedWideChunks : kNormFusedChunks;
      const uint64_t rowBytes = uint64_t(rows) * n * eb,
                     warps = block / 32;
      Interpreter interp(**module);
      std::vector<double> x = random(size_t(rows) * n, -2, 2);
      uint64_t dx = upload(interp, x), ddy = upload(interp, x),
               dw = upload(interp, random(n, 0.5, 1.5)),
               dmean = uploadF32(interp, rows, 0.0f),
               drstd = uploadF32(interp, rows, 1.0f),
               dgrad = upload(interp, x),
               dpartial = interp.allocGlobal(size_t(splits) * 2 * n * 4);
      interp::Profile profile;
      interp::LaunchOptions options;
      options.profile = &profile;
      std::string name = kernel((std::string(layer ? "layer" : "rms") +
                                 "_norm_bwd_fused_b512" + (wide ? "r4" : ""))
                                    .c_str());
      auto r = interp.launch(name, {splits}, {block},
                             {dx, ddy, dw, dmean, drstd, dgrad, dpartial, n,
                              rows, n, n, n, rows / splits,
                              uint32_t(kNormBwdWeight)},
                             options);
      ASSERT_TRUE(r.success) << r.message();
      const interp::KernelProfile &k = profile.kernels().at(0);
      // x and dy once, the weight once a block: all by cp.async (the
      // pipeline's copies past a slice's last row read nothing).
      const interp::GlobalStats &copies = k.global.at("cp.async");
      EXPECT_EQ(copies.bytes, 2 * rowBytes + splits * n * eb);
      EXPECT_EQ(copies.sectors, copies.idealSectors);
      EXPECT_EQ(k.mix.count("ld.global.16B"), 0u);
      // Global loads left: rstd (and mean) a row, a row ahead (one more a
      // slice), by every thread.
      EXPECT_EQ(k.global.at("ld.global").bytes,
                uint64_t(splits) * (rows / splits + 1) * block * 4 *
                    (layer ? 2 : 1));
      // The staged chunks (x, dy, weight) read twice a row, 16 bytes a
      // lane.
      EXPECT_EQ(k.mix.at("ld.shared.16B"),
                uint64_t(rows) * warps * 2 * 3 * chunks);
      for (auto &[kind, stats] : k.shared)
        EXPECT_EQ(stats.bankConflicts(), 0u) << kind;
      // dx once, in 16-byte stores; then each slice's dw and db partials.
      EXPECT_EQ(k.mix.at("st.global.16B"), rowBytes / 16 / 32);
      EXPECT_EQ(k.global.at("st.global").bytes,
                rowBytes + splits * 2 * n * 4);
      EXPECT_EQ(k.mix.at("bar"), uint64_t(rows) * 2 * warps);
    }
}

INSTANTIATE_TEST_SUITE_P(Types, TrainingKernelsTest, elemVariants(), elemVariantName);

} // namespace
