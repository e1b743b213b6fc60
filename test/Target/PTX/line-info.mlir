// --ptx-line-info: one .file per source file, a .loc before each
// instruction that starts a new source line (none repeated for the same
// line), branches and terminators included.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 --ptx-line-info %s | FileCheck %s
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s --check-prefix=NOLINE
// RUN: %ptx-check %s sm_75 sm_80 sm_90 --ptx-line-info

ptx.entry @located(%n: i32) {
  %t = ptx.sreg tid.x : i32
  %i = ptx.add s32 %t, %n : i32
  // Two ops from one line of another file share one .loc.
  %sq = ptx.mul lo s32 %i, %i : i32 loc("kernel.cu":12:5)
  %d = ptx.sub s32 %sq, %n : i32 loc("kernel.cu":12:9)
  %c = ptx.setp lt s32 %d, %n : i32
  ptx.cond_bra %c, ^ok, ^bad
^bad:
  ptx.trap
  ptx.exit
^ok:
  ptx.ret
}

// CHECK:      .address_size 64
// CHECK-EMPTY:
// CHECK-NEXT: .file 1 "{{.*}}line-info.mlir"
// CHECK-NEXT: .file 2 "kernel.cu"
// CHECK-EMPTY:
// CHECK-NEXT: // kaio.kernel located(u32)
// CHECK:      ld.param.u32 %r1, [located_param_0];
// CHECK-NEXT: .loc 1 10 8
// CHECK-NEXT: mov.u32 %r2, %tid.x;
// CHECK-NEXT: .loc 1 11 8
// CHECK-NEXT: add.s32 %r3, %r2, %r1;
// CHECK-NEXT: .loc 2 12 5
// CHECK-NEXT: mul.lo.s32 %r4, %r3, %r3;
// CHECK-NEXT: sub.s32 %r5, %r4, %r1;
// CHECK-NEXT: .loc 1 15 8
// CHECK-NEXT: setp.lt.s32 %p1, %r5, %r1;
// CHECK-NEXT: .loc 1 16 3
// CHECK-NEXT: @%p1 bra $L__BB0_2;
// CHECK-NEXT: $L__BB0_1:
// CHECK-NEXT: .loc 1 18 3
// CHECK-NEXT: trap;
// CHECK-NEXT: .loc 1 19 3
// CHECK-NEXT: exit;
// CHECK-NEXT: $L__BB0_2:
// CHECK-NEXT: .loc 1 21 3
// CHECK-NEXT: ret;
// CHECK-NEXT: }

// NOLINE-NOT: .file
// NOLINE-NOT: .loc
