//===- PTXInfo.h - facts about PTX targets, types and mma -------*- C++ -*-===//
//
// The tables every layer reads: chips, their ISA versions and per-SM
// resources (and the occupancy they allow), GPU peak rates, PTX instruction
// types and register classes, and the legal mma.sync and wgmma variants.
// Verifiers, the printer, the lowering, the interpreter and kaio-prof all use
// these; nothing else restates them.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_PTX_IR_PTXINFO_H
#define KAIO_DIALECT_PTX_IR_PTXINFO_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>

#include "Kaio/Dialect/PTX/IR/PTXEnums.h.inc"
#include "Kaio/Dialect/PTX/IR/Swizzle.h"

namespace kaio::ptx {

//===----------------------------------------------------------------------===//
// Requirements and chips
//===----------------------------------------------------------------------===//

/// What an op needs from its target: a minimum SM (75 = sm_75, 0 = none), a
/// minimum PTX ISA version times ten (78 = 7.8), and whether it needs the
/// architecture-specific chip (sm_90a).
struct PTXRequirement {
  unsigned sm = 0;
  unsigned isa = 0;
  bool archSpecific = false;

  /// The stricter of two requirements.
  PTXRequirement join(const PTXRequirement &other) const {
    return {std::max(sm, other.sm), std::max(isa, other.isa),
            archSpecific || other.archSpecific};
  }
};

/// What one SM of a compute capability holds, as the CUDA occupancy
/// calculator counts it. One row per compute capability in PTXInfo.cpp, with
/// the sources.
struct SMResources {
  unsigned registersPerSM;         // 32-bit registers
  unsigned maxRegistersPerBlock;
  unsigned maxRegistersPerThread;
  unsigned maxThreadsPerBlock;
  unsigned maxWarpsPerSM;
  unsigned maxBlocksPerSM;
  unsigned sharedPerSM;            // bytes, with the largest carveout
  unsigned reservedSharedPerBlock; // bytes the driver adds to every block
  unsigned sharedAllocationUnit;   // bytes
  unsigned registerAllocationUnit; // registers, allocated per warp
  unsigned registerPartitions;     // SM sub-partitions sharing the registers
  unsigned barriersPerBlockSlot;   // block barriers per SM / maxBlocksPerSM
};

struct ChipInfo {
  llvm::StringLiteral name; // "sm_90a"
  unsigned sm;              // 90
  bool archSpecific;        // the 'a' suffix
  unsigned minISA;          // lowest PTX ISA version (x10) naming this target
  unsigned maxSharedPerBlock;      // bytes, with the opt-in
  unsigned maxStaticSharedPerBlock; // bytes, without it
  SMResources resources;            // occupancy limits of its SM
};

/// Highest PTX ISA version (x10) that driver 580 / CUDA 13 JIT-compiles.
inline constexpr unsigned kMaxSupportedISA = 90;

llvm::ArrayRef<ChipInfo> getChips();
const ChipInfo *lookupChip(llvm::StringRef name);
/// Whether `chip` can run an op with requirement `req`.
bool satisfies(const ChipInfo &chip, const PTXRequirement &req);
/// "sm_80" / "sm_90a" for a requirement.
std::string formatSM(const PTXRequirement &req);
/// What a requirement asks of a chip, for diagnostics: "sm_80 or newer", or
/// "sm_90a (arch-specific)" where only that exact chip will do.
std::string formatSMRequirement(const PTXRequirement &req);
/// "7.8" for 78.
std::string formatISA(unsigned isa);
/// Parses "7.8" into 78.
std::optional<unsigned> parseISA(llvm::StringRef text);

//===----------------------------------------------------------------------===//
// Occupancy
//===----------------------------------------------------------------------===//

/// The resources that bound how many blocks an SM holds at once, in the
/// order that names the limiter when several allow the same count.
enum class OccupancyLimit : unsigned {
  Warps,
  Blocks,
  Registers,
  SharedMemory,
  Barriers,
};
inline constexpr unsigned kNumOccupancyLimits = 5;
/// "warps", "blocks", "registers", "shared memory", "barriers".
llvm::StringRef stringifyOccupancyLimit(OccupancyLimit limit);

/// Theoretical occupancy of one kernel launch configuration on one SM.
struct Occupancy {
  /// Blocks per SM that each resource allows (indexed by OccupancyLimit);
  /// kNoLimit where the kernel does not use the resource, 0 where one block
  /// does not fit (the launch fails).
  static constexpr unsigned kNoLimit = ~0u;
  unsigned blocksBy[kNumOccupancyLimits] = {};
  unsigned blocksPerSM = 0; // the smallest of blocksBy
  OccupancyLimit limiter = OccupancyLimit::Warps;
  unsigned warpsPerBlock = 0;
  unsigned warpsPerSM = 0;
  unsigned maxWarpsPerSM = 0;
  /// What one block is allocated: registers (per-warp granules) and shared
  /// memory (with the driver's reserve, rounded to the allocation unit).
  unsigned registersPerBlock = 0;
  uint64_t sharedPerBlock = 0;

