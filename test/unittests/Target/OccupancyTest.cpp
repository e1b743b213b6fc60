//===- OccupancyTest.cpp - the occupancy calculator and chip limits -------===//
//
// Expected values are worked by hand from the rules in PTXInfo.cpp (the CUDA
// occupancy calculator's): warps per block = ceil(threads / 32); registers
// per warp = roundUp(regs * 32, 256), and an SM holds
// floor(16384 / regs-per-warp) warps in each of its 4 register partitions;
// shared memory per block = roundUp(bytes + 1 KiB reserve, 128) on sm_80+.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"

#include "gtest/gtest.h"

using namespace kaio::ptx;

namespace {

const ChipInfo &chip(llvm::StringRef name) {
  const ChipInfo *info = lookupChip(name);
  EXPECT_NE(info, nullptr) << name.str();
  return *info;
}

TEST(OccupancyTest, EveryChipHasLimits) {
  for (const ChipInfo &c : getChips()) {
    const SMResources &sm = c.resources;
    EXPECT_EQ(sm.registersPerSM, 65536u) << c.name.str();
    EXPECT_EQ(sm.maxRegistersPerThread, 255u) << c.name.str();
    EXPECT_EQ(sm.maxThreadsPerBlock, 1024u) << c.name.str();
    EXPECT_GE(sm.maxWarpsPerSM, 32u) << c.name.str();
    // The largest block plus the driver's reserve fits in one SM.
    EXPECT_EQ(c.maxSharedPerBlock + sm.reservedSharedPerBlock, sm.sharedPerSM)
        << c.name.str();
  }
  EXPECT_EQ(chip("sm_86").resources.maxWarpsPerSM, 48u);
  EXPECT_EQ(chip("sm_86").resources.maxBlocksPerSM, 16u);
  EXPECT_EQ(chip("sm_89").resources.maxBlocksPerSM, 24u);
  EXPECT_EQ(chip("sm_75").resources.maxWarpsPerSM, 32u);
  EXPECT_EQ(chip("sm_75").resources.reservedSharedPerBlock, 0u);
  EXPECT_EQ(chip("sm_90a").resources.sharedPerSM, 228u * 1024);
}

TEST(OccupancyTest, FullOccupancy) {
  // sm_80, 256 threads (8 warps), 32 registers, no shared memory:
  //   warps:     64 / 8 = 8 blocks
  //   registers: 32 * 32 = 1024 per warp; 16384 / 1024 = 16 warps per
  //              partition, 64 per SM; 64 / 8 = 8 blocks
  //   shared:    roundUp(0 + 1024, 128) = 1024; 167936 / 1024 = 164 blocks
  // → 8 blocks, 64 warps, 100 %, warps and registers both at their limit.
  Occupancy occ = computeOccupancy(chip("sm_80"), 256, 32, 0);
  EXPECT_EQ(occ.blocksPerSM, 8u);
  EXPECT_EQ(occ.warpsPerSM, 64u);
  EXPECT_DOUBLE_EQ(occ.getFraction(), 1.0);
  EXPECT_EQ(occ.limiter, OccupancyLimit::Warps);
  EXPECT_TRUE(occ.isLimitedBy(OccupancyLimit::Registers));
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::SharedMemory), 164u);
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::Blocks), 32u);
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::Barriers), Occupancy::kNoLimit);
  EXPECT_EQ(occ.registersPerBlock, 8192u);
  EXPECT_EQ(occ.sharedPerBlock, 1024u);
}

TEST(OccupancyTest, RegisterLimited) {
  // sm_90, 256 threads (8 warps), 128 registers: 128 * 32 = 4096 per warp;
  // 16384 / 4096 = 4 warps per partition, 16 per SM; 16 / 8 = 2 blocks
  // (warps would allow 8) → 16 of 64 warps, 25 %.
  Occupancy occ = computeOccupancy(chip("sm_90"), 256, 128, 0);
  EXPECT_EQ(occ.blocksPerSM, 2u);
  EXPECT_EQ(occ.warpsPerSM, 16u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::Registers);
  EXPECT_DOUBLE_EQ(occ.getFraction(), 0.25);

  // 1024 threads (32 warps), 64 registers: 2048 per warp; the launch check
  // needs 2048 * 32 = 65536 <= 65536 registers per block; 16384 / 2048 = 8
  // warps per partition, 32 per SM → 1 block (warps would allow 2), 50 %.
  occ = computeOccupancy(chip("sm_80"), 1024, 64, 0);
  EXPECT_EQ(occ.blocksPerSM, 1u);
  EXPECT_EQ(occ.warpsPerSM, 32u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::Registers);
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::Warps), 2u);

  // Registers are counted per partition, not per SM: sm_90, 64 threads
  // (2 warps), 40 registers: 1280 per warp; 16384 / 1280 = 12 warps per
  // partition, 48 per SM → 24 blocks (the SM-wide 65536 / 1280 = 51 warps
  // would give 25); warps and blocks allow 32 → 48 of 64 warps, 75 %.
  occ = computeOccupancy(chip("sm_90"), 64, 40, 0);
  EXPECT_EQ(occ.blocksPerSM, 24u);
  EXPECT_EQ(occ.warpsPerSM, 48u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::Registers);

  // Registers round up to 256 per warp: 33 * 32 = 1056 → 1280.
  occ = computeOccupancy(chip("sm_80"), 128, 33, 0);
  EXPECT_EQ(occ.registersPerBlock, 4u * 1280);
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::Registers), 12u);
}

