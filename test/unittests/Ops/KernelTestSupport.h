//===- KernelTestSupport.h - running the library's builder kernels -*- C++ -*-===//
//
// A fixture that builds every builder kernel of the op library in process,
// lowers it and runs it in the interpreter; element-type conversions of the
// f64 reference data.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_TEST_UNITTESTS_OPS_KERNELTESTSUPPORT_H
#define KAIO_TEST_UNITTESTS_OPS_KERNELTESTSUPPORT_H

#include "OpsKernels.h"

#include "Kaio/Builder/Builder.h"
#include "Kaio/Compiler/Compile.h"
#include "Kaio/InitAll.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Runtime/Types.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace kaio::test {

using kaio::interp::Interpreter;
using namespace kaio::ops::kernels;

/// Element types of test data: floats, and s8 inputs / s32 sums of the
/// integer GEMM (values held as doubles, which represent them exactly).
enum class Elem { F32, F16, BF16, S8, S32 };

inline const char *elemName(Elem e) {
  static constexpr const char *kNames[] = {"f32", "f16", "bf16", "s8", "s32"};
  return kNames[unsigned(e)];
}
inline unsigned elemBytes(Elem e) {
  return e == Elem::F32 || e == Elem::S32 ? 4 : e == Elem::S8 ? 1 : 2;
}
/// 16 bytes of the element type.
inline unsigned vectorOf(Elem e) { return 16 / elemBytes(e); }

/// Rounds to the element type (what storing and reloading gives).
inline double roundTo(Elem e, double v) {
  switch (e) {
  case Elem::F32:
    return float(v);
  case Elem::F16:
    return rt::toFloat(rt::toHalf(float(v)));
  case Elem::BF16:
    return rt::toFloat(rt::toBFloat16(float(v)));
  case Elem::S8:
    return std::clamp(std::nearbyint(v), -128.0, 127.0);
  case Elem::S32:
    return std::nearbyint(v);
  }
  return v;
}

/// The element type's bytes of a vector of values (already representable).
inline std::vector<unsigned char> encode(Elem e, const std::vector<double> &v) {
  std::vector<unsigned char> out(v.size() * elemBytes(e));
  for (size_t i = 0; i < v.size(); ++i) {
    if (e == Elem::F32) {
      float f = float(v[i]);
      std::memcpy(&out[i * 4], &f, 4);
    } else if (e == Elem::S32) {
      int32_t x = int32_t(v[i]);
      std::memcpy(&out[i * 4], &x, 4);
    } else if (e == Elem::S8) {
      out[i] = static_cast<unsigned char>(int8_t(v[i]));
    } else if (e == Elem::F16) {
      rt::Half h = rt::toHalf(float(v[i]));
      std::memcpy(&out[i * 2], &h, 2);
    } else {
      rt::BFloat16 h = rt::toBFloat16(float(v[i]));
      std::memcpy(&out[i * 2], &h, 2);
    }
  }
  return out;
}
/// `values` encoded as `e` in a new global allocation (at least 16 bytes)
/// of the interpreter; returns its address.
inline uint64_t uploadAs(Interpreter &interp, const std::vector<double> &values,
                         Elem e) {
  std::vector<unsigned char> bytes = encode(e, values);
  uint64_t at = interp.allocGlobal(std::max<size_t>(bytes.size(), 16));
  EXPECT_TRUE(interp.write(at, bytes));
  return at;
}

inline std::vector<double> decode(Elem e, const std::vector<unsigned char> &bytes) {
  std::vector<double> out(bytes.size() / elemBytes(e));
  for (size_t i = 0; i < out.size(); ++i) {
    if (e == Elem::F32) {
      float f;
      std::memcpy(&f, &bytes[i * 4], 4);
      out[i] = f;
    } else if (e == Elem::S32) {
      int32_t x;
      std::memcpy(&x, &bytes[i * 4], 4);
      out[i] = x;
    } else if (e == Elem::S8) {
      out[i] = int8_t(bytes[i]);
    } else if (e == Elem::F16) {
      rt::Half h;
      std::memcpy(&h, &bytes[i * 2], 2);
      out[i] = rt::toFloat(h);
    } else {
      rt::BFloat16 h;
      std::memcpy(&h, &bytes[i * 2], 2);
      out[i] = rt::toFloat(h);
    }
  }
  return out;
}

/// Relative tolerance of a result stored as `e` (a few roundings).
inline double tolerance(Elem e) {
  return e == Elem::F32    ? 2e-5
         : e == Elem::F16  ? 2e-3
         : e == Elem::BF16 ? 1.6e-2
                           : 0.0;
}

