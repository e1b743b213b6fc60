//===- WarpOpsTest.cpp - shfl, vote, match, redux, mma, ldmatrix ----------===//

#include "TestUtils.h"

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "Kaio/Interpreter/FloatSemantics.h"

#include <cmath>
#include <random>

using namespace kaio;
using namespace kaio::interp;
using namespace kaio::interp::test;

namespace {

class WarpOpsTest : public InterpreterTest {
protected:
  /// Runs a 32-thread kernel `@k(%out: i64)` whose ops compute %r (i32) and
  /// %q (i1) per lane; returns out[0..31] = %r and out[32..63] = %q.
  std::vector<uint32_t> runWarp(llvm::StringRef ops, uint32_t threads = 32) {
    std::string body = (R"(
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %c4 = ptx.constant 4 : i32
  %full = ptx.constant -1 : i32
  %off = ptx.mul wide u32 %tid, %c4 : (i32, i32) -> i64
  %p = ptx.add s64 %out, %off : i64
)" + ops + R"(
  ptx.st global b32 [%p], %r : i64, i32
  %one = ptx.constant 1 : i32
  %zero = ptx.constant 0 : i32
  %qi = ptx.selp b32 %one, %zero, %q : i32
  ptx.st global b32 [%p + 128], %qi : i64, i32
  ptx.ret
})")
                           .str();
    Interpreter &in = load(body);
    uint64_t out = in.allocGlobal(64 * 4);
    LaunchResult r = in.launch("k", {1}, {threads}, {out});
    EXPECT_TRUE(r.success) << r.message();
    std::vector<uint32_t> v(64);
    in.read(out, v);
    return v;
  }

  /// shfl.sync of %tid * 10 + 1 in `mode` with lane operand `b` and
  /// clamp/segment operand `c`.
  std::vector<uint32_t> shfl(llvm::StringRef mode, uint32_t b, uint32_t c) {
    return runWarp((R"(
  %ten = ptx.constant 10 : i32
  %v = ptx.mad lo u32 %tid, %ten, %c4 : i32
  %b = ptx.constant )" + llvm::Twine(b) + R"( : i32
  %c = ptx.constant )" + llvm::Twine(c) + R"( : i32
  %r, %q = ptx.shfl_sync )" + mode + R"( %v, %b, %c, %full : i32 -> i32
)")
                       .str());
  }
};

uint32_t val(uint32_t lane) { return lane * 10 + 4; }

TEST_F(WarpOpsTest, ShflModesFollowThePtxPseudoCode) {
  // __shfl_down_sync(v, 1): c = 0x1f.
  std::vector<uint32_t> v = shfl("down", 1, 0x1f);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(v[l], val(l < 31 ? l + 1 : l)) << l;
    EXPECT_EQ(v[32 + l], l < 31 ? 1u : 0u) << l;
  }
  // __shfl_up_sync(v, 2): c = 0.
  v = shfl("up", 2, 0);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(v[l], val(l >= 2 ? l - 2 : l)) << l;
    EXPECT_EQ(v[32 + l], l >= 2 ? 1u : 0u) << l;
  }
  // __shfl_xor_sync(v, 5).
  v = shfl("bfly", 5, 0x1f);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(v[l], val(l ^ 5)) << l;
    EXPECT_EQ(v[32 + l], 1u);
  }
  // __shfl_sync(v, 3, width 8): c = ((32 - 8) << 8) | 0x1f.
  v = shfl("idx", 3, 0x181f);
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(v[l], val((l & ~7u) | 3)) << l;
  // __shfl_down_sync(v, 1, width 8): stays inside each 8-lane segment.
  v = shfl("down", 1, 0x181f);
  for (uint32_t l = 0; l < 32; ++l) {
    bool valid = (l % 8) != 7;
    EXPECT_EQ(v[l], val(valid ? l + 1 : l)) << l;
    EXPECT_EQ(v[32 + l], valid ? 1u : 0u) << l;
  }
  // __shfl_up_sync(v, 1, width 8): c = (32 - 8) << 8.
  v = shfl("up", 1, 0x1800);
  for (uint32_t l = 0; l < 32; ++l) {
    bool valid = (l % 8) != 0;
    EXPECT_EQ(v[l], val(valid ? l - 1 : l)) << l;
    EXPECT_EQ(v[32 + l], valid ? 1u : 0u) << l;
  }
}

