// RUN: kaio-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the ptx dialect ops. The SM/ISA requirement
// and module attribute checks are in invalid-target.mlir.

//===----------------------------------------------------------------------===//
// ptx.entry
//===----------------------------------------------------------------------===//

// expected-error @+1 {{kernels return no values}}
ptx.entry @k() -> i32 {
  ptx.ret
}

// -----

// expected-error @+1 {{parameter #0 has type 'i1', which is not a PTX parameter type}}
ptx.entry @k(%p: i1) {
  ptx.ret
}

// -----

// expected-error @+1 {{pointer parameter #0 must be i64}}
ptx.entry @k(%p: i32 {ptx.ptr = f32}) {
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.ptr' of parameter #0 must be a scalar element type}}
ptx.entry @k(%p: i64 {ptx.ptr = i1}) {
  ptx.ret
}

// -----

// expected-error @+1 {{tensor map parameter #0 must be i64 (its address)}}
ptx.entry @k(%m: i32 {ptx.tensor_map}) {
  ptx.ret
}

// -----

// expected-error @+1 {{tensor map parameter #1 cannot also be a pointer or signed}}
ptx.entry @k(%n: i32, %m: i64 {ptx.tensor_map, ptx.ptr = f16}) {
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.tensor_map' of argument #0 must be a unit attribute}}
ptx.entry @k(%m: i64 {ptx.tensor_map = 1 : i32}) {
  ptx.ret
}

// -----

module attributes {ptx.target = "sm_80"} {
  // expected-error @+1 {{tensor map parameter #0 needs sm_90 or newer (target is sm_80)}}
  ptx.entry @k(%m: i64 {ptx.tensor_map}) {
    ptx.ret
  }
}

// -----

// expected-error @+1 {{'ptx.align' of parameter #0 must be a power of two}}
ptx.entry @k(%p: i64 {ptx.ptr = f32, ptx.align = 12}) {
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.align' of parameter #0 needs 'ptx.ptr'}}
ptx.entry @k(%p: i64 {ptx.align = 16}) {
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.readonly' of parameter #1 needs 'ptx.ptr'}}
ptx.entry @k(%p: i64 {ptx.ptr = f32}, %q: i64 {ptx.readonly}) {
  ptx.ret
}

// -----

// expected-error @+1 {{parameter name 'n' is used twice}}
ptx.entry @k(%a: i32 {ptx.name = "n"}, %b: i32 {ptx.name = "n"}) {
  ptx.ret
}

// -----

// expected-error @+1 {{parameter name 'k_param_1' is used twice}}
ptx.entry @k(%a: i32 {ptx.name = "k_param_1"}, %b: i32) {
  ptx.ret
}

// -----

// expected-error @+1 {{maxntid takes 1 to 3 dimensions}}
ptx.entry @k() attributes {maxntid = array<i32: 2, 2, 2, 2>} {
  ptx.ret
}

// -----

// expected-error @+1 {{reqntid takes 1 to 3 dimensions}}
ptx.entry @k() attributes {reqntid = array<i32>} {
  ptx.ret
}

// -----

// expected-error @+1 {{maxntid dimensions must be positive}}
ptx.entry @k() attributes {maxntid = array<i32: 32, 0>} {
  ptx.ret
}

// -----

// expected-error @+1 {{reqntid allows 2048 threads; a block has at most 1024}}
ptx.entry @k() attributes {reqntid = array<i32: 64, 32>} {
  ptx.ret
}

// -----

// Extents whose product overflows 64 bits (2^21 * 2^21 * 2^22 = 2^64).
// expected-error @+1 {{maxntid allows 4294967296 threads; a block has at most 1024}}
ptx.entry @k() attributes {maxntid = array<i32: 2097152, 2097152, 4194304>} {
  ptx.ret
}

// -----

// expected-error @+1 {{maxnreg must be between 16 and 255}}
ptx.entry @k() attributes {maxnreg = 8 : i32} {
  ptx.ret
}

// -----

// expected-error @+1 {{minnctapersm must be positive}}
ptx.entry @k() attributes {minnctapersm = 0 : i32} {
  ptx.ret
}

// -----

// expected-error @+1 {{reqnctapercluster dimensions must be positive}}
ptx.entry @k() attributes {reqnctapercluster = array<i32: 2, 0>} {
  ptx.ret
}

// -----

// expected-error @+1 {{reqnctapercluster takes 1 to 3 dimensions}}
ptx.entry @k() attributes {reqnctapercluster = array<i32: 1, 1, 1, 1>} {
  ptx.ret
}

// -----

// expected-error @+1 {{reqnctapercluster asks for 16 blocks; a kernel's cluster has at most 8 (the portable size)}}
ptx.entry @k() attributes {reqnctapercluster = array<i32: 4, 4>} {
  ptx.ret
}

// -----

module attributes {ptx.target = "sm_80"} {
  // expected-error @+1 {{reqnctapercluster needs sm_90 or newer (target is sm_80)}}
  ptx.entry @k() attributes {reqnctapercluster = array<i32: 2>} {
    ptx.ret
  }
}

// -----

// expected-error @+1 {{dynamic_smem must be between 1 and 232448 bytes}}
ptx.entry @k() attributes {dynamic_smem = 0 : i64} {
  ptx.ret
}

// -----

module attributes {ptx.target = "sm_86"} {
  // expected-error @+1 {{needs 110000 bytes of dynamic shared memory; sm_86 allows at most 101376 per block}}
  ptx.entry @k() attributes {dynamic_smem = 110000 : i64} {
    ptx.ret
  }
}

// -----

// expected-error @+1 {{kernel must have a body}}
ptx.entry @k(%a: i32)

// -----

// expected-error @+1 {{block argument of type 'i8' is not a PTX register type}}
ptx.entry @k() {
  ptx.ret
^bb1(%x: i8):
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// entry argument attributes
//===----------------------------------------------------------------------===//

// expected-error @+1 {{unknown ptx argument attribute 'ptx.restrict'}}
ptx.entry @k(%p: i64 {ptx.restrict}) {
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.name' of argument #0 must be a PTX identifier string}}
ptx.entry @k(%a: i32 {ptx.name = "1st"}) {
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.name' of argument #0 must be a PTX identifier string}}
ptx.entry @k(%a: i32 {ptx.name = 1 : i32}) {
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.ptr' of argument #0 must be a type}}
ptx.entry @k(%p: i64 {ptx.ptr = "f32"}) {
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.readonly' of argument #0 must be a unit attribute}}
ptx.entry @k(%p: i64 {ptx.ptr = f32, ptx.readonly = true}) {
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.align' of argument #0 must be an integer}}
ptx.entry @k(%p: i64 {ptx.ptr = f32, ptx.align = "16"}) {
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// ptx.var and ptx.addressof
//===----------------------------------------------------------------------===//

// expected-error @+1 {{module variables live in .shared, .global or .const}}
ptx.var local @v : f32 [4]

// -----

// expected-error @+1 {{element type .pred cannot be stored in memory}}
ptx.var shared @v : pred [4]

// -----

// expected-error @+1 {{element type .f16x2 cannot be stored in memory}}
ptx.var shared @v : f16x2 [4]

// -----

// expected-error @+1 {{only .shared arrays can be extern (dynamic)}}
ptx.var global @v : b8 extern

// -----

// expected-error @+1 {{extern shared arrays have no static size}}
ptx.var shared @v : b8 [16] extern

// -----

// expected-error @+1 {{array needs a positive element count}}
ptx.var shared @v : f32 [0]

// -----

// expected-error @+1 {{array needs a positive element count}}
ptx.var global @v : f32

// -----

// expected-error @+1 {{alignment must be a power of two}}
ptx.var shared @v : f32 [4] align 6

// -----

ptx.entry @k() {
  // expected-error @+1 {{'missing' does not name a ptx.var}}
  %0 = ptx.addressof @missing : i64
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{'k' does not name a ptx.var}}
  %0 = ptx.addressof @k : i64
  ptx.ret
}

// -----

ptx.var global @g : f32 [4]
ptx.entry @k() {
  // expected-error @+1 {{32-bit addresses exist only for .shared variables}}
  %0 = ptx.addressof @g : i32
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// moves and constants
//===----------------------------------------------------------------------===//

ptx.entry @k() {
  // expected-error @+1 {{value must be a scalar integer or float of a PTX register type}}
  %0 = ptx.constant dense<1.0> : vector<2xf16>
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{value and result types differ}}
  %0 = "ptx.constant"() <{value = 1 : i32}> : () -> i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{does not support type .u8; expected one of .pred .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64}}
  %0 = ptx.mov u8 %a : i16 -> i16
  ptx.ret
}

// -----

ptx.entry @k(%a: vector<2xf16>) {
  // expected-error @+1 {{does not support type .f16x2}}
  %0 = ptx.mov f16x2 %a : vector<2xf16> -> vector<2xf16>
  ptx.ret
}

// -----

ptx.entry @k(%a: i64) {
  // expected-error @+1 {{source of type 'i64' is not a valid register for .b32}}
  %0 = ptx.mov b32 %a : i64 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{result of type 'f64' is not a valid register for .b32}}
  %0 = ptx.mov b32 %a : i32 -> f64
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{pack/unpack use .b32 or .b64}}
  %0 = ptx.pack b16 %a, %a : i16, i16 -> i16
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{packed register of type 'i64' is not a valid register for .b32}}
  %0 = ptx.pack b32 %a, %a : i16, i16 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{expected 2 or 4 parts}}
  %0 = ptx.pack b64 %a, %a, %a : i16, i16, i16 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i16, %b: i32) {
  // expected-error @+1 {{parts must be registers of one width}}
  %0 = ptx.pack b64 %a, %b : i16, i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%x: i32) {
  // expected-error @+1 {{parts must be registers of one width}}
  %0:2 = ptx.unpack b32 %x : i32 -> i1, i1
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{parts hold 32 bits, but .b64 has 64}}
  %0 = ptx.pack b64 %a, %a : i16, i16 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i64) {
  // expected-error @+1 {{parts hold 128 bits, but .b64 has 64}}
  %0:4 = ptx.unpack b64 %a : i64 -> i32, i32, i32, i32
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{%tid.x is 32-bit}}
  %0 = ptx.sreg tid.x : i64
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{%clock64 is 64-bit}}
  %0 = ptx.sreg clock64 : i32
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// arithmetic
//===----------------------------------------------------------------------===//

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .b32; expected one of .s16 .u16 .s32 .u32 .s64 .u64 .f16 .f16x2 .bf16 .bf16x2 .f32 .f64}}
  %0 = ptx.add b32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %f: f32) {
  // expected-error @+1 {{operand #1 of type 'f32' is not a valid register for .s32}}
  %0 = ptx.add s32 %a, %f : (i32, f32) -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{result of type 'i64' is not a valid register for .s32}}
  %0 = ptx.sub s32 %a, %a : (i32, i32) -> i64
  ptx.ret
}

