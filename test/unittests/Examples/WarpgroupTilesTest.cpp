//===- WarpgroupTilesTest.cpp - kaio.warpgroup_mma against a reference ----===//
//
// One warpgroup loads A (64 x K, or A^T: K x 64 in blocks of W columns) and
// B (K x N, in blocks of W columns, or B^T: N x K) with TMA and multiplies
// them with kaio.warpgroup_mma, for
// each hardware swizzle (32/64/128-byte rows: K = W = 16/32/64 of f16 or
// bf16), several N, A from shared memory or from registers
// (kaio.load_fragment): the descriptors kaio-lower-tiles computes from the
// tiles' layouts must read what TMA wrote. The interpreter's wgmma reads shared
// memory through the descriptor fields as the PTX ISA defines them.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir;
using kaio::interp::Interpreter;
using kaio::interp::LaunchResult;

namespace {

struct Case {
  unsigned swizzle; // bytes: 32, 64, 128
  unsigned n;
  bool bf16;
  bool transB = false; // B^T (N x K) in shared memory: K-major
  bool aRegs = false;  // A through kaio.load_fragment, in registers
  bool transA = false; // A^T (K x 64) in shared memory: M-major
  /// 8-bit floats: 1 A and B f8E4M3FN, 2 A f8E4M3FN and B f8E5M2 (K = the
  /// swizzle's bytes; B must be K-major).
  unsigned fp8 = 0;
};

unsigned elementBytes(const Case &c) { return c.fp8 ? 1 : 2; }

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return llvm::formatv("swizzle{0}_n{1}_{2}{3}{4}{5}", info.param.swizzle,
                       info.param.n,
                       info.param.fp8 == 1   ? "e4m3"
                       : info.param.fp8 == 2 ? "e4m3_e5m2"
                       : info.param.bf16     ? "bf16"
                                             : "f16",
                       info.param.transB ? "_transB" : "",
                       info.param.aRegs ? "_aRegs" : "",
                       info.param.transA ? "_transA" : "")
      .str();
}

