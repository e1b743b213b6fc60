//===- Builder.h - write kaio kernels in C++ ----------------------*- C++ -*-===//
//
// A C++ API that reads like the kernel it builds and produces kaio-dialect
// IR (with arith, math and scf). Values are typed (`Val<float>`,
// `Val<uint32_t>`, ...): the C++ type picks signedness and the float/int
// flavour of each arith op, and mixing types is a compile error. Every op is
// located at the C++ line that created it, so verifier errors point at the
// builder call:
//
//   ModuleBuilder mb;
//   mb.kernel("vector_add", {256}, [](KernelBuilder &k) {
//     auto a = k.param<Ptr<const float>>("a");
//     auto b = k.param<Ptr<const float>>("b");
//     auto c = k.param<Ptr<float>>("c");
//     auto n = k.param<uint32_t>("n");
//     Val<uint32_t> i = k.blockId() * k.blockDim() + k.threadId();
//     k.if_(i < n, [&] { c[i] = a[i] + b[i]; });
//   });
//   mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish(); // null on error
//
// Locations come from default arguments (std::source_location in C++20,
// __builtin_FILE/__builtin_LINE otherwise). Operators cannot take default
// arguments, so they capture the location when their right operand is
// converted to an `Operand<T>`; unary operators use the most recent location.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_BUILDER_BUILDER_H
#define KAIO_BUILDER_BUILDER_H

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if __cplusplus >= 202002L && __has_include(<source_location>)
#include <source_location>
#define KAIO_BUILDER_STD_SOURCE_LOCATION 1
#endif

namespace kaio::builder {

//===----------------------------------------------------------------------===//
// Source locations
//===----------------------------------------------------------------------===//

/// Where in the C++ source an op was built.
struct SrcLoc {
  const char *file = "";
  unsigned line = 0;
  unsigned column = 0;

#ifdef KAIO_BUILDER_STD_SOURCE_LOCATION
  static constexpr SrcLoc
  current(std::source_location l = std::source_location::current()) {
    return {l.file_name(), static_cast<unsigned>(l.line()),
            static_cast<unsigned>(l.column())};
  }
#else
  static constexpr SrcLoc current(const char *file = __builtin_FILE(),
                                  unsigned line = __builtin_LINE()
#if defined(__clang__)
                                      ,
                                  unsigned column = __builtin_COLUMN()
#else
                                      ,
                                  unsigned column = 0
#endif
  ) {
    return {file, line, column};
  }
#endif
};

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Element tags for the 16-bit float types (values only; no host arithmetic).
struct f16 {};
struct bf16 {};

namespace detail {
class KernelState;

enum class ScalarId : uint8_t { I1, I8, I16, I32, I64, F16, BF16, F32, F64 };
/// How arith treats a value: picks cmpi slt vs ult, divsi vs divui, ...
enum class Kind : uint8_t { Bool, Signed, Unsigned, Float };

template <class T> struct ElemTraits {
  static constexpr bool valid = false;
};
#define KAIO_BUILDER_ELEM(CPP, ID, KIND)                                       \
  template <> struct ElemTraits<CPP> {                                         \
    static constexpr bool valid = true;                                        \
    static constexpr ScalarId id = ScalarId::ID;                               \
    static constexpr Kind kind = Kind::KIND;                                   \
  };
KAIO_BUILDER_ELEM(bool, I1, Bool)
KAIO_BUILDER_ELEM(int8_t, I8, Signed)
KAIO_BUILDER_ELEM(uint8_t, I8, Unsigned)
KAIO_BUILDER_ELEM(int16_t, I16, Signed)
KAIO_BUILDER_ELEM(uint16_t, I16, Unsigned)
KAIO_BUILDER_ELEM(int32_t, I32, Signed)
KAIO_BUILDER_ELEM(uint32_t, I32, Unsigned)
KAIO_BUILDER_ELEM(int64_t, I64, Signed)
KAIO_BUILDER_ELEM(uint64_t, I64, Unsigned)
KAIO_BUILDER_ELEM(f16, F16, Float)
KAIO_BUILDER_ELEM(bf16, BF16, Float)
KAIO_BUILDER_ELEM(float, F32, Float)
KAIO_BUILDER_ELEM(double, F64, Float)
#undef KAIO_BUILDER_ELEM

template <class T> struct Identity {
  using type = T;
};
/// Keeps a parameter out of template argument deduction.
template <class T> using NoDeduce = typename Identity<T>::type;

enum class BinOp : uint8_t { Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr,
                             Min, Max, FastDiv };
enum class CmpOp : uint8_t { Lt, Le, Gt, Ge, Eq, Ne };
enum class UnOp : uint8_t { Neg, Not, Exp, Exp2, Log, Log2, Tanh, Sqrt, Rsqrt,
                            Sin, Cos, Erf, Abs, Floor, Ceil, Trunc, FastExp2 };

// The out-of-line half of the builder: every template below ends in one of
// these, so the header needs no scf/arith/math includes.
mlir::Type scalarType(KernelState *st, ScalarId id);
mlir::Value constantInt(KernelState *st, ScalarId id, int64_t value, SrcLoc loc);
mlir::Value constantFloat(KernelState *st, ScalarId id, double value,
                          SrcLoc loc);
mlir::Value binary(KernelState *st, BinOp op, Kind kind, mlir::Value lhs,
                   mlir::Value rhs, SrcLoc loc);
mlir::Value compare(KernelState *st, CmpOp op, Kind kind, mlir::Value lhs,
                    mlir::Value rhs, SrcLoc loc);
mlir::Value unary(KernelState *st, UnOp op, Kind kind, mlir::Value value,
                  SrcLoc loc);
/// `loc` when known, else the location of the last located call.
SrcLoc lastLoc(KernelState *st);
mlir::Value fma(KernelState *st, mlir::Value a, mlir::Value b, mlir::Value c,
                SrcLoc loc);
mlir::Value select(KernelState *st, mlir::Value cond, mlir::Value a,
                   mlir::Value b, SrcLoc loc);
mlir::Value cast(KernelState *st, mlir::Value value, Kind from, ScalarId to,
                 Kind toKind, SrcLoc loc);
mlir::Value bitcast(KernelState *st, mlir::Value value, ScalarId to,
                    SrcLoc loc);
mlir::Value load(KernelState *st, mlir::Value ptr, mlir::Value index,
                 mlir::Value mask, mlir::Value other, SrcLoc loc);
void store(KernelState *st, mlir::Value value, mlir::Value ptr,
           mlir::Value index, mlir::Value mask, SrcLoc loc);
llvm::SmallVector<mlir::Value, 8> loadVector(KernelState *st, mlir::Value ptr,
                                             mlir::Value index, unsigned width,
                                             mlir::Value mask,
                                             mlir::Value other, SrcLoc loc);
void storeVector(KernelState *st, llvm::ArrayRef<mlir::Value> values,
                 mlir::Value ptr, mlir::Value index, mlir::Value mask,
                 SrcLoc loc);
mlir::Value atomic(KernelState *st, AtomicKind kind, mlir::Value ptr,
                   mlir::Value index, mlir::Value value, SrcLoc loc);
mlir::Value ptrAdd(KernelState *st, mlir::Value ptr, mlir::Value offset,
                   SrcLoc loc);
mlir::Value sharedLoad(KernelState *st, mlir::Value tile,
                       llvm::ArrayRef<mlir::Value> indices, SrcLoc loc);
llvm::SmallVector<mlir::Value, 8>
sharedLoadVector(KernelState *st, mlir::Value tile,
                 llvm::ArrayRef<mlir::Value> indices, unsigned width,
                 SrcLoc loc);
void sharedStore(KernelState *st, mlir::Value value, mlir::Value tile,
                 llvm::ArrayRef<mlir::Value> indices, SrcLoc loc);
void sharedStoreVector(KernelState *st, llvm::ArrayRef<mlir::Value> values,
                       mlir::Value tile, llvm::ArrayRef<mlir::Value> indices,
                       SrcLoc loc);
mlir::Value sharedAddress(KernelState *st, mlir::Value tile,
                          llvm::ArrayRef<mlir::Value> indices, SrcLoc loc);
mlir::Value loadFragment(KernelState *st, mlir::Value tile, FragRole role,
                         ptx::MMAShape shape, mlir::Value row, mlir::Value col,
                         unsigned tileRows, unsigned tileCols, bool transpose,
                         SrcLoc loc);
mlir::Value fragMap(KernelState *st, mlir::Value frag, mlir::Type resultElem,
                    llvm::function_ref<mlir::Value(mlir::Value)> fn,
                    SrcLoc loc);
mlir::Value
fragMapWith(KernelState *st, mlir::Value frag, mlir::Type resultElem,
            llvm::ArrayRef<mlir::Value> extras, bool indexed,
            llvm::function_ref<mlir::Value(mlir::ValueRange)> fn, SrcLoc loc);
mlir::Value fragReduceRows(KernelState *st, ReduceKind kind, mlir::Value frag,
                           SrcLoc loc);
mlir::Value fragSlice(KernelState *st, mlir::Value frag, unsigned row,
                      unsigned col, unsigned rows, unsigned cols, SrcLoc loc);
mlir::Value fragToOperand(KernelState *st, mlir::Value frag, mlir::Type elem,
                          SrcLoc loc);
void storeFragment(KernelState *st, mlir::Value frag, mlir::Value dst,
                   mlir::Value row, mlir::Value col, mlir::Value rows,
                   mlir::Value cols, mlir::Value ld, mlir::Value beta,
                   SrcLoc loc);
void sharedStoreFragment(KernelState *st, mlir::Value frag, mlir::Value tile,
                         mlir::Value row, mlir::Value col, SrcLoc loc);
using BodyFn = llvm::function_ref<llvm::SmallVector<mlir::Value>()>;
llvm::SmallVector<mlir::Value> buildIf(KernelState *st, mlir::Value cond,
                                       mlir::TypeRange resultTypes,
                                       BodyFn thenFn, BodyFn elseFn,
                                       SrcLoc loc);
llvm::SmallVector<mlir::Value>
buildFor(KernelState *st, mlir::Value lo, mlir::Value hi, mlir::Value step,
         mlir::ValueRange inits,
         llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value,
                                                           mlir::ValueRange)>
             body,
         bool unsignedCmp, SrcLoc loc);
llvm::SmallVector<mlir::Value>
buildWhile(KernelState *st, mlir::ValueRange inits,
           llvm::function_ref<mlir::Value(mlir::ValueRange)> cond,
           llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::ValueRange)>
               body,
           SrcLoc loc);