// -----

ptx.entry @k(%f: f32, %h: vector<2xf16>) {
  // expected-error @+1 {{operand #0 of type 'f32' is not a valid register for .f16x2}}
  %1 = ptx.add f16x2 %f, %h : (f32, vector<2xf16>) -> vector<2xf16>
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{rounding modifier requires a float type}}
  %0 = ptx.add rn s32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{rounding .rni is not valid here; expected .rn, .rz, .rm or .rp}}
  %0 = ptx.add rni f32 %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%h: f16) {
  // expected-error @+1 {{half-precision arithmetic only rounds .rn}}
  %0 = ptx.sub rz f16 %h, %h : f16
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{.ftz requires .f32, .f16 or .f16x2}}
  %0 = ptx.add rn ftz f64 %d, %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.sat requires .s32, .f32, .f16 or .f16x2}}
  %0 = ptx.add sat u32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{.lo/.hi/.wide apply to integer types only}}
  %0 = ptx.mul lo rn f32 %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%h: f16) {
  // expected-error @+1 {{mad has no half-precision form; use fma}}
  %0 = ptx.mad rn f16 %h, %h, %h : f16
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{float mad needs a rounding modifier}}
  %0 = ptx.mad f32 %f, %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{integer multiply needs .lo, .hi or .wide}}
  %0 = ptx.mul s32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{rounding and .ftz apply to float types only}}
  %0 = ptx.mul lo rn s32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.sat is only valid on mad.hi.s32}}
  %0 = ptx.mad lo sat s32 %a, %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.sat is only valid on mad.hi.s32}}
  %0 = ptx.mul hi sat s32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i64) {
  // expected-error @+1 {{.wide needs a 16- or 32-bit type}}
  %0 = ptx.mul wide s64 %a, %a : i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.wide produces a 64-bit integer, got 'i32'}}
  %0 = ptx.mul wide u32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %d: f64) {
  // expected-error @+1 {{.wide produces a 64-bit integer, got 'f64'}}
  %0 = ptx.mad wide u32 %a, %a, %d : (i32, i32, f64) -> i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %w: i64) {
  // expected-error @+1 {{operand of type 'i64' is not a valid register for .u32}}
  %0 = ptx.mul wide u32 %a, %w : (i32, i64) -> i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %w: i64) {
  // expected-error @+1 {{addend of type 'i64' is not a valid register for .u32}}
  %0 = ptx.mad lo u32 %a, %a, %w : (i32, i32, i64) -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .s32; expected one of .f16 .f16x2 .bf16 .bf16x2 .f32 .f64}}
  %0 = ptx.fma rn s32 %a, %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{fma needs a rounding modifier}}
  %0 = ptx.fma f32 %f, %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%h: f16) {
  // expected-error @+1 {{does not support type .f16; expected one of .s16 .u16 .s32 .u32 .s64 .u64 .f32 .f64}}
  %0 = ptx.div rn f16 %h, %h : f16
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{integer division takes no modifiers}}
  %0 = ptx.div approx s32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{float division needs exactly one of a rounding modifier, .approx or .full}}
  %0 = ptx.div f32 %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{float division needs exactly one of a rounding modifier, .approx or .full}}
  %0 = ptx.div rn approx f32 %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{division rounds .rn, .rz, .rm or .rp}}
  %0 = ptx.div rzi f32 %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{.approx, .full and .ftz apply to .f32 only}}
  %0 = ptx.div approx f64 %d, %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{.approx, .full and .ftz apply to .f32 only}}
  %0 = ptx.div rn ftz f64 %d, %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{does not support type .f32; expected one of .s16 .u16 .s32 .u32 .s64 .u64}}
  %0 = ptx.rem f32 %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.ftz requires .f32, .f16 or .f16x2}}
  %0 = ptx.min ftz s32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{.NaN requires a float type other than .f64}}
  %0 = ptx.max NaN f64 %d, %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.NaN requires a float type other than .f64}}
  %0 = ptx.max NaN u32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .u32; expected one of .s16 .s32 .s64 .f16 .f16x2 .bf16 .bf16x2 .f32 .f64}}
  %0 = ptx.abs u32 %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%h: bf16) {
  // expected-error @+1 {{.ftz requires .f32, .f16 or .f16x2}}
  %0 = ptx.neg ftz bf16 %h : bf16
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .s32; expected one of .pred .b16 .b32 .b64}}
  %0 = ptx.and s32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{operand #0 of type 'i32' is not a valid register for .pred}}
  %0 = ptx.or pred %a, %a : (i32, i32) -> i1
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{does not support type .b8; expected one of .pred .b16 .b32 .b64}}
  %0 = ptx.xor b8 %a, %a : i16
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{result of type 'i64' is not a valid register for .b32}}
  %0 = ptx.not b32 %a : (i32) -> i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .u32; expected one of .b16 .b32 .b64}}
  %0 = ptx.shl u32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32, %a: i32) {
  // expected-error @+1 {{does not support type .f32; expected one of .b16 .b32 .b64 .s16 .u16 .s32 .u32 .s64 .u64}}
  %0 = ptx.shr f32 %f, %a : (f32, i32) -> f32
  ptx.ret
}

