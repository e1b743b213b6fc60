//===- ProfileRecorder.cpp - memory models and per-pc counters ------------===//
//
// The bank rules follow what Nsight Compute measures on sm_80 and sm_90
// (docs/profiling.md): a shared request is served in wavefronts; 4-byte and
// narrower accesses of the whole warp are one phase, 8-byte accesses two
// phases of 16 lanes, 16-byte accesses four phases of 8 lanes, ldmatrix one
// phase per 8x8 matrix. Global requests are counted in 32-byte sectors.
//
//===----------------------------------------------------------------------===//

#include "ProfileRecorder.h"
#include "Arith.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include <algorithm>

using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

//===----------------------------------------------------------------------===//
// Memory models
//===----------------------------------------------------------------------===//

namespace {
void sortUnique(llvm::SmallVectorImpl<uint64_t> &v) {
  if (!std::is_sorted(v.begin(), v.end()))
    llvm::sort(v);
  v.erase(std::unique(v.begin(), v.end()), v.end());
}
} // namespace

unsigned kaio::interp::detail::sharedWavefronts(const uint64_t *addr,
                                                uint32_t mask, unsigned size,
                                                unsigned &ideal) {
  // Aligned accesses of 1 to 16 bytes: a phase touches at most 32 words.
  const unsigned lanesPerPhase = size <= 4 ? 32 : size == 8 ? 16 : 8;
  unsigned total = 0;
  ideal = 0;
  for (unsigned first = 0; first < 32; first += lanesPerPhase) {
    uint32_t phase = mask & uint32_t(((1ull << lanesPerPhase) - 1) << first);
    if (!phase)
      continue;
    // The distinct words of each bank; the phase takes as many wavefronts
    // as the fullest bank.
    uint64_t words[32][32];
    uint8_t count[32] = {};
    unsigned distinct = 0, most = 0;
    for (uint32_t m = phase; m; m &= m - 1) {
      uint64_t a = addr[__builtin_ctz(m)];
      for (uint64_t w = a / 4, last = (a + size - 1) / 4; w <= last; ++w) {
        unsigned b = unsigned(w & 31);
        uint64_t *list = words[b];
        unsigned n = count[b];
        if (std::find(list, list + n, w) != list + n || n == 32)
          continue;
        list[n] = w;
        count[b] = uint8_t(n + 1);
        most = std::max(most, n + 1);
        ++distinct;
      }
    }
    total += most;
    ideal += std::max(1u, (distinct + 31) / 32);
  }
  return total;
}

unsigned kaio::interp::detail::matrixWavefronts(const uint64_t *rowAddr,
                                                unsigned matrices,
                                                unsigned &ideal) {
  unsigned total = 0;
  ideal = 0;
  for (unsigned m = 0; m < matrices; ++m) {
    unsigned phaseIdeal = 0;
    total += sharedWavefronts(rowAddr, 0xffu << (8 * m), 16, phaseIdeal);
    ideal += phaseIdeal;
  }
  return total;
}

unsigned kaio::interp::detail::globalSectors(
    const uint64_t *addr, uint32_t mask, unsigned size, unsigned &ideal,
    llvm::SmallVectorImpl<uint64_t> *sectorIds) {
  llvm::SmallVector<uint64_t, 64> sectors;
  llvm::SmallVector<uint64_t, 32> starts;
  for (uint32_t m = mask; m; m &= m - 1) {
    uint64_t a = addr[__builtin_ctz(m)];
    starts.push_back(a);
    for (uint64_t s = a / 32, last = (a + size - 1) / 32; s <= last; ++s)
      sectors.push_back(s);
  }
  sortUnique(sectors);
  // Distinct bytes: the union of the lanes' [a, a + size) ranges.
  sortUnique(starts);
  uint64_t bytes = 0, end = 0;
  for (uint64_t a : starts) {
    uint64_t lo = std::max(a, end);
    end = a + size;
    bytes += end - lo;
  }
  ideal = unsigned((bytes + 31) / 32);
  if (sectorIds)
    sectorIds->append(sectors.begin(), sectors.end());
  return sectors.size();
}

//===----------------------------------------------------------------------===//
// Recording
//===----------------------------------------------------------------------===//

void ProfileRecorder::sharedAccess(uint32_t pc, const uint64_t *addr,
                                   uint32_t mask, unsigned size) {
  unsigned ideal = 0;
  unsigned wavefronts = sharedWavefronts(addr, mask, size, ideal);
  SharedStats &s = pcs[pc].shared;
  ++s.requests;
  s.wavefronts += wavefronts;
  s.idealWavefronts += ideal;
}

