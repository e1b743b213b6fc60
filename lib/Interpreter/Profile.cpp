//===- Profile.cpp - profile totals, text report and JSON -----------------===//

#include "Kaio/Interpreter/Profile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace kaio::interp;

SharedStats &SharedStats::operator+=(const SharedStats &o) {
  requests += o.requests;
  wavefronts += o.wavefronts;
  idealWavefronts += o.idealWavefronts;
  return *this;
}

GlobalStats &GlobalStats::operator+=(const GlobalStats &o) {
  requests += o.requests;
  sectors += o.sectors;
  idealSectors += o.idealSectors;
  bytes += o.bytes;
  return *this;
}

double ProfileCounters::activeLaneFraction() const {
  return warpInstructions
             ? double(threadInstructions) / (32.0 * double(warpInstructions))
             : 0.0;
}

SharedStats ProfileCounters::sharedTotal() const {
  SharedStats total;
  for (const auto &[kind, s] : shared)
    total += s;
  return total;
}

GlobalStats ProfileCounters::globalTotal() const {
  GlobalStats total;
  for (const auto &[kind, g] : global)
    total += g;
  return total;
}

uint64_t ProfileCounters::flops() const {
  uint64_t total = 0;
  for (const auto &[type, n] : mmaFlops)
    total += n;
  for (const auto &[type, n] : scalarFlops)
    total += n;
  return total;
}

ProfileCounters &ProfileCounters::operator+=(const ProfileCounters &o) {
  warpInstructions += o.warpInstructions;
  threadInstructions += o.threadInstructions;
  predicatedOnThreads += o.predicatedOnThreads;
  divergentBranches += o.divergentBranches;
  for (const auto &[k, v] : o.mix)
    mix[k] += v;
  for (const auto &[k, v] : o.shared)
    shared[k] += v;
  for (const auto &[k, v] : o.global)
    global[k] += v;
  cpAsyncBytes += o.cpAsyncBytes;
  for (const auto &[k, v] : o.mmaFlops)
    mmaFlops[k] += v;
  for (const auto &[k, v] : o.scalarFlops)
    scalarFlops[k] += v;
  return *this;
}

double KernelProfile::arithmeticIntensity() const {
  uint64_t bytes = compulsoryBytesRead + compulsoryBytesWritten;
  return bytes ? double(flops()) / double(bytes) : 0.0;
}

const KernelProfile *Profile::find(const std::string &kernel) const {
  for (const KernelProfile &k : kernels_)
    if (k.name == kernel)
      return &k;
  return nullptr;
}

KernelProfile &Profile::getOrCreate(const std::string &kernel) {
  for (KernelProfile &k : kernels_)
    if (k.name == kernel)
      return k;
  kernels_.emplace_back();
  kernels_.back().name = kernel;
  return kernels_.back();
}

//===----------------------------------------------------------------------===//
// Text report
//===----------------------------------------------------------------------===//

