//===- kaio-prof.cpp - static resource, occupancy and roofline report -----===//
//
// kaio-prof FILE.mlir|FILE.ptx [--chip sm_90] [--kernel NAME]
//           [--block X[,Y,Z]] [--smem BYTES] [--gpu NAME]
//           [--profile-json FILE] [--json FILE]
//
// For each kernel: what `ptxas -v` says it uses (registers, spills, stack,
// shared memory), its theoretical occupancy on the chip
// (ptx::computeOccupancy) and, given a dynamic profile from
// `kaio-run --interpret --profile-json`, its roofline time bounds on a GPU
// (ptx::GPUInfo). A readable report goes to stdout, the same as JSON to
// --json. Without ptxas it reports what the PTX text shows. Bad input is a
// one-line error and exit status 1. See docs/profiling.md.
//
//===----------------------------------------------------------------------===//

#include "Kaio/Compiler/Compile.h"
#include "Kaio/Compiler/ResourceUsage.h"
#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "Kaio/Support/SourceCheck.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdlib>
#include <map>

using namespace llvm;
using namespace kaio;
using ptx::ChipInfo;
using ptx::GPUInfo;
using ptx::Occupancy;
using ptx::OccupancyLimit;

namespace {

cl::OptionCategory category("kaio-prof options");
cl::opt<std::string> inputPath(cl::Positional, cl::desc("<FILE.mlir|FILE.ptx>"),
                               cl::cat(category));
cl::opt<std::string> chipOpt("chip",
                             cl::desc("target chip, e.g. sm_90 (default: the "
                                      "module's target, else sm_80)"),
                             cl::cat(category));
cl::opt<std::string> kernelOpt("kernel", cl::desc("report only this kernel"),
                               cl::cat(category));
cl::opt<std::string> blockOpt("block",
                              cl::desc("block size X[,Y,Z] (default: the "
                                       "kernel's .reqntid or .maxntid)"),
                              cl::cat(category));
cl::opt<std::string> smemOpt("smem",
                             cl::desc("dynamic shared memory per block, bytes"),
                             cl::cat(category));
cl::opt<std::string> gpuOpt("gpu",
                            cl::desc("GPU for the roofline (default: the "
                                     "chip's flagship, sm_90: h100-sxm)"),
                            cl::cat(category));
cl::opt<std::string>
    profileOpt("profile-json",
               cl::desc("dynamic profile from kaio-run --profile-json"),
               cl::cat(category));
cl::opt<std::string> jsonOpt("json",
                             cl::desc("also write the report as JSON to FILE "
                                      "('-': only JSON, to stdout)"),
                             cl::cat(category));

/// Ends the program with a one-line error.
[[noreturn]] void fail(const Twine &message) {
  errs() << "kaio-prof: error: " << message << "\n";
  std::exit(1);
}

std::string joinNames(ArrayRef<StringRef> names) { return join(names, ", "); }

//===----------------------------------------------------------------------===//
// The dynamic profile
//===----------------------------------------------------------------------===//

struct ProfileBytes {
  double globalRead = 0, globalWritten = 0, total = 0;
  /// Distinct sectors read and written x 32: what DRAM must move at least
  /// (the interpreter's profile; 0 when the profile does not say).
  double compulsoryRead = 0, compulsoryWritten = 0;
};

struct ProfileFlops {
  /// By the A operand's PTX type: "f16", "s8", ...
  std::map<std::string, double> mma;
  double fp32 = 0, fp64 = 0, fp16 = 0, total = 0;
};

struct ProfileKernel {
  std::string name;
  double launches = 0;
  std::vector<int64_t> grid, block;
  ProfileFlops flops;
  ProfileBytes bytes;
};

struct Profile {
  int64_t version = 1;
  std::vector<ProfileKernel> kernels;
};

bool fromJSON(const json::Value &value, ProfileBytes &bytes, json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.mapOptional("global_read", bytes.globalRead) &&
         o.mapOptional("global_written", bytes.globalWritten) &&
         o.mapOptional("compulsory_read", bytes.compulsoryRead) &&
         o.mapOptional("compulsory_written", bytes.compulsoryWritten) &&
         o.mapOptional("total", bytes.total);
}

bool fromJSON(const json::Value &value, ProfileFlops &flops, json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.mapOptional("mma", flops.mma) &&
         o.mapOptional("fp32", flops.fp32) &&
         o.mapOptional("fp64", flops.fp64) &&
         o.mapOptional("fp16", flops.fp16) &&
         o.mapOptional("total", flops.total);
}

bool fromJSON(const json::Value &value, ProfileKernel &kernel,
              json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.map("name", kernel.name) &&
         o.mapOptional("launches", kernel.launches) &&
         o.mapOptional("grid", kernel.grid) &&
         o.mapOptional("block", kernel.block) &&
         o.mapOptional("flops", kernel.flops) &&
         o.mapOptional("bytes", kernel.bytes);
}

bool fromJSON(const json::Value &value, Profile &profile, json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.mapOptional("version", profile.version) &&
         o.map("kernels", profile.kernels);
}

Profile readProfile(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    fail("--profile-json '" + path +
         "': cannot read: " + buffer.getError().message());
  Expected<json::Value> value = json::parse((*buffer)->getBuffer());
  if (!value)
    fail("--profile-json '" + path +
         "': malformed JSON: " + toString(value.takeError()));
  Profile profile;
  json::Path::Root root("profile");
  if (!fromJSON(*value, profile, root))
    fail("--profile-json '" + path +
         "': malformed: " + toString(root.getError()));
  if (profile.version != 1)
    fail("--profile-json '" + path + "': unsupported version " +
         Twine(profile.version) + " (kaio-prof reads version 1)");
  return profile;
}

//===----------------------------------------------------------------------===//
// The roofline
//===----------------------------------------------------------------------===//

/// A class of arithmetic in the profile and the GPU peak that rates it.
struct FlopClass {
  StringLiteral label;          // "mma.f16"
  double ProfileFlops::*scalar; // the profile's count, for scalar classes
  StringLiteral mmaType;        // the profile's mma key, for the others
  double GPUInfo::*peak;
};

const FlopClass kFlopClasses[] = {
    {"fp32", &ProfileFlops::fp32, "", &GPUInfo::fp32},
    {"fp64", &ProfileFlops::fp64, "", &GPUInfo::fp64},
    {"fp16", &ProfileFlops::fp16, "", &GPUInfo::fp16},
    {"mma.f16", nullptr, "f16", &GPUInfo::tensorF16},
    {"mma.bf16", nullptr, "bf16", &GPUInfo::tensorBF16},
    {"mma.tf32", nullptr, "tf32", &GPUInfo::tensorTF32},
    {"mma.f64", nullptr, "f64", &GPUInfo::tensorF64},
    {"mma.e4m3", nullptr, "e4m3", &GPUInfo::tensorFP8},
    {"mma.e5m2", nullptr, "e5m2", &GPUInfo::tensorFP8},
    {"mma.s8", nullptr, "s8", &GPUInfo::tensorINT8},
    {"mma.u8", nullptr, "u8", &GPUInfo::tensorINT8},
    {"mma.s4", nullptr, "s4", &GPUInfo::tensorINT4},
    {"mma.u4", nullptr, "u4", &GPUInfo::tensorINT4},
};

struct ComputeTerm {
  std::string label;
  double flops = 0;
  double peakTFlops = 0; // 0: unrated, left out of the compute bound
  double seconds = 0;
};

struct Roofline {
  const GPUInfo *gpu = nullptr;
  double bytesRead = 0, bytesWritten = 0, bytes = 0;
  double flops = 0;      // every class, rated or not
  double ratedFlops = 0; // the classes in the compute bound
  double memorySeconds = 0;
  double computeSeconds = 0;
  std::vector<ComputeTerm> terms;

