//===- kaio-embed.cpp - compile kernels into a C++ header -----------------===//
//
// kaio-embed --chips=sm_80,sm_90 --namespace=ns -o kernels.h a.mlir b.mlir
//
// Compiles the kernels of every input (kaio or ptx dialect; one module) for
// each chip and writes a header that embeds the PTX texts and a class with a
// typed launch function per kernel. The header needs only KaioRuntime: the
// runtime picks the PTX for the device's compute capability when loading,
// and an argument whose type does not match the kernel's signature fails to
// compile. Run at build time by kaio_add_kernels (cmake/KaioKernels.cmake).
//
//===----------------------------------------------------------------------===//

#include "Kaio/Compiler/Compile.h"
#include "Kaio/Compiler/ResourceUsage.h"
#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "Kaio/InitAll.h"
#include "Kaio/Support/SourceCheck.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace mlir;
using namespace llvm;

namespace {

cl::list<std::string> inputs(cl::Positional, cl::OneOrMore,
                             cl::desc("<kernels.mlir>..."));
cl::opt<std::string> output("o", cl::desc("output header"), cl::init("-"));
cl::list<std::string> chips("chips", cl::CommaSeparated,
                            cl::desc("chips to embed PTX for (default sm_80)"));
cl::opt<std::string> ns("namespace", cl::desc("C++ namespace of the header"),
                        cl::init("kaio_kernels"));
cl::opt<std::string> className("class",
                               cl::desc("name of the generated class"),
                               cl::init("Kernels"));
cl::opt<std::string> ptxVersion("ptx-version",
                                cl::desc("PTX ISA version, e.g. 8.0"));
cl::opt<bool> fastMath("fast-math", cl::desc("approximate f32 division"));
cl::opt<bool> lineInfo("line-info", cl::desc("emit .loc line information"));
cl::opt<bool> embedCubins(
    "cubins",
    cl::desc("also embed each chip's cubin, assembled by ptxas when it is "
             "found (the code measured at build time, no JIT at load); "
             "--cubins=false for PTX only"),
    cl::init(true));
cl::opt<bool> moduleOnly(
    "module-only",
    cl::desc("the class loads the module alone: no kernel is looked up at "
             "load and there are no typed launchers (for libraries of many "
             "kernels that pick them by name: module().getKernel)"));
cl::opt<std::string> saveTemps(
    "save-temps",
    cl::desc("also write DIR/CHIP.ptx, each chip's PTX as embedded, and "
             "DIR/CHIP.ptxas.log, what ptxas -v said assembling its cubin "
             "(a '#' line instead without one): tests read the build's code "
             "rather than compiling it again"),
    cl::value_desc("DIR"));
cl::opt<std::string> resources(
    "resources",
    cl::desc("also write FILE: one line per chip and kernel, 'chip kernel "
             "registers spill-stores spill-loads', as ptxas reported for the "
             "embedded cubins (a '#' line instead without ptxas)"),
    cl::value_desc("FILE"));
cl::list<std::string> variants(
    "variant",
    cl::desc("KERNEL:SUFFIX:ATTR — also embed KERNEL as KERNEL_SUFFIX with "
             "the unit attribute ATTR (e.g. "
             "gemm:aligned:kaio.aligned_copies); repeatable"));

bool isIdentifier(StringRef s) {
  if (s.empty() || isDigit(s.front()))
    return false;
  return llvm::all_of(s, [](char c) { return isAlnum(c) || c == '_'; });
}

/// A C++ identifier for a kernel's launch function.
std::string cppName(StringRef name) {
  static const std::set<std::string> reserved = {
      "load", "chip", "module", "alignas", "and", "auto", "bool", "break",
      "case", "catch", "char", "class", "const", "continue", "default",
      "delete", "do", "double", "else", "enum", "explicit", "export",
      "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "namespace", "new", "not", "operator", "or", "private",
      "protected", "public", "register", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "template", "this", "throw",
      "true", "try", "typedef", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "while", "xor"};
  std::string out;
  for (char c : name)
    out += isAlnum(c) ? c : '_';
  if (out.empty() || isDigit(out.front()))
    out = "k_" + out;
  if (reserved.count(out))
    out += "_";
  return out;
}

/// The C++ type of a runtime scalar name ("u32" -> std::uint32_t).
std::optional<std::string> cppScalar(StringRef type) {
  static const std::map<std::string, std::string> names = {
      {"u8", "std::uint8_t"},   {"s8", "std::int8_t"},
      {"u16", "std::uint16_t"}, {"s16", "std::int16_t"},
      {"u32", "std::uint32_t"}, {"s32", "std::int32_t"},
      {"u64", "std::uint64_t"}, {"s64", "std::int64_t"},
      {"f16", "::kaio::rt::Half"}, {"bf16", "::kaio::rt::BFloat16"},
      {"f32", "float"},         {"f64", "double"},
      {"b8", "std::byte"}};
  auto it = names.find(type.str());
  if (it == names.end())
    return std::nullopt;
  return it->second;
}

/// The argument type of a parameter in a launch function.
std::optional<std::string> cppParam(StringRef param) {
  if (param == "tmap")
    return std::string("const ::kaio::rt::TensorMap &");
  if (param.consume_front("ptr<") && param.consume_back(">")) {
    bool isConst = param.consume_front("const ");
    std::optional<std::string> elem = cppScalar(param);
    if (!elem)
      return std::nullopt;
    return "::kaio::embed::PointerArg<" + std::string(isConst ? "const " : "") +
           *elem + ">";
  }
  std::optional<std::string> scalar = cppScalar(param);
  if (!scalar || param == "b8")
    return std::nullopt;
  return "::kaio::embed::ScalarArg<" + *scalar + ">";
}

// Shared by every generated header (guarded, identical in each).
const char *kSupport = R"cpp(
#ifndef KAIO_EMBED_SUPPORT_V2
#define KAIO_EMBED_SUPPORT_V2
namespace kaio::embed {

/// One embedded PTX text, the chip it was compiled for, and the cubin
/// ptxas assembled from it at build time (null when ptxas was not found).
struct EmbeddedPtx {
  const char *chip; ///< "sm_90a"
  int sm;           ///< 90
  bool archSpecific; ///< runs only on exactly this compute capability
  const char *ptx;
  const unsigned char *cubin;
  std::size_t cubinSize;
};

/// Whether a cubin for `e` runs on compute capability `cc`: the same major
/// version and a minor not below it (sm_80 code runs on sm_86); an
/// arch-specific one only on its own chip.
inline bool cubinRunsOn(const EmbeddedPtx &e, int cc) {
  if (!e.cubin || e.sm > cc || e.sm / 10 != cc / 10)
    return false;
  return !e.archSpecific || e.sm == cc;
}

/// Loads `e` on `device`: its cubin when it runs there (falling back to
/// the PTX if the driver refuses it), else the PTX, JIT-compiled.
inline ::kaio::rt::Expected<::kaio::rt::Module>
loadEmbedded(const ::kaio::rt::Device &device, const EmbeddedPtx &e,
             ::kaio::rt::ModuleLoadOptions options, bool &fromCubin) {
  fromCubin = false;
  if (cubinRunsOn(e, device.properties().computeCapability())) {
    ::kaio::rt::ModuleLoadOptions binary = options;
    binary.signatureSource = e.ptx;
    ::kaio::rt::Expected<::kaio::rt::Module> module =
        ::kaio::rt::Module::loadBinary(device, e.cubin, e.cubinSize, binary);
    if (module) {
      fromCubin = true;
      return module;
    }
  }
  return ::kaio::rt::Module::loadPtx(device, e.ptx, options);
}

/// The PTX to load on a device of compute capability `cc` (86 for sm_86):
/// the highest chip not above it (PTX JIT-compiles forward); an
/// arch-specific one only on its own chip. Null when none fits.
inline const EmbeddedPtx *selectPtx(const EmbeddedPtx *table, std::size_t n,
                                    int cc) {
  const EmbeddedPtx *best = nullptr;
  for (std::size_t i = 0; i < n; ++i) {
    const EmbeddedPtx &e = table[i];
    if (e.sm > cc || (e.archSpecific && e.sm != cc))
      continue;
    if (!best || e.sm > best->sm || (e.sm == best->sm && e.archSpecific))
      best = &e;
  }
  return best;
}

/// A scalar kernel argument: exactly the type of the signature, so that a
/// mismatch is a compile error rather than a silent conversion.
template <typename T> struct ScalarArg {
  T value{};
  template <typename U> ScalarArg(const U &v) {
    static_assert(std::is_same_v<U, T>,
                  "kaio: kernel argument type does not match the kernel "
                  "signature (no implicit conversions; cast the argument)");
    if constexpr (std::is_same_v<U, T>)
      value = v;
  }
};

/// A pointer kernel argument: a DeviceBuffer or DeviceView of the
/// signature's element type (const views only for ptr<const T>), or a
/// KernelArg (checked when launching).
template <typename T> struct PointerArg {
  ::kaio::rt::KernelArg arg;
  template <typename U> PointerArg(const ::kaio::rt::DeviceBuffer<U> &buffer) {
    check<U, false>();
    arg = ::kaio::rt::toKernelArg(buffer);
  }
  template <typename U> PointerArg(::kaio::rt::DeviceView<U> view) {
    check<std::remove_const_t<U>, std::is_const_v<U>>();
    arg = ::kaio::rt::toKernelArg(view);
  }
  PointerArg(const ::kaio::rt::KernelArg &a) : arg(a) {}

private:
  using Elem = std::remove_const_t<T>;
  template <typename U, bool IsConst> static constexpr void check() {
    static_assert(std::is_same_v<Elem, std::byte> || std::is_same_v<U, Elem>,
                  "kaio: pointer kernel argument has the wrong element type "
                  "for the kernel signature");
    static_assert(std::is_const_v<T> || !IsConst,
                  "kaio: a view of const passed to a kernel parameter that "
                  "writes (ptr<T>, not ptr<const T>)");
  }
};

} // namespace kaio::embed
#endif // KAIO_EMBED_SUPPORT_V2
)cpp";