TEST(OccupancyTest, SharedMemoryLimited) {
  // sm_80, 128 threads, 32 registers, 48 KiB: roundUp(49152 + 1024, 128) =
  // 50176 bytes per block; 167936 / 50176 = 3.3 → 3 blocks (warps and
  // registers allow 16) → 12 of 64 warps.
  Occupancy occ = computeOccupancy(chip("sm_80"), 128, 32, 48 * 1024);
  EXPECT_EQ(occ.blocksPerSM, 3u);
  EXPECT_EQ(occ.warpsPerSM, 12u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::SharedMemory);
  EXPECT_EQ(occ.sharedPerBlock, 50176u);

  // Rounding to the 128-byte unit: 100 + 1024 → 1152; 167936 / 1152 = 145.
  occ = computeOccupancy(chip("sm_80"), 32, 16, 100);
  EXPECT_EQ(occ.sharedPerBlock, 1152u);
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::SharedMemory), 145u);

  // sm_75 reserves nothing and allocates in 256-byte units: 100 → 256;
  // 65536 / 256 = 256 blocks.
  occ = computeOccupancy(chip("sm_75"), 32, 16, 100);
  EXPECT_EQ(occ.sharedPerBlock, 256u);
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::SharedMemory), 256u);
  // ... and no shared memory is no limit there.
  occ = computeOccupancy(chip("sm_75"), 32, 16, 0);
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::SharedMemory), Occupancy::kNoLimit);

  // The most a block may use (163 KiB on sm_80) fits once; a byte more
  // does not fit at all.
  occ = computeOccupancy(chip("sm_80"), 128, 32, 166912);
  EXPECT_EQ(occ.blocksPerSM, 1u);
  occ = computeOccupancy(chip("sm_80"), 128, 32, 166913);
  EXPECT_EQ(occ.blocksPerSM, 0u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::SharedMemory);
}

TEST(OccupancyTest, BlockAndBarrierLimits) {
  // sm_86: 48 warps and 16 blocks per SM. 32 threads (1 warp), 16
  // registers: warps allow 48, registers 16384 / 512 * 4 = 128, shared
  // 102400 / 1024 = 100, blocks 16 → 16 blocks, 16 of 48 warps.
  Occupancy occ = computeOccupancy(chip("sm_86"), 32, 16, 0);
  EXPECT_EQ(occ.maxWarpsPerSM, 48u);
  EXPECT_EQ(occ.blocksPerSM, 16u);
  EXPECT_EQ(occ.warpsPerSM, 16u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::Blocks);
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::Warps), 48u);

  // sm_86 has one block barrier per block slot (16 per SM): a kernel using
  // two gets 8 blocks although warps (48 / 4 = 12) allow more.
  occ = computeOccupancy(chip("sm_86"), 128, 32, 0, /*barriersPerBlock=*/2);
  EXPECT_EQ(occ.blocksPerSM, 8u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::Barriers);
  // sm_80 has two per slot (64 per SM): 64 / 2 = 32, no limit below warps.
  occ = computeOccupancy(chip("sm_80"), 128, 32, 0, 2);
  EXPECT_EQ(occ.getBlocksBy(OccupancyLimit::Barriers), 32u);
  EXPECT_EQ(occ.blocksPerSM, 16u);
}

TEST(OccupancyTest, BlocksThatDoNotFit) {
  // More than 1024 threads never launch.
  Occupancy occ = computeOccupancy(chip("sm_90"), 1056, 16, 0);
  EXPECT_EQ(occ.blocksPerSM, 0u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::Warps);
  // 1024 threads at 65 registers: 65 * 32 = 2080 → 2304 per warp, 32 warps
  // need 73728 > 65536 registers per block.
  occ = computeOccupancy(chip("sm_80"), 1024, 65, 0);
  EXPECT_EQ(occ.blocksPerSM, 0u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::Registers);
  // More than 255 registers per thread.
  occ = computeOccupancy(chip("sm_80"), 32, 256, 0);
  EXPECT_EQ(occ.blocksPerSM, 0u);
  EXPECT_EQ(occ.limiter, OccupancyLimit::Registers);
  // No threads: nothing to place.
  occ = computeOccupancy(chip("sm_80"), 0, 32, 0);
  EXPECT_EQ(occ.blocksPerSM, 0u);
  EXPECT_EQ(occ.warpsPerSM, 0u);
}

TEST(OccupancyTest, GPUs) {
  const GPUInfo *h100 = lookupGPU("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(getDefaultGPU(chip("sm_90")), h100);
  EXPECT_EQ(getDefaultGPU(chip("sm_90a")), h100);
  EXPECT_EQ(getDefaultGPU(chip("sm_80")), lookupGPU("a100-sxm4-80gb"));
  EXPECT_EQ(getDefaultGPU(chip("sm_89")), lookupGPU("rtx-4090"));
  EXPECT_EQ(getDefaultGPU(chip("sm_86")), nullptr);
  ASSERT_NE(lookupGPU("l4"), nullptr);
  EXPECT_EQ(lookupGPU("l4")->sm, 89u);
  EXPECT_EQ(lookupGPU("h200"), nullptr);
  for (const GPUInfo &gpu : getGPUs()) {
    EXPECT_GT(gpu.dramTBps, 0) << gpu.name.str();
    EXPECT_GT(gpu.fp32, 0) << gpu.name.str();
    // Tensor cores outrun the CUDA cores at f16.
    EXPECT_GT(gpu.tensorF16, gpu.fp32) << gpu.name.str();
  }
}

} // namespace