  double getBoundSeconds() const {
    return std::max(memorySeconds, computeSeconds);
  }
  StringRef getBound() const {
    if (memorySeconds == 0 && computeSeconds == 0)
      return "none";
    return memorySeconds >= computeSeconds ? "memory" : "compute";
  }
  /// FLOPs per byte of DRAM traffic; 0 without traffic.
  double getIntensity() const { return bytes > 0 ? flops / bytes : 0; }
  /// The intensity at which this mix of work takes as long on the rated
  /// units as its bytes take on DRAM; 0 without rated work.
  double getRidgePoint() const {
    if (computeSeconds == 0)
      return 0;
    return ratedFlops / computeSeconds / (gpu->dramTBps * 1e12);
  }
};

Roofline computeRoofline(const GPUInfo &gpu, const ProfileKernel &profile) {
  Roofline r;
  r.gpu = &gpu;
  // DRAM moves at least the distinct sectors the kernel touches (blocks
  // re-reading a tile mostly hit L2); older profiles only give the bytes
  // the lanes requested, an upper bound.
  const ProfileBytes &b = profile.bytes;
  if (b.compulsoryRead + b.compulsoryWritten > 0) {
    r.bytesRead = b.compulsoryRead;
    r.bytesWritten = b.compulsoryWritten;
    r.bytes = r.bytesRead + r.bytesWritten;
  } else {
    r.bytesRead = b.globalRead;
    r.bytesWritten = b.globalWritten;
    r.bytes = std::max(b.total, r.bytesRead + r.bytesWritten);
  }
  r.memorySeconds = r.bytes / (gpu.dramTBps * 1e12);

  std::map<std::string, double> mma = profile.flops.mma;
  auto addTerm = [&](StringRef label, double flops, double peak) {
    if (flops <= 0)
      return;
    ComputeTerm term{label.str(), flops, peak, 0};
    r.flops += flops;
    if (peak > 0) {
      term.seconds = flops / (peak * 1e12);
      r.computeSeconds += term.seconds;
      r.ratedFlops += flops;
    }
    r.terms.push_back(term);
  };
  for (const FlopClass &c : kFlopClasses) {
    double flops = 0;
    if (c.scalar) {
      flops = profile.flops.*c.scalar;
    } else if (auto it = mma.find(c.mmaType.str()); it != mma.end()) {
      flops = it->second;
      mma.erase(it);
    }
    addTerm(c.label, flops, gpu.*c.peak);
  }
  // mma types no GPU in the table rates (b1, and any the profile adds).
  for (const auto &[type, flops] : mma)
    addTerm("mma." + type, flops, 0);
  return r;
}

//===----------------------------------------------------------------------===//
// The report
//===----------------------------------------------------------------------===//

struct KernelReport {
  std::string name;
  std::array<unsigned, 3> block = {0, 0, 0};
  std::string blockSource; // "--block", ".reqntid", ".maxntid", "profile"
  const PtxasFunctionInfo *ptxas = nullptr;
  std::optional<uint64_t> staticShared;
  uint64_t dynamicShared = 0;
  std::optional<Occupancy> occupancy;
  const ProfileKernel *profile = nullptr;
  std::optional<Roofline> roofline;
  std::vector<std::string> notes;

