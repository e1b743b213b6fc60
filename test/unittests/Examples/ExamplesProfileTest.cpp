//===- ExamplesProfileTest.cpp - the examples' recorded profiles ----------===//
//
// The interpreter's profile of each example kernel at a fixed launch: the
// counts are exact, so a change to the lowering that adds bank conflicts,
// uncoalesced accesses or instructions in the main loop shows up here. Where
// an example is not yet conflict-free the test says where the conflicts come
// from; the GEMM issue's layouts are to remove them.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Compiler/Compile.h"
#include "Lowering.h"
#include "Kaio/InitAll.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Interpreter/Profile.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace kaio::interp;

namespace {

/// A kernel argument: a zero-filled buffer of `bytes`, or a scalar.
struct Arg {
  uint64_t bytes = 0, scalar = 0;
  static Arg buffer(uint64_t bytes) { return {bytes, 0}; }
  static Arg value(uint64_t v) { return {0, v}; }
};

class ExamplesProfileTest : public ::testing::Test {
protected:
  ExamplesProfileTest() {
    DialectRegistry registry;
    kaio::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }

  /// Lowers examples/<name>.mlir for sm_80 (with the unit attribute
  /// `kernelAttr` on its kernels, if any: a library variant), runs kernel
  /// <name> once with the profile and returns it.
  const KernelProfile &profile(StringRef name, Dim3 grid, Dim3 block,
                               llvm::ArrayRef<Arg> args,
                               StringRef kernelAttr = "") {
    std::string path = (KAIO_SOURCE_DIR "/examples/" + name + ".mlir").str();
    module = parseSourceFile<ModuleOp>(path, &context);
    if (module)
      kaio::test::setKernelAttr(*module, kernelAttr);
    kaio::CompileOptions options;
    options.chip = "sm_80";
    EXPECT_TRUE(module && succeeded(kaio::lowerToPTXDialect(*module, options)))
        << path;
    static const KernelProfile none;
    if (!module)
      return none;
    interp = std::make_unique<Interpreter>(*module);
    std::vector<uint64_t> values;
    for (const Arg &a : args)
      values.push_back(a.bytes ? interp->allocGlobal(a.bytes) : a.scalar);
    LaunchOptions opts;
    opts.profile = &prof;
    LaunchResult r = interp->launch(name, grid, block, values, opts);
    EXPECT_TRUE(r.success) << r.message();
    const KernelProfile *k = prof.find(name.str());
    return k ? *k : none;
  }

