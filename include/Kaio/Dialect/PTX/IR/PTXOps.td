//===- PTXOps.td - ptx dialect operations ------------------*- tablegen -*-===//
//
// One op per PTX instruction family. Every instruction op:
//   * carries its PTX modifiers as attributes,
//   * may be guarded by a predicate (`if %p` / `if not %p` prints `@%p` /
//     `@!%p`); a guarded op's results are undefined when the guard is false,
//   * states the minimum SM and PTX ISA version it needs through
//     PTX_Requires<sm, isa*10>, the single table the verifier (against the
//     module's ptx.target / ptx.version) and the printer's version selection
//     read.
// The Hopper (sm_90/sm_90a) families are in PTXHopperOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_PTX_IR_PTXOPS_TD
#define KAIO_DIALECT_PTX_IR_PTXOPS_TD

include "Kaio/Dialect/PTX/IR/PTXOpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Module-level declarations and kernels
//===----------------------------------------------------------------------===//

def PTX_EntryOp : PTX_Op<"entry", [
    IsolatedFromAbove, FunctionOpInterface, AutomaticAllocationScope]> {
  let summary = "a `.entry` kernel";
  let description = [{
    A kernel. Its entry block arguments are the kernel's `.param`s: the
    printer declares each and loads it into a register at the top. Argument
    attributes: `ptx.name` (param name), `ptx.ptr` (pointee type attribute,
    marks a global pointer: `.ptr.global.align N`), `ptx.readonly`,
    `ptx.align`, `ptx.tensor_map` (a TMA tensor map passed by value as
    `.param .align 64 .b8 name[128]`; the i64 argument is its generic
    address, the operand cp.async.bulk.tensor takes). Launch bounds: `maxntid`, `reqntid` (1-3 dims),
    `minnctapersm`, `maxnreg`. `reqnctapercluster` (1-3 dims, at most 16
    blocks, sm_90): the thread block cluster the kernel is launched in
    (`.reqnctapercluster`; a launch without cluster dimensions gets it, one
    with others fails). `dynamic_smem`: bytes of dynamic shared
    memory every launch needs (the kernel's tiles live in an `extern`
    array); the printer records it in the `// kaio.kernel` comment
    (`smem=N`), and the runtime and the interpreter launch with at least
    that much, opting in beyond 48 KiB.

    ```mlir
    ptx.entry @k(%a: i64 {ptx.ptr = f32}, %n: i32) attributes {maxntid = array<i32: 256>} {
      ptx.ret
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<DenseI32ArrayAttr>:$maxntid,
                       OptionalAttr<DenseI32ArrayAttr>:$reqntid,
                       OptionalAttr<I32Attr>:$minnctapersm,
                       OptionalAttr<I32Attr>:$maxnreg,
                       OptionalAttr<I64Attr>:$dynamic_smem,
                       OptionalAttr<DenseI32ArrayAttr>:$reqnctapercluster);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// FunctionOpInterface.
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// Whether argument `i` is a tensor map (`ptx.tensor_map`).
    bool isTensorMapParam(unsigned i);
    /// The `.param` name of argument `i`.
    std::string getParamName(unsigned i);
    /// The `.param` type of argument `i` (s32 for a `ptx.signed` i32).
    ::kaio::ptx::PTXType getParamPTXType(unsigned i);
  }];
}

def PTX_GlobalVarOp : PTX_Op<"var", [Symbol]> {
  let summary = "a module-scope `.shared`, `.global` or `.const` array";
  let description = [{
    `ptx.var shared @tile : f32 [256] align 16` prints
    `.shared .align 16 .f32 tile[256];`. With `extern` and no count it is
    dynamic shared memory: `.extern .shared .align 16 .b8 dyn[];`.
  }];
  let arguments = (ins PTX_StateSpace:$space, SymbolNameAttr:$sym_name,
                       PTX_Type:$elem_type, OptionalAttr<I64Attr>:$count,
                       UnitAttr:$is_extern, OptionalAttr<I64Attr>:$alignment);
  let assemblyFormat = [{
    $space $sym_name `:` $elem_type (` ` `[` $count^ `]`)? (`extern` $is_extern^)?
    (`align` $alignment^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Size in bytes (0 for extern arrays).
    int64_t getSizeInBytes();
  }];
}

def PTX_AddressOfOp : PTX_Inst<"addressof", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "address of a module variable (`mov.u64 %rd, name`)";
  let arguments = !con((ins FlatSymbolRefAttr:$name), guardArgs);
  let results = (outs PTX_AddrReg:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $name attr-dict `:` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Moves, constants, special registers
//===----------------------------------------------------------------------===//

def PTX_ConstantOp : PTX_UnguardedInst<"constant", [Pure, ConstantLike]> {
  let summary = "an immediate moved into a register (`mov`)";
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs PTX_AnyReg:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasFolder = 1;
}

def PTX_MovOp : PTX_Inst<"mov", [Pure]> {
  let summary = "register move (`mov.type`), also between same-width types";
  let arguments = !con((ins PTX_Type:$type, PTX_AnyReg:$src), guardArgs);
  let results = (outs PTX_AnyReg:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $type $src attr-dict `:`
    type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def PTX_PackOp : PTX_Inst<"pack", [Pure, AttrSizedOperandSegments]> {
  let summary = "pack registers into a wider one (`mov.b32 %r, {%a, %b}`)";
  let arguments = !con((ins PTX_Type:$type, Variadic<PTX_AnyReg>:$parts),
                       guardArgs);
  let results = (outs PTX_AnyReg:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $type $parts attr-dict `:`
    type($parts) `->` type($result)
  }];
  let hasVerifier = 1;
}

def PTX_UnpackOp : PTX_Inst<"unpack", [Pure]> {
  let summary = "split a register into parts (`mov.b32 {%a, %b}, %r`)";
  let arguments = !con((ins PTX_Type:$type, PTX_AnyReg:$src), guardArgs);
  let results = (outs Variadic<PTX_AnyReg>:$parts);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $type $src attr-dict `:`
    type($src) `->` type($parts)
  }];
  let hasVerifier = 1;
}

def PTX_SpecialRegOp : PTX_Inst<"sreg",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>], 0, 0, 1> {
  let summary = "read a special register (`mov.u32 %r, %tid.x`)";
  let description = [{
    Widths and the targets that have each register come from the special
    register table in PTXInfo (`%is_explicit_cluster` is a predicate,
    `%clock64` and `%globaltimer` are 64-bit, the rest 32-bit). So does
    whether a register may change while a thread runs (the clocks, the
    timer, `%warpid`, `%smid`): reading one of those has effects; the
    others (ids, sizes, lane masks) read as effect-free values, which
    clean-up drops when unused and passes may move.
  }];
  let arguments = !con((ins PTX_SpecialReg:$reg), guardArgs);
  let results = (outs AnyTypeOf<[I1, I32, I64]>:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $reg attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

// Ops whose operands and result are all of one register type, except where
// `custom<TypeSig>` prints a functional type (mul.wide, shifts, ...).
class PTX_ArithOp<string mnemonic, dag operands, dag mods, string modFmt,
                  string operandFmt, string typeFmt, list<Trait> traits = [],
                  int sm = 0, int isa = 0, bit customReq = 1>
    : PTX_Inst<mnemonic, !listconcat([Pure], traits), sm, isa, customReq> {
  let arguments = !con((ins PTX_Type:$type), mods, operands, guardArgs);
  let results = (outs PTX_AnyReg:$result);
  let assemblyFormat = "(`if` (`not` $guard_negated^)? $guard^)? " # modFmt #
      " $type " # operandFmt # " attr-dict `:` custom<TypeSig>(" # typeFmt # ", type($result))";
  let hasVerifier = 1;
}

defvar FloatMods = (ins OptionalAttr<PTX_Rounding>:$rnd, UnitAttr:$ftz,
                        UnitAttr:$sat);
defvar FloatModsFmt = "($rnd^)? (`ftz` $ftz^)? (`sat` $sat^)?";
defvar MulMods = (ins OptionalAttr<PTX_MulMode>:$mode,
                      OptionalAttr<PTX_Rounding>:$rnd, UnitAttr:$ftz,
                      UnitAttr:$sat);
defvar MulModsFmt = "($mode^)? ($rnd^)? (`ftz` $ftz^)? (`sat` $sat^)?";
defvar BinOperands = (ins PTX_AnyReg:$lhs, PTX_AnyReg:$rhs);
defvar BinFmt = "$lhs `,` $rhs";
defvar BinTy = "type($lhs), type($rhs)";
defvar TernOperands = (ins PTX_AnyReg:$a, PTX_AnyReg:$b, PTX_AnyReg:$c);
defvar TernFmt = "$a `,` $b `,` $c";
defvar TernTy = "type($a), type($b), type($c)";
defvar UnOperands = (ins PTX_AnyReg:$src);
defvar UnFmt = "$src";
defvar UnTy = "type($src)";

def PTX_AddOp : PTX_ArithOp<"add", BinOperands, FloatMods, FloatModsFmt,
                            BinFmt, BinTy>;
def PTX_SubOp : PTX_ArithOp<"sub", BinOperands, FloatMods, FloatModsFmt,
                            BinFmt, BinTy>;
def PTX_MulOp : PTX_ArithOp<"mul", BinOperands, MulMods, MulModsFmt, BinFmt, BinTy>;
def PTX_MadOp : PTX_ArithOp<"mad", TernOperands, MulMods, MulModsFmt,
                            TernFmt, TernTy>;
def PTX_FmaOp : PTX_ArithOp<"fma", TernOperands, FloatMods, FloatModsFmt,
                            TernFmt, TernTy>;
def PTX_DivOp : PTX_ArithOp<"div", BinOperands,
    (ins OptionalAttr<PTX_Rounding>:$rnd, UnitAttr:$approx, UnitAttr:$full,
         UnitAttr:$ftz),
    "($rnd^)? (`approx` $approx^)? (`full` $full^)? (`ftz` $ftz^)?", BinFmt, BinTy>;
def PTX_RemOp : PTX_ArithOp<"rem", BinOperands, (ins), "", BinFmt, BinTy>;
def PTX_MinOp : PTX_ArithOp<"min", BinOperands,
    (ins UnitAttr:$ftz, UnitAttr:$nan), "(`ftz` $ftz^)? (`NaN` $nan^)?",
    BinFmt, BinTy>;
def PTX_MaxOp : PTX_ArithOp<"max", BinOperands,
    (ins UnitAttr:$ftz, UnitAttr:$nan), "(`ftz` $ftz^)? (`NaN` $nan^)?",
    BinFmt, BinTy>;
def PTX_AbsOp : PTX_ArithOp<"abs", UnOperands, (ins UnitAttr:$ftz),
                            "(`ftz` $ftz^)?", UnFmt, UnTy>;
def PTX_NegOp : PTX_ArithOp<"neg", UnOperands, (ins UnitAttr:$ftz),
                            "(`ftz` $ftz^)?", UnFmt, UnTy>;
def PTX_AndOp : PTX_ArithOp<"and", BinOperands, (ins), "", BinFmt, BinTy>;
def PTX_OrOp : PTX_ArithOp<"or", BinOperands, (ins), "", BinFmt, BinTy>;
def PTX_XorOp : PTX_ArithOp<"xor", BinOperands, (ins), "", BinFmt, BinTy>;
def PTX_NotOp : PTX_ArithOp<"not", UnOperands, (ins), "", UnFmt, UnTy>;
def PTX_ShlOp : PTX_ArithOp<"shl", BinOperands, (ins), "", BinFmt, BinTy>;
def PTX_ShrOp : PTX_ArithOp<"shr", BinOperands, (ins), "", BinFmt, BinTy>;
def PTX_PopcOp : PTX_ArithOp<"popc", UnOperands, (ins), "", UnFmt, UnTy>;
def PTX_ClzOp : PTX_ArithOp<"clz", UnOperands, (ins), "", UnFmt, UnTy>;
def PTX_BrevOp : PTX_ArithOp<"brev", UnOperands, (ins), "", UnFmt, UnTy>;
def PTX_BfeOp : PTX_ArithOp<"bfe", TernOperands, (ins), "", TernFmt, TernTy>;
def PTX_BfiOp : PTX_ArithOp<"bfi",
    (ins PTX_AnyReg:$a, PTX_AnyReg:$b, PTX_AnyReg:$c, PTX_AnyReg:$d), (ins),
    "", "$a `,` $b `,` $c `,` $d", "type($a), type($b), type($c), type($d)">;
def PTX_PrmtOp : PTX_ArithOp<"prmt", TernOperands,
    (ins OptionalAttr<PTX_PrmtMode>:$mode), "($mode^)?", TernFmt, TernTy>;
def PTX_Lop3Op : PTX_ArithOp<"lop3", TernOperands, (ins I32Attr:$lut),
    "", TernFmt # " `,` $lut", TernTy>;
def PTX_SelpOp : PTX_ArithOp<"selp",
    (ins PTX_AnyReg:$a, PTX_AnyReg:$b, PTX_Pred:$cond), (ins), "",
    "$a `,` $b `,` $cond", "type($a), type($b)">;

def PTX_SetpOp : PTX_Inst<"setp", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["lhs", "rhs"]>], 0, 0, 1> {
  let summary = "compare and set a predicate";
  let description = [{
    `%p = ptx.setp lt f32 %a, %b : f32` prints `setp.lt.f32 %p, %a, %b`.
    The unsigned comparisons are lo/ls/hi/hs, the NaN-aware ones
    equ/neu/ltu/leu/gtu/geu/num/nan. With a combining op and a predicate,
    `setp.lt.and.f32 %p, %a, %b, %q`.
  }];
  let arguments = !con((ins PTX_CmpOp:$cmp, OptionalAttr<PTX_BoolOp>:$bool_op,
                            UnitAttr:$ftz, PTX_Type:$type, PTX_AnyReg:$lhs,
                            PTX_AnyReg:$rhs, Optional<PTX_Pred>:$combine),
                       guardArgs);
  let results = (outs PTX_Pred:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $cmp ($bool_op^)? (`ftz` $ftz^)?
    $type $lhs `,` $rhs (`,` $combine^)? attr-dict `:` type($lhs)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Conversions and special functions
//===----------------------------------------------------------------------===//

def PTX_CvtOp : PTX_Inst<"cvt", [Pure], 0, 0, 1> {
  let summary = "convert between types (`cvt.rnd.sat.dst.src`)";
  let arguments = !con((ins OptionalAttr<PTX_Rounding>:$rnd, UnitAttr:$ftz,
                            UnitAttr:$sat, UnitAttr:$relu,
                            PTX_Type:$dst_type, PTX_Type:$src_type,
                            PTX_AnyReg:$src), guardArgs);
  let results = (outs PTX_AnyReg:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? ($rnd^)? (`ftz` $ftz^)?
    (`sat` $sat^)? (`relu` $relu^)? $dst_type $src_type $src attr-dict `:`
    type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def PTX_CvtPackOp : PTX_Inst<"cvt_pack", [Pure], 80, 70, 1> {
  let summary = "convert two f32 into packed f16x2/bf16x2 "
                "(`cvt.rn.f16x2.f32 %r, %hi, %lo`)";
  let arguments = !con((ins PTX_Rounding:$rnd, UnitAttr:$relu,
                            UnitAttr:$satfinite, PTX_Type:$dst_type,
                            F32:$hi, F32:$lo), guardArgs);
  let results = (outs PTX_B32:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $rnd (`relu` $relu^)?
    (`satfinite` $satfinite^)? $dst_type $hi `,` $lo attr-dict `:`
    type($result)
  }];
  let hasVerifier = 1;
}

class PTX_SpecialFnOp<string mnemonic>
    : PTX_ArithOp<mnemonic, UnOperands,
        (ins UnitAttr:$approx, OptionalAttr<PTX_Rounding>:$rnd, UnitAttr:$ftz),
        "(`approx` $approx^)? ($rnd^)? (`ftz` $ftz^)?", UnFmt, UnTy> {
  let summary = "`" # mnemonic # "` special function";
}
def PTX_Ex2Op : PTX_SpecialFnOp<"ex2">;
def PTX_Lg2Op : PTX_SpecialFnOp<"lg2">;
def PTX_SinOp : PTX_SpecialFnOp<"sin">;
def PTX_CosOp : PTX_SpecialFnOp<"cos">;
def PTX_TanhOp : PTX_SpecialFnOp<"tanh">;
def PTX_RcpOp : PTX_SpecialFnOp<"rcp">;
def PTX_SqrtOp : PTX_SpecialFnOp<"sqrt">;
def PTX_RsqrtOp : PTX_SpecialFnOp<"rsqrt">;

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def PTX_LoadOp : PTX_Inst<"ld", [], 0, 0, 1> {
  let summary = "load, scalar or vector (`ld.space.cop.vN.type`)";
  let description = [{
    `%a, %b = ptx.ld global nc f32 [%p + 8] : i64 -> f32, f32` prints
    `ld.global.nc.v2.f32 {%f1, %f2}, [%rd1+8]`. The vector width is the
    number of results (1, 2 or 4).
  }];
  let arguments = !con((ins PTX_StateSpace:$space, UnitAttr:$nc,
                            UnitAttr:$is_volatile,
                            OptionalAttr<PTX_CacheOp>:$cache, PTX_Type:$type,
                            PTX_AddrReg:$addr, DefaultValuedAttr<I64Attr, "0">:$offset),
                       guardArgs);
  let results = (outs Variadic<PTX_AnyReg>:$results);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $space (`nc` $nc^)?
    (`volatile` $is_volatile^)? ($cache^)? $type
    custom<Address>($addr, $offset) attr-dict `:` type($addr) `->`
    type($results)
  }];
  let hasVerifier = 1;
}

def PTX_StoreOp : PTX_Inst<"st", [AttrSizedOperandSegments], 0, 0, 1> {
  let summary = "store, scalar or vector (`st.space.cop.vN.type`)";
  let arguments = !con((ins PTX_StateSpace:$space, UnitAttr:$is_volatile,
                            OptionalAttr<PTX_CacheOp>:$cache, PTX_Type:$type,
                            PTX_AddrReg:$addr, DefaultValuedAttr<I64Attr, "0">:$offset,
                            Variadic<PTX_AnyReg>:$values), guardArgs);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $space (`volatile` $is_volatile^)?
    ($cache^)? $type custom<Address>($addr, $offset) `,` $values
    attr-dict `:` type($addr) `,` type($values)
  }];
  let hasVerifier = 1;
}

def PTX_CvtaOp : PTX_Inst<"cvta", [Pure], 0, 0, 1> {
  let summary = "convert between generic and state-space addresses";
  let description = [{
    `%g = ptx.cvta shared %s : i64 -> i64` prints `cvta.shared.u64`;
    with `to`, `cvta.to.global.u64` (generic → global). Modules are 64-bit,
    so both addresses are i64.
  }];
  let arguments = !con((ins UnitAttr:$to, PTX_StateSpace:$space,
                            PTX_AddrReg:$src), guardArgs);
  let results = (outs PTX_AddrReg:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? (`to` $to^)? $space $src attr-dict
    `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

class PTX_AtomicBase<string mnemonic> : PTX_Inst<mnemonic,
    [AttrSizedOperandSegments], 0, 0, 1> {
  dag atomArgs = (ins PTX_StateSpace:$space, OptionalAttr<PTX_MemOrder>:$sem,
                      OptionalAttr<PTX_MemScope>:$scope, PTX_AtomicOpKind:$op,
                      PTX_Type:$type, PTX_AddrReg:$addr,
                      DefaultValuedAttr<I64Attr, "0">:$offset,
                      Variadic<PTX_AnyReg>:$values);
  let hasVerifier = 1;
}

def PTX_AtomOp : PTX_AtomicBase<"atom"> {
  let summary = "atomic read-modify-write returning the old value";
  let description = [{
    `%old = ptx.atom global add f32 [%p], %v : i64, f32 -> f32`. `cas` takes
    the compare and the new value. f16/bf16 adds print `.noftz`.
  }];
  let arguments = !con(atomArgs, guardArgs);
  let results = (outs PTX_AnyReg:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $space ($sem^)? ($scope^)? $op
    $type custom<Address>($addr, $offset) `,` $values attr-dict `:`
    type($addr) `,` type($values) `->` type($result)
  }];
}

def PTX_RedOp : PTX_AtomicBase<"red"> {
  let summary = "atomic reduction to memory, no result";
  let arguments = !con(atomArgs, guardArgs);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $space ($sem^)? ($scope^)? $op
    $type custom<Address>($addr, $offset) `,` $values attr-dict `:`
    type($addr) `,` type($values)
  }];
}

