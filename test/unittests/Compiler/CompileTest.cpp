//===- CompileTest.cpp - the in-process compile API -----------------------===//

#include "Kaio/Compiler/Compile.h"

#include "Kaio/Builder/Builder.h"
#include "Kaio/Runtime/Signature.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace kaio;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

std::string readExample(const std::string &name) {
  std::ifstream in(std::string(KAIO_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Compile, SourceToPTXWithSignatures) {
  CompileOptions options;
  options.chip = "sm_80";
  PTXResult r = compileSourceToPTX(readExample("vector_add.mlir"), options,
                                   "vector_add.mlir");
  ASSERT_TRUE(r) << r.diagnostics;
  EXPECT_THAT(r.ptx, HasSubstr(".target sm_80"));
  EXPECT_THAT(r.ptx, HasSubstr(".visible .entry vector_add("));
  EXPECT_EQ(r.chip, "sm_80");
  EXPECT_GE(r.ptxVersion, 70u);
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelInfo &k = r.kernels[0];
  EXPECT_EQ(k.name, "vector_add");
  EXPECT_EQ(
      k.signature,
      "vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,u32) maxntid=256");
  EXPECT_EQ(k.params, (std::vector<std::string>{"ptr<const f32>",
                                                "ptr<const f32>", "ptr<f32>",
                                                "u32"}));
  EXPECT_FALSE(k.blockSize.empty());
  EXPECT_EQ(r.findKernel("vector_add"), &r.kernels[0]);
  EXPECT_EQ(r.findKernel("nope"), nullptr);

  // The runtime reads the same signature from the PTX comment.
  rt::Expected<std::vector<rt::KernelSignature>> sigs =
      rt::parseKernelSignatures(r.ptx);
  ASSERT_TRUE(sigs);
  ASSERT_EQ(sigs->size(), 1u);
  EXPECT_EQ((*sigs)[0].str(), k.signature);
}

TEST(Compile, Options) {
  std::string source = readExample("fused_silu_gate.mlir");
  CompileOptions options;
  options.chip = "sm_90";
  options.ptxVersion = 83;
  options.lineInfo = true;
  options.fastMath = true;
  PTXResult r = compileSourceToPTX(source, options, "silu.mlir");
  ASSERT_TRUE(r) << r.diagnostics;
  EXPECT_THAT(r.ptx, HasSubstr(".version 8.3"));
  EXPECT_THAT(r.ptx, HasSubstr(".target sm_90"));
  EXPECT_THAT(r.ptx, HasSubstr(".loc"));
  EXPECT_THAT(r.ptx, HasSubstr("silu.mlir"));
  EXPECT_THAT(r.ptx, HasSubstr("div.approx"));
  EXPECT_EQ(r.ptxVersion, 83u);

  options = CompileOptions();
  PTXResult exact = compileSourceToPTX(source, options);
  ASSERT_TRUE(exact) << exact.diagnostics;
  EXPECT_THAT(exact.ptx, Not(HasSubstr("div.approx")));
  EXPECT_THAT(exact.ptx, Not(HasSubstr(".loc")));
  EXPECT_EQ(exact.chip, "sm_80"); // the default
}

TEST(Compile, OneKernelAlone) {
  // Two kernels; compiling one drops the other before lowering.
  std::string source = readExample("vector_add.mlir");
  std::string silu = readExample("fused_silu_gate.mlir");
  // Both examples are modules: put the second's kernel into the first.
  size_t body = silu.find("kaio.kernel");
  size_t end = silu.rfind('}');
  ASSERT_NE(body, std::string::npos);
  source.insert(source.rfind('}'), silu.substr(body, end - body));
  CompileOptions options;
  PTXResult both = compileSourceToPTX(source, options);
  ASSERT_TRUE(both) << both.diagnostics;
  EXPECT_EQ(both.kernels.size(), 2u);
  options.kernel = "fused_silu_gate";
  PTXResult one = compileSourceToPTX(source, options);
  ASSERT_TRUE(one) << one.diagnostics;
  ASSERT_EQ(one.kernels.size(), 1u);
  EXPECT_EQ(one.kernels[0].name, "fused_silu_gate");
  EXPECT_THAT(one.ptx, Not(HasSubstr(".entry vector_add")));
  options.kernel = "nope";
  PTXResult missing = compileSourceToPTX(source, options, "two.mlir");
  EXPECT_FALSE(missing);
  EXPECT_THAT(missing.diagnostics,
              HasSubstr("error: no kernel 'nope' in the module (it has: "
                        "vector_add, fused_silu_gate)"));
}

TEST(Compile, VerifiesRegisterCoalescingOnRequest) {
  // Every example (loops carrying tiles, pipelines, reductions) prints with
  // its shared registers confirmed by the independent liveness check.
  for (const char *name :
       {"tensor_core_matmul_staged.mlir", "tensor_core_matmul_tiled.mlir",
        "row_softmax.mlir", "tiled_matmul.mlir", "block_reduce_sum.mlir"}) {
    CompileOptions options;
    options.chip = "sm_90";
    options.verifyRegisterCoalescing = true;
    PTXResult r = compileSourceToPTX(readExample(name), options, name);
    EXPECT_TRUE(r) << name << ": " << r.diagnostics;
  }
}

TEST(Compile, ModuleTargetIsTheDefaultChip) {
  std::string source = readExample("vector_add.mlir");
  source.replace(source.find("module {"), 8,
                 "module attributes {kaio.target = \"sm_86\"} {");
  PTXResult r = compileSourceToPTX(source, CompileOptions());
  ASSERT_TRUE(r) << r.diagnostics;
  EXPECT_EQ(r.chip, "sm_86");
  EXPECT_THAT(r.ptx, HasSubstr(".target sm_86"));
}

TEST(Compile, ModuleIsLeftUntouched) {
  mlir::MLIRContext context;
  builder::ModuleBuilder mb(context);
  mb.kernel("k", {64}, [](builder::KernelBuilder &k) {
    auto p = k.param<builder::Ptr<float>>("p");
    p[k.threadId()] = 1.0f;
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish();
  ASSERT_TRUE(module) << mb.diagnostics();
  PTXResult r = compileToPTX(*module, CompileOptions());
  ASSERT_TRUE(r) << r.diagnostics;
  EXPECT_EQ(r.kernels.at(0).signature, "k(ptr<f32>) maxntid=64");
  bool stillKaio = false;
  module->walk([&](kaio::KernelOp) { stillKaio = true; });
  EXPECT_TRUE(stillKaio);
  // Compiling again gives the same text.
  EXPECT_EQ(compileToPTX(*module, CompileOptions()).ptx, r.ptx);
}

TEST(Compile, ParseErrorsAreDiagnostics) {
  PTXResult r = compileSourceToPTX("kaio.kernel @k(", CompileOptions(),
                                   "broken.mlir");
  EXPECT_FALSE(r);
  EXPECT_THAT(r.diagnostics, HasSubstr("broken.mlir:1:"));
  EXPECT_THAT(r.diagnostics, HasSubstr("error:"));
  EXPECT_TRUE(r.ptx.empty());
}

TEST(Compile, VerifierErrorsAreDiagnostics) {
  // A store of an f32 through an i32 pointer.
  const char *source = R"mlir(
kaio.kernel @k(%p: !kaio.ptr<i32>) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %f = arith.constant 1.0 : f32
  kaio.store %f, %p[%c0] : f32, !kaio.ptr<i32>, i32
  kaio.return
}
)mlir";
  PTXResult r = compileSourceToPTX(source, CompileOptions(), "bad.mlir");
  EXPECT_FALSE(r);
  EXPECT_THAT(r.diagnostics, HasSubstr("bad.mlir:5:3: error:"));
}

TEST(Compile, UnknownChip) {
  CompileOptions options;
  options.chip = "sm_1";
  PTXResult r = compileSourceToPTX(readExample("vector_add.mlir"), options);
  EXPECT_FALSE(r);
  EXPECT_THAT(r.diagnostics, HasSubstr("unknown chip 'sm_1'"));
  EXPECT_THAT(r.diagnostics, HasSubstr("sm_80"));
}

TEST(Compile, TooLowPTXVersion) {
  CompileOptions options;
  options.chip = "sm_90";
  options.ptxVersion = 60;
  PTXResult r = compileSourceToPTX(readExample("vector_add.mlir"), options);
  EXPECT_FALSE(r);
  EXPECT_THAT(r.diagnostics, HasSubstr("error:"));
}

TEST(Compile, MissingFile) {
  PTXResult r = compileFileToPTX("/nonexistent/k.mlir", CompileOptions());
  EXPECT_FALSE(r);
  EXPECT_THAT(r.diagnostics, HasSubstr("/nonexistent/k.mlir"));
  EXPECT_THAT(r.diagnostics, HasSubstr("cannot read file"));
}

TEST(Compile, FileToPTX) {
  PTXResult r = compileFileToPTX(
      std::string(KAIO_SOURCE_DIR) + "/examples/tiled_matmul.mlir",
      CompileOptions());
  ASSERT_TRUE(r) << r.diagnostics;
  EXPECT_EQ(r.kernels.at(0).signature,
            "tiled_matmul(ptr<const f32>,ptr<const f32>,ptr<f32>,s32,s32,s32) "
            "maxntid=16x16");
  EXPECT_EQ(r.kernels.at(0).blockSize, (std::vector<int32_t>{16, 16}));
}

TEST(Compile, PtxasMissingIsAClearError) {
  CubinResult r = assemblePTX(".version 8.0\n", "sm_80", "/nonexistent/ptxas");
  EXPECT_FALSE(r);
  EXPECT_THAT(r.diagnostics, HasSubstr("/nonexistent/ptxas"));

  const char *old = std::getenv("KAIO_PTXAS");
  std::string saved = old ? old : "";
  setenv("KAIO_PTXAS", "/nonexistent/ptxas", 1);
  EXPECT_FALSE(findPtxas());
  CubinResult viaEnv = assemblePTX(".version 8.0\n", "sm_80");
  EXPECT_FALSE(viaEnv);
  EXPECT_THAT(viaEnv.diagnostics, HasSubstr("ptxas not found"));
  if (old)
    setenv("KAIO_PTXAS", saved.c_str(), 1);
  else
    unsetenv("KAIO_PTXAS");
}

TEST(Compile, Cubin) {
  if (!findPtxas())
    GTEST_SKIP() << "ptxas not found (PATH, /usr/local/cuda/bin)";
  mlir::MLIRContext context;
  builder::ModuleBuilder mb(context);
  mb.kernel("k", {64}, [](builder::KernelBuilder &k) {
    auto p = k.param<builder::Ptr<float>>("p");
    p[k.threadId()] = 1.0f;
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = mb.finish();
  ASSERT_TRUE(module) << mb.diagnostics();
  CubinResult r = compileToCubin(*module, CompileOptions());
  ASSERT_TRUE(r) << r.diagnostics;
  ASSERT_GE(r.cubin.size(), 4u);
  EXPECT_EQ(std::string(r.cubin.data(), 4), "\x7f" "ELF");

  CubinResult bad = assemblePTX("this is not ptx", "sm_80");
  EXPECT_FALSE(bad);
  EXPECT_THAT(bad.diagnostics, HasSubstr("ptxas -arch=sm_80 failed"));
}

} // namespace
