//===- Tuning.cpp - the GEMM tuner: timing, its table and its file --------===//

#include "Kaio/Ops/Library.h"

#include "LibraryImpl.h"
#include "Validate.h"

#include "Kaio/Runtime/Cache.h"

#include <algorithm>
#include <cstdio>

using namespace kaio;
using namespace kaio::ops;

namespace {

constexpr std::string_view kHeader = "kaio-gemm-tuning 1";

/// The smallest power of two >= n (n >= 1).
std::int64_t bucket(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n)
    p *= 2;
  return p;
}

bool isChoice(std::string_view name) {
  for (const char *c : kGemmTuningChoices)
    if (name == c)
      return true;
  for (const char *c : kPortableGemmTuningChoices)
    if (name == c)
      return true;
  return false;
}

std::string tuningPath() {
  std::string dir = rt::getCacheDirectory();
  return dir.empty() ? std::string() : dir + "/" + kGemmTuningFileName;
}

/// The table in the tuning file; an unreadable (other than missing) or
/// malformed file is ignored with a warning.
GemmTuningTable readTuningFile(std::vector<std::string> &warnings) {
  std::string path = tuningPath();
  if (path.empty() || !rt::isCacheEnabled())
    return {};
  rt::Expected<std::string> text = rt::readWholeFile(path);
  if (!text) {
    if (text.error().code() != rt::ErrorCode::NotFound)
      warnings.push_back("ignored the GEMM tuning file: " +
                         text.error().message());
    return {};
  }
  rt::Expected<GemmTuningTable> table = parseGemmTuningTable(*text);
  if (!table) {
    warnings.push_back("ignored the GEMM tuning file '" + path +
                       "': " + table.error().message());
    return {};
  }
  return std::move(*table);
}

} // namespace

std::string kaio::ops::getGemmTuningKey(std::string_view deviceName,
                                        const Matrix &a, const Matrix &b,
                                        const Matrix &c, bool fused,
                                        bool readsC, bool portable) {
  auto layout = [](const Matrix &m) {
    return m.layout == Layout::RowMajor ? "r" : "c";
  };
  std::string name(deviceName);
  // The key is one field of a tab-separated line.
  std::replace(name.begin(), name.end(), '\t', ' ');
  std::replace(name.begin(), name.end(), '\n', ' ');
  return name + "|" + getDTypeName(a.dtype) + "|" + getDTypeName(c.dtype) +
         "|" + layout(a) + layout(b) + "|m" + std::to_string(bucket(c.rows)) +
         "|n" + std::to_string(bucket(c.cols)) + "|k" +
         std::to_string(bucket(a.cols)) + (fused ? "|fused" : "|plain") +
         (readsC ? "|beta" : "") + (portable ? "|portable" : "");
}

rt::Expected<GemmTuningTable>
kaio::ops::parseGemmTuningTable(std::string_view text) {
  GemmTuningTable table;
  unsigned number = 0;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view()
                                         : text.substr(end + 1);
    ++number;
    auto bad = [&](const std::string &what) {
      return rt::Error::make(rt::ErrorCode::InvalidValue,
                             "line " + std::to_string(number) + ": " + what);
    };
    if (number == 1) {
      if (line != kHeader)
        return bad("expected the header '" + std::string(kHeader) + "'");
      continue;
    }
    if (line.empty())
      continue;
    std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos || tab == 0)
      return bad("expected a key, a tab and a choice");
    std::string_view choice = line.substr(tab + 1);
    if (!isChoice(choice))
      return bad("unknown choice '" + std::string(choice) + "'");
    table[std::string(line.substr(0, tab))] = std::string(choice);
  }
  if (number == 0)
    return rt::Error::make(rt::ErrorCode::InvalidValue, "the file is empty");
  return table;
}

std::string kaio::ops::formatGemmTuningTable(const GemmTuningTable &table) {
  std::string text(kHeader);
  text += "\n";
  for (const auto &[key, choice] : table)
    text += key + "\t" + choice + "\n";
  return text;
}

void Library::Impl::loadGemmTuning() {
  if (gemmTuningLoaded)
    return;
  gemmTuning = readTuningFile(warnings);
  gemmTuningLoaded = true;
}

std::string Library::Impl::gemmTuningKey(const Matrix &a, const Matrix &b,
                                         const Matrix &c,
                                         const GemmOptions &options) const {
  const bool fused =
      !options.bias.isAbsent() || options.activation != Activation::None;
  return getGemmTuningKey(deviceName, a, b, c, fused, options.beta != 0,
                          options.portable && hopper != nullptr);
}

const char *Library::Impl::gemmChoiceFor(const Matrix &a, const Matrix &b,
                                         const Matrix &c,
                                         const GemmOptions &options,
                                         const char *choice) {
  if (choice || !hasGemmTuning())
    return choice;
  const std::string *tuned = gemmChoice(gemmTuningKey(a, b, c, options));
  return tuned ? tuned->c_str() : nullptr;
}

