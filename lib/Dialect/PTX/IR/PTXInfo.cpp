//===- PTXInfo.cpp - facts about PTX targets, types and mma ---------------===//

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kaio::ptx;

//===----------------------------------------------------------------------===//
// Chips
//===----------------------------------------------------------------------===//

// Shared memory limits from the CUDA programming guide's compute capability
// table; static .shared declarations are capped at 48 KiB on every chip.
static constexpr ChipInfo kChips[] = {
    {"sm_75", 75, false, 63, 65536, 49152},
    {"sm_80", 80, false, 70, 166912, 49152},
    {"sm_86", 86, false, 71, 101376, 49152},
    {"sm_87", 87, false, 74, 166912, 49152},
    {"sm_89", 89, false, 78, 101376, 49152},
    {"sm_90", 90, false, 78, 232448, 49152},
    {"sm_90a", 90, true, 80, 232448, 49152},
    {"sm_100", 100, false, 86, 232448, 49152},
    {"sm_100a", 100, true, 86, 232448, 49152},
    {"sm_120", 120, false, 87, 101376, 49152},
    {"sm_120a", 120, true, 87, 101376, 49152},
};

ArrayRef<ChipInfo> kaio::ptx::getChips() { return kChips; }

const ChipInfo *kaio::ptx::lookupChip(StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}

bool kaio::ptx::satisfies(const ChipInfo &chip, const PTXRequirement &req) {
  if (chip.sm < req.sm)
    return false;
  // Architecture-specific features run only on the exact 'a' chip.
  if (req.archSpecific)
    return chip.archSpecific && chip.sm == req.sm;
  return true;
}

std::string kaio::ptx::formatSM(const PTXRequirement &req) {
  std::string s = "sm_" + std::to_string(req.sm);
  if (req.archSpecific)
    s += "a";
  return s;
}

std::string kaio::ptx::formatISA(unsigned isa) {
  return std::to_string(isa / 10) + "." + std::to_string(isa % 10);
}

std::optional<unsigned> kaio::ptx::parseISA(StringRef text) {
  auto [major, minor] = text.split('.');
  unsigned ma, mi;
  if (major.getAsInteger(10, ma) || minor.getAsInteger(10, mi) || mi > 9 ||
      ma == 0 || ma > 20)
    return std::nullopt;
  return ma * 10 + mi;
}

//===----------------------------------------------------------------------===//
// Types and registers
//===----------------------------------------------------------------------===//

static constexpr PTXTypeInfo kTypes[] = {
    {PTXType::pred, 1, TypeKind::Pred},
    {PTXType::b8, 8, TypeKind::Bits},
    {PTXType::b16, 16, TypeKind::Bits},
    {PTXType::b32, 32, TypeKind::Bits},
    {PTXType::b64, 64, TypeKind::Bits},
    {PTXType::u8, 8, TypeKind::Unsigned},
    {PTXType::u16, 16, TypeKind::Unsigned},
    {PTXType::u32, 32, TypeKind::Unsigned},
    {PTXType::u64, 64, TypeKind::Unsigned},
    {PTXType::s8, 8, TypeKind::Signed},
    {PTXType::s16, 16, TypeKind::Signed},
    {PTXType::s32, 32, TypeKind::Signed},
    {PTXType::s64, 64, TypeKind::Signed},
    {PTXType::f16, 16, TypeKind::Float},
    {PTXType::f16x2, 32, TypeKind::Float},
    {PTXType::bf16, 16, TypeKind::Float},
    {PTXType::bf16x2, 32, TypeKind::Float},
    {PTXType::tf32, 32, TypeKind::Float},
    {PTXType::f32, 32, TypeKind::Float},
    {PTXType::f64, 64, TypeKind::Float},
    {PTXType::u4, 4, TypeKind::Unsigned},
    {PTXType::s4, 4, TypeKind::Signed},
};

const PTXTypeInfo &kaio::ptx::getTypeInfo(PTXType type) {
  const PTXTypeInfo &info = kTypes[static_cast<unsigned>(type)];
  assert(info.type == type && "kTypes out of order with PTXType");
  return info;
}