void ProfileRecorder::globalAccess(uint32_t pc, const uint64_t *addr,
                                   uint32_t mask, unsigned size, bool write) {
  unsigned ideal = 0;
  scratch.clear();
  unsigned sectors = globalSectors(addr, mask, size, ideal, &scratch);
  GlobalStats &g = pcs[pc].global;
  ++g.requests;
  g.sectors += sectors;
  g.idealSectors += ideal;
  g.bytes += uint64_t(size) * __builtin_popcount(mask);
  (write ? sectorsWritten : sectorsRead).insert(scratch.begin(), scratch.end());
}

void ProfileRecorder::memory(uint32_t pc, const Instr &in, const uint64_t *R,
                             uint32_t em) {
  uint64_t addr[32] = {};
  for (uint32_t m = em; m; m &= m - 1) {
    unsigned l = __builtin_ctz(m);
    addr[l] = R[in.a + l] + uint64_t(in.imm);
  }
  switch (in.op) {
  case Opc::LdMatrix:
  case Opc::StMatrix: {
    // Every lane of the warp takes part (.aligned); lanes 0 .. 8n-1 give
    // the row addresses.
    for (unsigned l = 0; l < 32; ++l)
      addr[l] = R[in.a + l] + uint64_t(in.imm);
    unsigned ideal = 0;
    unsigned wavefronts = matrixWavefronts(addr, in.n, ideal);
    SharedStats &s = pcs[pc].shared;
    ++s.requests;
    s.wavefronts += wavefronts;
    s.idealWavefronts += ideal;
    return;
  }
  case Opc::CpAsync: {
    // The destination writes land in shared memory; the source is read
    // from global memory (src-size bytes, none when it is zero).
    if (!em)
      return;
    sharedAccess(pc, addr, em, in.aux);
    uint64_t src[32] = {};
    uint32_t reading = 0;
    unsigned srcBytes = in.aux;
    for (uint32_t m = em; m; m &= m - 1) {
      unsigned l = __builtin_ctz(m);
      src[l] = R[in.b + l];
      uint64_t n = in.c != kNoSlot ? (R[in.c + l] & 0xffffffff) : in.aux;
      if (n)
        reading |= 1u << l;
    }
    if (reading)
      globalAccess(pc, src, reading, srcBytes, /*write=*/false);
    return;
  }
  default:
    break;
  }
  if (!em)
    return;
  const unsigned esz = std::max(1u, getBitWidth(in.type) / 8);
  const unsigned size = in.op == Opc::Ld || in.op == Opc::St ? esz * in.n : esz;
  const bool write = in.op != Opc::Ld;
  const StateSpace space = StateSpace(in.aux);
  uint32_t shared = 0, global = 0;
  switch (space) {
  case StateSpace::shared:
    shared = em;
    break;
  case StateSpace::global:
  case StateSpace::Const:
    global = em;
    break;
  case StateSpace::generic:
    for (uint32_t m = em; m; m &= m - 1) {
      unsigned l = __builtin_ctz(m);
      if (addr[l] - kSharedWindow < kWindowSize) {
        addr[l] -= kSharedWindow;
        shared |= 1u << l;
      } else if (addr[l] - kLocalWindow >= kWindowSize) {
        global |= 1u << l;
      }
    }
    break;
  default:
    break;
  }
  if (shared)
    sharedAccess(pc, addr, shared, size);
  if (global)
    globalAccess(pc, addr, global, size, write);
}

//===----------------------------------------------------------------------===//
// Classification and folding into the Profile
//===----------------------------------------------------------------------===//