/// The kernel: TMA boxes (A: 64 x K, or A^T: K x W per block of its 64
/// columns; B: K x W per block, or B^T: N x K), one barrier for all of
/// them, one warpgroup_mma, the warps' 16 rows stored.
std::string kernelSource(const Case &c) {
  unsigned k = c.swizzle / elementBytes(c), w = k,
           blocks = c.transB ? 1 : c.n / w;
  unsigned aBlocks = c.transA ? 64 / w : 1;
  unsigned bits = c.swizzle == 128 ? 3 : c.swizzle == 64 ? 2 : 1;
  const char *t = c.fp8 ? "f8E4M3FN" : c.bf16 ? "bf16" : "f16";
  const char *tb = c.fp8 == 2 ? "f8E5M2" : t;
  std::string layout =
      llvm::formatv("#kaio.layout<row_major, swizzle = <{0}, 4, 3>>", bits);
  std::string loadsB;
  if (c.transB)
    loadsB = "      kaio.tma_load %mb[%c0, %c0] to %bs[%c0], %bar[%c0]\n"
             "          : !MB, !B, !kaio.smem<1xi64>\n";
  for (unsigned j = 0; !c.transB && j < blocks; ++j)
    loadsB += llvm::formatv(
        "      %col{0} = arith.constant {1} : i32\n"
        "      %row{0} = arith.constant {2} : i32\n"
        "      kaio.tma_load %mb[%c0, %col{0}] to %bs[%row{0}], %bar[%c0]\n"
        "          : !MB, !B, !kaio.smem<1xi64>\n",
        j, j * w, j * k);
  std::string aType =
      llvm::formatv("!kaio.frag<a, m16n8k16, {0}, 1x{1}>", t, k / 16);
  std::string transpose = c.transB ? " transpose" : "";
  std::string loadsA;
  for (unsigned j = 0; j < aBlocks; ++j)
    loadsA += c.transA
                  ? llvm::formatv(
                        "      %acol{0} = arith.constant {1} : i32\n"
                        "      %arow{0} = arith.constant {2} : i32\n"
                        "      kaio.tma_load %ma[%c0, %acol{0}] to "
                        "%as[%arow{0}], %bar[%c0]\n"
                        "          : !MA, !A, !kaio.smem<1xi64>\n",
                        j, j * w, j * k)
                        .str()
                  : "      kaio.tma_load %ma[%c0, %c0] to %as[%c0], %bar[%c0]"
                    " : !MA, !A, !kaio.smem<1xi64>\n";
  std::string mma =
      c.transA
          ? llvm::formatv("    %d = kaio.warpgroup_mma %as[%c0] transpose, "
                          "%bs[%c0]{0}, %init {{k = {1}} : !A, !B, !Acc",
                          transpose, k)
                .str()
      : c.aRegs
          ? llvm::formatv(
                "    %af = kaio.load_fragment %as[%row, %c0] : !A -> {0}\n"
                "    %d = kaio.warpgroup_mma %af, %bs[%c0]{1}, %init"
                " : {0}, !B, !Acc",
                aType, transpose)
                .str()
          : "    %d = kaio.warpgroup_mma %as[%c0], %bs[%c0]" + transpose +
                ", %init : !A, !B, !Acc";
  return llvm::formatv(R"(
!A = !kaio.smem<{12}x{0}x{1}, {2}>
!B = !kaio.smem<{3}x{4}x{15}, {2}>
!MA = !kaio.tensor_map<{13}x{0}x{1}, swizzle = {5}>
!MB = !kaio.tensor_map<{10}x{4}x{15}, swizzle = {5}>
!Acc = !kaio.frag<acc, m16n8k16, f32, 1x{6}>
module attributes {{kaio.target = "sm_90a"} {{
  kaio.kernel @wgmma_tile(%ma: !MA, %mb: !MB, %out: !kaio.ptr<f32>)
      attributes {{block_size = array<i32: 128>} {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %c64 = arith.constant 64 : i32
    %n = arith.constant {7} : i32
    %bytes = arith.constant {8} : i32
    %zero = arith.constant 0.0 : f32
    %as = kaio.shared_alloc : !A
    %bs = kaio.shared_alloc : !B
    %bar = kaio.shared_alloc : !kaio.smem<1xi64>
    %tid = kaio.thread_id x : i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    scf.if %first {{
      kaio.mbarrier_init %bar[%c0], %c1 : !kaio.smem<1xi64>
    }
    kaio.barrier
    scf.if %first {{
      kaio.mbarrier_arrive %bar[%c0] expect_tx %bytes : !kaio.smem<1xi64>
{14}{9}    }
    kaio.mbarrier_wait %bar[%c0], %c0 : !kaio.smem<1xi64>
    %init = kaio.frag_fill %zero : f32 -> !Acc
    %warp = kaio.warp_id : i32
    %row = arith.muli %warp, %c16 : i32
{11}
    %r = kaio.warpgroup_wait %d pending 0 : !Acc
    kaio.store_fragment %r, %out[%row, %c0] bounds [%c64, %n] ld %n
        : !Acc, !kaio.ptr<f32>
    kaio.return
  }
}
)",
                       k, t, layout, c.transB ? c.n : blocks * k, w,
                       c.swizzle, c.n / 8, c.n,
                       (64 * k + k * c.n) * elementBytes(c), loadsB,
                       c.transB ? c.n : k, mma, c.transA ? aBlocks * k : 64,
                       c.transA ? k : 64, loadsA, tb)
      .str();
}

uint16_t toBits(float f, bool bf16) {
  bool lost;
  llvm::APFloat v(f);
  v.convert(bf16 ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf(),
            llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint16_t>(v.bitcastToAPInt().getZExtValue());
}

float fromBits(uint16_t h, bool bf16) {
  bool lost;
  llvm::APFloat v(bf16 ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf(),
                  llvm::APInt(16, h));
  v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return v.convertToFloat();
}

/// An 8-bit float code with magnitude 1/8..2 (or zero) and its value
/// (E4M3: bias 7, 3 mantissa bits; E5M2: bias 15, 2).
uint16_t sampleFP8(std::mt19937 &rng, bool e4m3, float &value) {
  const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  std::uniform_int_distribution<int> mant(0, (1 << mbits) - 1),
      exp(bias - 3, bias), sign(0, 1);
  int e = exp(rng), m = mant(rng), sg = sign(rng);
  value = (sg ? -1.0f : 1.0f) *
          std::ldexp(1.0f + float(m) / float(1 << mbits), e - bias);
  return uint16_t(sg << 7 | e << mbits | m);
}

uint64_t makeMap(Interpreter &interp, uint64_t address, uint64_t rows,
                 uint64_t cols, uint32_t boxRows, uint32_t boxCols, bool bf16,
                 unsigned swizzle, bool fp8 = false) {
  return kaio::test::makeTensorMap2D(
      interp, address, rows, cols, boxRows, boxCols,
      swizzle == 128  ? kaio::rt::TensorMapSwizzle::B128
      : swizzle == 64 ? kaio::rt::TensorMapSwizzle::B64
                      : kaio::rt::TensorMapSwizzle::B32,
      fp8    ? kaio::rt::ScalarType::U8
      : bf16 ? kaio::rt::ScalarType::BF16
             : kaio::rt::ScalarType::F16);
}

class WarpgroupTilesTest : public ::testing::TestWithParam<Case> {};

TEST_P(WarpgroupTilesTest, MatchesAReference) {
  const Case c = GetParam();
  const unsigned esz = elementBytes(c), k = c.swizzle / esz;
  MLIRContext context;
  auto module = kaio::test::lowerSource(context, kernelSource(c));
  ASSERT_TRUE(module) << kernelSource(c);
  Interpreter interp(*module);
  std::mt19937 rng(c.swizzle * 1000 + c.n);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(64 * k), b(k * c.n);
  std::vector<float> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    af[i] = c.fp8 ? 0 : fromBits(a[i] = toBits(dist(rng), c.bf16), c.bf16);
  for (size_t i = 0; i < b.size(); ++i)
    bf[i] = c.fp8 ? 0 : fromBits(b[i] = toBits(dist(rng), c.bf16), c.bf16);
  if (c.fp8) {
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = sampleFP8(rng, true, af[i]);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = sampleFP8(rng, c.fp8 == 1, bf[i]);
  }
  // Elements of esz bytes (8-bit codes are kept in uint16_t here).
  auto put = [&](uint64_t at, const std::vector<uint16_t> &codes) {
    if (esz == 2)
      return interp.write(at, codes);
    std::vector<uint8_t> bytes(codes.begin(), codes.end());
    return interp.write(at, bytes);
  };
  uint64_t da = interp.allocGlobal(a.size() * esz);
  uint64_t db = interp.allocGlobal(b.size() * esz);
  uint64_t dout = interp.allocGlobal(64 * c.n * 4);
  ASSERT_TRUE(put(da, a));
  ASSERT_TRUE(put(db, b));
  // A^T: the K x 64 matrix of A's columns, boxes of K rows x W columns.
  if (c.transA) {
    std::vector<uint16_t> at(a.size());
    for (unsigned i = 0; i < 64; ++i)
      for (unsigned kk = 0; kk < k; ++kk)
        at[kk * 64 + i] = a[i * k + kk];
    ASSERT_TRUE(put(da, at));
  }
  uint64_t ma =
      c.transA ? makeMap(interp, da, k, 64, k, k, c.bf16, c.swizzle, c.fp8)
               : makeMap(interp, da, 64, k, 64, k, c.bf16, c.swizzle, c.fp8);
  // B^T: the N x K matrix of B's columns.
  if (c.transB) {
    std::vector<uint16_t> bt(b.size());
    for (unsigned kk = 0; kk < k; ++kk)
      for (unsigned j = 0; j < c.n; ++j)
        bt[j * k + kk] = b[kk * c.n + j];
    ASSERT_TRUE(put(db, bt));
  }
  uint64_t mb =
      c.transB ? makeMap(interp, db, c.n, k, c.n, k, c.bf16, c.swizzle, c.fp8)
               : makeMap(interp, db, k, c.n, k, k, c.bf16, c.swizzle, c.fp8);
  LaunchResult r = interp.launch("wgmma_tile", {1}, {128}, {ma, mb, dout});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<float> out(64 * c.n);
  ASSERT_TRUE(interp.read(dout, out));
  for (unsigned i = 0; i < 64; ++i)
    for (unsigned j = 0; j < c.n; ++j) {
      double want = 0;
      for (unsigned kk = 0; kk < k; ++kk)
        want += double(af[i * k + kk]) * bf[kk * c.n + j];
      ASSERT_NEAR(out[i * c.n + j], want, 1e-5 + 1e-5 * std::fabs(want))
          << "row " << i << ", column " << j;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Swizzles, WarpgroupTilesTest,
    ::testing::Values(Case{128, 64, false}, Case{128, 128, true},
                      Case{128, 256, false}, Case{64, 32, false},
                      Case{64, 96, true}, Case{32, 16, false},
                      Case{32, 48, true}, Case{128, 64, false, true},
                      Case{64, 128, true, true}, Case{32, 24, false, true},
                      Case{128, 64, false, false, true},
                      Case{128, 128, true, true, true},
                      Case{32, 16, false, false, true},
                      // A^T (M-major, trans-a): one block of 64 columns at
                      // 128-byte rows, two at 64, four at 32; with B in
                      // either layout.
                      Case{128, 64, false, false, false, true},
                      Case{128, 128, true, true, false, true},
                      Case{64, 96, false, false, false, true},
                      Case{64, 32, true, true, false, true},
                      Case{32, 48, false, false, false, true},
                      // 8-bit floats (K-major A and B, k32 wgmma): K = 128,
                      // 64, 32 at the three swizzles; E4M3 x E5M2 mixed.
                      Case{128, 64, false, true, false, false, 1},
                      Case{128, 256, false, true, false, false, 2},
                      Case{64, 96, false, true, false, false, 1},
                      Case{32, 24, false, true, false, false, 2}),
    caseName);

} // namespace

namespace {

// The epilogue through shared memory: the warpgroup's 64 x 64 product goes
// into a 128-byte-swizzled f16 tile (kaio.shared_store_fragment), each
// thread fences its writes for the async proxy, the warps meet at a named
// barrier, and one thread stores the tile with TMA at (row0, col0) of a
// 100 x 72 C: the box hangs over the edge (rows 64.. and columns 64..
// are 36 x 8 inside), and TMA writes only what is inside.
const char *kStagedEpilogue = R"(
!T = !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!M = !kaio.tensor_map<64x64xf16, swizzle = 128>
!Acc = !kaio.frag<acc, m16n8k16, f32, 1x8>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @staged(%ma: !M, %mb: !M, %mc: !M, %row0: i32, %col0: i32)
      attributes {block_size = array<i32: 128>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %bytes = arith.constant 16384 : i32
    %zero = arith.constant 0.0 : f32
    %as = kaio.shared_alloc : !T
    %bs = kaio.shared_alloc : !T
    %cs = kaio.shared_alloc : !T
    %bar = kaio.shared_alloc : !kaio.smem<1xi64>
    %tid = kaio.thread_id x : i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    scf.if %first {
      kaio.mbarrier_init %bar[%c0], %c1 : !kaio.smem<1xi64>
    }
    kaio.barrier
    scf.if %first {
      kaio.mbarrier_arrive %bar[%c0] expect_tx %bytes : !kaio.smem<1xi64>
      kaio.tma_load %ma[%c0, %c0] to %as[%c0], %bar[%c0] : !M, !T, !kaio.smem<1xi64>
      kaio.tma_load %mb[%c0, %c0] to %bs[%c0], %bar[%c0] : !M, !T, !kaio.smem<1xi64>
    }
    kaio.mbarrier_wait %bar[%c0], %c0 : !kaio.smem<1xi64>
    %init = kaio.frag_fill %zero : f32 -> !Acc
    %d = kaio.warpgroup_mma %as[%c0], %bs[%c0], %init : !T, !T, !Acc
    %r = kaio.warpgroup_wait %d pending 0 : !Acc
    %warp = kaio.warp_id : i32
    %row = arith.muli %warp, %c16 : i32
    kaio.shared_store_fragment %r, %cs[%row, %c0] : !Acc, !T
    kaio.fence_proxy_async
    kaio.barrier id 1, threads 128
    scf.if %first {
      kaio.tma_store %cs[%c0] to %mc[%row0, %col0] : !T, !M
      kaio.tma_store_wait pending 0
    }
    kaio.return
  }
}
)";

TEST(WarpgroupTiles, StagedTmaStoreEpilogue) {
  MLIRContext context;
  auto module = kaio::test::lowerSource(context, kStagedEpilogue);
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(64 * 64), b(64 * 64);
  std::vector<float> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    af[i] = fromBits(a[i] = toBits(dist(rng), false), false);
  for (size_t i = 0; i < b.size(); ++i)
    bf[i] = fromBits(b[i] = toBits(dist(rng), false), false);
  const uint32_t m = 100, n = 72, row0 = 64, col0 = 64;
  const uint16_t sentinel = 0x7e00; // a NaN no product makes
  std::vector<uint16_t> c(m * n, sentinel);
  uint64_t da = interp.allocGlobal(a.size() * 2);
  uint64_t db = interp.allocGlobal(b.size() * 2);
  uint64_t dc = interp.allocGlobal(c.size() * 2);
  ASSERT_TRUE(interp.write(da, a));
  ASSERT_TRUE(interp.write(db, b));
  ASSERT_TRUE(interp.write(dc, c));
  uint64_t ma = makeMap(interp, da, 64, 64, 64, 64, false, 128);
  uint64_t mb = makeMap(interp, db, 64, 64, 64, 64, false, 128);
  uint64_t mc = makeMap(interp, dc, m, n, 64, 64, false, 128);
  LaunchResult r =
      interp.launch("staged", {1}, {128}, {ma, mb, mc, row0, col0});
  ASSERT_TRUE(r.success) << r.message();
  ASSERT_TRUE(interp.read(dc, c));
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      if (i < row0 || j < col0) {
        ASSERT_EQ(c[i * n + j], sentinel) << "row " << i << ", column " << j;
        continue;
      }
      double want = 0;
      for (unsigned kk = 0; kk < 64; ++kk)
        want += double(af[(i - row0) * 64 + kk]) * bf[kk * 64 + (j - col0)];
      ASSERT_NEAR(fromBits(c[i * n + j], false), want,
                  2e-3 + 2e-3 * std::fabs(want))
          << "row " << i << ", column " << j;
    }
}

} // namespace