  unsigned getBlocksBy(OccupancyLimit limit) const {
    return blocksBy[static_cast<unsigned>(limit)];
  }
  /// Whether `limit` allows no more blocks than the result.
  bool isLimitedBy(OccupancyLimit limit) const {
    return getBlocksBy(limit) == blocksPerSM;
  }
  /// Resident warps over the SM's maximum, in [0, 1].
  double getFraction() const {
    return maxWarpsPerSM ? double(warpsPerSM) / maxWarpsPerSM : 0.0;
  }
};

/// The CUDA occupancy calculator's rules for a block of `threadsPerBlock`
/// threads using `registersPerThread` registers, `sharedPerBlock` bytes of
/// shared memory (static + dynamic) and `barriersPerBlock` block barriers,
/// with the largest shared memory carveout.
Occupancy computeOccupancy(const ChipInfo &chip, unsigned threadsPerBlock,
                           unsigned registersPerThread,
                           uint64_t sharedPerBlock,
                           unsigned barriersPerBlock = 0);

//===----------------------------------------------------------------------===//
// GPUs
//===----------------------------------------------------------------------===//

/// Peak rates of one GPU product, for rooflines: DRAM bandwidth in TB/s
/// (1e12 bytes/s) and dense (no sparsity) arithmetic rates in TFLOP/s, or
/// TOP/s for integer tensor ops; 0 where the GPU has no such unit. Tensor
/// rates accumulate in f32 (s32 for integers). Sources in PTXInfo.cpp.
struct GPUInfo {
  llvm::StringLiteral name;    // "h100-sxm": what tools take
  llvm::StringLiteral product; // "NVIDIA H100 SXM5 80GB"
  unsigned sm;                 // its compute capability (90)
  bool isDefault;              // the GPU tools assume for chips of its SM
  double dramTBps;
  double fp32;                 // CUDA cores; an FMA counts as 2 FLOPs
  double fp64;
  double fp16;                 // scalar and packed f16/bf16 arithmetic
  double tensorF16, tensorBF16, tensorTF32, tensorF64, tensorFP8;
  double tensorINT8, tensorINT4;
};

llvm::ArrayRef<GPUInfo> getGPUs();
const GPUInfo *lookupGPU(llvm::StringRef name);
/// The default GPU for `chip` (sm_90 → h100-sxm), or null when none.
const GPUInfo *getDefaultGPU(const ChipInfo &chip);

//===----------------------------------------------------------------------===//
// Special registers
//===----------------------------------------------------------------------===//

/// A special register: its width (1 for a predicate, 32 or 64), the
/// target that has it, and whether its value may change while a thread runs
/// (a read of it then has effects: it is neither moved, merged nor dropped).
struct SpecialRegInfo {
  SpecialReg reg;
  unsigned bits;
  PTXRequirement requirement;
  bool varies;
};
const SpecialRegInfo &getSpecialRegInfo(SpecialReg reg);

//===----------------------------------------------------------------------===//
// Types and registers
//===----------------------------------------------------------------------===//

enum class TypeKind { Pred, Bits, Unsigned, Signed, Float };

struct PTXTypeInfo {
  PTXType type;
  unsigned bits;
  TypeKind kind;
};
const PTXTypeInfo &getTypeInfo(PTXType type);
inline unsigned getBitWidth(PTXType t) { return getTypeInfo(t).bits; }
inline TypeKind getKind(PTXType t) { return getTypeInfo(t).kind; }
inline bool isFloat(PTXType t) { return getKind(t) == TypeKind::Float; }
inline bool isSigned(PTXType t) { return getKind(t) == TypeKind::Signed; }
inline bool isUnsigned(PTXType t) { return getKind(t) == TypeKind::Unsigned; }
inline bool isInteger(PTXType t) { return isSigned(t) || isUnsigned(t); }
inline bool isBits(PTXType t) { return getKind(t) == TypeKind::Bits; }
inline bool isPacked(PTXType t) {
  return t == PTXType::f16x2 || t == PTXType::bf16x2;
}
inline bool isHalf(PTXType t) {
  return t == PTXType::f16 || t == PTXType::f16x2 || t == PTXType::bf16 ||
         t == PTXType::bf16x2;
}
inline bool isBF16(PTXType t) {
  return t == PTXType::bf16 || t == PTXType::bf16x2;
}
inline bool isFP8(PTXType t) {
  return t == PTXType::e4m3 || t == PTXType::e5m2;
}

/// A register class: one `.reg` declaration per class in the printed PTX.
struct RegisterClass {
  llvm::StringLiteral declType; // ".b32"
  llvm::StringLiteral prefix;   // "%r"
  unsigned bits;
};
/// The class of registers holding SSA values of `type`, if it is a register
/// type (i1, i16, i32, i64, f16, bf16, f32, f64, vector<2xf16|bf16>).
std::optional<RegisterClass> getRegisterClass(mlir::Type type);
/// All register classes, in declaration order.
llvm::ArrayRef<RegisterClass> getRegisterClasses();

/// PTX's operand type rule: a register of type `reg` may be used by an
/// instruction of type `type` when the declared register type is the bit
/// type of the same size, or the same type. `allowWider` admits registers
/// wider than the instruction type for integer/bit types (ld, st, cvt).
bool isRegisterCompatible(PTXType type, mlir::Type reg,
                          bool allowWider = false);

/// The builtin type of a register that holds values of `type`.
mlir::Type getRegisterType(mlir::MLIRContext *ctx, PTXType type);

/// The `.param` type for an entry argument of builtin type `type`
/// (i32 → u32, f32 → f32, i64 → u64, f16 → b16, ...).
std::optional<PTXType> getParamType(mlir::Type type);

//===----------------------------------------------------------------------===//
// mma.sync
//===----------------------------------------------------------------------===//

struct MmaShapeInfo {
  MMAShape shape;
  unsigned m, n, k;
};
MmaShapeInfo getMmaShapeInfo(MMAShape shape);

/// One legal mma.sync variant: shape, operand types (D and C share `accType`)
/// and per-thread register counts. Layouts are always A row, B col.
struct MmaVariant {
  MMAShape shape;
  PTXType aType, bType, accType;
  unsigned aRegs, bRegs, accRegs;
  PTXRequirement requirement;
};
llvm::ArrayRef<MmaVariant> getMmaVariants();
const MmaVariant *lookupMma(MMAShape shape, PTXType a, PTXType b,
                            PTXType acc);

/// Fragment layouts of mma.sync for the m16n8kK shapes (PTX ISA, "Matrix
/// Fragments for mma.m16n8k*"). Element `i` (0-based over the thread's
/// registers, `elemsPerReg` per 32-bit register) of lane `lane` holds matrix
/// element (row, col).
struct FragmentCoord {
  unsigned row, col;
};
FragmentCoord getMmaACoord(const MmaVariant &v, unsigned lane, unsigned i);
FragmentCoord getMmaBCoord(const MmaVariant &v, unsigned lane, unsigned i);
FragmentCoord getMmaAccCoord(const MmaVariant &v, unsigned lane, unsigned i);
/// Elements per 32-bit register of an operand of `type` (f16: 2, s8: 4, ...).
unsigned getElementsPerRegister(PTXType type);

//===----------------------------------------------------------------------===//
// wgmma.mma_async
//===----------------------------------------------------------------------===//

/// The immediate operands a wgmma.mma_async variant takes after scale-d
/// (which every variant takes, as an immediate 0/1 or a predicate).
enum class WgmmaModifier : unsigned {
  None = 0,
  ScaleAB = 1,   // imm-scale-a, imm-scale-b: 1 or -1 (negate A or B)
  Transpose = 2, // imm-trans-a (A from a descriptor), imm-trans-b: 0 or 1
  Satfinite = 4, // .satfinite (clamp instead of wrapping)
};
constexpr WgmmaModifier operator|(WgmmaModifier a, WgmmaModifier b) {
  return static_cast<WgmmaModifier>(static_cast<unsigned>(a) |
                                    static_cast<unsigned>(b));
}

/// One legal dense wgmma.mma_async.sync.aligned.m64nNkK type combination:
/// D += A * B on a warpgroup (128 threads), M = 64, D in registers, A in
/// registers or a shared-memory matrix descriptor, B a descriptor.
struct WgmmaVariant {
  PTXType dType, aType, bType;
  unsigned k;
  /// Legal N: multiples of `nStep` up to 256, and below `nFineUpTo` also
  /// every multiple of 8 (integer wgmma: 8, 16, 24, then steps of 16).
  unsigned nStep, nFineUpTo;
  /// Accumulator elements per 32-bit register: 2 for f16 (packed .f16x2),
  /// else 1. Each thread holds N / 2 accumulator elements (64 x N / 128).
  unsigned accPerReg;
  /// A fragment registers per thread (64 x K elements over 128 threads).
  unsigned aRegs;
  WgmmaModifier modifiers;
  PTXRequirement requirement;

