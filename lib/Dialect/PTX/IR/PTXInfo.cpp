//===- PTXInfo.cpp - facts about PTX targets, types and mma ---------------===//

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kaio::ptx;

//===----------------------------------------------------------------------===//
// Chips
//===----------------------------------------------------------------------===//

// Per-SM resources by compute capability: the CUDA C++ Programming Guide,
// "Compute Capabilities", table "Technical Specifications per Compute
// Capability" (registers per SM and per block, 255 registers per thread,
// 1024 threads per block, resident warps and blocks per SM, shared memory per
// SM, and the 1 KiB the driver reserves per block from 8.0 on), and the CUDA
// Occupancy Calculator (cuda_occupancy.h in the toolkit) for what the guide
// leaves out: shared memory allocated in 256-byte units before 8.0 and
// 128-byte units since, registers in 256-register units per warp from each
// of the 4 SM sub-partitions' quarter of the register file, and the number
// of block barriers per SM (2 per resident block, 1 on 8.6, 8.7, 8.9, 12.x).
//
//   {regs/SM, regs/block, regs/thread, threads/block, warps/SM, blocks/SM,
//    shared/SM, reserved shared/block, shared unit, register unit,
//    register partitions, barriers per block slot}
static constexpr SMResources kSM75 = {65536, 65536, 255, 1024, 32, 16,
                                      65536, 0,     256, 256,  4,  2};
static constexpr SMResources kSM80 = {65536,  65536, 255, 1024, 64, 32,
                                      167936, 1024,  128, 256,  4,  2};
static constexpr SMResources kSM86 = {65536,  65536, 255, 1024, 48, 16,
                                      102400, 1024,  128, 256,  4,  1};
static constexpr SMResources kSM87 = {65536,  65536, 255, 1024, 48, 16,
                                      167936, 1024,  128, 256,  4,  1};
static constexpr SMResources kSM89 = {65536,  65536, 255, 1024, 48, 24,
                                      102400, 1024,  128, 256,  4,  1};
static constexpr SMResources kSM90 = {65536,  65536, 255, 1024, 64, 32,
                                      233472, 1024,  128, 256,  4,  2};
static constexpr SMResources kSM100 = kSM90;
static constexpr SMResources kSM120 = {65536,  65536, 255, 1024, 48, 24,
                                       102400, 1024,  128, 256,  4,  1};

