//===- Passes.td - conversions to the ptx dialect ----------*- tablegen -*-===//

#ifndef KAIO_CONVERSION_PASSES_TD
#define KAIO_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertKaioToPTX : Pass<"convert-kaio-to-ptx", "::mlir::ModuleOp"> {
  let summary = "lower kaio kernels and SIMT ops to the ptx dialect";
  let description = [{
    kaio.kernel becomes ptx.entry (pointers become 64-bit global addresses),
    ids become special-register reads, loads and stores become address
    arithmetic and ld/st (ld.global.nc for read-only pointers, guarded for
    masks), shared tiles become module `.shared` variables, shuffles and
    reductions become shfl.sync/redux.sync sequences, block reductions use a
    shared scratch array and two barriers. Runs after tile lowering and
    scf-to-cf; arith, math and cf ops are left to their own passes.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "target chip, e.g. sm_80 (default: the module's kaio.target, "
           "else sm_80)">,
  ];
  let dependentDialects = ["::kaio::ptx::PTXDialect"];
}

def ConvertArithToPTX : Pass<"convert-arith-to-ptx", "::mlir::ModuleOp"> {
  let summary = "lower arith ops inside ptx kernels to ptx instructions";
  let description = [{
    Integer ops follow arith's two's-complement semantics; f32/f64 division
    is IEEE (div.rn) unless `fast-math` is set (div.approx / div.full).
    Comparisons map to setp with the unordered variants for `u*` predicates.
  }];
  let options = [
    Option<"fastMath", "fast-math", "bool", /*default=*/"false",
           "use approximate division">,
  ];
  let dependentDialects = ["::kaio::ptx::PTXDialect"];
}

def ConvertMathToPTX : Pass<"convert-math-to-ptx", "::mlir::ModuleOp"> {
  let summary = "lower math ops inside ptx kernels to ptx instructions";
  let description = [{
    sqrt is IEEE (sqrt.rn); exp, log, tanh, sin, cos, rsqrt use the .approx
    instructions, exp/log scaled through ex2/lg2; erf uses a rational
    approximation. Error bounds are listed in docs/design.md.
  }];
  let dependentDialects = ["::kaio::ptx::PTXDialect"];
}

def ConvertCFToPTX : Pass<"convert-cf-to-ptx", "::mlir::ModuleOp"> {
  let summary = "lower cf branches inside ptx kernels to ptx branches";
  let dependentDialects = ["::kaio::ptx::PTXDialect"];
}

#endif // KAIO_CONVERSION_PASSES_TD
