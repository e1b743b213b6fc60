// shfl.sync in every mode, on i32, f32 and packed f16x2 values, with and
// without the lane-valid predicate.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry shuffles(
ptx.entry @shuffles(%v: i32, %x: f32, %h: vector<2xf16>) {
  %lane = ptx.constant 1 : i32
  %clampUp = ptx.constant 0 : i32
  %clamp = ptx.constant 31 : i32
  %mask = ptx.constant -1 : i32
  // CHECK:      mov.u32 %r2, 1;
  // CHECK-NEXT: mov.u32 %r3, 0;
  // CHECK-NEXT: mov.u32 %r4, 31;
  // CHECK-NEXT: mov.u32 %r5, 4294967295;
  // CHECK-NEXT: shfl.sync.up.b32 %r6, %r1, %r2, %r3, %r5;
  // CHECK-NEXT: shfl.sync.down.b32 %r7, %r1, %r2, %r4, %r5;
  // CHECK-NEXT: shfl.sync.bfly.b32 %f2, %f1, %r2, %r4, %r5;
  // CHECK-NEXT: shfl.sync.idx.b32 %hh2, %hh1, %r3, %r4, %r5;
  %0, %p0 = ptx.shfl_sync up %v, %lane, %clampUp, %mask : i32 -> i32
  %1, %p1 = ptx.shfl_sync down %v, %lane, %clamp, %mask : i32 -> i32
  %2, %p2 = ptx.shfl_sync bfly %x, %lane, %clamp, %mask : f32 -> f32
  %3, %p3 = ptx.shfl_sync idx %h, %clampUp, %clamp, %mask : vector<2xf16> -> vector<2xf16>
  // The predicate is printed only when something reads it.
  // CHECK-NEXT: shfl.sync.down.b32 %r8|%p1, %r1, %r2, %r4, %r5;
  // CHECK-NEXT: selp.b32 %r9, %r8, %r1, %p1;
  %4, %valid = ptx.shfl_sync down %v, %lane, %clamp, %mask : i32 -> i32
  %5 = ptx.selp b32 %4, %v, %valid : i32
  ptx.ret
}
