//===- ResourceUsage.cpp - what kernels use, from ptxas and PTX -----------===//

#include "Kaio/Compiler/ResourceUsage.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

using namespace llvm;
using namespace kaio;

//===----------------------------------------------------------------------===//
// ptxas -v
//===----------------------------------------------------------------------===//

/// The text between the first pair of single quotes after `text`'s start.
static StringRef takeQuoted(StringRef &text) {
  size_t open = text.find('\'');
  if (open == StringRef::npos)
    return {};
  size_t close = text.find('\'', open + 1);
  if (close == StringRef::npos)
    return {};
  StringRef quoted = text.slice(open + 1, close);
  text = text.drop_front(close + 1);
  return quoted;
}

/// Reads "N unit" or "N+M unit" into the sum and the unit text.
static std::optional<uint64_t> parseAmount(StringRef field, StringRef &unit) {
  field = field.trim();
  // "Used 40 registers", "used 1 barriers".
  if (field.consume_front("Used") || field.consume_front("used"))
    field = field.ltrim();
  uint64_t total = 0;
  while (true) {
    size_t digits = field.find_first_not_of("0123456789");
    if (digits == 0)
      return std::nullopt;
    uint64_t value;
    if (field.take_front(digits).getAsInteger(10, value))
      return std::nullopt;
    total += value;
    field = field.drop_front(digits);
    if (!field.consume_front("+"))
      break;
  }
  unit = field.trim();
  return total;
}

std::vector<PtxasFunctionInfo> kaio::parsePtxasInfo(StringRef log) {
  std::vector<PtxasFunctionInfo> functions;
  std::optional<size_t> current;
  auto select = [&](StringRef name) {
    for (auto [i, f] : llvm::enumerate(functions))
      if (f.name == name) {
        current = i;
        return;
      }
    functions.emplace_back();
    functions.back().name = name.str();
    current = functions.size() - 1;
  };

  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    // "ptxas info    : message"; the stack/spill line has no prefix. Other
    // kinds ("ptxas warning", "ptxas fatal") carry nothing to read.
    if (line.consume_front("ptxas")) {
      line = line.ltrim();
      if (!line.consume_front("info"))
        continue;
      line = line.ltrim();
      if (!line.consume_front(":"))
        continue;
      line = line.trim();
    }
    bool entry = line.consume_front("Compiling entry function");
    if (entry || line.consume_front("Compiling function")) {
      StringRef name = takeQuoted(line);
      if (name.empty())
        continue;
      select(name);
      PtxasFunctionInfo &f = functions[*current];
      f.isEntry |= entry;
      if (StringRef arch = takeQuoted(line); !arch.empty())
        f.arch = arch.str();
      continue;
    }
    if (line.consume_front("Function properties for")) {
      StringRef name = line.trim();
      if (name.starts_with("'"))
        name = takeQuoted(name);
      if (!name.empty())
        select(name);
      continue;
    }
    if (!current)
      continue;

    PtxasFunctionInfo &f = functions[*current];
    SmallVector<StringRef> fields;
    line.split(fields, ',');
    bool isUsedLine = line.starts_with("Used");
    bool isStackLine = line.contains("stack frame");
    if (isUsedLine) {
      f.sharedBytes = f.sharedBytes.value_or(0);
      f.localBytes = f.localBytes.value_or(0);
      f.cumulativeStack = f.cumulativeStack.value_or(0);
    }
    if (isStackLine) {
      f.stackFrame = f.stackFrame.value_or(0);
      f.spillStores = f.spillStores.value_or(0);
      f.spillLoads = f.spillLoads.value_or(0);
    }
    if (!isUsedLine && !isStackLine)
      continue;
    for (StringRef field : fields) {
      StringRef unit;
      std::optional<uint64_t> amount = parseAmount(field, unit);
      if (!amount)
        continue;
      unsigned count = static_cast<unsigned>(
          std::min<uint64_t>(*amount, std::numeric_limits<unsigned>::max()));
      if (unit == "registers")
        f.registers = count;
      else if (unit == "barriers")
        f.barriers = count;
      else if (unit == "bytes smem")
        f.sharedBytes = *amount;
      else if (unit == "bytes lmem")
        f.localBytes = *amount;
      else if (unit == "bytes stack frame")
        f.stackFrame = *amount;
      else if (unit == "bytes cumulative stack size")
        f.cumulativeStack = *amount;
      else if (unit == "bytes spill stores")
        f.spillStores = *amount;
      else if (unit == "bytes spill loads")
        f.spillLoads = *amount;
    }
  }
  return functions;
}