/// Records a builder error (shown by ModuleBuilder::diagnostics()).
void error(KernelState *st, SrcLoc loc, const std::string &message);
} // namespace detail

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// An SSA value of a kernel being built, of any type.
class AnyValue {
public:
  AnyValue() = default;
  AnyValue(detail::KernelState *st, mlir::Value value)
      : st_(st), value_(value) {}
  mlir::Value raw() const { return value_; }
  mlir::Type type() const { return value_.getType(); }
  detail::KernelState *state() const { return st_; }
  explicit operator bool() const { return static_cast<bool>(value_); }

protected:
  detail::KernelState *st_ = nullptr;
  mlir::Value value_;
};

/// A scalar of C++ element type T (bool, [u]int8..64_t, f16, bf16, float,
/// double). The IR type is signless; T decides how arith treats it.
template <class T> class Val : public AnyValue {
  static_assert(detail::ElemTraits<T>::valid,
                "kaio builder: unsupported element type (use bool, "
                "[u]int{8,16,32,64}_t, f16, bf16, float or double)");

public:
  using element_type = T;
  Val() = default;
  Val(detail::KernelState *st, mlir::Value value) : AnyValue(st, value) {}

  /// The same bits seen as U: free between integers of one width
  /// (int32_t <-> uint32_t), an arith.bitcast between int and float.
  template <class U> Val<U> as(SrcLoc loc = SrcLoc::current()) const {
    static_assert(detail::ElemTraits<U>::valid, "kaio builder: bad type");
    if constexpr (detail::ElemTraits<U>::id == detail::ElemTraits<T>::id)
      return Val<U>(st_, value_);
    else
      return Val<U>(st_, detail::bitcast(st_, value_,
                                         detail::ElemTraits<U>::id, loc));
  }
};

using Pred = Val<bool>;
using I32 = Val<int32_t>;
using U32 = Val<uint32_t>;
using I64 = Val<int64_t>;
using U64 = Val<uint64_t>;
using F16 = Val<f16>;
using BF16 = Val<bf16>;
using F32 = Val<float>;
using F64 = Val<double>;

namespace detail {
template <class T, class U> constexpr void checkLiteral() {
  static_assert(std::is_arithmetic_v<U>, "kaio builder: not a literal");
  static_assert(ElemTraits<T>::kind == Kind::Float || std::is_integral_v<U>,
                "kaio builder: floating-point literal used with an integer "
                "value (convert with cast<T>())");
}
} // namespace detail

/// The right operand of an operator or an argument: a Val<T> or a C++
/// literal (materialised as an arith.constant of T), with the location of
/// the expression that produced it.
template <class T> class Operand {
public:
  Operand(const Val<T> &value, SrcLoc loc = SrcLoc::current())
      : value_(value), loc_(loc) {}
  /// `p[i]` and `tile(r, c)`: loaded here.
  template <class U,
            std::enable_if_t<!std::is_arithmetic_v<U> &&
                                 !std::is_same_v<U, Val<T>> &&
                                 std::is_convertible_v<const U &, Val<T>>,
                             int> = 0>
  Operand(const U &ref, SrcLoc loc = SrcLoc::current())
      : value_(ref), loc_(loc) {}
  template <class U, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  Operand(U literal, SrcLoc loc = SrcLoc::current())
      : isLiteral_(true),
        // A floating-point literal only ever makes a float constant (and
        // converting one out of int64_t's range, -inf say, is undefined).
        intValue_(std::is_integral_v<U> ? static_cast<int64_t>(literal) : 0),
        floatValue_(static_cast<double>(literal)), loc_(loc) {
    detail::checkLiteral<T, U>();
  }

  SrcLoc loc() const { return loc_; }
  mlir::Value materialize(detail::KernelState *st) const {
    if (!isLiteral_)
      return value_.raw();
    if constexpr (detail::ElemTraits<T>::kind == detail::Kind::Float)
      return detail::constantFloat(st, detail::ElemTraits<T>::id, floatValue_,
                                   loc_);
    else
      return detail::constantInt(st, detail::ElemTraits<T>::id, intValue_,
                                 loc_);
  }
  Val<T> get(detail::KernelState *st) const {
    return Val<T>(st, materialize(st));
  }
  /// The state of a Val operand; null for literals.
  detail::KernelState *state() const { return value_.state(); }

private:
  Val<T> value_;
  bool isLiteral_ = false;
  int64_t intValue_ = 0;
  double floatValue_ = 0;
  SrcLoc loc_;
};

/// A C++ literal on the left of an operator (`1.0f - x`).
template <class T> class Literal {
public:
  template <class U, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  Literal(U literal, SrcLoc loc = SrcLoc::current())
      : operand_(literal, loc) {}
  const Operand<T> &operand() const { return operand_; }

private:
  Operand<T> operand_;
};

/// A global-memory or shared-tile index: an i32/i64 Val or an integer
/// literal (an i32 constant).
class Index {
public:
  template <class T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>,
                             int> = 0>
  Index(const Val<T> &value, SrcLoc loc = SrcLoc::current())
      : value_(value.raw()), st_(value.state()), loc_(loc) {}
  template <class T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>,
                             int> = 0>
  Index(T literal, SrcLoc loc = SrcLoc::current())
      : literal_(static_cast<int64_t>(literal)), loc_(loc) {}

  SrcLoc loc() const { return loc_; }
  mlir::Value materialize(detail::KernelState *st) const {
    return value_ ? value_
                  : detail::constantInt(st, detail::ScalarId::I32, literal_,
                                        loc_);
  }
  detail::KernelState *state() const { return st_; }

private:
  mlir::Value value_;
  detail::KernelState *st_ = nullptr;
  int64_t literal_ = 0;
  SrcLoc loc_;
};

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

#define KAIO_BUILDER_BINARY(OP, NAME)                                          \
  template <class T>                                                           \
  Val<T> operator OP(const Val<T> &a, detail::NoDeduce<Operand<T>> b) {        \
    return Val<T>(a.state(),                                                   \
                  detail::binary(a.state(), detail::BinOp::NAME,               \
                                 detail::ElemTraits<T>::kind, a.raw(),         \
                                 b.materialize(a.state()), b.loc()));          \
  }                                                                            \
  template <class T>                                                           \
  Val<T> operator OP(detail::NoDeduce<Literal<T>> a, const Val<T> &b) {        \
    return Val<T>(b.state(),                                                   \
                  detail::binary(b.state(), detail::BinOp::NAME,               \
                                 detail::ElemTraits<T>::kind,                  \
                                 a.operand().materialize(b.state()), b.raw(),  \
                                 a.operand().loc()));                          \
  }                                                                            \
  template <class T>                                                           \
  Val<T> &operator OP##=(Val<T> &a, detail::NoDeduce<Operand<T>> b) {          \
    a = a OP b;                                                                \
    return a;                                                                  \
  }
