// Half precision: scalar f16 and packed f16x2 (sm_53+), bf16/bf16x2 fma,
// min, max, abs, neg (sm_80+). bf16 add/sub/mul need sm_90: see
// arith-bf16-sm90.mlir.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90

// CHECK-LABEL: .visible .entry f16_ops(
ptx.entry @f16_ops(%a: f16, %b: f16, %c: f16) {
  // CHECK:      add.f16 %h4, %h1, %h2;
  // CHECK-NEXT: add.rn.ftz.sat.f16 %h5, %h1, %h2;
  // CHECK-NEXT: sub.rn.f16 %h6, %h1, %h2;
  // CHECK-NEXT: mul.ftz.f16 %h7, %h1, %h2;
  // CHECK-NEXT: fma.rn.f16 %h8, %h1, %h2, %h3;
  // CHECK-NEXT: fma.rn.ftz.sat.f16 %h9, %h1, %h2, %h3;
  // CHECK-NEXT: min.f16 %h10, %h1, %h2;
  // CHECK-NEXT: max.ftz.NaN.f16 %h11, %h1, %h2;
  // CHECK-NEXT: abs.f16 %h12, %h1;
  // CHECK-NEXT: neg.ftz.f16 %h13, %h1;
  %0 = ptx.add f16 %a, %b : f16
  %1 = ptx.add rn ftz sat f16 %a, %b : f16
  %2 = ptx.sub rn f16 %a, %b : f16
  %3 = ptx.mul ftz f16 %a, %b : f16
  %4 = ptx.fma rn f16 %a, %b, %c : f16
  %5 = ptx.fma rn ftz sat f16 %a, %b, %c : f16
  %6 = ptx.min f16 %a, %b : f16
  %7 = ptx.max ftz NaN f16 %a, %b : f16
  %8 = ptx.abs f16 %a : f16
  %9 = ptx.neg ftz f16 %a : f16
  ptx.ret
}

// CHECK-LABEL: .visible .entry f16x2_ops(
ptx.entry @f16x2_ops(%a: vector<2xf16>, %b: vector<2xf16>, %c: vector<2xf16>) {
  // CHECK:      ld.param.b32 %hh1, [f16x2_ops_param_0];
  // CHECK:      add.rn.f16x2 %hh4, %hh1, %hh2;
  // CHECK-NEXT: sub.ftz.f16x2 %hh5, %hh1, %hh2;
  // CHECK-NEXT: mul.sat.f16x2 %hh6, %hh1, %hh2;
  // CHECK-NEXT: fma.rn.f16x2 %hh7, %hh1, %hh2, %hh3;
  // CHECK-NEXT: min.NaN.f16x2 %hh8, %hh1, %hh2;
  // CHECK-NEXT: max.f16x2 %hh9, %hh1, %hh2;
  // CHECK-NEXT: abs.ftz.f16x2 %hh10, %hh1;
  // CHECK-NEXT: neg.f16x2 %hh11, %hh1;
  %0 = ptx.add rn f16x2 %a, %b : vector<2xf16>
  %1 = ptx.sub ftz f16x2 %a, %b : vector<2xf16>
  %2 = ptx.mul sat f16x2 %a, %b : vector<2xf16>
  %3 = ptx.fma rn f16x2 %a, %b, %c : vector<2xf16>
  %4 = ptx.min NaN f16x2 %a, %b : vector<2xf16>
  %5 = ptx.max f16x2 %a, %b : vector<2xf16>
  %6 = ptx.abs ftz f16x2 %a : vector<2xf16>
  %7 = ptx.neg f16x2 %a : vector<2xf16>
  ptx.ret
}

// CHECK-LABEL: .visible .entry bf16_ops(
ptx.entry @bf16_ops(%a: bf16, %b: bf16, %c: bf16,
                    %p: vector<2xbf16>, %q: vector<2xbf16>, %r: vector<2xbf16>) {
  // CHECK:      fma.rn.bf16 %h4, %h1, %h2, %h3;
  // CHECK-NEXT: min.bf16 %h5, %h1, %h2;
  // CHECK-NEXT: max.NaN.bf16 %h6, %h1, %h2;
  // CHECK-NEXT: abs.bf16 %h7, %h1;
  // CHECK-NEXT: neg.bf16 %h8, %h1;
  // CHECK-NEXT: fma.rn.bf16x2 %hh4, %hh1, %hh2, %hh3;
  // CHECK-NEXT: min.NaN.bf16x2 %hh5, %hh1, %hh2;
  // CHECK-NEXT: max.bf16x2 %hh6, %hh1, %hh2;
  // CHECK-NEXT: abs.bf16x2 %hh7, %hh1;
  // CHECK-NEXT: neg.bf16x2 %hh8, %hh1;
  %0 = ptx.fma rn bf16 %a, %b, %c : bf16
  %1 = ptx.min bf16 %a, %b : bf16
  %2 = ptx.max NaN bf16 %a, %b : bf16
  %3 = ptx.abs bf16 %a : bf16
  %4 = ptx.neg bf16 %a : bf16
  %5 = ptx.fma rn bf16x2 %p, %q, %r : vector<2xbf16>
  %6 = ptx.min NaN bf16x2 %p, %q : vector<2xbf16>
  %7 = ptx.max bf16x2 %p, %q : vector<2xbf16>
  %8 = ptx.abs bf16x2 %p : vector<2xbf16>
  %9 = ptx.neg bf16x2 %p : vector<2xbf16>
  ptx.ret
}