const PtxasFunctionInfo *
kaio::findPtxasFunction(const std::vector<PtxasFunctionInfo> &functions,
                        StringRef name) {
  for (const PtxasFunctionInfo &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// PTX text
//===----------------------------------------------------------------------===//

namespace {

/// Splits PTX into identifiers/directives (".shared", "%r1", "ld.global"),
/// numbers and single punctuation characters, dropping comments and strings.
std::vector<StringRef> tokenizePTX(StringRef text) {
  std::vector<StringRef> tokens;
  auto isIdentStart = [](char c) {
    return isAlpha(c) || c == '_' || c == '$' || c == '%' || c == '.';
  };
  auto isIdentChar = [](char c) {
    return isAlnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
  };
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (isSpace(c)) {
      ++i;
    } else if (text.substr(i).starts_with("//")) {
      i = std::min(text.find('\n', i), n);
    } else if (text.substr(i).starts_with("/*")) {
      size_t end = text.find("*/", i + 2);
      i = end == StringRef::npos ? n : end + 2;
    } else if (c == '"') {
      size_t end = text.find('"', i + 1);
      i = end == StringRef::npos ? n : end + 1;
    } else if (isIdentStart(c) || isDigit(c)) {
      size_t start = i++;
      while (i < n && isIdentChar(text[i]))
        ++i;
      tokens.push_back(text.slice(start, i));
    } else {
      tokens.push_back(text.substr(i++, 1));
    }
  }
  return tokens;
}

/// PTX identifiers: a letter, or _ $ % and more (directives start with '.').
bool isIdentifier(StringRef token) {
  if (token.empty())
    return false;
  char c = token.front();
  return isAlpha(c) || c == '_' || c == '$' || c == '%';
}

/// Bytes of one element of a PTX fundamental type (".b8" 1, ".f16x2" 4).
std::optional<uint64_t> getTypeBytes(StringRef type) {
  if (!type.consume_front("."))
    return std::nullopt;
  unsigned lanes = 1;
  if (type.consume_back("x2"))
    lanes = 2;
  StringRef bits = type.drop_while([](char c) { return isAlpha(c); });
  StringRef kind = type.take_front(type.size() - bits.size());
  if (!is_contained(ArrayRef<StringRef>{"b", "u", "s", "f", "bf"}, kind))
    return std::nullopt;
  unsigned width;
  if (bits.getAsInteger(10, width) || width % 8 != 0 || width == 0)
    return std::nullopt;
  return uint64_t(width / 8) * lanes;
}

struct SharedVar {
  std::optional<uint64_t> bytes; // unset: not worked out
  bool unsized = false;          // `name[]`: dynamic shared memory
};

struct Function {
  bool isEntry = false;
  PTXEntrySummary summary;
  StringSet<> names; // identifiers in the body
  std::vector<SharedVar> locals;
};

class PTXScanner {
public:
  explicit PTXScanner(std::vector<StringRef> tokens)
      : tokens(std::move(tokens)) {}

  PTXModuleSummary scan();

private:
  StringRef peek(size_t ahead = 0) const {
    return pos + ahead < tokens.size() ? tokens[pos + ahead] : StringRef();
  }
  StringRef next() { return pos < tokens.size() ? tokens[pos++] : StringRef(); }
  bool atEnd() const { return pos >= tokens.size(); }
  /// Skips a parenthesized group starting at the current token.
  void skipParens();
  /// Reads the declarators of a `.shared` statement up to its ';'.
  void parseShared(StringMap<SharedVar> &module, std::vector<SharedVar> *local);
  void parseFunction(bool isEntry);
  std::vector<unsigned> parseDims();

  std::vector<StringRef> tokens;
  size_t pos = 0;
  PTXModuleSummary result;
  StringMap<SharedVar> moduleShared;
  StringMap<Function> functions;
  std::vector<std::string> entryOrder;
};

} // namespace

void PTXScanner::skipParens() {
  if (peek() != "(")
    return;
  int depth = 0;
  while (!atEnd()) {
    StringRef t = next();
    if (t == "(")
      ++depth;
    else if (t == ")" && --depth == 0)
      return;
  }
}

std::vector<unsigned> PTXScanner::parseDims() {
  std::vector<unsigned> dims;
  while (true) {
    unsigned value;
    if (peek().getAsInteger(10, value))
      break;
    dims.push_back(value);
    next();
    if (peek() != ",")
      break;
    next();
  }
  return dims;
}

void PTXScanner::parseShared(StringMap<SharedVar> &module,
                             std::vector<SharedVar> *local) {
  std::optional<uint64_t> elementBytes;
  uint64_t lanes = 1;
  while (!atEnd() && peek() != ";") {
    StringRef t = next();
    if (t == ".align") {
      next();
    } else if (t == ".v2" || t == ".v4" || t == ".v8") {
      t.drop_front(2).getAsInteger(10, lanes);
    } else if (t.starts_with(".")) {
      if (std::optional<uint64_t> bytes = getTypeBytes(t))
        elementBytes = bytes;
    } else if (isIdentifier(t)) {
      // A declarator: name, then [N] per dimension.
      SharedVar var;
      if (elementBytes)
        var.bytes = *elementBytes * lanes;
      while (peek() == "[") {
        next();
        uint64_t count;
        if (peek() == "]") {
          var.unsized = true;
          var.bytes = 0;
        } else if (!peek().getAsInteger(0, count) && peek(1) == "]") {
          if (var.bytes)
            var.bytes = *var.bytes * count;
          next();
        } else {
          var.bytes.reset();
          while (!atEnd() && peek() != "]" && peek() != ";")
            next();
        }
        if (peek() == "]")
          next();
      }
      if (local)
        local->push_back(var);
      else
        module[t] = var;
    } else if (t == "=") {
      // Initializers: skip to the next declarator.
      while (!atEnd() && peek() != "," && peek() != ";")
        next();
    }
  }
}

void PTXScanner::parseFunction(bool isEntry) {
  // `.func (.param .b32 r) name (params)`: a return list comes first.
  if (!isEntry)
    skipParens();
  StringRef name = next();
  if (name.empty() || name == "(" || name == "{" || name == ";")
    return;
  Function fn;
  fn.isEntry = isEntry;
  fn.summary.name = name.str();
  skipParens();
  // Directives up to the body, or ';' for a prototype.
  while (!atEnd() && peek() != "{" && peek() != ";") {
    StringRef t = next();
    if (t == ".reqntid")
      fn.summary.reqntid = parseDims();
    else if (t == ".maxntid")
      fn.summary.maxntid = parseDims();
  }
  if (next() != "{")
    return;
  int depth = 1;
  while (!atEnd() && depth > 0) {
    StringRef t = next();
    if (t == "{")
      ++depth;
    else if (t == "}")
      --depth;
    else if (t == ".shared")
      parseShared(moduleShared, &fn.locals);
    else if (isIdentifier(t))
      fn.names.insert(t);
  }
  if (isEntry)
    entryOrder.push_back(fn.summary.name);
  auto [it, inserted] = functions.try_emplace(fn.summary.name, std::move(fn));
  if (!inserted && isEntry)
    it->second = std::move(fn);
}

PTXModuleSummary PTXScanner::scan() {
  while (!atEnd()) {
    StringRef t = next();
    if (t == ".target") {
      if (result.target.empty())
        result.target = next().str();
    } else if (t == ".entry" || t == ".func") {
      parseFunction(t == ".entry");
    } else if (t == ".shared") {
      parseShared(moduleShared, nullptr);
    }
  }

  for (const std::string &name : entryOrder) {
    const Function &entry = functions.find(name)->second;
    PTXEntrySummary summary = entry.summary;
    std::optional<uint64_t> shared = 0;
    auto add = [&](const SharedVar &var) {
      summary.usesDynamicShared |= var.unsized;
      if (shared && var.bytes)
        *shared += *var.bytes;
      else
        shared.reset();
    };
    // The entry and every function it names, transitively.
    SmallVector<const Function *> work = {&entry};
    SmallPtrSet<const Function *, 8> seen = {&entry};
    StringSet<> namesSeen;
    while (!work.empty()) {
      const Function *fn = work.pop_back_val();
      for (const SharedVar &var : fn->locals)
        add(var);
      for (const auto &entryName : fn->names) {
        StringRef ident = entryName.getKey();
        if (auto it = functions.find(ident);
            it != functions.end() && seen.insert(&it->second).second)
          work.push_back(&it->second);
        if (auto it = moduleShared.find(ident);
            it != moduleShared.end() && namesSeen.insert(ident).second)
          add(it->second);
      }
    }
    summary.staticShared = shared;
    result.entries.push_back(std::move(summary));
  }
  return std::move(result);
}

PTXModuleSummary kaio::scanPTX(StringRef ptx) {
  PTXModuleSummary summary = PTXScanner(tokenizePTX(ptx)).scan();
  // `// kaio.kernel NAME(...) smem=N`: the printer's record of the dynamic
  // shared memory a kernel's launches get.
  SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    if (!line.consume_front("//"))
      continue;
    line = line.ltrim();
    if (!line.consume_front("kaio.kernel "))
      continue;
    StringRef name = line.take_until([](char c) { return c == '('; }).trim();
    size_t close = line.find(')');
    if (close == StringRef::npos)
      continue;
    // The requirements after the parameters, in any order: " smem=N" among
    // " cluster=..." and " maxntid=..." / " reqntid=...".
    SmallVector<StringRef> items;
    line.drop_front(close + 1).split(items, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef item : items) {
      uint64_t bytes;
      if (!item.consume_front("smem=") || item.getAsInteger(10, bytes))
        continue;
      for (PTXEntrySummary &entry : summary.entries)
        if (entry.name == name)
          entry.declaredDynamicShared = bytes;
    }
  }
  return summary;
}
