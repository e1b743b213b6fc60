//===- Signature.cpp - `// kaio.kernel` comments and argument checks ------===//

#include "Kaio/Runtime/Signature.h"

#include "Kaio/Runtime/BlockBounds.h"
#include "Kaio/Runtime/TensorMap.h"

#include <cctype>
#include <optional>

using namespace kaio::rt;

static std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

static bool isIdentifierChar(char c) {
  // PTX identifiers: [a-zA-Z_$%][a-zA-Z0-9_$]*, plus '.' seen in mangled names.
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '%' || c == '.';
}

std::string ParamType::str() const {
  if (isTensorMap)
    return "tmap";
  if (!isPointer)
    return getScalarTypeName(elem);
  return std::string("ptr<") + (isConst ? "const " : "") +
         getScalarTypeName(elem) + ">";
}

std::string KernelSignature::str() const {
  std::string s = name + "(";
  for (std::size_t i = 0; i < params.size(); ++i)
    s += (i ? "," : "") + params[i].str();
  s += ")";
  if (dynamicSharedBytes)
    s += " smem=" + std::to_string(dynamicSharedBytes);
  if (hasCluster())
    s += " cluster=" + std::to_string(cluster[0]) + "x" +
         std::to_string(cluster[1]) + "x" + std::to_string(cluster[2]);
  if (hasBlock()) {
    s += exactBlock ? " reqntid=" : " maxntid=";
    for (unsigned i = 0; i < blockRank; ++i)
      s += (i ? "x" : "") + std::to_string(block[i]);
  }
  return s;
}

/// A decimal of 1 to 9 digits, or nothing.
static std::optional<std::uint64_t> parseDecimal(std::string_view digits) {
  if (digits.empty() || digits.size() > 9)
    return std::nullopt;
  std::uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + std::uint64_t(c - '0');
  }
  return value;
}

/// "X", "XxY" or "XxYxZ" into `dims` (the rest 1) and `rank`: each extent
/// 1 to `maxExtent`, their product at most `maxCount`.
static bool parseDims(std::string_view text, unsigned maxExtent,
                      unsigned maxCount, std::array<unsigned, 3> &dims,
                      unsigned &rank) {
  dims = {1, 1, 1};
  rank = 0;
  std::uint64_t count = 1;
  while (true) {
    std::size_t x = text.find('x');
    std::optional<std::uint64_t> d = parseDecimal(text.substr(0, x));
    if (rank == 3 || !d || *d < 1 || *d > maxExtent)
      return false;
    dims[rank++] = unsigned(*d);
    count *= *d;
    if (x == std::string_view::npos)
      return count <= maxCount;
    text.remove_prefix(x + 1);
  }
}

/// The launch requirements after the parameters: " smem=N", " cluster=X",
/// "XxY" or "XxYxZ", and " maxntid=..." or " reqntid=..." (each at most
/// once, in any order).
static Error parseRequirements(std::string_view extra, KernelSignature &sig) {
  bool sawSmem = false, sawCluster = false;
  while (!(extra = trim(extra)).empty()) {
    std::size_t end = 0;
    while (end < extra.size() &&
           !std::isspace(static_cast<unsigned char>(extra[end])))
      ++end;
    std::string_view item = extra.substr(0, end);
    extra.remove_prefix(end);
    auto bad = [&](const std::string &what) {
      return Error::make(ErrorCode::Parse, "expected " + what +
                                               " after the parameters, got '" +
                                               std::string(item) + "'");
    };
    if (item.substr(0, 5) == "smem=") {
      std::optional<std::uint64_t> bytes = parseDecimal(item.substr(5));
      if (sawSmem || !bytes || *bytes == 0)
        return bad("' smem=BYTES' (once, BYTES > 0)");
      sig.dynamicSharedBytes = std::uint32_t(*bytes);
      sawSmem = true;
      continue;
    }
    if (item.substr(0, 8) == "cluster=") {
      unsigned rank = 0;
      if (sawCluster || !parseDims(item.substr(8), kMaxClusterBlocks,
                                   kMaxClusterBlocks, sig.cluster, rank))
        return bad("' cluster=X[xY[xZ]]' (once, at most " +
                   std::to_string(kMaxClusterBlocks) + " blocks)");
      sawCluster = true;
      continue;
    }
    bool exact = item.substr(0, 8) == "reqntid=";
    if (exact || item.substr(0, 8) == "maxntid=") {
      if (sig.hasBlock() ||
          !parseDims(item.substr(8), kMaxBlockThreads, kMaxBlockThreads,
                     sig.block, sig.blockRank))
        return bad("' maxntid=X[xY[xZ]]' or ' reqntid=X[xY[xZ]]' (one of "
                   "them once, at most " +
                   std::to_string(kMaxBlockThreads) + " threads)");
      sig.exactBlock = exact;
      continue;
    }
    return bad("' smem=BYTES', ' cluster=XxYxZ', ' maxntid=XxYxZ' or "
               "' reqntid=XxYxZ'");
  }
  return Error::success();
}

