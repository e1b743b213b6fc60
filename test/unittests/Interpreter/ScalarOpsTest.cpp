//===- ScalarOpsTest.cpp - per-thread instruction semantics ---------------===//
//
// Each test runs a one-thread kernel whose ops store their results as 32-bit
// words, and compares them with values worked out from the PTX ISA.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "Kaio/Interpreter/FloatSemantics.h"

#include <algorithm>
#include <cmath>

using namespace kaio::interp;
using namespace kaio::interp::test;

namespace {

class ScalarOpsTest : public InterpreterTest {};

/// `ptx.st` of register `v` of type `ty` to word `i` of %out.
std::string st(unsigned i, llvm::StringRef v, llvm::StringRef ty = "i32") {
  llvm::StringRef kind = ty == "f32"                    ? "f32"
                         : ty == "i64" || ty == "f64"   ? "b64"
                         : ty == "i16" || ty == "f16" ||
                                 ty == "bf16"           ? "b16"
                                                        : "b32";
  return ("  ptx.st global " + kind + " [%out + " + llvm::Twine(4 * i) +
          "], " + v + " : i64, " + ty + "\n")
      .str();
}

TEST_F(ScalarOpsTest, IntegerArithmetic) {
  std::vector<uint32_t> v = runOps(R"(
  %max = ptx.constant 2147483647 : i32
  %one = ptx.constant 1 : i32
  %m7 = ptx.constant -7 : i32
  %two = ptx.constant 2 : i32
  %forty = ptx.constant 40 : i32
  %r0 = ptx.add s32 %max, %one : i32
  %r1 = ptx.add sat s32 %max, %one : i32
  %r2 = ptx.div s32 %m7, %two : i32
  %r3 = ptx.rem s32 %m7, %two : i32
  %r4 = ptx.mul hi s32 %m7, %max : i32
  %r5 = ptx.mul hi u32 %m7, %max : i32
  %r6 = ptx.shr s32 %m7, %two : i32
  %r7 = ptx.shr u32 %m7, %two : i32
  %r8 = ptx.shl b32 %max, %forty : i32
  %r9 = ptx.min s32 %m7, %two : i32
  %r10 = ptx.min u32 %m7, %two : i32
  %r11 = ptx.mad lo s32 %m7, %two, %max : i32
  %r12 = ptx.abs s32 %m7 : i32
  %r13 = ptx.neg s32 %m7 : i32
  %r14 = ptx.div u32 %m7, %two : i32
  %r15 = ptx.sub sat s32 %m7, %max : i32
  %w = ptx.mul wide s32 %m7, %two : (i32, i32) -> i64
  %wu = ptx.mul wide u32 %m7, %two : (i32, i32) -> i64
  %s16a = ptx.constant 300 : i16
  %s16 = ptx.mul lo u16 %s16a, %s16a : i16
)" + st(0, "%r0") + st(1, "%r1") + st(2, "%r2") + st(3, "%r3") +
                                       st(4, "%r4") + st(5, "%r5") +
                                       st(6, "%r6") + st(7, "%r7") +
                                       st(8, "%r8") + st(9, "%r9") +
                                       st(10, "%r10") + st(11, "%r11") +
                                       st(12, "%r12") + st(13, "%r13") +
                                       st(14, "%r14") + st(15, "%r15") +
                                       st(16, "%w", "i64") +
                                       st(18, "%wu", "i64") +
                                       st(20, "%s16", "i16"),
                                   21);
  EXPECT_EQ(v[0], 0x80000000u);
  EXPECT_EQ(v[1], 0x7fffffffu);
  EXPECT_EQ(int32_t(v[2]), -3);
  EXPECT_EQ(int32_t(v[3]), -1);
  EXPECT_EQ(v[4], 0xfffffffcu);
  EXPECT_EQ(v[5], 0x7ffffffbu);
  EXPECT_EQ(int32_t(v[6]), -2);
  EXPECT_EQ(v[7], 0x3ffffffeu);
  EXPECT_EQ(v[8], 0u);
  EXPECT_EQ(int32_t(v[9]), -7);
  EXPECT_EQ(v[10], 2u);
  EXPECT_EQ(v[11], 2147483633u);
  EXPECT_EQ(v[12], 7u);
  EXPECT_EQ(v[13], 7u);
  EXPECT_EQ(v[14], 0xfffffff9u / 2);
  EXPECT_EQ(v[15], 0x80000000u); // -7 - INT_MAX saturates to INT_MIN
  EXPECT_EQ(uint64_t(v[16]) | uint64_t(v[17]) << 32, uint64_t(-14));
  EXPECT_EQ(uint64_t(v[18]) | uint64_t(v[19]) << 32, 0xfffffff9ull * 2);
  EXPECT_EQ(v[20], (300u * 300u) & 0xffff);
}