// Shared memory limits per block from the same table; static .shared
// declarations are capped at 48 KiB on every chip.
static constexpr ChipInfo kChips[] = {
    {"sm_75", 75, false, 63, 65536, 49152, kSM75},
    {"sm_80", 80, false, 70, 166912, 49152, kSM80},
    {"sm_86", 86, false, 71, 101376, 49152, kSM86},
    {"sm_87", 87, false, 74, 166912, 49152, kSM87},
    {"sm_89", 89, false, 78, 101376, 49152, kSM89},
    {"sm_90", 90, false, 78, 232448, 49152, kSM90},
    {"sm_90a", 90, true, 80, 232448, 49152, kSM90},
    {"sm_100", 100, false, 86, 232448, 49152, kSM100},
    {"sm_100a", 100, true, 86, 232448, 49152, kSM100},
    {"sm_120", 120, false, 87, 101376, 49152, kSM120},
    {"sm_120a", 120, true, 87, 101376, 49152, kSM120},
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

std::string kaio::ptx::formatSMRequirement(const PTXRequirement &req) {
  return formatSM(req) + (req.archSpecific ? " (arch-specific)" : " or newer");
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
// Special registers
//===----------------------------------------------------------------------===//

// PTX ISA 9.0, "Special Registers": widths, the target and ISA version
// that introduced each (the cluster registers: sm_90, PTX 7.8), and whether
// a thread may read different values at different times (the clocks and
// timer; %warpid and %smid, which "may change during execution, e.g., due
// to rescheduling of threads following preemption"). Indexed by SpecialReg.
// A register added here that varies (%clock_hi, %globaltimer_lo/hi,
// %pm0..7) must say so: reads of the others are merged, moved and dropped.
#define KAIO_SREG(REG, BITS, SM, ISA, VARIES)                                  \
  {SpecialReg::REG, BITS, PTXRequirement{SM, ISA}, VARIES}
static const SpecialRegInfo kSpecialRegs[] = {
    KAIO_SREG(tid_x, 32, 0, 0, false),
    KAIO_SREG(tid_y, 32, 0, 0, false),
    KAIO_SREG(tid_z, 32, 0, 0, false),
    KAIO_SREG(ntid_x, 32, 0, 0, false),
    KAIO_SREG(ntid_y, 32, 0, 0, false),
    KAIO_SREG(ntid_z, 32, 0, 0, false),
    KAIO_SREG(ctaid_x, 32, 0, 0, false),
    KAIO_SREG(ctaid_y, 32, 0, 0, false),
    KAIO_SREG(ctaid_z, 32, 0, 0, false),
    KAIO_SREG(nctaid_x, 32, 0, 0, false),
    KAIO_SREG(nctaid_y, 32, 0, 0, false),
    KAIO_SREG(nctaid_z, 32, 0, 0, false),
    KAIO_SREG(laneid, 32, 0, 0, false),
    KAIO_SREG(warpid, 32, 0, 0, true),
    KAIO_SREG(nwarpid, 32, 0, 0, false),
    KAIO_SREG(smid, 32, 0, 0, true),
    KAIO_SREG(nsmid, 32, 0, 0, false),
    KAIO_SREG(clock, 32, 0, 0, true),
    KAIO_SREG(clock64, 64, 0, 0, true),
    KAIO_SREG(globaltimer, 64, 0, 0, true),
    KAIO_SREG(dynamic_smem_size, 32, 0, 0, false),
    KAIO_SREG(total_smem_size, 32, 0, 0, false),
    KAIO_SREG(lanemask_eq, 32, 0, 0, false),
    KAIO_SREG(lanemask_lt, 32, 0, 0, false),
    KAIO_SREG(lanemask_le, 32, 0, 0, false),
    KAIO_SREG(lanemask_gt, 32, 0, 0, false),
    KAIO_SREG(lanemask_ge, 32, 0, 0, false),
    KAIO_SREG(clusterid_x, 32, 90, 78, false),
    KAIO_SREG(clusterid_y, 32, 90, 78, false),
    KAIO_SREG(clusterid_z, 32, 90, 78, false),
    KAIO_SREG(nclusterid_x, 32, 90, 78, false),
    KAIO_SREG(nclusterid_y, 32, 90, 78, false),
    KAIO_SREG(nclusterid_z, 32, 90, 78, false),
    KAIO_SREG(cluster_ctaid_x, 32, 90, 78, false),
    KAIO_SREG(cluster_ctaid_y, 32, 90, 78, false),
    KAIO_SREG(cluster_ctaid_z, 32, 90, 78, false),
    KAIO_SREG(cluster_nctaid_x, 32, 90, 78, false),
    KAIO_SREG(cluster_nctaid_y, 32, 90, 78, false),
    KAIO_SREG(cluster_nctaid_z, 32, 90, 78, false),
    KAIO_SREG(cluster_ctarank, 32, 90, 78, false),
    KAIO_SREG(cluster_nctarank, 32, 90, 78, false),
    KAIO_SREG(is_explicit_cluster, 1, 90, 78, false),
};
#undef KAIO_SREG

const SpecialRegInfo &kaio::ptx::getSpecialRegInfo(SpecialReg reg) {
  const SpecialRegInfo &info = kSpecialRegs[static_cast<unsigned>(reg)];
  assert(info.reg == reg && "kSpecialRegs out of order with SpecialReg");
  return info;
}

//===----------------------------------------------------------------------===//
// Occupancy
//===----------------------------------------------------------------------===//

StringRef kaio::ptx::stringifyOccupancyLimit(OccupancyLimit limit) {
  switch (limit) {
  case OccupancyLimit::Warps:
    return "warps";
  case OccupancyLimit::Blocks:
    return "blocks";
  case OccupancyLimit::Registers:
    return "registers";
  case OccupancyLimit::SharedMemory:
    return "shared memory";
  case OccupancyLimit::Barriers:
    return "barriers";
  }
  llvm_unreachable("unknown occupancy limit");
}

Occupancy kaio::ptx::computeOccupancy(const ChipInfo &chip,
                                      unsigned threadsPerBlock,
                                      unsigned registersPerThread,
                                      uint64_t sharedPerBlock,
                                      unsigned barriersPerBlock) {
  constexpr unsigned kWarpSize = 32;
  const SMResources &sm = chip.resources;
  Occupancy occ;
  occ.maxWarpsPerSM = sm.maxWarpsPerSM;
  occ.warpsPerBlock = llvm::divideCeil(threadsPerBlock, kWarpSize);
  auto limit = [&](OccupancyLimit which, uint64_t blocks) {
    occ.blocksBy[static_cast<unsigned>(which)] =
        blocks >= Occupancy::kNoLimit ? Occupancy::kNoLimit : blocks;
  };
  bool validBlock =
      threadsPerBlock > 0 && threadsPerBlock <= sm.maxThreadsPerBlock;

  limit(OccupancyLimit::Warps,
        validBlock ? sm.maxWarpsPerSM / occ.warpsPerBlock : 0);
  limit(OccupancyLimit::Blocks, sm.maxBlocksPerSM);

  // Registers go to warps in allocation units, each warp from one
  // sub-partition's share of the register file. The launch check assumes
  // the block's warps spread over every partition.
  uint64_t registersPerWarp = llvm::alignTo(
      uint64_t(registersPerThread) * kWarpSize, sm.registerAllocationUnit);
  occ.registersPerBlock = std::min<uint64_t>(
      registersPerWarp * occ.warpsPerBlock, Occupancy::kNoLimit);
  uint64_t registersAssumed =
      registersPerWarp *
      llvm::alignTo(occ.warpsPerBlock, sm.registerPartitions);
  uint64_t registersPerPartition = sm.registersPerSM / sm.registerPartitions;
  if (registersPerThread == 0 || !validBlock) {
    limit(OccupancyLimit::Registers, Occupancy::kNoLimit);
  } else if (registersPerThread > sm.maxRegistersPerThread ||
             registersAssumed > sm.maxRegistersPerBlock ||
             registersPerWarp > registersPerPartition) {
    limit(OccupancyLimit::Registers, 0);
  } else {
    uint64_t warps =
        registersPerPartition / registersPerWarp * sm.registerPartitions;
    limit(OccupancyLimit::Registers, warps / occ.warpsPerBlock);
  }

  // Shared memory: the block's bytes plus the driver's reserve, rounded up
  // to the allocation unit, out of the SM's largest carveout.
  occ.sharedPerBlock = llvm::alignTo(sharedPerBlock + sm.reservedSharedPerBlock,
                                     sm.sharedAllocationUnit);
  if (occ.sharedPerBlock >
      uint64_t(chip.maxSharedPerBlock) + sm.reservedSharedPerBlock)
    limit(OccupancyLimit::SharedMemory, 0);
  else
    limit(OccupancyLimit::SharedMemory,
          occ.sharedPerBlock ? sm.sharedPerSM / occ.sharedPerBlock
                             : Occupancy::kNoLimit);

  uint64_t barriersPerSM =
      uint64_t(sm.barriersPerBlockSlot) * sm.maxBlocksPerSM;
  limit(OccupancyLimit::Barriers, barriersPerBlock
                                      ? barriersPerSM / barriersPerBlock
                                      : Occupancy::kNoLimit);

  occ.blocksPerSM = Occupancy::kNoLimit;
  for (unsigned i = 0; i < kNumOccupancyLimits; ++i) {
    if (occ.blocksBy[i] < occ.blocksPerSM) {
      occ.blocksPerSM = occ.blocksBy[i];
      occ.limiter = static_cast<OccupancyLimit>(i);
    }
  }
  occ.warpsPerSM = occ.blocksPerSM * occ.warpsPerBlock;
  return occ;
}

//===----------------------------------------------------------------------===//
// GPUs
//===----------------------------------------------------------------------===//

// Dense rates, half the datasheets' "with sparsity" figures. GeForce parts
// run f16/bf16/fp8 tensor ops at half rate when they accumulate in f32;
// these rows give the f32-accumulate rates.
//
//   {name, product, sm, default for its sm, DRAM TB/s,
//    FP32, FP64, FP16 (non-tensor),
//    tensor F16, BF16, TF32, F64, FP8, INT8, INT4}
static constexpr GPUInfo kGPUs[] = {
    // NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column): 3.35 TB/s,
    // FP32 67, FP64 34, FP64 Tensor 67, TF32 989*, BF16/FP16 1,979*,
    // FP8 3,958*, INT8 3,958* TOPS (* with sparsity); non-tensor FP16 from
    // the NVIDIA H100 Tensor Core GPU Architecture whitepaper (133.8 for
    // SXM5). No INT4 tensor rate.
    {"h100-sxm", "NVIDIA H100 SXM5 80GB", 90, true, 3.35, 67, 34, 133.8,
     989.5, 989.5, 494.5, 67, 1979, 1979, 0},
    // NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM column):
    // 2,039 GB/s, FP32 19.5, FP64 9.7, FP64 Tensor 19.5, TF32 156,
    // BF16/FP16 312, INT8 624 TOPS; non-tensor FP16 (78) and INT4 (1,248
    // TOPS) from the NVIDIA A100 Tensor Core GPU Architecture whitepaper.
    // No FP8.
    {"a100-sxm4-80gb", "NVIDIA A100 SXM4 80GB", 80, true, 2.039, 19.5, 9.7,
     78, 312, 312, 156, 19.5, 0, 624, 1248},
    // NVIDIA Ada GPU Architecture whitepaper, GeForce RTX 4090 column:
    // 1,008 GB/s, FP32 82.6, non-tensor FP16 82.6, FP16/BF16 tensor with
    // FP32 accumulate 165.2, TF32 82.6, FP8 with FP32 accumulate 330.3,
    // INT8 660.6 TOPS, INT4 1,321.2 TOPS; FP64 at 1/64 of FP32 (CUDA C++
    // Programming Guide, arithmetic instruction throughput, 8.9). No FP64
    // tensor cores.
    {"rtx-4090", "NVIDIA GeForce RTX 4090", 89, true, 1.008, 82.6, 1.29,
     82.6, 165.2, 165.2, 82.6, 0, 330.3, 660.6, 1321.2},
    // NVIDIA L4 Tensor Core GPU datasheet: 300 GB/s, FP32 30.3, TF32 120*,
    // FP16/BF16 242*, FP8 485*, INT8 485* TOPS (* with sparsity); FP64 at
    // 1/64 of FP32 (as for the RTX 4090) and non-tensor FP16 at the FP32
    // rate (as for every Ada part in the Ada whitepaper).
    {"l4", "NVIDIA L4", 89, false, 0.3, 30.3, 0.473, 30.3, 121, 121, 60, 0,
     242.5, 242.5, 0},
};

ArrayRef<GPUInfo> kaio::ptx::getGPUs() { return kGPUs; }

const GPUInfo *kaio::ptx::lookupGPU(StringRef name) {
  for (const GPUInfo &gpu : kGPUs)
    if (gpu.name == name)
      return &gpu;
  return nullptr;
}

const GPUInfo *kaio::ptx::getDefaultGPU(const ChipInfo &chip) {
  for (const GPUInfo &gpu : kGPUs)
    if (gpu.isDefault && gpu.sm == chip.sm)
      return &gpu;
  return nullptr;
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
    {PTXType::e4m3, 8, TypeKind::Float},
    {PTXType::e5m2, 8, TypeKind::Float},
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

//===----------------------------------------------------------------------===//
// wgmma.mma_async
//===----------------------------------------------------------------------===//

// PTX ISA 9.0, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
// the dense variants and their modifiers, checked with ptxas 13.0. Every
// variant is sm_90a only; integer wgmma with mixed signedness needs PTX 8.4.
// Integer N: 8, 16, 24, then multiples of 16 up to 256; the rest every
// multiple of 8. The A fragment is always 4 registers (8 f16/bf16, 4 tf32 or
// 16 8-bit elements).
#define KAIO_WGMMA(D, A, B, K, NSTEP, ACCPERREG, MODS, ISA)                    \
  {PTXType::D, PTXType::A, PTXType::B, K, NSTEP, NSTEP == 16 ? 24 : 0,        \
   ACCPERREG, 4, MODS, PTXRequirement{90, ISA, true}}
static constexpr WgmmaModifier kHalfMods =
    WgmmaModifier::ScaleAB | WgmmaModifier::Transpose;
#define KAIO_WGMMA_FP8(A, B)                                                   \
  KAIO_WGMMA(f16, A, B, 32, 8, 2, WgmmaModifier::ScaleAB, 80),                 \
      KAIO_WGMMA(f32, A, B, 32, 8, 1, WgmmaModifier::ScaleAB, 80)
static const WgmmaVariant kWgmmaVariants[] = {
    KAIO_WGMMA(f16, f16, f16, 16, 8, 2, kHalfMods, 80),
    KAIO_WGMMA(f32, f16, f16, 16, 8, 1, kHalfMods, 80),
    KAIO_WGMMA(f32, bf16, bf16, 16, 8, 1, kHalfMods, 80),
    KAIO_WGMMA(f32, tf32, tf32, 8, 8, 1, WgmmaModifier::ScaleAB, 80),
    KAIO_WGMMA_FP8(e4m3, e4m3),
    KAIO_WGMMA_FP8(e4m3, e5m2),
    KAIO_WGMMA_FP8(e5m2, e4m3),
    KAIO_WGMMA_FP8(e5m2, e5m2),
    KAIO_WGMMA(s32, s8, s8, 32, 16, 1, WgmmaModifier::Satfinite, 80),
    KAIO_WGMMA(s32, u8, u8, 32, 16, 1, WgmmaModifier::Satfinite, 80),
    KAIO_WGMMA(s32, s8, u8, 32, 16, 1, WgmmaModifier::Satfinite, 84),
    KAIO_WGMMA(s32, u8, s8, 32, 16, 1, WgmmaModifier::Satfinite, 84),
};
#undef KAIO_WGMMA_FP8
#undef KAIO_WGMMA

ArrayRef<WgmmaVariant> kaio::ptx::getWgmmaVariants() { return kWgmmaVariants; }

const WgmmaVariant *kaio::ptx::lookupWgmma(PTXType d, PTXType a, PTXType b) {
  for (const WgmmaVariant &v : kWgmmaVariants)
    if (v.dType == d && v.aType == a && v.bType == b)
      return &v;
  return nullptr;
}

std::optional<WgmmaSwizzle> kaio::ptx::getWgmmaSwizzle(const Swizzle &swizzle) {
  if (swizzle.isIdentity())
    return WgmmaSwizzle::None;
  // Hopper's modes XOR the 16-byte chunk index (bits 4..) with the row of
  // the 8-row pattern (bits 7..): Swizzle<bits, 4, 3>.
  if (swizzle.base != 4 || swizzle.shift != 3)
    return std::nullopt;
  switch (swizzle.bits) {
  case 3:
    return WgmmaSwizzle::B128;
  case 2:
    return WgmmaSwizzle::B64;
  case 1:
    return WgmmaSwizzle::B32;
  default:
    return std::nullopt;
  }
}

uint64_t WgmmaDescriptor::encode() const {
  auto field = [](uint32_t bytes) { return uint64_t(bytes >> 4) & 0x3fff; };
  return field(startAddress) | field(leadingByteOffset) << 16 |
         field(strideByteOffset) << 32 | uint64_t(baseOffset & 7) << 49 |
         uint64_t(swizzle) << 62;
}

WgmmaDescriptor WgmmaDescriptor::decode(uint64_t bits) {
  auto field = [&](unsigned lsb) {
    return static_cast<uint32_t>((bits >> lsb) & 0x3fff) << 4;
  };
  WgmmaDescriptor d;
  d.startAddress = field(0);
  d.leadingByteOffset = field(16);
  d.strideByteOffset = field(32);
  d.baseOffset = (bits >> 49) & 7;
  d.swizzle = static_cast<WgmmaSwizzle>(bits >> 62);
  return d;
}

std::optional<uint64_t>
kaio::ptx::makeWgmmaDescriptor(uint32_t startAddress,
                               uint32_t leadingByteOffset,
                               uint32_t strideByteOffset,
                               const Swizzle &swizzle) {
  std::optional<WgmmaSwizzle> mode = getWgmmaSwizzle(swizzle);
  if (!mode)
    return std::nullopt;
  for (uint32_t bytes : {startAddress, leadingByteOffset, strideByteOffset})
    if (bytes % 16 != 0 || bytes >= (1u << 18))
      return std::nullopt;
  if (*mode != WgmmaSwizzle::None && startAddress % swizzle.periodBytes() != 0)
    return std::nullopt;
  return WgmmaDescriptor{startAddress, leadingByteOffset, strideByteOffset, 0,
                         *mode}
      .encode();
}