def PTX_MembarOp : PTX_Inst<"membar"> {
  let summary = "memory barrier (`membar.level`)";
  let arguments = !con((ins PTX_MembarLevel:$level), guardArgs);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $level attr-dict
  }];
}

def PTX_FenceOp : PTX_Inst<"fence", [], 70, 60, 1> {
  let summary = "memory fence (`fence.sem.scope`)";
  let arguments = !con((ins PTX_MemOrder:$sem, PTX_MemScope:$scope),
                       guardArgs);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $sem $scope attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Synchronisation and warp-level ops
//===----------------------------------------------------------------------===//

class PTX_BarrierBase<string mnemonic, int sm = 0, int isa = 0>
    : PTX_Inst<mnemonic, [], sm, isa> {
  let arguments = !con((ins DefaultValuedAttr<I32Attr, "0">:$id,
                            OptionalAttr<I32Attr>:$count), guardArgs);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $id (`,` $count^)? attr-dict
  }];
  let hasVerifier = 1;
}
def PTX_BarSyncOp : PTX_BarrierBase<"bar_sync"> {
  let summary = "`bar.sync id[, count]`: block barrier, warp-aligned";
}
def PTX_BarArriveOp : PTX_BarrierBase<"bar_arrive"> {
  let summary = "`bar.arrive id, count`: arrive without waiting";
}
def PTX_BarrierSyncOp : PTX_BarrierBase<"barrier_sync", 70, 60> {
  let summary = "`barrier.sync id[, count]`: non-aligned block barrier";
}

