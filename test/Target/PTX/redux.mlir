// redux.sync: add/min/max on u32/s32 and the bitwise and/or/xor on b32
// (sm_80, PTX 7.0).
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90 sm_90a

// CHECK:      .version 7.0
// CHECK-LABEL: .visible .entry warp_reductions(
ptx.entry @warp_reductions(%a: i32) {
  // CHECK:      mov.u32 %r2, 4294967295;
  // CHECK-NEXT: redux.sync.add.u32 %r3, %r1, %r2;
  // CHECK-NEXT: redux.sync.add.s32 %r4, %r1, %r2;
  // CHECK-NEXT: redux.sync.min.u32 %r5, %r1, %r2;
  // CHECK-NEXT: redux.sync.min.s32 %r6, %r1, %r2;
  // CHECK-NEXT: redux.sync.max.u32 %r7, %r1, %r2;
  // CHECK-NEXT: redux.sync.max.s32 %r8, %r1, %r2;
  // CHECK-NEXT: redux.sync.and.b32 %r9, %r1, %r2;
  // CHECK-NEXT: redux.sync.or.b32 %r10, %r1, %r2;
  // CHECK-NEXT: redux.sync.xor.b32 %r11, %r1, %r2;
  %mask = ptx.constant -1 : i32
  %0 = ptx.redux_sync add u32 %a, %mask
  %1 = ptx.redux_sync add s32 %a, %mask
  %2 = ptx.redux_sync min u32 %a, %mask
  %3 = ptx.redux_sync min s32 %a, %mask
  %4 = ptx.redux_sync max u32 %a, %mask
  %5 = ptx.redux_sync max s32 %a, %mask
  %6 = ptx.redux_sync and b32 %a, %mask
  %7 = ptx.redux_sync or b32 %a, %mask
  %8 = ptx.redux_sync xor b32 %a, %mask
  ptx.ret
}
