//===- TypesTest.cpp ------------------------------------------------------===//

#include "Kaio/Runtime/Types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace kaio::rt;

TEST(TypesTest, NamesSizesAndParsing) {
  EXPECT_STREQ(getScalarTypeName(ScalarType::BF16), "bf16");
  EXPECT_EQ(getScalarTypeSize(ScalarType::F64), 8u);
  EXPECT_EQ(getScalarTypeSize(ScalarType::F16), 2u);
  EXPECT_EQ(parseScalarType("s32"), ScalarType::S32);
  EXPECT_EQ(parseScalarType("i32"), std::nullopt);
  EXPECT_EQ(parseScalarType("i32", /*allowAliases=*/true), ScalarType::S32);
  EXPECT_EQ(parseScalarType("i64", true), ScalarType::S64);
  EXPECT_EQ(parseScalarType("b8"), std::nullopt);
  EXPECT_EQ(parseScalarType("b8", false, /*allowByte=*/true), ScalarType::B8);
  EXPECT_EQ(parseScalarType("f31"), std::nullopt);
  EXPECT_TRUE(isFloatType(ScalarType::BF16));
  EXPECT_FALSE(isFloatType(ScalarType::U64));
  EXPECT_TRUE(isSignedIntType(ScalarType::S8));
  EXPECT_FALSE(isSignedIntType(ScalarType::U8));
}

TEST(TypesTest, ScalarTypeOf) {
  static_assert(scalarTypeOf<float>() == ScalarType::F32);
  static_assert(scalarTypeOf<const double>() == ScalarType::F64);
  static_assert(scalarTypeOf<std::uint32_t>() == ScalarType::U32);
  static_assert(scalarTypeOf<int>() == ScalarType::S32);
  static_assert(scalarTypeOf<long long>() == ScalarType::S64);
  static_assert(scalarTypeOf<unsigned long>() == ScalarType::U64);
  static_assert(scalarTypeOf<std::int8_t>() == ScalarType::S8);
  static_assert(scalarTypeOf<Half>() == ScalarType::F16);
  static_assert(scalarTypeOf<BFloat16>() == ScalarType::BF16);
  SUCCEED();
}

TEST(TypesTest, HalfConversions) {
  EXPECT_EQ(toHalf(1.0f).bits, 0x3c00);
  EXPECT_EQ(toHalf(-2.0f).bits, 0xc000);
  EXPECT_EQ(toHalf(65504.0f).bits, 0x7bff);      // Max finite.
  EXPECT_EQ(toHalf(65520.0f).bits, 0x7c00);      // Rounds to +Inf.
  EXPECT_EQ(toHalf(std::ldexp(1.0f, -24)).bits, 0x0001); // Min subnormal.
  EXPECT_EQ(toHalf(std::ldexp(1.0f, -26)).bits, 0x0000);
  EXPECT_EQ(toHalf(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00); // Tie: even.
  EXPECT_EQ(toHalf(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3c02);
  EXPECT_TRUE(std::isnan(toFloat(toHalf(std::nanf("")))));
  EXPECT_EQ(toFloat(Half{0xfc00}), -std::numeric_limits<float>::infinity());
  // Every finite half survives a round trip through float.
  for (unsigned bits = 0; bits < 0x10000; ++bits) {
    Half h{std::uint16_t(bits)};
    if ((bits & 0x7c00) == 0x7c00)
      continue;
    ASSERT_EQ(toHalf(toFloat(h)).bits, bits) << "bits 0x" << std::hex << bits;
  }
}

TEST(TypesTest, BFloat16Conversions) {
  EXPECT_EQ(toBFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(toBFloat16(-1.0f).bits, 0xbf80);
  EXPECT_FLOAT_EQ(toFloat(BFloat16{0x4049}), 3.140625f);
  EXPECT_EQ(toBFloat16(3.14159f).bits, 0x4049);
  EXPECT_TRUE(std::isnan(toFloat(toBFloat16(std::nanf("")))));
}
