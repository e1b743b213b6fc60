// RUN: kaio-opt %s --kaio-unroll-loops --split-input-file | FileCheck %s
// RUN: kaio-opt %s --kaio-unroll-loops --canonicalize --split-input-file | FileCheck %s --check-prefix=FOLD

// A dynamic unsigned loop carrying a value: the split point comes from the
// unsigned trip count (0 when hi <= lo), the main loop runs 4 iterations a
// trip (iv, iv + step, iv + 2 step, iv + 3 step), and the original body
// runs the rest from the split point, fed by the main loop's result.
// CHECK-LABEL: func.func @dynamic_unsigned
// CHECK-SAME: (%[[LO:.*]]: i32, %[[HI:.*]]: i32, %[[X:.*]]: f32)
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi ugt, %[[HI]], %[[LO]]
// CHECK: %[[DIST:.*]] = arith.subi %[[HI]], %[[LO]]
// CHECK: %[[WHOLE:.*]] = arith.divui %[[DIST]], %[[STEP:.*]] : i32
// CHECK: %[[TRIPS:.*]] = arith.select %[[NONEMPTY]]
// CHECK: %[[LEFT:.*]] = arith.remui %[[TRIPS]], %[[C4:.*]] : i32
// CHECK: %[[MAIN:.*]] = arith.subi %[[TRIPS]], %[[LEFT]]
// CHECK: %[[SPAN:.*]] = arith.muli %[[MAIN]], %[[STEP]]
// CHECK: %[[SPLIT:.*]] = arith.addi %[[LO]], %[[SPAN]]
// CHECK: %[[STEP4:.*]] = arith.muli %[[STEP]], %{{.*}} : i32
// CHECK: %[[R:.*]] = scf.for unsigned %[[IV:.*]] = %[[LO]] to %[[SPLIT]] step %[[STEP4]] iter_args(%[[A:.*]] = %[[X]])
// CHECK-COUNT-4: arith.uitofp
// CHECK: scf.yield
// CHECK: %[[REST:.*]] = scf.for unsigned %{{.*}} = %[[SPLIT]] to %[[HI]] step %[[STEP]] iter_args(%{{.*}} = %[[R]])
// CHECK-COUNT-1: arith.uitofp
// CHECK: scf.yield
// CHECK: return %[[REST]]
// CHECK-NOT: kaio.unroll
func.func @dynamic_unsigned(%lo: i32, %hi: i32, %x: f32) -> f32 {
  %c1 = arith.constant 1 : i32
  %r = scf.for unsigned %i = %lo to %hi step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %f = arith.uitofp %i : i32 to f32
    %b = arith.addf %a, %f : f32
    scf.yield %b : f32
  } {kaio.unroll = 4 : i32}
  return %r : f32
}

// -----

// A step known only at run time (a block-stride walk): no division. The main
// loop runs while a whole trip fits (iv < hi - 3 step; 0 when hi < 3 step,
// unsigned) and carries the next induction value, where the remainder
// starts.
// CHECK-LABEL: func.func @dynamic_step
// CHECK-SAME: (%[[LO:.*]]: i32, %[[HI:.*]]: i32, %[[ST:.*]]: i32, %[[X:.*]]: f32)
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: %[[SPAN:.*]] = arith.muli %[[ST]], %{{.*}} : i32
// CHECK: %[[UB:.*]] = arith.subi %[[HI]], %[[SPAN]]
// CHECK: %[[FITS:.*]] = arith.cmpi uge, %[[HI]], %[[SPAN]]
// CHECK: %[[UPPER:.*]] = arith.select %[[FITS]], %[[UB]], %{{.*}}
// CHECK: %[[ST4:.*]] = arith.muli %[[ST]], %{{.*}} : i32
// CHECK: %[[MAIN:.*]]:2 = scf.for unsigned %[[IV:.*]] = %[[LO]] to %[[UPPER]] step %[[ST4]] iter_args(%{{.*}} = %[[X]], %{{.*}} = %[[LO]]) -> (f32, i32)
// CHECK-COUNT-4: arith.uitofp
// CHECK: %[[NEXT:.*]] = arith.addi %[[IV]], %[[ST4]]
// CHECK: scf.yield %{{.*}}, %[[NEXT]] : f32, i32
// CHECK: %[[REST:.*]] = scf.for unsigned %{{.*}} = %[[MAIN]]#1 to %[[HI]] step %[[ST]] iter_args(%{{.*}} = %[[MAIN]]#0)
// CHECK: return %[[REST]]
func.func @dynamic_step(%lo: i32, %hi: i32, %st: i32, %x: f32) -> f32 {
  %r = scf.for unsigned %i = %lo to %hi step %st iter_args(%a = %x) -> (f32) : i32 {
    %f = arith.uitofp %i : i32 to f32
    %b = arith.addf %a, %f : f32
    scf.yield %b : f32
  } {kaio.unroll = 4 : i32}
  return %r : f32
}

// -----

// A signed loop compares with sgt.
// CHECK-LABEL: func.func @dynamic_signed
// CHECK: arith.cmpi sgt
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
func.func @dynamic_signed(%lo: i32, %hi: i32, %p: !kaio.ptr<f32>) {
  %c2 = arith.constant 2 : i32
  %z = arith.constant 0.0 : f32
  scf.for %i = %lo to %hi step %c2 : i32 {
    kaio.store %z, %p[%i] : f32, !kaio.ptr<f32>, i32
  } {kaio.unroll = 2 : i32}
  return
}

// -----

// Eight iterations by four: no remainder loop once the bounds fold.
// FOLD-LABEL: func.func @constant_divisible
// FOLD: scf.for %{{.*}} = %c0_i32 to %c8_i32 step %c4_i32
// FOLD-COUNT-4: arith.addf
// FOLD-NEXT: scf.yield
// FOLD-NOT: scf.for
// FOLD: return
func.func @constant_divisible(%x: f32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %b = arith.addf %a, %x : f32
    scf.yield %b : f32
  } {kaio.unroll = 4 : i32}
  return %r : f32
}

// -----

// Nested: the inner loop is unrolled first, then the outer loop's four
// copies of its body each hold an unrolled inner loop and its remainder
// (1 + 4 x 2 loops), and so does its own remainder (1 + 2).
// CHECK-LABEL: func.func @nested
// CHECK-COUNT-12: scf.for
// CHECK-NOT: scf.for
// FOLD-LABEL: func.func @nested
func.func @nested(%n: i32, %p: !kaio.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  scf.for unsigned %i = %c0 to %n step %c1 : i32 {
    scf.for unsigned %j = %c0 to %n step %c1 : i32 {
      %k = arith.addi %i, %j : i32
      kaio.store %z, %p[%k] : f32, !kaio.ptr<f32>, i32
    } {kaio.unroll = 2 : i32}
  } {kaio.unroll = 4 : i32}
  return
}

// -----

// Factor 1 only drops the mark.
// CHECK-LABEL: func.func @factor_one
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK-NOT: kaio.unroll
func.func @factor_one(%n: i32, %p: !kaio.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  scf.for unsigned %i = %c0 to %n step %c1 : i32 {
    kaio.store %z, %p[%i] : f32, !kaio.ptr<f32>, i32
  } {kaio.unroll = 1 : i32}
  return
}
