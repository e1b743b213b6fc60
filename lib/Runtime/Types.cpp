//===- Types.cpp ----------------------------------------------------------===//

#include "Kaio/Runtime/Types.h"

#include <cmath>
#include <cstring>

using namespace kaio::rt;

namespace {
struct TypeInfo {
  ScalarType type;
  const char *name;
  std::size_t size;
};
constexpr TypeInfo typeInfos[] = {
    {ScalarType::U8, "u8", 1},    {ScalarType::S8, "s8", 1},
    {ScalarType::U16, "u16", 2},  {ScalarType::S16, "s16", 2},
    {ScalarType::U32, "u32", 4},  {ScalarType::S32, "s32", 4},
    {ScalarType::U64, "u64", 8},  {ScalarType::S64, "s64", 8},
    {ScalarType::F16, "f16", 2},  {ScalarType::BF16, "bf16", 2},
    {ScalarType::F32, "f32", 4},  {ScalarType::F64, "f64", 8},
    {ScalarType::B8, "b8", 1},
};
} // namespace

const char *kaio::rt::getScalarTypeName(ScalarType type) {
  return typeInfos[static_cast<int>(type)].name;
}

std::size_t kaio::rt::getScalarTypeSize(ScalarType type) {
  return typeInfos[static_cast<int>(type)].size;
}

bool kaio::rt::isFloatType(ScalarType type) {
  return type == ScalarType::F16 || type == ScalarType::BF16 ||
         type == ScalarType::F32 || type == ScalarType::F64;
}

bool kaio::rt::isSignedIntType(ScalarType type) {
  return type == ScalarType::S8 || type == ScalarType::S16 ||
         type == ScalarType::S32 || type == ScalarType::S64;
}

std::optional<ScalarType> kaio::rt::parseScalarType(std::string_view name,
                                                    bool allowAliases,
                                                    bool allowByte) {
  for (const TypeInfo &info : typeInfos)
    if (name == info.name) {
      if (info.type == ScalarType::B8 && !allowByte)
        return std::nullopt;
      return info.type;
    }
  if (allowAliases) {
    if (name == "i8")
      return ScalarType::S8;
    if (name == "i16")
      return ScalarType::S16;
    if (name == "i32")
      return ScalarType::S32;
    if (name == "i64")
      return ScalarType::S64;
  }
  return std::nullopt;
}

Half kaio::rt::toHalf(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  std::uint16_t sign = (x >> 16) & 0x8000;
  int exp = (x >> 23) & 0xff;
  std::uint32_t mant = x & 0x7fffff;
  if (exp == 0xff) // Inf or NaN (keep NaNs quiet and non-zero).
    return Half{std::uint16_t(sign | 0x7c00 | (mant ? 0x200 | (mant >> 13) : 0))};
  int e = exp - 127 + 15;
  if (e >= 0x1f)
    return Half{std::uint16_t(sign | 0x7c00)};
  if (e <= 0) { // Subnormal half, or zero.
    if (e < -10)
      return Half{sign};
    mant |= 0x800000;
    int shift = 14 - e;
    std::uint32_t h = mant >> shift;
    std::uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1)))
      ++h;
    return Half{std::uint16_t(sign | h)};
  }
  std::uint32_t h = (std::uint32_t(e) << 10) | (mant >> 13);
  std::uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h; // A carry into the exponent is the correct rounding (up to Inf).
  return Half{std::uint16_t(sign | h)};
}

float kaio::rt::toFloat(Half value) {
  std::uint16_t h = value.bits;
  std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  std::uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000 | (mant << 13);
  } else if (exp == 0) {
    float f = std::ldexp(float(mant), -24);
    return sign ? -f : f;
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

BFloat16 kaio::rt::toBFloat16(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffff) > 0x7f800000) // NaN: truncate but stay a NaN.
    return BFloat16{std::uint16_t((x >> 16) | 0x40)};
  x += 0x7fff + ((x >> 16) & 1); // Round to nearest even.
  return BFloat16{std::uint16_t(x >> 16)};
}

float kaio::rt::toFloat(BFloat16 value) {
  std::uint32_t x = std::uint32_t(value.bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
