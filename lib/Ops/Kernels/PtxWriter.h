//===- PtxWriter.h - ptx-dialect text for the sm_90a kernels ----*- C++ -*-===//
//
// The library's sm_90a kernels are written at the ptx-dialect level (until
// the kaio dialect has warpgroup tiles): generators build their text one op
// per line with fresh value names, and the parser and verifiers check it.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_OPS_KERNELS_PTXWRITER_H
#define KAIO_LIB_OPS_KERNELS_PTXWRITER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace kaio::ops::kernels {

class PtxWriter {
public:
  std::string text;

  /// Emits `%vN = <op>` and returns "%vN".
  std::string let(const llvm::Twine &op) {
    std::string name = "%v" + std::to_string(next++);
    text += "    " + name + " = " + op.str() + "\n";
    return name;
  }
  /// Emits `%vN:count = <op>` (an op with `count` results) and returns
  /// "%vN"; its results are "%vN#i".
  std::string letMany(unsigned count, const llvm::Twine &op) {
    std::string name = "%v" + std::to_string(next++);
    text += "    " + name + ":" + std::to_string(count) + " = " + op.str() +
            "\n";
    return name;
  }
  /// A butterfly shuffle of the f32 `value` across `xorLane` (all lanes).
  std::string shflXor(const std::string &value, unsigned xorLane) {
    std::string name = "%v" + std::to_string(next++);
    std::string lanes = i32(xorLane), clamp = i32(31), all = i32(-1);
    text += "    " + name + ", " + name + "_ok = ptx.shfl_sync bfly " + value +
            ", " + lanes + ", " + clamp + ", " + all + " : f32 -> f32\n";
    return name;
  }
  void op(const llvm::Twine &line) { text += "    " + line.str() + "\n"; }
  void label(const llvm::Twine &line) { text += "  " + line.str() + "\n"; }
  std::string i32(int64_t v) {
    return let("ptx.constant " + llvm::Twine(v) + " : i32");
  }
  std::string i64(int64_t v) {
    return let("ptx.constant " + llvm::Twine(v) + " : i64");
  }
  std::string f32(const char *v) {
    return let("ptx.constant " + llvm::Twine(v) + " : f32");
  }
  std::string add32(const std::string &a, const std::string &b) {
    return let("ptx.add s32 " + a + ", " + b + " : i32");
  }
  std::string add64(const std::string &a, const std::string &b) {
    return let("ptx.add s64 " + a + ", " + b + " : i64");
  }
  std::string mul32(const std::string &a, const std::string &b) {
    return let("ptx.mul lo s32 " + a + ", " + b + " : i32");
  }
  /// An unsigned (u32) or signed (s32) comparison.
  std::string setp(llvm::StringRef cmp, const std::string &a,
                   const std::string &b, llvm::StringRef type = "u32") {
    return let("ptx.setp " + cmp + " " + type + " " + a + ", " + b + " : i32");
  }
  std::string shr(const std::string &a, unsigned bits) {
    return let("ptx.shr u32 " + a + ", " + i32(bits) + " : (i32, i32) -> i32");
  }
  /// A wait loop on mbarrier `bar` for the phase of parity `parity`,
  /// continuing at `next`.
  void waitParity(const std::string &bar, const std::string &parity,
                  llvm::StringRef loop, llvm::StringRef next) {
    op("ptx.bra ^" + loop);
    label("^" + loop + ":");
    std::string ready = let("ptx.mbarrier_try_wait parity [" + bar + "], " +
                            parity + " : i32, i32");
    op("ptx.cond_bra " + ready + ", ^" + next + ", ^" + loop);
    label("^" + next + ":");
  }
  /// The 64-bit wgmma descriptor of the shared address `addr` (i32) with
  /// the fields above the address in `high` (i64). The address field is 14
  /// bits of addr >> 4. In a kernel launched in clusters (`clustered`) the
  /// rest must go: a CTA of rank r > 0 sees its own shared addresses with
  /// bits above 2^18 set, which would otherwise spill into the leading
  /// byte offset (docs/perf.md, session 21); other kernels' addresses fit.
  std::string descriptor(const std::string &addr, const std::string &high,
                         bool clustered) {
    std::string a64 = let("ptx.cvt u64 u32 " + addr + " : i32 -> i64");
    std::string field =
        let("ptx.shr u64 " + a64 + ", " + i32(4) + " : (i64, i32) -> i64");
    if (clustered)
      field = let("ptx.and b64 " + field + ", " + i64(0x3fff) + " : i64");
    return let("ptx.or b64 " + field + ", " + high + " : i64");
  }

private:
  unsigned next = 0;
};

