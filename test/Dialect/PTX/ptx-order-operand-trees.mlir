// RUN: kaio-opt %s --split-input-file --ptx-order-operand-trees | FileCheck %s
// Ordering is a fixed point: a second run changes nothing.
// RUN: kaio-opt %s --split-input-file --ptx-order-operand-trees > %t.once.mlir
// RUN: kaio-opt %t.once.mlir --split-input-file --ptx-order-operand-trees > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// `st [p], (a * 4) + (b + 127)` as gcc writes nested calls (last argument
// first) and as clang does (first first): both come out in operand order,
// each operand's tree (constants included) right before its user.
// CHECK-LABEL: ptx.entry @last_argument_first
// CHECK-SAME: (%[[P:.*]]: i64, %[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT: %[[C4:.*]] = ptx.constant 4 : i32
// CHECK-NEXT: %[[M:.*]] = ptx.mul lo s32 %[[A]], %[[C4]] : i32
// CHECK-NEXT: %[[C127:.*]] = ptx.constant 127 : i32
// CHECK-NEXT: %[[S:.*]] = ptx.add s32 %[[B]], %[[C127]] : i32
// CHECK-NEXT: %[[T:.*]] = ptx.add s32 %[[M]], %[[S]] : i32
// CHECK-NEXT: ptx.st global b32 [%[[P]]], %[[T]]
ptx.entry @last_argument_first(%p: i64, %a: i32, %b: i32) {
  %c127 = ptx.constant 127 : i32
  %s = ptx.add s32 %b, %c127 : i32
  %c4 = ptx.constant 4 : i32
  %m = ptx.mul lo s32 %a, %c4 : i32
  %t = ptx.add s32 %m, %s : i32
  ptx.st global b32 [%p], %t : i64, i32
  ptx.ret
}
// CHECK-LABEL: ptx.entry @first_argument_first
// CHECK-SAME: (%[[P:.*]]: i64, %[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT: %[[C4:.*]] = ptx.constant 4 : i32
// CHECK-NEXT: %[[M:.*]] = ptx.mul lo s32 %[[A]], %[[C4]] : i32
// CHECK-NEXT: %[[C127:.*]] = ptx.constant 127 : i32
// CHECK-NEXT: %[[S:.*]] = ptx.add s32 %[[B]], %[[C127]] : i32
// CHECK-NEXT: %[[T:.*]] = ptx.add s32 %[[M]], %[[S]] : i32
// CHECK-NEXT: ptx.st global b32 [%[[P]]], %[[T]]
ptx.entry @first_argument_first(%p: i64, %a: i32, %b: i32) {
  %c4 = ptx.constant 4 : i32
  %m = ptx.mul lo s32 %a, %c4 : i32
  %c127 = ptx.constant 127 : i32
  %s = ptx.add s32 %b, %c127 : i32
  %t = ptx.add s32 %m, %s : i32
  ptx.st global b32 [%p], %t : i64, i32
  ptx.ret
}

// -----

// Nothing crosses an op with effects: the load stays between the two
// statements' trees, the constant written before it stays before it.
// CHECK-LABEL: ptx.entry @effects_fence
// CHECK-SAME: (%[[P:.*]]: i64, %[[A:.*]]: i32)
// CHECK-NEXT: %[[C2:.*]] = ptx.constant 2 : i32
// CHECK-NEXT: %[[X:.*]] = ptx.ld global b32 [%[[P]]] : i64 -> i32
// CHECK-NEXT: %[[C1:.*]] = ptx.constant 1 : i32
// CHECK-NEXT: %[[Y:.*]] = ptx.add s32 %[[A]], %[[C1]] : i32
// CHECK-NEXT: %[[Z:.*]] = ptx.mul lo s32 %[[X]], %[[C2]] : i32
// CHECK-NEXT: %[[W:.*]] = ptx.add s32 %[[Y]], %[[Z]] : i32
ptx.entry @effects_fence(%p: i64, %a: i32) {
  %c2 = ptx.constant 2 : i32
  %x = ptx.ld global b32 [%p] : i64 -> i32
  %z = ptx.mul lo s32 %x, %c2 : i32
  %c1 = ptx.constant 1 : i32
  %y = ptx.add s32 %a, %c1 : i32
  %w = ptx.add s32 %y, %z : i32
  ptx.st global b32 [%p], %w : i64, i32
  ptx.ret
}

// -----

// A value a later statement uses too is a statement of its own: it stays
// where it was written, and the trees of each use are ordered after it. A
// value an op uses twice is placed once, at its first use.
// CHECK-LABEL: ptx.entry @shared_values
// CHECK-SAME: (%[[P:.*]]: i64, %[[A:.*]]: i32)
// CHECK-NEXT: %[[C3:.*]] = ptx.constant 3 : i32
// CHECK-NEXT: %[[K:.*]] = ptx.shl b32 %[[A]], %[[C3]] : i32
// CHECK-NEXT: %[[C5:.*]] = ptx.constant 5 : i32
// CHECK-NEXT: %[[D:.*]] = ptx.mul lo s32 %[[C5]], %[[C5]] : i32
// CHECK-NEXT: %[[E:.*]] = ptx.add s32 %[[K]], %[[D]] : i32
// CHECK-NEXT: ptx.st global b32 [%[[P]]], %[[E]]
// CHECK-NEXT: %[[F:.*]] = ptx.add s32 %[[K]], %[[K]] : i32
// CHECK-NEXT: ptx.st global b32 [%[[P]]], %[[F]]
ptx.entry @shared_values(%p: i64, %a: i32) {
  %c3 = ptx.constant 3 : i32
  %k = ptx.shl b32 %a, %c3 : (i32, i32) -> i32
  %c5 = ptx.constant 5 : i32
  %d = ptx.mul lo s32 %c5, %c5 : i32
  %e = ptx.add s32 %k, %d : i32
  ptx.st global b32 [%p], %e : i64, i32
  %f = ptx.add s32 %k, %k : i32
  ptx.st global b32 [%p], %f : i64, i32
  ptx.ret
}

// -----

// Values another block uses, and values nothing uses, are not part of any
// tree: they stay. A terminator's operand trees are ordered like any op's.
// CHECK-LABEL: ptx.entry @blocks
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT: %[[L:.*]] = ptx.add s32 %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[U:.*]] = ptx.mul lo s32 %[[A]], %[[A]] : i32
// CHECK-NEXT: %[[Q:.*]] = ptx.setp lt s32 %[[A]], %[[B]] : i32
// CHECK-NEXT: ptx.cond_bra %[[Q]], ^bb1, ^bb2
// CHECK: ^bb1:
// CHECK-NEXT: %{{.*}} = ptx.add s32 %[[L]], %[[L]] : i32
ptx.entry @blocks(%a: i32, %b: i32) {
  %live = ptx.add s32 %a, %b : i32
  %unused = ptx.mul lo s32 %a, %a : i32
  %q = ptx.setp lt s32 %a, %b : i32
  ptx.cond_bra %q, ^bb1, ^bb2
^bb1:
  %twice = ptx.add s32 %live, %live : i32
  ptx.bra ^bb2
^bb2:
  ptx.ret
}
