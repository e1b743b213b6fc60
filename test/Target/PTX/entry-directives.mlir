// Kernel headers: parameter types and names, .ptr.global.align, launch
// bounds (.maxntid/.reqntid in 1-3 dimensions, .minnctapersm, .maxnreg), the
// `// kaio.kernel` signature comment the runtime reads, and the ld.param
// prologue.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: // kaio.kernel params(ptr<const f32>,ptr<bf16>,ptr<u8>,u32,s32,u64,s64,u16,f32,f64,f16,bf16,u32,u32)
// CHECK-NEXT: .visible .entry params(
// CHECK-NEXT:   .param .u64 .ptr.global.align 16 in,
// CHECK-NEXT:   .param .u64 .ptr.global params_param_1,
// CHECK-NEXT:   .param .u64 .ptr.global.align 4 params_param_2,
// CHECK-NEXT:   .param .u32 n,
// CHECK-NEXT:   .param .s32 params_param_4,
// CHECK-NEXT:   .param .u64 params_param_5,
// CHECK-NEXT:   .param .s64 params_param_6,
// CHECK-NEXT:   .param .u16 params_param_7,
// CHECK-NEXT:   .param .f32 params_param_8,
// CHECK-NEXT:   .param .f64 params_param_9,
// CHECK-NEXT:   .param .b16 params_param_10,
// CHECK-NEXT:   .param .b16 params_param_11,
// CHECK-NEXT:   .param .b32 params_param_12,
// CHECK-NEXT:   .param .b32 params_param_13
// CHECK-NEXT: )
// CHECK-NEXT: {
// CHECK-NEXT:   .reg .b16 %rs<2>;
// CHECK-NEXT:   .reg .b16 %h<3>;
// CHECK-NEXT:   .reg .b32 %hh<3>;
// CHECK-NEXT:   .reg .b32 %r<3>;
// CHECK-NEXT:   .reg .b64 %rd<6>;
// CHECK-NEXT:   .reg .f32 %f<2>;
// CHECK-NEXT:   .reg .f64 %fd<2>;
// CHECK-EMPTY:
// CHECK-NEXT:   ld.param.u64 %rd1, [in];
// CHECK-NEXT:   ld.param.u64 %rd2, [params_param_1];
// CHECK-NEXT:   ld.param.u64 %rd3, [params_param_2];
// CHECK-NEXT:   ld.param.u32 %r1, [n];
// CHECK-NEXT:   ld.param.s32 %r2, [params_param_4];
// CHECK-NEXT:   ld.param.u64 %rd4, [params_param_5];
// CHECK-NEXT:   ld.param.s64 %rd5, [params_param_6];
// CHECK-NEXT:   ld.param.u16 %rs1, [params_param_7];
// CHECK-NEXT:   ld.param.f32 %f1, [params_param_8];
// CHECK-NEXT:   ld.param.f64 %fd1, [params_param_9];
// CHECK-NEXT:   ld.param.b16 %h1, [params_param_10];
// CHECK-NEXT:   ld.param.b16 %h2, [params_param_11];
// CHECK-NEXT:   ld.param.b32 %hh1, [params_param_12];
// CHECK-NEXT:   ld.param.b32 %hh2, [params_param_13];
// CHECK-NEXT:   ret;
// CHECK-NEXT: }
ptx.entry @params(%in: i64 {ptx.ptr = f32, ptx.readonly, ptx.align = 16, ptx.name = "in"},
                  %out: i64 {ptx.ptr = bf16},
                  %bytes: i64 {ptx.ptr = i8, ptx.align = 4},
                  %n: i32 {ptx.name = "n"}, %s: si32, %w: i64, %sw: si64,
                  %h: i16, %x: f32, %u: f64, %f16: f16, %bf: bf16,
                  %hh: vector<2xf16>, %bb: vector<2xbf16>) {
  ptx.ret
}

// CHECK-LABEL: // kaio.kernel no_params()
// CHECK-NEXT: .visible .entry no_params()
// CHECK-NEXT: .maxntid 256
// CHECK-NEXT: .minnctapersm 2
// CHECK-NEXT: {
// CHECK-EMPTY:
// CHECK-NEXT:   ret;
// CHECK-NEXT: }
ptx.entry @no_params() attributes {maxntid = array<i32: 256>, minnctapersm = 2 : i32} {
  ptx.ret
}

// CHECK-LABEL: .visible .entry bounds_2d(
// CHECK:      )
// CHECK-NEXT: .maxntid 16, 16
// CHECK-NEXT: .maxnreg 64
// CHECK-NEXT: {
ptx.entry @bounds_2d(%n: i32) attributes {maxntid = array<i32: 16, 16>, maxnreg = 64 : i32} {
  ptx.ret
}

// CHECK-LABEL: .visible .entry bounds_3d(
// CHECK:      )
// CHECK-NEXT: .reqntid 8, 4, 2
// CHECK-NEXT: .minnctapersm 4
// CHECK-NEXT: {
ptx.entry @bounds_3d(%n: i32) attributes {reqntid = array<i32: 8, 4, 2>, minnctapersm = 4 : i32} {
  ptx.ret
}

// CHECK-LABEL: .visible .entry bounds_1d(
// CHECK:      )
// CHECK-NEXT: .reqntid 128
// CHECK-NEXT: .maxnreg 255
// CHECK-NEXT: {
ptx.entry @bounds_1d(%n: i32) attributes {reqntid = array<i32: 128>, maxnreg = 255 : i32} {
  ptx.ret
}

// A signed parameter is .param .s32, and s32 in the signature the runtime's
// typed launch checks.
// CHECK-LABEL: // kaio.kernel signed_params(s32,u32,s64)
// CHECK-NEXT: .visible .entry signed_params(
// CHECK-NEXT: .param .s32 signed_params_param_0,
// CHECK-NEXT: .param .u32 signed_params_param_1,
// CHECK-NEXT: .param .s64 signed_params_param_2
// CHECK: ld.param.s32 %r1, [signed_params_param_0];
ptx.entry @signed_params(%a: i32 {ptx.signed}, %b: i32, %c: i64 {ptx.signed}) {
  ptx.ret
}
