// bf16/bf16x2 add, sub and mul exist from sm_90 (PTX 7.8).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s | FileCheck %s
// RUN: %ptx-check %s sm_90 sm_90a sm_100a

// CHECK: .version 7.8
// CHECK: .target sm_90
// CHECK-LABEL: .visible .entry bf16_sm90(
ptx.entry @bf16_sm90(%a: bf16, %b: bf16, %p: vector<2xbf16>, %q: vector<2xbf16>) {
  // CHECK:      add.bf16 %h3, %h1, %h2;
  // CHECK-NEXT: add.rn.bf16 %h4, %h1, %h2;
  // CHECK-NEXT: sub.rn.bf16 %h5, %h1, %h2;
  // CHECK-NEXT: mul.rn.bf16 %h6, %h1, %h2;
  // CHECK-NEXT: add.rn.bf16x2 %hh3, %hh1, %hh2;
  // CHECK-NEXT: sub.bf16x2 %hh4, %hh1, %hh2;
  // CHECK-NEXT: mul.rn.bf16x2 %hh5, %hh1, %hh2;
  %0 = ptx.add bf16 %a, %b : bf16
  %1 = ptx.add rn bf16 %a, %b : bf16
  %2 = ptx.sub rn bf16 %a, %b : bf16
  %3 = ptx.mul rn bf16 %a, %b : bf16
  %4 = ptx.add rn bf16x2 %p, %q : vector<2xbf16>
  %5 = ptx.sub bf16x2 %p, %q : vector<2xbf16>
  %6 = ptx.mul rn bf16x2 %p, %q : vector<2xbf16>
  ptx.ret
}