namespace {

/// "fp32", "fp64", "f16", "f16x2" or "int" for an arithmetic type.
const char *arithClass(PTXType t) {
  if (!isFloat(t))
    return "int";
  if (isPacked(t))
    return "f16x2";
  if (isHalf(t))
    return "f16";
  return getBitWidth(t) == 64 ? "fp64" : "fp32";
}

/// The precision bucket of scalar FLOPs.
const char *flopClass(PTXType t) {
  if (isHalf(t))
    return "fp16";
  return getBitWidth(t) == 64 ? "fp64" : "fp32";
}

std::string spaceOf(const Instr &in) {
  return stringifyStateSpace(StateSpace(in.aux)).str();
}

/// The instruction-mix class of `in`, and where it moves memory, the access
/// kind its shared/global traffic is reported under.
struct PcClass {
  std::string mix;
  std::string memoryKind;
  /// FLOPs per predicated-on thread (scalar) or per issue (mma).
  uint64_t flopsPerThread = 0, flopsPerIssue = 0;
  std::string flopBucket;
};

PcClass classify(const Program &prog, const Instr &in) {
  PcClass c;
  switch (in.op) {
  case Opc::Const:
  case Opc::Mov:
  case Opc::Pack:
  case Opc::Unpack:
  case Opc::Sreg:
  case Opc::AddrOf:
  case Opc::Cvta:
    c.mix = "move";
    break;
  case Opc::Add:
  case Opc::Sub:
  case Opc::Mul:
  case Opc::Mad:
  case Opc::Fma:
  case Opc::Min:
  case Opc::Max:
  case Opc::Abs:
  case Opc::Neg:
  case Opc::Setp:
    c.mix = arithClass(in.type);
    if (isFloat(in.type) && in.op != Opc::Min && in.op != Opc::Max &&
        in.op != Opc::Abs && in.op != Opc::Neg && in.op != Opc::Setp) {
      c.flopsPerThread = (in.op == Opc::Mad || in.op == Opc::Fma ? 2 : 1) *
                         (isPacked(in.type) ? 2 : 1);
      c.flopBucket = flopClass(in.type);
    }
    break;
  case Opc::Div:
  case Opc::Rem:
    c.mix = isFloat(in.type) ? "sfu" : "int.div";
    break;
  case Opc::And:
  case Opc::Or:
  case Opc::Xor:
  case Opc::Not:
  case Opc::Shl:
  case Opc::Shr:
  case Opc::Popc:
  case Opc::Clz:
  case Opc::Brev:
  case Opc::Bfe:
  case Opc::Bfi:
  case Opc::Prmt:
  case Opc::Lop3:
  case Opc::Selp:
    c.mix = "int";
    break;
  case Opc::Cvt:
  case Opc::CvtPack:
    c.mix = "cvt";
    break;
  case Opc::Ex2:
  case Opc::Lg2:
  case Opc::Sin:
  case Opc::Cos:
  case Opc::Tanh:
  case Opc::Rcp:
  case Opc::Sqrt:
  case Opc::Rsqrt:
    c.mix = "sfu";
    break;
  case Opc::Ld:
  case Opc::St: {
    unsigned bytes = std::max(1u, getBitWidth(in.type) / 8) * in.n;
    std::string op = in.op == Opc::Ld ? "ld" : "st";
    std::string space = spaceOf(in);
    c.mix = op + "." + space + "." + std::to_string(bytes) + "B";
    c.memoryKind = op; // + ".shared" / ".global" by where it lands
    break;
  }
  case Opc::Atom:
  case Opc::Red:
    c.mix = std::string(in.op == Opc::Atom ? "atom." : "red.") + spaceOf(in);
    c.memoryKind = "atom";
    break;
  case Opc::Nop:
    c.mix = "fence";
    break;
  case Opc::BarSync:
  case Opc::BarArrive:
    c.mix = "bar";
    break;
  case Opc::Shfl:
    c.mix = "shfl";
    break;
  case Opc::Vote:
  case Opc::ActiveMask:
    c.mix = "vote";
    break;
  case Opc::Match:
    c.mix = "match";
    break;
  case Opc::Redux:
    c.mix = "redux";
    break;
  case Opc::Mma: {
    const MmaVariant &v = *prog.mmaVariants[in.aux];
    MmaShapeInfo s = getMmaShapeInfo(v.shape);
    c.mix = ("mma." + stringifyMMAShape(v.shape) + "." +
             stringifyPTXType(v.accType) + "." + stringifyPTXType(v.aType) +
             "." + stringifyPTXType(v.bType) + "." +
             stringifyPTXType(v.accType))
                .str();
    c.flopsPerIssue = 2ull * s.m * s.n * s.k;
    c.flopBucket = stringifyPTXType(v.aType).str();
    break;
  }
  case Opc::LdMatrix:
  case Opc::StMatrix:
    c.mix = std::string(in.op == Opc::LdMatrix ? "ldmatrix" : "stmatrix") +
            ".x" + std::to_string(in.n) + (in.flags & FTrans ? ".trans" : "");
    c.memoryKind = in.op == Opc::LdMatrix ? "ldmatrix" : "stmatrix";
    break;
  case Opc::CpAsync:
    c.mix = "cp.async." + std::to_string(in.aux) + "B";
    c.memoryKind = "cp.async";
    break;
  case Opc::CpCommit:
    c.mix = "cp.async.commit";
    break;
  case Opc::CpWaitGroup:
  case Opc::CpWaitAll:
    c.mix = "cp.async.wait";
    break;
  case Opc::MbarInit:
  case Opc::MbarInval:
  case Opc::MbarArrive:
  case Opc::MbarExpectTx:
  case Opc::MbarTryWait:
    c.mix = "mbarrier";
    break;
  case Opc::Elect:
    c.mix = "elect";
    break;
  case Opc::Mapa:
    c.mix = "mapa";
    break;
  case Opc::ClusterArrive:
  case Opc::ClusterWait:
    c.mix = "bar.cluster";
    break;
  case Opc::WarpSync:
    c.mix = "warpsync";
    break;
  case Opc::BulkTensorLoad:
  case Opc::BulkTensorStore:
  case Opc::BulkLoad:
  case Opc::BulkStore:
    c.mix = std::string("cp.async.bulk") +
            (in.op == Opc::BulkTensorLoad || in.op == Opc::BulkTensorStore
                 ? ".tensor"
                 : "") +
            (in.op == Opc::BulkTensorLoad || in.op == Opc::BulkLoad ? ".load"
                                                                   : ".store");
    break;
  case Opc::Wgmma: {
    const WgmmaInfo &w = prog.wgmmas[in.aux];
    const WgmmaVariant &v = *w.variant;
    c.mix = ("wgmma.m64n" + llvm::Twine(w.n) + "k" + llvm::Twine(v.k) + "." +
             stringifyPTXType(v.dType) + "." + stringifyPTXType(v.aType) + "." +
             stringifyPTXType(v.bType))
                .str();
    // Each warp issues its 16 rows of the m64 tile.
    c.flopsPerIssue = 2ull * 16 * w.n * v.k;
    c.flopBucket = stringifyPTXType(v.aType).str();
    break;
  }
  case Opc::Bra:
  case Opc::CondBra:
    c.mix = "branch";
    break;
  case Opc::Exit:
  case Opc::Trap:
    c.mix = "exit";
    break;
  }
  return c;
}

/// "file:line" of the .mlir op an instruction came from.
std::string sourceLine(mlir::Location loc) {
  if (auto fileLoc = loc->findInstanceOf<mlir::FileLineColLoc>())
    return (fileLoc.getFilename().getValue() + ":" + llvm::Twine(fileLoc.getLine()))
        .str();
  return "<unknown>";
}

void addPc(ProfileCounters &to, const PcClass &cls, const PcCounters &c) {
  to.warpInstructions += c.issued;
  to.threadInstructions += c.lanes;
  to.predicatedOnThreads += c.lanesOn;
  to.divergentBranches += c.divergent;
  to.mix[cls.mix] += c.issued;
  if (!cls.memoryKind.empty()) {
    // ld/st/atom split by the space they reached; cp.async, ldmatrix and
    // stmatrix are named as they are.
    bool suffix = cls.memoryKind == "ld" || cls.memoryKind == "st" ||
                  cls.memoryKind == "atom";
    if (c.shared.requests)
      to.shared[suffix ? cls.memoryKind + ".shared" : cls.memoryKind] +=
          c.shared;
    if (c.global.requests)
      to.global[suffix ? cls.memoryKind + ".global" : cls.memoryKind] +=
          c.global;
    if (cls.memoryKind == "cp.async")
      to.cpAsyncBytes += c.global.bytes;
  }
  if (cls.flopsPerIssue)
    to.mmaFlops[cls.flopBucket] += cls.flopsPerIssue * c.issued;
  if (cls.flopsPerThread)
    to.scalarFlops[cls.flopBucket] += cls.flopsPerThread * c.lanesOn;
}

} // namespace

