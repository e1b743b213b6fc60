//===- RunSupport.cpp - Arg specs, host arrays, printing ------------------===//

#include "RunSupport.h"

#include "Kaio/Runtime/TensorMap.h"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace kaio;
using namespace kaio::run;

static Error parseError(const std::string &msg) {
  return Error::make(ErrorCode::Parse, msg);
}

Expected<std::uint64_t> kaio::run::parseScalarBits(ScalarType type,
                                                   std::string_view text) {
  std::string s(text);
  std::string what = "'" + s + "' as " + rt::getScalarTypeName(type);
  if (s.empty())
    return parseError("empty value for " +
                      std::string(rt::getScalarTypeName(type)));
  char *end = nullptr;
  errno = 0;
  if (rt::isFloatType(type)) {
    double v = std::strtod(s.c_str(), &end);
    if (*end || end == s.c_str())
      return parseError("cannot parse " + what);
    std::uint64_t bits = 0;
    switch (type) {
    case ScalarType::F64:
      std::memcpy(&bits, &v, 8);
      break;
    case ScalarType::F32: {
      float f = float(v);
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      bits = b;
      break;
    }
    case ScalarType::F16:
      bits = rt::toHalf(float(v)).bits;
      break;
    default:
      bits = rt::toBFloat16(float(v)).bits;
      break;
    }
    return bits;
  }
  std::size_t size = rt::getScalarTypeSize(type);
  if (rt::isSignedIntType(type)) {
    long long v = std::strtoll(s.c_str(), &end, 0);
    long long lo = size == 8 ? std::numeric_limits<long long>::min()
                             : -(1LL << (size * 8 - 1));
    long long hi = size == 8 ? std::numeric_limits<long long>::max()
                             : (1LL << (size * 8 - 1)) - 1;
    if (*end || end == s.c_str())
      return parseError("cannot parse " + what);
    if (errno == ERANGE || v < lo || v > hi)
      return parseError(what + " is out of range");
    std::uint64_t bits = std::uint64_t(v);
    if (size < 8)
      bits &= (std::uint64_t(1) << (size * 8)) - 1;
    return bits;
  }
  if (s[0] == '-')
    return parseError(what + " is out of range (negative)");
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (*end || end == s.c_str())
    return parseError("cannot parse " + what);
  if (errno == ERANGE ||
      (size < 8 && v > (1ULL << (size * 8)) - 1))
    return parseError(what + " is out of range");
  return std::uint64_t(v);
}

Expected<Dim3> kaio::run::parseDim3(std::string_view text) {
  unsigned v[3] = {1, 1, 1};
  int n = 0;
  std::string s(text);
  const char *p = s.c_str();
  while (true) {
    if (n == 3)
      return parseError("too many dimensions in '" + s + "' (at most X,Y,Z)");
    char *end = nullptr;
    errno = 0;
    if (!std::isdigit(static_cast<unsigned char>(*p)))
      return parseError("bad dimensions '" + s + "' (expected X[,Y[,Z]])");
    unsigned long x = std::strtoul(p, &end, 10);
    if (errno == ERANGE || x == 0 || x > 0xffffffffUL)
      return parseError("dimension in '" + s + "' must be in [1, 2^32)");
    v[n++] = unsigned(x);
    if (*end == 0)
      break;
    if (*end != ',')
      return parseError("bad dimensions '" + s + "' (expected X[,Y[,Z]])");
    p = end + 1;
  }
  return Dim3(v[0], v[1], v[2]);
}

/// "AxBxC" (each >= 1).
template <typename T>
static Expected<std::vector<T>> parseExtents(std::string_view text,
                                             const std::string &where,
                                             const char *what) {
  std::vector<T> out;
  while (true) {
    std::size_t x = text.find('x');
    std::string part(text.substr(0, x));
    char *end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(part.c_str(), &end, 10);
    if (part.empty() || *end || errno == ERANGE || part[0] == '-' || v == 0 ||
        v > std::numeric_limits<T>::max())
      return parseError(where + ": bad " + what + " '" + std::string(text) +
                        "' (extents like 128x64)");
    out.push_back(T(v));
    if (x == std::string_view::npos)
      return out;
    text = text.substr(x + 1);
  }
}