TEST_F(ScalarOpsTest, BitManipulation) {
  std::vector<uint32_t> v = runOps(R"(
  %a = ptx.constant 0x332211F0 : i32
  %b = ptx.constant 0x77665544 : i32
  %f0 = ptx.constant 0xF0 : i32
  %four = ptx.constant 4 : i32
  %zero = ptx.constant 0 : i32
  %eight = ptx.constant 8 : i32
  %ff = ptx.constant 0xFF : i32
  %x12 = ptx.constant 0x12345678 : i32
  %r0 = ptx.popc b32 %a : i32
  %r1 = ptx.clz b32 %f0 : i32
  %r2 = ptx.brev b32 %f0 : i32
  %r3 = ptx.bfe s32 %f0, %four, %four : i32
  %r4 = ptx.bfe u32 %f0, %four, %four : i32
  %r5 = ptx.bfe s32 %f0, %four, %zero : i32
  %r6 = ptx.bfi b32 %ff, %x12, %eight, %eight : i32
  %s1 = ptx.constant 0x5410 : i32
  %r7 = ptx.prmt b32 %a, %b, %s1 : i32
  %s2 = ptx.constant 0x0008 : i32
  %r8 = ptx.prmt b32 %a, %b, %s2 : i32
  %one = ptx.constant 1 : i32
  %two = ptx.constant 2 : i32
  %r9 = ptx.prmt f4e b32 %a, %b, %one : i32
  %r10 = ptx.prmt b4e b32 %a, %b, %zero : i32
  %r11 = ptx.prmt rc8 b32 %a, %b, %two : i32
  %r12 = ptx.prmt ecl b32 %a, %b, %one : i32
  %r13 = ptx.prmt ecr b32 %a, %b, %two : i32
  %r14 = ptx.prmt rc16 b32 %a, %b, %one : i32
  %r15 = ptx.lop3 b32 %a, %b, %x12, 232 : i32
  %r16 = ptx.lop3 b32 %a, %b, %x12, 150 : i32
  %r17 = ptx.clz b32 %zero : i32
  %w = ptx.constant -9223372036854775807 : i64
  %r18 = ptx.popc b64 %w : (i64) -> i32
  %r19 = ptx.not b32 %a : i32
  %m1 = ptx.constant -1 : i32
  %lt = ptx.setp lt s32 %m1, %one : i32
  %lo = ptx.setp lo u32 %m1, %one : i32
  %r20 = ptx.selp b32 %a, %b, %lt : i32
  %r21 = ptx.selp b32 %a, %b, %lo : i32
  %both = ptx.setp lt and s32 %m1, %one, %lo : i32
  %either = ptx.setp lt or s32 %m1, %one, %lo : i32
  %r22 = ptx.selp b32 %one, %zero, %both : i32
  %r23 = ptx.selp b32 %one, %zero, %either : i32
)" + st(0, "%r0") + st(1, "%r1") + st(2, "%r2") + st(3, "%r3") +
                                       st(4, "%r4") + st(5, "%r5") +
                                       st(6, "%r6") + st(7, "%r7") +
                                       st(8, "%r8") + st(9, "%r9") +
                                       st(10, "%r10") + st(11, "%r11") +
                                       st(12, "%r12") + st(13, "%r13") +
                                       st(14, "%r14") + st(15, "%r15") +
                                       st(16, "%r16") + st(17, "%r17") +
                                       st(18, "%r18") + st(19, "%r19") +
                                       st(20, "%r20") + st(21, "%r21") +
                                       st(22, "%r22") + st(23, "%r23"),
                                   24);
  const uint32_t a = 0x332211F0, b = 0x77665544, c = 0x12345678;
  EXPECT_EQ(v[0], uint32_t(__builtin_popcount(a)));
  EXPECT_EQ(v[1], 24u);
  EXPECT_EQ(v[2], 0x0F000000u);
  EXPECT_EQ(v[3], 0xffffffffu); // field 0xF, sign-extended
  EXPECT_EQ(v[4], 0xFu);
  EXPECT_EQ(v[5], 0u);
  EXPECT_EQ(v[6], 0x1234ff78u);
  EXPECT_EQ(v[7], 0x554411F0u);
  EXPECT_EQ(v[8], 0xF0F0F0FFu); // selector 8: byte 0 with its sign bit spread
  EXPECT_EQ(v[9], 0x44332211u);
  EXPECT_EQ(v[10], 0x556677F0u);
  EXPECT_EQ(v[11], 0x22222222u);
  EXPECT_EQ(v[12], 0x33221111u);
  EXPECT_EQ(v[13], 0x222211F0u);
  EXPECT_EQ(v[14], 0x33223322u);
  EXPECT_EQ(v[15], (a & b) | (a & c) | (b & c)); // 0xE8: majority
  EXPECT_EQ(v[16], a ^ b ^ c);                   // 0x96: xor3
  EXPECT_EQ(v[17], 32u);
  EXPECT_EQ(v[18], 2u);
  EXPECT_EQ(v[19], ~a);
  EXPECT_EQ(v[20], a); // -1 < 1 signed
  EXPECT_EQ(v[21], b); // 0xffffffff < 1 unsigned is false
  EXPECT_EQ(v[22], 0u);
  EXPECT_EQ(v[23], 1u);
}