TEST_F(WarpOpsTest, ButterflyReductionSumsTheWarp) {
  // The classic warp reduction: 5 xor-shuffles.
  std::string ops = "  %x0 = ptx.add s32 %tid, %c4 : i32\n";
  for (int i = 0; i < 5; ++i) {
    ops += "  %m" + std::to_string(i) + " = ptx.constant " +
           std::to_string(16 >> i) + " : i32\n";
    ops += "  %c" + std::to_string(i) + "c = ptx.constant 31 : i32\n";
    ops += "  %s" + std::to_string(i) + ", %v" + std::to_string(i) +
           " = ptx.shfl_sync bfly %x" + std::to_string(i) + ", %m" +
           std::to_string(i) + ", %c" + std::to_string(i) + "c, %full : i32 -> i32\n";
    ops += "  %x" + std::to_string(i + 1) + " = ptx.add s32 %x" +
           std::to_string(i) + ", %s" + std::to_string(i) + " : i32\n";
  }
  ops += "  %r = ptx.mov b32 %x5 : i32 -> i32\n  %q = ptx.setp eq s32 %r, %r : i32\n";
  std::vector<uint32_t> v = runWarp(ops);
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(v[l], 496u + 32 * 4) << l;
}

TEST_F(WarpOpsTest, VoteModes) {
  const char *pred = R"(
  %three = ptx.constant 3 : i32
  %m3 = ptx.rem u32 %tid, %three : i32
  %zero3 = ptx.constant 0 : i32
  %pr = ptx.setp eq u32 %m3, %zero3 : i32
)";
  std::vector<uint32_t> v = runWarp(std::string(pred) + R"(
  %r = ptx.vote_sync ballot %pr, %full : i32
  %q = ptx.vote_sync any %pr, %full : i1
)");
  uint32_t ballot = 0;
  for (uint32_t l = 0; l < 32; l += 3)
    ballot |= 1u << l;
  EXPECT_EQ(v[0], ballot);
  EXPECT_EQ(v[31], ballot);
  EXPECT_EQ(v[32], 1u);
  v = runWarp(std::string(pred) + R"(
  %r = ptx.constant 0 : i32
  %q = ptx.vote_sync all %pr, %full : i1
)");
  EXPECT_EQ(v[32], 0u);
  v = runWarp(std::string(pred) + R"(
  %r = ptx.constant 0 : i32
  %t = ptx.setp ge u32 %tid, %zero3 : i32
  %q = ptx.vote_sync uni %t, %full : i1
)");
  EXPECT_EQ(v[40], 1u);
}

TEST_F(WarpOpsTest, DivergentLanesVoteWithTheirMembermask) {
  // Lanes 0..15 vote with membermask 0xffff inside a branch; the others
  // skip it. Then all lanes reconverge for a full-warp ballot.
  Interpreter &in = load(R"(
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %c4 = ptx.constant 4 : i32
  %c16 = ptx.constant 16 : i32
  %half = ptx.constant 65535 : i32
  %full = ptx.constant -1 : i32
  %zero = ptx.constant 0 : i32
  %off = ptx.mul wide u32 %tid, %c4 : (i32, i32) -> i64
  %p = ptx.add s64 %out, %off : i64
  %low = ptx.setp lt u32 %tid, %c16 : i32
  %odd = ptx.and b32 %tid, %c4 : i32
  %pr = ptx.setp ne u32 %odd, %zero : i32
  ptx.cond_bra %low, ^a, ^join(%zero : i32)
^a:
  %b = ptx.vote_sync ballot %pr, %half : i32
  %am = ptx.activemask
  ptx.st global b32 [%p + 128], %am : i64, i32
  ptx.bra ^join(%b : i32)
^join(%r: i32):
  ptx.st global b32 [%p], %r : i64, i32
  %all = ptx.vote_sync ballot %low, %full : i32
  ptx.st global b32 [%p + 256], %all : i64, i32
  ptx.ret
})");
  uint64_t out = in.allocGlobal(96 * 4);
  LaunchResult r = in.launch("k", {1}, {32}, {out});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> v(96);
  in.read(out, v);
  uint32_t expect = 0;
  for (uint32_t l = 0; l < 16; ++l)
    if (l & 4)
      expect |= 1u << l;
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(v[l], l < 16 ? expect : 0u) << l;
    EXPECT_EQ(v[64 + l], 0xffffu) << l;
  }
  EXPECT_EQ(v[32], 0xffffu); // activemask inside the branch
}

