//===- ScheduleTest.cpp - the builder's IR does not depend on C++ evaluation order ===//
//
// C++ leaves the operands of `a + b` unsequenced, so gcc and clang create the
// ops of one builder expression in different orders. ModuleBuilder::finish
// reorders each block by dataflow (kaio::orderByDataflow, lib/Dialect/Kaio/
// Transforms/OrderByDataflow.cpp): these tests build the same kernel
// creating its ops in different orders and expect the same IR, and check
// where the order puts values and that reads never cross writes.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Builder/Builder.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>

using namespace kaio;
using namespace kaio::builder;

namespace {

/// The module text of kernel `k` (block 128), verified after scheduling.
std::string build(const std::function<void(KernelBuilder &)> &body) {
  ModuleBuilder mb;
  mb.kernel("k", {128}, body);
  mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish();
  if (!module)
    return "FAILED\n" + mb.diagnostics();
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// Where `needle` first occurs in `text` after `from` (npos: nowhere).
size_t find(const std::string &text, const std::string &needle,
            size_t from = 0) {
  return text.find(needle, from);
}

TEST(BuilderSchedule, OperandsBuiltInEitherOrderGiveTheSameIR) {
  // `p[0] = x * y - (z + w)` as gcc (left to right) and clang might build it.
  auto kernel = [](bool leftFirst) {
    return build([leftFirst](KernelBuilder &k) {
      auto p = k.param<Ptr<float>>("p");
      F32 x = p[1], y = p[2], z = p[3], w = p[4];
      F32 product, sum;
      if (leftFirst) {
        product = x * y;
        sum = z + w;
      } else {
        sum = z + w;
        product = x * y;
      }
      p[0] = product - sum;
    });
  };
  std::string left = kernel(true);
  EXPECT_EQ(left, kernel(false));
  // Each operand right before its use: the product, then the sum.
  size_t mul = find(left, "arith.mulf"), add = find(left, "arith.addf");
  ASSERT_NE(mul, std::string::npos);
  EXPECT_LT(mul, add);
}

TEST(BuilderSchedule, ParameterMathBuiltInEitherOrderGivesTheSameIR) {
  // `select(n == 0, 7, m % max(n, 1))`: gcc builds the last operand first.
  auto kernel = [](bool leftFirst) {
    return build([leftFirst](KernelBuilder &k) {
      auto p = k.param<Ptr<float>>("p");
      auto n = k.param<uint32_t>("n");
      auto m = k.param<uint32_t>("m");
      F32 x = p[0];
      Pred empty;
      U32 wrapped;
      if (leftFirst) {
        empty = n == 0u;
        wrapped = m % max(n, 1u);
      } else {
        wrapped = m % max(n, 1u);
        empty = n == 0u;
      }
      p[select(empty, k.constant(7u), wrapped)] = x;
    });
  };
  std::string ir = kernel(true);
  EXPECT_EQ(ir, kernel(false));
  // Computed from parameters alone: right before the store that needs it,
  // after the load, its operands left to right.
  size_t load = find(ir, "kaio.load");
  size_t cmp = find(ir, "arith.cmpi");
  size_t rem = find(ir, "arith.remui");
  ASSERT_NE(cmp, std::string::npos);
  EXPECT_LT(load, cmp);
  EXPECT_LT(cmp, rem);
  EXPECT_LT(rem, find(ir, "kaio.store"));
}

TEST(BuilderSchedule, ReadsBuiltInEitherOrderGiveTheSameIR) {
  // `out[i] = a[i] + b[i]`: clang loads a first, gcc b.
  auto kernel = [](bool aFirst) {
    return build([aFirst](KernelBuilder &k) {
      auto a = k.param<Ptr<const float>>("a");
      auto b = k.param<Ptr<const float>>("b");
      auto out = k.param<Ptr<float>>("out");
      U32 i = k.threadId();
      F32 x, y;
      if (aFirst) {
        x = a[i];
        y = b[i];
      } else {
        y = b[i];
        x = a[i];
      }
      out[i] = x + y;
    });
  };
  std::string aFirst = kernel(true);
  EXPECT_EQ(aFirst, kernel(false));
  // The add's operands left to right: a's load (%arg0) first.
  size_t loadA = find(aFirst, "kaio.load %arg0");
  size_t loadB = find(aFirst, "kaio.load %arg1");
  ASSERT_NE(loadA, std::string::npos);
  EXPECT_LT(loadA, loadB);
}

TEST(BuilderSchedule, ReadsNeverCrossWrites) {
  std::string ir = build([](KernelBuilder &k) {
    auto p = k.param<Ptr<float>>("p");
    F32 before = p[0]; // must read the old value
    p[0] = 1.0f;
    F32 after = p[0]; // must read the new one
    p[1] = after;
    p[2] = before;
  });
  size_t load1 = find(ir, "kaio.load");
  size_t store1 = find(ir, "kaio.store");
  size_t load2 = find(ir, "kaio.load", load1 + 1);
  size_t store2 = find(ir, "kaio.store", store1 + 1);
  ASSERT_NE(load2, std::string::npos);
  EXPECT_LT(load1, store1);
  EXPECT_LT(store1, load2);
  EXPECT_LT(load2, store2);
}

TEST(BuilderSchedule, ValuesComputedFromLoadsComeRightAfterThem) {
  // An mma-like chain: each step right after the loads it needs, not sunk
  // below the store that follows them all.
  std::string ir = build([](KernelBuilder &k) {
    auto a = k.param<Ptr<const float>>("a");
    auto out = k.param<Ptr<float>>("out");
    F32 acc = k.constant(0.0f);
    for (int i = 0; i < 3; ++i) {
      F32 x = a[i], y = a[i + 3];
      acc = fma(x, y, acc);
    }
    out[1] = k.constant(1.0f);
    out[0] = acc;
  });
  size_t fma1 = find(ir, "math.fma");
  size_t fma2 = find(ir, "math.fma", fma1 + 1);
  ASSERT_NE(fma2, std::string::npos);
  // The first step between the second and the third load.
  EXPECT_LT(find(ir, "kaio.load", find(ir, "kaio.load") + 1), fma1);
  EXPECT_NE(find(ir, "kaio.load", fma1), std::string::npos);
  EXPECT_LT(find(ir, "math.fma", fma2 + 1), find(ir, "kaio.store"));
}

TEST(BuilderSchedule, LoopBodiesAndTheValuesTheyUseAreOrdered) {
  auto kernel = [](bool leftFirst) {
    return build([leftFirst](KernelBuilder &k) {
      auto p = k.param<Ptr<float>>("p");
      auto n = k.param<uint32_t>("n");
      F32 x = p[0];
      F32 scaled, shifted;
      if (leftFirst) {
        scaled = x * 2.0f;
        shifted = x + 3.0f;
      } else {
        shifted = x + 3.0f;
        scaled = x * 2.0f;
      }
      k.for_(1u, n, 1u, [&](U32 i) {
        F32 v = p[i];
        F32 lhs, rhs;
        if (leftFirst) {
          lhs = v * scaled;
          rhs = v - shifted;
        } else {
          rhs = v - shifted;
          lhs = v * scaled;
        }
        p[i] = lhs / rhs;
      });
    });
  };
  std::string ir = kernel(true);
  EXPECT_EQ(ir, kernel(false));
  EXPECT_NE(find(ir, "scf.for"), std::string::npos);
}

TEST(BuilderSchedule, UnusedValuesAreDropped) {
  // Two unused values (and an unused load) in either creation order: their
  // order could only be the creation order, so finish() drops them, as the
  // pipeline's canonicalizer would.
  auto kernel = [](bool mulFirst) {
    return build([mulFirst](KernelBuilder &k) {
      auto p = k.param<Ptr<float>>("p");
      F32 x = p[0];
      F32 unusedLoad = p[2];
      (void)unusedLoad;
      if (mulFirst) {
        F32 u = x * 5.0f, v = x + 5.0f;
        (void)u, (void)v;
      } else {
        F32 v = x + 5.0f, u = x * 5.0f;
        (void)u, (void)v;
      }
      p[1] = x;
    });
  };
  std::string ir = kernel(true);
  EXPECT_EQ(ir, kernel(false));
  EXPECT_EQ(find(ir, "arith.mulf"), std::string::npos);
  EXPECT_EQ(find(ir, "arith.addf"), std::string::npos);
  EXPECT_EQ(find(ir, "kaio.load", find(ir, "kaio.load") + 1), std::string::npos);
  EXPECT_NE(find(ir, "kaio.store"), std::string::npos);
}

} // namespace