TEST_F(ScalarOpsTest, HalfPrecisionRoundsToNearestEven) {
  std::vector<uint32_t> v = runOps(R"(
  %a = ptx.constant 2048.0 : f16
  %b = ptx.constant 1.0 : f16
  %c = ptx.constant 2050.0 : f16
  %r0 = ptx.add f16 %a, %b : f16
  %r1 = ptx.add f16 %c, %b : f16
  %e = ptx.constant 1.0009765625 : f16
  %zero = ptx.constant 0.0 : f16
  %r2 = ptx.fma rn f16 %e, %e, %zero : f16
  %big = ptx.constant 60000.0 : f16
  %r3 = ptx.add f16 %big, %big : f16
  %r4 = ptx.mul sat f16 %big, %b : f16
  %ab = ptx.pack b32 %a, %c : f16, f16 -> vector<2xf16>
  %bb = ptx.pack b32 %b, %b : f16, f16 -> vector<2xf16>
  %r5 = ptx.add f16x2 %ab, %bb : vector<2xf16>
  %x = ptx.constant 1.0 : bf16
  %y = ptx.constant 0.00390625 : bf16
  %r6 = ptx.add bf16 %x, %y : bf16
  %t = ptx.constant 3.0 : bf16
  %r7 = ptx.mul bf16 %t, %t : bf16
  %h = ptx.constant -0.0 : f16
  %r8 = ptx.max f16 %h, %zero : f16
  %r9 = ptx.min f16 %h, %zero : f16
)" + st(0, "%r0", "f16") + st(1, "%r1", "f16") +
                                       st(2, "%r2", "f16") + st(3, "%r3", "f16") +
                                       st(4, "%r4", "f16") +
                                       st(5, "%r5", "vector<2xf16>") +
                                       st(6, "%r6", "bf16") + st(7, "%r7", "bf16") +
                                       st(8, "%r8", "f16") + st(9, "%r9", "f16"),
                                   10);
  EXPECT_EQ(v[0], f32ToF16(2048.0f)); // 2049 ties to even 2048
  EXPECT_EQ(v[1], f32ToF16(2052.0f)); // 2051 ties to even 2052
  // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 rounds to 1 + 2^-9.
  EXPECT_EQ(v[2], 0x3c02u);
  EXPECT_EQ(v[3], 0x7c00u); // overflow to +inf
  EXPECT_EQ(v[4], 0x3c00u); // .sat clamps to 1
  EXPECT_EQ(v[5], uint32_t(f32ToF16(2048.0f)) | uint32_t(f32ToF16(2052.0f)) << 16);
  EXPECT_EQ(v[6], 0x3f80u); // 1 + 2^-8 ties to even in bf16
  EXPECT_EQ(v[7], 0x4110u); // 9.0
  EXPECT_EQ(v[8], 0x0000u);
  EXPECT_EQ(v[9], 0x8000u);
}

