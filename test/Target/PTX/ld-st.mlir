// ld/st in every state space, 32- and 64-bit shared addresses, vectors,
// narrow types in wider registers, .nc, .volatile, every cache operator and
// positive/negative offsets.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

ptx.var shared @buf : b32 [64] align 16
ptx.var const @table : f32 [16] align 16

// CHECK-LABEL: .visible .entry spaces(
ptx.entry @spaces(%p: i64 {ptx.ptr = f32}, %x: f32) {
  // CHECK:      cvta.to.global.u64 %rd2, %rd1;
  // CHECK-NEXT: ld.f32 %f2, [%rd1];
  // CHECK-NEXT: ld.global.f32 %f3, [%rd2+4];
  // CHECK-NEXT: mov.u32 %r1, buf;
  // CHECK-NEXT: ld.shared.u32 %r2, [%r1+-4];
  // CHECK-NEXT: mov.u64 %rd3, buf;
  // CHECK-NEXT: ld.shared.b32 %r3, [%rd3];
  // CHECK-NEXT: mov.u64 %rd4, table;
  // CHECK-NEXT: ld.const.f32 %f4, [%rd4+60];
  // CHECK-NEXT: st.f32 [%rd1], %f1;
  // CHECK-NEXT: st.global.f32 [%rd2+-8], %f1;
  // CHECK-NEXT: st.shared.u32 [%r1+252], %r2;
  // CHECK-NEXT: st.shared.b32 [%rd3], %r3;
  // CHECK-NEXT: ld.volatile.shared.u32 %r4, [%r1+8];
  // CHECK-NEXT: st.volatile.shared.u32 [%r1+12], %r4;
  %g = ptx.cvta to global %p : i64 -> i64
  %0 = ptx.ld generic f32 [%p] : i64 -> f32
  %1 = ptx.ld global f32 [%g + 4] : i64 -> f32
  %s32 = ptx.addressof @buf : i32
  %2 = ptx.ld shared u32 [%s32 + -4] : i32 -> i32
  %s64 = ptx.addressof @buf : i64
  %3 = ptx.ld shared b32 [%s64] : i64 -> i32
  %c = ptx.addressof @table : i64
  %4 = ptx.ld const f32 [%c + 60] : i64 -> f32
  ptx.st generic f32 [%p], %x : i64, f32
  ptx.st global f32 [%g + -8], %x : i64, f32
  ptx.st shared u32 [%s32 + 252], %2 : i32, i32
  ptx.st shared b32 [%s64], %3 : i64, i32
  %5 = ptx.ld shared volatile u32 [%s32 + 8] : i32 -> i32
  ptx.st shared volatile u32 [%s32 + 12], %5 : i32, i32
  ptx.ret
}

// CHECK-LABEL: .visible .entry local_space(
ptx.entry @local_space(%p: i64 {ptx.ptr = f32}, %x: f32) {
  // CHECK:      cvta.to.local.u64 %rd2, %rd1;
  // CHECK-NEXT: st.local.f32 [%rd2], %f1;
  // CHECK-NEXT: ld.local.f32 %f2, [%rd2];
  // CHECK-NEXT: st.local.v2.f32 [%rd2+8], {%f1, %f2};
  // CHECK-NEXT: ld.local.v2.f32 {%f3, %f4}, [%rd2+8];
  %l = ptx.cvta to local %p : i64 -> i64
  ptx.st local f32 [%l], %x : i64, f32
  %0 = ptx.ld local f32 [%l] : i64 -> f32
  ptx.st local f32 [%l + 8], %x, %0 : i64, f32, f32
  %1:2 = ptx.ld local f32 [%l + 8] : i64 -> f32, f32
  ptx.ret
}