static Expected<ArgSpec> parseTensorMapSpec(ArgSpec spec,
                                            std::string_view value,
                                            const std::string &where) {
  spec.isTensorMap = true;
  std::vector<std::string_view> parts;
  while (true) {
    std::size_t colon = value.find(':');
    parts.push_back(value.substr(0, colon));
    if (colon == std::string_view::npos)
      break;
    value = value.substr(colon + 1);
  }
  if (parts.size() < 3)
    return parseError(where + ": expected tmap:BUFFER:DIMS:BOX[:swizzle128]"
                              "[:oobnan]");
  spec.mapBuffer = std::string(parts[0]);
  if (spec.mapBuffer.empty())
    return parseError(where + ": missing the buffer the tensor map describes");
  Expected<std::vector<std::uint64_t>> dims =
      parseExtents<std::uint64_t>(parts[1], where, "shape");
  if (!dims)
    return dims.takeError();
  Expected<std::vector<std::uint32_t>> box =
      parseExtents<std::uint32_t>(parts[2], where, "box");
  if (!box)
    return box.takeError();
  if (dims->size() > rt::TensorMapDesc::kMaxRank || box->size() != dims->size())
    return parseError(where + ": the shape and the box need the same rank, "
                              "1 to 5");
  spec.mapDims = std::move(*dims);
  spec.mapBox = std::move(*box);
  for (std::size_t i = 3; i < parts.size(); ++i) {
    if (parts[i] == "swizzle32")
      spec.swizzle = rt::TensorMapSwizzle::B32;
    else if (parts[i] == "swizzle64")
      spec.swizzle = rt::TensorMapSwizzle::B64;
    else if (parts[i] == "swizzle128")
      spec.swizzle = rt::TensorMapSwizzle::B128;
    else if (parts[i] == "oobnan")
      spec.oobNaN = true;
    else
      return parseError(where + ": unknown tensor map option '" +
                        std::string(parts[i]) +
                        "' (swizzle32, swizzle64, swizzle128, oobnan)");
  }
  return spec;
}

rt::TensorMapDesc kaio::run::tensorMapDesc(const ArgSpec &spec,
                                           ScalarType elem,
                                           std::uint64_t address) {
  rt::TensorMapDesc d;
  d.elem = elem;
  d.rank = std::uint32_t(spec.mapDims.size());
  d.address = address;
  std::uint64_t stride = rt::getScalarTypeSize(elem);
  for (std::uint32_t i = 0; i < d.rank; ++i) {
    // Written outermost first; the map lists the innermost first.
    d.dims[i] = spec.mapDims[d.rank - 1 - i];
    d.box[i] = spec.mapBox[d.rank - 1 - i];
    d.strides[i] = stride;
    stride *= d.dims[i];
  }
  d.swizzle = spec.swizzle;
  d.oobNaN = spec.oobNaN;
  return d;
}