// -----

ptx.entry @k(%w: i64) {
  // expected-error @+1 {{shift amount must be an i32 register, got 'i64'}}
  %0 = ptx.shl b64 %w, %w : i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{operand of type 'i32' is not a valid register for .b64}}
  %0 = ptx.shr b64 %a, %a : (i32, i32) -> i64
  ptx.ret
}

// -----

ptx.entry @k(%w: i64) {
  // expected-error @+1 {{result must be an i32 register, got 'i64'}}
  %0 = ptx.popc b64 %w : i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{does not support type .b16; expected one of .b32 .b64}}
  %0 = ptx.clz b16 %a : (i16) -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{does not support type .b16; expected one of .b32 .b64}}
  %0 = ptx.brev b16 %a : i16
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .b32; expected one of .u32 .u64 .s32 .s64}}
  %0 = ptx.bfe b32 %a, %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%w: i64, %a: i32) {
  // expected-error @+1 {{position must be an i32 register, got 'i64'}}
  %0 = ptx.bfe u64 %w, %w, %a : (i64, i64, i32) -> i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %s: i16) {
  // expected-error @+1 {{length must be an i32 register, got 'i16'}}
  %0 = ptx.bfe s32 %a, %a, %s : (i32, i32, i16) -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .u32; expected one of .b32 .b64}}
  %0 = ptx.bfi u32 %a, %a, %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %w: i64) {
  // expected-error @+1 {{length must be an i32 register, got 'i64'}}
  %0 = ptx.bfi b32 %a, %a, %a, %w : (i32, i32, i32, i64) -> i32
  ptx.ret
}

// -----

ptx.entry @k(%w: i64) {
  // expected-error @+1 {{does not support type .b64; expected one of .b32}}
  %0 = ptx.prmt b64 %w, %w, %w : i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{lookup table must be between 0 and 255}}
  %0 = ptx.lop3 b32 %a, %a, %a, 256 : i32
  ptx.ret
}

// -----