def PTX_ShflSyncOp : PTX_Inst<"shfl_sync", [], 70, 60> {
  let summary = "warp shuffle (`shfl.sync.mode.b32 d|p, a, b, c, mask`)";
  let description = [{
    The second result is the lane-valid predicate; it is printed only when
    used.
  }];
  let arguments = !con((ins PTX_ShflMode:$mode, PTX_B32:$value, I32:$lane,
                            I32:$clamp, I32:$mask), guardArgs);
  let results = (outs PTX_B32:$result, PTX_Pred:$valid);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $mode $value `,` $lane `,` $clamp
    `,` $mask attr-dict `:` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

def PTX_VoteSyncOp : PTX_Inst<"vote_sync", [], 70, 60> {
  let summary = "warp vote (`vote.sync.all.pred`, `vote.sync.ballot.b32`)";
  let arguments = !con((ins PTX_VoteMode:$mode, PTX_Pred:$pred, I32:$mask),
                       guardArgs);
  let results = (outs AnyTypeOf<[I1, I32]>:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $mode $pred `,` $mask attr-dict `:`
    type($result)
  }];
  let hasVerifier = 1;
}

def PTX_MatchSyncOp : PTX_Inst<"match_sync", [], 70, 60> {
  let summary = "find lanes with equal values (`match.sync.any.b32`)";
  let arguments = !con((ins PTX_MatchMode:$mode, PTX_Type:$type,
                            AnyTypeOf<[I32, I64]>:$value, I32:$mask),
                       guardArgs);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $mode $type $value `,` $mask
    attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

def PTX_ReduxSyncOp : PTX_Inst<"redux_sync", [], 80, 70> {
  let summary = "warp reduction (`redux.sync.op.type`)";
  let arguments = !con((ins PTX_ReduxOp:$op, PTX_Type:$type, I32:$value,
                            I32:$mask), guardArgs);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $op $type $value `,` $mask attr-dict
  }];
  let hasVerifier = 1;
}

