//===- SourceCheck.h - rejecting input MLIR's parser crashes on -*- C++ -*-===//
//
// MLIR 22's parser aborts on some inputs instead of reporting an error
// (docs/reliability.md lists them with their upstream reproducers). KAIO's
// entry points scan .mlir text for them first and report a located error,
// so that a user's typo never crashes a tool or a process embedding KAIO.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_SUPPORT_SOURCECHECK_H
#define KAIO_SUPPORT_SOURCECHECK_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kaio {

/// "NAME:LINE:COL: error: ..." for the first construct in `source` known to
/// crash MLIR's parser, or empty when there is none. Comments and string
/// literals are skipped.
std::string findKnownParserCrash(llvm::StringRef source,
                                 llvm::StringRef bufferName);

/// The same for each input file named on a tool's command line (arguments
/// that are existing regular files); prints the error and returns false on
/// the first hit. Standard input is not checked.
bool checkInputFilesForKnownParserCrashes(int argc, char **argv);

} // namespace kaio

#endif // KAIO_SUPPORT_SOURCECHECK_H
