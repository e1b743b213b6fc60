// RUN: kaio-opt %s --ptx-cleanup --split-input-file --verify-diagnostics | FileCheck %s

// Casts between a type and its converted form cancel in pairs; dead
// side-effect-free instructions go; stores stay.
// CHECK-LABEL: ptx.entry @cleanup
// CHECK-SAME: (%[[P:.*]]: i64, %[[X:.*]]: i32)
// CHECK-NOT: unrealized_conversion_cast
// CHECK-NOT: ptx.mul
// CHECK: ptx.st global b32 [%[[P]]], %[[X]] : i64, i32
// CHECK-NEXT: ptx.ret
ptx.entry @cleanup(%p: i64, %x: i32) {
  %0 = builtin.unrealized_conversion_cast %x : i32 to index
  %1 = builtin.unrealized_conversion_cast %0 : index to i32
  %dead = ptx.mul lo s32 %1, %1 : i32
  ptx.st global b32 [%p], %1 : i64, i32
  ptx.ret
}

// -----

// An op that no conversion lowered is a located error.
ptx.entry @leftover(%x: f32) {
  // expected-error @+1 {{'math.atan' op was not lowered to the ptx dialect}}
  %0 = math.atan %x : f32
  ptx.ret
}

// -----

// So is a cast that does not cancel.
ptx.entry @unresolved_cast(%p: i64, %x: i32) {
  // expected-error @+1 {{'builtin.unrealized_conversion_cast' op was not lowered to the ptx dialect}}
  %0 = builtin.unrealized_conversion_cast %x : i32 to index
  %1 = builtin.unrealized_conversion_cast %0 : index to i64
  ptx.st global b64 [%p], %1 : i64, i64
  ptx.ret
}

// -----

// A special register that cannot change while the thread runs reads as an
// effect-free value: unused, it goes. One that may change (clocks, the
// timer, %warpid, %smid) is read like volatile memory and stays.
// CHECK-LABEL: ptx.entry @special_registers
// CHECK-NOT: tid.x
// CHECK-NOT: nctaid.x
// CHECK: ptx.sreg clock64 : i64
// CHECK-NEXT: ptx.sreg smid : i32
// CHECK-NEXT: ptx.ret
ptx.entry @special_registers() {
  %0 = ptx.sreg tid.x : i32
  %1 = ptx.sreg clock64 : i64
  %2 = ptx.sreg nctaid.x : i32
  %3 = ptx.sreg smid : i32
  ptx.ret
}