def PTX_ActiveMaskOp : PTX_Inst<"activemask", [], 70, 62> {
  let summary = "mask of the active lanes (`activemask.b32`)";
  let arguments = guardArgs;
  let results = (outs I32:$result);
  let assemblyFormat = "(`if` (`not` $guard_negated^)? $guard^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Tensor cores and async copies
//===----------------------------------------------------------------------===//

def PTX_MmaSyncOp : PTX_Inst<"mma_sync", [AttrSizedOperandSegments], 75, 64,
                             1> {
  let summary = "warp-level matrix multiply-accumulate (`mma.sync.aligned`)";
  let description = [{
    D = A * B + C on a warp. Legal shapes, types and per-thread register
    counts come from the one mma table (PTXInfo.h), which the verifier, the
    printer and the interpreter all read.

    ```mlir
    %d:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32
        {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3}
        : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32)
        -> f32, f32, f32, f32
    ```
  }];
  let arguments = !con((ins PTX_MMAShape:$shape, PTX_MMALayout:$layout_a,
                            PTX_MMALayout:$layout_b, PTX_Type:$d_type,
                            PTX_Type:$a_type, PTX_Type:$b_type,
                            PTX_Type:$c_type, UnitAttr:$satfinite,
                            Variadic<PTX_B32>:$a, Variadic<PTX_B32>:$b,
                            Variadic<PTX_B32>:$c), guardArgs);
  let results = (outs Variadic<PTX_B32>:$d);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $shape $layout_a $layout_b
    $d_type $a_type $b_type $c_type (`satfinite` $satfinite^)?
    ` ` `{` $a `}` `,` `{` $b `}` `,` `{` $c `}` attr-dict `:`
    `(` type($a) `)` `,` `(` type($b) `)` `,` `(` type($c) `)` `->` type($d)
  }];
  let hasVerifier = 1;
}

