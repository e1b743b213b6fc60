//===- PTXInfoTest.cpp - the PTX fact tables ------------------------------===//

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"
#include <set>

using namespace mlir;
using namespace kaio::ptx;

namespace {

TEST(PTXInfoTest, Chips) {
  const ChipInfo *sm90a = lookupChip("sm_90a");
  ASSERT_NE(sm90a, nullptr);
  EXPECT_TRUE(sm90a->archSpecific);
  EXPECT_EQ(lookupChip("sm_70"), nullptr); // ptxas 13 has no sm_70
  EXPECT_TRUE(satisfies(*lookupChip("sm_90"), {80, 70}));
  EXPECT_FALSE(satisfies(*lookupChip("sm_75"), {80, 70}));
  PTXRequirement wgmma{90, 80, true};
  EXPECT_TRUE(satisfies(*sm90a, wgmma));
  EXPECT_FALSE(satisfies(*lookupChip("sm_90"), wgmma));
  EXPECT_FALSE(satisfies(*lookupChip("sm_100a"), wgmma));
  EXPECT_EQ(formatSM(wgmma), "sm_90a");
  EXPECT_EQ(formatISA(78), "7.8");
  EXPECT_EQ(parseISA("8.0"), 80u);
  EXPECT_FALSE(parseISA("8"));
  EXPECT_FALSE(parseISA("x.y"));
}

TEST(PTXInfoTest, RegisterCompatibility) {
  MLIRContext ctx;
  Builder b(&ctx);
  // Bit-typed registers hold any type of their size ...
  EXPECT_TRUE(isRegisterCompatible(PTXType::f32, b.getI32Type()));
  EXPECT_TRUE(isRegisterCompatible(PTXType::f16x2, b.getI32Type()));
  EXPECT_TRUE(isRegisterCompatible(PTXType::f16, b.getF16Type()));
  // ... but .f32 registers only float and bit instructions.
  EXPECT_TRUE(isRegisterCompatible(PTXType::b32, b.getF32Type()));
  EXPECT_FALSE(isRegisterCompatible(PTXType::u32, b.getF32Type()));
  EXPECT_FALSE(isRegisterCompatible(PTXType::s64, b.getI32Type()));
  EXPECT_FALSE(isRegisterCompatible(PTXType::u8, b.getI32Type()));
  EXPECT_TRUE(isRegisterCompatible(PTXType::u8, b.getI32Type(), true));
  EXPECT_FALSE(isRegisterCompatible(PTXType::f16, b.getF32Type(), true));
  EXPECT_TRUE(isRegisterCompatible(PTXType::pred, b.getI1Type()));
  EXPECT_FALSE(isRegisterCompatible(PTXType::b16, b.getI1Type()));
  EXPECT_FALSE(getRegisterClass(b.getI8Type()));
  EXPECT_EQ(getParamType(b.getI32Type()), PTXType::u32);
  EXPECT_EQ(getParamType(b.getF16Type()), PTXType::b16);
  EXPECT_FALSE(getParamType(b.getI1Type()));
}

TEST(PTXInfoTest, MmaTable) {
  const MmaVariant *f16 =
      lookupMma(MMAShape::m16n8k16, PTXType::f16, PTXType::f16, PTXType::f32);
  ASSERT_NE(f16, nullptr);
  EXPECT_EQ(f16->aRegs, 4u);
  EXPECT_EQ(f16->bRegs, 2u);
  EXPECT_EQ(f16->accRegs, 4u);
  EXPECT_EQ(f16->requirement.sm, 80u);
  const MmaVariant *k8 =
      lookupMma(MMAShape::m16n8k8, PTXType::f16, PTXType::f16, PTXType::f16);
  ASSERT_NE(k8, nullptr);
  EXPECT_EQ(k8->requirement.sm, 75u);
  EXPECT_NE(lookupMma(MMAShape::m16n8k32, PTXType::s8, PTXType::u8,
                      PTXType::s32),
            nullptr);
  EXPECT_EQ(lookupMma(MMAShape::m16n8k32, PTXType::f16, PTXType::f16,
                      PTXType::f32),
            nullptr);
  EXPECT_EQ(lookupMma(MMAShape::m16n8k16, PTXType::s8, PTXType::f16,
                      PTXType::s32),
            nullptr);
}

// Every variant's fragments must cover its matrices exactly once across the
// warp: A is 16 x K, B is K x 8, C/D 16 x 8.
TEST(PTXInfoTest, FragmentsCoverMatrices) {
  for (const MmaVariant &v : getMmaVariants()) {
    MmaShapeInfo s = getMmaShapeInfo(v.shape);
    std::set<std::pair<unsigned, unsigned>> a, b, c;
    unsigned aElems = v.aRegs * getElementsPerRegister(v.aType);
    unsigned bElems = v.bRegs * getElementsPerRegister(v.bType);
    unsigned cElems = v.accRegs * (v.accType == PTXType::f16 ? 2 : 1);
    for (unsigned lane = 0; lane < 32; ++lane) {
      for (unsigned i = 0; i < aElems; ++i) {
        FragmentCoord rc = getMmaACoord(v, lane, i);
        EXPECT_LT(rc.row, s.m);
        EXPECT_LT(rc.col, s.k);
        a.insert({rc.row, rc.col});
      }
      for (unsigned i = 0; i < bElems; ++i) {
        FragmentCoord rc = getMmaBCoord(v, lane, i);
        EXPECT_LT(rc.row, s.k);
        EXPECT_LT(rc.col, s.n);
        b.insert({rc.row, rc.col});
      }
      for (unsigned i = 0; i < cElems; ++i) {
        FragmentCoord rc = getMmaAccCoord(v, lane, i);
        c.insert({rc.row, rc.col});
      }
    }
    EXPECT_EQ(a.size(), s.m * s.k) << stringifyMMAShape(v.shape).str();
    EXPECT_EQ(b.size(), s.k * s.n) << stringifyMMAShape(v.shape).str();
    EXPECT_EQ(c.size(), s.m * s.n) << stringifyMMAShape(v.shape).str();
    EXPECT_EQ(32 * aElems, s.m * s.k);
    EXPECT_EQ(32 * bElems, s.k * s.n);
  }
}

// Spot checks against the PTX ISA's fragment figures.
TEST(PTXInfoTest, FragmentLayoutsMatchISA) {
  const MmaVariant *f16 =
      lookupMma(MMAShape::m16n8k16, PTXType::f16, PTXType::f16, PTXType::f32);
  // Lane 5: groupID 1, threadID_in_group 1.
  FragmentCoord a0 = getMmaACoord(*f16, 5, 0), a3 = getMmaACoord(*f16, 5, 3),
                a7 = getMmaACoord(*f16, 5, 7);
  EXPECT_EQ(a0.row, 1u);
  EXPECT_EQ(a0.col, 2u);
  EXPECT_EQ(a3.row, 9u); // a2, a3: row groupID + 8
  EXPECT_EQ(a3.col, 3u);
  EXPECT_EQ(a7.row, 9u); // a6, a7: row + 8, col + 8
  EXPECT_EQ(a7.col, 11u);
  FragmentCoord b2 = getMmaBCoord(*f16, 5, 2);
  EXPECT_EQ(b2.row, 10u); // b2: row threadID_in_group * 2 + 8
  EXPECT_EQ(b2.col, 1u);
  FragmentCoord c3 = getMmaAccCoord(*f16, 5, 3);
  EXPECT_EQ(c3.row, 9u);
  EXPECT_EQ(c3.col, 3u);

  const MmaVariant *tf32 = lookupMma(MMAShape::m16n8k8, PTXType::tf32,
                                     PTXType::tf32, PTXType::f32);
  FragmentCoord t2 = getMmaACoord(*tf32, 6, 2);
  EXPECT_EQ(t2.row, 1u); // a2: row groupID, col threadID_in_group + 4
  EXPECT_EQ(t2.col, 6u);

  const MmaVariant *s8 =
      lookupMma(MMAShape::m16n8k32, PTXType::s8, PTXType::s8, PTXType::s32);
  FragmentCoord s9 = getMmaACoord(*s8, 7, 9); // a9: register 2, byte 1
  EXPECT_EQ(s9.row, 1u);
  EXPECT_EQ(s9.col, 3u * 4 + 1 + 16);
}

TEST(PTXInfoTest, WgmmaTable) {
  const WgmmaVariant *f16 =
      lookupWgmma(PTXType::f32, PTXType::f16, PTXType::f16);
  ASSERT_NE(f16, nullptr);
  EXPECT_EQ(f16->k, 16u);
  EXPECT_EQ(f16->getAccRegs(256), 128u);
  EXPECT_TRUE(f16->isLegalN(40));
  EXPECT_TRUE(f16->has(WgmmaModifier::Transpose));
  const WgmmaVariant *packed =
      lookupWgmma(PTXType::f16, PTXType::e4m3, PTXType::e5m2);
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(packed->k, 32u);
  EXPECT_EQ(packed->getAccRegs(128), 32u);
  EXPECT_FALSE(packed->has(WgmmaModifier::Transpose));
  EXPECT_EQ(lookupWgmma(PTXType::f16, PTXType::bf16, PTXType::bf16), nullptr);
  const WgmmaVariant *mixed =
      lookupWgmma(PTXType::s32, PTXType::s8, PTXType::u8);
  ASSERT_NE(mixed, nullptr);
  EXPECT_EQ(mixed->requirement.isa, 84u);
  EXPECT_TRUE(mixed->requirement.archSpecific);
  for (unsigned n : {8u, 16u, 24u, 32u, 48u, 256u})
    EXPECT_TRUE(mixed->isLegalN(n)) << n;
  for (unsigned n : {0u, 12u, 40u, 56u, 264u})
    EXPECT_FALSE(mixed->isLegalN(n)) << n;
  for (const WgmmaVariant &v : getWgmmaVariants())
    EXPECT_EQ(v.aRegs * 32, 64 * v.k * getBitWidth(v.aType) / 128)
        << "A fragment of " << stringifyPTXType(v.aType).str();
}

TEST(PTXInfoTest, WgmmaDescriptor) {
  // The swizzle modes the layout table's 128-byte rows and the 32/64-byte
  // variants map to; the shifted swizzles of wider rows have no mode.
  EXPECT_EQ(getWgmmaSwizzle(Swizzle{}), WgmmaSwizzle::None);
  EXPECT_EQ(getWgmmaSwizzle(*getConflictFreeSwizzle(128)), WgmmaSwizzle::B128);
  EXPECT_EQ(getWgmmaSwizzle(Swizzle{2, 4, 3}), WgmmaSwizzle::B64);
  EXPECT_EQ(getWgmmaSwizzle(Swizzle{1, 4, 3}), WgmmaSwizzle::B32);
  EXPECT_EQ(getWgmmaSwizzle(*getConflictFreeSwizzle(256)), std::nullopt);

  // A 128B-swizzled K-major tile at 0x400: LBO 16 (unused by that mode),
  // SBO 1024 (8 rows of 128 bytes).
  std::optional<uint64_t> desc =
      makeWgmmaDescriptor(0x400, 16, 1024, *getConflictFreeSwizzle(128));
  ASSERT_TRUE(desc);
  EXPECT_EQ(*desc, 0x4000004000010040ull);
  WgmmaDescriptor fields = WgmmaDescriptor::decode(*desc);
  EXPECT_EQ(fields.startAddress, 0x400u);
  EXPECT_EQ(fields.leadingByteOffset, 16u);
  EXPECT_EQ(fields.strideByteOffset, 1024u);
  EXPECT_EQ(fields.baseOffset, 0u);
  EXPECT_EQ(fields.swizzle, WgmmaSwizzle::B128);
  EXPECT_EQ(fields.encode(), *desc);

  // Every field at its widest: bits 0-13, 16-29, 32-45 and 62-63.
  desc = makeWgmmaDescriptor(0x3fff0, 0x3fff0, 0x3fff0, Swizzle{});
  ASSERT_TRUE(desc);
  EXPECT_EQ(*desc, 0x00003fff3fff3fffull);
  WgmmaDescriptor top;
  top.baseOffset = 7;
  top.swizzle = WgmmaSwizzle::B32;
  EXPECT_EQ(top.encode(), 0xc00e000000000000ull);

  // Not multiples of 16, out of the 14-bit fields, a swizzled start off
  // the pattern's period, a swizzle wgmma cannot read.
  EXPECT_FALSE(makeWgmmaDescriptor(0x408, 16, 1024, Swizzle{}));
  EXPECT_FALSE(makeWgmmaDescriptor(0x400, 8, 1024, Swizzle{}));
  EXPECT_FALSE(makeWgmmaDescriptor(1u << 18, 16, 1024, Swizzle{}));
  EXPECT_FALSE(makeWgmmaDescriptor(0x200, 16, 1024, Swizzle{3, 4, 3}));
  EXPECT_TRUE(makeWgmmaDescriptor(0x200, 16, 512, Swizzle{2, 4, 3}));
  EXPECT_FALSE(makeWgmmaDescriptor(0x400, 16, 1024, Swizzle{3, 4, 4}));
}

} // namespace
