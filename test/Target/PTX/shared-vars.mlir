// Module variables: static .shared arrays (with and without .align), an
// extern dynamic .shared array, .global and .const arrays, and their
// addresses as 32-bit (shared) and 64-bit registers.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK:      .address_size 64
// CHECK-EMPTY:
// CHECK-NEXT: .shared .align 16 .f32 tile[256];
// CHECK-EMPTY:
// CHECK-NEXT: .shared .b16 halves[64];
// CHECK-EMPTY:
// CHECK-NEXT: .extern .shared .align 16 .b8 dyn[];
// CHECK-EMPTY:
// CHECK-NEXT: .global .align 8 .u64 counters[4];
// CHECK-EMPTY:
// CHECK-NEXT: .const .align 4 .f32 coeffs[8];
// CHECK-EMPTY:
// CHECK-NEXT: .global .s8 bytes[3];
// ptxas has no .bf16 variables: their bits are declared.
// CHECK-EMPTY:
// CHECK-NEXT: .shared .align 2 .b16 brains[32];
ptx.var shared @tile : f32 [256] align 16
ptx.var shared @halves : b16 [64]
ptx.var shared @dyn : b8 extern align 16
ptx.var global @counters : u64 [4] align 8
ptx.var const @coeffs : f32 [8] align 4
ptx.var global @bytes : s8 [3]
ptx.var shared @brains : bf16 [32] align 2

// CHECK-LABEL: .visible .entry use_vars(
ptx.entry @use_vars(%x: f32) {
  // CHECK:      mov.u32 %r1, tile;
  // CHECK-NEXT: mov.u64 %rd1, tile;
  // CHECK-NEXT: mov.u32 %r2, halves;
  // CHECK-NEXT: mov.u32 %r3, dyn;
  // CHECK-NEXT: mov.u64 %rd2, dyn;
  // CHECK-NEXT: mov.u64 %rd3, counters;
  // CHECK-NEXT: mov.u64 %rd4, coeffs;
  // CHECK-NEXT: mov.u64 %rd5, bytes;
  %t32 = ptx.addressof @tile : i32
  %t64 = ptx.addressof @tile : i64
  %h32 = ptx.addressof @halves : i32
  %d32 = ptx.addressof @dyn : i32
  %d64 = ptx.addressof @dyn : i64
  %g = ptx.addressof @counters : i64
  %c = ptx.addressof @coeffs : i64
  %b = ptx.addressof @bytes : i64
  // CHECK-NEXT: st.shared.f32 [%r1+1020], %f1;
  // CHECK-NEXT: ld.shared.f32 %f2, [%rd1];
  // CHECK-NEXT: ld.shared.b16 %rs1, [%r2+126];
  // CHECK-NEXT: st.shared.f32 [%r3], %f2;
  // CHECK-NEXT: ld.shared.v4.f32 {%f3, %f4, %f5, %f6}, [%rd2+16];
  // CHECK-NEXT: red.global.add.u64 [%rd3+8], %rd3;
  // CHECK-NEXT: ld.const.f32 %f7, [%rd4+28];
  // CHECK-NEXT: st.global.s8 [%rd5+2], %rs1;
  ptx.st shared f32 [%t32 + 1020], %x : i32, f32
  %0 = ptx.ld shared f32 [%t64] : i64 -> f32
  %1 = ptx.ld shared b16 [%h32 + 126] : i32 -> i16
  ptx.st shared f32 [%d32], %0 : i32, f32
  %2:4 = ptx.ld shared f32 [%d64 + 16] : i64 -> f32, f32, f32, f32
  ptx.red global add u64 [%g + 8], %g : i64, i64
  %3 = ptx.ld const f32 [%c + 28] : i64 -> f32
  ptx.st global s8 [%b + 2], %1 : i64, i16
  ptx.ret
}