ptx.entry @k(%h: f16, %p: i16) {
  %c = ptx.setp eq b16 %p, %p : i16
  // expected-error @+1 {{does not support type .f16}}
  %0 = ptx.selp f16 %h, %h, %c : f16
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %w: i64) {
  %c = ptx.setp eq s32 %a, %a : i32
  // expected-error @+1 {{operand of type 'i64' is not a valid register for .s32}}
  %0 = ptx.selp s32 %a, %w, %c : (i32, i64) -> i32
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// setp
//===----------------------------------------------------------------------===//

ptx.entry @k(%a: i32) {
  %p = ptx.setp eq s32 %a, %a : i32
  // expected-error @+1 {{does not support type .pred}}
  %0 = ptx.setp eq pred %p, %p : i1
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{operand of type 'f32' is not a valid register for .s64}}
  %0 = ptx.setp eq s64 %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %f: f32) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs} have same type}}
  %0 = "ptx.setp"(%a, %f) <{cmp = 0 : i32, type = 3 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (i32, f32) -> i1
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{bit types compare only with eq and ne}}
  %0 = ptx.setp lt b32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.lo compares unsigned integer types only}}
  %0 = ptx.setp lo s32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{.hs compares unsigned integer types only}}
  %0 = ptx.setp hs f32 %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.equ compares float types only}}
  %0 = ptx.setp equ s32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.nan compares float types only}}
  %0 = ptx.setp nan u32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{.ftz requires .f32 or .f16}}
  %0 = ptx.setp lt ftz f64 %d, %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  %p = ptx.setp lt f32 %f, %f : f32
  // expected-error @+1 {{a combining operation needs a predicate operand, and the reverse}}
  %0 = ptx.setp lt f32 %f, %f, %p : f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{a combining operation needs a predicate operand, and the reverse}}
  %0 = ptx.setp lt and f32 %f, %f : f32
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// cvt
//===----------------------------------------------------------------------===//

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .b32; expected one of .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f16 .bf16 .tf32 .f32 .f64}}
  %0 = ptx.cvt b32 s32 %a : i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: vector<2xf16>) {
  // expected-error @+1 {{does not support type .f16x2}}
  %0 = ptx.cvt f32 f16x2 %a : vector<2xf16> -> f32
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{source of type 'i16' is not a valid register for .u32}}
  %0 = ptx.cvt u64 u32 %a : i16 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{result of type 'f32' is not a valid register for .f64}}
  %0 = ptx.cvt f64 f32 %f : f32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{tf32 conversion is cvt.rna.tf32.f32 (or .rn/.rz on sm_90)}}
  %0 = ptx.cvt rm tf32 f32 %f : f32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{tf32 conversion is cvt.rna.tf32.f32 (or .rn/.rz on sm_90)}}
  %0 = ptx.cvt rna tf32 f64 %d : f64 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{tf32 conversion takes no .ftz or .sat}}
  %0 = ptx.cvt rna ftz tf32 f32 %f : f32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{.relu tf32 conversion rounds .rn or .rz}}
  %0 = ptx.cvt rna relu tf32 f32 %f : f32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{tf32 is only a conversion destination}}
  %0 = ptx.cvt f32 tf32 %a : i32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{narrowing float conversion needs .rn, .rz, .rm or .rp}}
  %0 = ptx.cvt f32 f64 %d : f64 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{narrowing float conversion needs .rn, .rz, .rm or .rp}}
  %0 = ptx.cvt rni f16 f32 %f : f32 -> f16
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{widening float conversion takes no rounding}}
  %0 = ptx.cvt rn f64 f32 %f : f32 -> f64
  ptx.ret
}

// -----

ptx.entry @k(%h: f16) {
  // expected-error @+1 {{f16/bf16 conversion rounds .rn, .rz, .rm or .rp}}
  %0 = ptx.cvt rzi bf16 f16 %h : f16 -> bf16
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{same-type float conversion rounds to an integral value: .rni, .rzi, .rmi or .rpi}}
  %0 = ptx.cvt rn f32 f32 %f : f32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{float-to-integer conversion needs .rni, .rzi, .rmi or .rpi}}
  %0 = ptx.cvt s32 f32 %f : f32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{integer-to-float conversion needs .rn, .rz, .rm or .rp}}
  %0 = ptx.cvt rzi f32 s32 %a : i32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{integer conversion takes no rounding}}
  %0 = ptx.cvt rn s64 s32 %a : i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%a: i16) {
  // expected-error @+1 {{.sat needs a conversion that can overflow; .s16 always fits .s32}}
  %0 = ptx.cvt sat s32 s16 %a : i16 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{.sat needs a conversion that can overflow; .u32 always fits .s64}}
  %0 = ptx.cvt sat s64 u32 %a : i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{.sat is not valid on .bf16 conversions}}
  %0 = ptx.cvt rn sat bf16 f32 %f : f32 -> bf16
  ptx.ret
}

// -----

ptx.entry @k(%h: bf16) {
  // expected-error @+1 {{.bf16 does not convert to or from 8-bit integers}}
  %0 = ptx.cvt rzi s8 bf16 %h : bf16 -> i16
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{.relu converts .f32 to .f16 or .bf16}}
  %0 = ptx.cvt rn relu f16 f64 %d : f64 -> f16
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{.relu converts .f32 to .f16 or .bf16}}
  %0 = ptx.cvt rni relu f32 f32 %f : f32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{.relu conversion rounds .rn or .rz}}
  %0 = ptx.cvt rm relu f16 f32 %f : f32 -> f16
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{.relu excludes .sat and .ftz}}
  %0 = ptx.cvt rn sat relu f16 f32 %f : f32 -> f16
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{.ftz requires an .f32 source or destination}}
  %0 = ptx.cvt rzi ftz s32 f64 %d : f64 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{does not support type .f16; expected one of .f16x2 .bf16x2}}
  %0 = ptx.cvt_pack rn f16 %f, %f : i32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{result of type 'f32' is not a valid register for .f16x2}}
  %0 = ptx.cvt_pack rn f16x2 %f, %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{packed conversion rounds .rn or .rz}}
  %0 = ptx.cvt_pack rm bf16x2 %f, %f : i32
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// special functions
//===----------------------------------------------------------------------===//

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{does not support type .f64; expected one of .f32 .f16 .f16x2 .bf16 .bf16x2}}
  %0 = ptx.ex2 approx f64 %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%h: f16) {
  // expected-error @+1 {{does not support type .f16; expected one of .f32 .f64}}
  %0 = ptx.rcp approx f16 %h : f16
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{does not support type .f64; expected one of .f32}}
  %0 = ptx.sin approx f64 %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{operand #0 of type 'f64' is not a valid register for .f32}}
  %0 = ptx.lg2 approx f32 %d : (f64) -> f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{.approx and a rounding modifier exclude each other}}
  %0 = ptx.sqrt approx rn f32 %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{cos is only available as .approx}}
  %0 = ptx.cos rn f32 %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{rsqrt is only available as .approx}}
  %0 = ptx.rsqrt f32 %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{sqrt needs .approx or an IEEE rounding modifier}}
  %0 = ptx.sqrt f32 %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{rounding must be .rn, .rz, .rm or .rp}}
  %0 = ptx.rcp rni f32 %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{.approx.f64 exists only for rcp and rsqrt}}
  %0 = ptx.sqrt approx f64 %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{rcp.approx.f64 requires .ftz}}
  %0 = ptx.rcp approx f64 %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%d: f64) {
  // expected-error @+1 {{.ftz on .f64 exists only with .approx}}
  %0 = ptx.sqrt rn ftz f64 %d : f64
  ptx.ret
}

