//===- PTXEmitterTest.cpp - the printer's pieces --------------------------===//

#include "Kaio/Target/PTX/PTXEmitter.h"

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"
#include "Kaio/Runtime/Signature.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace kaio::ptx;

namespace {

class PTXEmitterTest : public ::testing::Test {
protected:
  PTXEmitterTest() { context.loadDialect<PTXDialect>(); }

  OwningOpRef<ModuleOp> parse(StringRef body, StringRef target = "sm_80") {
    std::string text = ("module attributes {ptx.target = \"" + target +
                        "\"} {\n" + body + "\n}")
                           .str();
    return parseSourceString<ModuleOp>(text, &context);
  }

  /// Prints a kernel whose body is `ops` followed by ptx.ret.
  std::string print(StringRef args, StringRef ops, StringRef target = "sm_80",
                    PTXEmitOptions options = {}) {
    OwningOpRef<ModuleOp> module =
        parse(("ptx.entry @k(" + args + ") {\n" + ops + "\nptx.ret\n}").str(),
              target);
    if (!module)
      return "<parse error>";
    std::string out;
    llvm::raw_string_ostream os(out);
    if (failed(translateModuleToPTX(*module, os, options)))
      return "<print error>";
    return out;
  }

  MLIRContext context;
};

TEST(RegisterNamerTest, NamesPerClassFromOne) {
  MLIRContext ctx;
  Builder b(&ctx);
  RegisterNamer namer;
  EXPECT_EQ(namer.create(b.getI32Type()), "%r1");
  EXPECT_EQ(namer.create(b.getI32Type()), "%r2");
  EXPECT_EQ(namer.create(b.getF32Type()), "%f1");
  EXPECT_EQ(namer.create(b.getI64Type()), "%rd1");
  EXPECT_EQ(namer.create(b.getI1Type()), "%p1");
  EXPECT_EQ(namer.create(b.getF16Type()), "%h1");
  EXPECT_EQ(namer.create(b.getBF16Type()), "%h2");
  EXPECT_EQ(namer.create(VectorType::get({2}, b.getF16Type())), "%hh1");
  EXPECT_EQ(namer.create(b.getI16Type()), "%rs1");
  EXPECT_EQ(namer.create(b.getF64Type()), "%fd1");
  EXPECT_EQ(namer.count("%r"), 2u);
  EXPECT_EQ(namer.count("%h"), 2u);
  EXPECT_EQ(namer.count("%rd"), 1u);
}

TEST(RegisterNamerTest, DeclaresOnlyUsedClasses) {
  MLIRContext ctx;
  Builder b(&ctx);
  RegisterNamer namer;
  namer.create(b.getI32Type());
  namer.create(b.getI32Type());
  namer.create(b.getF32Type());
  std::string text;
  llvm::raw_string_ostream os(text);
  namer.printDeclarations(os);
  EXPECT_EQ(text, "\t.reg .b32 %r<3>;\n\t.reg .f32 %f<2>;\n");
}

TEST(FloatImmediateTest, Spellings) {
  EXPECT_EQ(formatFloatImmediate(llvm::APFloat(1.0f)), "0f3F800000");
  EXPECT_EQ(formatFloatImmediate(llvm::APFloat(-2.5f)), "0fC0200000");
  EXPECT_EQ(formatFloatImmediate(llvm::APFloat(0.0f)), "0f00000000");
  EXPECT_EQ(formatFloatImmediate(llvm::APFloat(1.0)), "0d3FF0000000000000");
  EXPECT_EQ(
      formatFloatImmediate(llvm::APFloat::getInf(llvm::APFloat::IEEEsingle())),
      "0f7F800000");
  bool lost;
  llvm::APFloat half(1.0);
  half.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
               &lost);
  EXPECT_EQ(formatFloatImmediate(half), "0x3C00");
  llvm::APFloat bf(1.0);
  bf.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
             &lost);
  EXPECT_EQ(formatFloatImmediate(bf), "0x3F80");
}