// Index into kRegisterClasses, see getRegisterClass.
static constexpr RegisterClass kRegisterClasses[] = {
    {".pred", "%p", 1},  {".b16", "%rs", 16}, {".b16", "%h", 16},
    {".b32", "%hh", 32}, {".b32", "%r", 32},  {".b64", "%rd", 64},
    {".f32", "%f", 32},  {".f64", "%fd", 64},
};

ArrayRef<RegisterClass> kaio::ptx::getRegisterClasses() {
  return kRegisterClasses;
}

std::optional<RegisterClass> kaio::ptx::getRegisterClass(Type type) {
  if (auto vec = dyn_cast<VectorType>(type)) {
    if (vec.getRank() == 1 && vec.getDimSize(0) == 2 &&
        (vec.getElementType().isF16() || vec.getElementType().isBF16()))
      return kRegisterClasses[3];
    return std::nullopt;
  }
  if (type.isInteger(1))
    return kRegisterClasses[0];
  if (type.isInteger(16))
    return kRegisterClasses[1];
  if (type.isF16() || type.isBF16())
    return kRegisterClasses[2];
  if (type.isInteger(32))
    return kRegisterClasses[4];
  if (type.isInteger(64))
    return kRegisterClasses[5];
  if (type.isF32())
    return kRegisterClasses[6];
  if (type.isF64())
    return kRegisterClasses[7];
  return std::nullopt;
}

bool kaio::ptx::isRegisterCompatible(PTXType type, Type reg,
                                     bool allowWider) {
  std::optional<RegisterClass> rc = getRegisterClass(reg);
  if (!rc)
    return false;
  const PTXTypeInfo &info = getTypeInfo(type);
  StringRef decl = rc->declType;
  if (info.kind == TypeKind::Pred)
    return decl == ".pred";
  if (decl == ".pred")
    return false;
  if (decl == ".f32")
    return type == PTXType::f32 || type == PTXType::b32;
  if (decl == ".f64")
    return type == PTXType::f64 || type == PTXType::b64;
  // Bit-typed registers hold any type of their size.
  if (info.bits == rc->bits)
    return true;
  return allowWider && info.kind != TypeKind::Float && info.bits < rc->bits;
}

Type kaio::ptx::getRegisterType(MLIRContext *ctx, PTXType type) {
  Builder b(ctx);
  switch (type) {
  case PTXType::pred:
    return b.getI1Type();
  case PTXType::f16:
    return b.getF16Type();
  case PTXType::bf16:
    return b.getBF16Type();
  case PTXType::f16x2:
    return VectorType::get({2}, b.getF16Type());
  case PTXType::bf16x2:
    return VectorType::get({2}, b.getBF16Type());
  case PTXType::f32:
    return b.getF32Type();
  case PTXType::f64:
    return b.getF64Type();
  default:
    break;
  }
  unsigned bits = std::max(16u, getBitWidth(type));
  return b.getIntegerType(bits);
}