Expected<ArgSpec> kaio::run::parseArgSpec(std::string_view text) {
  ArgSpec spec;
  spec.text = std::string(text);
  std::string where = "--arg '" + spec.text + "'";
  std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return parseError(where + ": expected name=type:value or "
                              "name=type[count]:init");
  spec.name = std::string(text.substr(0, eq));
  for (char c : spec.name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return parseError(where + ": bad argument name '" + spec.name + "'");
  std::string_view rest = text.substr(eq + 1);
  std::size_t colon = rest.find(':');
  if (colon == std::string_view::npos)
    return parseError(where + ": missing ':' before the value");
  std::string_view typePart = rest.substr(0, colon);
  std::string_view value = rest.substr(colon + 1);
  if (typePart == "tmap")
    return parseTensorMapSpec(std::move(spec), value, where);
  std::size_t bracket = typePart.find('[');
  std::string_view typeName = typePart.substr(0, bracket);
  std::optional<ScalarType> type =
      rt::parseScalarType(typeName, /*allowAliases=*/true);
  if (!type)
    return parseError(where + ": unknown type '" + std::string(typeName) +
                      "' (f32 f64 f16 bf16 s8 u8 s16 u16 s32 u32 s64 u64)");
  spec.type = *type;
  if (bracket == std::string_view::npos) {
    Expected<std::uint64_t> bits = parseScalarBits(spec.type, value);
    if (!bits)
      return bits.takeError().addContext(where);
    spec.bits = *bits;
    return spec;
  }
  spec.isBuffer = true;
  if (typePart.back() != ']')
    return parseError(where + ": expected ']' after the element count");
  std::string count(typePart.substr(bracket + 1,
                                    typePart.size() - bracket - 2));
  char *end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(count.c_str(), &end, 0);
  if (count.empty() || *end || errno == ERANGE || count[0] == '-')
    return parseError(where + ": bad element count '" + count + "'");
  // The host copy must be addressable (count x size used to overflow into
  // a small allocation that the initialization then wrote past).
  if (n > kMaxBufferBytes / rt::getScalarTypeSize(spec.type))
    return parseError(where + ": " + count + " elements of " +
                      rt::getScalarTypeName(spec.type) +
                      " are more than the 128 GiB a buffer may hold");
  spec.count = n;
  if (value == "rand") {
    spec.init = ArgSpec::Init::Rand;
  } else if (value == "zeros") {
    spec.init = ArgSpec::Init::Zeros;
  } else if (value == "ones") {
    spec.init = ArgSpec::Init::Ones;
  } else if (value == "iota") {
    spec.init = ArgSpec::Init::Iota;
  } else if (!value.empty() && value[0] == '@') {
    spec.init = ArgSpec::Init::File;
    spec.file = std::string(value.substr(1));
    if (spec.file.empty())
      return parseError(where + ": missing file name after '@'");
  } else {
    std::string v(value);
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end)
      return parseError(where + ": bad initializer '" + v +
                        "' (rand, zeros, ones, iota, a number or @file)");
    spec.init = ArgSpec::Init::Constant;
    spec.constant = d;
  }
  return spec;
}

//===----------------------------------------------------------------------===//
// HostArray
//===----------------------------------------------------------------------===//

HostArray::HostArray(ScalarType type, std::size_t count)
    : type(type), count(count), bytes(count * rt::getScalarTypeSize(type)) {}

