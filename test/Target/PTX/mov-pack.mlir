// mov between registers of one width (bit reinterpretation), and packing
// into / unpacking from wider registers with mov.b32/mov.b64 {..}.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry moves(
ptx.entry @moves(%a: i32, %x: f32, %w: i64, %u: f64, %h: f16, %hh: vector<2xf16>) {
  // CHECK:      mov.b32 %r2, %f1;
  // CHECK-NEXT: mov.b32 %f2, %r1;
  // CHECK-NEXT: mov.u32 %r3, %r1;
  // CHECK-NEXT: mov.f32 %f3, %f1;
  // CHECK-NEXT: mov.b64 %rd2, %fd1;
  // CHECK-NEXT: mov.b64 %fd2, %rd1;
  // CHECK-NEXT: mov.b16 %rs1, %h1;
  // CHECK-NEXT: mov.b32 %r4, %hh1;
  // CHECK-NEXT: mov.b32 %hh2, %r1;
  // CHECK-NEXT: setp.ne.s32 %p1, %r1, %r1;
  // CHECK-NEXT: mov.pred %p2, %p1;
  %0 = ptx.mov b32 %x : f32 -> i32
  %1 = ptx.mov b32 %a : i32 -> f32
  %2 = ptx.mov u32 %a : i32 -> i32
  %3 = ptx.mov f32 %x : f32 -> f32
  %4 = ptx.mov b64 %u : f64 -> i64
  %5 = ptx.mov b64 %w : i64 -> f64
  %6 = ptx.mov b16 %h : f16 -> i16
  %7 = ptx.mov b32 %hh : vector<2xf16> -> i32
  %8 = ptx.mov b32 %a : i32 -> vector<2xf16>
  %p = ptx.setp ne s32 %a, %a : i32
  %9 = ptx.mov pred %p : i1 -> i1
  ptx.ret
}

// CHECK-LABEL: .visible .entry packs(
ptx.entry @packs(%a: i32, %b: i32, %h: f16, %g: f16, %s: i16, %w: i64) {
  // CHECK:      mov.b32 %r3, {%h1, %h2};
  // CHECK-NEXT: mov.b32 %hh1, {%h1, %h2};
  // CHECK-NEXT: mov.b32 %r4, {%rs1, %rs1};
  // CHECK-NEXT: mov.b64 %rd2, {%r1, %r2};
  // CHECK-NEXT: mov.b64 %rd3, {%rs1, %rs1, %rs1, %rs1};
  // CHECK-NEXT: mov.b32 {%h3, %h4}, %r1;
  // CHECK-NEXT: mov.b32 {%rs2, %rs3}, %hh1;
  // CHECK-NEXT: mov.b64 {%r5, %r6}, %rd1;
  // CHECK-NEXT: mov.b64 {%rs4, %rs5, %rs6, %rs7}, %rd1;
  %0 = ptx.pack b32 %h, %g : f16, f16 -> i32
  %1 = ptx.pack b32 %h, %g : f16, f16 -> vector<2xf16>
  %2 = ptx.pack b32 %s, %s : i16, i16 -> i32
  %3 = ptx.pack b64 %a, %b : i32, i32 -> i64
  %4 = ptx.pack b64 %s, %s, %s, %s : i16, i16, i16, i16 -> i64
  %5:2 = ptx.unpack b32 %a : i32 -> f16, f16
  %6:2 = ptx.unpack b32 %1 : vector<2xf16> -> i16, i16
  %7:2 = ptx.unpack b64 %w : i64 -> i32, i32
  %8:4 = ptx.unpack b64 %w : i64 -> i16, i16, i16, i16
  ptx.ret
}