TEST_F(WarpOpsTest, CollectiveWithExitedMemberIsAnError) {
  Interpreter &in = load(R"(
ptx.entry @k() {
  %tid = ptx.sreg tid.x : i32
  %full = ptx.constant -1 : i32
  %c8 = ptx.constant 8 : i32
  %low = ptx.setp lt u32 %tid, %c8 : i32
  ptx.cond_bra %low, ^exit, ^vote
^vote:
  %b = ptx.vote_sync ballot %low, %full : i32
  ptx.ret
^exit:
  ptx.ret
})");
  LaunchResult r = in.launch("k", {1}, {32}, {});
  ASSERT_FALSE(r.success);
  EXPECT_NE(r.message().find("warp divergence"), std::string::npos)
      << r.message();
}

TEST_F(WarpOpsTest, MatchAndRedux) {
  std::vector<uint32_t> v = runWarp(R"(
  %c3 = ptx.constant 3 : i32
  %g = ptx.div u32 %tid, %c4 : i32
  %key = ptx.rem u32 %g, %c3 : i32
  %r = ptx.match_sync any b32 %key, %full : i32
  %q = ptx.setp eq s32 %r, %r : i32
)");
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t expect = 0;
    for (uint32_t k = 0; k < 32; ++k)
      if ((k / 4) % 3 == (l / 4) % 3)
        expect |= 1u << k;
    EXPECT_EQ(v[l], expect) << l;
  }
  v = runWarp(R"(
  %k = ptx.constant 9 : i32
  %r = ptx.match_sync all b32 %k, %full : i32
  %q = ptx.setp eq s32 %r, %r : i32
)");
  EXPECT_EQ(v[5], 0xffffffffu);

  auto redux = [&](llvm::StringRef op, llvm::StringRef type,
                   llvm::StringRef valueOps) {
    return runWarp((valueOps + "\n  %r = ptx.redux_sync " + op + " " + type +
                    " %x, %full\n  %q = ptx.setp eq s32 %r, %r : i32\n")
                       .str())[7];
  };
  const char *centered = "  %c16 = ptx.constant 16 : i32\n"
                         "  %x = ptx.sub s32 %tid, %c16 : i32";
  EXPECT_EQ(redux("add", "u32", "  %x = ptx.mov b32 %tid : i32 -> i32"), 496u);
  EXPECT_EQ(redux("min", "s32", centered), uint32_t(-16));
  EXPECT_EQ(redux("max", "s32", centered), 15u);
  EXPECT_EQ(redux("min", "u32", centered), 0u);
  EXPECT_EQ(redux("max", "u32", centered), 0xffffffffu);
  EXPECT_EQ(redux("or", "b32", "  %x = ptx.mov b32 %tid : i32 -> i32"), 31u);
  EXPECT_EQ(redux("xor", "b32", "  %x = ptx.mov b32 %tid : i32 -> i32"), 0u);
  EXPECT_EQ(redux("and", "b32", centered), 0u);
}

//===----------------------------------------------------------------------===//
// mma.sync: every variant of the table against an f64 matmul
//===----------------------------------------------------------------------===//

