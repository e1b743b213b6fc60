//===- ResourceUsage.h - what kernels use, from ptxas and PTX ---*- C++ -*-===//
//
// Two readers for tools that report on kernels (kaio-prof): the resource
// lines of `ptxas -v` (registers, spills, stack, shared memory), and a light
// scan of PTX text for each entry's block size directives and static shared
// memory, which works without ptxas.
//
//   kaio::CubinResult r = kaio::assemblePTX(ptx, "sm_90", "", {"-v"});
//   for (const kaio::PtxasFunctionInfo &f :
//        kaio::parsePtxasInfo(r.diagnostics))
//     ...  // f.name, *f.registers, *f.spillStores
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_COMPILER_RESOURCEUSAGE_H
#define KAIO_COMPILER_RESOURCEUSAGE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kaio {

/// What `ptxas -v` reported for one function. Fields ptxas did not print are
/// unset, except that sizes it leaves out when they are zero (smem, lmem,
/// cumulative stack; stack frame and spills) read as 0 once the line that
/// would carry them was seen.
struct PtxasFunctionInfo {
  std::string name;
  /// From "Compiling entry function 'NAME' for 'ARCH'".
  bool isEntry = false;
  std::string arch;
  std::optional<unsigned> registers;
  std::optional<unsigned> barriers;
  /// Static shared memory ("smem"; "N+M bytes smem" adds up).
  std::optional<uint64_t> sharedBytes;
  /// Local memory ("lmem", printed by older ptxas; newer ones report the
  /// stack frame instead).
  std::optional<uint64_t> localBytes;
  /// Per-thread bytes.
  std::optional<uint64_t> stackFrame;
  std::optional<uint64_t> cumulativeStack;
  std::optional<uint64_t> spillStores;
  std::optional<uint64_t> spillLoads;
};

/// Reads the "ptxas info" lines of `ptxas -v` output: "Compiling entry
/// function", "Function properties for", the stack/spill line and the "Used
/// N registers, ..." line. Unknown lines and fields are skipped, so newer or
/// older ptxas versions read as far as they agree.
std::vector<PtxasFunctionInfo> parsePtxasInfo(llvm::StringRef log);
/// The function named `name` in `functions`, or null.
const PtxasFunctionInfo *
findPtxasFunction(const std::vector<PtxasFunctionInfo> &functions,
                  llvm::StringRef name);

/// One `.entry` of a PTX module, as written in the text.
struct PTXEntrySummary {
  std::string name;
  /// The `.reqntid` / `.maxntid` operands; empty when absent.
  std::vector<unsigned> reqntid;
  std::vector<unsigned> maxntid;
  /// Bytes of the `.shared` variables the entry declares or names (directly
  /// or through the functions it names); unset when one has a size the scan
  /// cannot work out.
  std::optional<uint64_t> staticShared;
  /// Whether it names an unsized `.extern .shared` array (dynamic shared
  /// memory, sized at launch).
  bool usesDynamicShared = false;
  /// The dynamic shared memory every launch gets, from the `smem=N` of the
  /// entry's `// kaio.kernel` comment (KAIO kernels whose tiles live there).
  std::optional<uint64_t> declaredDynamicShared;
};

struct PTXModuleSummary {
  /// The first operand of `.target` ("sm_90a"); empty when there is none.
  std::string target;
  std::vector<PTXEntrySummary> entries;
};

/// Scans PTX text without assembling it. Malformed text gives a partial
/// summary, never an error.
PTXModuleSummary scanPTX(llvm::StringRef ptx);

} // namespace kaio

#endif // KAIO_COMPILER_RESOURCEUSAGE_H
