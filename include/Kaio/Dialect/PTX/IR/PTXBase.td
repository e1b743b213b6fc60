//===- PTXBase.td - ptx dialect definition and enums -------*- tablegen -*-===//
//
// The ptx dialect mirrors PTX one op per instruction family. Instruction
// modifiers (types, rounding, saturation, state space, cache operator, vector
// width) are attributes; registers are SSA values of builtin types.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_PTX_IR_PTXBASE_TD
#define KAIO_DIALECT_PTX_IR_PTXBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def PTX_Dialect : Dialect {
  let name = "ptx";
  let cppNamespace = "::kaio::ptx";
  let summary = "One op per PTX instruction family";
  let description = [{
    The lowest KAIO dialect. Each op is one PTX instruction family; its
    modifiers are attributes, its registers are SSA values whose builtin type
    selects the register class (`i1` → `.pred`, `i16` → `.b16`, `i32` →
    `.b32`, `i64` → `.b64`, `f16`/`bf16` → `.b16`, `vector<2xf16>` /
    `vector<2xbf16>` → `.b32`, `f32` → `.f32`, `f64` → `.f64`). The
    instruction type (`s32`, `f16x2`, …) is an attribute, checked against the
    register types by the verifiers. kaio-translate prints it as PTX text.

    A module targets one chip through the `ptx.target` attribute on the
    builtin module (e.g. `"sm_80"`), optionally `ptx.version` ("8.0") and
    `ptx.address_size` (64). Every op declares the minimum SM and PTX ISA
    version it needs; each op's verifier rejects it when it is above the
    module's target or ptx.version.
  }];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr llvm::StringLiteral kTargetAttrName = "ptx.target";
    static constexpr llvm::StringLiteral kVersionAttrName = "ptx.version";
    static constexpr llvm::StringLiteral kAddressSizeAttrName =
        "ptx.address_size";
    /// Entry argument attributes.
    static constexpr llvm::StringLiteral kParamNameAttrName = "ptx.name";
    static constexpr llvm::StringLiteral kPtrElementAttrName = "ptx.ptr";
    static constexpr llvm::StringLiteral kReadOnlyAttrName = "ptx.readonly";
    /// A signed integer parameter (.param .s32) rather than unsigned.
    static constexpr llvm::StringLiteral kSignedAttrName = "ptx.signed";
    static constexpr llvm::StringLiteral kAlignAttrName = "ptx.align";
    /// A TMA tensor map (`.param .align 64 .b8 name[128]`); the i64
    /// argument is its generic address (cvta.param).
    static constexpr llvm::StringLiteral kTensorMapAttrName =
        "ptx.tensor_map";
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

class PTX_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::kaio::ptx";
}

// Instruction types. One table (PTXInfo.cpp) gives width and kind of each.
def PTX_Type : PTX_I32Enum<"PTXType", "PTX instruction type", [
  I32EnumAttrCase<"pred", 0>,
  I32EnumAttrCase<"b8", 1>, I32EnumAttrCase<"b16", 2>,
  I32EnumAttrCase<"b32", 3>, I32EnumAttrCase<"b64", 4>,
  I32EnumAttrCase<"u8", 5>, I32EnumAttrCase<"u16", 6>,
  I32EnumAttrCase<"u32", 7>, I32EnumAttrCase<"u64", 8>,
  I32EnumAttrCase<"s8", 9>, I32EnumAttrCase<"s16", 10>,
  I32EnumAttrCase<"s32", 11>, I32EnumAttrCase<"s64", 12>,
  I32EnumAttrCase<"f16", 13>, I32EnumAttrCase<"f16x2", 14>,
  I32EnumAttrCase<"bf16", 15>, I32EnumAttrCase<"bf16x2", 16>,
  I32EnumAttrCase<"tf32", 17>, I32EnumAttrCase<"f32", 18>,
  I32EnumAttrCase<"f64", 19>,
  I32EnumAttrCase<"u4", 20>, I32EnumAttrCase<"s4", 21>,
  // FP8 (wgmma operands).
  I32EnumAttrCase<"e4m3", 22>, I32EnumAttrCase<"e5m2", 23>]>;

def PTX_Rounding : PTX_I32Enum<"Rounding", "rounding modifier", [
  I32EnumAttrCase<"rn", 0>, I32EnumAttrCase<"rz", 1>,
  I32EnumAttrCase<"rm", 2>, I32EnumAttrCase<"rp", 3>,
  I32EnumAttrCase<"rna", 4>,
  I32EnumAttrCase<"rni", 5>, I32EnumAttrCase<"rzi", 6>,
  I32EnumAttrCase<"rmi", 7>, I32EnumAttrCase<"rpi", 8>]>;