double randomElement(ptx::PTXType t, std::mt19937 &rng, uint64_t &bits) {
  using ptx::PTXType;
  std::uniform_real_distribution<double> unit(-2, 2);
  switch (t) {
  case PTXType::f16:
    bits = fromDouble(unit(rng), kF16, RoundMode::NearestEven);
    return toDouble(bits, kF16);
  case PTXType::bf16:
    bits = fromDouble(unit(rng), kBF16, RoundMode::NearestEven);
    return toDouble(bits, kBF16);
  case PTXType::tf32:
    bits = fromDouble(unit(rng), kTF32, RoundMode::NearestEven) << 13;
    return toDouble(bits, kF32);
  case PTXType::f32:
    bits = fromDouble(unit(rng), kF32, RoundMode::NearestEven);
    return toDouble(bits, kF32);
  case PTXType::s8:
  case PTXType::u8:
  case PTXType::s4:
  case PTXType::u4:
  case PTXType::s32: {
    bool sgn = t == PTXType::s8 || t == PTXType::s4 || t == PTXType::s32;
    unsigned w = t == PTXType::s32 ? 16 : ptx::getBitWidth(t);
    int64_t lo = sgn ? -(int64_t(1) << (w - 1)) : 0;
    int64_t hi = sgn ? (int64_t(1) << (w - 1)) - 1 : (int64_t(1) << w) - 1;
    int64_t v = std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    bits = uint64_t(v) & ((1ull << ptx::getBitWidth(t)) - 1);
    return double(v);
  }
  default:
    ADD_FAILURE() << "unexpected mma type";
    return 0;
  }
}

std::string typeName(ptx::PTXType t) { return ptx::stringifyPTXType(t).str(); }