TEST_F(PTXEmitterTest, VersionIsLowestNeeded) {
  auto plain = parse("ptx.entry @k() { ptx.ret }", "sm_80");
  ASSERT_TRUE(plain);
  EXPECT_EQ(*selectISAVersion(*plain, *lookupChip("sm_80"), std::nullopt), 70u);
  EXPECT_EQ(*selectISAVersion(*plain, *lookupChip("sm_75"), std::nullopt), 63u);
  EXPECT_EQ(*selectISAVersion(*plain, *lookupChip("sm_90a"), std::nullopt),
            80u);
  EXPECT_EQ(*selectISAVersion(*plain, *lookupChip("sm_89"), std::nullopt), 78u);

  // stmatrix needs PTX 7.8: on sm_90 that is also the chip's floor, but the
  // op raises sm_80's floor.
  auto st = parse(R"(ptx.entry @k(%a: i32) {
    ptx.stmatrix [%a], %a : i32, i32
    ptx.ret
  })",
                  "sm_90");
  ASSERT_TRUE(st);
  EXPECT_EQ(*selectISAVersion(*st, *lookupChip("sm_90"), std::nullopt), 78u);

  auto ldm = parse(R"(ptx.entry @k(%a: i32) {
    %r = ptx.ldmatrix [%a] : i32 -> i32
    ptx.ret
  })",
                   "sm_75");
  ASSERT_TRUE(ldm);
  EXPECT_EQ(*selectISAVersion(*ldm, *lookupChip("sm_75"), std::nullopt), 65u);
}

TEST_F(PTXEmitterTest, VersionOverride) {
  auto ldm = parse(R"(ptx.entry @k(%a: i32) {
    %r = ptx.ldmatrix [%a] : i32 -> i32
    ptx.ret
  })",
                   "sm_75");
  ASSERT_TRUE(ldm);
  EXPECT_EQ(*selectISAVersion(*ldm, *lookupChip("sm_75"), 85u), 85u);
  // Too old for the op: a located error, not a silent downgrade.
  std::string diag;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diag = d.str();
    return success();
  });
  EXPECT_TRUE(failed(selectISAVersion(*ldm, *lookupChip("sm_75"), 64u)));
  EXPECT_NE(diag.find("PTX ISA 6.4 is too old"), std::string::npos) << diag;
}