KAIO_BUILDER_BINARY(+, Add)
KAIO_BUILDER_BINARY(-, Sub)
KAIO_BUILDER_BINARY(*, Mul)
KAIO_BUILDER_BINARY(/, Div)
KAIO_BUILDER_BINARY(%, Rem)
KAIO_BUILDER_BINARY(&, And)
KAIO_BUILDER_BINARY(|, Or)
KAIO_BUILDER_BINARY(^, Xor)
KAIO_BUILDER_BINARY(<<, Shl)
KAIO_BUILDER_BINARY(>>, Shr)
#undef KAIO_BUILDER_BINARY

/// a / b of floats within 2 ulp (arith.divf with fastmath<arcp>:
/// div.full.f32, two instructions where the IEEE division takes a dozen
/// with its slow path). For results rounded to 16 bits afterwards.
template <class T>
Val<T> fastDiv(const Val<T> &a, detail::NoDeduce<Operand<T>> b) {
  static_assert(detail::ElemTraits<T>::kind == detail::Kind::Float,
                "kaio builder: fastDiv of integers");
  return Val<T>(a.state(), detail::binary(a.state(), detail::BinOp::FastDiv,
                                          detail::ElemTraits<T>::kind, a.raw(),
                                          b.materialize(a.state()), b.loc()));
}
template <class T>
Val<T> fastDiv(detail::NoDeduce<Literal<T>> a, const Val<T> &b) {
  return Val<T>(b.state(), detail::binary(b.state(), detail::BinOp::FastDiv,
                                          detail::ElemTraits<T>::kind,
                                          a.operand().materialize(b.state()),
                                          b.raw(), a.operand().loc()));
}

#define KAIO_BUILDER_COMPARE(OP, NAME)                                         \
  template <class T>                                                           \
  Pred operator OP(const Val<T> &a, detail::NoDeduce<Operand<T>> b) {          \
    return Pred(a.state(),                                                     \
                detail::compare(a.state(), detail::CmpOp::NAME,                \
                                detail::ElemTraits<T>::kind, a.raw(),          \
                                b.materialize(a.state()), b.loc()));           \
  }                                                                            \
  template <class T>                                                           \
  Pred operator OP(detail::NoDeduce<Literal<T>> a, const Val<T> &b) {          \
    return Pred(b.state(),                                                     \
                detail::compare(b.state(), detail::CmpOp::NAME,                \
                                detail::ElemTraits<T>::kind,                   \
                                a.operand().materialize(b.state()), b.raw(),   \
                                a.operand().loc()));                           \
  }
KAIO_BUILDER_COMPARE(<, Lt)
KAIO_BUILDER_COMPARE(<=, Le)
KAIO_BUILDER_COMPARE(>, Gt)
KAIO_BUILDER_COMPARE(>=, Ge)
KAIO_BUILDER_COMPARE(==, Eq)
KAIO_BUILDER_COMPARE(!=, Ne)
#undef KAIO_BUILDER_COMPARE

/// Predicates combine with && and || (both sides are evaluated: these are
/// arith.andi / arith.ori, not branches).
inline Pred operator&&(const Pred &a, Operand<bool> b) { return a & b; }
inline Pred operator||(const Pred &a, Operand<bool> b) { return a | b; }
inline Pred operator!(const Pred &a) {
  return Pred(a.state(), detail::unary(a.state(), detail::UnOp::Not,
                                       detail::Kind::Bool, a.raw(),
                                       detail::lastLoc(a.state())));
}
template <class T> Val<T> operator-(const Val<T> &a) {
  return Val<T>(a.state(), detail::unary(a.state(), detail::UnOp::Neg,
                                         detail::ElemTraits<T>::kind, a.raw(),
                                         detail::lastLoc(a.state())));
}
template <class T> Val<T> operator~(const Val<T> &a) {
  static_assert(std::is_integral_v<T>, "kaio builder: ~ of a float");
  return a ^ Operand<T>(static_cast<T>(-1), detail::lastLoc(a.state()));
}

//===----------------------------------------------------------------------===//
// Math and conversions (located free functions, found by ADL)
//===----------------------------------------------------------------------===//

#define KAIO_BUILDER_UNARY(FN, NAME)                                           \
  template <class T>                                                           \
  Val<T> FN(const Val<T> &x, SrcLoc loc = SrcLoc::current()) {                 \
    return Val<T>(x.state(), detail::unary(x.state(), detail::UnOp::NAME,      \
                                           detail::ElemTraits<T>::kind,        \
                                           x.raw(), loc));                     \
  }
KAIO_BUILDER_UNARY(neg, Neg)
KAIO_BUILDER_UNARY(exp, Exp)
KAIO_BUILDER_UNARY(exp2, Exp2)
/// 2^x with results below 2^-126 flushed to 0 (math.exp2 with
/// fastmath<afn>: one ex2.approx.ftz, where exp2 keeps subnormal results
/// at the cost of a fix-up around it). For softmax-like sums of 2^(x -
/// max), whose flushed terms are below 2^-126 of the largest.
KAIO_BUILDER_UNARY(fastExp2, FastExp2)
KAIO_BUILDER_UNARY(log, Log)
KAIO_BUILDER_UNARY(log2, Log2)
KAIO_BUILDER_UNARY(tanh, Tanh)
KAIO_BUILDER_UNARY(sqrt, Sqrt)
KAIO_BUILDER_UNARY(rsqrt, Rsqrt)
KAIO_BUILDER_UNARY(sin, Sin)
KAIO_BUILDER_UNARY(cos, Cos)
KAIO_BUILDER_UNARY(erf, Erf)
KAIO_BUILDER_UNARY(abs, Abs)
KAIO_BUILDER_UNARY(floor, Floor)
KAIO_BUILDER_UNARY(ceil, Ceil)
KAIO_BUILDER_UNARY(trunc, Trunc)
#undef KAIO_BUILDER_UNARY