Expected<ParamType> kaio::rt::parseParamType(std::string_view text) {
  std::string_view t = trim(text);
  if (t == "tmap")
    return ParamType::tensorMap();
  if (t.substr(0, 4) == "ptr<") {
    if (t.back() != '>')
      return Error::make(ErrorCode::Parse, "expected '>' to close '" +
                                               std::string(t) + "'");
    std::string_view inner = trim(t.substr(4, t.size() - 5));
    bool isConst = false;
    if (inner.substr(0, 5) == "const" && inner.size() > 5 &&
        std::isspace(static_cast<unsigned char>(inner[5]))) {
      isConst = true;
      inner = trim(inner.substr(5));
    }
    std::optional<ScalarType> elem =
        parseScalarType(inner, /*allowAliases=*/false, /*allowByte=*/true);
    if (!elem)
      return Error::make(ErrorCode::Parse, "unknown pointer element type '" +
                                               std::string(inner) + "'");
    return ParamType::pointer(*elem, isConst);
  }
  std::optional<ScalarType> type = parseScalarType(t);
  if (!type)
    return Error::make(ErrorCode::Parse,
                       "unknown parameter type '" + std::string(t) +
                           "' (expected u8..u64, s8..s64, f16, bf16, f32, "
                           "f64, ptr<T> or ptr<const T>)");
  return ParamType::scalar(*type);
}

Expected<KernelSignature>
kaio::rt::parseKernelSignature(std::string_view text) {
  std::string_view t = trim(text);
  std::size_t open = t.find('(');
  if (open == std::string_view::npos)
    return Error::make(ErrorCode::Parse, "expected '(' after the kernel name");
  KernelSignature sig;
  std::string_view name = trim(t.substr(0, open));
  if (name.empty())
    return Error::make(ErrorCode::Parse, "missing kernel name");
  for (char c : name)
    if (!isIdentifierChar(c))
      return Error::make(ErrorCode::Parse, "invalid kernel name '" +
                                               std::string(name) + "'");
  sig.name = std::string(name);
  std::size_t close = t.find(')', open);
  if (close == std::string_view::npos)
    return Error::make(ErrorCode::Parse,
                       "expected ')' at the end of the signature");
  if (Error e = parseRequirements(t.substr(close + 1), sig))
    return e;
  std::string_view params = trim(t.substr(open + 1, close - open - 1));
  if (params.empty())
    return sig;
  while (true) {
    std::size_t comma = params.find(',');
    std::string_view one = trim(params.substr(0, comma));
    if (one.empty())
      return Error::make(ErrorCode::Parse,
                         "empty parameter " +
                             std::to_string(sig.params.size() + 1));
    Expected<ParamType> type = parseParamType(one);
    if (!type)
      return type.takeError().addContext(
          "parameter " + std::to_string(sig.params.size() + 1));
    sig.params.push_back(*type);
    if (comma == std::string_view::npos)
      break;
    params.remove_prefix(comma + 1);
  }
  return sig;
}

Expected<std::vector<KernelSignature>>
kaio::rt::parseKernelSignatures(std::string_view ptx) {
  static constexpr std::string_view marker = "kaio.kernel";
  std::vector<KernelSignature> sigs;
  std::vector<std::size_t> lines;
  std::size_t lineNo = 0;
  while (!ptx.empty()) {
    ++lineNo;
    std::size_t eol = ptx.find('\n');
    std::string_view line = ptx.substr(0, eol);
    ptx.remove_prefix(eol == std::string_view::npos ? ptx.size() : eol + 1);
    std::size_t slashes = line.find("//");
    if (slashes == std::string_view::npos)
      continue;
    std::string_view comment = trim(line.substr(slashes + 2));
    if (comment.substr(0, marker.size()) != marker ||
        comment.size() == marker.size() ||
        !std::isspace(static_cast<unsigned char>(comment[marker.size()])))
      continue;
    std::string where = "line " + std::to_string(lineNo);
    Expected<KernelSignature> sig =
        parseKernelSignature(comment.substr(marker.size()));
    if (!sig)
      return sig.takeError().addContext(where + ": malformed kaio.kernel "
                                                "comment");
    for (std::size_t i = 0; i < sigs.size(); ++i)
      if (sigs[i].name == sig->name)
        return Error::make(ErrorCode::Parse,
                           where + ": duplicate kaio.kernel signature for '" +
                               sig->name + "' (first on line " +
                               std::to_string(lines[i]) + ")");
    sigs.push_back(std::move(*sig));
    lines.push_back(lineNo);
  }
  return sigs;
}