namespace {

double percent(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * double(part) / double(whole) : 0.0;
}

/// The mix, largest first.
std::vector<std::pair<std::string, uint64_t>>
sortedMix(const std::map<std::string, uint64_t> &mix) {
  std::vector<std::pair<std::string, uint64_t>> v(mix.begin(), mix.end());
  llvm::stable_sort(v, [](const auto &a, const auto &b) {
    return a.second > b.second;
  });
  return v;
}

void printShared(llvm::raw_ostream &os, llvm::StringRef name,
                 const SharedStats &s) {
  os << llvm::format("  %-12s %12llu %12llu %12llu %12llu\n",
                     name.str().c_str(), (unsigned long long)s.requests,
                     (unsigned long long)s.wavefronts,
                     (unsigned long long)s.idealWavefronts,
                     (unsigned long long)s.bankConflicts());
}

void printGlobal(llvm::raw_ostream &os, llvm::StringRef name,
                 const GlobalStats &g) {
  os << llvm::format("  %-12s %12llu %12llu %12llu %10.2f %14llu\n",
                     name.str().c_str(), (unsigned long long)g.requests,
                     (unsigned long long)g.sectors,
                     (unsigned long long)g.idealSectors,
                     g.sectorsPerRequest(), (unsigned long long)g.bytes);
}

std::string flopSummary(const ProfileCounters &c) {
  std::string s;
  llvm::raw_string_ostream os(s);
  bool first = true;
  for (const auto &[type, n] : c.mmaFlops) {
    os << (first ? "" : ", ") << "mma " << type << " " << n;
    first = false;
  }
  for (const auto &[type, n] : c.scalarFlops) {
    os << (first ? "" : ", ") << type << " " << n;
    first = false;
  }
  return s;
}

void printKernel(llvm::raw_ostream &os, const KernelProfile &k,
                 unsigned topLocations) {
  os << "profile of kernel '" << k.name << "' (" << k.launches
     << (k.launches == 1 ? " launch" : " launches") << ", grid " << k.grid[0]
     << "x" << k.grid[1] << "x" << k.grid[2] << ", block " << k.block[0] << "x"
     << k.block[1] << "x" << k.block[2] << ")\n";
  os << "  warp instructions   " << k.warpInstructions
     << "\n  thread instructions " << k.threadInstructions
     << llvm::format("   (active lanes %.1f%%, predicated on %.1f%%)\n",
                     100.0 * k.activeLaneFraction(),
                     percent(k.predicatedOnThreads, k.threadInstructions));
  os << "  divergent branches  " << k.divergentBranches << "\n";
  os << "  FLOPs               " << k.flops();
  if (k.flops())
    os << " (" << flopSummary(k) << ")";
  os << "\n  global bytes        " << k.globalBytesRead << " read, "
     << k.globalBytesWritten << " written (requested); "
     << k.compulsoryBytesRead << " read, " << k.compulsoryBytesWritten
     << " written (distinct sectors)\n";
  os << llvm::format("  arithmetic intensity %.2f FLOP/byte (of distinct "
                     "sectors)\n",
                     k.arithmeticIntensity());

  os << "instruction mix (warp instructions)\n";
  for (const auto &[cls, n] : sortedMix(k.mix))
    os << llvm::format("  %-32s %14llu %6.1f%%\n", cls.c_str(),
                       (unsigned long long)n, percent(n, k.warpInstructions));

  if (!k.shared.empty()) {
    os << "shared memory    requests   wavefronts        ideal  bank "
          "conflicts\n";
    for (const auto &[kind, s] : k.shared)
      printShared(os, kind, s);
    if (k.shared.size() > 1)
      printShared(os, "total", k.sharedTotal());
  }
  if (!k.global.empty()) {
    os << "global memory    requests      sectors        ideal  sect/req "
          "         bytes\n";
    for (const auto &[kind, g] : k.global)
      printGlobal(os, kind, g);
    if (k.global.size() > 1)
      printGlobal(os, "total", k.globalTotal());
  }

  if (!k.locations.empty() && topLocations) {
    os << "hot spots (by warp instructions)\n";
    for (const LocationProfile &l :
         llvm::ArrayRef(k.locations).take_front(topLocations)) {
      os << llvm::format("  %6.1f%% %12llu  ",
                         percent(l.warpInstructions, k.warpInstructions),
                         (unsigned long long)l.warpInstructions)
         << l.location;
      std::vector<std::pair<std::string, uint64_t>> mix = sortedMix(l.mix);
      os << "  [";
      for (auto [i, m] : llvm::enumerate(llvm::ArrayRef(mix).take_front(3)))
        os << (i ? ", " : "") << m.first;
      if (mix.size() > 3)
        os << ", ...";
      os << "]";
      SharedStats s = l.sharedTotal();
      if (s.requests)
        os << "  shared " << s.wavefronts << "/" << s.idealWavefronts
           << " wavefronts (" << s.bankConflicts() << " conflicts)";
      GlobalStats g = l.globalTotal();
      if (g.requests)
        os << llvm::format("  global %.2f sectors/req (ideal %.2f)",
                           g.sectorsPerRequest(),
                           double(g.idealSectors) / double(g.requests));
      os << "\n";
    }
  }
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

void writeCounters(llvm::json::OStream &j, const ProfileCounters &c) {
  j.attribute("warp_instructions", c.warpInstructions);
  j.attribute("thread_instructions", c.threadInstructions);
  j.attribute("predicated_on_threads", c.predicatedOnThreads);
  j.attribute("active_lane_fraction", c.activeLaneFraction());
  j.attribute("divergent_branches", c.divergentBranches);
  j.attributeObject("mix", [&] {
    for (const auto &[k, v] : c.mix)
      j.attribute(k, v);
  });
  auto shared = [&](const SharedStats &s) {
    j.object([&] {
      j.attribute("requests", s.requests);
      j.attribute("wavefronts", s.wavefronts);
      j.attribute("ideal_wavefronts", s.idealWavefronts);
      j.attribute("bank_conflicts", s.bankConflicts());
    });
  };
  j.attributeObject("shared", [&] {
    for (const auto &[k, s] : c.shared)
      j.attributeBegin(k), shared(s), j.attributeEnd();
    j.attributeBegin("total");
    shared(c.sharedTotal());
    j.attributeEnd();
  });
  auto global = [&](const GlobalStats &g) {
    j.object([&] {
      j.attribute("requests", g.requests);
      j.attribute("sectors", g.sectors);
      j.attribute("ideal_sectors", g.idealSectors);
      j.attribute("sectors_per_request", g.sectorsPerRequest());
      j.attribute("bytes", g.bytes);
    });
  };
  j.attributeObject("global", [&] {
    for (const auto &[k, g] : c.global)
      j.attributeBegin(k), global(g), j.attributeEnd();
    j.attributeBegin("total");
    global(c.globalTotal());
    j.attributeEnd();
  });
  j.attribute("cp_async_bytes", c.cpAsyncBytes);
  j.attributeObject("flops", [&] {
    j.attributeObject("mma", [&] {
      for (const auto &[k, v] : c.mmaFlops)
        j.attribute(k, v);
    });
    for (const char *bucket : {"fp32", "fp64", "fp16"}) {
      auto it = c.scalarFlops.find(bucket);
      j.attribute(bucket, it == c.scalarFlops.end() ? 0 : it->second);
    }
    j.attribute("total", c.flops());
  });
}

} // namespace

std::string Profile::str(unsigned topLocations) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (auto [i, k] : llvm::enumerate(kernels_)) {
    if (i)
      os << "\n";
    printKernel(os, k, topLocations);
  }
  return s;
}

std::string Profile::json() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("version", 1);
    j.attributeArray("kernels", [&] {
      for (const KernelProfile &k : kernels_) {
        j.object([&] {
          j.attribute("name", k.name);
          j.attribute("launches", k.launches);
          j.attributeArray("grid", [&] {
            for (uint32_t d : k.grid)
              j.value(d);
          });
          j.attributeArray("block", [&] {
            for (uint32_t d : k.block)
              j.value(d);
          });
          writeCounters(j, k);
          j.attributeObject("bytes", [&] {
            j.attribute("global_read", k.globalBytesRead);
            j.attribute("global_written", k.globalBytesWritten);
            j.attribute("compulsory_read", k.compulsoryBytesRead);
            j.attribute("compulsory_written", k.compulsoryBytesWritten);
            j.attribute("total", k.globalBytesRead + k.globalBytesWritten);
          });
          j.attribute("arithmetic_intensity", k.arithmeticIntensity());
          j.attributeArray("locations", [&] {
            for (const LocationProfile &l : k.locations)
              j.object([&] {
                j.attribute("location", l.location);
                writeCounters(j, l);
              });
          });
        });
      }
    });
  });
  os << "\n";
  return s;
}
