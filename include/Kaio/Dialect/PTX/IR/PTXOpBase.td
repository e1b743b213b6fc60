//===- PTXOpBase.td - ptx op base classes ------------------*- tablegen -*-===//
//
// The classes every ptx op file builds on (PTXOps.td, PTXHopperOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_PTX_IR_PTXOPBASE_TD
#define KAIO_DIALECT_PTX_IR_PTXOPBASE_TD

include "Kaio/Dialect/PTX/IR/PTXBase.td"
include "Kaio/Dialect/PTX/IR/PTXInterfaces.td"

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class PTX_Op<string mnemonic, list<Trait> traits = []>
    : Op<PTX_Dialect, mnemonic, traits>;

// Minimum SM (e.g. 80) and PTX ISA version times ten (e.g. 70 for 7.0);
// `arch` marks architecture-specific instructions (sm_90a: wgmma, setmaxnreg)
// that run only on the 'a' chip of exactly that SM.
class PTX_Requires<int sm, int isa, bit arch = 0>
    : ParamNativeOpTrait<"PTXRequires",
                         sm # ", " # isa # ", " # !if(arch, "true", "false")> {
  let cppNamespace = "::kaio::ptx";
}

// Register types.
def PTX_Pred : I<1>;
def PTX_AnyReg : AnyTypeOf<[I1, I16, I32, I64, F16, BF16, F32, F64,
                            VectorOfLengthAndType<[2], [F16, BF16]>],
                           "PTX register">;
def PTX_AddrReg : AnyTypeOf<[I32, I64], "address register">;
def PTX_B32 : AnyTypeOf<[I32, F32, VectorOfLengthAndType<[2], [F16, BF16]>],
                        "32-bit register">;

// An instruction. `args` are the op's own operands and attributes; the guard
// is appended. `customReq` marks ops whose requirement depends on attributes:
// they implement getPTXRequirement() in C++, starting from (sm, isa).
class PTX_Inst<string mnemonic, list<Trait> traits = [], int sm = 0,
               int isa = 0, bit customReq = 0, bit arch = 0>
    : PTX_Op<mnemonic, !listconcat(traits, [
        PTX_Requires<sm, isa, arch>,
        !if(customReq,
            DeclareOpInterfaceMethods<PTX_InstructionOpInterface,
                                      ["getPTXRequirement"]>,
            PTX_InstructionOpInterface)])> {
  dag guardArgs = (ins Optional<PTX_Pred>:$guard, UnitAttr:$guard_negated);
}

// Instructions that cannot be guarded: constants (ConstantLike has no
// operands) and terminators (a guarded branch is ptx.cond_bra).
class PTX_UnguardedInst<string mnemonic, list<Trait> traits = [], int sm = 0,
                        int isa = 0>
    : PTX_Inst<mnemonic, traits, sm, isa> {
  let extraClassDeclaration = [{
    ::mlir::Value getGuard() { return {}; }
    bool getGuardNegated() { return false; }
  }];
}

#endif // KAIO_DIALECT_PTX_IR_PTXOPBASE_TD