  static uint64_t mix(const KernelProfile &k, const std::string &cls) {
    auto it = k.mix.find(cls);
    return it == k.mix.end() ? 0 : it->second;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<Interpreter> interp;
  Profile prof;
};

const Arg kF16Matrix = Arg::buffer(256 * 256 * 2);
const Arg kF32Matrix = Arg::buffer(256 * 256 * 4);
/// A, B, C, M, N, K of a 256^3 f16 x f16 -> f32 matmul.
const Arg kMatmul256[] = {kF16Matrix,      kF16Matrix,      kF32Matrix,
                          Arg::value(256), Arg::value(256), Arg::value(256)};
/// The same with alpha = 1 (f32 bits) and beta = 0.
const Arg kGemm256[] = {kF16Matrix,      kF16Matrix,      kF32Matrix,
                        Arg::value(256), Arg::value(256), Arg::value(256),
                        Arg::value(0x3f800000), Arg::value(0)};

TEST_F(ExamplesProfileTest, TensorCoreMatmul) {
  // 256^3: 16 blocks of 8 warps, 16 K steps, 4 mma per warp and step.
  const KernelProfile &k =
      profile("tensor_core_matmul", {4, 4}, {256},
              kMatmul256);
  EXPECT_EQ(mix(k, "mma.m16n8k16.f32.f16.f16.f32"), 8192u);
  EXPECT_EQ(k.mmaFlops.at("f16"), 2ull * 256 * 256 * 256);
  // Per warp and K step: one ldmatrix.x4 per A fragment (2) and one
  // ldmatrix.x2.trans per B fragment (2).
  EXPECT_EQ(mix(k, "ldmatrix.x4"), 4096u);
  EXPECT_EQ(mix(k, "ldmatrix.x2.trans"), 4096u);
  // No bank conflicts: the tiles are XOR-swizzled (Swizzle<3, 4, 3> from
  // the layout table), which keeps both the ldmatrix row reads and the
  // cp.async chunk writes in distinct banks. (With the 16-byte padding used
  // before, the A tile's 48-byte rows gave the cp.async writes 4096
  // conflicts.)
  const SharedStats &ldm = k.shared.at("ldmatrix");
  EXPECT_EQ(ldm.wavefronts, 24576u);
  EXPECT_EQ(ldm.bankConflicts(), 0u);
  const SharedStats &cp = k.shared.at("cp.async");
  EXPECT_EQ(cp.requests, 2048u);
  EXPECT_EQ(cp.wavefronts, 8192u);
  EXPECT_EQ(cp.bankConflicts(), 0u);
  EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u);
  // Global: 16-byte cp.async copies, full sectors; the fragment epilogue
  // of an interior tile stores each lane's f32 pairs with one 8-byte store:
  // 8 rows x 32 bytes, 8 sectors, the ideal (scalar stores took 16).
  const GlobalStats &src = k.global.at("cp.async");
  EXPECT_EQ(src.sectors, 32768u);
  EXPECT_EQ(src.idealSectors, 32768u);
  EXPECT_DOUBLE_EQ(src.sectorsPerRequest(), 16.0);
  const GlobalStats &st = k.global.at("st.global");
  EXPECT_EQ(st.sectors, 8192u);
  EXPECT_EQ(st.idealSectors, 8192u);
  EXPECT_EQ(mix(k, "st.global.8B"), 1024u);
  EXPECT_EQ(mix(k, "st.global.4B"), 0u);
  EXPECT_EQ(k.compulsoryBytesRead, 2u * 256 * 256 * 2);
  EXPECT_EQ(k.compulsoryBytesWritten, 256u * 256 * 4);
  EXPECT_EQ(k.divergentBranches, 0u);
  // Where the instructions go. Before loop-invariant code motion, shifts
  // for power-of-two division and the unrolled block copy this was 254080
  // warp instructions with 29184 integer divisions (mma 3% of the issues);
  // the copies' bounds arithmetic is still most of the rest. (121600 when
  // every ldmatrix had its own hoisted address: the shared base + offset +
  // constant form costs an add in the interpreter that ptxas folds into
  // the address. 123648 before kaio-to-ptx split swizzled offsets: the
  // copies' element-wise fallback stores, never run here, now xor one
  // base with constants, whose 6 movs a warp run at entry. 124032 while
  // reading %tid.x had unknown effects: the fallback's second read is now
  // merged with the first by the final CSE.)
  EXPECT_EQ(k.warpInstructions, 123904u);
  EXPECT_EQ(mix(k, "int.div"), 0u);
}

// examples/hopper_gemm.mlir at 256^3 (two 128 x 256 tiles, one per block,
// four K tiles each): 256 m64n256k16 wgmma (4 per K tile per consumer
// warpgroup, counted per warp), five TMA boxes per K tile, and an epilogue
// of 8-byte stores
// whose requests touch exactly the sectors they need. The warp instruction
// count pins the whole kernel: a lowering that adds work to the loops
// shows here.
TEST_F(ExamplesProfileTest, HopperGemm) {
  std::string path = KAIO_SOURCE_DIR "/examples/hopper_gemm.mlir";
  module = parseSourceFile<ModuleOp>(path, &context);
  ASSERT_TRUE(module && succeeded(kaio::lowerToPTXDialect(
                            *module, kaio::CompileOptions())));
  interp = std::make_unique<Interpreter>(*module);
  const uint32_t n = 256;
  uint64_t a = interp->allocGlobal(n * n * 2), b = interp->allocGlobal(n * n * 2),
           c = interp->allocGlobal(n * n * 4);
  uint64_t ma = kaio::test::makeTensorMap2D(*interp, a, n, n, 128, 64,
                                            kaio::rt::TensorMapSwizzle::B128);
  uint64_t mb = kaio::test::makeTensorMap2D(*interp, b, n, n, 64, 64,
                                            kaio::rt::TensorMapSwizzle::B128);
  LaunchOptions opts;
  opts.profile = &prof;
  LaunchResult r = interp->launch("hopper_gemm", {2}, {384},
                                  {ma, mb, c, n, n, n}, opts);
  ASSERT_TRUE(r.success) << r.message();
  const KernelProfile &k = *prof.find("hopper_gemm");
  EXPECT_EQ(mix(k, "wgmma.m64n256k16.f32.f16.f16"), 256u);
  EXPECT_EQ(mix(k, "cp.async.bulk.tensor.load"), 40u);
  EXPECT_EQ(mix(k, "st.global.8B"), 1024u);
  EXPECT_DOUBLE_EQ(k.global.at("st.global").sectorsPerRequest(), 8.0);
  EXPECT_EQ(k.globalBytesRead, 0u); // A and B only through TMA
  // 17736 with 128 x 128 tiles; 12560 before kaio-rematerialize-offsets
  // moved the producer's TMA column offsets (x + 64 c) back into its loop;
  // 12578 before the descriptors masked their 14-bit address field (an
  // and per descriptor: a CTA of rank > 0 of a cluster sees its shared
  // addresses with high bits set); 12730 while reads of special registers
  // that cannot change (ids) had unknown effects: CSE merges them now.
  EXPECT_EQ(k.warpInstructions, 12714u);
}

TEST_F(ExamplesProfileTest, TensorCoreMatmulPipelined) {
  const KernelProfile &k =
      profile("tensor_core_matmul_pipelined", {4, 4}, {256},
              kMatmul256);
  EXPECT_EQ(mix(k, "mma.m16n8k16.f32.f16.f16.f32"), 8192u);
  EXPECT_EQ(k.shared.at("ldmatrix").bankConflicts(), 0u);
  // The prologue's and the last step's extra copies: 17 stages issued per
  // block where the plain kernel issues 16 (zero-filled past K).
  EXPECT_EQ(k.shared.at("cp.async").requests, 2176u);
  EXPECT_EQ(k.shared.at("cp.async").bankConflicts(), 0u);
  EXPECT_DOUBLE_EQ(k.global.at("cp.async").sectorsPerRequest(), 16.0);
}

TEST_F(ExamplesProfileTest, TensorCoreMatmulAlignedVariant) {
  // The library's variant for 16-byte aligned rows (kaio.aligned_copies):
  // the copies lose their run-time alignment test and element-wise path.
  // 35552 warp instructions where the general kernel issues 38240; ptxas
  // -v for sm_90: 98 registers where the general kernel needs 172 (128 and
  // 173 before the chunks and fragments at constant steps shared their
  // address registers).
  const KernelProfile &k =
      profile("tensor_core_matmul_tiled", {2, 2}, {256}, kGemm256,
              kaio::KaioDialect::kAlignedCopiesAttrName);
  EXPECT_EQ(mix(k, "mma.m16n8k16.f32.f16.f16.f32"), 8192u);
  // 36000 before the ldmatrix steps of a swizzled tile became XORs; 35552
  // before CSE merged repeated reads of %tid.x.
  EXPECT_EQ(k.warpInstructions, 35520u);
  EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u);
  EXPECT_DOUBLE_EQ(k.global.at("cp.async").sectorsPerRequest(), 16.0);
}