// -----

ptx.entry @k(%f: f32) {
  // expected-error @+1 {{tanh has no .ftz}}
  %0 = ptx.tanh approx ftz f32 %f : f32
  ptx.ret
}

// -----

ptx.entry @k(%h: vector<2xf16>) {
  // expected-error @+1 {{.ftz is not valid on .f16x2}}
  %0 = ptx.ex2 approx ftz f16x2 %h : vector<2xf16>
  ptx.ret
}

// -----

ptx.entry @k(%h: bf16) {
  // expected-error @+1 {{ex2.approx.bf16 requires .ftz}}
  %0 = ptx.ex2 approx bf16 %h : bf16
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// memory
//===----------------------------------------------------------------------===//

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{32-bit addresses are valid only for .shared}}
  %0 = ptx.ld global f32 [%a] : i32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{does not support type .f16; expected one of .b8 .b16 .b32 .b64 .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f32 .f64}}
  %0 = ptx.ld global f16 [%p] : i64 -> f16
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{vector width must be 1, 2 or 4, got 3}}
  %0:3 = ptx.ld global f32 [%p] : i64 -> f32, f32, f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{vector width must be 1, 2 or 4, got 0}}
  "ptx.ld"(%p) <{space = 1 : i32, type = 18 : i32, offset = 0 : i64}> : (i64) -> ()
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %d: f64) {
  // expected-error @+1 {{.v4.f64 exceeds 128 bits}}
  ptx.st global f64 [%p], %d, %d, %d, %d : i64, f64, f64, f64, f64
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32, %f: f32) {
  // expected-error @+1 {{vector elements must share one register type}}
  ptx.st global b32 [%p], %a, %f : i64, i32, f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{value of type 'i32' is not a valid register for .f64}}
  %0 = ptx.ld global f64 [%p] : i64 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %f: f32) {
  // expected-error @+1 {{value of type 'f32' is not a valid register for .u16}}
  ptx.st global u16 [%p], %f : i64, f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{.volatile applies to generic, global and shared accesses}}
  %0 = ptx.ld local volatile f32 [%p] : i64 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%s: i32) {
  // expected-error @+1 {{.nc loads read .global memory only}}
  %0 = ptx.ld shared nc f32 [%s] : i32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{.nc and .volatile exclude each other}}
  %0 = ptx.ld global nc volatile f32 [%p] : i64 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{ld.global.nc takes .ca, .cg or .cs, not .lu}}
  %0 = ptx.ld global nc lu f32 [%p] : i64 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{.wb is a store cache operator}}
  %0 = ptx.ld global wb f32 [%p] : i64 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{.volatile takes no cache operator}}
  %0 = ptx.ld global volatile cg f32 [%p] : i64 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %f: f32) {
  // expected-error @+1 {{cannot store to .const}}
  ptx.st const f32 [%p], %f : i64, f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %f: f32) {
  // expected-error @+1 {{cannot store to .param}}
  ptx.st param f32 [%p], %f : i64, f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %f: f32) {
  // expected-error @+1 {{.cv is a load cache operator}}
  ptx.st global cv f32 [%p], %f : i64, f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %f: f32) {
  // expected-error @+1 {{.volatile takes no cache operator}}
  ptx.st global volatile wt f32 [%p], %f : i64, f32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %f: f32) {
  // expected-error @+1 {{32-bit addresses are valid only for .shared}}
  ptx.st local f32 [%a + 4], %f : i32, f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{cvta converts to or from a named state space}}
  %0 = ptx.cvta generic %p : i64 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%s: i32) {
  // expected-error @+1 {{cvta converts 64-bit addresses}}
  %0 = ptx.cvta to shared %s : i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{cvta converts 64-bit addresses}}
  %0 = ptx.cvta to shared %p : i64 -> i32
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// atomics
//===----------------------------------------------------------------------===//

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{atomics operate on generic, .global, .shared or .shared::cluster memory}}
  %0 = ptx.atom local add u32 [%p], %a : i64, i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{32-bit addresses are valid only for .shared}}
  %0 = ptx.atom global add u32 [%a], %a : i32, i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %w: i64) {
  // expected-error @+1 {{does not support type .s64; expected one of .u32 .s32 .u64 .f32 .f64 .f16 .f16x2 .bf16 .bf16x2}}
  %0 = ptx.atom global add s64 [%p], %w : i64, i64 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %f: f32) {
  // expected-error @+1 {{does not support type .f32; expected one of .u32 .s32 .u64 .s64}}
  %0 = ptx.atom global min f32 [%p], %f : i64, f32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{does not support type .s32; expected one of .u32}}
  %0 = ptx.atom global inc s32 [%p], %a : i64, i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{does not support type .u32; expected one of .b32 .b64}}
  %0 = ptx.atom global xor u32 [%p], %a : i64, i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{does not support type .u32; expected one of .b32 .b64}}
  %0 = ptx.atom global exch u32 [%p], %a : i64, i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %f: f32) {
  // expected-error @+1 {{does not support type .f32; expected one of .b16 .b32 .b64}}
  %0 = ptx.atom global cas f32 [%p], %f, %f : i64, f32, f32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{.cas takes 2 value operands}}
  %0 = ptx.atom global cas b32 [%p], %a : i64, i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{.add takes 1 value operand}}
  %0 = ptx.atom global add u32 [%p], %a, %a : i64, i32, i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64) {
  // expected-error @+1 {{value of type 'i64' is not a valid register for .u32}}
  %0 = ptx.atom global add u32 [%p], %p : i64, i64 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{result of type 'f32' is not a valid register for .u32}}
  %0 = ptx.atom global add u32 [%p], %a : i64, i32 -> f32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{atomics take .relaxed, .acquire, .release or .acq_rel}}
  %0 = ptx.atom global sc gpu add u32 [%p], %a : i64, i32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{red has no .cas or .exch; use atom}}
  ptx.red global exch b32 [%p], %a : i64, i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{red takes .relaxed or .release}}
  ptx.red global acquire gpu add u32 [%p], %a : i64, i32
  ptx.ret
}

