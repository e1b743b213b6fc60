// RUN: kaio-opt %s --kaio-rematerialize-offsets --split-input-file | FileCheck %s
// RUN: kaio-opt %s --kaio-rematerialize-offsets --cse --split-input-file | FileCheck %s --check-prefix=CSE

// LICM left `x ^ 32` and `(x ^ 64) + 4096` outside the loop, and the loop
// uses x itself: each moves next to its use (users first, so the xor under
// the add moves too), and nothing is left outside.
// CHECK-LABEL: func.func @steps_of_a_live_address
// CHECK-SAME: (%[[X:.*]]: i32, %{{.*}}: i32)
// CHECK-NOT: arith.xori
// CHECK: scf.for
// CHECK:   ptx.ldmatrix [%[[X]]]
// CHECK:   %[[S:.*]] = arith.xori %[[X]], %{{.*}} : i32
// CHECK:   ptx.ldmatrix [%[[S]]]
// CHECK:   %[[T:.*]] = arith.xori %[[X]], %{{.*}} : i32
// CHECK:   %[[U:.*]] = arith.addi %[[T]], %{{.*}} : i32
// CHECK:   ptx.ldmatrix [%[[U]]]
// CHECK: }
// CHECK-NOT: arith.xori
// CHECK: return
func.func @steps_of_a_live_address(%x: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c4096 = arith.constant 4096 : i32
  %s = arith.xori %x, %c32 : i32
  %t = arith.xori %x, %c64 : i32
  %u = arith.addi %t, %c4096 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %ld_x = ptx.ldmatrix [%x] : i32 -> i32
    %ld_s = ptx.ldmatrix [%s] : i32 -> i32
    %ld_u = ptx.ldmatrix [%u] : i32 -> i32
  }
  return
}

// -----

// x is not used in the loop: moving `x ^ 32` in would keep x live instead,
// no register saved. A use outside the loop keeps the original, and CSE
// then merges the loop's copy back into it: the pass changes nothing that
// stays.
// CHECK-LABEL: func.func @not_live_in_the_loop
// CHECK: %[[S:.*]] = arith.xori
// CHECK: scf.for
// CHECK:   ptx.ldmatrix [%[[S]]]
// CSE-LABEL: func.func @not_live_in_the_loop
// CSE: %[[S:.*]] = arith.xori
// CSE: %[[T:.*]] = arith.xori
// CSE-NOT: arith.xori
// CSE: scf.for
// CSE:   ptx.ldmatrix [%[[S]]]
// CSE:   ptx.ldmatrix [%{{.*}}]
// CSE:   ptx.ldmatrix [%[[T]]]
// CSE: ptx.ldmatrix [%[[T]]]
func.func @not_live_in_the_loop(%x: i32, %y: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %s = arith.xori %x, %c32 : i32
  %t = arith.xori %y, %c32 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %ld_s = ptx.ldmatrix [%s] : i32 -> i32
    %ld_y = ptx.ldmatrix [%y] : i32 -> i32
    %ld_t = ptx.ldmatrix [%t] : i32 -> i32
  }
  %ld_t2 = ptx.ldmatrix [%t] : i32 -> i32
  return
}

// -----

// Nested loops: the copy goes next to the use in the inner loop, x being
// used in the outer one; an op of two variables, or of a constant and
// nothing else, is not an offset.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32)
// CHECK: %[[XY:.*]] = arith.xori %[[X]], %[[Y]] : i32
// CHECK: scf.for
// CHECK:   ptx.ldmatrix [%[[X]]]
// CHECK:   scf.for
// CHECK:     %[[S:.*]] = arith.addi %[[X]], %{{.*}} : i32
// CHECK:     ptx.ldmatrix [%[[S]]]
// CHECK:     ptx.ldmatrix [%[[XY]]]
func.func @nested(%x: i32, %y: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %s = arith.addi %x, %c16 : i32
  %xy = arith.xori %x, %y : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %ld_x = ptx.ldmatrix [%x] : i32 -> i32
    scf.for %j = %c0 to %n step %c1 : i32 {
      %ld_s = ptx.ldmatrix [%s] : i32 -> i32
      %ld_xy = ptx.ldmatrix [%xy] : i32 -> i32
    }
  }
  return
}

// -----

// Any use moves, not only addresses: the register is the saving.
// CHECK-LABEL: func.func @not_an_address
// CHECK-SAME: (%[[X:.*]]: i32, %{{.*}}: i32)
// CHECK-NOT: arith.xori
// CHECK: scf.for
// CHECK:   ptx.ldmatrix
// CHECK:   %[[S:.*]] = arith.xori %[[X]], %{{.*}} : i32
// CHECK:   arith.addi %[[S]], %{{.*}} : i32
func.func @not_an_address(%x: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %s = arith.xori %x, %c32 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %ld_x = ptx.ldmatrix [%x] : i32 -> i32
    %y = arith.addi %s, %i : i32
    %ld_y = ptx.ldmatrix [%y] : i32 -> i32
  }
  return
}
