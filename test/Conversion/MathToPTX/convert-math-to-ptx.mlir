// RUN: kaio-opt %s --allow-unregistered-dialect --convert-math-to-ptx --split-input-file | FileCheck %s

// f32: IEEE sqrt and fma, .approx instructions for the transcendental ones,
// exp through a compensated ex2, cvt with integer rounding for floor/ceil.
// CHECK-LABEL: ptx.entry @f32
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32)
ptx.entry @f32(%x: f32, %y: f32) {
  // CHECK: ptx.sqrt rn f32 %[[X]] : f32
  // CHECK: ptx.rsqrt approx f32 %[[X]] : f32
  %0 = math.sqrt %x : f32
  %1 = math.rsqrt %x : f32
  // exp(x) = 2^(x log2 e) with the product's rounding error as a correction.
  // CHECK: %[[HI:.*]] = ptx.mul rn f32 %[[X]], %{{.*}} : f32
  // CHECK: ptx.fma rn f32
  // CHECK: ptx.fma rn f32
  // CHECK: %[[E:.*]] = ptx.ex2 approx ftz f32 %[[HI]] : f32
  // CHECK: ptx.fma rn f32 %[[E]], %{{.*}}, %[[E]] : f32
  %2 = math.exp %x : f32
  // CHECK: ptx.ex2 approx f32 %[[X]] : f32
  %3 = math.exp2 %x : f32
  // Approximate functions allowed: subnormal results flush to 0.
  // CHECK: ptx.ex2 approx ftz f32 %[[X]] : f32
  %30 = math.exp2 %x fastmath<afn> : f32
  // CHECK: ptx.ex2 approx f32 %[[X]] : f32
  %31 = math.exp2 %x fastmath<nnan> : f32
  // CHECK: %[[L:.*]] = ptx.lg2 approx f32 %[[X]] : f32
  // CHECK: ptx.mul rn f32 %[[L]], %{{.*}} : f32
  %4 = math.log %x : f32
  // CHECK: ptx.lg2 approx f32 %[[X]] : f32
  %5 = math.log2 %x : f32
  // tanh: exp-based, an odd polynomial near 0.
  // CHECK: ptx.abs f32 %[[X]] : f32
  // CHECK: ptx.ex2 approx ftz f32
  // CHECK: ptx.div rn f32
  // CHECK: ptx.setp lt f32
  // CHECK: ptx.selp f32
  %6 = math.tanh %x : f32
  // erf: Abramowitz-Stegun 7.1.26 with the sign of x.
  // CHECK: ptx.abs f32 %[[X]] : f32
  // CHECK: ptx.div rn f32
  // CHECK: ptx.ex2 approx ftz f32
  // CHECK: ptx.or b32
  %7 = math.erf %x : f32
  // CHECK: ptx.sin approx f32 %[[X]] : f32
  // CHECK: ptx.cos approx f32 %[[X]] : f32
  // CHECK: ptx.abs f32 %[[X]] : f32
  // CHECK: ptx.cvt rmi f32 f32 %[[X]] : f32 -> f32
  // CHECK: ptx.cvt rpi f32 f32 %[[X]] : f32 -> f32
  // CHECK: ptx.cvt rzi f32 f32 %[[X]] : f32 -> f32
  // CHECK: ptx.cvt rni f32 f32 %[[X]] : f32 -> f32
  // CHECK: ptx.fma rn f32 %[[X]], %[[Y]], %[[X]] : f32
  %8 = math.sin %x : f32
  %9 = math.cos %x : f32
  %10 = math.absf %x : f32
  %11 = math.floor %x : f32
  %12 = math.ceil %x : f32
  %13 = math.trunc %x : f32
  %14 = math.roundeven %x : f32
  %15 = math.fma %x, %y, %x : f32
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15) : (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) -> ()
  ptx.ret
}

// -----

// f16 and bf16 compute in f32 and round once; fma has native forms.
// CHECK-LABEL: ptx.entry @half
// CHECK-SAME: (%[[H:.*]]: f16, %[[B:.*]]: bf16)
ptx.entry @half(%h: f16, %b: bf16) {
  // CHECK: %[[W:.*]] = ptx.cvt f32 f16 %[[H]] : f16 -> f32
  // CHECK: %[[S:.*]] = ptx.sqrt rn f32 %[[W]] : f32
  // CHECK: ptx.cvt rn f16 f32 %[[S]] : f32 -> f16
  %0 = math.sqrt %h : f16
  // CHECK: %[[Z:.*]] = ptx.constant 0 : i16
  // CHECK: %[[P:.*]] = ptx.pack b32 %[[Z]], %[[B]] : i16, bf16 -> i32
  // CHECK: %[[BW:.*]] = ptx.mov b32 %[[P]] : i32 -> f32
  // CHECK: %[[SIN:.*]] = ptx.sin approx f32 %[[BW]] : f32
  // CHECK: ptx.cvt rn bf16 f32 %[[SIN]] : f32 -> bf16
  %1 = math.sin %b : bf16
  // CHECK: ptx.fma rn f16 %[[H]], %[[H]], %[[H]] : f16
  %2 = math.fma %h, %h, %h : f16
  "test.use"(%0, %1, %2) : (f16, bf16, f16) -> ()
  ptx.ret
}

// -----

// f64: sqrt, abs and fma are exact; the approximations are f32-only (other
// math ops on f64 are a located error, test/Pipeline/invalid-input.mlir).
// CHECK-LABEL: ptx.entry @f64
ptx.entry @f64(%d: f64) {
  // CHECK: ptx.sqrt rn f64
  // CHECK: ptx.abs f64
  // CHECK: ptx.fma rn f64
  %0 = math.sqrt %d : f64
  %1 = math.absf %d : f64
  %2 = math.fma %d, %d, %d : f64
  "test.use"(%0, %1, %2) : (f64, f64, f64) -> ()
  ptx.ret
}