TEST_F(ScalarOpsTest, CvtRoundingModes) {
  std::vector<uint32_t> v = runOps(R"(
  %t = ptx.constant 1.000244140625 : f32
  %r0 = ptx.cvt rn f16 f32 %t : f32 -> f16
  %r1 = ptx.cvt rz f16 f32 %t : f32 -> f16
  %r2 = ptx.cvt rp f16 f32 %t : f32 -> f16
  %nt = ptx.neg f32 %t : f32
  %r3 = ptx.cvt rm f16 f32 %nt : f32 -> f16
  %h25 = ptx.constant 2.5 : f32
  %h35 = ptx.constant 3.5 : f32
  %mh25 = ptx.constant -2.5 : f32
  %m27 = ptx.constant -2.7 : f32
  %r4 = ptx.cvt rni s32 f32 %h25 : f32 -> i32
  %r5 = ptx.cvt rni s32 f32 %h35 : f32 -> i32
  %r6 = ptx.cvt rmi s32 f32 %mh25 : f32 -> i32
  %r7 = ptx.cvt rpi s32 f32 %mh25 : f32 -> i32
  %r8 = ptx.cvt rzi s32 f32 %m27 : f32 -> i32
  %nan = ptx.constant 0x7FC00000 : f32
  %r9 = ptx.cvt rzi s32 f32 %nan : f32 -> i32
  %huge = ptx.constant 1.0e10 : f32
  %r10 = ptx.cvt rzi s32 f32 %huge : f32 -> i32
  %nhuge = ptx.neg f32 %huge : f32
  %r11 = ptx.cvt rzi s32 f32 %nhuge : f32 -> i32
  %m5 = ptx.constant -5.0 : f32
  %r12 = ptx.cvt rzi u32 f32 %m5 : f32 -> i32
  %f300 = ptx.constant 300.0 : f32
  %r13 = ptx.cvt rni u8 f32 %f300 : f32 -> i32
  %i200 = ptx.constant 200 : i32
  %r14 = ptx.cvt sat s8 s32 %i200 : i32 -> i32
  %r15 = ptx.cvt s8 s32 %i200 : i32 -> i32
  %im5 = ptx.constant -5 : i32
  %r16 = ptx.cvt sat u16 s32 %im5 : i32 -> i32
  %l = ptx.constant 9007199254740993 : i64
  %r17 = ptx.cvt rn f32 s64 %l : i64 -> f32
  %r18 = ptx.cvt rp f32 s64 %l : i64 -> f32
  %tie = ptx.constant 1.00048828125 : f32
  %r19 = ptx.cvt rna tf32 f32 %tie : f32 -> i32
  %f15 = ptx.constant 1.5 : f32
  %r20 = ptx.cvt sat f32 f32 %f15 : f32 -> f32
  %r21 = ptx.cvt sat f32 f32 %nan : f32 -> f32
  %r22 = ptx.cvt rni f32 f32 %h25 : f32 -> f32
  %hh = ptx.constant 0.333251953125 : f16
  %r23 = ptx.cvt f32 f16 %hh : f16 -> f32
  %one = ptx.constant 1.0 : f32
  %two = ptx.constant 2.0 : f32
  %r24 = ptx.cvt_pack rn f16x2 %one, %two : vector<2xf16>
  %d = ptx.constant 0.1 : f64
  %r25 = ptx.cvt rz f32 f64 %d : f64 -> f32
  %r26 = ptx.cvt rp f32 f64 %d : f64 -> f32
  %mone = ptx.constant -1.0 : f32
  %r27 = ptx.cvt rn relu f16 f32 %mone : f32 -> f16
  %u = ptx.constant -1 : i32
  %r28 = ptx.cvt rz f32 u32 %u : i32 -> f32
  %r29 = ptx.cvt rn bf16 f32 %t : f32 -> bf16
)" + st(0, "%r0", "f16") + st(1, "%r1", "f16") +
                                       st(2, "%r2", "f16") + st(3, "%r3", "f16") +
                                       st(4, "%r4") + st(5, "%r5") + st(6, "%r6") +
                                       st(7, "%r7") + st(8, "%r8") + st(9, "%r9") +
                                       st(10, "%r10") + st(11, "%r11") +
                                       st(12, "%r12") + st(13, "%r13") +
                                       st(14, "%r14") + st(15, "%r15") +
                                       st(16, "%r16") + st(17, "%r17", "f32") +
                                       st(18, "%r18", "f32") + st(19, "%r19") +
                                       st(20, "%r20", "f32") +
                                       st(21, "%r21", "f32") +
                                       st(22, "%r22", "f32") +
                                       st(23, "%r23", "f32") +
                                       st(24, "%r24", "vector<2xf16>") +
                                       st(25, "%r25", "f32") +
                                       st(26, "%r26", "f32") +
                                       st(27, "%r27", "f16") +
                                       st(28, "%r28", "f32") +
                                       st(29, "%r29", "bf16"),
                                   30);
  // 1 + 2^-12 lies a quarter f16 ulp above 1.
  EXPECT_EQ(v[0], 0x3c00u);
  EXPECT_EQ(v[1], 0x3c00u);
  EXPECT_EQ(v[2], 0x3c01u);
  EXPECT_EQ(v[3], 0xbc01u);
  EXPECT_EQ(int32_t(v[4]), 2);
  EXPECT_EQ(int32_t(v[5]), 4);
  EXPECT_EQ(int32_t(v[6]), -3);
  EXPECT_EQ(int32_t(v[7]), -2);
  EXPECT_EQ(int32_t(v[8]), -2);
  EXPECT_EQ(v[9], 0u);           // NaN → 0
  EXPECT_EQ(v[10], 0x7fffffffu); // saturates
  EXPECT_EQ(v[11], 0x80000000u);
  EXPECT_EQ(v[12], 0u);
  EXPECT_EQ(v[13], 255u);
  EXPECT_EQ(v[14], 127u);
  EXPECT_EQ(v[15], 0xffffffc8u); // 200 wraps to -56, sign-extended
  EXPECT_EQ(v[16], 0u);
  EXPECT_EQ(asF32(v[17]), 9007199254740992.0f);
  EXPECT_EQ(asF32(v[18]), std::nextafter(9007199254740992.0f, INFINITY));
  EXPECT_EQ(v[19], 0x3f802000u); // tie rounds away: 1 + 2^-10
  EXPECT_EQ(asF32(v[20]), 1.0f);
  EXPECT_EQ(v[21], 0u);
  EXPECT_EQ(asF32(v[22]), 2.0f);
  EXPECT_EQ(asF32(v[23]), 0.333251953125f);
  EXPECT_EQ(v[24], 0x3c004000u); // hi = 1.0, lo = 2.0
  EXPECT_EQ(asF32(v[25]), 0.099999994f);
  EXPECT_EQ(asF32(v[26]), 0.100000001f);
  EXPECT_EQ(v[27], 0u); // relu
  EXPECT_EQ(asF32(v[28]), 4294967040.0f);
  EXPECT_EQ(v[29], 0x3f80u);
}

