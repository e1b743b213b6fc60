// RUN: kaio-opt %s --convert-cf-to-ptx | FileCheck %s

// Branches keep their successors and block arguments.
// CHECK-LABEL: ptx.entry @loop
// CHECK-SAME: (%[[N:.*]]: i32)
ptx.entry @loop(%n: i32) {
  // CHECK: %[[ZERO:.*]] = ptx.constant 0 : i32
  // CHECK: ptx.bra ^[[HEAD:[a-z0-9]+]](%[[ZERO]] : i32)
  %zero = ptx.constant 0 : i32
  cf.br ^head(%zero : i32)
// CHECK: ^[[HEAD]](%[[I:.*]]: i32):
^head(%i: i32):
  // CHECK: %[[GO:.*]] = ptx.setp lt s32 %[[I]], %[[N]] : i32
  // CHECK: ptx.cond_bra %[[GO]], ^[[BODY:[a-z0-9]+]], ^[[EXIT:[a-z0-9]+]]
  %go = ptx.setp lt s32 %i, %n : i32
  cf.cond_br %go, ^body, ^exit
// CHECK: ^[[BODY]]:
^body:
  // CHECK: %[[NEXT:.*]] = ptx.add s32 %[[I]], %{{.*}} : i32
  // CHECK: ptx.bra ^[[HEAD]](%[[NEXT]] : i32)
  %one = ptx.constant 1 : i32
  %next = ptx.add s32 %i, %one : i32
  cf.br ^head(%next : i32)
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: ptx.ret
^exit:
  ptx.ret
}

// CHECK-LABEL: ptx.entry @cond_br_arguments
// CHECK: ptx.cond_bra %{{.*}}, ^{{.*}}(%{{.*}} : i32), ^{{.*}}(%{{.*}} : i32)
ptx.entry @cond_br_arguments(%a: i32, %b: i32) {
  %p = ptx.setp lt s32 %a, %b : i32
  cf.cond_br %p, ^join(%a : i32), ^join(%b : i32)
^join(%x: i32):
  ptx.ret
}
