//===- IndexBitsTest.cpp - the possible-bits rules are supersets ----------===//
//
// kaio-to-ptx splits swizzled shared offsets only where the variable part
// and the constant share no bit (lib/Conversion/KaioToPTX/IndexBits.h): a
// rule that claims too few possible bits would make it address the wrong
// element. Every rule is checked here against every value its operands'
// masks allow, and the walk over index arithmetic against every thread of
// a block.
//
//===----------------------------------------------------------------------===//

#include "../../../lib/Conversion/KaioToPTX/IndexBits.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <vector>

using namespace kaio;

namespace {

/// Every value whose set bits are within `mask`.
std::vector<uint64_t> subsetsOf(uint64_t mask) {
  std::vector<uint64_t> out;
  uint64_t s = 0;
  do {
    out.push_back(s);
    s = (s - mask) & mask;
  } while (s);
  return out;
}

TEST(IndexBits, SumsAndProductsStayWithinTheirMasks) {
  const uint64_t masks[] = {0, 1, 3, 0xc, 0x30, 0xf0, 0x1f, 0x3c0, 0x101};
  for (uint64_t x : masks)
    for (uint64_t y : masks) {
      uint64_t sum = getPossibleOneBitsOfSum(x, y);
      for (uint64_t a : subsetsOf(x))
        for (uint64_t b : subsetsOf(y))
          ASSERT_EQ((a + b) & ~sum, 0u) << a << " + " << b;
    }
  for (uint64_t x : masks)
    for (uint64_t c : {0u, 1u, 3u, 4u, 12u, 64u, 100u}) {
      uint64_t product = getPossibleOneBitsOfProduct(x, c);
      for (uint64_t a : subsetsOf(x))
        ASSERT_EQ((a * c) & ~product, 0u) << a << " * " << c;
    }
  // Disjoint masks add without carries; powers of two shift.
  EXPECT_EQ(getPossibleOneBitsOfSum(0xf00, 0x30), 0xf30u);
  EXPECT_EQ(getPossibleOneBitsOfProduct(0xf, 64), 0x3c0u);
}

TEST(IndexBits, ThreadArithmeticOverEveryThread) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<KaioDialect, mlir::arith::ArithDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    kaio.kernel @k() attributes {block_size = array<i32: 256>,
                                 kaio.exact_block_size} {
      %t = kaio.thread_id x : i32
      %c3 = arith.constant 3 : i32
      %c4 = arith.constant 4 : i32
      %c7 = arith.constant 7 : i32
      %c16 = arith.constant 16 : i32
      %c5 = arith.constant 5 : i32
      %a = arith.remui %t, %c16 : i32
      %b = arith.muli %a, %c4 : i32
      %c = arith.divui %t, %c16 : i32
      %d = arith.remui %t, %c7 : i32
      %e = arith.divui %t, %c3 : i32
      %f = arith.addi %b, %c5 : i32
      %g = arith.shli %c, %c3 : i32
      %h = arith.addi %g, %d : i32
      %i = arith.muli %e, %c7 : i32
      kaio.return
    }
  )mlir", &ctx);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<KernelOp>().begin();
  // The same arithmetic on the host, for every thread.
  using Fn = uint64_t (*)(uint64_t);
  const std::pair<const char *, Fn> exprs[] = {
      {"a", [](uint64_t t) { return t % 16; }},
      {"b", [](uint64_t t) { return t % 16 * 4; }},
      {"c", [](uint64_t t) { return t / 16; }},
      {"d", [](uint64_t t) { return t % 7; }},
      {"e", [](uint64_t t) { return t / 3; }},
      {"f", [](uint64_t t) { return t % 16 * 4 + 5; }},
      {"g", [](uint64_t t) { return (t / 16) << 3; }},
      {"h", [](uint64_t t) { return ((t / 16) << 3) + t % 7; }},
      {"i", [](uint64_t t) { return t / 3 * 7; }},
  };
  std::vector<mlir::Value> values;
  kernel.walk([&](mlir::Operation *op) {
    if (mlir::isa<mlir::arith::RemUIOp, mlir::arith::MulIOp, mlir::arith::DivUIOp,
            mlir::arith::AddIOp, mlir::arith::ShLIOp>(op))
      values.push_back(op->getResult(0));
  });
  ASSERT_EQ(values.size(), std::size(exprs));
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t bits = getPossibleOneBits(values[i]);
    for (uint64_t t = 0; t < 256; ++t)
      ASSERT_EQ(exprs[i].second(t) & ~bits, 0u)
          << "%" << exprs[i].first << " at thread " << t;
  }
  // The bound is the block size: tid % 16 * 4 sets bits 2..5 only.
  EXPECT_EQ(getPossibleOneBits(values[1]), 0x3cu);
  EXPECT_EQ(getPossibleOneBits(values[2]), 0xfu);
  // A constant split off its variable part.
  ConstantSplit split = splitConstant(values[5]);
  EXPECT_EQ(split.variable, values[1]);
  EXPECT_EQ(split.constant, 5);
}