TEST_F(ScalarOpsTest, F32DirectedRoundingAndSpecialCases) {
  std::vector<uint32_t> v = runOps(R"(
  %one = ptx.constant 1.0 : f32
  %tiny = ptx.constant 9.31322574615478515625e-10 : f32
  %three = ptx.constant 3.0 : f32
  %r0 = ptx.add rz f32 %one, %tiny : f32
  %r1 = ptx.add rp f32 %one, %tiny : f32
  %r2 = ptx.div rz f32 %one, %three : f32
  %r3 = ptx.div rp f32 %one, %three : f32
  %r4 = ptx.div rn f32 %one, %three : f32
  %two = ptx.constant 2.0 : f32
  %r5 = ptx.sqrt rz f32 %two : f32
  %r6 = ptx.sqrt rp f32 %two : f32
  %nan = ptx.constant 0x7FC00001 : f32
  %r7 = ptx.min f32 %nan, %one : f32
  %r8 = ptx.min NaN f32 %nan, %one : f32
  %nz = ptx.constant -0.0 : f32
  %pz = ptx.constant 0.0 : f32
  %r9 = ptx.min f32 %pz, %nz : f32
  %r10 = ptx.max f32 %nz, %pz : f32
  %r11 = ptx.add f32 %nan, %one : f32
  %lt = ptx.setp lt f32 %nan, %one : f32
  %ltu = ptx.setp ltu f32 %nan, %one : f32
  %ne = ptx.setp ne f32 %nan, %nan : f32
  %neu = ptx.setp neu f32 %nan, %nan : f32
  %num = ptx.setp num f32 %one, %one : f32
  %c1 = ptx.constant 1 : i32
  %c0 = ptx.constant 0 : i32
  %r12 = ptx.selp b32 %c1, %c0, %lt : i32
  %r13 = ptx.selp b32 %c1, %c0, %ltu : i32
  %r14 = ptx.selp b32 %c1, %c0, %ne : i32
  %r15 = ptx.selp b32 %c1, %c0, %neu : i32
  %r16 = ptx.selp b32 %c1, %c0, %num : i32
  %sub = ptx.constant 1.0e-40 : f32
  %r17 = ptx.add ftz f32 %sub, %pz : f32
  %r18 = ptx.add f32 %sub, %pz : f32
  %big = ptx.constant 3.0e38 : f32
  %r19 = ptx.mul rz f32 %big, %two : f32
  %r20 = ptx.mul rn f32 %big, %two : f32
  %r21 = ptx.fma rm f32 %one, %tiny, %one : f32
  %half = ptx.constant 0.5 : f32
  %r22 = ptx.add sat f32 %half, %one : f32
  %dx = ptx.constant 1.0 : f64
  %dy = ptx.constant 3.0 : f64
  %r23 = ptx.div rz f64 %dx, %dy : f64
  %r25 = ptx.div rp f64 %dx, %dy : f64
)" + st(0, "%r0", "f32") + st(1, "%r1", "f32") +
                                       st(2, "%r2", "f32") + st(3, "%r3", "f32") +
                                       st(4, "%r4", "f32") + st(5, "%r5", "f32") +
                                       st(6, "%r6", "f32") + st(7, "%r7", "f32") +
                                       st(8, "%r8", "f32") + st(9, "%r9", "f32") +
                                       st(10, "%r10", "f32") +
                                       st(11, "%r11", "f32") + st(12, "%r12") +
                                       st(13, "%r13") + st(14, "%r14") +
                                       st(15, "%r15") + st(16, "%r16") +
                                       st(17, "%r17", "f32") +
                                       st(18, "%r18", "f32") +
                                       st(19, "%r19", "f32") +
                                       st(20, "%r20", "f32") +
                                       st(21, "%r21", "f32") +
                                       st(22, "%r22", "f32") +
                                       st(24, "%r23", "f64") +
                                       st(26, "%r25", "f64"),
                                   28);
  const float up = std::nextafter(1.0f, 2.0f);
  EXPECT_EQ(asF32(v[0]), 1.0f);
  EXPECT_EQ(asF32(v[1]), up);
  EXPECT_EQ(v[3], v[2] + 1); // 1/3 is inexact: rp is one ulp above rz
  EXPECT_EQ(asF32(v[4]), 1.0f / 3.0f);
  EXPECT_EQ(v[6], v[5] + 1);
  EXPECT_TRUE(asF32(v[5]) * asF32(v[5]) < 2.0f);
  EXPECT_EQ(asF32(v[7]), 1.0f);
  EXPECT_EQ(v[8], 0x7fffffffu); // canonical NaN
  EXPECT_EQ(v[9], 0x80000000u);
  EXPECT_EQ(v[10], 0x00000000u);
  EXPECT_EQ(v[11], 0x7fffffffu);
  EXPECT_EQ(v[12], 0u);
  EXPECT_EQ(v[13], 1u);
  EXPECT_EQ(v[14], 0u);
  EXPECT_EQ(v[15], 1u);
  EXPECT_EQ(v[16], 1u);
  EXPECT_EQ(v[17], 0u); // subnormal flushed
  EXPECT_EQ(asF32(v[18]), 1.0e-40f);
  EXPECT_EQ(asF32(v[19]), std::numeric_limits<float>::max());
  EXPECT_TRUE(std::isinf(asF32(v[20])));
  EXPECT_EQ(asF32(v[21]), 1.0f);
  EXPECT_EQ(asF32(v[22]), 1.0f);
  uint64_t rz = uint64_t(v[24]) | uint64_t(v[25]) << 32;
  uint64_t rp = uint64_t(v[26]) | uint64_t(v[27]) << 32;
  EXPECT_EQ(rp, rz + 1);
}

