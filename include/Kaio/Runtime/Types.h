//===- Types.h - Scalar element types shared with KAIO kernels --*- C++ -*-===//
//
// The scalar types a KAIO kernel parameter (or buffer element) can have, as
// spelled in the `// kaio.kernel` signature comments the PTX printer emits.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_TYPES_H
#define KAIO_RUNTIME_TYPES_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace kaio::rt {

/// Blocks a thread block cluster (sm_90) may hold: portably (what a
/// kernel's `.reqnctapercluster` and a plain cluster launch get), and with
/// the non-portable-size opt-in of a launch.
inline constexpr unsigned kPortableClusterBlocks = 8, kMaxClusterBlocks = 16;


enum class ScalarType : std::uint8_t {
  U8, S8, U16, S16, U32, S32, U64, S64, F16, BF16, F32, F64,
  B8, ///< Untyped byte; only valid as a pointer element ("ptr<b8>").
};

const char *getScalarTypeName(ScalarType type);
std::size_t getScalarTypeSize(ScalarType type);
bool isFloatType(ScalarType type);
bool isSignedIntType(ScalarType type);
/// Parses "f32", "u8", ... With `allowAliases`, also "i8/i16/i32/i64"
/// (= s*). "b8" is accepted only when `allowByte`.
std::optional<ScalarType> parseScalarType(std::string_view name,
                                          bool allowAliases = false,
                                          bool allowByte = false);

/// IEEE binary16 storage (no arithmetic: KAIO only moves these around).
struct Half {
  std::uint16_t bits = 0;
};
/// bfloat16 storage.
struct BFloat16 {
  std::uint16_t bits = 0;
};
Half toHalf(float value);
BFloat16 toBFloat16(float value);
float toFloat(Half value);
float toFloat(BFloat16 value);

namespace detail {
template <typename> inline constexpr bool AlwaysFalse = false;
} // namespace detail

/// The ScalarType of a C++ type usable as a kernel scalar or buffer element.
template <typename T> constexpr ScalarType scalarTypeOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>)
    return ScalarType::F32;
  else if constexpr (std::is_same_v<U, double>)
    return ScalarType::F64;
  else if constexpr (std::is_same_v<U, Half>)
    return ScalarType::F16;
  else if constexpr (std::is_same_v<U, BFloat16>)
    return ScalarType::BF16;
  else if constexpr (std::is_same_v<U, std::byte>)
    return ScalarType::B8;
  else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, bool> &&
                     !std::is_same_v<U, char>) {
    constexpr bool isSigned = std::is_signed_v<U>;
    if constexpr (sizeof(U) == 1)
      return isSigned ? ScalarType::S8 : ScalarType::U8;
    else if constexpr (sizeof(U) == 2)
      return isSigned ? ScalarType::S16 : ScalarType::U16;
    else if constexpr (sizeof(U) == 4)
      return isSigned ? ScalarType::S32 : ScalarType::U32;
    else
      return isSigned ? ScalarType::S64 : ScalarType::U64;
  } else {
    static_assert(detail::AlwaysFalse<T>,
                  "type cannot be a KAIO kernel scalar or buffer element "
                  "(use fixed-width integers, float, double, Half, BFloat16)");
    return ScalarType::B8;
  }
}

} // namespace kaio::rt

#endif // KAIO_RUNTIME_TYPES_H