TEST_F(WarpOpsTest, MmaSyncEveryVariantMatchesF64Matmul) {
  std::mt19937 rng(42);
  for (const ptx::MmaVariant &v : ptx::getMmaVariants()) {
    SCOPED_TRACE(typeName(v.aType) + "x" + typeName(v.bType) + "->" +
                 typeName(v.accType) + " " +
                 ptx::stringifyMMAShape(v.shape).str());
    ptx::MmaShapeInfo s = ptx::getMmaShapeInfo(v.shape);
    const unsigned ea = ptx::getElementsPerRegister(v.aType);
    const unsigned eb = ptx::getElementsPerRegister(v.bType);
    const unsigned ec = ptx::getElementsPerRegister(v.accType);
    std::vector<double> A(s.m * s.k), B(s.k * s.n), C(s.m * s.n);
    std::vector<uint64_t> Ab(A.size()), Bb(B.size()), Cb(C.size());
    for (size_t i = 0; i < A.size(); ++i)
      A[i] = randomElement(v.aType, rng, Ab[i]);
    for (size_t i = 0; i < B.size(); ++i)
      B[i] = randomElement(v.bType, rng, Bb[i]);
    for (size_t i = 0; i < C.size(); ++i)
      C[i] = randomElement(v.accType, rng, Cb[i]);
    // Per-lane registers through the fragment layouts.
    const unsigned nin = v.aRegs + v.bRegs + v.accRegs;
    std::vector<uint32_t> regs(32 * nin, 0);
    for (unsigned l = 0; l < 32; ++l) {
      uint32_t *r = &regs[l * nin];
      for (unsigned i = 0; i < v.aRegs * ea; ++i) {
        ptx::FragmentCoord f = ptx::getMmaACoord(v, l, i);
        r[i / ea] |= uint32_t(Ab[f.row * s.k + f.col] << ((32 / ea) * (i % ea)));
      }
      for (unsigned i = 0; i < v.bRegs * eb; ++i) {
        ptx::FragmentCoord f = ptx::getMmaBCoord(v, l, i);
        r[v.aRegs + i / eb] |=
            uint32_t(Bb[f.row * s.n + f.col] << ((32 / eb) * (i % eb)));
      }
      for (unsigned i = 0; i < v.accRegs * ec; ++i) {
        ptx::FragmentCoord f = ptx::getMmaAccCoord(v, l, i);
        r[v.aRegs + v.bRegs + i / ec] |=
            uint32_t(Cb[f.row * s.n + f.col] << ((32 / ec) * (i % ec)));
      }
    }
    // The kernel: load the registers, mma, store D.
    bool f32acc = v.accType == ptx::PTXType::f32;
    std::string accTy = f32acc ? "f32" : "i32";
    std::string accLd = f32acc ? "f32" : "b32";
    std::string body =
        "ptx.entry @k(%in: i64, %out: i64) {\n"
        "  %lane = ptx.sreg laneid : i32\n"
        "  %sz = ptx.constant " +
        std::to_string(nin * 4) +
        " : i32\n"
        "  %o = ptx.mul wide u32 %lane, %sz : (i32, i32) -> i64\n"
        "  %p = ptx.add s64 %in, %o : i64\n"
        "  %szd = ptx.constant " +
        std::to_string(v.accRegs * 4) +
        " : i32\n"
        "  %od = ptx.mul wide u32 %lane, %szd : (i32, i32) -> i64\n"
        "  %q = ptx.add s64 %out, %od : i64\n";
    std::vector<std::string> a, b, c;
    for (unsigned i = 0; i < nin; ++i) {
      bool isC = i >= v.aRegs + v.bRegs;
      std::string name = "%r" + std::to_string(i);
      body += "  " + name + " = ptx.ld global " + (isC ? accLd : "b32") +
              " [%p + " + std::to_string(4 * i) + "] : i64 -> " +
              (isC ? accTy : "i32") + "\n";
      (i < v.aRegs ? a : i < v.aRegs + v.bRegs ? b : c).push_back(name);
    }
    auto join = [](const std::vector<std::string> &xs) {
      std::string s;
      for (size_t i = 0; i < xs.size(); ++i)
        s += (i ? ", " : "") + xs[i];
      return s;
    };
    auto types = [](size_t n, const std::string &t) {
      std::string s;
      for (size_t i = 0; i < n; ++i)
        s += (i ? ", " : "") + t;
      return s;
    };
    body += "  %d:" + std::to_string(v.accRegs) + " = ptx.mma_sync " +
            ptx::stringifyMMAShape(v.shape).str() + " row col " +
            typeName(v.accType) + " " + typeName(v.aType) + " " +
            typeName(v.bType) + " " + typeName(v.accType) + " {" + join(a) +
            "}, {" + join(b) + "}, {" + join(c) + "} : (" +
            types(a.size(), "i32") + "), (" + types(b.size(), "i32") + "), (" +
            types(c.size(), accTy) + ") -> " + types(v.accRegs, accTy) + "\n";
    for (unsigned i = 0; i < v.accRegs; ++i)
      body += "  ptx.st global " + accLd + " [%q + " + std::to_string(4 * i) +
              "], %d#" + std::to_string(i) + " : i64, " + accTy + "\n";
    body += "  ptx.ret\n}\n";
    Interpreter &in = load(body);
    uint64_t din = in.allocGlobal(regs.size() * 4);
    uint64_t dout = in.allocGlobal(32 * v.accRegs * 4);
    in.write(din, regs);
    LaunchResult r = in.launch("k", {1}, {32}, {din, dout});
    ASSERT_TRUE(r.success) << r.message() << body;
    std::vector<uint32_t> out(32 * v.accRegs);
    in.read(dout, out);
    // Reference and comparison, element by element through the D layout.
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned i = 0; i < v.accRegs * ec; ++i) {
        ptx::FragmentCoord f = ptx::getMmaAccCoord(v, l, i);
        double ref = C[f.row * s.n + f.col];
        for (unsigned k = 0; k < s.k; ++k)
          ref += A[f.row * s.k + k] * B[k * s.n + f.col];
        uint32_t reg = out[l * v.accRegs + i / ec];
        unsigned bits = 32 / ec;
        uint64_t e = (reg >> (bits * (i % ec))) & ((1ull << bits) - 1);
        if (v.accType == ptx::PTXType::s32) {
          EXPECT_EQ(int32_t(e), int64_t(ref)) << l << "," << i;
        } else {
          double got = toDouble(e, v.accType == ptx::PTXType::f16 ? kF16 : kF32);
          double tol = std::fabs(ref) *
                           (v.accType == ptx::PTXType::f16 ? 1e-3 : 1e-6) +
                       1e-6;
          EXPECT_NEAR(got, ref, tol) << l << "," << i;
        }
      }
  }
}