  unsigned getThreads() const { return block[0] * block[1] * block[2]; }
};

struct Report {
  std::string input;
  const ChipInfo *chip = nullptr;
  std::optional<std::string> ptxasPath;
  std::string ptxasMissing; // what to do about there being no ptxas
  const GPUInfo *gpu = nullptr;
  std::string gpuMissing; // why there is no roofline GPU
  bool gpuChosen = false; // --gpu, not the chip's default
  bool hasProfile = false;
  std::vector<KernelReport> kernels;
};

/// "12", or "1.5e+20" past what a double holds exactly.
std::string formatCount(double value) {
  if (value < 1e15)
    return formatv("{0}", static_cast<uint64_t>(value)).str();
  return formatv("{0:e3}", value).str();
}

/// `value` with `digits` significant digits ("%g").
std::string formatReal(double value, int digits = 4) {
  std::string text;
  raw_string_ostream(text) << format("%.*g", digits, value);
  return text;
}

/// "1.011 ms": four significant digits with a unit that keeps them readable.
std::string formatSeconds(double seconds) {
  static const std::pair<double, StringRef> units[] = {
      {1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  for (const auto &[scale, unit] : units)
    if (seconds >= scale || scale == 1e-9)
      return formatReal(seconds / scale) + " " + unit.str();
  llvm_unreachable("the last unit takes any value");
}

std::string formatDims(ArrayRef<unsigned> dims) {
  return join(map_range(dims, [](unsigned d) { return std::to_string(d); }),
              "x");
}

std::string formatDims(ArrayRef<int64_t> dims) {
  return join(map_range(dims, [](int64_t d) { return std::to_string(d); }),
              "x");
}

void printOccupancy(raw_ostream &os, const ChipInfo &chip,
                    const Occupancy &occ) {
  os << "  occupancy:       ";
  if (occ.blocksPerSM == 0) {
    os << "none: a block does not fit (" << stringifyOccupancyLimit(occ.limiter)
       << ")\n";
  } else {
    os << occ.blocksPerSM << " blocks/SM, " << occ.warpsPerSM << " of "
       << occ.maxWarpsPerSM << " warps ("
       << format("%.1f", occ.getFraction() * 100) << "%), limited by "
       << stringifyOccupancyLimit(occ.limiter);
    SmallVector<StringRef> also;
    for (unsigned i = 0; i < ptx::kNumOccupancyLimits; ++i) {
      auto limit = static_cast<OccupancyLimit>(i);
      if (limit != occ.limiter && occ.isLimitedBy(limit))
        also.push_back(stringifyOccupancyLimit(limit));
    }
    if (!also.empty())
      os << " (also " << join(also, ", ") << ")";
    os << "\n";
  }
  os << "  blocks/SM by:    ";
  for (unsigned i = 0; i < ptx::kNumOccupancyLimits; ++i) {
    auto limit = static_cast<OccupancyLimit>(i);
    unsigned n = occ.getBlocksBy(limit);
    os << (i ? ", " : "") << stringifyOccupancyLimit(limit) << " "
       << (n == Occupancy::kNoLimit ? std::string("-") : std::to_string(n));
  }
  os << "\n  per block:       " << occ.registersPerBlock << " registers, "
     << occ.sharedPerBlock << " bytes of shared memory (with the "
     << chip.resources.reservedSharedPerBlock << "-byte reserve)\n";
}

void printRoofline(raw_ostream &os, const Roofline &r) {
  const GPUInfo &gpu = *r.gpu;
  os << "  roofline:        " << gpu.name << " (" << gpu.product << ")\n";
  os << "    memory:        " << formatCount(r.bytes) << " bytes ("
     << formatCount(r.bytesRead) << " read, " << formatCount(r.bytesWritten)
     << " written) / " << formatReal(gpu.dramTBps)
     << " TB/s = " << formatSeconds(r.memorySeconds) << "\n";
  os << "    compute:       " << formatCount(r.flops)
     << " FLOP = " << formatSeconds(r.computeSeconds) << "\n";
  for (const ComputeTerm &term : r.terms) {
    os << "      " << left_justify(term.label, 13) << formatCount(term.flops);
    if (term.peakTFlops > 0)
      os << " / " << formatReal(term.peakTFlops)
         << " TFLOP/s = " << formatSeconds(term.seconds) << "\n";
    else
      os << " (no peak rate on " << gpu.name << "; not in the bound)\n";
  }
  os << "    bound:         " << r.getBound();
  if (r.getBound() != "none")
    os << ", " << formatSeconds(r.getBoundSeconds()) << " (memory "
       << formatSeconds(r.memorySeconds) << ", compute "
       << formatSeconds(r.computeSeconds) << ")";
  os << "\n    intensity:     " << formatReal(r.getIntensity())
     << " FLOP/byte, ridge point ";
  if (r.computeSeconds > 0)
    os << formatReal(r.getRidgePoint()) << " FLOP/byte\n";
  else
    os << "n/a (no rated arithmetic)\n";
}

void printText(raw_ostream &os, const Report &report) {
  const ChipInfo &chip = *report.chip;
  const ptx::SMResources &sm = chip.resources;
  os << "file:    " << report.input << "\n";
  os << "chip:    " << chip.name << " (per SM: " << sm.maxWarpsPerSM
     << " warps, " << sm.maxBlocksPerSM << " blocks, " << sm.registersPerSM
     << " registers, " << sm.sharedPerSM << " bytes of shared memory)\n";
  os << "ptxas:   "
     << (report.ptxasPath ? *report.ptxasPath
                          : "not found (" + report.ptxasMissing + ")")
     << "\n";
  if (report.hasProfile || report.gpuChosen) {
    os << "gpu:     ";
    if (report.gpu)
      os << report.gpu->name << " (" << report.gpu->product << ")\n";
    else
      os << "none (" << report.gpuMissing << ")\n";
  }
  for (const KernelReport &k : report.kernels) {
    os << "\nkernel " << k.name << "\n";
    os << "  block:           " << k.getThreads() << " threads ("
       << formatDims(k.block) << ", from " << k.blockSource << ")\n";
    const PtxasFunctionInfo *p = k.ptxas;
    if (!p || !p->registers) {
      os << "  registers:       unknown ("
         << (report.ptxasPath ? "ptxas did not report them"
                              : "ptxas not found; " + report.ptxasMissing)
         << ")\n";
    } else {
      os << "  registers:       " << *p->registers << " per thread\n";
      os << "  spills:          " << p->spillStores.value_or(0)
         << " bytes stored, " << p->spillLoads.value_or(0) << " bytes loaded\n";
      os << "  stack frame:     " << p->stackFrame.value_or(0)
         << " bytes per thread\n";
      os << "  local memory:    "
         << std::max(p->localBytes.value_or(0), p->stackFrame.value_or(0))
         << " bytes per thread\n";
    }
    os << "  shared memory:   ";
    if (k.staticShared)
      os << *k.staticShared << " bytes static";
    else
      os << "unknown static";
    os << " + " << k.dynamicShared << " dynamic"
       << (p && p->sharedBytes ? "" : " (from the PTX declarations)") << "\n";
    if (p && p->barriers)
      os << "  barriers:        " << *p->barriers << "\n";
    if (k.occupancy)
      printOccupancy(os, chip, *k.occupancy);
    else
      os << "  occupancy:       unknown (needs the register count)\n";
    if (k.profile) {
      os << "  profile:         " << formatCount(k.profile->launches)
         << (k.profile->launches == 1 ? " launch" : " launches");
      if (!k.profile->grid.empty())
        os << ", grid " << formatDims(k.profile->grid);
      if (!k.profile->block.empty())
        os << ", block " << formatDims(k.profile->block);
      os << "\n";
    }
    if (k.roofline)
      printRoofline(os, *k.roofline);
    else if (!report.hasProfile)
      os << "  roofline:        needs a profile (--profile-json)\n";
    for (const std::string &note : k.notes)
      os << "  note: " << note << "\n";
  }
}

/// "shared memory" → "shared_memory".
std::string jsonKey(StringRef words) {
  std::string key = words.str();
  std::replace(key.begin(), key.end(), ' ', '_');
  return key;
}

json::Value optionalJSON(std::optional<uint64_t> value) {
  return value ? json::Value(*value) : json::Value(nullptr);
}

json::Value toJSON(const ChipInfo &chip, const Occupancy &occ) {
  json::Object blocksBy;
  json::Array limiters;
  for (unsigned i = 0; i < ptx::kNumOccupancyLimits; ++i) {
    auto limit = static_cast<OccupancyLimit>(i);
    unsigned n = occ.getBlocksBy(limit);
    blocksBy[jsonKey(stringifyOccupancyLimit(limit))] =
        n == Occupancy::kNoLimit ? json::Value(nullptr) : json::Value(n);
    if (occ.isLimitedBy(limit))
      limiters.push_back(jsonKey(stringifyOccupancyLimit(limit)));
  }
  return json::Object{
      {"blocks_per_sm", occ.blocksPerSM},
      {"warps_per_sm", occ.warpsPerSM},
      {"max_warps_per_sm", occ.maxWarpsPerSM},
      {"occupancy", occ.getFraction()},
      {"limiter", jsonKey(stringifyOccupancyLimit(occ.limiter))},
      {"limiters", std::move(limiters)},
      {"blocks_by", std::move(blocksBy)},
      {"registers_per_block", occ.registersPerBlock},
      {"shared_per_block", occ.sharedPerBlock},
      {"reserved_shared_per_block", chip.resources.reservedSharedPerBlock},
  };
}

json::Value toJSON(const Roofline &r) {
  json::Array terms;
  for (const ComputeTerm &term : r.terms)
    terms.push_back(json::Object{
        {"class", term.label},
        {"flops", term.flops},
        {"peak_tflops",
         term.peakTFlops > 0 ? json::Value(term.peakTFlops) : nullptr},
        {"seconds", term.seconds},
    });
  return json::Object{
      {"gpu", r.gpu->name},
      {"dram_tbps", r.gpu->dramTBps},
      {"bytes", r.bytes},
      {"bytes_read", r.bytesRead},
      {"bytes_written", r.bytesWritten},
      {"flops", r.flops},
      {"memory_seconds", r.memorySeconds},
      {"compute_seconds", r.computeSeconds},
      {"time_bound_seconds", r.getBoundSeconds()},
      {"bound", r.getBound()},
      {"arithmetic_intensity", r.getIntensity()},
      {"ridge_point",
       r.computeSeconds > 0 ? json::Value(r.getRidgePoint()) : nullptr},
      {"compute", std::move(terms)},
  };
}

json::Value toJSON(const Report &report) {
  json::Array kernels;
  for (const KernelReport &k : report.kernels) {
    const PtxasFunctionInfo *p = k.ptxas;
    auto field = [&](std::optional<uint64_t> PtxasFunctionInfo::*member) {
      return p ? optionalJSON(p->*member) : json::Value(nullptr);
    };
    json::Value registers =
        p && p->registers ? json::Value(*p->registers) : json::Value(nullptr);
    json::Value barriers =
        p && p->barriers ? json::Value(*p->barriers) : json::Value(nullptr);
    json::Value local = nullptr;
    if (p && p->registers)
      local = std::max(p->localBytes.value_or(0), p->stackFrame.value_or(0));
    json::Value profile = nullptr;
    if (k.profile)
      profile = json::Object{{"launches", k.profile->launches},
                             {"grid", k.profile->grid},
                             {"block", k.profile->block}};
    kernels.push_back(json::Object{
        {"name", k.name},
        {"block", json::Array{k.block[0], k.block[1], k.block[2]}},
        {"block_source", k.blockSource},
        {"threads", k.getThreads()},
        {"registers", std::move(registers)},
        {"barriers", std::move(barriers)},
        {"spill_stores", field(&PtxasFunctionInfo::spillStores)},
        {"spill_loads", field(&PtxasFunctionInfo::spillLoads)},
        {"stack_frame", field(&PtxasFunctionInfo::stackFrame)},
        {"local_memory", std::move(local)},
        {"static_shared", optionalJSON(k.staticShared)},
        {"dynamic_shared", k.dynamicShared},
        {"occupancy", k.occupancy ? toJSON(*report.chip, *k.occupancy)
                                  : json::Value(nullptr)},
        {"profile", std::move(profile)},
        {"roofline", k.roofline ? toJSON(*k.roofline) : json::Value(nullptr)},
        {"notes", json::Array(k.notes)},
    });
  }
  return json::Object{
      {"version", 1},
      {"input", report.input},
      {"chip", report.chip->name},
      {"ptxas", report.ptxasPath ? json::Value(*report.ptxasPath)
                                 : json::Value(nullptr)},
      {"ptxas_missing", report.ptxasPath ? json::Value(nullptr)
                                         : json::Value(report.ptxasMissing)},
      {"gpu", report.gpu ? json::Value(report.gpu->name) : nullptr},
      {"kernels", std::move(kernels)},
  };
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

const ChipInfo *parseChip(StringRef name, StringRef what) {
  if (const ChipInfo *chip = ptx::lookupChip(name))
    return chip;
  SmallVector<StringRef> known;
  for (const ChipInfo &chip : ptx::getChips())
    known.push_back(chip.name);
  fail(what + " '" + name + "': unknown chip (known: " + joinNames(known) +
       ")");
}

std::array<unsigned, 3> parseBlock(StringRef text) {
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  std::array<unsigned, 3> block = {1, 1, 1};
  uint64_t threads = 1;
  bool ok = parts.size() <= 3;
  for (auto [i, part] : enumerate(parts)) {
    unsigned value;
    if (!ok || part.trim().getAsInteger(10, value) || value == 0) {
      ok = false;
      break;
    }
    block[i] = value;
    threads *= value;
  }
  if (!ok || threads > (1u << 20))
    fail("--block '" + text + "': expected X[,Y,Z], positive integers");
  return block;
}

uint64_t parseBytes(StringRef text, StringRef what) {
  uint64_t value;
  if (text.trim().getAsInteger(10, value) || value > (1ull << 32))
    fail(what + " '" + text + "': expected a number of bytes");
  return value;
}

/// The first non-blank line of a tool's messages.
StringRef firstLine(StringRef text) {
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines)
    if (!line.trim().empty())
      return line.trim();
  return "(no message)";
}

/// Why findPtxas() found none, for the report.
std::string describeMissingPtxas() {
  if (const char *env = std::getenv("KAIO_PTXAS"); env && *env)
    return "KAIO_PTXAS=" + std::string(env) + " is not executable";
  return "set KAIO_PTXAS or install the CUDA toolkit";
}

/// The PTX text of the input and the chip it is for.
std::string loadPTX(StringRef path, const ChipInfo *&chip) {
  if (!sys::fs::exists(path))
    fail("'" + path + "': no such file");
  if (sys::path::extension(path) == ".ptx") {
    auto buffer = MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buffer)
      fail("'" + path + "': cannot read: " + buffer.getError().message());
    std::string text = (*buffer)->getBuffer().str();
    if (!chip) {
      std::string target = scanPTX(text).target;
      if (target.empty())
        fail("'" + path + "' has no .target; pass --chip");
      chip = parseChip(target, "the .target of '" + path.str() + "'");
    }
    return text;
  }
  CompileOptions options;
  if (chip)
    options.chip = chip->name.str();
  PTXResult result = compileFileToPTX(path, options);
  if (!result)
    fail("compiling '" + path + "' failed: " + firstLine(result.diagnostics));
  chip = ptx::lookupChip(result.chip);
  if (!chip)
    fail("'" + path + "' was compiled for unknown chip '" + result.chip + "'");
  return std::move(result.ptx);
}

/// The block a kernel is launched with: --block, its .reqntid or .maxntid,
/// else the one its profile recorded.
void chooseBlock(KernelReport &k, const PTXEntrySummary &entry,
                 std::optional<std::array<unsigned, 3>> block) {
  auto fromDims = [](ArrayRef<unsigned> dims) {
    std::array<unsigned, 3> b = {1, 1, 1};
    for (auto [i, d] : enumerate(dims.take_front(3)))
      b[i] = std::max(d, 1u);
    return b;
  };
  if (block) {
    k.block = *block;
    k.blockSource = "--block";
    if (!entry.reqntid.empty() && fromDims(entry.reqntid) != *block)
      k.notes.push_back("the kernel requires .reqntid " +
                        formatDims(entry.reqntid) +
                        "; a launch with another block fails");
  } else if (!entry.reqntid.empty()) {
    k.block = fromDims(entry.reqntid);
    k.blockSource = ".reqntid";
  } else if (!entry.maxntid.empty()) {
    k.block = fromDims(entry.maxntid);
    k.blockSource = ".maxntid";
  } else if (k.profile && !k.profile->block.empty() &&
             all_of(k.profile->block,
                    [](int64_t d) { return d > 0 && d <= (1 << 20); })) {
    SmallVector<unsigned> dims(k.profile->block.begin(),
                               k.profile->block.end());
    k.block = fromDims(dims);
    k.blockSource = "the profile";
  } else {
    fail("kernel '" + entry.name +
         "' has no .reqntid or .maxntid; pass --block X[,Y,Z]");
  }
}

KernelReport describeKernel(const PTXEntrySummary &entry, const Report &report,
                            const PtxasFunctionInfo *ptxas,
                            std::optional<std::array<unsigned, 3>> block,
                            uint64_t dynamicShared, const Profile *profile) {
  KernelReport k;
  k.name = entry.name;
  if (profile)
    for (const ProfileKernel &pk : profile->kernels)
      if (pk.name == entry.name)
        k.profile = &pk;
  chooseBlock(k, entry, block);

  k.ptxas = ptxas;
  if (report.ptxasPath && !ptxas)
    k.notes.push_back("ptxas -v reported nothing for this kernel");
  // ptxas's figure where there is one: it counts what the code uses.
  k.staticShared =
      ptxas && ptxas->sharedBytes ? ptxas->sharedBytes : entry.staticShared;
  // The tiles a KAIO kernel keeps in dynamic shared memory are sized by the
  // compiler (`smem=N` in its signature comment); --smem adds to nothing,
  // it replaces the figure when larger, as a launch would.
  k.dynamicShared = std::max<uint64_t>(
      dynamicShared, entry.declaredDynamicShared.value_or(0));
  if (entry.usesDynamicShared && smemOpt.empty() &&
      !entry.declaredDynamicShared)
    k.notes.push_back("the kernel uses dynamic shared memory; pass --smem "
                      "BYTES for its size");
  if (ptxas && ptxas->registers && k.staticShared)
    k.occupancy = ptx::computeOccupancy(
        *report.chip, k.getThreads(), *ptxas->registers,
        *k.staticShared + k.dynamicShared, ptxas->barriers.value_or(0));

  if (profile && !k.profile)
    k.notes.push_back("no profile entry for kernel '" + k.name + "' in '" +
                      profileOpt + "'");
  if (k.profile && !report.gpu)
    k.notes.push_back("no roofline: " + report.gpuMissing);
  if (k.profile && report.gpu)
    k.roofline = computeRoofline(*report.gpu, *k.profile);
  return k;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  if (!kaio::checkInputFilesForKnownParserCrashes(argc, argv))
    return 1;
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kaio-prof: registers, occupancy and roofline of KAIO kernels\n");

  if (inputPath.empty())
    fail("no input file (kaio-prof FILE.mlir|FILE.ptx [options])");
  Report report;
  report.input = inputPath;
  const ChipInfo *chip =
      chipOpt.empty() ? nullptr : parseChip(chipOpt, "--chip");
  const GPUInfo *gpu = nullptr;
  if (!gpuOpt.empty()) {
    gpu = ptx::lookupGPU(gpuOpt);
    if (!gpu) {
      SmallVector<StringRef> known;
      for (const GPUInfo &g : ptx::getGPUs())
        known.push_back(g.name);
      fail("--gpu '" + gpuOpt + "': unknown GPU (known: " + joinNames(known) +
           ")");
    }
  }
  std::optional<std::array<unsigned, 3>> block;
  if (!blockOpt.empty())
    block = parseBlock(blockOpt);
  uint64_t dynamicShared = smemOpt.empty() ? 0 : parseBytes(smemOpt, "--smem");
  std::optional<Profile> profile;
  if (!profileOpt.empty())
    profile = readProfile(profileOpt);

  std::string ptx = loadPTX(inputPath, chip);
  report.chip = chip;
  if (gpu && gpu->sm < chip->sm)
    fail("--gpu '" + gpuOpt + "': an sm_" + Twine(gpu->sm) +
         " GPU cannot run code for " + chip->name);
  report.gpu = gpu ? gpu : ptx::getDefaultGPU(*chip);
  report.gpuChosen = gpu != nullptr;
  if (!report.gpu)
    report.gpuMissing =
        ("no default GPU for " + chip->name + "; pass --gpu").str();
  report.hasProfile = profile.has_value();

  PTXModuleSummary module = scanPTX(ptx);
  if (module.entries.empty())
    fail("'" + inputPath + "' has no kernels");
  if (!kernelOpt.empty() &&
      none_of(module.entries,
              [](const PTXEntrySummary &e) { return e.name == kernelOpt; })) {
    SmallVector<StringRef> names;
    for (const PTXEntrySummary &e : module.entries)
      names.push_back(e.name);
    fail("--kernel '" + kernelOpt + "': no such kernel in '" + inputPath +
         "' (kernels: " + joinNames(names) + ")");
  }

  std::vector<PtxasFunctionInfo> ptxasInfo;
  report.ptxasPath = findPtxas();
  if (report.ptxasPath) {
    CubinResult cubin = assemblePTX(ptx, chip->name, *report.ptxasPath, {"-v"});
    if (!cubin)
      fail("ptxas -arch=" + chip->name + " failed on '" + inputPath +
           "': " + firstLine(StringRef(cubin.diagnostics).split('\n').second));
    ptxasInfo = parsePtxasInfo(cubin.diagnostics);
  } else {
    report.ptxasMissing = describeMissingPtxas();
  }

  for (const PTXEntrySummary &entry : module.entries)
    if (kernelOpt.empty() || entry.name == kernelOpt)
      report.kernels.push_back(describeKernel(
          entry, report, findPtxasFunction(ptxasInfo, entry.name), block,
          dynamicShared, profile ? &*profile : nullptr));

  std::unique_ptr<ToolOutputFile> jsonFile;
  if (!jsonOpt.empty()) {
    std::error_code ec;
    jsonFile = std::make_unique<ToolOutputFile>(jsonOpt, ec, sys::fs::OF_Text);
    if (ec)
      fail("--json '" + jsonOpt + "': cannot write: " + ec.message());
  }
  if (jsonOpt != "-")
    printText(outs(), report);
  if (jsonFile) {
    jsonFile->os() << formatv("{0:2}", toJSON(report)) << "\n";
    jsonFile->keep();
  }
  return 0;
}