TEST_F(ExamplesProfileTest, TensorCoreMatmulWithWarpTiles) {
  // 256^3 with 128 x 128 block tiles: 4 blocks of 8 warps, 8 K steps of 32,
  // 32 mma.sync per warp and step.
  const KernelProfile &k =
      profile("tensor_core_matmul_tiled", {2, 2}, {256},
              kGemm256);
  EXPECT_EQ(mix(k, "mma.m16n8k16.f32.f16.f16.f32"), 8192u);
  EXPECT_EQ(k.mmaFlops.at("f16"), 2ull * 256 * 256 * 256);
  // Per warp and step: 8 ldmatrix.x4 for the A tile, 4 paired
  // ldmatrix.x4.trans for the B tile (8 x2.trans without pairing).
  EXPECT_EQ(mix(k, "ldmatrix.x4"), 2048u);
  EXPECT_EQ(mix(k, "ldmatrix.x4.trans"), 1024u);
  EXPECT_EQ(mix(k, "ldmatrix.x2.trans"), 0u);
  // Swizzled stages: no bank conflicts anywhere; 16-byte copies.
  EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u);
  EXPECT_EQ(k.shared.at("ldmatrix").wavefronts, 12288u);
  EXPECT_DOUBLE_EQ(k.global.at("cp.async").sectorsPerRequest(), 16.0);
  EXPECT_EQ(k.global.at("cp.async").sectors,
            k.global.at("cp.async").idealSectors);
  EXPECT_EQ(k.divergentBranches, 0u);
  // 5.4 warp instructions per mma (the 64 x 64 example: 14.8); most of
  // the rest is the copies' alignment and bounds tests and the epilogue
  // (2048 of them the alpha multiply). An interior tile's chunk is one
  // 64-bit add from the previous chunk's address (45088 when each chunk
  // recomputed (corner + offset) x 2 + base, 43936 with a hoisted offset
  // per chunk, 41440 before constant address steps became [reg+imm]
  // operands: ptx-fold-address-offsets, 38688 before a k step of a
  // swizzled tile's ldmatrix, along k and along a warp's columns, became
  // one XOR of the first step's address; 38240 before the element-wise
  // copy fallback's stores xored a shared base with constants: 6 constant
  // movs a warp at entry; 38336 before CSE merged repeated reads of
  // %tid.x, once they were effect-free).
  EXPECT_EQ(k.warpInstructions, 38304u);
  // beta == 0: C is only written, never read.
  EXPECT_EQ(k.global.count("ld.global"), 0u);
  EXPECT_EQ(k.global.at("st.global").sectors,
            k.global.at("st.global").idealSectors);
}