//===----------------------------------------------------------------------===//
// ldmatrix / stmatrix
//===----------------------------------------------------------------------===//

// Row r of matrix m sits in 16-byte slot (8m + r) * 5 % 32 of shared memory,
// so lane l must supply the address of slot l * 5 % 32.
uint32_t slotOf(uint32_t m, uint32_t r) { return (8 * m + r) * 5 % 32; }
uint16_t element(uint32_t m, uint32_t r, uint32_t c) {
  return uint16_t(m * 64 + r * 8 + c);
}

class LdMatrixTest : public WarpOpsTest,
                     public ::testing::WithParamInterface<std::tuple<int, bool>> {};

TEST_P(LdMatrixTest, FragmentsFollowThePtxLayout) {
  auto [count, trans] = GetParam();
  std::vector<uint16_t> global(32 * 8);
  for (uint32_t m = 0; m < 4; ++m)
    for (uint32_t r = 0; r < 8; ++r)
      for (uint32_t c = 0; c < 8; ++c)
        global[slotOf(m, r) * 8 + c] = element(m, r, c);
  std::string results, types, stores;
  for (int i = 0; i < count; ++i) {
    types += i ? ", i32" : "i32";
    stores += "  ptx.st global b32 [%o + " + std::to_string(4 * i) + "], %v#" +
              std::to_string(i) + " : i64, i32\n";
  }
  std::string body = R"(
ptx.var shared @s : b16 [256] align 16
ptx.entry @k(%in: i64, %out: i64) {
  %tid = ptx.sreg tid.x : i32
  %c16 = ptx.constant 16 : i32
  %c5 = ptx.constant 5 : i32
  %c31 = ptx.constant 31 : i32
  %base = ptx.addressof @s : i32
  %soff = ptx.mul lo u32 %tid, %c16 : i32
  %mine = ptx.add s32 %base, %soff : i32
  %goff = ptx.mul wide u32 %tid, %c16 : (i32, i32) -> i64
  %g = ptx.add s64 %in, %goff : i64
  %x:4 = ptx.ld global b32 [%g] : i64 -> i32, i32, i32, i32
  ptx.st shared b32 [%mine], %x#0, %x#1, %x#2, %x#3 : i32, i32, i32, i32, i32
  ptx.bar_sync 0
  %l5 = ptx.mul lo u32 %tid, %c5 : i32
  %slot = ptx.and b32 %l5, %c31 : i32
  %aoff = ptx.mul lo u32 %slot, %c16 : i32
  %addr = ptx.add s32 %base, %aoff : i32
  %v:)" + std::to_string(count) +
                     " = ptx.ldmatrix " + (trans ? "trans " : "") +
                     "[%addr] : i32 -> " + types + R"(
  %o = ptx.add s64 %out, %goff : i64
)" + stores + "  ptx.ret\n}\n";
  Interpreter &in = load(body);
  uint64_t din = in.allocGlobal(512), dout = in.allocGlobal(512);
  in.write(din, global);
  LaunchResult r = in.launch("k", {1}, {32}, {din, dout});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> out(128);
  in.read(dout, out);
  for (uint32_t t = 0; t < 32; ++t)
    for (int m = 0; m < count; ++m) {
      // Thread t holds row t/4, columns 2(t%4) and 2(t%4)+1 (transposed:
      // column t/4, rows 2(t%4) and 2(t%4)+1).
      uint32_t row = t / 4, col = 2 * (t % 4);
      uint16_t lo = trans ? element(m, col, row) : element(m, row, col);
      uint16_t hi = trans ? element(m, col + 1, row) : element(m, row, col + 1);
      EXPECT_EQ(out[t * 4 + m], uint32_t(lo) | uint32_t(hi) << 16)
          << "thread " << t << " matrix " << m;
    }
}

