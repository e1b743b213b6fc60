//===- FloatSemanticsTest.cpp - rounding into PTX float formats -----------===//

#include "Kaio/Interpreter/FloatSemantics.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <random>

using namespace kaio::interp;

namespace {

TEST(FloatSemanticsTest, F16RoundsToNearestEven) {
  EXPECT_EQ(f32ToF16(1.0f), 0x3c00);
  EXPECT_EQ(f32ToF16(-2.0f), 0xc000);
  EXPECT_EQ(f32ToF16(65504.0f), 0x7bff);
  // 65520 is half-way between 65504 and 65536: the even side is infinity.
  EXPECT_EQ(f32ToF16(65520.0f), 0x7c00);
  EXPECT_EQ(f32ToF16(65519.0f), 0x7bff);
  // 1 + 2^-11 is half an f16 ulp above 1: ties to even (1.0); 1 + 3*2^-11
  // ties up to the even 1 + 2^-9.
  EXPECT_EQ(f32ToF16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(f32ToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Subnormals: 2^-24 is the smallest; half of it ties to zero.
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(f32ToF16(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(f32ToF16(std::numeric_limits<float>::quiet_NaN()), 0x7fff);
  EXPECT_EQ(f32ToF16(-std::numeric_limits<float>::infinity()), 0xfc00);
}

TEST(FloatSemanticsTest, F16DirectedModes) {
  double x = 1.0 + std::ldexp(1.0, -12); // between 1 and 1 + 2^-10
  EXPECT_EQ(fromDouble(x, kF16, RoundMode::TowardZero), 0x3c00u);
  EXPECT_EQ(fromDouble(x, kF16, RoundMode::Up), 0x3c01u);
  EXPECT_EQ(fromDouble(-x, kF16, RoundMode::Down), 0xbc01u);
  EXPECT_EQ(fromDouble(-x, kF16, RoundMode::Up), 0xbc00u);
  // Overflow: toward zero saturates to the largest finite value.
  EXPECT_EQ(fromDouble(1e6, kF16, RoundMode::TowardZero), 0x7bffu);
  EXPECT_EQ(fromDouble(-1e6, kF16, RoundMode::Up), 0xfbffu);
  EXPECT_EQ(fromDouble(-1e6, kF16, RoundMode::Down), 0xfc00u);
}

TEST(FloatSemanticsTest, BF16AndTF32) {
  EXPECT_EQ(f32ToBF16(1.0f), 0x3f80);
  // 1 + 2^-8 ties to even (1.0); 1 + 3 * 2^-8 ties up.
  EXPECT_EQ(f32ToBF16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(f32ToBF16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(bf16ToF32(0x4049), 3.140625f);
  // tf32 keeps 10 fraction bits; .rna rounds ties away from zero.
  double tie = 1.0 + std::ldexp(1.0, -11);
  EXPECT_EQ(fromDouble(tie, kTF32, RoundMode::NearestAway), (127ull << 10) | 1);
  EXPECT_EQ(fromDouble(tie, kTF32, RoundMode::NearestEven), 127ull << 10);
}

TEST(FloatSemanticsTest, F32MatchesHostRounding) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20000; ++i) {
    double x = std::ldexp(double(rng() >> 11), int(rng() % 300) - 200 - 53);
    if (rng() & 1)
      x = -x;
    EXPECT_EQ(fromDouble(x, kF32, RoundMode::NearestEven),
              f32ToBits(float(x)))
        << x;
  }
}

TEST(FloatSemanticsTest, RoundToOddGivesCorrectDirectedResults) {
  float a = 1.0f, b = std::ldexp(1.0f, -30);
  double sum = addToOdd(a, b);
  EXPECT_EQ(fromDouble(sum, kF32, RoundMode::Up), f32ToBits(std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(fromDouble(sum, kF32, RoundMode::TowardZero), f32ToBits(1.0f));
  EXPECT_EQ(fromDouble(sum, kF32, RoundMode::NearestEven), f32ToBits(1.0f));
  // 1/3 rounds down toward zero and up with .rp.
  double third = divToOdd(1.0, 3.0);
  EXPECT_LT(bitsToF32(fromDouble(third, kF32, RoundMode::TowardZero)),
            bitsToF32(fromDouble(third, kF32, RoundMode::Up)));
  EXPECT_EQ(divF64(1.0, 3.0, RoundMode::Up),
            std::nextafter(divF64(1.0, 3.0, RoundMode::Down), 1.0));
}

TEST(FloatSemanticsTest, ToDoubleDecodes) {
  EXPECT_EQ(toDouble(0x3c00, kF16), 1.0);
  EXPECT_EQ(toDouble(0x0001, kF16), std::ldexp(1.0, -24));
  EXPECT_EQ(toDouble(0xfbff, kF16), -65504.0);
  EXPECT_TRUE(std::isnan(toDouble(0x7e00, kF16)));
  EXPECT_TRUE(std::isinf(toDouble(0x7f80, kBF16)));
}

} // namespace