/// Builder kernels lowered to the ptx dialect in a context of their own
/// (a test suite builds them once, in SetUpTestSuite).
struct LoweredKernels {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The builder's or the pipeline's complaint; empty on success.
  std::string error;
};
inline std::unique_ptr<LoweredKernels>
buildLoweredKernels(llvm::function_ref<void(builder::ModuleBuilder &)> build) {
  auto out = std::make_unique<LoweredKernels>();
  out->context = std::make_unique<mlir::MLIRContext>();
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  out->context->appendDialectRegistry(registry);
  out->context->loadAllAvailableDialects();
  builder::ModuleBuilder mb(*out->context);
  build(mb);
  out->module = mb.finish();
  if (!out->module)
    out->error = mb.diagnostics();
  else if (failed(lowerToPTXDialect(*out->module, CompileOptions())))
    out->error = "lowering to the ptx dialect failed";
  return out;
}

/// The lowered module with every builder kernel of the library, built once
/// per test suite; parameterised by element type and vector/scalar variant.
class OpsKernelsTest
    : public ::testing::TestWithParam<std::tuple<Elem, bool>> {
public:
  static void SetUpTestSuite() {
    kernels = buildLoweredKernels([](builder::ModuleBuilder &mb) {
      buildRowKernels(mb);
      buildElementwiseKernels(mb);
      buildGemvKernels(mb);
      buildTrainingKernels(mb);
      buildNormBackwardKernels(mb);
    });
    ASSERT_EQ(kernels->error, "");
    module = &kernels->module;
  }
  static void TearDownTestSuite() {
    module = nullptr;
    kernels.reset();
  }

  Elem elem() const { return std::get<0>(GetParam()); }
  bool vectorized() const { return std::get<1>(GetParam()); }
  unsigned width() const { return vectorized() ? vectorOf(elem()) : 1; }
  std::string kernel(const std::string &base) const {
    return kernel(base.c_str());
  }
  std::string kernel(const char *base) const {
    std::string name = std::string(base) + "_" + elemName(elem());
    if (vectorized())
      name += "_v" + std::to_string(width());
    return name;
  }
  /// A leading dimension >= n: padded, and a multiple of the vector for the
  /// vector kernels; odd (unaligned rows) for the scalar ones.
  uint32_t leading(uint32_t n) const {
    if (!vectorized())
      return n + 3;
    uint32_t v = width();
    return (n + v - 1) / v * v + v;
  }

  /// rows x ld values representable in the element type, uniform in
  /// [lo, hi).
  std::vector<double> random(size_t count, double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<double> v(count);
    for (double &x : v)
      x = roundTo(elem(), dist(rng));
    return v;
  }

  uint64_t upload(Interpreter &interp, const std::vector<double> &values) {
    std::vector<unsigned char> bytes = encode(elem(), values);
    uint64_t addr = interp.allocGlobal(std::max<size_t>(bytes.size(), 16));
    EXPECT_TRUE(interp.write(addr, bytes.data(), bytes.size()));
    return addr;
  }
  uint64_t uploadF32(Interpreter &interp, size_t count, float fill) {
    std::vector<float> v(count, fill);
    uint64_t addr = interp.allocGlobal(std::max<size_t>(count * 4, 16));
    EXPECT_TRUE(interp.write(addr, v));
    return addr;
  }
  std::vector<double> download(Interpreter &interp, uint64_t addr,
                               size_t count) {
    std::vector<unsigned char> bytes(count * elemBytes(elem()));
    EXPECT_TRUE(interp.read(addr, bytes.data(), bytes.size()));
    return decode(elem(), bytes);
  }

  inline static std::unique_ptr<LoweredKernels> kernels;
  inline static mlir::OwningOpRef<mlir::ModuleOp> *module = nullptr;
  std::mt19937 rng{2026};
};


/// Every element type, vector and scalar variants: the parameters of the
/// kernel test suites, and their names ("bf16_vector").
inline auto elemVariants() {
  return ::testing::Combine(
      ::testing::Values(Elem::F32, Elem::F16, Elem::BF16), ::testing::Bool());
}
inline std::string
elemVariantName(const ::testing::TestParamInfo<std::tuple<Elem, bool>> &info) {
  return std::string(elemName(std::get<0>(info.param))) +
         (std::get<1>(info.param) ? "_vector" : "_scalar");
}

} // namespace kaio::test

#endif // KAIO_TEST_UNITTESTS_OPS_KERNELTESTSUPPORT_H