def PTX_StateSpace : PTX_I32Enum<"StateSpace", "state space", [
  I32EnumAttrCase<"generic", 0>, I32EnumAttrCase<"global", 1>,
  I32EnumAttrCase<"shared", 2>, I32EnumAttrCase<"local", 3>,
  I32EnumAttrCase<"param", 4>, I32EnumAttrCase<"Const", 5, "const">,
  // `.shared::cluster`: shared memory of any CTA in the cluster (sm_90).
  I32EnumAttrCase<"shared_cluster", 6>]>;

def PTX_CacheOp : PTX_I32Enum<"CacheOp", "cache operator", [
  I32EnumAttrCase<"ca", 0>, I32EnumAttrCase<"cg", 1>,
  I32EnumAttrCase<"cs", 2>, I32EnumAttrCase<"lu", 3>,
  I32EnumAttrCase<"cv", 4>, I32EnumAttrCase<"wb", 5>,
  I32EnumAttrCase<"wt", 6>]>;

def PTX_CmpOp : PTX_I32Enum<"CmpOp", "setp comparison", [
  I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
  I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
  I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>,
  I32EnumAttrCase<"lo", 6>, I32EnumAttrCase<"ls", 7>,
  I32EnumAttrCase<"hi", 8>, I32EnumAttrCase<"hs", 9>,
  I32EnumAttrCase<"equ", 10>, I32EnumAttrCase<"neu", 11>,
  I32EnumAttrCase<"ltu", 12>, I32EnumAttrCase<"leu", 13>,
  I32EnumAttrCase<"gtu", 14>, I32EnumAttrCase<"geu", 15>,
  I32EnumAttrCase<"num", 16>, I32EnumAttrCase<"nan", 17>]>;

def PTX_BoolOp : PTX_I32Enum<"BoolOp", "predicate combining operation", [
  I32EnumAttrCase<"And", 0, "and">, I32EnumAttrCase<"Or", 1, "or">,
  I32EnumAttrCase<"Xor", 2, "xor">]>;

def PTX_MulMode : PTX_I32Enum<"MulMode", "integer multiply result part", [
  I32EnumAttrCase<"lo", 0>, I32EnumAttrCase<"hi", 1>,
  I32EnumAttrCase<"wide", 2>]>;

def PTX_SpecialReg : PTX_I32Enum<"SpecialReg", "special register", [
  I32EnumAttrCase<"tid_x", 0, "tid.x">, I32EnumAttrCase<"tid_y", 1, "tid.y">,
  I32EnumAttrCase<"tid_z", 2, "tid.z">,
  I32EnumAttrCase<"ntid_x", 3, "ntid.x">, I32EnumAttrCase<"ntid_y", 4, "ntid.y">,
  I32EnumAttrCase<"ntid_z", 5, "ntid.z">,
  I32EnumAttrCase<"ctaid_x", 6, "ctaid.x">,
  I32EnumAttrCase<"ctaid_y", 7, "ctaid.y">,
  I32EnumAttrCase<"ctaid_z", 8, "ctaid.z">,
  I32EnumAttrCase<"nctaid_x", 9, "nctaid.x">,
  I32EnumAttrCase<"nctaid_y", 10, "nctaid.y">,
  I32EnumAttrCase<"nctaid_z", 11, "nctaid.z">,
  I32EnumAttrCase<"laneid", 12>, I32EnumAttrCase<"warpid", 13>,
  I32EnumAttrCase<"nwarpid", 14>, I32EnumAttrCase<"smid", 15>,
  I32EnumAttrCase<"nsmid", 16>, I32EnumAttrCase<"clock", 17>,
  I32EnumAttrCase<"clock64", 18>, I32EnumAttrCase<"globaltimer", 19>,
  I32EnumAttrCase<"dynamic_smem_size", 20>,
  I32EnumAttrCase<"total_smem_size", 21>,
  I32EnumAttrCase<"lanemask_eq", 22>, I32EnumAttrCase<"lanemask_lt", 23>,
  I32EnumAttrCase<"lanemask_le", 24>, I32EnumAttrCase<"lanemask_gt", 25>,
  I32EnumAttrCase<"lanemask_ge", 26>,
  // Thread block clusters (sm_90).
  I32EnumAttrCase<"clusterid_x", 27, "clusterid.x">,
  I32EnumAttrCase<"clusterid_y", 28, "clusterid.y">,
  I32EnumAttrCase<"clusterid_z", 29, "clusterid.z">,
  I32EnumAttrCase<"nclusterid_x", 30, "nclusterid.x">,
  I32EnumAttrCase<"nclusterid_y", 31, "nclusterid.y">,
  I32EnumAttrCase<"nclusterid_z", 32, "nclusterid.z">,
  I32EnumAttrCase<"cluster_ctaid_x", 33, "cluster_ctaid.x">,
  I32EnumAttrCase<"cluster_ctaid_y", 34, "cluster_ctaid.y">,
  I32EnumAttrCase<"cluster_ctaid_z", 35, "cluster_ctaid.z">,
  I32EnumAttrCase<"cluster_nctaid_x", 36, "cluster_nctaid.x">,
  I32EnumAttrCase<"cluster_nctaid_y", 37, "cluster_nctaid.y">,
  I32EnumAttrCase<"cluster_nctaid_z", 38, "cluster_nctaid.z">,
  I32EnumAttrCase<"cluster_ctarank", 39>,
  I32EnumAttrCase<"cluster_nctarank", 40>,
  I32EnumAttrCase<"is_explicit_cluster", 41>]>;