template <typename T> static T load(const unsigned char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T> static void store(unsigned char *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

double HostArray::get(std::size_t i) const {
  const unsigned char *p = bytes.data() + i * rt::getScalarTypeSize(type);
  switch (type) {
  case ScalarType::U8: case ScalarType::B8: return load<std::uint8_t>(p);
  case ScalarType::S8: return load<std::int8_t>(p);
  case ScalarType::U16: return load<std::uint16_t>(p);
  case ScalarType::S16: return load<std::int16_t>(p);
  case ScalarType::U32: return load<std::uint32_t>(p);
  case ScalarType::S32: return load<std::int32_t>(p);
  case ScalarType::U64: return double(load<std::uint64_t>(p));
  case ScalarType::S64: return double(load<std::int64_t>(p));
  case ScalarType::F16: return rt::toFloat(rt::Half{load<std::uint16_t>(p)});
  case ScalarType::BF16:
    return rt::toFloat(rt::BFloat16{load<std::uint16_t>(p)});
  case ScalarType::F32: return load<float>(p);
  case ScalarType::F64: return load<double>(p);
  }
  return 0;
}

void HostArray::set(std::size_t i, double v) {
  unsigned char *p = bytes.data() + i * rt::getScalarTypeSize(type);
  switch (type) {
  case ScalarType::U8: case ScalarType::B8: store(p, std::uint8_t(v)); break;
  case ScalarType::S8: store(p, std::int8_t(v)); break;
  case ScalarType::U16: store(p, std::uint16_t(v)); break;
  case ScalarType::S16: store(p, std::int16_t(v)); break;
  case ScalarType::U32: store(p, std::uint32_t(v)); break;
  case ScalarType::S32: store(p, std::int32_t(v)); break;
  case ScalarType::U64: store(p, std::uint64_t(v)); break;
  case ScalarType::S64: store(p, std::int64_t(v)); break;
  case ScalarType::F16: store(p, rt::toHalf(float(v)).bits); break;
  case ScalarType::BF16: store(p, rt::toBFloat16(float(v)).bits); break;
  case ScalarType::F32: store(p, float(v)); break;
  case ScalarType::F64: store(p, v); break;
  }
}

std::string HostArray::format(std::size_t i) const {
  char buf[64];
  const unsigned char *p = bytes.data() + i * rt::getScalarTypeSize(type);
  if (type == ScalarType::U64)
    std::snprintf(buf, sizeof(buf), "%" PRIu64, load<std::uint64_t>(p));
  else if (type == ScalarType::S64)
    std::snprintf(buf, sizeof(buf), "%" PRId64, load<std::int64_t>(p));
  else if (rt::isFloatType(type))
    std::snprintf(buf, sizeof(buf), "%.6g", get(i));
  else
    std::snprintf(buf, sizeof(buf), "%.0f", get(i));
  return buf;
}

namespace {
/// splitmix64: tiny, and identical on every platform (unlike <random>'s
/// distributions), so `--seed` reproduces inputs anywhere.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};
} // namespace

Expected<HostArray> kaio::run::initHostArray(const ArgSpec &spec,
                                             std::uint64_t seed) {
  HostArray array(spec.type, spec.count);
  switch (spec.init) {
  case ArgSpec::Init::Zeros:
    break;
  case ArgSpec::Init::Ones:
    for (std::size_t i = 0; i < spec.count; ++i)
      array.set(i, 1);
    break;
  case ArgSpec::Init::Iota:
    for (std::size_t i = 0; i < spec.count; ++i)
      array.set(i, double(i));
    break;
  case ArgSpec::Init::Constant:
    for (std::size_t i = 0; i < spec.count; ++i)
      array.set(i, spec.constant);
    break;
  case ArgSpec::Init::Rand: {
    std::uint64_t nameHash = 1469598103934665603ULL; // FNV-1a of the name.
    for (char c : spec.name)
      nameHash = (nameHash ^ std::uint8_t(c)) * 1099511628211ULL;
    SplitMix64 rng{seed ^ nameHash};
    bool isFloat = rt::isFloatType(spec.type);
    bool isSigned = rt::isSignedIntType(spec.type);
    for (std::size_t i = 0; i < spec.count; ++i) {
      std::uint64_t r = rng.next();
      if (isFloat) // Uniform in [-1, 1).
        array.set(i, double(r >> 11) * 0x1.0p-52 - 1.0);
      else if (isSigned) // Small ints in [-8, 8).
        array.set(i, double(int(r % 16) - 8));
      else // [0, 16).
        array.set(i, double(r % 16));
    }
    break;
  }
  case ArgSpec::Init::File: {
    std::FILE *f = std::fopen(spec.file.c_str(), "rb");
    if (!f)
      return Error::make(ErrorCode::Io, "--arg " + spec.name +
                                            ": cannot open '" + spec.file +
                                            "': " + std::strerror(errno));
    std::size_t got = std::fread(array.bytes.data(), 1, array.bytes.size(), f);
    bool extra = std::fgetc(f) != EOF;
    std::fclose(f);
    if (got != array.bytes.size() || extra)
      return Error::make(ErrorCode::Io,
                         "--arg " + spec.name + ": '" + spec.file +
                             "' must hold exactly " +
                             std::to_string(array.bytes.size()) + " bytes (" +
                             std::to_string(spec.count) + " x " +
                             rt::getScalarTypeName(spec.type) + ")");
    break;
  }
  }
  return array;
}

Summary kaio::run::summarize(const HostArray &array) {
  Summary s;
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < array.count; ++i) {
    double v = array.get(i);
    if (std::isnan(v)) {
      ++s.nanCount;
      continue;
    }
    if (n == 0 || v < s.min)
      s.min = v;
    if (n == 0 || v > s.max)
      s.max = v;
    sum += v;
    ++n;
  }
  s.mean = n ? sum / double(n) : std::nan("");
  return s;
}

std::string kaio::run::formatArray(const std::string &name,
                                   const HostArray &array, std::size_t edge) {
  std::string out = name + ": " + rt::getScalarTypeName(array.type) + "[" +
                    std::to_string(array.count) + "]\n";
  auto line = [&](std::size_t i) {
    out += "  [" + std::to_string(i) + "] " + array.format(i) + "\n";
  };
  if (array.count <= 2 * edge) {
    for (std::size_t i = 0; i < array.count; ++i)
      line(i);
  } else {
    for (std::size_t i = 0; i < edge; ++i)
      line(i);
    out += "  ... (" + std::to_string(array.count - 2 * edge) + " more)\n";
    for (std::size_t i = array.count - edge; i < array.count; ++i)
      line(i);
  }
  Summary s = summarize(array);
  char buf[160];
  std::snprintf(buf, sizeof(buf), "  min %.6g  max %.6g  mean %.6g  NaN %zu\n",
                s.min, s.max, s.mean, s.nanCount);
  return out + buf;
}

static const char *getNpyDescr(ScalarType type) {
  switch (type) {
  case ScalarType::U8: case ScalarType::B8: return "|u1";
  case ScalarType::S8: return "|i1";
  case ScalarType::U16: case ScalarType::BF16: return "<u2";
  case ScalarType::S16: return "<i2";
  case ScalarType::U32: return "<u4";
  case ScalarType::S32: return "<i4";
  case ScalarType::U64: return "<u8";
  case ScalarType::S64: return "<i8";
  case ScalarType::F16: return "<f2";
  case ScalarType::F32: return "<f4";
  case ScalarType::F64: return "<f8";
  }
  return "|u1";
}

static Error writeBytes(const std::string &path, const std::string &header,
                        const HostArray &array) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return Error::make(ErrorCode::Io, "cannot create '" + path +
                                          "': " + std::strerror(errno));
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  ok = ok && std::fwrite(array.bytes.data(), 1, array.bytes.size(), f) ==
                 array.bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    return Error::make(ErrorCode::Io, "error writing '" + path + "'");
  return Error::success();
}