/// An f32 value of a text kernel whose arithmetic writes arith and math
/// ops (the pipeline lowers them inside ptx.entry as it does the builder's):
/// text kernels then share formulas with builder ones (Activation.h).
struct TextF32 {
  PtxWriter *w;
  std::string v;
};
namespace detail {
inline TextF32 textConstant(PtxWriter *w, float value) {
  // Hexadecimal: the exact bits.
  return {w, w->let(llvm::formatv("arith.constant {0:x8} : f32",
                                  llvm::bit_cast<uint32_t>(value))
                        .str())};
}
inline TextF32 textOp(const char *op, const TextF32 &a, const TextF32 &b) {
  return {a.w, a.w->let(llvm::Twine(op) + " " + a.v + ", " + b.v + " : f32")};
}
inline TextF32 textOp(const char *op, const TextF32 &a) {
  return {a.w, a.w->let(llvm::Twine(op) + " " + a.v + " : f32")};
}
} // namespace detail
#define KAIO_TEXT_F32_BINARY(OP, NAME)                                         \
  inline TextF32 operator OP(const TextF32 &a, const TextF32 &b) {             \
    return detail::textOp(NAME, a, b);                                         \
  }                                                                            \
  inline TextF32 operator OP(const TextF32 &a, float b) {                      \
    return a OP detail::textConstant(a.w, b);                                  \
  }                                                                            \
  inline TextF32 operator OP(float a, const TextF32 &b) {                      \
    return detail::textConstant(b.w, a) OP b;                                  \
  }
KAIO_TEXT_F32_BINARY(+, "arith.addf")
KAIO_TEXT_F32_BINARY(-, "arith.subf")
KAIO_TEXT_F32_BINARY(*, "arith.mulf")
KAIO_TEXT_F32_BINARY(/, "arith.divf")
#undef KAIO_TEXT_F32_BINARY
inline TextF32 operator-(const TextF32 &a) {
  return detail::textOp("arith.negf", a);
}
inline TextF32 max(const TextF32 &a, float b) {
  return detail::textOp("arith.maxnumf", a, detail::textConstant(a.w, b));
}
inline TextF32 exp(const TextF32 &a) { return detail::textOp("math.exp", a); }
inline TextF32 erf(const TextF32 &a) { return detail::textOp("math.erf", a); }
inline TextF32 fma(const TextF32 &a, float b, float c) {
  TextF32 bv = detail::textConstant(a.w, b), cv = detail::textConstant(a.w, c);
  return {a.w, a.w->let("math.fma " + a.v + ", " + bv.v + ", " + cv.v +
                        " : f32")};
}

inline std::string joined(llvm::ArrayRef<std::string> values) {
  return llvm::join(values, ", ");
}

/// The high bits of a 128-byte-swizzled wgmma descriptor: SBO = 8 rows of
/// 128 bytes, LBO = `lbo` bytes (MN-major operands: between 64-element
/// atoms; unused K-major).
inline int64_t swizzle128DescriptorHigh(unsigned lbo = 0) {
  return (int64_t(1) << 62) | (int64_t(1024 >> 4) << 32) |
         (int64_t(lbo >> 4) << 16);
}

} // namespace kaio::ops::kernels

#endif // KAIO_LIB_OPS_KERNELS_PTXWRITER_H