TEST_F(ScalarOpsTest, ApproximateFunctionsWithinPtxError) {
  std::vector<uint32_t> v = runOps(R"(
  %x = ptx.constant 0.5 : f32
  %three = ptx.constant 3.0 : f32
  %eight = ptx.constant 8.0 : f32
  %four = ptx.constant 4.0 : f32
  %r0 = ptx.ex2 approx f32 %three : f32
  %r1 = ptx.lg2 approx f32 %eight : f32
  %r2 = ptx.sin approx f32 %x : f32
  %r3 = ptx.cos approx f32 %x : f32
  %r4 = ptx.tanh approx f32 %x : f32
  %r5 = ptx.rcp approx f32 %four : f32
  %r6 = ptx.rsqrt approx f32 %four : f32
  %r7 = ptx.sqrt approx f32 %four : f32
  %h = ptx.constant 1.5 : f16
  %r8 = ptx.ex2 approx f16 %h : f16
  %r9 = ptx.div approx f32 %three, %four : f32
  %r10 = ptx.rcp rn f32 %three : f32
)" + st(0, "%r0", "f32") + st(1, "%r1", "f32") +
                                       st(2, "%r2", "f32") + st(3, "%r3", "f32") +
                                       st(4, "%r4", "f32") + st(5, "%r5", "f32") +
                                       st(6, "%r6", "f32") + st(7, "%r7", "f32") +
                                       st(8, "%r8", "f16") + st(9, "%r9", "f32") +
                                       st(10, "%r10", "f32"),
                                   11);
  EXPECT_NEAR(asF32(v[0]), 8.0f, 8.0f * 4e-7f);
  EXPECT_NEAR(asF32(v[1]), 3.0f, 1e-6f);
  EXPECT_NEAR(asF32(v[2]), std::sin(0.5f), 1e-6f);
  EXPECT_NEAR(asF32(v[3]), std::cos(0.5f), 1e-6f);
  EXPECT_NEAR(asF32(v[4]), std::tanh(0.5f), 1e-6f);
  EXPECT_EQ(asF32(v[5]), 0.25f);
  EXPECT_EQ(asF32(v[6]), 0.5f);
  EXPECT_EQ(asF32(v[7]), 2.0f);
  EXPECT_NEAR(f16ToF32(uint16_t(v[8])), std::exp2(1.5f), 2e-3f);
  EXPECT_EQ(asF32(v[9]), 0.75f);
  EXPECT_EQ(asF32(v[10]), 1.0f / 3.0f);
}

