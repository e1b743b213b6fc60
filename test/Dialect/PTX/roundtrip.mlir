// RUN: kaio-opt %s | kaio-opt | FileCheck %s
// RUN: kaio-opt %s --mlir-print-op-generic | kaio-opt | FileCheck %s

// Every ptx op family with its modifiers, printed and parsed back. The module
// targets sm_90a (PTX 8.6) so that every op here verifies, the
// architecture-specific Hopper ops included; kaio-translate prints this file
// as PTX that ptxas accepts for sm_90a.

// CHECK: module attributes {ptx.address_size = 64 : i64, ptx.target = "sm_90a", ptx.version = "8.6"}
module attributes {ptx.target = "sm_90a", ptx.version = "8.6", ptx.address_size = 64 : i64} {
  // CHECK: ptx.var shared @tile : f32 [256] align 16
  ptx.var shared @tile : f32 [256] align 16
  // CHECK: ptx.var shared @dyn : b8 extern align 16
  ptx.var shared @dyn : b8 extern align 16
  // CHECK: ptx.var global @table : u32 [64]
  ptx.var global @table : u32 [64]
  // CHECK: ptx.var const @coeffs : f64 [8] align 8
  ptx.var const @coeffs : f64 [8] align 8

  // Launch bounds and parameter attributes.
  // CHECK-LABEL: ptx.entry @entry_attrs(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i64 {ptx.align = 16 : i64, ptx.name = "in_ptr", ptx.ptr = f32, ptx.readonly}, %{{[a-z0-9_#]+}}: i64 {ptx.ptr = i8}, %{{[a-z0-9_#]+}}: f16, %{{[a-z0-9_#]+}}: vector<2xf16>, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: f64) attributes {maxnreg = 64 : i32, maxntid = array<i32: 128, 2>, minnctapersm = 2 : i32} {
  ptx.entry @entry_attrs(%in: i64 {ptx.align = 16 : i64, ptx.name = "in_ptr", ptx.ptr = f32, ptx.readonly}, %out: i64 {ptx.ptr = i8}, %h: f16, %hh: vector<2xf16>, %n: i32, %x: f64) attributes {maxnreg = 64 : i32, maxntid = array<i32: 128, 2>, minnctapersm = 2 : i32} {
    // CHECK: ptx.ret
    ptx.ret
  }

  // CHECK-LABEL: ptx.entry @cluster_pair(
  // CHECK-SAME: ) attributes {reqnctapercluster = array<i32: 2, 1>, reqntid = array<i32: 128>} {
  ptx.entry @cluster_pair() attributes {reqnctapercluster = array<i32: 2, 1>, reqntid = array<i32: 128>} {
    ptx.ret
  }

  // CHECK-LABEL: ptx.entry @reqntid(
  // CHECK-SAME: ) attributes {reqntid = array<i32: 32, 4, 2>} {
  ptx.entry @reqntid() attributes {reqntid = array<i32: 32, 4, 2>} {
    // CHECK: ptx.exit
    ptx.exit
  }

  // CHECK-LABEL: ptx.entry @dynamic_smem(
  // CHECK-SAME: ) attributes {dynamic_smem = 98304 : i64} {
  ptx.entry @dynamic_smem() attributes {dynamic_smem = 98304 : i64} {
    ptx.exit
  }

