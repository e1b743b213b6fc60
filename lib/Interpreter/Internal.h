//===- Internal.h - the interpreter's decoded program and memory -*- C++ -*-===//
//
// A kernel is decoded once into a flat instruction array: every SSA value
// gets a register slot, every op an Instr whose operand fields are slot
// offsets (slot * 32: a warp keeps each slot's 32 lanes side by side), and
// every control-flow edge its block-argument copies. Execution never looks
// at the MLIR again except to format an error's location.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_INTERPRETER_INTERNAL_H
#define KAIO_LIB_INTERPRETER_INTERNAL_H

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"
#include <map>

namespace kaio::interp::detail {

// Fake device address layout. Global allocations start at kGlobalBase; the
// generic-address windows of shared and local memory sit below it. A
// state-space address (ld.shared, ld.local) is an offset into its window.
inline constexpr uint64_t kSharedWindow = 0x0000500000000000ull;
inline constexpr uint64_t kLocalWindow = 0x0000600000000000ull;
inline constexpr uint64_t kWindowSize = 1ull << 32;
inline constexpr uint64_t kGlobalBase = 0x0000700000000000ull;

enum class Opc : uint8_t {
  Const, Mov, Pack, Unpack, Sreg, AddrOf,
  Add, Sub, Mul, Mad, Fma, Div, Rem, Min, Max, Abs, Neg,
  And, Or, Xor, Not, Shl, Shr, Popc, Clz, Brev, Bfe, Bfi, Prmt, Lop3, Selp,
  Setp, Cvt, CvtPack,
  Ex2, Lg2, Sin, Cos, Tanh, Rcp, Sqrt, Rsqrt,
  Ld, St, Cvta, Atom, Red, Nop,
  BarSync, BarArrive,
  Shfl, Vote, Match, Redux, ActiveMask, Mma, LdMatrix, StMatrix,
  CpAsync, CpCommit, CpWaitGroup, CpWaitAll,
  // Hopper (HopperOps.cpp).
  MbarInit, MbarInval, MbarArrive, MbarExpectTx, MbarTryWait, Elect,
  BulkTensorLoad, BulkTensorStore, BulkLoad, BulkStore, Wgmma, WarpSync,
  Mapa, ClusterArrive, ClusterWait,
  Bra, CondBra, Exit, Trap,
};

/// Ops that run once all their lanes have arrived (the .sync / .aligned
/// warp-level ops).
inline bool isWarpCollective(Opc op) {
  return op == Opc::Shfl || op == Opc::Vote || op == Opc::Match ||
         op == Opc::Redux || op == Opc::Mma || op == Opc::LdMatrix ||
         op == Opc::StMatrix || op == Opc::Elect || op == Opc::Wgmma ||
         op == Opc::WarpSync;
}
/// Ops that access memory through lane addresses.
inline bool isMemoryAccess(Opc op) {
  return op == Opc::Ld || op == Opc::St || op == Opc::Atom ||
         op == Opc::Red || op == Opc::CpAsync || op == Opc::LdMatrix ||
         op == Opc::StMatrix;
}

inline constexpr uint32_t kNoSlot = UINT32_MAX;
inline constexpr uint8_t kNoRnd = 0xff;

enum InstrFlag : uint16_t {
  FFtz = 1 << 0,
  FSat = 1 << 1,
  FApprox = 1 << 2,
  FTrans = 1 << 3,
  FRelu = 1 << 4,
  FSatFinite = 1 << 5,
  FTo = 1 << 6,
  FNaN = 1 << 7,
  FGuardNeg = 1 << 8,
  FFull = 1 << 9,
  FExpectTx = 1 << 10, // mbarrier.arrive.expect_tx
  FParity = 1 << 11,   // mbarrier.try_wait.parity
  FNc = 1 << 12,       // ld.global.nc
  FCluster = 1 << 13,  // an mbarrier op on a .shared::cluster address
  FMulticast = 1 << 14, // a bulk load's .multicast::cluster (mask: aux2)
};

/// WarpSync's `aux`: what the .sync.aligned op does besides converging.
enum : uint32_t { kWarpSyncOnly = 0, kWgmmaCommit = 1, kWgmmaWait = 2 };

/// A decoded wgmma.mma_async: the variant and its immediates. The Instr's
/// `extra` list holds D..., the accumulators, then A's registers (none when
/// A comes from a descriptor in slot `a`); B's descriptor is slot `b`, the
/// scale-d predicate slot `c` (kNoSlot: the immediate `scaleD`).
struct WgmmaInfo {
  const ptx::WgmmaVariant *variant = nullptr;
  unsigned n = 0, accRegs = 0, aRegs = 0;
  int scaleA = 1, scaleB = 1, scaleD = 1;
  bool transA = false, transB = false, satfinite = false;
};

/// One decoded op. Slot fields hold slot * 32 (kNoSlot when absent).
struct Instr {
  Opc op = Opc::Nop;
  uint8_t rnd = kNoRnd; // ptx::Rounding
  uint8_t rbits = 0;    // width of the (first) result register
  uint8_t n = 0;        // results / values / parts in `extra`
  uint16_t flags = 0;
  ptx::PTXType type = ptx::PTXType::b32;
  uint32_t guard = kNoSlot;
  uint32_t r = kNoSlot, r2 = kNoSlot;
  uint32_t a = kNoSlot, b = kNoSlot, c = kNoSlot, d = kNoSlot;
  uint32_t aux = 0, aux2 = 0;
  uint32_t ext = 0; // index into Program::extra
  int64_t imm = 0;
};

/// A control-flow edge: target pc and the block-argument copies (source,
/// destination slot offsets). `needsTemp` when a destination is also a
/// source, so the copies must read everything first.
struct Edge {
  uint32_t target = 0;
  uint32_t copyBegin = 0, copyCount = 0;
  bool needsTemp = false;
};

struct Program {
  std::string name;
  std::vector<Instr> code;
  std::vector<uint32_t> extra;
  std::vector<Edge> edges;
  std::vector<std::pair<uint32_t, uint32_t>> copies;
  std::vector<mlir::Location> locs; // per pc
  std::vector<const ptx::MmaVariant *> mmaVariants;
  std::vector<WgmmaInfo> wgmmas;
  std::vector<uint32_t> paramSlots;
  std::vector<uint8_t> paramBits;
  uint32_t numSlots = 0;
  /// The kernel has a memory fence (membar/fence): it may order blocks
  /// through fences and atomics, which the interpreter does not model, so
  /// its cross-block global-memory conflicts are not reported.
  bool hasFences = false;
  uint64_t staticShared = 0;        // bytes of static .shared
  uint64_t dynamicSharedOffset = 0; // where extern .shared starts
  uint64_t requiredDynamicShared = 0; // the entry's dynamic_smem
  llvm::SmallVector<int32_t, 3> maxntid, reqntid;
  /// The entry's reqnctapercluster (empty: none).
  llvm::SmallVector<int32_t, 3> reqnctapercluster;
};

struct Buffer {
  uint64_t base = 0, size = 0;
  std::unique_ptr<uint8_t[]> data;
};

/// Decodes `entry`; `varAddress` gives the device address of each global or
/// const module variable. Returns null and sets `error` on an op the
/// interpreter cannot run.
std::unique_ptr<Program>
decodeKernel(ptx::EntryOp entry, const llvm::StringMap<uint64_t> &varAddress,
             std::string &error);

/// "file:line:col" of `loc`, or its printed form.
std::string formatLocation(mlir::Location loc);

} // namespace kaio::interp::detail

namespace kaio::interp {

struct Interpreter::Impl {
  mlir::ModuleOp module;
  std::map<uint64_t, detail::Buffer> buffers;
  uint64_t nextAddress = detail::kGlobalBase;
  llvm::StringMap<uint64_t> varAddress;
  llvm::StringMap<std::unique_ptr<detail::Program>> programs;
  unsigned maxSharedPerBlock = 232448;

  /// The allocation containing `addr`, or null.
  detail::Buffer *findBuffer(uint64_t addr);
  const detail::Buffer *findBuffer(uint64_t addr) const {
    return const_cast<Impl *>(this)->findBuffer(addr);
  }
  uint64_t allocate(uint64_t bytes, uint64_t align);
};

namespace detail {
LaunchResult runKernel(Interpreter::Impl &impl, const Program &program,
                       Dim3 grid, Dim3 block, llvm::ArrayRef<uint64_t> args,
                       const LaunchOptions &options);
} // namespace detail

} // namespace kaio::interp

#endif // KAIO_LIB_INTERPRETER_INTERNAL_H
