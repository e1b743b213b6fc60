// cvt.rn/rz{.relu}{.satfinite}.{f16x2,bf16x2}.f32: two f32 into one packed
// register, the first operand going to the upper half.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90 sm_100a

// satfinite needs PTX 8.1.
// CHECK: .version 8.1
// CHECK-LABEL: .visible .entry pack(
ptx.entry @pack(%hi: f32, %lo: f32) {
  // CHECK:      cvt.rn.f16x2.f32 %hh1, %f1, %f2;
  // CHECK-NEXT: cvt.rz.f16x2.f32 %hh2, %f1, %f2;
  // CHECK-NEXT: cvt.rn.relu.f16x2.f32 %hh3, %f1, %f2;
  // CHECK-NEXT: cvt.rn.bf16x2.f32 %hh4, %f1, %f2;
  // CHECK-NEXT: cvt.rz.relu.bf16x2.f32 %hh5, %f1, %f2;
  // CHECK-NEXT: cvt.rn.satfinite.f16x2.f32 %hh6, %f1, %f2;
  // CHECK-NEXT: cvt.rn.relu.satfinite.bf16x2.f32 %hh7, %f1, %f2;
  // CHECK-NEXT: cvt.rn.f16x2.f32 %r1, %f1, %f2;
  %0 = ptx.cvt_pack rn f16x2 %hi, %lo : vector<2xf16>
  %1 = ptx.cvt_pack rz f16x2 %hi, %lo : vector<2xf16>
  %2 = ptx.cvt_pack rn relu f16x2 %hi, %lo : vector<2xf16>
  %3 = ptx.cvt_pack rn bf16x2 %hi, %lo : vector<2xbf16>
  %4 = ptx.cvt_pack rz relu bf16x2 %hi, %lo : vector<2xbf16>
  %5 = ptx.cvt_pack rn satfinite f16x2 %hi, %lo : vector<2xf16>
  %6 = ptx.cvt_pack rn relu satfinite bf16x2 %hi, %lo : vector<2xbf16>
  // A packed result may also live in a plain .b32 register.
  %7 = ptx.cvt_pack rn f16x2 %hi, %lo : i32
  ptx.ret
}