def PTX_ShflMode : PTX_I32Enum<"ShflMode", "shfl.sync mode", [
  I32EnumAttrCase<"up", 0>, I32EnumAttrCase<"down", 1>,
  I32EnumAttrCase<"bfly", 2>, I32EnumAttrCase<"idx", 3>]>;

def PTX_VoteMode : PTX_I32Enum<"VoteMode", "vote.sync mode", [
  I32EnumAttrCase<"all", 0>, I32EnumAttrCase<"any", 1>,
  I32EnumAttrCase<"uni", 2>, I32EnumAttrCase<"ballot", 3>]>;

def PTX_MatchMode : PTX_I32Enum<"MatchMode", "match.sync mode", [
  I32EnumAttrCase<"any", 0>, I32EnumAttrCase<"all", 1>]>;

def PTX_ReduxOp : PTX_I32Enum<"ReduxOp", "redux.sync operation", [
  I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"min", 1>,
  I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"And", 3, "and">,
  I32EnumAttrCase<"Or", 4, "or">, I32EnumAttrCase<"Xor", 5, "xor">]>;

def PTX_AtomicOpKind : PTX_I32Enum<"AtomicOp", "atom/red operation", [
  I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"min", 1>,
  I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"inc", 3>,
  I32EnumAttrCase<"dec", 4>, I32EnumAttrCase<"And", 5, "and">,
  I32EnumAttrCase<"Or", 6, "or">, I32EnumAttrCase<"Xor", 7, "xor">,
  I32EnumAttrCase<"exch", 8>, I32EnumAttrCase<"cas", 9>]>;

def PTX_MemOrder : PTX_I32Enum<"MemOrder", "memory ordering semantics", [
  I32EnumAttrCase<"relaxed", 0>, I32EnumAttrCase<"acquire", 1>,
  I32EnumAttrCase<"release", 2>, I32EnumAttrCase<"acq_rel", 3>,
  I32EnumAttrCase<"sc", 4>]>;

def PTX_MemScope : PTX_I32Enum<"MemScope", "memory scope", [
  I32EnumAttrCase<"cta", 0>, I32EnumAttrCase<"cluster", 1>,
  I32EnumAttrCase<"gpu", 2>, I32EnumAttrCase<"sys", 3>]>;

def PTX_MembarLevel : PTX_I32Enum<"MembarLevel", "membar level", [
  I32EnumAttrCase<"cta", 0>, I32EnumAttrCase<"gl", 1>,
  I32EnumAttrCase<"sys", 2>]>;

def PTX_MMALayout : PTX_I32Enum<"MMALayout", "mma operand layout", [
  I32EnumAttrCase<"row", 0>, I32EnumAttrCase<"col", 1>]>;

def PTX_MMAShape : PTX_I32Enum<"MMAShape", "mma.sync shape", [
  I32EnumAttrCase<"m16n8k8", 0>, I32EnumAttrCase<"m16n8k16", 1>,
  I32EnumAttrCase<"m16n8k32", 2>, I32EnumAttrCase<"m16n8k64", 3>]>;

def PTX_PrmtMode : PTX_I32Enum<"PrmtMode", "prmt mode", [
  I32EnumAttrCase<"f4e", 0>, I32EnumAttrCase<"b4e", 1>,
  I32EnumAttrCase<"rc8", 2>, I32EnumAttrCase<"ecl", 3>,
  I32EnumAttrCase<"ecr", 4>, I32EnumAttrCase<"rc16", 5>]>;

def PTX_SetMaxNRegAction : PTX_I32Enum<"SetMaxNRegAction",
    "setmaxnreg action", [
  I32EnumAttrCase<"inc", 0>, I32EnumAttrCase<"dec", 1>]>;

def PTX_CpAsyncCache : PTX_I32Enum<"CpAsyncCache", "cp.async cache level", [
  I32EnumAttrCase<"ca", 0>, I32EnumAttrCase<"cg", 1>]>;

#endif // KAIO_DIALECT_PTX_IR_PTXBASE_TD