def PTX_LdMatrixOp : PTX_Inst<"ldmatrix", [], 75, 65> {
  let summary = "load 8x8 b16 matrices from shared memory "
                "(`ldmatrix.sync.aligned.m8n8.xN.trans.shared.b16`)";
  let arguments = !con((ins UnitAttr:$trans, PTX_AddrReg:$addr,
                            DefaultValuedAttr<I64Attr, "0">:$offset),
                       guardArgs);
  let results = (outs Variadic<I32>:$results);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? (`trans` $trans^)? ` `
    custom<Address>($addr, $offset) attr-dict `:` type($addr) `->`
    type($results)
  }];
  let hasVerifier = 1;
}

def PTX_StMatrixOp : PTX_Inst<"stmatrix", [AttrSizedOperandSegments], 90,
                              78> {
  let summary = "store 8x8 b16 matrices to shared memory (`stmatrix`)";
  let arguments = !con((ins UnitAttr:$trans, PTX_AddrReg:$addr,
                            DefaultValuedAttr<I64Attr, "0">:$offset,
                            Variadic<I32>:$values), guardArgs);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? (`trans` $trans^)? ` `
    custom<Address>($addr, $offset) `,` $values attr-dict `:` type($addr) `,`
    type($values)
  }];
  let hasVerifier = 1;
}