TEST_F(PTXEmitterTest, ModifierSpelling) {
  std::string out = print(
      "%p: i64, %h: f16, %x: f32",
      R"(%v:4 = ptx.ld global nc cg f32 [%p + 16] : i64 -> f32, f32, f32, f32
         %o = ptx.atom global add f16 [%p], %h : i64, f16 -> f16
         %s = ptx.atom global relaxed gpu add f32 [%p], %x : i64, f32 -> f32
         %d = ptx.div approx ftz f32 %x, %x : f32
         %q = ptx.sqrt rn f32 %x : f32
         %e = ptx.ex2 approx ftz f32 %x : f32
         %c = ptx.cvt rn f16 f32 %x : f32 -> f16
         %i = ptx.cvt rzi s32 f32 %x : f32 -> i32
         ptx.st global volatile f32 [%p + -8], %x : i64, f32)");
  EXPECT_NE(out.find("ld.global.cg.nc.v4.f32 {%f2, %f3, %f4, %f5}, [%rd1+16];"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("atom.global.add.noftz.f16 %h2, [%rd1], %h1;"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("atom.relaxed.gpu.global.add.f32"), std::string::npos)
      << out;
  EXPECT_NE(out.find("div.approx.ftz.f32"), std::string::npos) << out;
  EXPECT_NE(out.find("sqrt.rn.f32"), std::string::npos) << out;
  EXPECT_NE(out.find("ex2.approx.ftz.f32"), std::string::npos) << out;
  EXPECT_NE(out.find("cvt.rn.f16.f32"), std::string::npos) << out;
  EXPECT_NE(out.find("cvt.rzi.s32.f32"), std::string::npos) << out;
  EXPECT_NE(out.find("st.volatile.global.f32 [%rd1+-8], %f1;"),
            std::string::npos)
      << out;
}

TEST_F(PTXEmitterTest, GuardsAndSignature) {
  std::string out =
      print("%a: i64 {ptx.ptr = f32, ptx.readonly}, %o: i64 {ptx.ptr = bf16}, "
            "%n: i32, %m: si32, %h: f16, %g: bf16, %x: f32, %pk: vector<2xf16>",
            R"(%p = ptx.setp lt s32 %n, %n : i32
         ptx.st if %p global b32 [%a], %n : i64, i32
         ptx.st if not %p global b32 [%a], %n : i64, i32)");
  // Every name is one the runtime's signature parser knows.
  EXPECT_NE(out.find("// kaio.kernel "
                     "k(ptr<const f32>,ptr<bf16>,u32,s32,f16,bf16,f32,u32)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("@%p1 st.global.b32"), std::string::npos) << out;
  EXPECT_NE(out.find("@!%p1 st.global.b32"), std::string::npos) << out;
  EXPECT_NE(out.find(".param .s32 k_param_3"), std::string::npos) << out;
}

TEST_F(PTXEmitterTest, GuardThatIsAlsoAnOperand) {
  // The guard is dropped from the operand list by position: a predicate that
  // is both the guard and an operand is still printed as the operand.
  std::string out = print("%n: i32", R"(
    %p = ptx.setp lt s32 %n, %n : i32
    %b = ptx.vote_sync if %p ballot %p, %n : i32
    %q = ptx.and if not %p pred %p, %p : i1
    %s = ptx.selp if %p b32 %n, %b, %p : i32)");
  EXPECT_NE(out.find("@%p1 vote.sync.ballot.b32 %r2, %p1, %r1;"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("@!%p1 and.pred %p2, %p1, %p1;"), std::string::npos)
      << out;
  EXPECT_NE(out.find("@%p1 selp.b32 %r3, %r1, %r2, %p1;"), std::string::npos)
      << out;
}

TEST_F(PTXEmitterTest, NonCoherentLoadSpelling) {
  // PTX ISA: ld.global{.cop}.nc - the cache operator comes before .nc.
  std::string out =
      print("%p: i64", R"(%a = ptx.ld global nc cs f32 [%p] : i64 -> f32
                   %b:2 = ptx.ld global nc ca f32 [%p + 8] : i64 -> f32, f32)");
  EXPECT_NE(out.find("ld.global.cs.nc.f32 %f1, [%rd1];"), std::string::npos)
      << out;
  EXPECT_NE(out.find("ld.global.ca.nc.v2.f32 {%f2, %f3}, [%rd1+8];"),
            std::string::npos)
      << out;
}

// The printer's signature comments are what the runtime's typed launch reads.
TEST_F(PTXEmitterTest, RuntimeParsesPrintedSignatures) {
  std::string out =
      print("%a: i64 {ptx.ptr = f16, ptx.readonly}, %o: i64 {ptx.ptr = i8}, "
            "%n: i32, %m: si32, %h: bf16, %x: f64, %pk: vector<2xbf16>",
            "");
  auto sigs = kaio::rt::parseKernelSignatures(out);
  ASSERT_TRUE(sigs) << sigs.error().message();
  ASSERT_EQ(sigs->size(), 1u);
  EXPECT_EQ((*sigs)[0].name, "k");
  EXPECT_EQ((*sigs)[0].params.size(), 7u);
}

TEST_F(PTXEmitterTest, LineInfo) {
  PTXEmitOptions options;
  options.lineInfo = true;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      "module attributes {ptx.target = \"sm_80\"} {\n"
      "ptx.entry @k() {\n"
      "  ptx.trap\n"
      "  ptx.ret\n"
      "}\n}",
      ParserConfig(&context), "kernel.mlir");
  ASSERT_TRUE(module);
  std::string out;
  llvm::raw_string_ostream os(out);
  ASSERT_TRUE(succeeded(translateModuleToPTX(*module, os, options)));
  EXPECT_NE(out.find(".file 1 \"kernel.mlir\""), std::string::npos) << out;
  EXPECT_NE(out.find(".loc 1 3 3\n\ttrap;"), std::string::npos) << out;
  EXPECT_NE(out.find(".loc 1 4 3\n\tret;"), std::string::npos) << out;
}

TEST_F(PTXEmitterTest, ParallelBlockArgumentMoves) {
  // Swapping two block arguments needs temporaries.
  std::string out = print("%n: i32", R"(
    %a = ptx.constant 1 : i32
    %b = ptx.constant 2 : i32
    ptx.bra ^loop(%a, %b : i32, i32)
  ^loop(%x: i32, %y: i32):
    %c = ptx.setp lt s32 %x, %n : i32
    ptx.cond_bra %c, ^loop(%y, %x : i32, i32), ^done
  ^done:)");
  // %x shares %a's register (%r2), %y %b's (%r3): the back edge swaps them
  // through %r4, %r5.
  EXPECT_NE(out.find("mov.b32 %r4, %r3;\n\tmov.b32 %r5, %r2;\n"
                     "\tmov.b32 %r2, %r4;\n\tmov.b32 %r3, %r5;"),
            std::string::npos)
      << out;
}

TEST_F(PTXEmitterTest, UnprintableOpIsLocatedError) {
  context.allowUnregisteredDialects();
  OwningOpRef<ModuleOp> module = parse(R"(ptx.entry @k() {
    "foo.bar"() : () -> ()
    ptx.ret
  })");
  ASSERT_TRUE(module);
  std::string diag;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diag = d.str();
    return success();
  });
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_TRUE(failed(translateModuleToPTX(*module, os)));
  EXPECT_NE(diag.find("cannot print 'foo.bar'"), std::string::npos) << diag;
}

} // namespace