const std::string *Library::Impl::gemmChoice(const std::string &key) {
  loadGemmTuning();
  auto it = gemmTuning.find(key);
  return it == gemmTuning.end() ? nullptr : &it->second;
}

const std::vector<std::string> &Library::warnings() const {
  return impl_->warnings;
}

rt::Expected<GemmTuneResult>
Library::tuneGemm(const rt::Device &device, const Matrix &a, const Matrix &b,
                  const Matrix &c, const GemmOptions &options,
                  const GemmTuneOptions &tune) {
  const char *op = "tune_gemm";
  if (device.ordinal() != impl_->deviceOrdinal)
    return detail::invalid(op, "device",
                           "is device " + std::to_string(device.ordinal()) +
                               ", the library's is " +
                               std::to_string(impl_->deviceOrdinal));
  if (tune.warmup < 0 || tune.reps < 1)
    return detail::invalid(op, "tune",
                           "needs warmup >= 0 and reps >= 1, got " +
                               std::to_string(tune.warmup) + " and " +
                               std::to_string(tune.reps));
  if (rt::Error e = validateGemm(a, b, c, options))
    return e;
  if (c.rows == 0 || c.cols == 0)
    return detail::invalid(op, "c", "is empty: nothing to time");
  // The problem gemm() launches: a row-major C (C^T = B^T A^T).
  const bool colC = c.layout == Layout::ColMajor;
  const Matrix ra = colC ? detail::transposed(b) : a;
  const Matrix rb = colC ? detail::transposed(a) : b;
  const Matrix rc = colC ? detail::transposed(c) : c;
  GemmTuneResult result;
  // What is tuned: the sm_90 kernel's tile widths, or the blocks an SM
  // the portable kernel is built for (forced on a 9.0 GPU, another kernel
  // than gemm()'s own: recorded apart, its key says so).
  result.key = impl_->gemmTuningKey(ra, rb, rc, options);
  std::vector<const char *> choices;
  if (!detail::gemmRunsOnHopper(impl_->hopper != nullptr, ra, rb, options)) {
    if (detail::portableGemmHasBlockChoice(ra, rb))
      choices.assign(std::begin(kPortableGemmTuningChoices),
                     std::end(kPortableGemmTuningChoices));
    else
      choices.push_back(nullptr); // one configuration (named "portable")
  } else {
    choices = detail::hopperGemmChoices(ra, rc);
  }
  rt::Expected<rt::Event> start = rt::Event::create(device);
  rt::Expected<rt::Event> stop = rt::Event::create(device);
  if (!start)
    return start.takeError().addContext(op);
  if (!stop)
    return stop.takeError().addContext(op);
  // The tiles are timed without a split K: the table's key does not say
  // whether gemm() will be given a workspace.
  GemmOptions timed = options;
  timed.workspace = Matrix();
  for (const char *choice : choices) {
    auto run = [&]() {
      return gemmRowMajorC(ra, rb, rc, timed, colC, choice);
    };
    for (int i = 0; i < tune.warmup; ++i)
      if (rt::Error e = run())
        return e;
    std::vector<double> times;
    for (int i = 0; i < tune.reps; ++i) {
      if (rt::Error e = start->record(options.stream))
        return e.addContext(op);
      if (rt::Error e = run())
        return e;
      if (rt::Error e = stop->record(options.stream))
        return e.addContext(op);
      if (rt::Error e = stop->synchronize())
        return e.addContext(op);
      rt::Expected<float> ms = stop->elapsedMsSince(*start);
      if (!ms)
        return ms.takeError().addContext(op);
      times.push_back(*ms);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2,
                     times.end());
    result.timings.emplace_back(choice ? choice : "portable",
                                times[times.size() / 2]);
  }
  auto best = std::min_element(
      result.timings.begin(), result.timings.end(),
      [](const auto &x, const auto &y) { return x.second < y.second; });
  result.choice = best->first;
  if (choices.size() == 1)
    return result; // nothing to choose
  impl_->loadGemmTuning(); // the file's entries first, then ours
  impl_->gemmTuning[result.key] = result.choice;
  if (!tune.save || !rt::isCacheEnabled())
    return result;
  // Merge with what other processes wrote since (their entries stay, ours
  // win), then replace the file atomically.
  std::vector<std::string> ignored;
  GemmTuningTable merged = readTuningFile(ignored);
  merged[result.key] = result.choice;
  const std::string path = tuningPath();
  if (path.empty() ||
      !rt::makeDirectories(path.substr(0, path.rfind('/'))) ||
      !rt::writeFileAtomically(path, formatGemmTuningTable(merged)))
    impl_->warnings.push_back("could not write the GEMM tuning file '" +
                              path + "'");
  return result;
}
