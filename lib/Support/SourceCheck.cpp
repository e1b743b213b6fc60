//===- SourceCheck.cpp - rejecting input MLIR's parser crashes on ---------===//

#include "Kaio/Support/SourceCheck.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdio>
#include <unistd.h>

using namespace llvm;

namespace {

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$';
}

/// The offset just past the whitespace from `pos`.
size_t skipSpace(StringRef s, size_t pos) {
  while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos])))
    ++pos;
  return pos;
}

/// A dense array of `index` elements (`array<index: 1, 2>`): the builtin
/// attribute parser asserts on the element type (llvm-project 22; also
/// upstream mlir-opt).
bool isIndexDenseArray(StringRef s, size_t pos) {
  if (!s.substr(pos).starts_with("array") ||
      (pos > 0 && isIdentChar(s[pos - 1])))
    return false;
  size_t at = skipSpace(s, pos + 5);
  if (at >= s.size() || s[at] != '<')
    return false;
  at = skipSpace(s, at + 1);
  return s.substr(at).starts_with("index") &&
         (at + 5 >= s.size() || !isIdentChar(s[at + 5]));
}

} // namespace

std::string kaio::findKnownParserCrash(StringRef source, StringRef bufferName) {
  unsigned line = 1, col = 1;
  for (size_t i = 0; i < source.size(); ++i) {
    char c = source[i];
    if (c == '/' && i + 1 < source.size() && source[i + 1] == '/') {
      while (i < source.size() && source[i] != '\n')
        ++i;
      --i;
      continue;
    }
    if (c == '"') { // a string literal, with escapes
      for (++i, ++col; i < source.size() && source[i] != '"'; ++i, ++col) {
        if (source[i] == '\\')
          ++i, ++col;
        if (i < source.size() && source[i] == '\n')
          ++line, col = 0;
      }
      ++col;
      continue;
    }
    if (c == '\n') {
      ++line;
      col = 1;
      continue;
    }
    if (c == 'a' && isIndexDenseArray(source, i))
      return (bufferName + ":" + Twine(line) + ":" + Twine(col) +
              ": error: dense arrays of 'index' elements are not supported "
              "(MLIR 22's parser crashes on them); use i32 or i64 elements\n")
          .str();
    ++col;
  }
  return {};
}

bool kaio::checkInputFilesForKnownParserCrashes(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg.starts_with("-") || !sys::fs::is_regular_file(arg))
      continue;
    ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(arg);
    if (!file)
      continue;
    std::string error = findKnownParserCrash((*file)->getBuffer(), arg);
    if (!error.empty()) {
      errs() << error;
      return false;
    }
  }
  return true;
}

bool kaio::checkStdinForKnownParserCrashes() {
  // A terminal is someone typing: the tool reads it (and says it waits).
  if (::isatty(STDIN_FILENO))
    return true;
  ErrorOr<std::unique_ptr<MemoryBuffer>> input = MemoryBuffer::getSTDIN();
  if (!input)
    return true; // the tool reports the read error itself
  StringRef text = (*input)->getBuffer();
  std::string error = findKnownParserCrash(text, "<stdin>");
  if (!error.empty()) {
    errs() << error;
    return false;
  }
  // The bytes back as standard input: an unlinked temporary file at offset
  // 0 behind descriptor 0 (the tool reads it as it would have the pipe).
  std::FILE *copy = std::tmpfile();
  if (!copy || std::fwrite(text.data(), 1, text.size(), copy) != text.size() ||
      std::fflush(copy) != 0 || std::fseek(copy, 0, SEEK_SET) != 0 ||
      ::dup2(::fileno(copy), STDIN_FILENO) < 0) {
    errs() << "error: cannot buffer standard input for the input check\n";
    return false;
  }
  std::fclose(copy);
  std::clearerr(stdin);
  return true;
}

bool kaio::readsStandardInput(int argc, char **argv) {
  bool positional = false;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "-")
      continue;
    if (arg == "-o") {
      ++i;
      continue;
    }
    if (arg == "--") {
      positional |= i + 1 < argc && StringRef(argv[i + 1]) != "-";
      break;
    }
    if (arg.starts_with("-")) {
      StringRef name = arg.ltrim('-');
      if (name.starts_with("help") || name == "version" || name == "h")
        return false;
      continue;
    }
    positional = true;
  }
  return !positional;
}
