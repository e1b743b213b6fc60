//===- TestUtils.h - helpers for the interpreter tests ----------*- C++ -*-===//

#ifndef KAIO_TEST_UNITTESTS_INTERPRETER_TESTUTILS_H
#define KAIO_TEST_UNITTESTS_INTERPRETER_TESTUTILS_H

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Runtime/TensorMapDesc.h"
#include "Kaio/Runtime/Types.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <cstring>
#include <memory>

namespace kaio::interp::test {

/// A KAIO-encoded 2-D tensor map in interpreter memory over the row-major
/// rows x cols matrix of 16-bit `elem` at `address`, with a boxRows x
/// boxCols box.
inline uint64_t makeTensorMap2D(Interpreter &in, uint64_t address,
                                uint64_t rows, uint64_t cols, uint32_t boxRows,
                                uint32_t boxCols, rt::TensorMapSwizzle swizzle,
                                rt::ScalarType elem = rt::ScalarType::F16) {
  rt::TensorMapDesc d;
  d.elem = elem;
  d.rank = 2;
  d.address = address;
  d.dims[0] = cols;
  d.dims[1] = rows;
  const uint64_t size = rt::getScalarTypeSize(elem);
  d.strides[0] = size;
  d.strides[1] = cols * size;
  d.box[0] = boxCols;
  d.box[1] = boxRows;
  d.swizzle = swizzle;
  return in.allocTensorMap(d);
}

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() { context.loadDialect<ptx::PTXDialect>(); }

  /// Parses a module of `body` (kernels and variables) for `target`.
  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef body,
                                          llvm::StringRef target = "sm_90") {
    std::string text = ("module attributes {ptx.target = \"" + target +
                        "\"} {\n" + body + "\n}")
                           .str();
    auto module = mlir::parseSourceString<mlir::ModuleOp>(
        text, mlir::ParserConfig(&context), "test.mlir");
    EXPECT_TRUE(module) << "failed to parse:\n" << text;
    return module;
  }

  /// Loads `body` and makes an interpreter for it.
  Interpreter &load(llvm::StringRef body, llvm::StringRef target = "sm_90") {
    module = parse(body, target);
    interp = std::make_unique<Interpreter>(*module);
    return *interp;
  }

  /// Runs `ops` in a one-thread kernel `@k(%out: i64)`; the ops store their
  /// results to global memory at %out. Returns `words` 32-bit words of it.
  std::vector<uint32_t> runOps(llvm::StringRef ops, size_t words,
                               llvm::StringRef target = "sm_90") {
    Interpreter &in = load(("ptx.entry @k(%out: i64) {\n" + ops +
                            "\nptx.ret\n}")
                               .str(),
                           target);
    uint64_t out = in.allocGlobal(words * 4);
    LaunchResult r = in.launch("k", {1}, {1}, {out});
    EXPECT_TRUE(r.success) << r.message();
    std::vector<uint32_t> data(words);
    in.read(out, data);
    return data;
  }

  /// "test.mlir:L:" for the first body line containing `needle` (the body
  /// starts on line 2 of the parsed buffer).
  static std::string where(llvm::StringRef body, llvm::StringRef needle) {
    size_t pos = body.find(needle);
    EXPECT_NE(pos, llvm::StringRef::npos) << needle.str();
    unsigned line = 2 + body.take_front(pos).count('\n');
    return "test.mlir:" + std::to_string(line) + ":";
  }
  static bool has(const LaunchResult &r, llvm::StringRef text) {
    return r.message().find(text.str()) != std::string::npos;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::unique_ptr<Interpreter> interp;
};

#define EXPECT_HAS(r, text) EXPECT_TRUE(has(r, text)) << (r).message()

/// `s` with the first `from` replaced by `to`.
inline std::string replace(std::string s, llvm::StringRef from,
                           llvm::StringRef to) {
  size_t pos = s.find(from.str());
  EXPECT_NE(pos, std::string::npos) << from.str();
  if (pos != std::string::npos)
    s.replace(pos, from.size(), to.str());
  return s;
}

inline float asF32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

} // namespace kaio::interp::test

#endif // KAIO_TEST_UNITTESTS_INTERPRETER_TESTUTILS_H