const KernelSignature *
kaio::rt::findSignature(const std::vector<KernelSignature> &sigs,
                        std::string_view name) {
  for (const KernelSignature &sig : sigs)
    if (sig.name == name)
      return &sig;
  return nullptr;
}

KernelArg KernelArg::scalarBits(ScalarType type, std::uint64_t bits) {
  KernelArg arg;
  arg.kind = Kind::Scalar;
  arg.type = type;
  arg.size = static_cast<std::uint8_t>(getScalarTypeSize(type));
  std::memcpy(arg.storage, &bits, arg.size); // Little-endian: low bytes.
  return arg;
}

KernelArg KernelArg::pointer(CUdeviceptr ptr, ScalarType elem, bool isConst) {
  KernelArg arg;
  arg.kind = Kind::Pointer;
  arg.type = elem;
  arg.isConst = isConst;
  arg.size = sizeof(CUdeviceptr);
  std::memcpy(arg.storage, &ptr, sizeof(ptr));
  return arg;
}

KernelArg KernelArg::untypedPointer(CUdeviceptr ptr) {
  KernelArg arg = pointer(ptr, ScalarType::B8, false);
  arg.kind = Kind::UntypedPointer;
  return arg;
}

KernelArg KernelArg::tensorMap(const TensorMap &map) {
  KernelArg arg;
  arg.kind = Kind::TensorMap;
  arg.size = sizeof(void *);
  const void *bytes = map.data();
  std::memcpy(arg.storage, &bytes, sizeof(bytes));
  return arg;
}

std::string KernelArg::typeStr() const {
  switch (kind) {
  case Kind::TensorMap:
    return "tmap";
  case Kind::Scalar:
    return getScalarTypeName(type);
  case Kind::Pointer:
    return ParamType::pointer(type, isConst).str();
  case Kind::UntypedPointer:
    return "ptr<?>";
  }
  return "?";
}

std::string KernelArg::describe(std::size_t index) const {
  return "argument " + std::to_string(index + 1) + " (" +
         (name ? std::string(name) + ", " : std::string()) + typeStr() + ")";
}

Error kaio::rt::checkKernelArgs(const KernelSignature &sig,
                                const KernelArg *args, std::size_t numArgs) {
  if (numArgs != sig.params.size())
    return Error::make(ErrorCode::ArgumentMismatch,
                       sig.name + " expects " +
                           std::to_string(sig.params.size()) + " argument" +
                           (sig.params.size() == 1 ? "" : "s") + ", got " +
                           std::to_string(numArgs) + " (signature " +
                           sig.str() + ")");
  for (std::size_t i = 0; i < numArgs; ++i) {
    const ParamType &param = sig.params[i];
    const KernelArg &arg = args[i];
    auto mismatch = [&](const std::string &hint) {
      return Error::make(
          ErrorCode::ArgumentMismatch,
          "argument " + std::to_string(i + 1) +
              (arg.name ? " (" + std::string(arg.name) + ")" : std::string()) +
              " of " + sig.name + ": expected " + param.str() + ", got " +
              arg.typeStr() + hint);
    };
    if (param.isTensorMap != (arg.kind == KernelArg::Kind::TensorMap))
      return mismatch(param.isTensorMap
                          ? " (build it with rt::makeTensorMap)"
                          : "");
    if (param.isTensorMap)
      continue;
    if (!param.isPointer) {
      if (arg.kind != KernelArg::Kind::Scalar)
        return mismatch("");
      if (arg.type != param.elem)
        return mismatch(" (no implicit conversions; cast the argument)");
      continue;
    }
    if (arg.kind == KernelArg::Kind::Scalar)
      return mismatch(arg.type == ScalarType::U64
                          ? " (pass raw device pointers as DeviceView or "
                            "KernelArg::untypedPointer)"
                          : "");
    if (arg.kind == KernelArg::Kind::UntypedPointer)
      continue;
    if (param.elem != ScalarType::B8 && arg.type != param.elem)
      return mismatch("");
    if (arg.isConst && !param.isConst)
      return mismatch(" (the kernel may write through it)");
  }
  return Error::success();
}