def PTX_CpAsyncOp : PTX_Inst<"cp_async", [AttrSizedOperandSegments], 80, 70> {
  let summary = "asynchronous global → shared copy "
                "(`cp.async.ca.shared.global [dst], [src], size[, src_size]`)";
  let description = [{
    With `src_size` < `bytes`, the remaining destination bytes are zero
    filled: the way ragged tile edges are loaded.
  }];
  let arguments = !con((ins PTX_CpAsyncCache:$cache, I32Attr:$bytes,
                            PTX_AddrReg:$dst,
                            DefaultValuedAttr<I64Attr, "0">:$dst_offset,
                            I64:$src, Optional<I32>:$src_size), guardArgs);
  let assemblyFormat = [{
    (`if` (`not` $guard_negated^)? $guard^)? $cache $bytes ` `
    custom<Address>($dst, $dst_offset) `,` `[` $src `]` (`,` $src_size^)?
    attr-dict `:` type($dst)
  }];
  let hasVerifier = 1;
}

def PTX_CpAsyncCommitGroupOp : PTX_Inst<"cp_async_commit_group", [], 80, 70> {
  let summary = "`cp.async.commit_group`";
  let arguments = guardArgs;
  let assemblyFormat = "(`if` (`not` $guard_negated^)? $guard^)? attr-dict";
}