  // Integer and bit arithmetic: mul/mad .lo/.hi/.wide, .sat, shifts with i32
  // amounts, bit counts into i32, predicate logic.
  // CHECK-LABEL: ptx.entry @int_arith(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: i16, %{{[a-z0-9_#]+}}: i16) {
  ptx.entry @int_arith(%a: i32, %b: i32, %w: i64, %s: i16, %t: i16) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %0 = ptx.add s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add sat s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %1 = ptx.add sat s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add u64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %2 = ptx.add u64 %w, %w : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sub s16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i16
    %3 = ptx.sub s16 %s, %t : i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sub sat s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %4 = ptx.sub sat s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mul lo s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %5 = ptx.mul lo s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mul hi u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %6 = ptx.mul hi u32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mul wide s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : (i32, i32) -> i64
    %7 = ptx.mul wide s32 %a, %b : (i32, i32) -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mul wide u16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : (i16, i16) -> i32
    %8 = ptx.mul wide u16 %s, %t : (i16, i16) -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mul hi s64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %9 = ptx.mul hi s64 %w, %w : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mad lo u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %10 = ptx.mad lo u32 %a, %b, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mad hi sat s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %11 = ptx.mad hi sat s32 %a, %b, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mad wide u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : (i32, i32, i64) -> i64
    %12 = ptx.mad wide u32 %a, %b, %w : (i32, i32, i64) -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.div s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %13 = ptx.div s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.div u64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %14 = ptx.div u64 %w, %w : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rem u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %15 = ptx.rem u32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rem s64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %16 = ptx.rem s64 %w, %w : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.min s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %17 = ptx.min s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.max u16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i16
    %18 = ptx.max u16 %s, %t : i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.abs s32 %{{[a-z0-9_#]+}} : i32
    %19 = ptx.abs s32 %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.neg s64 %{{[a-z0-9_#]+}} : i64
    %20 = ptx.neg s64 %w : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.and b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %21 = ptx.and b32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.or b64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %22 = ptx.or b64 %w, %w : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.xor b16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i16
    %23 = ptx.xor b16 %s, %t : i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.not b32 %{{[a-z0-9_#]+}} : i32
    %24 = ptx.not b32 %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp eq s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %25 = ptx.setp eq s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp ne s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %26 = ptx.setp ne s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.and pred %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i1
    %27 = ptx.and pred %25, %26 : i1
    // CHECK: %{{[a-z0-9_#]+}} = ptx.or pred %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i1
    %28 = ptx.or pred %25, %26 : i1
    // CHECK: %{{[a-z0-9_#]+}} = ptx.xor pred %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i1
    %29 = ptx.xor pred %25, %26 : i1
    // CHECK: %{{[a-z0-9_#]+}} = ptx.not pred %{{[a-z0-9_#]+}} : i1
    %30 = ptx.not pred %29 : i1
    // CHECK: %{{[a-z0-9_#]+}} = ptx.shl b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %31 = ptx.shl b32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.shl b64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : (i64, i32) -> i64
    %32 = ptx.shl b64 %w, %b : (i64, i32) -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.shr s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %33 = ptx.shr s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.shr u64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : (i64, i32) -> i64
    %34 = ptx.shr u64 %w, %b : (i64, i32) -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.shr b16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : (i16, i32) -> i16
    %35 = ptx.shr b16 %s, %b : (i16, i32) -> i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.popc b32 %{{[a-z0-9_#]+}} : i32
    %36 = ptx.popc b32 %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.popc b64 %{{[a-z0-9_#]+}} : (i64) -> i32
    %37 = ptx.popc b64 %w : (i64) -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.clz b64 %{{[a-z0-9_#]+}} : (i64) -> i32
    %38 = ptx.clz b64 %w : (i64) -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.brev b32 %{{[a-z0-9_#]+}} : i32
    %39 = ptx.brev b32 %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.bfe u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %40 = ptx.bfe u32 %a, %b, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.bfe s64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : (i64, i32, i32) -> i64
    %41 = ptx.bfe s64 %w, %a, %b : (i64, i32, i32) -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.bfi b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %42 = ptx.bfi b32 %a, %b, %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.bfi b64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : (i64, i64, i32, i32) -> i64
    %43 = ptx.bfi b64 %w, %w, %a, %b : (i64, i64, i32, i32) -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.prmt b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %44 = ptx.prmt b32 %a, %b, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.prmt f4e b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %45 = ptx.prmt f4e b32 %a, %b, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.prmt b4e b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %46 = ptx.prmt b4e b32 %a, %b, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.prmt rc8 b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %47 = ptx.prmt rc8 b32 %a, %b, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.prmt ecl b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %48 = ptx.prmt ecl b32 %a, %b, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.prmt ecr b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %49 = ptx.prmt ecr b32 %a, %b, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.prmt rc16 b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %50 = ptx.prmt rc16 b32 %a, %b, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.lop3 b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, 150 : i32
    %51 = ptx.lop3 b32 %a, %b, %a, 150 : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.selp s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %52 = ptx.selp s32 %a, %b, %30 : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.selp b64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %53 = ptx.selp b64 %w, %w, %30 : i64
    // CHECK: ptx.ret
    ptx.ret
  }

  // Float arithmetic: every rounding, .ftz, .sat, div .approx/.full, min/max
  // .NaN; f16/f16x2/bf16/bf16x2 use b16/b32 registers.
  // CHECK-LABEL: ptx.entry @float_arith(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: f64, %{{[a-z0-9_#]+}}: f16, %{{[a-z0-9_#]+}}: vector<2xf16>, %{{[a-z0-9_#]+}}: bf16, %{{[a-z0-9_#]+}}: vector<2xbf16>) {
  ptx.entry @float_arith(%f: f32, %g: f32, %d: f64, %h: f16, %hh: vector<2xf16>, %bh: bf16, %bb: vector<2xbf16>) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %0 = ptx.add f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add rn f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %1 = ptx.add rn f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add rz ftz f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %2 = ptx.add rz ftz f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add rm sat f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %3 = ptx.add rm sat f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add rp ftz sat f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %4 = ptx.add rp ftz sat f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add rn f64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f64
    %5 = ptx.add rn f64 %d, %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add rn ftz sat f16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f16
    %6 = ptx.add rn ftz sat f16 %h, %h : f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add f16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : vector<2xf16>
    %7 = ptx.add f16x2 %hh, %hh : vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add rn bf16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : bf16
    %8 = ptx.add rn bf16 %bh, %bh : bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add bf16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : vector<2xbf16>
    %9 = ptx.add bf16x2 %bb, %bb : vector<2xbf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sub rn ftz f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %10 = ptx.sub rn ftz f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sub rz f64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f64
    %11 = ptx.sub rz f64 %d, %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sub sat f16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : vector<2xf16>
    %12 = ptx.sub sat f16x2 %hh, %hh : vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mul rn ftz sat f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %13 = ptx.mul rn ftz sat f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mul rm f64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f64
    %14 = ptx.mul rm f64 %d, %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mul rn bf16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : bf16
    %15 = ptx.mul rn bf16 %bh, %bh : bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mad rn f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %16 = ptx.mad rn f32 %f, %g, %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mad rz ftz sat f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %17 = ptx.mad rz ftz sat f32 %f, %g, %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mad rp f64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f64
    %18 = ptx.mad rp f64 %d, %d, %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.fma rn f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %19 = ptx.fma rn f32 %f, %g, %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.fma rm ftz sat f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %20 = ptx.fma rm ftz sat f32 %f, %g, %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.fma rn f64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f64
    %21 = ptx.fma rn f64 %d, %d, %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.fma rn ftz f16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f16
    %22 = ptx.fma rn ftz f16 %h, %h, %h : f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.fma rn sat f16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : vector<2xf16>
    %23 = ptx.fma rn sat f16x2 %hh, %hh, %hh : vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.fma rn bf16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : bf16
    %24 = ptx.fma rn bf16 %bh, %bh, %bh : bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.fma rn bf16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : vector<2xbf16>
    %25 = ptx.fma rn bf16x2 %bb, %bb, %bb : vector<2xbf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.div approx f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %26 = ptx.div approx f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.div approx ftz f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %27 = ptx.div approx ftz f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.div full f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %28 = ptx.div full f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.div full ftz f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %29 = ptx.div full ftz f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.div rn ftz f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %30 = ptx.div rn ftz f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.div rz f64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f64
    %31 = ptx.div rz f64 %d, %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.min f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %32 = ptx.min f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.min ftz NaN f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %33 = ptx.min ftz NaN f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.max NaN f16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : vector<2xf16>
    %34 = ptx.max NaN f16x2 %hh, %hh : vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.max f64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f64
    %35 = ptx.max f64 %d, %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.min NaN bf16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : bf16
    %36 = ptx.min NaN bf16 %bh, %bh : bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.max ftz f16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f16
    %37 = ptx.max ftz f16 %h, %h : f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.abs ftz f32 %{{[a-z0-9_#]+}} : f32
    %38 = ptx.abs ftz f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.abs f64 %{{[a-z0-9_#]+}} : f64
    %39 = ptx.abs f64 %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.abs f16 %{{[a-z0-9_#]+}} : f16
    %40 = ptx.abs f16 %h : f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.abs bf16x2 %{{[a-z0-9_#]+}} : vector<2xbf16>
    %41 = ptx.abs bf16x2 %bb : vector<2xbf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.neg ftz f32 %{{[a-z0-9_#]+}} : f32
    %42 = ptx.neg ftz f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.neg f16x2 %{{[a-z0-9_#]+}} : vector<2xf16>
    %43 = ptx.neg f16x2 %hh : vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.neg bf16 %{{[a-z0-9_#]+}} : bf16
    %44 = ptx.neg bf16 %bh : bf16
    // CHECK: ptx.ret
    ptx.ret
  }

  // Every comparison: signed, unsigned lo/ls/hi/hs, bit eq/ne, NaN-aware
  // equ..geu/num/nan, and the bool-combine form.
  // CHECK-LABEL: ptx.entry @setp(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: i16, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: f64, %{{[a-z0-9_#]+}}: f16, %{{[a-z0-9_#]+}}: bf16) {
  ptx.entry @setp(%a: i32, %b: i32, %w: i64, %s: i16, %f: f32, %g: f32, %d: f64, %h: f16, %bh: bf16) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp eq s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %0 = ptx.setp eq s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp ne u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %1 = ptx.setp ne u32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp lt s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %2 = ptx.setp lt s32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp le s64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %3 = ptx.setp le s64 %w, %w : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp gt s16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i16
    %4 = ptx.setp gt s16 %s, %s : i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp ge u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %5 = ptx.setp ge u32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp lo u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %6 = ptx.setp lo u32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp ls u64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %7 = ptx.setp ls u64 %w, %w : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp hi u16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i16
    %8 = ptx.setp hi u16 %s, %s : i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp hs u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %9 = ptx.setp hs u32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp eq b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %10 = ptx.setp eq b32 %a, %b : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp ne b64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %11 = ptx.setp ne b64 %w, %w : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp lt f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %12 = ptx.setp lt f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp equ f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %13 = ptx.setp equ f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp neu f64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f64
    %14 = ptx.setp neu f64 %d, %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp ltu ftz f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %15 = ptx.setp ltu ftz f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp leu f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %16 = ptx.setp leu f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp gtu f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %17 = ptx.setp gtu f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp geu f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %18 = ptx.setp geu f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp num f64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f64
    %19 = ptx.setp num f64 %d, %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp nan f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %20 = ptx.setp nan f32 %f, %g : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp gt ftz f16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f16
    %21 = ptx.setp gt ftz f16 %h, %h : f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp le bf16 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : bf16
    %22 = ptx.setp le bf16 %bh, %bh : bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp lt and f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %23 = ptx.setp lt and f32 %f, %g, %0 : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp ge or ftz f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %24 = ptx.setp ge or ftz f32 %f, %g, %1 : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp ne xor s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %25 = ptx.setp ne xor s32 %a, %b, %2 : i32
    // CHECK: ptx.ret
    ptx.ret
  }

  // Conversions: int<->float rounding, .ftz/.sat/.relu, tf32, bf16, packed pairs.
  // CHECK-LABEL: ptx.entry @cvt(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: i16, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: f64, %{{[a-z0-9_#]+}}: f16, %{{[a-z0-9_#]+}}: bf16) {
  ptx.entry @cvt(%a: i32, %w: i64, %s: i16, %f: f32, %g: f32, %d: f64, %h: f16, %bh: bf16) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rn f32 s32 %{{[a-z0-9_#]+}} : i32 -> f32
    %0 = ptx.cvt rn f32 s32 %a : i32 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rz f64 u64 %{{[a-z0-9_#]+}} : i64 -> f64
    %1 = ptx.cvt rz f64 u64 %w : i64 -> f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rm f16 s16 %{{[a-z0-9_#]+}} : i16 -> f16
    %2 = ptx.cvt rm f16 s16 %s : i16 -> f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rzi s32 f32 %{{[a-z0-9_#]+}} : f32 -> i32
    %3 = ptx.cvt rzi s32 f32 %f : f32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rni ftz sat u32 f32 %{{[a-z0-9_#]+}} : f32 -> i32
    %4 = ptx.cvt rni ftz sat u32 f32 %f : f32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rmi s64 f64 %{{[a-z0-9_#]+}} : f64 -> i64
    %5 = ptx.cvt rmi s64 f64 %d : f64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rpi u16 f16 %{{[a-z0-9_#]+}} : f16 -> i16
    %6 = ptx.cvt rpi u16 f16 %h : f16 -> i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rn f16 f32 %{{[a-z0-9_#]+}} : f32 -> f16
    %7 = ptx.cvt rn f16 f32 %f : f32 -> f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rz ftz f32 f64 %{{[a-z0-9_#]+}} : f64 -> f32
    %8 = ptx.cvt rz ftz f32 f64 %d : f64 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt f32 f16 %{{[a-z0-9_#]+}} : f16 -> f32
    %9 = ptx.cvt f32 f16 %h : f16 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt ftz f64 f32 %{{[a-z0-9_#]+}} : f32 -> f64
    %10 = ptx.cvt ftz f64 f32 %f : f32 -> f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rni f32 f32 %{{[a-z0-9_#]+}} : f32 -> f32
    %11 = ptx.cvt rni f32 f32 %f : f32 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt sat f32 f32 %{{[a-z0-9_#]+}} : f32 -> f32
    %12 = ptx.cvt sat f32 f32 %f : f32 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rn relu f16 f32 %{{[a-z0-9_#]+}} : f32 -> f16
    %13 = ptx.cvt rn relu f16 f32 %f : f32 -> f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rn bf16 f32 %{{[a-z0-9_#]+}} : f32 -> bf16
    %14 = ptx.cvt rn bf16 f32 %f : f32 -> bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rz relu bf16 f32 %{{[a-z0-9_#]+}} : f32 -> bf16
    %15 = ptx.cvt rz relu bf16 f32 %f : f32 -> bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt f32 bf16 %{{[a-z0-9_#]+}} : bf16 -> f32
    %16 = ptx.cvt f32 bf16 %bh : bf16 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rna tf32 f32 %{{[a-z0-9_#]+}} : f32 -> i32
    %17 = ptx.cvt rna tf32 f32 %f : f32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt s32 s16 %{{[a-z0-9_#]+}} : i16 -> i32
    %18 = ptx.cvt s32 s16 %s : i16 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt u16 u32 %{{[a-z0-9_#]+}} : i32 -> i16
    %19 = ptx.cvt u16 u32 %a : i32 -> i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt sat s8 s32 %{{[a-z0-9_#]+}} : i32 -> i16
    %20 = ptx.cvt sat s8 s32 %a : i32 -> i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt u64 u32 %{{[a-z0-9_#]+}} : i32 -> i64
    %21 = ptx.cvt u64 u32 %a : i32 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt s32 s8 %{{[a-z0-9_#]+}} : i32 -> i32
    %22 = ptx.cvt s32 s8 %a : i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt_pack rn f16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : vector<2xf16>
    %23 = ptx.cvt_pack rn f16x2 %f, %g : vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt_pack rz relu f16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %24 = ptx.cvt_pack rz relu f16x2 %f, %g : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt_pack rn bf16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : vector<2xbf16>
    %25 = ptx.cvt_pack rn bf16x2 %f, %g : vector<2xbf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt_pack rn relu satfinite bf16x2 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %26 = ptx.cvt_pack rn relu satfinite bf16x2 %f, %g : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rn tf32 f32 %{{[a-z0-9_#]+}} : f32 -> i32
    %27 = ptx.cvt rn tf32 f32 %f : f32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rz relu tf32 f32 %{{[a-z0-9_#]+}} : f32 -> i32
    %28 = ptx.cvt rz relu tf32 f32 %f : f32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rn bf16 f16 %{{[a-z0-9_#]+}} : f16 -> bf16
    %29 = ptx.cvt rn bf16 f16 %h : f16 -> bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt f16 bf16 %{{[a-z0-9_#]+}} : bf16 -> f16
    %30 = ptx.cvt f16 bf16 %bh : bf16 -> f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rni bf16 bf16 %{{[a-z0-9_#]+}} : bf16 -> bf16
    %31 = ptx.cvt rni bf16 bf16 %bh : bf16 -> bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt rn sat f16 f32 %{{[a-z0-9_#]+}} : f32 -> f16
    %32 = ptx.cvt rn sat f16 f32 %f : f32 -> f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt sat u32 s32 %{{[a-z0-9_#]+}} : i32 -> i32
    %33 = ptx.cvt sat u32 s32 %a : i32 -> i32
    // CHECK: ptx.ret
    ptx.ret
  }

  // Special functions: .approx forms and IEEE-rounded rcp/sqrt.
  // CHECK-LABEL: ptx.entry @special_fns(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: f64, %{{[a-z0-9_#]+}}: f16, %{{[a-z0-9_#]+}}: vector<2xf16>, %{{[a-z0-9_#]+}}: bf16, %{{[a-z0-9_#]+}}: vector<2xbf16>) {
  ptx.entry @special_fns(%f: f32, %d: f64, %h: f16, %hh: vector<2xf16>, %bh: bf16, %bb: vector<2xbf16>) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ex2 approx f32 %{{[a-z0-9_#]+}} : f32
    %0 = ptx.ex2 approx f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ex2 approx ftz f32 %{{[a-z0-9_#]+}} : f32
    %1 = ptx.ex2 approx ftz f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ex2 approx f16 %{{[a-z0-9_#]+}} : f16
    %2 = ptx.ex2 approx f16 %h : f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ex2 approx f16x2 %{{[a-z0-9_#]+}} : vector<2xf16>
    %3 = ptx.ex2 approx f16x2 %hh : vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ex2 approx ftz bf16 %{{[a-z0-9_#]+}} : bf16
    %4 = ptx.ex2 approx ftz bf16 %bh : bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ex2 approx ftz bf16x2 %{{[a-z0-9_#]+}} : vector<2xbf16>
    %5 = ptx.ex2 approx ftz bf16x2 %bb : vector<2xbf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.lg2 approx ftz f32 %{{[a-z0-9_#]+}} : f32
    %6 = ptx.lg2 approx ftz f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sin approx f32 %{{[a-z0-9_#]+}} : f32
    %7 = ptx.sin approx f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cos approx ftz f32 %{{[a-z0-9_#]+}} : f32
    %8 = ptx.cos approx ftz f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.tanh approx f32 %{{[a-z0-9_#]+}} : f32
    %9 = ptx.tanh approx f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.tanh approx f16x2 %{{[a-z0-9_#]+}} : vector<2xf16>
    %10 = ptx.tanh approx f16x2 %hh : vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.tanh approx bf16 %{{[a-z0-9_#]+}} : bf16
    %11 = ptx.tanh approx bf16 %bh : bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rcp approx ftz f32 %{{[a-z0-9_#]+}} : f32
    %12 = ptx.rcp approx ftz f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rcp rn f32 %{{[a-z0-9_#]+}} : f32
    %13 = ptx.rcp rn f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rcp rz ftz f32 %{{[a-z0-9_#]+}} : f32
    %14 = ptx.rcp rz ftz f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rcp rm f64 %{{[a-z0-9_#]+}} : f64
    %15 = ptx.rcp rm f64 %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rcp approx ftz f64 %{{[a-z0-9_#]+}} : f64
    %16 = ptx.rcp approx ftz f64 %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sqrt approx f32 %{{[a-z0-9_#]+}} : f32
    %17 = ptx.sqrt approx f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sqrt rn ftz f32 %{{[a-z0-9_#]+}} : f32
    %18 = ptx.sqrt rn ftz f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sqrt rp f64 %{{[a-z0-9_#]+}} : f64
    %19 = ptx.sqrt rp f64 %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rsqrt approx ftz f32 %{{[a-z0-9_#]+}} : f32
    %20 = ptx.rsqrt approx ftz f32 %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rsqrt approx f64 %{{[a-z0-9_#]+}} : f64
    %21 = ptx.rsqrt approx f64 %d : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.rsqrt approx ftz f64 %{{[a-z0-9_#]+}} : f64
    %22 = ptx.rsqrt approx ftz f64 %d : f64
    // CHECK: ptx.ret
    ptx.ret
  }

  // ld/st in every state space, .nc, .volatile, cache operators, vectors,
  // negative offsets; cvta to and from every named space.
  // CHECK-LABEL: ptx.entry @memory(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: f64) {
  ptx.entry @memory(%p: i64, %s: i32, %v: f32, %i: i32, %w: i64, %x: f64) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld global f32 [%{{[a-z0-9_#]+}}] : i64 -> f32
    %0 = ptx.ld global f32 [%p] : i64 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld global nc f32 [%{{[a-z0-9_#]+}} + 16] : i64 -> f32
    %1 = ptx.ld global nc f32 [%p + 16] : i64 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld global nc ca u32 [%{{[a-z0-9_#]+}} + -16] : i64 -> i32
    %2 = ptx.ld global nc ca u32 [%p + -16] : i64 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld global nc cg b64 [%{{[a-z0-9_#]+}}] : i64 -> i64
    %3 = ptx.ld global nc cg b64 [%p] : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld global nc cs f32 [%{{[a-z0-9_#]+}}] : i64 -> f32
    %4 = ptx.ld global nc cs f32 [%p] : i64 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld global lu s32 [%{{[a-z0-9_#]+}}] : i64 -> i32
    %5 = ptx.ld global lu s32 [%p] : i64 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld global cv f64 [%{{[a-z0-9_#]+}}] : i64 -> f64
    %6 = ptx.ld global cv f64 [%p] : i64 -> f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld global volatile u8 [%{{[a-z0-9_#]+}}] : i64 -> i16
    %7 = ptx.ld global volatile u8 [%p] : i64 -> i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld shared volatile s8 [%{{[a-z0-9_#]+}}] : i32 -> i32
    %8 = ptx.ld shared volatile s8 [%s] : i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld shared f32 [%{{[a-z0-9_#]+}} + 4] : i32 -> f32
    %9 = ptx.ld shared f32 [%s + 4] : i32 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld local b16 [%{{[a-z0-9_#]+}}] : i64 -> i16
    %10 = ptx.ld local b16 [%p] : i64 -> i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld param u64 [%{{[a-z0-9_#]+}}] : i64 -> i64
    %11 = ptx.ld param u64 [%p] : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld const f32 [%{{[a-z0-9_#]+}} + 8] : i64 -> f32
    %12 = ptx.ld const f32 [%p + 8] : i64 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld generic volatile b32 [%{{[a-z0-9_#]+}}] : i64 -> i32
    %13 = ptx.ld generic volatile b32 [%p] : i64 -> i32
    // CHECK: %{{[a-z0-9_#]+}}:2 = ptx.ld global nc f32 [%{{[a-z0-9_#]+}} + 8] : i64 -> f32, f32
    %14:2 = ptx.ld global nc f32 [%p + 8] : i64 -> f32, f32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.ld shared b32 [%{{[a-z0-9_#]+}}] : i32 -> i32, i32, i32, i32
    %15:4 = ptx.ld shared b32 [%s] : i32 -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:2 = ptx.ld global f64 [%{{[a-z0-9_#]+}}] : i64 -> f64, f64
    %16:2 = ptx.ld global f64 [%p] : i64 -> f64, f64
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.ld global s16 [%{{[a-z0-9_#]+}}] : i64 -> i16, i16, i16, i16
    %17:4 = ptx.ld global s16 [%p] : i64 -> i16, i16, i16, i16
    // CHECK: ptx.st global f32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, f32
    ptx.st global f32 [%p], %v : i64, f32
    // CHECK: ptx.st global wb f32 [%{{[a-z0-9_#]+}} + 4], %{{[a-z0-9_#]+}} : i64, f32
    ptx.st global wb f32 [%p + 4], %v : i64, f32
    // CHECK: ptx.st global cg u32 [%{{[a-z0-9_#]+}} + -4], %{{[a-z0-9_#]+}} : i64, i32
    ptx.st global cg u32 [%p + -4], %i : i64, i32
    // CHECK: ptx.st global cs b64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i64
    ptx.st global cs b64 [%p], %w : i64, i64
    // CHECK: ptx.st global wt f64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, f64
    ptx.st global wt f64 [%p], %x : i64, f64
    // CHECK: ptx.st shared volatile f32 [%{{[a-z0-9_#]+}} + 128], %{{[a-z0-9_#]+}} : i32, f32
    ptx.st shared volatile f32 [%s + 128], %v : i32, f32
    // CHECK: ptx.st local u8 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32
    ptx.st local u8 [%p], %i : i64, i32
    // CHECK: ptx.st generic volatile s32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32
    ptx.st generic volatile s32 [%p], %i : i64, i32
    // CHECK: ptx.st global f32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64, f32, f32
    ptx.st global f32 [%p], %v, %v : i64, f32, f32
    // CHECK: ptx.st shared b32 [%{{[a-z0-9_#]+}} + -16], %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32, i32, i32, i32, i32
    ptx.st shared b32 [%s + -16], %i, %i, %i, %i : i32, i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta global %{{[a-z0-9_#]+}} : i64 -> i64
    %18 = ptx.cvta global %p : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta to global %{{[a-z0-9_#]+}} : i64 -> i64
    %19 = ptx.cvta to global %p : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta shared %{{[a-z0-9_#]+}} : i64 -> i64
    %20 = ptx.cvta shared %w : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta to shared %{{[a-z0-9_#]+}} : i64 -> i64
    %21 = ptx.cvta to shared %w : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta local %{{[a-z0-9_#]+}} : i64 -> i64
    %22 = ptx.cvta local %w : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta to local %{{[a-z0-9_#]+}} : i64 -> i64
    %23 = ptx.cvta to local %w : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta const %{{[a-z0-9_#]+}} : i64 -> i64
    %24 = ptx.cvta const %w : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta to const %{{[a-z0-9_#]+}} : i64 -> i64
    %25 = ptx.cvta to const %w : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta param %{{[a-z0-9_#]+}} : i64 -> i64
    %26 = ptx.cvta param %w : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvta to param %{{[a-z0-9_#]+}} : i64 -> i64
    %27 = ptx.cvta to param %w : i64 -> i64
    // CHECK: ptx.ret
    ptx.ret
  }

  // atom/red with every operation, .cas, memory order and scope.
  // CHECK-LABEL: ptx.entry @atomics(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: f64, %{{[a-z0-9_#]+}}: f16, %{{[a-z0-9_#]+}}: vector<2xf16>, %{{[a-z0-9_#]+}}: bf16, %{{[a-z0-9_#]+}}: vector<2xbf16>, %{{[a-z0-9_#]+}}: i16) {
  ptx.entry @atomics(%p: i64, %s: i32, %i: i32, %w: i64, %f: f32, %d: f64, %h: f16, %hh: vector<2xf16>, %bh: bf16, %bb: vector<2xbf16>, %t: i16) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global add u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32 -> i32
    %0 = ptx.atom global add u32 [%p], %i : i64, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom shared add s32 [%{{[a-z0-9_#]+}} + 4], %{{[a-z0-9_#]+}} : i32, i32 -> i32
    %1 = ptx.atom shared add s32 [%s + 4], %i : i32, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom generic add u64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i64 -> i64
    %2 = ptx.atom generic add u64 [%p], %w : i64, i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global add f32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, f32 -> f32
    %3 = ptx.atom global add f32 [%p], %f : i64, f32 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global add f64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, f64 -> f64
    %4 = ptx.atom global add f64 [%p], %d : i64, f64 -> f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global add f16 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, f16 -> f16
    %5 = ptx.atom global add f16 [%p], %h : i64, f16 -> f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global add f16x2 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, vector<2xf16> -> vector<2xf16>
    %6 = ptx.atom global add f16x2 [%p], %hh : i64, vector<2xf16> -> vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global add bf16 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, bf16 -> bf16
    %7 = ptx.atom global add bf16 [%p], %bh : i64, bf16 -> bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global add bf16x2 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, vector<2xbf16> -> vector<2xbf16>
    %8 = ptx.atom global add bf16x2 [%p], %bb : i64, vector<2xbf16> -> vector<2xbf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global min s32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32 -> i32
    %9 = ptx.atom global min s32 [%p], %i : i64, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global max u64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i64 -> i64
    %10 = ptx.atom global max u64 [%p], %w : i64, i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global min s64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i64 -> i64
    %11 = ptx.atom global min s64 [%p], %w : i64, i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global inc u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32 -> i32
    %12 = ptx.atom global inc u32 [%p], %i : i64, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global dec u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32 -> i32
    %13 = ptx.atom global dec u32 [%p], %i : i64, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global and b32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32 -> i32
    %14 = ptx.atom global and b32 [%p], %i : i64, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global or b64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i64 -> i64
    %15 = ptx.atom global or b64 [%p], %w : i64, i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global xor b32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32 -> i32
    %16 = ptx.atom global xor b32 [%p], %i : i64, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global exch b64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i64 -> i64
    %17 = ptx.atom global exch b64 [%p], %w : i64, i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global cas b32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64, i32, i32 -> i32
    %18 = ptx.atom global cas b32 [%p], %i, %i : i64, i32, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom shared cas b64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32, i64, i64 -> i64
    %19 = ptx.atom shared cas b64 [%s], %w, %w : i32, i64, i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global cas b16 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64, i16, i16 -> i16
    %20 = ptx.atom global cas b16 [%p], %t, %t : i64, i16, i16 -> i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global relaxed gpu add u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32 -> i32
    %21 = ptx.atom global relaxed gpu add u32 [%p], %i : i64, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global acquire cta cas b32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64, i32, i32 -> i32
    %22 = ptx.atom global acquire cta cas b32 [%p], %i, %i : i64, i32, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global release sys exch b32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32 -> i32
    %23 = ptx.atom global release sys exch b32 [%p], %i : i64, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom shared acq_rel cluster add u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32, i32 -> i32
    %24 = ptx.atom shared acq_rel cluster add u32 [%s], %i : i32, i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom global sys add f32 [%{{[a-z0-9_#]+}} + 8], %{{[a-z0-9_#]+}} : i64, f32 -> f32
    %25 = ptx.atom global sys add f32 [%p + 8], %f : i64, f32 -> f32
    // CHECK: ptx.red global add u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32
    ptx.red global add u32 [%p], %i : i64, i32
    // CHECK: ptx.red shared add f32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32, f32
    ptx.red shared add f32 [%s], %f : i32, f32
    // CHECK: ptx.red global add f16x2 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, vector<2xf16>
    ptx.red global add f16x2 [%p], %hh : i64, vector<2xf16>
    // CHECK: ptx.red global add bf16 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, bf16
    ptx.red global add bf16 [%p], %bh : i64, bf16
    // CHECK: ptx.red generic min s64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i64
    ptx.red generic min s64 [%p], %w : i64, i64
    // CHECK: ptx.red global max u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32
    ptx.red global max u32 [%p], %i : i64, i32
    // CHECK: ptx.red global inc u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32
    ptx.red global inc u32 [%p], %i : i64, i32
    // CHECK: ptx.red global dec u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32
    ptx.red global dec u32 [%p], %i : i64, i32
    // CHECK: ptx.red global and b32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32
    ptx.red global and b32 [%p], %i : i64, i32
    // CHECK: ptx.red global or b32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32
    ptx.red global or b32 [%p], %i : i64, i32
    // CHECK: ptx.red global xor b64 [%{{[a-z0-9_#]+}} + -8], %{{[a-z0-9_#]+}} : i64, i64
    ptx.red global xor b64 [%p + -8], %w : i64, i64
    // CHECK: ptx.red global relaxed gpu add f64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, f64
    ptx.red global relaxed gpu add f64 [%p], %d : i64, f64
    // CHECK: ptx.red global release cluster add u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32
    ptx.red global release cluster add u32 [%p], %i : i64, i32
    // CHECK: ptx.red global sys add u64 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i64
    ptx.red global sys add u64 [%p], %w : i64, i64
    // CHECK: ptx.ret
    ptx.ret
  }

  // Barriers, fences and warp-level operations.
  // CHECK-LABEL: ptx.entry @sync(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: vector<2xf16>) {
  ptx.entry @sync(%i: i32, %f: f32, %w: i64, %hh: vector<2xf16>) {
    // CHECK: ptx.membar cta
    ptx.membar cta
    // CHECK: ptx.membar gl
    ptx.membar gl
    // CHECK: ptx.membar sys
    ptx.membar sys
    // CHECK: ptx.fence sc cta
    ptx.fence sc cta
    // CHECK: ptx.fence acq_rel gpu
    ptx.fence acq_rel gpu
    // CHECK: ptx.fence sc sys
    ptx.fence sc sys
    // CHECK: ptx.fence acq_rel cluster
    ptx.fence acq_rel cluster
    // CHECK: ptx.bar_sync 0
    ptx.bar_sync 0
    // CHECK: ptx.bar_sync 1, 128
    ptx.bar_sync 1, 128
    // CHECK: ptx.bar_arrive 2, 64
    ptx.bar_arrive 2, 64
    // CHECK: ptx.barrier_sync 3
    ptx.barrier_sync 3
    // CHECK: ptx.barrier_sync 15, 1024
    ptx.barrier_sync 15, 1024
    // CHECK: %{{[a-z0-9_#]+}} = ptx.activemask
    %mask = ptx.activemask
    // CHECK: %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} = ptx.shfl_sync up %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32 -> i32
    %0, %valid0 = ptx.shfl_sync up %i, %i, %i, %mask : i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} = ptx.shfl_sync down %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32 -> f32
    %1, %valid1 = ptx.shfl_sync down %f, %i, %i, %mask : f32 -> f32
    // CHECK: %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} = ptx.shfl_sync bfly %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : vector<2xf16> -> vector<2xf16>
    %2, %valid2 = ptx.shfl_sync bfly %hh, %i, %i, %mask : vector<2xf16> -> vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} = ptx.shfl_sync idx %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32 -> i32
    %3, %valid3 = ptx.shfl_sync idx %i, %i, %i, %mask : i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.and pred %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i1
    %4 = ptx.and pred %valid0, %valid3 : i1
    // CHECK: %{{[a-z0-9_#]+}} = ptx.vote_sync all %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i1
    %5 = ptx.vote_sync all %4, %mask : i1
    // CHECK: %{{[a-z0-9_#]+}} = ptx.vote_sync any %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i1
    %6 = ptx.vote_sync any %4, %mask : i1
    // CHECK: %{{[a-z0-9_#]+}} = ptx.vote_sync uni %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i1
    %7 = ptx.vote_sync uni %4, %mask : i1
    // CHECK: %{{[a-z0-9_#]+}} = ptx.vote_sync ballot %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %8 = ptx.vote_sync ballot %4, %mask : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.match_sync any b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %9 = ptx.match_sync any b32 %i, %mask : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.match_sync all b64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %10 = ptx.match_sync all b64 %w, %mask : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.redux_sync add u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}
    %11 = ptx.redux_sync add u32 %i, %mask
    // CHECK: %{{[a-z0-9_#]+}} = ptx.redux_sync min s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}
    %12 = ptx.redux_sync min s32 %i, %mask
    // CHECK: %{{[a-z0-9_#]+}} = ptx.redux_sync max u32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}
    %13 = ptx.redux_sync max u32 %i, %mask
    // CHECK: %{{[a-z0-9_#]+}} = ptx.redux_sync and b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}
    %14 = ptx.redux_sync and b32 %i, %mask
    // CHECK: %{{[a-z0-9_#]+}} = ptx.redux_sync or b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}
    %15 = ptx.redux_sync or b32 %i, %mask
    // CHECK: %{{[a-z0-9_#]+}} = ptx.redux_sync xor b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}
    %16 = ptx.redux_sync xor b32 %i, %mask
    // CHECK: ptx.ret
    ptx.ret
  }

  // Every mma.sync variant of the mma table (PTXInfo.cpp).
  // CHECK-LABEL: ptx.entry @mma(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: vector<2xf16>, %{{[a-z0-9_#]+}}: vector<2xbf16>) {
  ptx.entry @mma(%r: i32, %f: f32, %hh: vector<2xf16>, %bb: vector<2xbf16>) {
    // CHECK: %{{[a-z0-9_#]+}}:2 = ptx.mma_sync m16n8k8 row col f16 f16 f16 f16 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32), (i32), (vector<2xf16>, vector<2xf16>) -> vector<2xf16>, vector<2xf16>
    %0:2 = ptx.mma_sync m16n8k8 row col f16 f16 f16 f16 {%r, %r}, {%r}, {%hh, %hh} : (i32, i32), (i32), (vector<2xf16>, vector<2xf16>) -> vector<2xf16>, vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k8 row col f32 f16 f16 f32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (vector<2xf16>, vector<2xf16>), (vector<2xf16>), (f32, f32, f32, f32) -> f32, f32, f32, f32
    %1:4 = ptx.mma_sync m16n8k8 row col f32 f16 f16 f32 {%hh, %hh}, {%hh}, {%f, %f, %f, %f} : (vector<2xf16>, vector<2xf16>), (vector<2xf16>), (f32, f32, f32, f32) -> f32, f32, f32, f32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k8 row col f32 bf16 bf16 f32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (vector<2xbf16>, vector<2xbf16>), (vector<2xbf16>), (f32, f32, f32, f32) -> f32, f32, f32, f32
    %2:4 = ptx.mma_sync m16n8k8 row col f32 bf16 bf16 f32 {%bb, %bb}, {%bb}, {%f, %f, %f, %f} : (vector<2xbf16>, vector<2xbf16>), (vector<2xbf16>), (f32, f32, f32, f32) -> f32, f32, f32, f32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k8 row col f32 tf32 tf32 f32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
    %3:4 = ptx.mma_sync m16n8k8 row col f32 tf32 tf32 f32 {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
    // CHECK: %{{[a-z0-9_#]+}}:2 = ptx.mma_sync m16n8k16 row col f16 f16 f16 f16 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (i32, i32) -> i32, i32
    %4:2 = ptx.mma_sync m16n8k16 row col f16 f16 f16 f16 {%r, %r, %r, %r}, {%r, %r}, {%r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32) -> i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
    %5:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k16 row col f32 bf16 bf16 f32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
    %6:4 = ptx.mma_sync m16n8k16 row col f32 bf16 bf16 f32 {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k16 row col s32 s8 s8 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %7:4 = ptx.mma_sync m16n8k16 row col s32 s8 s8 s32 {%r, %r}, {%r}, {%r, %r, %r, %r} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k16 row col s32 s8 u8 s32 satfinite {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %8:4 = ptx.mma_sync m16n8k16 row col s32 s8 u8 s32 satfinite {%r, %r}, {%r}, {%r, %r, %r, %r} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k16 row col s32 u8 s8 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %9:4 = ptx.mma_sync m16n8k16 row col s32 u8 s8 s32 {%r, %r}, {%r}, {%r, %r, %r, %r} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k16 row col s32 u8 u8 s32 satfinite {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %10:4 = ptx.mma_sync m16n8k16 row col s32 u8 u8 s32 satfinite {%r, %r}, {%r}, {%r, %r, %r, %r} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k32 row col s32 s8 s8 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %11:4 = ptx.mma_sync m16n8k32 row col s32 s8 s8 s32 {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k32 row col s32 s8 u8 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %12:4 = ptx.mma_sync m16n8k32 row col s32 s8 u8 s32 {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k32 row col s32 u8 s8 s32 satfinite {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %13:4 = ptx.mma_sync m16n8k32 row col s32 u8 s8 s32 satfinite {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k32 row col s32 u8 u8 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %14:4 = ptx.mma_sync m16n8k32 row col s32 u8 u8 s32 {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k32 row col s32 s4 s4 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %15:4 = ptx.mma_sync m16n8k32 row col s32 s4 s4 s32 {%r, %r}, {%r}, {%r, %r, %r, %r} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k32 row col s32 s4 u4 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %16:4 = ptx.mma_sync m16n8k32 row col s32 s4 u4 s32 {%r, %r}, {%r}, {%r, %r, %r, %r} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k32 row col s32 u4 s4 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %17:4 = ptx.mma_sync m16n8k32 row col s32 u4 s4 s32 {%r, %r}, {%r}, {%r, %r, %r, %r} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k32 row col s32 u4 u4 s32 satfinite {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %18:4 = ptx.mma_sync m16n8k32 row col s32 u4 u4 s32 satfinite {%r, %r}, {%r}, {%r, %r, %r, %r} : (i32, i32), (i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k64 row col s32 s4 s4 s32 satfinite {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %19:4 = ptx.mma_sync m16n8k64 row col s32 s4 s4 s32 satfinite {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k64 row col s32 s4 u4 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %20:4 = ptx.mma_sync m16n8k64 row col s32 s4 u4 s32 {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k64 row col s32 u4 s4 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %21:4 = ptx.mma_sync m16n8k64 row col s32 u4 s4 s32 {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.mma_sync m16n8k64 row col s32 u4 u4 s32 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    %22:4 = ptx.mma_sync m16n8k64 row col s32 u4 u4 s32 {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    // CHECK: ptx.ret
    ptx.ret
  }

  // ldmatrix/stmatrix x1/x2/x4/.trans and cp.async with the group ops.
  // CHECK-LABEL: ptx.entry @matrix_and_async(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: i32) {
  ptx.entry @matrix_and_async(%s: i32, %sd: i64, %g: i64, %n: i32) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ldmatrix [%{{[a-z0-9_#]+}}] : i32 -> i32
    %0 = ptx.ldmatrix [%s] : i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}}:2 = ptx.ldmatrix [%{{[a-z0-9_#]+}}] : i64 -> i32, i32
    %1:2 = ptx.ldmatrix [%sd] : i64 -> i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.ldmatrix [%{{[a-z0-9_#]+}}] : i32 -> i32, i32, i32, i32
    %2:4 = ptx.ldmatrix [%s] : i32 -> i32, i32, i32, i32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.ldmatrix trans [%{{[a-z0-9_#]+}}] : i32 -> i32, i32, i32, i32
    %3:4 = ptx.ldmatrix trans [%s] : i32 -> i32, i32, i32, i32
    // CHECK: ptx.stmatrix [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32, i32
    ptx.stmatrix [%s], %0 : i32, i32
    // Immediate offsets ([reg+imm], ptx-fold-address-offsets).
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.ldmatrix trans [%{{[a-z0-9_#]+}} + 2048] : i32 -> i32, i32, i32, i32
    %4:4 = ptx.ldmatrix trans [%s + 2048] : i32 -> i32, i32, i32, i32
    // CHECK: ptx.stmatrix [%{{[a-z0-9_#]+}} + -16], %{{[a-z0-9_#]+}} : i32, i32
    ptx.stmatrix [%s + -16], %0 : i32, i32
    // CHECK: ptx.stmatrix [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64, i32, i32
    ptx.stmatrix [%sd], %1#0, %1#1 : i64, i32, i32
    // CHECK: ptx.stmatrix trans [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32, i32, i32, i32, i32
    ptx.stmatrix trans [%s], %2#0, %2#1, %2#2, %2#3 : i32, i32, i32, i32, i32
    // CHECK: ptx.cp_async ca 4 [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}] : i32
    ptx.cp_async ca 4 [%s], [%g] : i32
    // CHECK: ptx.cp_async cg 16 [%{{[a-z0-9_#]+}} + 4096], [%{{[a-z0-9_#]+}}] : i32
    ptx.cp_async cg 16 [%s + 4096], [%g] : i32
    // CHECK: ptx.cp_async ca 8 [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}] : i64
    ptx.cp_async ca 8 [%sd], [%g] : i64
    // CHECK: ptx.cp_async ca 16 [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32
    ptx.cp_async ca 16 [%s], [%g], %n : i32
    // CHECK: ptx.cp_async cg 16 [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}] : i32
    ptx.cp_async cg 16 [%s], [%g] : i32
    // CHECK: ptx.cp_async cg 16 [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32
    ptx.cp_async cg 16 [%s], [%g], %n : i32
    // CHECK: ptx.cp_async_commit_group
    ptx.cp_async_commit_group
    // CHECK: ptx.cp_async_wait_group 1
    ptx.cp_async_wait_group 1
    // CHECK: ptx.cp_async_wait_group 0
    ptx.cp_async_wait_group 0
    // CHECK: ptx.cp_async_wait_all
    ptx.cp_async_wait_all
    // CHECK: ptx.ret
    ptx.ret
  }

  // Constants, moves, pack/unpack and addresses of module variables.
  // CHECK-LABEL: ptx.entry @moves(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: i16, %{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: f16, %{{[a-z0-9_#]+}}: vector<2xf16>) {
  ptx.entry @moves(%a: i32, %b: i32, %w: i64, %s: i16, %f: f32, %h: f16, %hh: vector<2xf16>) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.constant 42 : i32
    %0 = ptx.constant 42 : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.constant -1 : i64
    %1 = ptx.constant -1 : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.constant 7 : i16
    %2 = ptx.constant 7 : i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.constant true
    %3 = ptx.constant true
    // CHECK: %{{[a-z0-9_#]+}} = ptx.constant 1.500000e+00 : f32
    %4 = ptx.constant 1.500000e+00 : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.constant 2.500000e-01 : f64
    %5 = ptx.constant 2.500000e-01 : f64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.constant 1.000000e+00 : f16
    %6 = ptx.constant 1.000000e+00 : f16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.constant 1.000000e+00 : bf16
    %7 = ptx.constant 1.000000e+00 : bf16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mov b32 %{{[a-z0-9_#]+}} : i32 -> i32
    %8 = ptx.mov b32 %a : i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mov b32 %{{[a-z0-9_#]+}} : f32 -> i32
    %9 = ptx.mov b32 %f : f32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mov f32 %{{[a-z0-9_#]+}} : i32 -> f32
    %10 = ptx.mov f32 %a : i32 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mov u64 %{{[a-z0-9_#]+}} : i64 -> i64
    %11 = ptx.mov u64 %w : i64 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mov pred %{{[a-z0-9_#]+}} : i1 -> i1
    %12 = ptx.mov pred %3 : i1 -> i1
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mov b16 %{{[a-z0-9_#]+}} : f16 -> i16
    %13 = ptx.mov b16 %h : f16 -> i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mov b32 %{{[a-z0-9_#]+}} : vector<2xf16> -> f32
    %14 = ptx.mov b32 %hh : vector<2xf16> -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.pack b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i16, i16 -> i32
    %15 = ptx.pack b32 %s, %2 : i16, i16 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.pack b32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f16, f16 -> vector<2xf16>
    %16 = ptx.pack b32 %6, %h : f16, f16 -> vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}} = ptx.pack b64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32, i32 -> i64
    %17 = ptx.pack b64 %a, %b : i32, i32 -> i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.pack b64 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i16, i16, i16, i16 -> i64
    %18 = ptx.pack b64 %s, %s, %s, %s : i16, i16, i16, i16 -> i64
    // CHECK: %{{[a-z0-9_#]+}}:2 = ptx.unpack b32 %{{[a-z0-9_#]+}} : i32 -> i16, i16
    %19:2 = ptx.unpack b32 %15 : i32 -> i16, i16
    // CHECK: %{{[a-z0-9_#]+}}:2 = ptx.unpack b32 %{{[a-z0-9_#]+}} : vector<2xf16> -> f16, f16
    %20:2 = ptx.unpack b32 %hh : vector<2xf16> -> f16, f16
    // CHECK: %{{[a-z0-9_#]+}}:2 = ptx.unpack b64 %{{[a-z0-9_#]+}} : i64 -> i32, f32
    %21:2 = ptx.unpack b64 %w : i64 -> i32, f32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.unpack b64 %{{[a-z0-9_#]+}} : i64 -> i16, i16, i16, i16
    %22:4 = ptx.unpack b64 %w : i64 -> i16, i16, i16, i16
    // CHECK: %{{[a-z0-9_#]+}} = ptx.addressof @tile : i64
    %23 = ptx.addressof @tile : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.addressof @tile : i32
    %24 = ptx.addressof @tile : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.addressof @dyn : i32
    %25 = ptx.addressof @dyn : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.addressof @table : i64
    %26 = ptx.addressof @table : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.addressof @coeffs : i64
    %27 = ptx.addressof @coeffs : i64
    // CHECK: ptx.ret
    ptx.ret
  }

  // Every special register.
  // CHECK-LABEL: ptx.entry @special_registers(
  // CHECK-SAME: ) {
  ptx.entry @special_registers() {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg tid.x : i32
    %0 = ptx.sreg tid.x : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg tid.y : i32
    %1 = ptx.sreg tid.y : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg tid.z : i32
    %2 = ptx.sreg tid.z : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg ntid.x : i32
    %3 = ptx.sreg ntid.x : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg ntid.y : i32
    %4 = ptx.sreg ntid.y : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg ntid.z : i32
    %5 = ptx.sreg ntid.z : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg ctaid.x : i32
    %6 = ptx.sreg ctaid.x : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg ctaid.y : i32
    %7 = ptx.sreg ctaid.y : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg ctaid.z : i32
    %8 = ptx.sreg ctaid.z : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg nctaid.x : i32
    %9 = ptx.sreg nctaid.x : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg nctaid.y : i32
    %10 = ptx.sreg nctaid.y : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg nctaid.z : i32
    %11 = ptx.sreg nctaid.z : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg laneid : i32
    %12 = ptx.sreg laneid : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg warpid : i32
    %13 = ptx.sreg warpid : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg nwarpid : i32
    %14 = ptx.sreg nwarpid : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg smid : i32
    %15 = ptx.sreg smid : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg nsmid : i32
    %16 = ptx.sreg nsmid : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg clock : i32
    %17 = ptx.sreg clock : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg clock64 : i64
    %18 = ptx.sreg clock64 : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg globaltimer : i64
    %19 = ptx.sreg globaltimer : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg dynamic_smem_size : i32
    %20 = ptx.sreg dynamic_smem_size : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg total_smem_size : i32
    %21 = ptx.sreg total_smem_size : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg lanemask_eq : i32
    %22 = ptx.sreg lanemask_eq : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg lanemask_lt : i32
    %23 = ptx.sreg lanemask_lt : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg lanemask_le : i32
    %24 = ptx.sreg lanemask_le : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg lanemask_gt : i32
    %25 = ptx.sreg lanemask_gt : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg lanemask_ge : i32
    %26 = ptx.sreg lanemask_ge : i32
    // CHECK: ptx.ret
    ptx.ret
  }

  // Branches with block arguments, .uni, trap and exit.
  // CHECK-LABEL: ptx.entry @control_flow(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: f32) {
  ptx.entry @control_flow(%n: i32, %p: i64, %f: f32) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.constant 0 : i32
    %0 = ptx.constant 0 : i32
    // CHECK: ptx.bra ^bb1(%{{[a-z0-9_#]+}} : i32)
    ptx.bra ^bb1(%0 : i32)
  // CHECK: ^bb1(%{{[a-z0-9_#]+}}: i32):
  ^bb1(%1: i32):
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %2 = ptx.add s32 %1, %n : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp lt s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %3 = ptx.setp lt s32 %2, %n : i32
    // CHECK: ptx.cond_bra %{{[a-z0-9_#]+}}, ^bb1(%{{[a-z0-9_#]+}} : i32), ^bb2
    ptx.cond_bra %3, ^bb1(%2 : i32), ^bb2
  // CHECK: ^bb2:
  ^bb2:
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp eq s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %4 = ptx.setp eq s32 %2, %0 : i32
    // CHECK: ptx.cond_bra uni %{{[a-z0-9_#]+}}, ^bb3, ^bb4(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32, i32)
    ptx.cond_bra uni %4, ^bb3, ^bb4(%f, %2 : f32, i32)
  // CHECK: ^bb3:
  ^bb3:
    // CHECK: ptx.trap
    ptx.trap
    // CHECK: ptx.exit
    ptx.exit
  // CHECK: ^bb4(%{{[a-z0-9_#]+}}: f32, %{{[a-z0-9_#]+}}: i32):
  ^bb4(%5: f32, %6: i32):
    // CHECK: ptx.bra uni ^bb5
    ptx.bra uni ^bb5
  // CHECK: ^bb5:
  ^bb5:
    // CHECK: ptx.ret
    ptx.ret
  }

  // Guard predicates: `if %p` prints @%p, `if not %p` prints @!%p.
  // CHECK-LABEL: ptx.entry @guards(
  // CHECK-SAME: %{{[a-z0-9_#]+}}: i64, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: i32, %{{[a-z0-9_#]+}}: f32) {
  ptx.entry @guards(%p: i64, %s: i32, %a: i32, %f: f32) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp lt s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %0 = ptx.setp lt s32 %a, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add if %{{[a-z0-9_#]+}} s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %1 = ptx.add if %0 s32 %a, %a : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.add if not %{{[a-z0-9_#]+}} rn f32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %2 = ptx.add if not %0 rn f32 %f, %f : f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld if %{{[a-z0-9_#]+}} global f32 [%{{[a-z0-9_#]+}}] : i64 -> f32
    %3 = ptx.ld if %0 global f32 [%p] : i64 -> f32
    // CHECK: ptx.st if not %{{[a-z0-9_#]+}} global f32 [%{{[a-z0-9_#]+}} + 4], %{{[a-z0-9_#]+}} : i64, f32
    ptx.st if not %0 global f32 [%p + 4], %3 : i64, f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.setp if %{{[a-z0-9_#]+}} ne s32 %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %4 = ptx.setp if %0 ne s32 %a, %1 : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.cvt if not %{{[a-z0-9_#]+}} rn f32 s32 %{{[a-z0-9_#]+}} : i32 -> f32
    %5 = ptx.cvt if not %4 rn f32 s32 %a : i32 -> f32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mov if %{{[a-z0-9_#]+}} b32 %{{[a-z0-9_#]+}} : i32 -> i32
    %6 = ptx.mov if %0 b32 %a : i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg if %{{[a-z0-9_#]+}} tid.x : i32
    %7 = ptx.sreg if %0 tid.x : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.atom if %{{[a-z0-9_#]+}} global add u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i32 -> i32
    %8 = ptx.atom if %0 global add u32 [%p], %a : i64, i32 -> i32
    // CHECK: ptx.red if not %{{[a-z0-9_#]+}} global add f32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, f32
    ptx.red if not %0 global add f32 [%p], %f : i64, f32
    // CHECK: ptx.bar_sync if %{{[a-z0-9_#]+}} 0
    ptx.bar_sync if %0 0
    // CHECK: ptx.membar if %{{[a-z0-9_#]+}} gl
    ptx.membar if %0 gl
    // CHECK: ptx.fence if not %{{[a-z0-9_#]+}} sc gpu
    ptx.fence if not %0 sc gpu
    // CHECK: %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} = ptx.shfl_sync if %{{[a-z0-9_#]+}} bfly %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32 -> i32
    %9, %valid = ptx.shfl_sync if %0 bfly %a, %a, %a, %a : i32 -> i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.activemask if %{{[a-z0-9_#]+}}
    %10 = ptx.activemask if %0
    // CHECK: ptx.cp_async if %{{[a-z0-9_#]+}} ca 4 [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}] : i32
    ptx.cp_async if %0 ca 4 [%s], [%p] : i32
    // CHECK: ptx.cp_async_commit_group if %{{[a-z0-9_#]+}}
    ptx.cp_async_commit_group if %0
    // CHECK: ptx.cp_async_wait_all if not %{{[a-z0-9_#]+}}
    ptx.cp_async_wait_all if not %0
    // CHECK: %{{[a-z0-9_#]+}} = ptx.addressof if %{{[a-z0-9_#]+}} @tile : i64
    %11 = ptx.addressof if %0 @tile : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ex2 if %{{[a-z0-9_#]+}} approx f32 %{{[a-z0-9_#]+}} : f32
    %12 = ptx.ex2 if %0 approx f32 %f : f32
    // CHECK: ptx.trap if not %{{[a-z0-9_#]+}}
    ptx.trap if not %0
    // CHECK: ptx.ret
    ptx.ret
  }

  // Hopper: mbarrier, proxy fences, elect.sync, setmaxnreg.
  // CHECK-LABEL: ptx.entry @hopper_sync(
  ptx.entry @hopper_sync(%b: i32, %b64: i64, %n: i32) {
    %p = ptx.setp eq u32 %n, %b : i32
    // CHECK: ptx.mbarrier_init [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32
    ptx.mbarrier_init [%b], %n : i32
    // CHECK: ptx.mbarrier_init if %{{[a-z0-9_#]+}} [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64
    ptx.mbarrier_init if %p [%b64], %n : i64
    // CHECK: ptx.mbarrier_inval if not %{{[a-z0-9_#]+}} [%{{[a-z0-9_#]+}}] : i32
    ptx.mbarrier_inval if not %p [%b] : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mbarrier_arrive shared [%{{[a-z0-9_#]+}}] : i32 -> i64
    %s0 = ptx.mbarrier_arrive shared [%b] : i32 -> i64
    // CHECK: ptx.mbarrier_arrive shared [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64
    ptx.mbarrier_arrive shared [%b64], %n : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mbarrier_arrive expect_tx release cluster shared [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32 -> i64
    %s1 = ptx.mbarrier_arrive expect_tx release cluster shared [%b], %n : i32 -> i64
    // CHECK: ptx.mbarrier_arrive if %{{[a-z0-9_#]+}} relaxed cta shared_cluster [%{{[a-z0-9_#]+}}] : i32
    ptx.mbarrier_arrive if %p relaxed cta shared_cluster [%b] : i32
    // CHECK: ptx.mbarrier_expect_tx relaxed cluster shared_cluster [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32
    ptx.mbarrier_expect_tx relaxed cluster shared_cluster [%b], %n : i32
    // CHECK: ptx.mbarrier_expect_tx shared [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64
    ptx.mbarrier_expect_tx shared [%b64], %n : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mbarrier_try_wait [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32, i64
    %w0 = ptx.mbarrier_try_wait [%b], %s0 : i32, i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mbarrier_try_wait parity acquire cta [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} hint %{{[a-z0-9_#]+}} : i32, i32
    %w1 = ptx.mbarrier_try_wait parity acquire cta [%b], %n hint %n : i32, i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mbarrier_try_wait if %{{[a-z0-9_#]+}} relaxed cluster [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i64, i64
    %w2 = ptx.mbarrier_try_wait if %p relaxed cluster [%b64], %s1 : i64, i64
    // CHECK: ptx.fence_proxy_async{{$}}
    ptx.fence_proxy_async
    // CHECK: ptx.fence_proxy_async shared
    ptx.fence_proxy_async shared
    // CHECK: ptx.fence_proxy_async shared_cluster
    ptx.fence_proxy_async shared_cluster
    // CHECK: ptx.fence_proxy_async if %{{[a-z0-9_#]+}} global
    ptx.fence_proxy_async if %p global
    // CHECK: ptx.fence_mbarrier_init
    ptx.fence_mbarrier_init
    // CHECK: %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} = ptx.elect_sync %{{[a-z0-9_#]+}}
    %lane, %leader = ptx.elect_sync %n
    // CHECK: ptx.setmaxnreg inc 240
    ptx.setmaxnreg inc 240
    // CHECK: ptx.setmaxnreg if %{{[a-z0-9_#]+}} dec 24
    ptx.setmaxnreg if %p dec 24
    ptx.ret
  }

  // Hopper: thread block clusters.
  // CHECK-LABEL: ptx.entry @hopper_cluster(
  ptx.entry @hopper_cluster(%a: i32, %g: i64) {
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg cluster_ctaid.y : i32
    %0 = ptx.sreg cluster_ctaid.y : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg cluster_nctarank : i32
    %1 = ptx.sreg cluster_nctarank : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.sreg is_explicit_cluster : i1
    %2 = ptx.sreg is_explicit_cluster : i1
    // CHECK: ptx.barrier_cluster_arrive release aligned
    ptx.barrier_cluster_arrive release aligned
    // CHECK: ptx.barrier_cluster_arrive if %{{[a-z0-9_#]+}} relaxed
    ptx.barrier_cluster_arrive if %2 relaxed
    // CHECK: ptx.barrier_cluster_wait{{$}}
    ptx.barrier_cluster_wait
    // CHECK: ptx.barrier_cluster_wait acquire aligned
    ptx.barrier_cluster_wait acquire aligned
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mapa shared_cluster %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i32
    %3 = ptx.mapa shared_cluster %a, %1 : i32
    // CHECK: %{{[a-z0-9_#]+}} = ptx.mapa if not %{{[a-z0-9_#]+}} generic %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : i64
    %4 = ptx.mapa if not %2 generic %g, %1 : i64
    // CHECK: %{{[a-z0-9_#]+}} = ptx.ld shared_cluster u32 [%{{[a-z0-9_#]+}} + 4] : i32 -> i32
    %5 = ptx.ld shared_cluster u32 [%3 + 4] : i32 -> i32
    // CHECK: ptx.st shared_cluster u32 [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32, i32
    ptx.st shared_cluster u32 [%3], %5 : i32, i32
    ptx.ret
  }
  // Hopper: bulk asynchronous copies (TMA).
  // CHECK-LABEL: ptx.entry @hopper_bulk(
  ptx.entry @hopper_bulk(%s: i32, %g: i64, %map: i64, %x: i32, %y: i32, %mask: i16) {
    %p = ptx.setp eq u32 %x, %y : i32
    %n = ptx.constant 128 : i32
    // CHECK: ptx.cp_async_bulk_load [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}}, [%{{[a-z0-9_#]+}}] : i32, i32
    ptx.cp_async_bulk_load [%s], [%g], %n, [%s] : i32, i32
    // CHECK: ptx.cp_async_bulk_load if %{{[a-z0-9_#]+}} [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}}, [%{{[a-z0-9_#]+}}] multicast %{{[a-z0-9_#]+}} : i32, i32
    ptx.cp_async_bulk_load if %p [%s], [%g], %n, [%s] multicast %mask : i32, i32
    // CHECK: ptx.cp_async_bulk_store [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}], %{{[a-z0-9_#]+}} : i32
    ptx.cp_async_bulk_store [%g], [%s], %n : i32
    // CHECK: ptx.cp_async_bulk_commit_group
    ptx.cp_async_bulk_commit_group
    // CHECK: ptx.cp_async_bulk_wait_group read 1
    ptx.cp_async_bulk_wait_group read 1
    // CHECK: ptx.cp_async_bulk_wait_group 0
    ptx.cp_async_bulk_wait_group 0
    // CHECK: ptx.cp_async_bulk_tensor_load 2d [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}], [%{{[a-z0-9_#]+}}] : i32, i32
    ptx.cp_async_bulk_tensor_load 2d [%s], [%map, {%x, %y}], [%s] : i32, i32
    // CHECK: ptx.cp_async_bulk_tensor_load 1d [%{{[a-z0-9_#]+}}], [%{{[a-z0-9_#]+}}, {%{{[a-z0-9_#]+}}}], [%{{[a-z0-9_#]+}}] multicast %{{[a-z0-9_#]+}} : i32, i32
    ptx.cp_async_bulk_tensor_load 1d [%s], [%map, {%x}], [%s] multicast %mask : i32, i32
    // CHECK: ptx.cp_async_bulk_tensor_store 3d [%{{[a-z0-9_#]+}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}], [%{{[a-z0-9_#]+}}] : i32
    ptx.cp_async_bulk_tensor_store 3d [%map, {%x, %y, %x}], [%s] : i32
    // CHECK: ptx.cp_async_bulk_prefetch_tensor if not %{{[a-z0-9_#]+}} 5d [%{{[a-z0-9_#]+}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}]
    ptx.cp_async_bulk_prefetch_tensor if not %p 5d [%map, {%x, %y, %x, %y, %x}]
    ptx.ret
  }
  // Hopper: warpgroup MMA (wgmma).
  // CHECK-LABEL: ptx.entry @hopper_wgmma(
  ptx.entry @hopper_wgmma(%c: f32, %h: vector<2xf16>, %a: i32, %ad: i64, %bd: i64) {
    %p = ptx.setp eq u32 %a, %a : i32
    // CHECK: ptx.wgmma_fence
    ptx.wgmma_fence
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, %{{[a-z0-9_#]+}} scale_d %{{[a-z0-9_#]+}} scale_a -1 trans_b : f32, vector<2xf16>
    %0:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%c, %c, %c, %c}, {%h, %h, %h, %h}, %bd scale_d %p scale_a -1 trans_b : f32, vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}}:2 = ptx.wgmma_mma_async if not %{{[a-z0-9_#]+}} m64n8k16 f16 f16 f16 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} scale_d_imm 0 scale_b -1 trans_a : vector<2xf16>
    %1:2 = ptx.wgmma_mma_async if not %p m64n8k16 f16 f16 f16 {%h, %h}, %ad, %bd scale_d_imm 0 scale_b -1 trans_a : vector<2xf16>
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.wgmma_mma_async m64n8k32 f32 e5m2 e4m3 {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}} : f32
    %2:4 = ptx.wgmma_mma_async m64n8k32 f32 e5m2 e4m3 {%0#0, %0#1, %0#2, %0#3}, %ad, %bd : f32
    // CHECK: %{{[a-z0-9_#]+}}:4 = ptx.wgmma_mma_async m64n8k32 s32 u8 u8 satfinite {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, {%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}}, %{{[a-z0-9_#]+}} : i32, i32
    %3:4 = ptx.wgmma_mma_async m64n8k32 s32 u8 u8 satfinite {%a, %a, %a, %a}, {%a, %a, %a, %a}, %bd : i32, i32
    // CHECK: ptx.wgmma_commit_group
    ptx.wgmma_commit_group
    // CHECK: ptx.wgmma_wait_group 1
    ptx.wgmma_wait_group 1
    ptx.ret
  }
}
