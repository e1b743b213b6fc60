//===- PTXInterfaces.td - ptx instruction interface --------*- tablegen -*-===//

#ifndef KAIO_DIALECT_PTX_IR_PTXINTERFACES_TD
#define KAIO_DIALECT_PTX_IR_PTXINTERFACES_TD

include "mlir/IR/OpBase.td"

def PTX_InstructionOpInterface : OpInterface<"InstructionOpInterface"> {
  let cppNamespace = "::kaio::ptx";
  let description = [{
    Implemented by every op that prints as one PTX instruction. It gives the
    minimum SM and PTX ISA version the op needs (with its current attributes)
    and the optional guard predicate (`@p` / `@!p`).
  }];
  let methods = [
    InterfaceMethod<"Minimum target and ISA version this op needs",
      "::kaio::ptx::PTXRequirement", "getPTXRequirement", (ins), [{}],
      [{ return ConcreteOp::getStaticPTXRequirement(); }]>,
    InterfaceMethod<"The guard predicate, or null when unguarded",
      "::mlir::Value", "getGuardPredicate", (ins), [{}],
      [{ return $_op.getGuard(); }]>,
    InterfaceMethod<"Whether the guard is negated (@!p)",
      "bool", "isGuardNegated", (ins), [{}],
      [{ return $_op.getGuardNegated(); }]>,
  ];
  // Runs after the op's ODS invariants, so getPTXRequirement() may read its
  // attributes.
  let verify = [{ return ::kaio::ptx::verifyTargetRequirement($_op); }];
}

#endif // KAIO_DIALECT_PTX_IR_PTXINTERFACES_TD