def PTX_CpAsyncWaitGroupOp : PTX_Inst<"cp_async_wait_group", [], 80, 70> {
  let summary = "`cp.async.wait_group N`: wait until ≤ N groups are pending";
  let arguments = !con((ins I32Attr:$n), guardArgs);
  let assemblyFormat = "(`if` (`not` $guard_negated^)? $guard^)? $n attr-dict";
  let hasVerifier = 1;
}

def PTX_CpAsyncWaitAllOp : PTX_Inst<"cp_async_wait_all", [], 80, 70> {
  let summary = "`cp.async.wait_all`";
  let arguments = guardArgs;
  let assemblyFormat = "(`if` (`not` $guard_negated^)? $guard^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def PTX_BraOp : PTX_UnguardedInst<"bra", [Terminator, Pure,
    DeclareOpInterfaceMethods<BranchOpInterface>]> {
  let summary = "unconditional branch (`bra[.uni]`); block arguments become "
                "moves";
  let arguments = (ins UnitAttr:$uni, Variadic<AnyType>:$dest_operands);
  let successors = (successor AnySuccessor:$dest);
  let assemblyFormat = [{
    (`uni` $uni^)? $dest
    (`(` $dest_operands^ `:` type($dest_operands) `)`)? attr-dict
  }];
}