// -----

ptx.entry @k(%p: i64, %a: i32) {
  // expected-error @+1 {{does not support type .b32; expected one of .u32 .s32 .u64 .s64}}
  ptx.red shared max b32 [%p], %a : i64, i32
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{fence semantics are .sc or .acq_rel}}
  ptx.fence relaxed gpu
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// synchronisation and warp-level ops
//===----------------------------------------------------------------------===//

ptx.entry @k() {
  // expected-error @+1 {{barrier id must be between 0 and 15}}
  ptx.bar_sync 16
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{bar.arrive needs a thread count}}
  ptx.bar_arrive 1
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{thread count must be a positive multiple of 32, at most 1024}}
  ptx.bar_sync 1, 48
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{thread count must be a positive multiple of 32, at most 1024}}
  ptx.barrier_sync 1, 0
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{thread count must be a positive multiple of 32, at most 1024}}
  ptx.bar_arrive 2, 2048
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %f: f32) {
  // expected-error @+1 {{shuffled value and result must have the same type}}
  %0, %v = ptx.shfl_sync idx %f, %a, %a, %a : f32 -> i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  %p = ptx.setp eq s32 %a, %a : i32
  // expected-error @+1 {{vote.ballot yields an i32 mask}}
  %0 = ptx.vote_sync ballot %p, %a : i1
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  %p = ptx.setp eq s32 %a, %a : i32
  // expected-error @+1 {{vote.all/any/uni yield an i1 predicate}}
  %0 = ptx.vote_sync any %p, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .u32; expected one of .b32 .b64}}
  %0 = ptx.match_sync any u32 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{value of type 'i32' is not a valid register for .b64}}
  %0 = ptx.match_sync all b64 %a, %a : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .b32; expected one of .u32 .s32}}
  %0 = ptx.redux_sync max b32 %a, %a
  ptx.ret
}

// -----

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{does not support type .u32; expected one of .b32}}
  %0 = ptx.redux_sync or u32 %a, %a
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// tensor cores and async copies
//===----------------------------------------------------------------------===//

ptx.entry @k(%r: i32, %f: f32) {
  // expected-error @+1 {{m16n8 mma.sync takes A row-major and B column-major}}
  %0:4 = ptx.mma_sync m16n8k16 col col f32 f16 f16 f32 {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
  ptx.ret
}

// -----

ptx.entry @k(%r: i32, %f: f32) {
  // expected-error @+1 {{accumulator types of C and D must match}}
  %0:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f16 {%r, %r, %r, %r}, {%r, %r}, {%r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32) -> f32, f32, f32, f32
  ptx.ret
}

// -----

ptx.entry @k(%r: i32) {
  // expected-error @+1 {{no mma.sync.m16n8k8 with D/C .s32, A .s8, B .s8}}
  %0:4 = ptx.mma_sync m16n8k8 row col s32 s8 s8 s32 {%r}, {%r}, {%r, %r, %r, %r} : (i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
  ptx.ret
}

// -----

ptx.entry @k(%r: i32, %f: f32) {
  // expected-error @+1 {{no mma.sync.m16n8k16 with D/C .f32, A .f16, B .bf16}}
  %0:4 = ptx.mma_sync m16n8k16 row col f32 f16 bf16 f32 {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
  ptx.ret
}

// -----

ptx.entry @k(%r: i32, %f: f32) {
  // expected-error @+1 {{operand A takes 4 registers per thread, got 2}}
  %0:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
  ptx.ret
}

// -----

ptx.entry @k(%r: i32, %f: f32) {
  // expected-error @+1 {{operand D takes 4 registers per thread, got 2}}
  %0:2 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32
  ptx.ret
}

// -----

ptx.entry @k(%r: i32, %f: f32) {
  // expected-error @+1 {{operand B register of type 'f32' does not hold .f16}}
  %0:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%r, %r, %r, %r}, {%f, %f}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (f32, f32), (f32, f32, f32, f32) -> f32, f32, f32, f32
  ptx.ret
}

// -----

ptx.entry @k(%r: i32, %f: f32) {
  // expected-error @+1 {{operand C register of type 'f32' does not hold .s32}}
  %0:4 = ptx.mma_sync m16n8k32 row col s32 s8 s8 s32 {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> i32, i32, i32, i32
  ptx.ret
}

// -----

ptx.entry @k(%r: i32, %f: f32) {
  // expected-error @+1 {{.satfinite applies to integer mma only}}
  %0:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 satfinite {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
  ptx.ret
}

// -----

ptx.entry @k(%s: i32) {
  // expected-error @+1 {{ldmatrix loads 1, 2 or 4 matrices, got 3}}
  %0:3 = ptx.ldmatrix [%s] : i32 -> i32, i32, i32
  ptx.ret
}

// -----

ptx.entry @k(%s: i32) {
  // expected-error @+1 {{stmatrix stores 1, 2 or 4 matrices, got 8}}
  ptx.stmatrix [%s], %s, %s, %s, %s, %s, %s, %s, %s : i32, i32, i32, i32, i32, i32, i32, i32, i32
  ptx.ret
}

// -----

ptx.entry @k(%s: i32, %g: i64) {
  // expected-error @+1 {{cp.async copies 4, 8 or 16 bytes}}
  ptx.cp_async ca 2 [%s], [%g] : i32
  ptx.ret
}

// -----

ptx.entry @k(%s: i32, %g: i64) {
  // expected-error @+1 {{cp.async.cg copies 16 bytes}}
  ptx.cp_async cg 8 [%s], [%g] : i32
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{group count must be non-negative}}
  ptx.cp_async_wait_group -1
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// custom syntax
//===----------------------------------------------------------------------===//

ptx.entry @k(%a: i32) {
  // expected-error @+1 {{expected 2 operand types, got 1}}
  %0 = ptx.add s32 %a, %a : (i32) -> i32
  ptx.ret
}

// -----

// expected-error @+1 {{'ptx.signed' of argument #0 marks integer parameters only}}
ptx.entry @k(%a: f32 {ptx.signed}) {
  ptx.ret
}

// -----

//===----------------------------------------------------------------------===//
// Hopper: mbarrier, proxy fences, setmaxnreg
//===----------------------------------------------------------------------===//

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{memory order and scope come together}}
  %s = ptx.mbarrier_arrive release shared [%b] : i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{memory order and scope come together}}
  %s = ptx.mbarrier_arrive cta shared [%b] : i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{does not take .acquire; expected .release .relaxed}}
  %s = ptx.mbarrier_arrive acquire cta shared [%b] : i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{scope must be .cta or .cluster}}
  %s = ptx.mbarrier_arrive release gpu shared [%b] : i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{the mbarrier is in .shared or .shared::cluster memory}}
  %s = ptx.mbarrier_arrive global [%b] : i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{.expect_tx needs a transaction byte count}}
  %s = ptx.mbarrier_arrive expect_tx shared [%b] : i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{an arrive on a .shared::cluster barrier returns no state}}
  %s = ptx.mbarrier_arrive shared_cluster [%b] : i32 -> i64
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{does not take .release; expected .relaxed}}
  ptx.mbarrier_expect_tx release cta shared [%b], %n : i32
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{the mbarrier is in .shared or .shared::cluster memory}}
  ptx.mbarrier_expect_tx local [%b], %n : i32
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %s: i64) {
  // expected-error @+1 {{the phase parity is an i32 register}}
  %w = ptx.mbarrier_try_wait parity [%b], %s : i32, i64
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %n: i32) {
  // expected-error @+1 {{the phase state is an i64 register}}
  %w = ptx.mbarrier_try_wait [%b], %n : i32, i32
  ptx.ret
}