std::optional<PTXType> kaio::ptx::getParamType(Type type) {
  if (type.isSignedInteger(16))
    return PTXType::s16;
  if (type.isSignedInteger(32))
    return PTXType::s32;
  if (type.isSignedInteger(64))
    return PTXType::s64;
  if (type.isInteger(16))
    return PTXType::u16;
  if (type.isInteger(32))
    return PTXType::u32;
  if (type.isInteger(64))
    return PTXType::u64;
  if (type.isF16() || type.isBF16())
    return PTXType::b16;
  if (type.isF32())
    return PTXType::f32;
  if (type.isF64())
    return PTXType::f64;
  if (auto rc = getRegisterClass(type); rc && rc->bits == 32)
    return PTXType::b32;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// mma.sync
//===----------------------------------------------------------------------===//

MmaShapeInfo kaio::ptx::getMmaShapeInfo(MMAShape shape) {
  switch (shape) {
  case MMAShape::m16n8k8:
    return {shape, 16, 8, 8};
  case MMAShape::m16n8k16:
    return {shape, 16, 8, 16};
  case MMAShape::m16n8k32:
    return {shape, 16, 8, 32};
  case MMAShape::m16n8k64:
    return {shape, 16, 8, 64};
  }
  llvm_unreachable("unknown mma shape");
}

// PTX ISA 9.0, "Matrix shape / data types" of mma.sync: the m16n8 variants.
#define KAIO_MMA(SHAPE, A, B, ACC, AR, BR, CR, SM, ISA)                        \
  {MMAShape::SHAPE, PTXType::A, PTXType::B, PTXType::ACC, AR, BR, CR,          \
   PTXRequirement{SM, ISA}}
#define KAIO_MMA_INT(SHAPE, T1, T2, AR, BR)                                    \
  KAIO_MMA(SHAPE, T1, T1, s32, AR, BR, 4, 80, 70),                             \
      KAIO_MMA(SHAPE, T1, T2, s32, AR, BR, 4, 80, 70),                         \
      KAIO_MMA(SHAPE, T2, T1, s32, AR, BR, 4, 80, 70),                         \
      KAIO_MMA(SHAPE, T2, T2, s32, AR, BR, 4, 80, 70)
static const MmaVariant kMmaVariants[] = {
    KAIO_MMA(m16n8k8, f16, f16, f16, 2, 1, 2, 75, 65),
    KAIO_MMA(m16n8k8, f16, f16, f32, 2, 1, 4, 75, 65),
    KAIO_MMA(m16n8k8, bf16, bf16, f32, 2, 1, 4, 80, 70),
    KAIO_MMA(m16n8k8, tf32, tf32, f32, 4, 2, 4, 80, 70),
    KAIO_MMA(m16n8k16, f16, f16, f16, 4, 2, 2, 80, 70),
    KAIO_MMA(m16n8k16, f16, f16, f32, 4, 2, 4, 80, 70),
    KAIO_MMA(m16n8k16, bf16, bf16, f32, 4, 2, 4, 80, 70),
    KAIO_MMA_INT(m16n8k16, s8, u8, 2, 1),
    KAIO_MMA_INT(m16n8k32, s8, u8, 4, 2),
    KAIO_MMA_INT(m16n8k32, s4, u4, 2, 1),
    KAIO_MMA_INT(m16n8k64, s4, u4, 4, 2),
};
#undef KAIO_MMA_INT
#undef KAIO_MMA

ArrayRef<MmaVariant> kaio::ptx::getMmaVariants() { return kMmaVariants; }

const MmaVariant *kaio::ptx::lookupMma(MMAShape shape, PTXType a, PTXType b,
                                       PTXType acc) {
  for (const MmaVariant &v : kMmaVariants)
    if (v.shape == shape && v.aType == a && v.bType == b && v.accType == acc)
      return &v;
  return nullptr;
}

unsigned kaio::ptx::getElementsPerRegister(PTXType type) {
  return 32 / getBitWidth(type);
}

// The m16n8kK fragments share one pattern (PTX ISA figures "MMA .m16n8k*
// fragment layout"): with g = lane / 4 and t = lane % 4, and e elements per
// 32-bit register, A's register r covers row g + 8 * (r % 2) and columns
// t * e .. t * e + e - 1, shifted by 4e for r >= 2; B's register r covers
// rows t * e + 4e * r .. in column g; the accumulator's element i sits at
// row g + 8 * (i / 2), column 2t + i % 2.
FragmentCoord kaio::ptx::getMmaACoord(const MmaVariant &v, unsigned lane,
                                      unsigned i) {
  unsigned e = getElementsPerRegister(v.aType);
  unsigned g = lane / 4, t = lane % 4, r = i / e, j = i % e;
  return {g + 8 * (r % 2), t * e + j + 4 * e * (r / 2)};
}

FragmentCoord kaio::ptx::getMmaBCoord(const MmaVariant &v, unsigned lane,
                                      unsigned i) {
  unsigned e = getElementsPerRegister(v.bType);
  unsigned g = lane / 4, t = lane % 4, r = i / e, j = i % e;
  return {t * e + j + 4 * e * r, g};
}

FragmentCoord kaio::ptx::getMmaAccCoord(const MmaVariant &v, unsigned lane,
                                        unsigned i) {
  (void)v;
  unsigned g = lane / 4, t = lane % 4;
  return {g + 8 * (i / 2), 2 * t + i % 2};
}