/// The possible bits of every result of an op of types `Ops` in `source`,
/// in order.
template <typename... Ops>
std::vector<uint64_t> bitsOf(mlir::MLIRContext &ctx, const char *source) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &ctx);
  std::vector<uint64_t> bits;
  if (!module)
    return bits;
  module->walk([&](mlir::Operation *op) {
    if (mlir::isa<Ops...>(op))
      bits.push_back(getPossibleOneBits(op->getResult(0)));
  });
  return bits;
}

TEST(IndexBits, ThreadIdsPastTheBlocksRankAreZero) {
  // Both runners refuse a launch with more dimensions than the compiled
  // block (rt::describeBlockMismatch), so tid.y of a 1-D kernel is 0 and
  // .maxntid bounds the others by the thread count.
  mlir::MLIRContext ctx;
  ctx.loadDialect<KaioDialect, mlir::arith::ArithDialect>();
  std::vector<uint64_t> bits = bitsOf<ThreadIdOp>(ctx, R"mlir(
    kaio.kernel @one_d() attributes {block_size = array<i32: 128>} {
      %x = kaio.thread_id x : i32
      %y = kaio.thread_id y : i32
      %z = kaio.thread_id z : i32
      kaio.return
    }
    kaio.kernel @two_d() attributes {block_size = array<i32: 16, 8>} {
      %x = kaio.thread_id x : i32
      %y = kaio.thread_id y : i32
      %z = kaio.thread_id z : i32
      kaio.return
    }
    kaio.kernel @exact() attributes {block_size = array<i32: 16, 8>,
                                     kaio.exact_block_size} {
      %x = kaio.thread_id x : i32
      %y = kaio.thread_id y : i32
      kaio.return
    }
  )mlir");
  EXPECT_EQ(bits, (std::vector<uint64_t>{0x7f, 0, 0, 0x7f, 0x7f, 0, 0xf, 7}));
}

TEST(IndexBits, AValueCutShortByTheDepthLimitIsNotRemembered) {
  // %m is first met at the walk's depth limit (12) through the chain of
  // shifts, where it is unknown; met again one op from the root it is
  // tid % 16.
  mlir::MLIRContext ctx;
  ctx.loadDialect<KaioDialect, mlir::arith::ArithDialect>();
  std::vector<uint64_t> bits = bitsOf<mlir::arith::AndIOp>(ctx, R"mlir(
    kaio.kernel @k() attributes {block_size = array<i32: 256>} {
      %t = kaio.thread_id x : i32
      %c0 = arith.constant 0 : i32
      %c16 = arith.constant 16 : i32
      %m = arith.remui %t, %c16 : i32
      %x1 = arith.shrui %m, %c0 : i32
      %x2 = arith.shrui %x1, %c0 : i32
      %x3 = arith.shrui %x2, %c0 : i32
      %x4 = arith.shrui %x3, %c0 : i32
      %x5 = arith.shrui %x4, %c0 : i32
      %x6 = arith.shrui %x5, %c0 : i32
      %x7 = arith.shrui %x6, %c0 : i32
      %x8 = arith.shrui %x7, %c0 : i32
      %x9 = arith.shrui %x8, %c0 : i32
      %x10 = arith.shrui %x9, %c0 : i32
      %x11 = arith.shrui %x10, %c0 : i32
      %q = arith.andi %x11, %m : i32
      kaio.return
    }
  )mlir");
  EXPECT_EQ(bits, (std::vector<uint64_t>{0xf}));
}

} // namespace
