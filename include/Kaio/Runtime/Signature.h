//===- Signature.h - Kernel signatures and launch arguments -----*- C++ -*-===//
//
// The KAIO PTX printer emits, for every .entry, a comment line
//   // kaio.kernel NAME(T1,T2,...)
// with Ti a scalar type name, ptr<ELEM> / ptr<const ELEM>, or tmap (a TMA
// tensor map passed by value, `.param .align 64 .b8 name[128]`). PTX itself only
// knows .u64 for pointers and has no signedness on params, so these comments
// are what lets the runtime reject a float passed where a u32 is expected.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_SIGNATURE_H
#define KAIO_RUNTIME_SIGNATURE_H

#include "Kaio/Runtime/CudaTypes.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Types.h"

#include <array>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace kaio::rt {

/// One parameter type of a kernel signature.
struct ParamType {
  bool isPointer = false;
  bool isConst = false; ///< Pointee is const (pointers only).
  ScalarType elem = ScalarType::U8;
  bool isTensorMap = false; ///< "tmap": a CUtensorMap by value.

  static ParamType scalar(ScalarType type) { return {false, false, type}; }
  static ParamType pointer(ScalarType elem, bool isConst = false) {
    return {true, isConst, elem};
  }
  static ParamType tensorMap() {
    return {false, false, ScalarType::B8, true};
  }
  std::string str() const;
  bool operator==(const ParamType &o) const {
    return isPointer == o.isPointer && isConst == o.isConst &&
           elem == o.elem && isTensorMap == o.isTensorMap;
  }
  bool operator!=(const ParamType &o) const { return !(*this == o); }
};

struct KernelSignature {
  std::string name;
  std::vector<ParamType> params;
  /// Bytes of dynamic shared memory every launch needs (`smem=N` after the
  /// parameters: the kernel keeps its tiles in dynamic shared memory).
  /// Launches get at least this much, opted in beyond 48 KiB.
  std::uint32_t dynamicSharedBytes = 0;
  /// The thread block cluster the kernel was compiled for (`cluster=XxYxZ`
  /// after the parameters: PTX `.reqnctapercluster`), 1 x 1 x 1 without
  /// one. Its launches need a grid of whole clusters and may name no other
  /// cluster.
  std::array<unsigned, 3> cluster = {1, 1, 1};
  bool hasCluster() const { return cluster[0] * cluster[1] * cluster[2] > 1; }
  /// The block the kernel was compiled for (` maxntid=X[xY[xZ]]` or
  /// ` reqntid=X[xY[xZ]]` after the parameters: PTX `.maxntid` / `.reqntid`,
  /// the kaio dialect's `block_size`): its extents in `block` (1 past
  /// `blockRank`), rank 0 without one. A launch's block has no extent but 1
  /// past the rank (a 1-D kernel's warp_id and block_reduce read tid.x
  /// alone) and at most `block`'s threads, or exactly its shape where
  /// `exactBlock`.
  std::array<unsigned, 3> block = {1, 1, 1};
  unsigned blockRank = 0;
  bool exactBlock = false;
  bool hasBlock() const { return blockRank != 0; }
  /// "vector_add(ptr<const f32>,ptr<f32>,u32)", the comment's own syntax
  /// (with " smem=N" when dynamicSharedBytes is set, " cluster=XxYxZ" with a
  /// cluster, " maxntid=..." or " reqntid=..." with a block).
  std::string str() const;
};

/// Parses "u32", "ptr<f32>", "ptr<const b8>", "tmap".
Expected<ParamType> parseParamType(std::string_view text);
/// Parses the text after "kaio.kernel": "NAME(T1,...)" optionally followed
/// by " smem=N", " cluster=XxYxZ" and one of " maxntid=X[xY[xZ]]" and
/// " reqntid=X[xY[xZ]]" (each at most once).
Expected<KernelSignature> parseKernelSignature(std::string_view text);
/// Collects every `// kaio.kernel` comment in a PTX text. A malformed or
/// duplicated comment is an error naming its line.
Expected<std::vector<KernelSignature>>
parseKernelSignatures(std::string_view ptx);
const KernelSignature *findSignature(const std::vector<KernelSignature> &sigs,
                                     std::string_view name);

/// A marshalled kernel argument: its value bytes plus what type it claims to
/// be, so it can be checked against a signature.
class TensorMap;

struct KernelArg {
  /// TensorMap: `storage` holds the address of the map's 128 bytes, which
  /// must stay alive until the launch call returns (the driver copies them).
  enum class Kind : std::uint8_t { Scalar, Pointer, UntypedPointer, TensorMap };
  Kind kind = Kind::Scalar;
  ScalarType type = ScalarType::U8; ///< Scalar type or pointee type.
  bool isConst = false;             ///< Pointee is const.
  std::uint8_t size = 0;            ///< Bytes of `storage` passed to CUDA.
  alignas(8) unsigned char storage[8] = {};
  /// What the caller calls the argument ("x", "weight": a string that
  /// outlives the launch call, e.g. a literal), named in its errors beside
  /// its position; null: the position alone.
  const char *name = nullptr;

  /// This argument, called `argName` in errors.
  KernelArg named(const char *argName) const {
    KernelArg arg = *this;
    arg.name = argName;
    return arg;
  }
  /// "argument 3 (x, ptr<const f32>)": position (from 0), name and type.
  std::string describe(std::size_t index) const;

  template <typename T> static KernelArg scalar(T value) {
    static_assert(sizeof(T) <= 8, "kernel scalars are at most 8 bytes");
    KernelArg arg;
    arg.kind = Kind::Scalar;
    arg.type = scalarTypeOf<T>();
    arg.size = sizeof(T);
    std::memcpy(arg.storage, &value, sizeof(T));
    return arg;
  }
  /// A scalar from raw bits, e.g. built by a tool from a type name.
  static KernelArg scalarBits(ScalarType type, std::uint64_t bits);
  static KernelArg pointer(CUdeviceptr ptr, ScalarType elem, bool isConst);
  /// A device pointer of unknown element type; matches any ptr<...>.
  static KernelArg untypedPointer(CUdeviceptr ptr);
  /// A tensor map argument (see Kind::TensorMap).
  static KernelArg tensorMap(const TensorMap &map);

  /// What cuLaunchKernel's kernelParams entry points to (the driver only
  /// reads it).
  const void *data() const {
    if (kind != Kind::TensorMap)
      return storage;
    const void *bytes;
    std::memcpy(&bytes, storage, sizeof(bytes));
    return bytes;
  }
  /// "f32", "ptr<const f32>", "ptr<?>", "tmap".
  std::string typeStr() const;
};

template <typename T,
          typename = std::enable_if_t<std::is_arithmetic_v<T> ||
                                      std::is_same_v<T, Half> ||
                                      std::is_same_v<T, BFloat16>>>
KernelArg toKernelArg(T value) {
  return KernelArg::scalar(value);
}
inline KernelArg toKernelArg(const KernelArg &arg) { return arg; }

/// Checks the number and types of `args` against `sig`. Scalars must match
/// exactly (no implicit conversions: an int literal is s32, not u32);
/// pointers must match the element type (ptr<b8> accepts any) and may not
/// drop const.
Error checkKernelArgs(const KernelSignature &sig, const KernelArg *args,
                      std::size_t numArgs);
inline Error checkKernelArgs(const KernelSignature &sig,
                             const std::vector<KernelArg> &args) {
  return checkKernelArgs(sig, args.data(), args.size());
}

} // namespace kaio::rt

#endif // KAIO_RUNTIME_SIGNATURE_H