void ProfileRecorder::finish(Profile &profile, const Dim3 &grid,
                             const Dim3 &block) const {
  KernelProfile &k = profile.getOrCreate(prog.name);
  ++k.launches;
  k.grid[0] = grid.x;
  k.grid[1] = grid.y;
  k.grid[2] = grid.z;
  k.block[0] = block.x;
  k.block[1] = block.y;
  k.block[2] = block.z;
  llvm::StringMap<unsigned> locIndex;
  for (auto [i, l] : llvm::enumerate(k.locations))
    locIndex[l.location] = i;
  for (auto [pc, c] : llvm::enumerate(pcs)) {
    if (!c.issued)
      continue;
    const Instr &in = prog.code[pc];
    PcClass cls = classify(prog, in);
    addPc(k, cls, c);
    if (in.op == Opc::Ld || in.op == Opc::Atom || in.op == Opc::Red ||
        in.op == Opc::CpAsync)
      k.globalBytesRead += c.global.bytes;
    else if (in.op == Opc::St)
      k.globalBytesWritten += c.global.bytes;
    if (in.op == Opc::Atom || in.op == Opc::Red)
      k.globalBytesWritten += c.global.bytes;
    std::string where = sourceLine(prog.locs[pc]);
    auto [it, inserted] = locIndex.try_emplace(where, k.locations.size());
    if (inserted) {
      k.locations.emplace_back();
      k.locations.back().location = where;
    }
    addPc(k.locations[it->second], cls, c);
  }
  k.compulsoryBytesRead += 32 * uint64_t(sectorsRead.size());
  k.compulsoryBytesWritten += 32 * uint64_t(sectorsWritten.size());
  std::stable_sort(k.locations.begin(), k.locations.end(),
                   [](const LocationProfile &a, const LocationProfile &b) {
                     return a.warpInstructions > b.warpInstructions;
                   });
}