// -----

ptx.entry @k(%b: i32, %s: i64) {
  // expected-error @+1 {{does not take .release; expected .acquire .relaxed}}
  %w = ptx.mbarrier_try_wait release cta [%b], %s : i32, i64
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{fence.proxy.async takes .shared, .shared::cluster or .global}}
  ptx.fence_proxy_async local
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{register count must be a multiple of 8 in [24, 256]}}
  ptx.setmaxnreg dec 16
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{register count must be a multiple of 8 in [24, 256]}}
  ptx.setmaxnreg inc 100
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{register count must be a multiple of 8 in [24, 256]}}
  ptx.setmaxnreg inc 264
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{%is_explicit_cluster is a predicate}}
  %0 = ptx.sreg is_explicit_cluster : i32
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{%cluster_ctarank is 32-bit}}
  %0 = ptx.sreg cluster_ctarank : i64
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{barrier.cluster.arrive takes .release or .relaxed}}
  ptx.barrier_cluster_arrive acquire
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{barrier.cluster.wait takes .acquire}}
  ptx.barrier_cluster_wait release aligned
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %r: i32) {
  // expected-error @+1 {{mapa maps generic or .shared::cluster addresses}}
  %0 = ptx.mapa shared %a, %r : i32
  ptx.ret
}

// -----

ptx.entry @k(%a: i32, %r: i32) {
  // expected-error @+1 {{generic addresses are 64-bit}}
  %0 = ptx.mapa generic %a, %r : i32
  ptx.ret
}

// -----

ptx.entry @k(%s: i32, %g: i64) {
  %n = ptx.constant 100 : i32
  // expected-error @+1 {{copies a positive multiple of 16 bytes, got 100}}
  ptx.cp_async_bulk_load [%s], [%g], %n, [%s] : i32, i32
  ptx.ret
}

// -----

ptx.entry @k(%s: i32, %g: i64) {
  %n = ptx.constant 0 : i32
  // expected-error @+1 {{copies a positive multiple of 16 bytes, got 0}}
  ptx.cp_async_bulk_store [%g], [%s], %n : i32
  ptx.ret
}

// -----

ptx.entry @k(%s: i32, %g: i32, %n: i32) {
  // expected-error @+1 {{operand #1 must be 64-bit signless integer, but got 'i32'}}
  "ptx.cp_async_bulk_load"(%s, %g, %n, %s) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0>}> : (i32, i32, i32, i32) -> ()
  ptx.ret
}

// -----

ptx.entry @k(%s: i32, %g: i64, %n: i32, %m: i32) {
  // expected-error @+1 {{operand #4 must be 16-bit signless integer, but got 'i32'}}
  "ptx.cp_async_bulk_load"(%s, %g, %n, %s, %m) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>}> : (i32, i64, i32, i32, i32) -> ()
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{group count must be non-negative}}
  ptx.cp_async_bulk_wait_group -1
  ptx.ret
}

// -----

ptx.entry @k(%s: i32, %map: i64, %x: i32) {
  // expected-error @+1 {{a 2d tensor copy takes 2 coordinates, got 1}}
  ptx.cp_async_bulk_tensor_load 2d [%s], [%map, {%x}], [%s] : i32, i32
  ptx.ret
}

// -----

ptx.entry @k(%s: i32, %map: i64, %x: i32) {
  // expected-error @+1 {{a 1d tensor copy takes 1 coordinates, got 2}}
  ptx.cp_async_bulk_tensor_store 1d [%map, {%x, %x}], [%s] : i32
  ptx.ret
}