TEST_F(ScalarOpsTest, AtomicRacesResolveToASerialOrder) {
  // 512 threads in 2 blocks: atom.add returns every old value exactly once;
  // f32 adds of 0.5, min/max and exch land as if applied one by one.
  Interpreter &in = load(R"(
ptx.entry @k(%cnt: i64, %olds: i64) {
  %tid = ptx.sreg tid.x : i32
  %ctaid = ptx.sreg ctaid.x : i32
  %ntid = ptx.sreg ntid.x : i32
  %i = ptx.mad lo s32 %ctaid, %ntid, %tid : i32
  %one = ptx.constant 1 : i32
  %old = ptx.atom global add u32 [%cnt], %one : i64, i32 -> i32
  %c4 = ptx.constant 4 : i32
  %off = ptx.mul wide u32 %i, %c4 : (i32, i32) -> i64
  %p = ptx.add s64 %olds, %off : i64
  ptx.st global b32 [%p], %old : i64, i32
  %h = ptx.constant 0.5 : f32
  ptx.red global add f32 [%cnt + 4], %h : i64, f32
  %c300 = ptx.constant 300 : i32
  %neg = ptx.sub s32 %c300, %i : i32
  %m1 = ptx.atom global max s32 [%cnt + 8], %neg : i64, i32 -> i32
  %m2 = ptx.atom global min s32 [%cnt + 12], %neg : i64, i32 -> i32
  %c3 = ptx.constant 3 : i32
  %m3 = ptx.atom global inc u32 [%cnt + 16], %c3 : i64, i32 -> i32
  %zero = ptx.constant 0 : i32
  %m4 = ptx.atom global cas b32 [%cnt + 20], %zero, %i : i64, i32, i32 -> i32
  %hh = ptx.constant 1.0 : f16
  %pk = ptx.pack b32 %hh, %hh : f16, f16 -> vector<2xf16>
  %m5 = ptx.atom global add f16x2 [%cnt + 24], %pk : i64, vector<2xf16> -> vector<2xf16>
  %w = ptx.constant 3 : i64
  %m6 = ptx.atom global or b64 [%cnt + 32], %w : i64, i64 -> i64
  ptx.ret
})");
  uint64_t cnt = in.allocGlobal(40), olds = in.allocGlobal(512 * 4);
  std::vector<uint32_t> init(10, 0);
  init[3] = 1000; // min starts high
  in.write(cnt, init);
  LaunchResult r = in.launch("k", {2}, {256}, {cnt, olds});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> c(10), o(512);
  in.read(cnt, c);
  in.read(olds, o);
  EXPECT_EQ(c[0], 512u);
  std::sort(o.begin(), o.end());
  for (uint32_t i = 0; i < 512; ++i)
    ASSERT_EQ(o[i], i);
  EXPECT_EQ(asF32(c[1]), 256.0f);
  EXPECT_EQ(int32_t(c[2]), 300);
  EXPECT_EQ(int32_t(c[3]), 300 - 511);
  EXPECT_EQ(c[4], 512u % 4); // inc wraps to 0 after 3
  EXPECT_EQ(c[5], 1u); // 0 -> 0 (thread 0), then 0 -> 1 (thread 1) wins
  EXPECT_EQ(c[6], uint32_t(f32ToF16(512.0f)) * 0x10001u);
  EXPECT_EQ(c[8], 3u);
}

TEST_F(ScalarOpsTest, BlockArgumentSwapsAreParallelCopies) {
  // Fibonacci with a swap through block arguments: (a, b) -> (b, a + b).
  std::vector<uint32_t> v = runOps(R"(
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  %n = ptx.constant 20 : i32
  ptx.bra ^loop(%zero, %one, %zero : i32, i32, i32)
^loop(%a: i32, %b: i32, %i: i32):
  %s = ptx.add s32 %a, %b : i32
  %i1 = ptx.add s32 %i, %one : i32
  %more = ptx.setp lt s32 %i1, %n : i32
  ptx.cond_bra %more, ^loop(%b, %s, %i1 : i32, i32, i32), ^done
^done:
)" + st(0, "%a") + st(1, "%b"),
                                   2);
  EXPECT_EQ(v[0], 4181u); // fib(19)
  EXPECT_EQ(v[1], 6765u); // fib(20)
}

