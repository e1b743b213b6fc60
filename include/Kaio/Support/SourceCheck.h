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
/// the first hit. Standard input: checkStdinForKnownParserCrashes.
bool checkInputFilesForKnownParserCrashes(int argc, char **argv);

/// For a tool about to read its input from standard input: reads it whole,
/// checks it as "<stdin>" (printing the error and returning false on a
/// hit), and gives the same bytes back as standard input (a temporary
/// file), so the tool reads what it would have. Call it only when the tool
/// will read standard input: it blocks until the input ends. A terminal is
/// left alone (someone typing; the tool says it waits for them).
bool checkStdinForKnownParserCrashes();

/// Whether a tool parsing its command line as mlir-translate does (one
/// positional input, "-" or none for standard input; `-o` taking the next
/// argument) reads standard input: no positional argument but "-", and no
/// `--help` or `--version` (which print and exit). An option taking its
/// value as the next argument reads as a positional one: a missed check,
/// never a read the tool would not make.
bool readsStandardInput(int argc, char **argv);

} // namespace kaio

#endif // KAIO_SUPPORT_SOURCECHECK_H
