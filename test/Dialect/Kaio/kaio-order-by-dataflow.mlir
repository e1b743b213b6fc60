// RUN: kaio-opt %s --kaio-order-by-dataflow --split-input-file | FileCheck %s
// Two modules differing only in the order of their effect-free ops and of
// reads between the same writes come out the same (the second input is the
// first with each expression's operands built in the other order, as gcc
// and clang build `p[0] * p[1] - (p[2] + p[3])`):
// RUN: kaio-opt %s --kaio-order-by-dataflow --split-input-file --mlir-print-op-generic > %t.all
// RUN: awk '/^\/\/ -----/ { n++; next } n == 0' %t.all > %t.first
// RUN: awk '/^\/\/ -----/ { n++; next } n == 1' %t.all > %t.second
// RUN: diff %t.first %t.second

// Operands left to right, loads included (reads move, but never across an
// op that may write); a value computed from loads right after the loads it
// needs; parameter arithmetic right before its first user.
// CHECK-LABEL: kaio.kernel @k
// CHECK:      %[[X:.*]] = kaio.load %arg0
// CHECK:      %[[Y:.*]] = kaio.load %arg0
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[Y]]
// CHECK:      %[[Z:.*]] = kaio.load %arg0
// CHECK:      %[[W:.*]] = kaio.load %arg0
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[Z]], %[[W]]
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[P]], %[[S]]
// CHECK-NEXT: %[[I:.*]] = arith.muli %arg1
// CHECK-NEXT: kaio.store %[[R]], %arg0[%[[I]]]
// CHECK-NEXT: kaio.return
kaio.kernel @k(%p: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %i = arith.muli %n, %c2 : i32
  %x = kaio.load %p[%c0] : !kaio.ptr<f32>, i32 -> f32
  %y = kaio.load %p[%c1] : !kaio.ptr<f32>, i32 -> f32
  %z = kaio.load %p[%c2] : !kaio.ptr<f32>, i32 -> f32
  %w = kaio.load %p[%c3] : !kaio.ptr<f32>, i32 -> f32
  %prod = arith.mulf %x, %y : f32
  %sum = arith.addf %z, %w : f32
  %r = arith.subf %prod, %sum : f32
  kaio.store %r, %p[%i] : f32, !kaio.ptr<f32>, i32
  kaio.return
}

// -----

// CHECK-LABEL: kaio.kernel @k
kaio.kernel @k(%p: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c3 = arith.constant 3 : i32
  %c2 = arith.constant 2 : i32
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %z = kaio.load %p[%c2] : !kaio.ptr<f32>, i32 -> f32
  %w = kaio.load %p[%c3] : !kaio.ptr<f32>, i32 -> f32
  %sum = arith.addf %z, %w : f32
  %y = kaio.load %p[%c1] : !kaio.ptr<f32>, i32 -> f32
  %x = kaio.load %p[%c0] : !kaio.ptr<f32>, i32 -> f32
  %prod = arith.mulf %x, %y : f32
  %r = arith.subf %prod, %sum : f32
  %i = arith.muli %n, %c2 : i32
  kaio.store %r, %p[%i] : f32, !kaio.ptr<f32>, i32
  kaio.return
}

// -----

// Nested blocks too, and a value the loop body uses is computed before the
// loop; a value nothing uses stays (before the terminator); an op with
// effects (the barrier) keeps its place between the loads.
// CHECK-LABEL: kaio.kernel @nested
// CHECK:      kaio.load
// CHECK-NEXT: kaio.barrier
// CHECK:      kaio.load
// CHECK:      %[[SCALE:.*]] = arith.mulf
// CHECK:      scf.for
// CHECK:        %[[V:.*]] = kaio.load
// CHECK-NEXT:   %[[T:.*]] = arith.mulf %[[V]], %[[SCALE]]
// CHECK-NEXT:   kaio.store %[[T]]
// CHECK:      arith.addf
// CHECK-NEXT: kaio.return
kaio.kernel @nested(%p: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = kaio.load %p[%c0] : !kaio.ptr<f32>, i32 -> f32
  kaio.barrier
  %b = kaio.load %p[%c1] : !kaio.ptr<f32>, i32 -> f32
  %n_f = arith.uitofp %n : i32 to f32
  %unused = arith.addf %n_f, %n_f : f32
  %scale = arith.mulf %a, %b : f32
  scf.for %i = %c1 to %n step %c1 : i32 {
    %v = kaio.load %p[%i] : !kaio.ptr<f32>, i32 -> f32
    %t = arith.mulf %v, %scale : f32
    kaio.store %t, %p[%i] : f32, !kaio.ptr<f32>, i32
  }
  kaio.return
}

// -----

// A value computed after an anchor stays after it, even when its inputs
// exist before: the anchor may be what makes them valid (a wgmma's
// accumulators after wgmma.wait_group).
// CHECK-LABEL: kaio.kernel @stays_below
// CHECK:      %[[X:.*]] = kaio.load
// CHECK-NEXT: kaio.barrier
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK-NEXT: kaio.store %[[Y]]
kaio.kernel @stays_below(%p: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %x = kaio.load %p[%c0] : !kaio.ptr<f32>, i32 -> f32
  kaio.barrier
  %y = arith.mulf %x, %x : f32
  kaio.store %y, %p[%c0] : f32, !kaio.ptr<f32>, i32
  kaio.return
}
