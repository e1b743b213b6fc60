// bf16 ex2 and tanh (sm_90, PTX 7.8); ex2 on bf16 is spelled with .ftz.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s | FileCheck %s
// RUN: %ptx-check %s sm_90 sm_90a sm_100a

// CHECK: .version 7.8
// CHECK-LABEL: .visible .entry bf16_fns(
ptx.entry @bf16_fns(%h: bf16, %hh: vector<2xbf16>) {
  // CHECK:      ex2.approx.ftz.bf16 %h2, %h1;
  // CHECK-NEXT: ex2.approx.ftz.bf16x2 %hh2, %hh1;
  // CHECK-NEXT: tanh.approx.bf16 %h3, %h1;
  // CHECK-NEXT: tanh.approx.bf16x2 %hh3, %hh1;
  %0 = ptx.ex2 approx ftz bf16 %h : bf16
  %1 = ptx.ex2 approx ftz bf16x2 %hh : vector<2xbf16>
  %2 = ptx.tanh approx bf16 %h : bf16
  %3 = ptx.tanh approx bf16x2 %hh : vector<2xbf16>
  ptx.ret
}