TEST_P(LdMatrixTest, StMatrixIsTheInverse) {
  auto [count, trans] = GetParam();
  std::string values, types;
  for (int i = 0; i < count; ++i) {
    values += (i ? ", %v" : "%v") + std::to_string(i);
    types += ", i32";
  }
  // Thread t's register m holds (row t/4, columns 2(t%4), 2(t%4)+1) of
  // matrix m: element(m, t/4, 2(t%4)) | element(...+1) << 16.
  std::string regs;
  for (int m = 0; m < count; ++m)
    regs += "  %e" + std::to_string(m) + " = ptx.constant " +
            std::to_string(m * 64) + " : i32\n  %lo" + std::to_string(m) +
            " = ptx.add s32 %e" + std::to_string(m) + ", %rc : i32\n  %hi" +
            std::to_string(m) + " = ptx.add s32 %lo" + std::to_string(m) +
            ", %one : i32\n  %hs" + std::to_string(m) + " = ptx.shl b32 %hi" +
            std::to_string(m) + ", %c16 : i32\n  %v" + std::to_string(m) +
            " = ptx.or b32 %lo" + std::to_string(m) + ", %hs" +
            std::to_string(m) + " : i32\n";
  std::string body = R"(
ptx.var shared @s : b16 [256] align 16
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %one = ptx.constant 1 : i32
  %c3 = ptx.constant 3 : i32
  %c4 = ptx.constant 4 : i32
  %c8 = ptx.constant 8 : i32
  %c16 = ptx.constant 16 : i32
  %c5 = ptx.constant 5 : i32
  %c31 = ptx.constant 31 : i32
  %row = ptx.div u32 %tid, %c4 : i32
  %tm = ptx.and b32 %tid, %c3 : i32
  %col = ptx.shl b32 %tm, %one : i32
  %rc = ptx.mad lo u32 %row, %c8, %col : i32
)" + regs + R"(
  %base = ptx.addressof @s : i32
  %l5 = ptx.mul lo u32 %tid, %c5 : i32
  %slot = ptx.and b32 %l5, %c31 : i32
  %aoff = ptx.mul lo u32 %slot, %c16 : i32
  %addr = ptx.add s32 %base, %aoff : i32
  ptx.stmatrix )" + (trans ? "trans " : "") +
                     "[%addr], " + values + " : i32" + types + R"(
  ptx.bar_sync 0
  %soff = ptx.mul lo u32 %tid, %c16 : i32
  %mine = ptx.add s32 %base, %soff : i32
  %x:4 = ptx.ld shared b32 [%mine] : i32 -> i32, i32, i32, i32
  %goff = ptx.mul wide u32 %tid, %c16 : (i32, i32) -> i64
  %g = ptx.add s64 %out, %goff : i64
  ptx.st global b32 [%g], %x#0, %x#1, %x#2, %x#3 : i64, i32, i32, i32, i32
  ptx.ret
})";
  Interpreter &in = load(body);
  uint64_t dout = in.allocGlobal(512);
  LaunchOptions opts;
  opts.checkUninitialized = false; // slots of matrices not stored stay unset
  LaunchResult r = in.launch("k", {1}, {32}, {dout}, opts);
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint16_t> got(256);
  in.read(dout, got);
  for (int m = 0; m < count; ++m)
    for (uint32_t rr = 0; rr < 8; ++rr)
      for (uint32_t c = 0; c < 8; ++c)
        EXPECT_EQ(got[slotOf(m, rr) * 8 + c],
                  trans ? element(m, c, rr) : element(m, rr, c))
            << m << "," << rr << "," << c;
}

INSTANTIATE_TEST_SUITE_P(Shapes, LdMatrixTest,
                         ::testing::Combine(::testing::Values(1, 2, 4),
                                            ::testing::Bool()));

} // namespace