Error kaio::run::writeNpy(const std::string &path, const HostArray &array) {
  std::string dict = std::string("{'descr': '") + getNpyDescr(array.type) +
                     "', 'fortran_order': False, 'shape': (" +
                     std::to_string(array.count) + ",), }";
  // Magic (6) + version (2) + length (2) + dict + padding + '\n' is a
  // multiple of 64, as the format asks.
  std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string header = "\x93NUMPY";
  header += '\x01';
  header += '\x00';
  header += char(dict.size() & 0xff);
  header += char(dict.size() >> 8);
  header += dict;
  return writeBytes(path, header, array);
}

Error kaio::run::writeRaw(const std::string &path, const HostArray &array) {
  return writeBytes(path, {}, array);
}

std::vector<rt::KernelArg>
kaio::run::toKernelArgs(const std::vector<HostArg> &args,
                        const std::vector<std::uint64_t> &addresses,
                        const std::vector<const rt::TensorMap *> &maps) {
  std::vector<rt::KernelArg> out;
  out.reserve(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ArgSpec &spec = args[i].spec;
    if (!spec.passed)
      continue;
    if (spec.isTensorMap) {
      rt::KernelArg placeholder;
      placeholder.kind = rt::KernelArg::Kind::TensorMap;
      out.push_back(i < maps.size() && maps[i]
                        ? rt::KernelArg::tensorMap(*maps[i])
                        : placeholder);
      continue;
    }
    rt::KernelArg arg =
        spec.isBuffer ? rt::KernelArg::pointer(addresses[i], spec.type, false)
                      : rt::KernelArg::scalarBits(spec.type, spec.bits);
    // Errors say the --arg's name (`args` outlives the launch).
    if (!spec.name.empty())
      arg.name = spec.name.c_str();
    out.push_back(arg);
  }
  return out;
}

Error kaio::run::checkArgsAgainstSignature(
    const rt::KernelSignature *signature, const std::vector<HostArg> &args) {
  if (!signature)
    return Error::success();
  std::vector<rt::KernelArg> kernelArgs =
      toKernelArgs(args, std::vector<std::uint64_t>(args.size(), 0));
  if (Error e = rt::checkKernelArgs(*signature, kernelArgs))
    return e.addContext("checking --arg values against the kaio.kernel "
                        "signature " + signature->str());
  return Error::success();
}
