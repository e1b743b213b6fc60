// RUN: kaio-opt %s --cse | FileCheck %s

// CSE merges two reads of a register that cannot change while the thread
// runs, never two reads of one that may: the clock's two values time what
// runs between them.
// CHECK-LABEL: ptx.entry @reads
// CHECK-SAME: (%[[P:.*]]: i64)
// CHECK-NEXT: %[[T:.*]] = ptx.sreg tid.x : i32
// CHECK-NEXT: %[[C0:.*]] = ptx.sreg clock : i32
// CHECK-NEXT: %[[C1:.*]] = ptx.sreg clock : i32
// CHECK-NEXT: %[[W0:.*]] = ptx.sreg warpid : i32
// CHECK-NEXT: %[[W1:.*]] = ptx.sreg warpid : i32
// CHECK-NEXT: ptx.st global b32 [%[[P]]], %[[T]], %[[T]], %[[C0]], %[[C1]]
// CHECK-NEXT: ptx.st global b32 [%[[P]]], %[[W0]], %[[W1]]
ptx.entry @reads(%p: i64) {
  %t0 = ptx.sreg tid.x : i32
  %c0 = ptx.sreg clock : i32
  %t1 = ptx.sreg tid.x : i32
  %c1 = ptx.sreg clock : i32
  %w0 = ptx.sreg warpid : i32
  %w1 = ptx.sreg warpid : i32
  ptx.st global b32 [%p], %t0, %t1, %c0, %c1 : i64, i32, i32, i32, i32
  ptx.st global b32 [%p], %w0, %w1 : i64, i32, i32
  ptx.ret
}