def PTX_CondBraOp : PTX_UnguardedInst<"cond_bra", [Terminator, Pure,
    AttrSizedOperandSegments, DeclareOpInterfaceMethods<BranchOpInterface>]> {
  let summary = "two-way branch on a predicate (`@%p bra`)";
  let arguments = (ins PTX_Pred:$condition, UnitAttr:$uni,
                       Variadic<AnyType>:$true_operands,
                       Variadic<AnyType>:$false_operands);
  let successors = (successor AnySuccessor:$true_dest,
                              AnySuccessor:$false_dest);
  let assemblyFormat = [{
    (`uni` $uni^)? $condition `,`
    $true_dest (`(` $true_operands^ `:` type($true_operands) `)`)? `,`
    $false_dest (`(` $false_operands^ `:` type($false_operands) `)`)?
    attr-dict
  }];
}

def PTX_RetOp : PTX_UnguardedInst<"ret", [Terminator, ReturnLike]> {
  let summary = "return from the kernel (`ret`)";
  let assemblyFormat = "attr-dict";
}

def PTX_ExitOp : PTX_UnguardedInst<"exit", [Terminator]> {
  let summary = "terminate the thread (`exit`)";
  let assemblyFormat = "attr-dict";
}

def PTX_TrapOp : PTX_Inst<"trap"> {
  let summary = "abort the kernel with an error (`trap`)";
  let arguments = guardArgs;
  let assemblyFormat = "(`if` (`not` $guard_negated^)? $guard^)? attr-dict";
}

#endif // KAIO_DIALECT_PTX_IR_PTXOPS_TD