template <class T>
Val<T> min(const Val<T> &a, detail::NoDeduce<Operand<T>> b,
           SrcLoc loc = SrcLoc::current()) {
  return Val<T>(a.state(),
                detail::binary(a.state(), detail::BinOp::Min,
                               detail::ElemTraits<T>::kind, a.raw(),
                               b.materialize(a.state()), loc));
}
template <class T>
Val<T> max(const Val<T> &a, detail::NoDeduce<Operand<T>> b,
           SrcLoc loc = SrcLoc::current()) {
  return Val<T>(a.state(),
                detail::binary(a.state(), detail::BinOp::Max,
                               detail::ElemTraits<T>::kind, a.raw(),
                               b.materialize(a.state()), loc));
}
/// a * b + c, rounded once (math.fma).
template <class T>
Val<T> fma(const Val<T> &a, detail::NoDeduce<Operand<T>> b,
           detail::NoDeduce<Operand<T>> c, SrcLoc loc = SrcLoc::current()) {
  static_assert(detail::ElemTraits<T>::kind == detail::Kind::Float,
                "kaio builder: fma of integers");
  return Val<T>(a.state(), detail::fma(a.state(), a.raw(),
                                       b.materialize(a.state()),
                                       c.materialize(a.state()), loc));
}
/// cond ? a : b for every thread (arith.select; both sides are computed).
template <class T>
Val<T> select(const Pred &cond, const Val<T> &a,
              detail::NoDeduce<Operand<T>> b, SrcLoc loc = SrcLoc::current()) {
  return Val<T>(a.state(), detail::select(a.state(), cond.raw(), a.raw(),
                                          b.materialize(a.state()), loc));
}
/// Value conversion to U: integer extension follows the source's
/// signedness, int <-> float follows the integer side's, floats round.
template <class U, class T>
Val<U> cast(const Val<T> &x, SrcLoc loc = SrcLoc::current()) {
  static_assert(detail::ElemTraits<U>::valid, "kaio builder: bad cast type");
  return Val<U>(x.state(),
                detail::cast(x.state(), x.raw(), detail::ElemTraits<T>::kind,
                             detail::ElemTraits<U>::id,
                             detail::ElemTraits<U>::kind, loc));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

template <class T> class Ptr;

/// `ptr[i]` of a writable pointer: loads when read, stores when assigned.
template <class T> class ElemRef {
public:
  ElemRef(const Ptr<T> &ptr, Index index) : ptr_(ptr), index_(index) {}
  Val<T> load(SrcLoc loc = SrcLoc::current()) const;
  operator Val<T>() const { return load(index_.loc()); }
  const ElemRef &operator=(Operand<T> value) const;
  const ElemRef &operator=(const ElemRef &other) const {
    return *this = Operand<T>(other.load(index_.loc()), index_.loc());
  }

private:
  Ptr<T> ptr_;
  Index index_;
};

/// A global-memory pointer kernel parameter. `Ptr<const float>` is a
/// read-only parameter (kaio.readonly: the non-coherent load path); reading
/// `p[i]` of one loads immediately.
template <class T> class Ptr : public AnyValue {
public:
  using element_type = std::remove_const_t<T>;
  static constexpr bool isReadOnly = std::is_const_v<T>;
  using E = element_type;

  Ptr() = default;
  Ptr(detail::KernelState *st, mlir::Value value) : AnyValue(st, value) {}

  Val<E> load(Index index, SrcLoc loc = SrcLoc::current()) const {
    return Val<E>(st_, detail::load(st_, value_, index.materialize(st_), {},
                                    {}, loc));
  }
  /// Threads whose mask is false read nothing and get `other`.
  Val<E> load(Index index, const Pred &mask,
              detail::NoDeduce<Operand<E>> other,
              SrcLoc loc = SrcLoc::current()) const {
    mlir::Value i = index.materialize(st_), o = other.materialize(st_);
    return Val<E>(st_, detail::load(st_, value_, i, mask.raw(), o, loc));
  }
  void store(Index index, detail::NoDeduce<Operand<E>> value,
             SrcLoc loc = SrcLoc::current()) const {
    static_assert(!isReadOnly, "kaio builder: store through a Ptr<const T>");
    mlir::Value i = index.materialize(st_), v = value.materialize(st_);
    detail::store(st_, v, value_, i, {}, loc);
  }
  void store(Index index, detail::NoDeduce<Operand<E>> value, const Pred &mask,
             SrcLoc loc = SrcLoc::current()) const {
    static_assert(!isReadOnly, "kaio builder: store through a Ptr<const T>");
    mlir::Value i = index.materialize(st_), v = value.materialize(st_);
    detail::store(st_, v, value_, i, mask.raw(), loc);
  }
  /// Elements index .. index+N-1 in one access (kaio.load_vector: 2, 4 or,
  /// for 16-bit elements, 8 of them; at most 16 bytes). The address must be
  /// aligned to the access size.
  template <unsigned N>
  std::array<Val<E>, N> loadVector(Index index,
                                   SrcLoc loc = SrcLoc::current()) const {
    return unpack<N>(detail::loadVector(st_, value_, index.materialize(st_), N,
                                        {}, {}, loc));
  }
  /// Threads whose mask is false read nothing and get `other` everywhere.
  template <unsigned N>
  std::array<Val<E>, N> loadVector(Index index, const Pred &mask,
                                   detail::NoDeduce<Operand<E>> other,
                                   SrcLoc loc = SrcLoc::current()) const {
    mlir::Value i = index.materialize(st_), o = other.materialize(st_);
    return unpack<N>(detail::loadVector(st_, value_, i, N, mask.raw(), o, loc));
  }
  /// Stores values[0..N) at index .. index+N-1 in one access.
  template <unsigned N>
  void storeVector(Index index, const std::array<Val<E>, N> &values,
                   SrcLoc loc = SrcLoc::current()) const {
    storeVectorImpl<N>(index, values, {}, loc);
  }
  template <unsigned N>
  void storeVector(Index index, const std::array<Val<E>, N> &values,
                   const Pred &mask, SrcLoc loc = SrcLoc::current()) const {
    storeVectorImpl<N>(index, values, mask.raw(), loc);
  }
  /// Atomic read-modify-write; yields the old value.
  Val<E> atomic(AtomicKind kind, Index index,
                detail::NoDeduce<Operand<E>> value,
                SrcLoc loc = SrcLoc::current()) const {
    static_assert(!isReadOnly, "kaio builder: atomic on a Ptr<const T>");
    mlir::Value i = index.materialize(st_), v = value.materialize(st_);
    return Val<E>(st_, detail::atomic(st_, kind, value_, i, v, loc));
  }
  /// The pointer `offset` elements further (kaio.ptr_add).
  Ptr offset(Index offset, SrcLoc loc = SrcLoc::current()) const {
    return Ptr(st_, detail::ptrAdd(st_, value_, offset.materialize(st_), loc));
  }
  Ptr operator+(Index offset) const { return this->offset(offset, offset.loc()); }

  auto operator[](Index index) const {
    if constexpr (isReadOnly)
      return load(index, index.loc());
    else
      return ElemRef<E>(*this, index);
  }

private:
  template <unsigned N>
  std::array<Val<E>, N>
  unpack(const llvm::SmallVector<mlir::Value, 8> &values) const {
    std::array<Val<E>, N> out;
    for (unsigned i = 0; i < N; ++i)
      out[i] = Val<E>(st_, values[i]);
    return out;
  }
  template <unsigned N>
  void storeVectorImpl(Index index, const std::array<Val<E>, N> &values,
                       mlir::Value mask, SrcLoc loc) const {
    static_assert(!isReadOnly, "kaio builder: store through a Ptr<const T>");
    llvm::SmallVector<mlir::Value, 8> raw;
    for (const Val<E> &v : values)
      raw.push_back(v.raw());
    detail::storeVector(st_, raw, value_, index.materialize(st_), mask, loc);
  }
};

template <class T> Val<T> ElemRef<T>::load(SrcLoc loc) const {
  return ptr_.load(index_, loc);
}
template <class T>
const ElemRef<T> &ElemRef<T>::operator=(Operand<T> value) const {
  ptr_.store(index_, value, value.loc());
  return *this;
}

/// A warp tile of mma atoms (`!kaio.frag<..., ROWSxCOLS>`): 1 x 1 is one
/// fragment.
struct FragTile {
  unsigned rows = 1, cols = 1;
};

/// How a shared tile is laid out (kaio-assign-shared-layouts picks one when
/// none is given).
struct TileLayout {
  MatrixOrder order = MatrixOrder::row_major;
  int64_t pad = 0;
  /// CuTe's Swizzle<bits, base, shift> on byte offsets (bits 0: none).
  int64_t swizzleBits = 0, swizzleBase = 0, swizzleShift = 0;
};

class Frag;
template <class T> class Shared;

/// `tile(r, c)`: loads when read, stores when assigned.
template <class T> class SharedRef {
public:
  SharedRef(const Shared<T> &tile, llvm::SmallVector<Index, 3> indices)
      : tile_(tile), indices_(std::move(indices)) {}
  Val<T> load(SrcLoc loc = SrcLoc::current()) const;
  operator Val<T>() const { return load(indices_.front().loc()); }
  const SharedRef &operator=(Operand<T> value) const;

private:
  Shared<T> tile_;
  llvm::SmallVector<Index, 3> indices_;
};

/// A statically sized array or tile in shared memory (kaio.shared_alloc).
template <class T> class Shared : public AnyValue {
public:
  Shared() = default;
  Shared(detail::KernelState *st, mlir::Value value) : AnyValue(st, value) {}

  Val<T> load(std::initializer_list<Index> indices,
              SrcLoc loc = SrcLoc::current()) const {
    return Val<T>(st_, detail::sharedLoad(st_, value_, materialize(indices),
                                          loc));
  }
  void store(std::initializer_list<Index> indices,
             detail::NoDeduce<Operand<T>> value,
             SrcLoc loc = SrcLoc::current()) const {
    detail::sharedStore(st_, value.materialize(st_), value_,
                        materialize(indices), loc);
  }
  /// Elements (.., j) .. (.., j + N - 1) of a row in one access
  /// (kaio.shared_load_vector: 2, 4 or, for 16-bit elements, 8 of them; at
  /// most 16 bytes); j a multiple of N.
  template <unsigned N>
  std::array<Val<T>, N> loadVector(std::initializer_list<Index> indices,
                                   SrcLoc loc = SrcLoc::current()) const {
    llvm::SmallVector<mlir::Value, 8> values = detail::sharedLoadVector(
        st_, value_, materialize(indices), N, loc);
    std::array<Val<T>, N> out;
    for (unsigned j = 0; j < N; ++j)
      out[j] = Val<T>(st_, values[j]);
    return out;
  }
  /// Writes `values` to elements (.., j) .. (.., j + N - 1) of a row in one
  /// access (kaio.shared_store_vector; the rules of loadVector).
  template <unsigned N>
  void storeVector(std::initializer_list<Index> indices,
                   const std::array<Val<T>, N> &values,
                   SrcLoc loc = SrcLoc::current()) const {
    llvm::SmallVector<mlir::Value, 8> raw;
    for (const Val<T> &v : values)
      raw.push_back(v.raw());
    detail::sharedStoreVector(st_, raw, value_, materialize(indices), loc);
  }
  /// The 32-bit shared-window address of an element (layout applied).
  U32 address(std::initializer_list<Index> indices,
              SrcLoc loc = SrcLoc::current()) const {
    return U32(st_, detail::sharedAddress(st_, value_, materialize(indices),
                                          loc));
  }
  /// An mma operand fragment from the tile (ldmatrix).
  /// The fragment (or tile of `tile` fragments) of operand `role` whose
  /// top-left element is (row, col).
  Frag loadFragment(FragRole role, ptx::MMAShape shape, Index row, Index col,
                    FragTile tile = {}, SrcLoc loc = SrcLoc::current()) const;
  /// The B fragment (tile) of the transpose of this row-major tile, whose
  /// first element is tile element (row, col) = (n, k): B = K^T for a tile
  /// of K's rows (kaio.load_fragment ... transpose).
  Frag loadFragmentTransposed(ptx::MMAShape shape, Index row, Index col,
                              FragTile tile = {},
                              SrcLoc loc = SrcLoc::current()) const;
  /// The same for either operand: for `FragRole::a` the tile holds A^T
  /// ([k][m], a column-major A) and (row, col) = (k, m).
  Frag loadFragmentTransposed(FragRole role, ptx::MMAShape shape, Index row,
                              Index col, FragTile tile = {},
                              SrcLoc loc = SrcLoc::current()) const;

  SharedRef<T> operator()(Index i) const { return SharedRef<T>(*this, {i}); }
  SharedRef<T> operator()(Index i, Index j) const {
    return SharedRef<T>(*this, {i, j});
  }
  SharedRef<T> operator()(Index i, Index j, Index k) const {
    return SharedRef<T>(*this, {i, j, k});
  }

  template <class Range>
  llvm::SmallVector<mlir::Value, 3> materialize(const Range &indices) const {
    llvm::SmallVector<mlir::Value, 3> values;
    for (const Index &index : indices)
      values.push_back(index.materialize(st_));
    return values;
  }
};

template <class T> Val<T> SharedRef<T>::load(SrcLoc loc) const {
  return Val<T>(tile_.state(),
                detail::sharedLoad(tile_.state(), tile_.raw(),
                                   tile_.materialize(indices_), loc));
}
template <class T>
const SharedRef<T> &SharedRef<T>::operator=(Operand<T> value) const {
  detail::sharedStore(tile_.state(), value.materialize(tile_.state()),
                      tile_.raw(), tile_.materialize(indices_), value.loc());
  return *this;
}

/// Completion of an async copy (kaio.async_copy).
/// Whether an async copy tests its source's alignment at run time or the
/// caller promises it (KernelBuilder::asyncCopy).
enum class CopyAlignment : uint8_t { Checked, Promised };

/// Rows [first, first + count) of a shared tile: where an async copy of
/// `count` rows lands (KernelBuilder::asyncCopy; kaio.async_copy's `rows`).
struct TileRows {
  unsigned first = 0, count = 0;
};

/// Whether a pipelined loop reads its tiles in its own iteration or issues
/// its leading reads (an mma's first fragments) during the previous one
/// (KernelBuilder::pipeline).
enum class PipelineReads : uint8_t { InOrder, Prefetch };

class Token : public AnyValue {
public:
  using AnyValue::AnyValue;
};

/// A warp's register fragment of an mma operand (!kaio.frag).
class Frag : public AnyValue {
public:
  using AnyValue::AnyValue;
  /// Element-wise function over the fragment (kaio.frag_map): `fn` maps a
  /// Val<T> element to a Val<R> element.
  template <class R, class T, class F>
  Frag map(F fn, SrcLoc loc = SrcLoc::current()) const {
    detail::KernelState *st = st_;
    return Frag(st, detail::fragMap(
                        st_, value_,
                        detail::scalarType(st_, detail::ElemTraits<R>::id),
                        [&](mlir::Value x) {
                          Val<R> r = fn(Val<T>(st, x));
                          return r.raw();
                        },
                        loc));
  }
  /// Element-wise function with extra operands (kaio.frag_map): `extras`
  /// are Val<E> scalars or Frag operands (the input's tile or a row
  /// broadcast of it, taken as F32 elements); fn(Val<T> x, extras...)
  /// returns the Val<R> element.
  template <class R, class T, class F, class... Xs>
  Frag mapWith(F fn, const Xs &...extras) const {
    return mapImpl<R, T, false>(fn, extras...);
  }
  /// The same, with each element's row and column in the tile:
  /// fn(Val<T> x, I32 row, I32 col, extras...).
  template <class R, class T, class F, class... Xs>
  Frag mapIndexed(F fn, const Xs &...extras) const {
    return mapImpl<R, T, true>(fn, extras...);
  }
  /// Each row's reduction across the accumulator tile's columns, as an
  /// R x 1 tile (kaio.frag_reduce_rows): a row broadcast for mapWith.
  Frag reduceRows(ReduceKind kind, SrcLoc loc = SrcLoc::current()) const {
    return Frag(st_, detail::fragReduceRows(st_, kind, value_, loc));
  }
  /// The sub-tile of `tile` atoms at atom (row, col) (kaio.frag_slice).
  Frag slice(unsigned row, unsigned col, FragTile tile,
             SrcLoc loc = SrcLoc::current()) const {
    return Frag(st_, detail::fragSlice(st_, value_, row, col, tile.rows,
                                       tile.cols, loc));
  }
  /// The f32 accumulator tile as the A operand (of element type T: f16 or
  /// bf16) of the next mma (kaio.frag_to_operand).
  template <class T> Frag toOperand(SrcLoc loc = SrcLoc::current()) const {
    return Frag(st_, detail::fragToOperand(
                         st_, value_,
                         detail::scalarType(st_, detail::ElemTraits<T>::id),
                         loc));
  }
  /// Stores the 16x8 accumulator block at (row, col) of the row-major
  /// matrix `dst` (leading dimension ld, bounds rows x cols), masked and
  /// converted to the pointer's element type.
  template <class T>
  void store(const Ptr<T> &dst, Index row, Index col, Index rows, Index cols,
             Index ld, SrcLoc loc = SrcLoc::current()) const {
    static_assert(!Ptr<T>::isReadOnly,
                  "kaio builder: store through a Ptr<const T>");
    mlir::Value r = row.materialize(st_), c = col.materialize(st_),
                nr = rows.materialize(st_), nc = cols.materialize(st_),
                l = ld.materialize(st_);
    detail::storeFragment(st_, value_, dst.raw(), r, c, nr, nc, l,
                          mlir::Value(), loc);
  }
  /// The same, accumulating: dst = frag + beta * dst, in f32 (GEMM's
  /// beta * C; a zero beta never reads dst).
  template <class T>
  void store(const Ptr<T> &dst, Index row, Index col, Index rows, Index cols,
             Index ld, const Val<float> &beta,
             SrcLoc loc = SrcLoc::current()) const {
    static_assert(!Ptr<T>::isReadOnly,
                  "kaio builder: store through a Ptr<const T>");
    mlir::Value r = row.materialize(st_), c = col.materialize(st_),
                nr = rows.materialize(st_), nc = cols.materialize(st_),
                l = ld.materialize(st_);
    detail::storeFragment(st_, value_, dst.raw(), r, c, nr, nc, l, beta.raw(),
                          loc);
  }

  /// Stores the accumulator tile at (row, col) of the shared tile,
  /// converted to its element type, with its layout
  /// (kaio.shared_store_fragment): an epilogue staged for a TMA store.
  template <class T>
  void store(const Shared<T> &tile, Index row, Index col,
             SrcLoc loc = SrcLoc::current()) const {
    detail::sharedStoreFragment(st_, value_, tile.raw(), row.materialize(st_),
                                col.materialize(st_), loc);
  }

private:
  /// A frag_map extra operand as the body sees it: a Frag's elements as F32.
  template <class X, class V>
  static auto bodyArg(detail::KernelState *st, V v) {
    using A = std::conditional_t<std::is_same_v<X, Frag>, Val<float>, X>;
    return A(st, v);
  }
  template <class R, class T, bool Indexed, class F, class... Xs>
  Frag mapImpl(F &fn, const Xs &...extras) const {
    detail::KernelState *st = st_;
    llvm::SmallVector<mlir::Value> values{extras.raw()...};
    auto call = [&](mlir::ValueRange args) {
      return callWith<R, T, Indexed, Xs...>(
          fn, st, args, std::index_sequence_for<Xs...>());
    };
    return Frag(st, detail::fragMapWith(
                        st_, value_,
                        detail::scalarType(st_, detail::ElemTraits<R>::id),
                        values, Indexed, call, SrcLoc::current()));
  }
  template <class R, class T, bool Indexed, class... Xs, class F,
            std::size_t... I>
  static mlir::Value callWith(F &fn, detail::KernelState *st,
                              mlir::ValueRange args,
                              std::index_sequence<I...>) {
    constexpr unsigned lead = Indexed ? 3 : 1;
    Val<R> r;
    if constexpr (Indexed)
      r = fn(Val<T>(st, args[0]), Val<int32_t>(st, args[1]),
             Val<int32_t>(st, args[2]), bodyArg<Xs>(st, args[lead + I])...);
    else
      r = fn(Val<T>(st, args[0]), bodyArg<Xs>(st, args[lead + I])...);
    return r.raw();
  }
};

template <class T>
Frag Shared<T>::loadFragment(FragRole role, ptx::MMAShape shape, Index row,
                             Index col, FragTile tile, SrcLoc loc) const {
  mlir::Value r = row.materialize(st_), c = col.materialize(st_);
  return Frag(st_, detail::loadFragment(st_, value_, role, shape, r, c,
                                        tile.rows, tile.cols, false, loc));
}
template <class T>
Frag Shared<T>::loadFragmentTransposed(ptx::MMAShape shape, Index row,
                                       Index col, FragTile tile,
                                       SrcLoc loc) const {
  return loadFragmentTransposed(FragRole::b, shape, row, col, tile, loc);
}
template <class T>
Frag Shared<T>::loadFragmentTransposed(FragRole role, ptx::MMAShape shape,
                                       Index row, Index col, FragTile tile,
                                       SrcLoc loc) const {
  mlir::Value r = row.materialize(st_), c = col.materialize(st_);
  return Frag(st_, detail::loadFragment(st_, value_, role, shape, r, c,
                                        tile.rows, tile.cols, true, loc));
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace detail {
template <class P> struct ParamTraits {
  static_assert(ElemTraits<P>::valid && !std::is_same_v<P, bool>,
                "kaio builder: a kernel parameter is a Ptr<T> or a scalar");
  using type = Val<P>;
  static constexpr ScalarId id = ElemTraits<P>::id;
  static constexpr bool isPointer = false, readOnly = false;
  static constexpr bool isSigned =
      std::is_integral_v<P> && std::is_signed_v<P> && sizeof(P) > 1;
};
template <class T> struct ParamTraits<Ptr<T>> {
  using type = Ptr<T>;
  static constexpr ScalarId id = ElemTraits<std::remove_const_t<T>>::id;
  static constexpr bool isPointer = true, readOnly = std::is_const_v<T>;
  static constexpr bool isSigned = false;
};

template <class T> struct IsVal : std::false_type {};
template <class T> struct IsVal<Val<T>> : std::true_type {};
template <class T> struct IsTuple : std::false_type {};
template <class... Ts> struct IsTuple<std::tuple<Ts...>> : std::true_type {};
template <class T> struct IsValArray : std::false_type {};
template <class T, std::size_t N>
struct IsValArray<std::array<Val<T>, N>> : std::true_type {};
/// What an if_ may yield: nothing, a Val, a tuple of Vals or an array of
/// them.
template <class R>
constexpr bool isYieldable = std::is_void_v<R> || IsVal<R>::value ||
                             IsTuple<R>::value || IsValArray<R>::value;

/// The first parameter type of a (non-generic) lambda: the loop index.
/// (SFINAE-friendly, so that for_ overloads that do not apply drop out.)
template <class M> struct MemberFirstArg {};
template <class C, class R, class A, class... As>
struct MemberFirstArg<R (C::*)(A, As...) const> {
  using type = std::decay_t<A>;
};
template <class C, class R, class A, class... As>
struct MemberFirstArg<R (C::*)(A, As...)> {
  using type = std::decay_t<A>;
};
template <class F, class = void> struct FirstArg {};
template <class F>
struct FirstArg<F, std::void_t<decltype(&F::operator())>>
    : MemberFirstArg<decltype(&F::operator())> {};
template <class F> using LoopIndex =
    typename FirstArg<F>::type::element_type;

/// Values <-> mlir::Value lists for loop-carried and if results.
template <class R> void appendValues(llvm::SmallVector<mlir::Value> &out,
                                     const R &r) {
  if constexpr (IsVal<R>::value)
    out.push_back(r.raw());
  else if constexpr (IsTuple<R>::value)
    std::apply([&](const auto &...v) { (out.push_back(v.raw()), ...); }, r);
  else if constexpr (IsValArray<R>::value)
    for (const auto &v : r)
      out.push_back(v.raw());
}
template <class R>
void appendTypes(KernelState *st, llvm::SmallVector<mlir::Type> &out) {
  if constexpr (IsVal<R>::value)
    out.push_back(scalarType(st, ElemTraits<typename R::element_type>::id));
  else if constexpr (IsTuple<R>::value)
    std::apply(
        [&](auto... v) {
          (out.push_back(scalarType(
               st, ElemTraits<typename decltype(v)::element_type>::id)),
           ...);
        },
        R());
  else if constexpr (IsValArray<R>::value)
    out.append(std::tuple_size_v<R>,
               scalarType(st, ElemTraits<typename R::value_type::element_type>::id));
}
template <class R, std::size_t... I>
R fromValuesImpl(KernelState *st, mlir::ValueRange values,
                 std::index_sequence<I...>) {
  return R(std::tuple_element_t<I, R>(st, values[I])...);
}
template <class R> R fromValues(KernelState *st, mlir::ValueRange values) {
  if constexpr (IsVal<R>::value)
    return R(st, values[0]);
  else if constexpr (IsTuple<R>::value)
    return fromValuesImpl<R>(st, values,
                             std::make_index_sequence<std::tuple_size_v<R>>());
  else if constexpr (IsValArray<R>::value) {
    R out;
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = typename R::value_type(st, values[i]);
    return out;
  }
}
template <class F, class R, std::size_t... I>
auto applyValues(F &fn, KernelState *st, mlir::ValueRange values,
                 std::index_sequence<I...>) {
  return fn(std::tuple_element_t<I, R>(st, values[I])...);
}
} // namespace detail

/// Loop-carried values of for_/while_: `carry(a, b)`.
template <class... Ts> std::tuple<Val<Ts>...> carry(const Val<Ts> &...v) {
  return std::tuple<Val<Ts>...>(v...);
}

/// Builds the body of one kernel; handed to ModuleBuilder::kernel.
class KernelBuilder {
public:
  explicit KernelBuilder(detail::KernelState *st) : st_(st) {}

  /// Declares the next kernel parameter: `param<Ptr<const float>>("x")`,
  /// `param<uint32_t>("n")`. The name shows in locations only.
  template <class P>
  typename detail::ParamTraits<P>::type param(llvm::StringRef name = "",
                                              SrcLoc loc = SrcLoc::current()) {
    using Traits = detail::ParamTraits<P>;
    return typename Traits::type(
        st_, addParam(detail::scalarType(st_, Traits::id), Traits::isPointer,
                      Traits::readOnly, Traits::isSigned, name, loc));
  }

  U32 threadId(Dim dim = Dim::x, SrcLoc loc = SrcLoc::current());
  U32 blockId(Dim dim = Dim::x, SrcLoc loc = SrcLoc::current());
  U32 blockDim(Dim dim = Dim::x, SrcLoc loc = SrcLoc::current());
  U32 gridDim(Dim dim = Dim::x, SrcLoc loc = SrcLoc::current());
  U32 laneId(SrcLoc loc = SrcLoc::current());
  U32 warpId(SrcLoc loc = SrcLoc::current());

  template <class T>
  Val<T> constant(T value, SrcLoc loc = SrcLoc::current()) {
    return Operand<T>(value, loc).get(st_);
  }
  /// A constant of element type T from a C++ number (e.g. f16 from 1.0).
  template <class T, class U>
  Val<T> constantOf(U value, SrcLoc loc = SrcLoc::current()) {
    return Operand<T>(value, loc).get(st_);
  }

  /// if (cond) then(). With an else branch, then() and else() may return a
  /// Val<T>, a tuple of Vals or a std::array of them, which if_ returns.
  template <class Then>
  void if_(const Pred &cond, Then thenFn, SrcLoc loc = SrcLoc::current()) {
    static_assert(std::is_void_v<std::invoke_result_t<Then>>,
                  "kaio builder: an if_ without else yields no value");
    detail::buildIf(
        st_, cond.raw(), {},
        [&] {
          thenFn();
          return llvm::SmallVector<mlir::Value>();
        },
        nullptr, loc);
  }
  template <class Then, class Else>
  auto if_(const Pred &cond, Then thenFn, Else elseFn,
           SrcLoc loc = SrcLoc::current()) {
    using R = std::invoke_result_t<Then>;
    static_assert(std::is_same_v<R, std::invoke_result_t<Else>>,
                  "kaio builder: both branches of if_ must yield the same "
                  "types");
    static_assert(detail::isYieldable<R>,
                  "kaio builder: an if_ yields nothing, a Val, a tuple or an "
                  "array of Vals");
    llvm::SmallVector<mlir::Type> types;
    detail::appendTypes<R>(st_, types);
    auto wrap = [](auto &fn) {
      return [&fn] {
        llvm::SmallVector<mlir::Value> out;
        if constexpr (std::is_void_v<R>)
          fn();
        else
          detail::appendValues(out, fn());
        return out;
      };
    };
    auto thenBody = wrap(thenFn);
    auto elseBody = wrap(elseFn);
    llvm::SmallVector<mlir::Value> results =
        detail::buildIf(st_, cond.raw(), types, thenBody, elseBody, loc);
    if constexpr (!std::is_void_v<R>)
      return detail::fromValues<R>(st_, results);
  }

  /// Marks the next for_ {kaio.unroll = factor} (1 to 32): kaio-unroll-loops
  /// runs `factor` iterations per trip and the rest after, so that their
  /// independent loads are in flight together: `k.unroll(4).for_(...)`.
  KernelBuilder &unroll(unsigned factor, SrcLoc loc = SrcLoc::current());
  /// Marks the next for_ {kaio.pipeline_stages = stages} (2 to 8): a loop
  /// that copies tiles, waits for them and computes becomes a `stages`-deep
  /// cp.async pipeline (kaio-pipeline-copies): `k.pipeline(4).for_(...)`.
  /// PipelineReads::Prefetch (3 stages or more; a barrier between the wait
  /// and the first read) also marks it {kaio.pipeline_prefetch}: each
  /// iteration's leading tile reads are issued during the previous one.
  KernelBuilder &pipeline(unsigned stages,
                          PipelineReads reads = PipelineReads::InOrder,
                          SrcLoc loc = SrcLoc::current());

  /// for (i = lo; i < hi; i += step) body(i). The index type is that of
  /// body's parameter (`[&](I32 t) {...}`).
  template <class F>
  void for_(Operand<detail::LoopIndex<F>> lo, Operand<detail::LoopIndex<F>> hi,
            Operand<detail::LoopIndex<F>> step, F body,
            SrcLoc loc = SrcLoc::current()) {
    using I = detail::LoopIndex<F>;
    mlir::Value l = lo.materialize(st_), h = hi.materialize(st_),
                s = step.materialize(st_);
    detail::buildFor(
        st_, l, h, s,
        {},
        [&](mlir::Value iv, mlir::ValueRange) {
          body(Val<I>(st_, iv));
          return llvm::SmallVector<mlir::Value>();
        },
        detail::ElemTraits<I>::kind == detail::Kind::Unsigned, loc);
  }
  /// A loop carrying one value: body(i, x) returns the next x; for_ returns
  /// the last.
  template <class T, class F>
  Val<T> for_(Operand<detail::LoopIndex<F>> lo, Operand<detail::LoopIndex<F>> hi,
              Operand<detail::LoopIndex<F>> step, const Val<T> &init, F body,
              SrcLoc loc = SrcLoc::current()) {
    return std::get<0>(for_(lo, hi, step, std::tuple<Val<T>>(init),
                            [&](Val<detail::LoopIndex<F>> i, Val<T> x) {
                              return std::tuple<Val<T>>(body(i, x));
                            },
                            loc));
  }
  /// A loop carrying several values: `carry(a, b)`; body(i, a, b) returns
  /// carry(a', b').
  template <class... Ts, class F>
  std::tuple<Val<Ts>...>
  for_(Operand<detail::LoopIndex<F>> lo, Operand<detail::LoopIndex<F>> hi,
       Operand<detail::LoopIndex<F>> step, const std::tuple<Val<Ts>...> &init,
       F body, SrcLoc loc = SrcLoc::current()) {
    using I = detail::LoopIndex<F>;
    using R = std::tuple<Val<Ts>...>;
    llvm::SmallVector<mlir::Value> inits;
    detail::appendValues(inits, init);
    mlir::Value l = lo.materialize(st_), h = hi.materialize(st_),
                s = step.materialize(st_);
    llvm::SmallVector<mlir::Value> results = detail::buildFor(
        st_, l, h, s,
        inits,
        [&](mlir::Value iv, mlir::ValueRange iters) {
          auto call = [&](auto... xs) { return body(Val<I>(st_, iv), xs...); };
          R next = detail::applyValues<decltype(call), R>(
              call, st_, iters, std::index_sequence_for<Ts...>());
          llvm::SmallVector<mlir::Value> out;
          detail::appendValues(out, next);
          return out;
        },
        detail::ElemTraits<I>::kind == detail::Kind::Unsigned, loc);
    return detail::fromValues<R>(st_, results);
  }

  /// A loop carrying an array of values of one type (e.g. a thread's
  /// accumulators for its columns): body(i, std::array<Val<T>, N>) returns
  /// the next array; for_ returns the last.
  template <class T, std::size_t N, class F>
  std::array<Val<T>, N>
  for_(Operand<detail::LoopIndex<F>> lo, Operand<detail::LoopIndex<F>> hi,
       Operand<detail::LoopIndex<F>> step, const std::array<Val<T>, N> &init,
       F body, SrcLoc loc = SrcLoc::current()) {
    using I = detail::LoopIndex<F>;
    llvm::SmallVector<mlir::Value> inits;
    for (const Val<T> &v : init)
      inits.push_back(v.raw());
    auto toArray = [&](mlir::ValueRange values) {
      std::array<Val<T>, N> out;
      for (std::size_t j = 0; j < N; ++j)
        out[j] = Val<T>(st_, values[j]);
      return out;
    };
    mlir::Value l = lo.materialize(st_), h = hi.materialize(st_),
                s = step.materialize(st_);
    llvm::SmallVector<mlir::Value> results = detail::buildFor(
        st_, l, h, s, inits,
        [&](mlir::Value iv, mlir::ValueRange iters) {
          std::array<Val<T>, N> next = body(Val<I>(st_, iv), toArray(iters));
          llvm::SmallVector<mlir::Value> out;
          for (const Val<T> &v : next)
            out.push_back(v.raw());
          return out;
        },
        detail::ElemTraits<I>::kind == detail::Kind::Unsigned, loc);
    return toArray(results);
  }

  /// A loop carrying any builder values (Val, Frag, Shared tiles, Tokens):
  /// body(i, xs...) returns the next std::tuple of them; forCarrying
  /// returns the last. Fragment tiles and shared tiles rotate through it.
  template <class... Ts, class F>
  std::tuple<Ts...>
  forCarrying(Operand<detail::LoopIndex<F>> lo, Operand<detail::LoopIndex<F>> hi,
              Operand<detail::LoopIndex<F>> step, const std::tuple<Ts...> &init,
              F body, SrcLoc loc = SrcLoc::current()) {
    static_assert((std::is_base_of_v<AnyValue, Ts> && ...),
                  "kaio builder: forCarrying carries builder values");
    using I = detail::LoopIndex<F>;
    using R = std::tuple<Ts...>;
    llvm::SmallVector<mlir::Value> inits;
    std::apply([&](const auto &...v) { (inits.push_back(v.raw()), ...); },
               init);
    mlir::Value l = lo.materialize(st_), h = hi.materialize(st_),
                s = step.materialize(st_);
    auto unpack = [this](mlir::ValueRange values) {
      return detail::fromValuesImpl<R>(st_, values,
                                       std::index_sequence_for<Ts...>());
    };
    llvm::SmallVector<mlir::Value> results = detail::buildFor(
        st_, l, h, s, inits,
        [&](mlir::Value iv, mlir::ValueRange iters) {
          R next = std::apply(
              [&](const auto &...xs) { return body(Val<I>(st_, iv), xs...); },
              unpack(iters));
          llvm::SmallVector<mlir::Value> out;
          std::apply([&](const auto &...v) { (out.push_back(v.raw()), ...); },
                     next);
          return out;
        },
        detail::ElemTraits<I>::kind == detail::Kind::Unsigned, loc);
    return unpack(results);
  }

  /// while (cond(x)) x = body(x); returns the final x. `init` is a Val<T>
  /// or carry(...); cond and body take the carried values.
  template <class Init, class C, class B>
  Init while_(const Init &init, C cond, B body,
              SrcLoc loc = SrcLoc::current()) {
    using R = std::conditional_t<detail::IsVal<Init>::value, std::tuple<Init>,
                                 Init>;
    static_assert(detail::IsTuple<R>::value,
                  "kaio builder: while_ carries a Val<T> or carry(...)");
    llvm::SmallVector<mlir::Value> inits;
    detail::appendValues(inits, init);
    constexpr std::size_t n = std::tuple_size_v<R>;
    llvm::SmallVector<mlir::Value> results = detail::buildWhile(
        st_, inits,
        [&](mlir::ValueRange xs) {
          Pred p = detail::applyValues<C, R>(cond, st_, xs,
                                             std::make_index_sequence<n>());
          return p.raw();
        },
        [&](mlir::ValueRange xs) {
          auto next = detail::applyValues<B, R>(body, st_, xs,
                                                std::make_index_sequence<n>());
          llvm::SmallVector<mlir::Value> out;
          detail::appendValues(out, next);
          return out;
        },
        loc);
    return detail::fromValues<Init>(st_, results);
  }

  /// A block-wide barrier.
  void barrier(SrcLoc loc = SrcLoc::current());
  /// Named barrier `id` (1..15) among `threads` threads, whole warps: e.g.
  /// the consumer warpgroups of a warp-specialised kernel.
  void barrier(int32_t id, int32_t threads, SrcLoc loc = SrcLoc::current());

  /// A shared-memory array or tile: `shared<float>({16, 16})`.
  template <class T>
  Shared<T> shared(llvm::ArrayRef<int64_t> shape,
                   std::optional<TileLayout> layout = std::nullopt,
                   SrcLoc loc = SrcLoc::current()) {
    return Shared<T>(st_, sharedAlloc(shape,
                                      detail::scalarType(
                                          st_, detail::ElemTraits<T>::id),
                                      layout, loc));
  }

  template <class T>
  Val<T> shuffle(ShuffleMode mode, const Val<T> &value, Operand<uint32_t> offset,
                 int32_t width = 32, SrcLoc loc = SrcLoc::current()) {
    return Val<T>(st_, shuffleImpl(mode, value.raw(),
                                   offset.materialize(st_), width, loc));
  }
  /// Every lane gets the reduction over its warp.
  template <class T>
  Val<T> warpReduce(ReduceKind kind, const Val<T> &value,
                    SrcLoc loc = SrcLoc::current()) {
    return Val<T>(st_, reduceImpl(false, kind, value.raw(), loc));
  }
  /// Every thread gets the reduction over its block (synchronises).
  template <class T>
  Val<T> blockReduce(ReduceKind kind, const Val<T> &value,
                     SrcLoc loc = SrcLoc::current()) {
    return Val<T>(st_, reduceImpl(true, kind, value.raw(), loc));
  }

  /// Copies the tile of the row-major matrix `src` at (row, col) (leading
  /// dimension ld, bounds rows x cols, zero fill outside) into `dst`.
  /// `CopyAlignment::Promised` asserts that src, ld and col keep every row
  /// 16-byte aligned (kaio.async_copy's `aligned`): no run-time test and no
  /// element-wise fallback.
  template <class T, class U>
  Token asyncCopy(const Ptr<T> &src, Index row, Index col, Index rows,
                  Index cols, Index ld, const Shared<U> &dst,
                  CopyAlignment alignment = CopyAlignment::Checked,
                  SrcLoc loc = SrcLoc::current()) {
    return copyInto(src, row, col, rows, cols, ld, dst, std::nullopt,
                    alignment, loc);
  }
  /// The same into rows `into` of `dst` only: `into.count` rows of src
  /// from (row, col), e.g. one page of a paged cache into a tile that
  /// gathers several.
  template <class T, class U>
  Token asyncCopy(const Ptr<T> &src, Index row, Index col, Index rows,
                  Index cols, Index ld, const Shared<U> &dst, TileRows into,
                  CopyAlignment alignment = CopyAlignment::Checked,
                  SrcLoc loc = SrcLoc::current()) {
    return copyInto(src, row, col, rows, cols, ld, dst, into, alignment, loc);
  }
  void asyncWait(std::initializer_list<Token> tokens,
                 SrcLoc loc = SrcLoc::current());

  /// A fragment with every element `value`.
  template <class T>
  Frag fragFill(FragRole role, ptx::MMAShape shape, Operand<T> value,
                FragTile tile = {}, SrcLoc loc = SrcLoc::current()) {
    return Frag(st_, fragFillImpl(role, shape, value.materialize(st_), tile,
                                  loc));
  }
  /// D = A * B + C.
  Frag mma(const Frag &a, const Frag &b, const Frag &acc,
           SrcLoc loc = SrcLoc::current());

  /// `.maxnreg` / `.minnctapersm` of the kernel.
  void setMaxRegisters(int32_t n);
  void setMinBlocksPerSM(int32_t n);

  detail::KernelState *state() const { return st_; }

private:
  mlir::Value addParam(mlir::Type type, bool isPointer, bool readOnly,
                       bool isSigned, llvm::StringRef name, SrcLoc loc);
  mlir::Value sharedAlloc(llvm::ArrayRef<int64_t> shape, mlir::Type elem,
                          std::optional<TileLayout> layout, SrcLoc loc);
  mlir::Value shuffleImpl(ShuffleMode mode, mlir::Value value,
                          mlir::Value offset, int32_t width, SrcLoc loc);
  mlir::Value reduceImpl(bool block, ReduceKind kind, mlir::Value value,
                         SrcLoc loc);
  template <class T, class U>
  Token copyInto(const Ptr<T> &src, Index row, Index col, Index rows,
                 Index cols, Index ld, const Shared<U> &dst,
                 std::optional<TileRows> into, CopyAlignment alignment,
                 SrcLoc loc) {
    static_assert(std::is_same_v<std::remove_const_t<T>, U>,
                  "kaio builder: async copy between different element types");
    mlir::Value r = row.materialize(st_), c = col.materialize(st_),
                nr = rows.materialize(st_), nc = cols.materialize(st_),
                l = ld.materialize(st_);
    return Token(st_, asyncCopyImpl(src.raw(), r, c, nr, nc, l, dst.raw(),
                                    into,
                                    alignment == CopyAlignment::Promised,
                                    loc));
  }
  mlir::Value asyncCopyImpl(mlir::Value src, mlir::Value row, mlir::Value col,
                            mlir::Value rows, mlir::Value cols, mlir::Value ld,
                            mlir::Value dst, std::optional<TileRows> into,
                            bool aligned, SrcLoc loc);
  mlir::Value fragFillImpl(FragRole role, ptx::MMAShape shape,
                           mlir::Value value, FragTile tile, SrcLoc loc);

  detail::KernelState *st_;
};

/// Builds a module of kaio kernels.
class ModuleBuilder {
public:
  /// With a context of its own (dialects loaded).
  ModuleBuilder();
  /// In `context` (the kaio, arith, math and scf dialects get loaded).
  explicit ModuleBuilder(mlir::MLIRContext &context);
  ~ModuleBuilder();
  ModuleBuilder(const ModuleBuilder &) = delete;
  ModuleBuilder &operator=(const ModuleBuilder &) = delete;

  /// The module's `kaio.target` chip ("sm_80"): verifiers check against it.
  void setTarget(llvm::StringRef chip);

  /// Adds `kaio.kernel @name` with `block_size` (1-3 dims); `body` declares
  /// the parameters and builds the body; kaio.return is added after it.
  template <class F>
  void kernel(llvm::StringRef name, std::vector<int32_t> blockSize, F body,
              SrcLoc loc = SrcLoc::current()) {
    KernelBuilder k(beginKernel(name, blockSize, loc));
    body(k);
    endKernel();
  }

  /// Verifies the module and hands it over; null when the builder or the
  /// verifier reported an error (see diagnostics()).
  mlir::OwningOpRef<mlir::ModuleOp> finish();
  /// The module being built (still owned by the builder).
  mlir::ModuleOp module();
  /// "file:line:col: error: message" lines, one per diagnostic.
  const std::string &diagnostics() const;
  bool hasErrors() const;
  mlir::MLIRContext &context();

  struct Impl; // opaque

private:
  detail::KernelState *beginKernel(llvm::StringRef name,
                                   llvm::ArrayRef<int32_t> blockSize,
                                   SrcLoc loc);
  void endKernel();

  std::unique_ptr<Impl> impl_;
};

/// The main() of a build-time kernel generator: builds the module with
/// `build` and writes it as text to argv[1] ("-" or none: stdout). Returns
/// the process exit code (1 with the diagnostics on stderr on error).
int generatorMain(int argc, char **argv,
                  llvm::function_ref<void(ModuleBuilder &)> build);

} // namespace kaio::builder

#endif // KAIO_BUILDER_BUILDER_H