// CHECK-LABEL: .visible .entry vectors(
ptx.entry @vectors(%p: i64 {ptx.ptr = f32}) {
  // CHECK:      ld.global.v2.f32 {%f1, %f2}, [%rd1];
  // CHECK-NEXT: ld.global.v4.f32 {%f3, %f4, %f5, %f6}, [%rd1+16];
  // CHECK-NEXT: ld.global.v2.f64 {%fd1, %fd2}, [%rd1+32];
  // CHECK-NEXT: ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1+48];
  // CHECK-NEXT: ld.global.v2.u64 {%rd2, %rd3}, [%rd1+64];
  // CHECK-NEXT: ld.global.v4.u8 {%rs1, %rs2, %rs3, %rs4}, [%rd1+80];
  // CHECK-NEXT: ld.global.v2.s16 {%r5, %r6}, [%rd1+84];
  // CHECK-NEXT: ld.global.s8 %r7, [%rd1+88];
  // CHECK-NEXT: st.global.v4.f32 [%rd1+96], {%f3, %f4, %f5, %f6};
  // CHECK-NEXT: st.global.v2.f64 [%rd1+112], {%fd1, %fd2};
  // CHECK-NEXT: st.global.v4.u8 [%rd1+128], {%rs1, %rs2, %rs3, %rs4};
  // CHECK-NEXT: st.global.v2.u16 [%rd1+132], {%r5, %r6};
  // CHECK-NEXT: st.global.b8 [%rd1+136], %r7;
  %0:2 = ptx.ld global f32 [%p] : i64 -> f32, f32
  %1:4 = ptx.ld global f32 [%p + 16] : i64 -> f32, f32, f32, f32
  %2:2 = ptx.ld global f64 [%p + 32] : i64 -> f64, f64
  %3:4 = ptx.ld global b32 [%p + 48] : i64 -> i32, i32, i32, i32
  %4:2 = ptx.ld global u64 [%p + 64] : i64 -> i64, i64
  %5:4 = ptx.ld global u8 [%p + 80] : i64 -> i16, i16, i16, i16
  %6:2 = ptx.ld global s16 [%p + 84] : i64 -> i32, i32
  %7 = ptx.ld global s8 [%p + 88] : i64 -> i32
  ptx.st global f32 [%p + 96], %1#0, %1#1, %1#2, %1#3 : i64, f32, f32, f32, f32
  ptx.st global f64 [%p + 112], %2#0, %2#1 : i64, f64, f64
  ptx.st global u8 [%p + 128], %5#0, %5#1, %5#2, %5#3 : i64, i16, i16, i16, i16
  ptx.st global u16 [%p + 132], %6#0, %6#1 : i64, i32, i32
  ptx.st global b8 [%p + 136], %7 : i64, i32
  ptx.ret
}

// CHECK-LABEL: .visible .entry cache_ops(
ptx.entry @cache_ops(%p: i64 {ptx.ptr = f32}, %x: f32) {
  // CHECK:      ld.global.nc.f32 %f2, [%rd1];
  // CHECK-NEXT: ld.global.ca.nc.f32 %f3, [%rd1+4];
  // CHECK-NEXT: ld.global.cg.nc.v4.f32 {%f4, %f5, %f6, %f7}, [%rd1+16];
  // CHECK-NEXT: ld.global.cs.nc.v2.f32 {%f8, %f9}, [%rd1+32];
  // CHECK-NEXT: ld.global.ca.f32 %f10, [%rd1];
  // CHECK-NEXT: ld.global.cg.f32 %f11, [%rd1];
  // CHECK-NEXT: ld.global.cs.f32 %f12, [%rd1];
  // CHECK-NEXT: ld.global.lu.f32 %f13, [%rd1];
  // CHECK-NEXT: ld.global.cv.f32 %f14, [%rd1];
  // CHECK-NEXT: ld.volatile.global.f32 %f15, [%rd1];
  // CHECK-NEXT: ld.volatile.f32 %f16, [%rd1];
  // CHECK-NEXT: st.global.wb.f32 [%rd1], %f1;
  // CHECK-NEXT: st.global.cg.f32 [%rd1], %f1;
  // CHECK-NEXT: st.global.cs.v2.f32 [%rd1+8], {%f1, %f1};
  // CHECK-NEXT: st.global.wt.f32 [%rd1], %f1;
  // CHECK-NEXT: st.volatile.global.f32 [%rd1+-4], %f1;
  // CHECK-NEXT: st.volatile.f32 [%rd1], %f1;
  %0 = ptx.ld global nc f32 [%p] : i64 -> f32
  %1 = ptx.ld global nc ca f32 [%p + 4] : i64 -> f32
  %2:4 = ptx.ld global nc cg f32 [%p + 16] : i64 -> f32, f32, f32, f32
  %3:2 = ptx.ld global nc cs f32 [%p + 32] : i64 -> f32, f32
  %4 = ptx.ld global ca f32 [%p] : i64 -> f32
  %5 = ptx.ld global cg f32 [%p] : i64 -> f32
  %6 = ptx.ld global cs f32 [%p] : i64 -> f32
  %7 = ptx.ld global lu f32 [%p] : i64 -> f32
  %8 = ptx.ld global cv f32 [%p] : i64 -> f32
  %9 = ptx.ld global volatile f32 [%p] : i64 -> f32
  %10 = ptx.ld generic volatile f32 [%p] : i64 -> f32
  ptx.st global wb f32 [%p], %x : i64, f32
  ptx.st global cg f32 [%p], %x : i64, f32
  ptx.st global cs f32 [%p + 8], %x, %x : i64, f32, f32
  ptx.st global wt f32 [%p], %x : i64, f32
  ptx.st global volatile f32 [%p + -4], %x : i64, f32
  ptx.st generic volatile f32 [%p], %x : i64, f32
  ptx.ret
}