TEST_F(ExamplesProfileTest, TensorCoreMatmulStaged) {
  // The three-stage pipeline built from the short loop: the same mma and
  // ldmatrix work as the hand-rotated kernel, conflict-free, one barrier a
  // K step (the next copies issued after it).
  const KernelProfile &k =
      profile("tensor_core_matmul_staged", {2, 2}, {256}, kMatmul256);
  EXPECT_EQ(mix(k, "mma.m16n8k16.f32.f16.f16.f32"), 8192u);
  EXPECT_EQ(mix(k, "ldmatrix.x4"), 2048u);
  EXPECT_EQ(mix(k, "ldmatrix.x4.trans"), 1024u);
  EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u);
  EXPECT_DOUBLE_EQ(k.global.at("cp.async").sectorsPerRequest(), 16.0);
  // 8 K steps: 8 copies of A and of B per block (the copies past the end
  // are predicated off: they read nothing).
  EXPECT_EQ(k.global.at("cp.async").bytes, 4u * 2 * 8 * 128 * 32 * 2);
  EXPECT_EQ(mix(k, "bar"), 4u * 8 * 8) << "a barrier per warp and K step";
}

TEST_F(ExamplesProfileTest, TiledMatmul) {
  // 64^3 f32 with 16 x 16 tiles: shared loads are conflict-free; the stores
  // into the A/B tiles, whose rows are padded to 17 floats, are 2-way
  // conflicted (the two half-warp rows of a warp overlap by one bank).
  const KernelProfile &k =
      profile("tiled_matmul", {4, 4}, {16, 16},
              {Arg::buffer(64 * 64 * 4), Arg::buffer(64 * 64 * 4),
               Arg::buffer(64 * 64 * 4), Arg::value(64), Arg::value(64),
               Arg::value(64)});
  EXPECT_EQ(k.shared.at("ld.shared").requests, 16384u);
  EXPECT_EQ(k.shared.at("ld.shared").bankConflicts(), 0u);
  EXPECT_EQ(k.shared.at("st.shared").requests, 1024u);
  EXPECT_EQ(k.shared.at("st.shared").bankConflicts(), 1024u);
  EXPECT_DOUBLE_EQ(k.global.at("ld.global").sectorsPerRequest(), 4.0);
  EXPECT_EQ(k.scalarFlops.at("fp32"), 2u * 64 * 64 * 64);
}

TEST_F(ExamplesProfileTest, RowSoftmax) {
  const KernelProfile &k =
      profile("row_softmax", {4}, {256},
              {Arg::buffer(4096 * 4), Arg::buffer(4096 * 4), Arg::value(4),
               Arg::value(1024)});
  EXPECT_EQ(k.sharedTotal().bankConflicts(), 0u);
  EXPECT_EQ(k.globalTotal().sectors, k.globalTotal().idealSectors);
  // Three passes over each 4 KB row (max, sum, write) and one store pass.
  EXPECT_EQ(k.globalBytesRead, 3u * 4096 * 4);
  EXPECT_EQ(k.globalBytesWritten, 4096u * 4);
}

TEST_F(ExamplesProfileTest, VectorScaleV4) {
  // 1024 floats with 16-byte accesses: 8 warp requests each way, 16 sectors
  // (512 bytes) per request, no scalar tail.
  const KernelProfile &k =
      profile("vector_scale_v4", {1}, {256},
              {Arg::value(0x40000000), Arg::buffer(4096), Arg::buffer(4096),
               Arg::value(1024)});
  EXPECT_EQ(mix(k, "ld.global.16B"), 8u);
  EXPECT_EQ(mix(k, "st.global.16B"), 8u);
  EXPECT_EQ(mix(k, "ld.global.4B"), 0u);
  EXPECT_DOUBLE_EQ(k.global.at("ld.global").sectorsPerRequest(), 16.0);
  EXPECT_EQ(k.global.at("ld.global").idealSectors, 128u);
}

} // namespace