TEST_F(ScalarOpsTest, SwapThroughBlockArgumentsUsesTemporaries) {
  std::vector<uint32_t> v = runOps(R"(
  %x = ptx.constant 5 : i32
  %y = ptx.constant 9 : i32
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  %three = ptx.constant 4 : i32
  ptx.bra ^loop(%x, %y, %zero : i32, i32, i32)
^loop(%a: i32, %b: i32, %i: i32):
  %i1 = ptx.add s32 %i, %one : i32
  %more = ptx.setp lt s32 %i1, %three : i32
  ptx.cond_bra %more, ^loop(%b, %a, %i1 : i32, i32, i32), ^done
^done:
)" + st(0, "%a") + st(1, "%b"),
                                   2);
  // (5,9) -> (9,5) -> (5,9) -> (9,5); sequential copies would give (9,9).
  EXPECT_EQ(v[0], 9u);
  EXPECT_EQ(v[1], 5u);
}

TEST_F(ScalarOpsTest, GuardsLocalAndGenericMemory) {
  std::vector<uint32_t> v = runOps(R"(
  %t = ptx.constant 1 : i1
  %f = ptx.constant 0 : i1
  %a = ptx.constant 11 : i32
  %b = ptx.constant 22 : i32
  %zero64 = ptx.constant 8 : i64
  ptx.st local b32 [%zero64], %a : i64, i32
  ptx.st if not %t local b32 [%zero64], %b : i64, i32
  %l = ptx.ld local b32 [%zero64] : i64 -> i32
  %g = ptx.cvta local %zero64 : i64 -> i64
  ptx.st generic b32 [%g + 4], %b : i64, i32
  %l2 = ptx.ld local b32 [%zero64 + 4] : i64 -> i32
  %sum = ptx.add if %f s32 %a, %b : i32
  %sum2 = ptx.add if not %f s32 %a, %b : i32
)" + st(0, "%l") + st(1, "%l2") + st(2, "%sum2"),
                                   3);
  EXPECT_EQ(v[0], 11u);
  EXPECT_EQ(v[1], 22u);
  EXPECT_EQ(v[2], 33u);
}

TEST_F(ScalarOpsTest, SpecialRegisters) {
  Interpreter &in = load(R"(
ptx.entry @k(%out: i64) {
  %tx = ptx.sreg tid.x : i32
  %ty = ptx.sreg tid.y : i32
  %tz = ptx.sreg tid.z : i32
  %nx = ptx.sreg ntid.x : i32
  %ny = ptx.sreg ntid.y : i32
  %cy = ptx.sreg ctaid.y : i32
  %cz = ptx.sreg ctaid.z : i32
  %gz = ptx.sreg nctaid.z : i32
  %lane = ptx.sreg laneid : i32
  %warp = ptx.sreg warpid : i32
  %lt = ptx.sreg lanemask_lt : i32
  %lin0 = ptx.mad lo u32 %tz, %ny, %ty : i32
  %lin = ptx.mad lo u32 %lin0, %nx, %tx : i32
  %c4 = ptx.constant 4 : i32
  %c32 = ptx.constant 32 : i32
  %c2 = ptx.constant 2 : i32
  %blk = ptx.mad lo u32 %cz, %c2, %cy : i32
  %row = ptx.mad lo u32 %blk, %c32, %lin : i32
  %off = ptx.mul wide u32 %row, %c4 : (i32, i32) -> i64
  %base = ptx.add s64 %out, %off : i64
  %c1280 = ptx.constant 1280 : i64
  %p1 = ptx.add s64 %base, %c1280 : i64
  %p2 = ptx.add s64 %p1, %c1280 : i64
  %p3 = ptx.add s64 %p2, %c1280 : i64
  ptx.st global b32 [%base], %lane : i64, i32
  ptx.st global b32 [%p1], %warp : i64, i32
  ptx.st global b32 [%p2], %lt : i64, i32
  ptx.st global b32 [%p3], %gz : i64, i32
  ptx.ret
})");
  // Four arrays of 10 blocks x 32 entries (each block its own slice).
  uint64_t out = in.allocGlobal(4 * 1280);
  // Block (4, 2, 3) = 24 threads: one partial warp.
  LaunchResult r = in.launch("k", {1, 2, 5}, {4, 2, 3}, {out});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> v(4 * 320);
  in.read(out, v);
  for (uint32_t b = 0; b < 10; ++b)
    for (uint32_t t = 0; t < 24; ++t) {
      uint32_t i = b * 32 + t;
      EXPECT_EQ(v[i], t);
      EXPECT_EQ(v[320 + i], 0u);
      EXPECT_EQ(v[640 + i], (1u << t) - 1);
      EXPECT_EQ(v[960 + i], 5u);
    }
}

} // namespace