struct EmbeddedChip {
  std::string chip;
  unsigned sm;
  bool archSpecific;
  kaio::PTXResult result;
  std::vector<char> cubin; ///< Empty: PTX only.
};

int emitHeader(raw_ostream &os, ArrayRef<EmbeddedChip> embedded) {
  const std::vector<kaio::KernelInfo> &kernels = embedded.front().result.kernels;
  std::string guard = "KAIO_EMBED_" + StringRef(ns).upper() + "_" +
                      StringRef(className).upper() + "_H";
  for (char &c : guard)
    if (!isAlnum(c))
      c = '_';

  os << "// Generated by kaio-embed from";
  for (const std::string &in : inputs)
    os << " " << sys::path::filename(in);
  os << "; do not edit.\n//\n// Kernels:\n";
  for (const kaio::KernelInfo &k : kernels)
    os << "//   " << k.signature << "\n";
  os << "// PTX for:";
  for (const EmbeddedChip &e : embedded)
    os << " " << e.chip;
  os << "\n\n#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include \"Kaio/Runtime/Runtime.h\"\n\n"
     << "#include <cstddef>\n#include <cstdint>\n#include <string>\n"
     << "#include <iterator>\n#include <type_traits>\n#include <utility>\n"
     << kSupport << "\nnamespace " << ns << " {\n\n";

  for (const EmbeddedChip &e : embedded) {
    if (e.cubin.empty())
      continue;
    os << "inline constexpr unsigned char kCubin_" << e.chip << "[] = {";
    for (auto [i, byte] : llvm::enumerate(e.cubin))
      os << (i % 24 ? "" : "\n   ") << " " << unsigned(uint8_t(byte)) << ",";
    os << "\n};\n";
  }
  os << "inline constexpr ::kaio::embed::EmbeddedPtx kEmbeddedPtx[] = {\n";
  for (const EmbeddedChip &e : embedded) {
    StringRef delimiter = "kaio_ptx";
    if (StringRef(e.result.ptx).contains((")" + delimiter + "\"").str())) {
      errs() << "kaio-embed: the PTX contains the raw string delimiter\n";
      return 1;
    }
    os << "    {\"" << e.chip << "\", " << e.sm << ", "
       << (e.archSpecific ? "true" : "false") << ", R\"" << delimiter << "("
       << e.result.ptx << ")" << delimiter << "\", ";
    if (e.cubin.empty())
      os << "nullptr, 0},\n";
    else
      os << "kCubin_" << e.chip << ", sizeof(kCubin_" << e.chip << ")},\n";
  }
  os << "};\n\n";

  std::string chipList;
  for (const EmbeddedChip &e : embedded)
    chipList += (chipList.empty() ? "" : ", ") + e.chip;

  os << "/// The kernels of this header, loaded on one device.\n"
     << "class " << className << " {\npublic:\n"
     << "  /// Loads the embedded code that suits `device` (" << chipList
     << "): the cubin ptxas built for its chip when there is one, else the\n"
     << "  /// PTX, JIT-compiled.\n"
     << "  static ::kaio::rt::Expected<" << className
     << "> load(const ::kaio::rt::Device &device,\n"
     << "      ::kaio::rt::ModuleLoadOptions options = {}) {\n"
     << "    int cc = device.properties().computeCapability();\n"
     << "    const ::kaio::embed::EmbeddedPtx *ptx = ::kaio::embed::selectPtx(\n"
     << "        kEmbeddedPtx, std::size(kEmbeddedPtx), cc);\n"
     << "    if (!ptx)\n"
     << "      return ::kaio::rt::Error::make(::kaio::rt::ErrorCode::Unsupported,\n"
     << "          \"no embedded PTX runs on sm_\" + std::to_string(cc) +\n"
     << "          \" (embedded: " << chipList << ")\");\n"
     << "    if (options.name == \"<memory>\")\n"
     << "      options.name = std::string(\"" << ns << " (\") + ptx->chip + \")\";\n"
     << "    bool fromCubin = false;\n"
     << "    ::kaio::rt::Expected<::kaio::rt::Module> module =\n"
     << "        ::kaio::embed::loadEmbedded(device, *ptx, options, fromCubin);\n"
     << "    if (!module)\n"
     << "      return module.takeError();\n";
  // Without --module-only each kernel is looked up once, at load: a
  // missing or unloadable kernel fails the load, and launches take no
  // lookup.
  ArrayRef<kaio::KernelInfo> typed = kernels;
  if (moduleOnly)
    typed = {};
  for (auto [i, k] : llvm::enumerate(typed)) {
    os << "    ::kaio::rt::Expected<::kaio::rt::Kernel> k" << i
       << " = module->getKernel(\"" << k.name << "\");\n"
       << "    if (!k" << i << ")\n      return k" << i << ".takeError();\n";
  }
  os << "    return " << className << "(std::move(*module), ptx->chip, fromCubin";
  for (size_t i = 0; i < typed.size(); ++i)
    os << ", std::move(*k" << i << ")";
  os << ");\n  }\n\n"
     << "  /// The chip of the code that was loaded (\"sm_80\").\n"
     << "  const char *chip() const { return chip_; }\n"
     << "  /// Whether the build-time cubin was loaded (else the PTX).\n"
     << "  bool fromCubin() const { return fromCubin_; }\n"
     << "  const ::kaio::rt::Module &module() const { return module_; }\n";

  for (const kaio::KernelInfo &k : typed) {
    std::string fn = cppName(k.name);
    // The signature names the compiled block (maxntid= or reqntid=).
    os << "\n  /// " << k.signature;
    os << "\n  ::kaio::rt::Error " << fn
       << "(const ::kaio::rt::LaunchConfig &config";
    for (auto [i, p] : llvm::enumerate(k.params)) {
      std::optional<std::string> type = cppParam(p);
      if (!type) {
        errs() << "kaio-embed: kernel '" << k.name << "': parameter type '"
               << p << "' has no C++ equivalent\n";
        return 1;
      }
      os << ",\n      " << *type << " a" << i;
    }
    os << ") {\n    return " << fn << "_.launch(config";
    for (auto [i, p] : llvm::enumerate(k.params))
      os << ", a" << i
         << (p == "tmap"                        ? ""
             : StringRef(p).starts_with("ptr<") ? ".arg"
                                                : ".value");
    os << ");\n  }\n"
       << "  ::kaio::rt::Kernel &" << fn << "_kernel() { return " << fn
       << "_; }\n";
    if (!k.blockSize.empty()) {
      os << "  static ::kaio::rt::Dim3 " << fn << "_block() { return {";
      llvm::interleave(k.blockSize, os, ", ");
      os << "}; }\n";
    }
  }

  os << "\nprivate:\n  " << className
     << "(::kaio::rt::Module module, const char *chip, bool fromCubin";
  for (const kaio::KernelInfo &k : typed)
    os << ", ::kaio::rt::Kernel " << cppName(k.name);
  os << ")\n      : module_(std::move(module)), chip_(chip), fromCubin_(fromCubin)";
  for (const kaio::KernelInfo &k : typed)
    os << ", " << cppName(k.name) << "_(std::move(" << cppName(k.name) << "))";
  os << " {}\n\n  ::kaio::rt::Module module_;\n  const char *chip_;\n"
     << "  bool fromCubin_;\n";
  for (const kaio::KernelInfo &k : typed)
    os << "  ::kaio::rt::Kernel " << cppName(k.name) << "_;\n";
  os << "};\n\n} // namespace " << ns << "\n\n#endif // " << guard << "\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  if (!kaio::checkInputFilesForKnownParserCrashes(argc, argv))
    return 1;
  cl::ParseCommandLineOptions(
      argc, argv,
      "KAIO kernel embedder: .mlir kernels -> a C++ header with their PTX and "
      "typed launch functions\n");
  if (!isIdentifier(className)) {
    errs() << "kaio-embed: --class '" << className
           << "' is not a C++ identifier\n";
    return 1;
  }
  for (StringRef part : llvm::split(StringRef(ns), "::"))
    if (!isIdentifier(part)) {
      errs() << "kaio-embed: --namespace '" << ns
             << "' is not a C++ namespace name\n";
      return 1;
    }
  if (chips.empty())
    chips.push_back("sm_80");

  kaio::CompileOptions options;
  options.fastMath = fastMath;
  options.lineInfo = lineInfo;
  if (!ptxVersion.empty()) {
    unsigned major = 0, minor = 0;
    auto [ma, mi] = StringRef(ptxVersion).split('.');
    if (ma.getAsInteger(10, major) || mi.getAsInteger(10, minor) ||
        minor > 9) {
      errs() << "kaio-embed: --ptx-version '" << ptxVersion
             << "' is not of the form 8.0\n";
      return 1;
    }
    options.ptxVersion = major * 10 + minor;
  }

  // All inputs become one module, so that one PTX per chip holds them all.
  MLIRContext context;
  DialectRegistry registry;
  kaio::registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> merged;
  std::map<std::string, std::string> definedIn;
  for (const std::string &path : inputs) {
    std::string error;
    std::unique_ptr<MemoryBuffer> file = openInputFile(path, &error);
    if (!file) {
      errs() << "kaio-embed: " << error << "\n";
      return 1;
    }
    // Standard input ("-") was not checked with the named files.
    if (std::string crash = kaio::findKnownParserCrash(
            file->getBuffer(), file->getBufferIdentifier());
        !crash.empty()) {
      errs() << crash;
      return 1;
    }
    // One source manager per file: the parser reads its main buffer.
    SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
    if (!module)
      return 1;
    for (Operation &op : *module->getBody())
      if (auto name = op.getAttrOfType<StringAttr>(
              SymbolTable::getSymbolAttrName())) {
        auto [it, inserted] = definedIn.emplace(name.str(), path);
        if (!inserted) {
          errs() << "kaio-embed: kernel '" << name.getValue()
                 << "' is defined in both " << it->second << " and " << path
                 << "\n";
          return 1;
        }
      }
    if (!merged) {
      merged = std::move(module);
      continue;
    }
    for (Operation &op : llvm::make_early_inc_range(*module->getBody()))
      op.moveBefore(merged->getBody(), merged->getBody()->end());
  }

  // Variants: copies of a kernel, renamed, with a unit attribute that
  // changes how it lowers (the host picks one after checking arguments).
  for (const std::string &spec : variants) {
    SmallVector<StringRef, 3> parts;
    StringRef(spec).split(parts, ':');
    if (parts.size() != 3 || !isIdentifier(parts[0]) ||
        !isIdentifier(parts[1]) || parts[2].empty()) {
      errs() << "kaio-embed: --variant='" << spec
             << "': expected KERNEL:SUFFIX:ATTR\n";
      return 1;
    }
    Operation *kernel = SymbolTable::lookupSymbolIn(*merged, parts[0]);
    std::string name = (parts[0] + "_" + parts[1]).str();
    if (!kernel) {
      errs() << "kaio-embed: --variant='" << spec << "': no kernel '"
             << parts[0] << "'\n";
      return 1;
    }
    if (SymbolTable::lookupSymbolIn(*merged, name)) {
      errs() << "kaio-embed: --variant='" << spec << "': '" << name
             << "' already exists\n";
      return 1;
    }
    Operation *copy = kernel->clone();
    SymbolTable::setSymbolName(copy, name);
    copy->setAttr(parts[2], UnitAttr::get(&context));
    merged->getBody()->push_back(copy);
  }

  std::vector<EmbeddedChip> embedded;
  std::vector<std::string> report;
  for (const std::string &chip : chips) {
    const kaio::ptx::ChipInfo *info = kaio::ptx::lookupChip(chip);
    if (!info) {
      errs() << "kaio-embed: unknown chip '" << chip << "'\n";
      return 1;
    }
    options.chip = chip;
    kaio::PTXResult result = kaio::compileToPTX(*merged, options);
    errs() << result.diagnostics;
    if (!result)
      return 1;
    if (!embedded.empty() &&
        result.kernels.size() != embedded.front().result.kernels.size()) {
      errs() << "kaio-embed: kernels differ between chips\n";
      return 1;
    }
    std::vector<char> cubin;
    std::string ptxasLog = "# no cubin (ptxas not found, or --cubins=false)\n";
    if (embedCubins && kaio::findPtxas()) {
      std::vector<std::string> ptxasArgs;
      if (!resources.empty() || !saveTemps.empty())
        ptxasArgs.push_back("-v");
      kaio::CubinResult assembled =
          kaio::assemblePTX(result.ptx, chip, "", ptxasArgs);
      if (!assembled) {
        errs() << "kaio-embed: ptxas rejected the PTX for " << chip << ":\n"
               << assembled.diagnostics;
        return 1;
      }
      cubin = std::move(assembled.cubin);
      ptxasLog = assembled.diagnostics;
      for (const kaio::PtxasFunctionInfo &f :
           kaio::parsePtxasInfo(assembled.diagnostics))
        if (f.isEntry)
          report.push_back(formatv("{0} {1} {2} {3} {4}", chip, f.name,
                                   f.registers.value_or(0),
                                   f.spillStores.value_or(0),
                                   f.spillLoads.value_or(0))
                             .str());
    }
    if (!saveTemps.empty())
      for (auto [suffix, text] :
           {std::pair<StringRef, StringRef>{".ptx", result.ptx},
            {".ptxas.log", ptxasLog}}) {
        std::string path = (Twine(saveTemps) + "/" + chip + suffix).str();
        std::string error;
        std::unique_ptr<ToolOutputFile> file = openOutputFile(path, &error);
        if (!file) {
          errs() << "kaio-embed: " << error << "\n";
          return 1;
        }
        file->os() << text;
        file->keep();
      }
    embedded.push_back({chip, info->sm, info->archSpecific, std::move(result),
                        std::move(cubin)});
  }

  std::string error;
  std::unique_ptr<ToolOutputFile> out = openOutputFile(output, &error);
  if (!out) {
    errs() << "kaio-embed: " << error << "\n";
    return 1;
  }
  if (int rc = emitHeader(out->os(), embedded))
    return rc;
  if (!resources.empty()) {
    std::unique_ptr<ToolOutputFile> file = openOutputFile(resources, &error);
    if (!file) {
      errs() << "kaio-embed: " << error << "\n";
      return 1;
    }
    llvm::sort(report);
    if (report.empty())
      file->os() << "# no cubins (ptxas not found, or --cubins=false)\n";
    for (const std::string &line : report)
      file->os() << line << "\n";
    file->keep();
  }
  out->keep();
  return 0;
}