// -----

ptx.entry @k(%map: i64, %x: i32) {
  // expected-error @+1 {{a 3d tensor copy takes 3 coordinates, got 2}}
  ptx.cp_async_bulk_prefetch_tensor 3d [%map, {%x, %x}]
  ptx.ret
}

// -----

ptx.entry @k(%map: i64, %x: i32) {
  // expected-error @+1 {{attribute 'dim' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1 whose maximum value is 5}}
  ptx.cp_async_bulk_prefetch_tensor 6d [%map, {%x, %x, %x, %x, %x, %x}]
  ptx.ret
}

// -----

ptx.entry @k(%s: i32, %map: i32, %x: i32) {
  // expected-error @+1 {{operand #0 must be 64-bit signless integer, but got 'i32'}}
  "ptx.cp_async_bulk_tensor_store"(%map, %x, %s) <{dim = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (i32, i32, i32) -> ()
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{no wgmma.mma_async with D .f16, A .bf16, B .bf16}}
  %d:2 = ptx.wgmma_mma_async m64n8k16 f16 bf16 bf16 {%a, %a}, %ad, %bd : i32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{A .f16 takes K = 16, got 8}}
  %d:4 = ptx.wgmma_mma_async m64n8k8 f32 f16 f16 {%c, %c, %c, %c}, %ad, %bd : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{N = 12 is not legal for .f16; expected a multiple of 8 up to 256}}
  %d:6 = ptx.wgmma_mma_async m64n12k16 f32 f16 f16 {%c, %c, %c, %c, %c, %c}, %ad, %bd : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{N = 40 is not legal for .s8; expected a multiple of 8 up to 24, or a multiple of 16 up to 256}}
  %d:20 = ptx.wgmma_mma_async m64n40k32 s32 s8 s8 {%a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a}, %ad, %bd : i32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{takes 4 accumulator registers per thread, got 3}}
  %d:3 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%c, %c, %c}, %ad, %bd : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{takes 2 accumulator registers per thread, got 4}}
  %d:4 = ptx.wgmma_mma_async m64n8k16 f16 f16 f16 {%a, %a, %a, %a}, %ad, %bd : i32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{accumulator register of type 'f32' does not hold .f16}}
  %d:2 = ptx.wgmma_mma_async m64n8k16 f16 f16 f16 {%c, %c}, %ad, %bd : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{accumulator registers must have one type}}
  %d:4 = "ptx.wgmma_mma_async"(%c, %c, %c, %a, %ad, %bd) <{a_type = 13 : i32, b_type = 13 : i32, d_type = 18 : i32, k = 16 : i32, n = 8 : i32, operandSegmentSizes = array<i32: 4, 0, 1, 1, 0, 0>}> : (f32, f32, f32, i32, i64, i64) -> (f32, f32, f32, i32)
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{results must match the accumulators they update}}
  %d:4 = "ptx.wgmma_mma_async"(%c, %c, %c, %c, %ad, %bd) <{a_type = 13 : i32, b_type = 13 : i32, d_type = 18 : i32, k = 16 : i32, n = 8 : i32, operandSegmentSizes = array<i32: 4, 0, 1, 1, 0, 0>}> : (f32, f32, f32, f32, i64, i64) -> (i32, i32, i32, i32)
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{A is either a register fragment or a descriptor}}
  %d:4 = "ptx.wgmma_mma_async"(%c, %c, %c, %c, %a, %a, %a, %a, %ad, %bd) <{a_type = 13 : i32, b_type = 13 : i32, d_type = 18 : i32, k = 16 : i32, n = 8 : i32, operandSegmentSizes = array<i32: 4, 4, 1, 1, 0, 0>}> : (f32, f32, f32, f32, i32, i32, i32, i32, i64, i64) -> (f32, f32, f32, f32)
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{takes 4 A registers per thread, got 2}}
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%c, %c, %c, %c}, {%a, %a}, %bd : f32, i32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{A register of type 'f32' does not hold .f16}}
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%c, %c, %c, %c}, {%c, %c, %c, %c}, %bd : f32, f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{scale-d is a predicate or an immediate, not both}}
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%c, %c, %c, %c}, %ad, %bd scale_d %p scale_d_imm 0 : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{immediate scale-d is 0 or 1}}
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%c, %c, %c, %c}, %ad, %bd scale_d_imm 2 : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{.s8 wgmma takes no imm-scale-a}}
  %d:4 = ptx.wgmma_mma_async m64n8k32 s32 s8 s8 {%a, %a, %a, %a}, %ad, %bd scale_a -1 : i32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{imm-scale-b is 1 or -1}}
  %d:4 = ptx.wgmma_mma_async m64n8k8 f32 tf32 tf32 {%c, %c, %c, %c}, %ad, %bd scale_b 2 : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{.tf32 wgmma takes no transpose}}
  %d:4 = ptx.wgmma_mma_async m64n8k8 f32 tf32 tf32 {%c, %c, %c, %c}, %ad, %bd trans_b : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{.e4m3 wgmma takes no transpose}}
  %d:4 = ptx.wgmma_mma_async m64n8k32 f32 e4m3 e5m2 {%c, %c, %c, %c}, %ad, %bd trans_a : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{imm-trans-a applies to A from a descriptor only}}
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 bf16 bf16 {%c, %c, %c, %c}, {%a, %a, %a, %a}, %bd trans_a : f32, i32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{.satfinite applies to integer wgmma only}}
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 satfinite {%c, %c, %c, %c}, %ad, %bd : f32
  ptx.ret
}

// -----

ptx.entry @k(%c: f32, %a: i32, %ad: i64, %bd: i64) {
  %p = ptx.setp eq u32 %a, %a : i32
  // expected-error @+1 {{expected a wgmma shape m64nNkK}}
  %d:4 = ptx.wgmma_mma_async m32n8k16 f32 f16 f16 {%c, %c, %c, %c}, %ad, %bd : f32
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error @+1 {{group count must be non-negative}}
  ptx.wgmma_wait_group -1
  ptx.ret
}