  bool has(WgmmaModifier m) const {
    return (static_cast<unsigned>(modifiers) & static_cast<unsigned>(m)) != 0;
  }
  bool isLegalN(unsigned n) const {
    return n >= 8 && n <= 256 && n % 8 == 0 &&
           (n % nStep == 0 || n <= nFineUpTo);
  }
  /// Accumulator registers per thread for m64nNkK.
  unsigned getAccRegs(unsigned n) const { return n / 2 / accPerReg; }
};
llvm::ArrayRef<WgmmaVariant> getWgmmaVariants();
const WgmmaVariant *lookupWgmma(PTXType d, PTXType a, PTXType b);

/// The swizzle mode of a wgmma shared memory matrix (descriptor bits 62-63).
enum class WgmmaSwizzle : unsigned { None = 0, B128 = 1, B64 = 2, B32 = 3 };

/// The descriptor mode that reads a tile laid out with `swizzle` (Swizzle.h):
/// the identity is None, Swizzle<3|2|1, 4, 3> the 128/64/32-byte modes.
/// None (std::nullopt) for swizzles wgmma cannot read, such as the shifted
/// ones the layout table picks for rows wider than 128 bytes.
std::optional<WgmmaSwizzle> getWgmmaSwizzle(const Swizzle &swizzle);

/// The fields of a 64-bit wgmma shared memory matrix descriptor (PTX ISA,
/// "Matrix Descriptor Format"): bits 0-13 the start address >> 4, 16-29 the
/// leading dimension byte offset >> 4, 32-45 the stride dimension byte
/// offset >> 4, 49-51 the matrix base offset, 62-63 the swizzle mode.
struct WgmmaDescriptor {
  uint32_t startAddress = 0;      // .shared::cta byte address
  uint32_t leadingByteOffset = 0; // between core matrices along K
  uint32_t strideByteOffset = 0;  // between core matrices along M or N
  unsigned baseOffset = 0;        // 0: the start is aligned to the pattern
  WgmmaSwizzle swizzle = WgmmaSwizzle::None;

  uint64_t encode() const;
  static WgmmaDescriptor decode(uint64_t bits);
};

/// The descriptor of a matrix at `startAddress` in a tile laid out with
/// `swizzle`; std::nullopt when wgmma cannot read that swizzle, when an
/// address or offset is not a multiple of 16 or does not fit its 14-bit
/// field (2^18 bytes), or when a swizzled matrix does not start on its
/// swizzle's period (1024/512/256 bytes), which KAIO's layouts guarantee
/// so that the base offset stays 0.
std::optional<uint64_t> makeWgmmaDescriptor(uint32_t startAddress,
                                            uint32_t leadingByteOffset,
                                            uint32_t strideByteOffset,
                                            const Swizzle &swizzle);

} // namespace kaio::ptx

#endif // KAIO_DIALECT_PTX_IR_PTXINFO_H
