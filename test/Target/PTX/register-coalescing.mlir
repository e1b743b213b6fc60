// Register coalescing in the printer: block arguments share the registers of
// the values their edges pass, and wgmma's accumulators stay in place, when
// nothing interferes -- including registers a wgmma still reads or writes
// after its issue, until a wgmma.wait_group retires it.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90a --ptx-verify-coalescing %s | FileCheck %s
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90a --ptx-no-coalesce %s | FileCheck %s --check-prefix=NOCO
// RUN: %ptx-check %s sm_90a

module attributes {ptx.target = "sm_90a"} {

// A GEMM main loop keeping one wgmma group in flight across the back edge:
// no instruction may touch the accumulators between the wgmmas (ptxas would
// serialise them, C7514), so the back edge and the exit edge move nothing.
// CHECK-LABEL: .visible .entry in_flight_accumulators(
// CHECK:      $L__BB0_1:
// CHECK-NEXT: wgmma.fence.sync.aligned;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {[[ACC:%f[0-9]+, %f[0-9]+, %f[0-9]+, %f[0-9]+]]}, %rd1, %rd2, 1, 1, 1, 0, 0;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {[[ACC]]}, %rd1, %rd2, 1, 1, 1, 0, 0;
// CHECK-NEXT: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK-NEXT: add.u32 [[I:%r[0-9]+]], [[I]], %r{{[0-9]+}};
// CHECK-NEXT: setp.lt.u32 %p1, [[I]], %r{{[0-9]+}};
// CHECK-NEXT: @%p1 bra $L__BB0_1;
// CHECK-NEXT: $L__BB0_2:
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK-NEXT: st.global.v4.f32 [%rd{{[0-9]+}}], {[[ACC]]};
// Without coalescing (--ptx-no-coalesce) every value has its own register:
// the wgmma copies its accumulators in and the back edge moves them back.
// NOCO-LABEL: .visible .entry in_flight_accumulators(
// NOCO:       wgmma.fence.sync.aligned;
// NOCO-NEXT:  mov.f32
// NOCO:       @!%p1 bra
// NOCO-NEXT:  mov.b32
// NOCO-NEXT:  mov.f32
ptx.entry @in_flight_accumulators(%adesc: i64, %bdesc: i64, %n: i32,
                                  %out: i64 {ptx.ptr = f32, ptx.align = 16})
    attributes {reqntid = array<i32: 128>} {
  %gout = ptx.cvta to global %out : i64 -> i64
  %zero = ptx.constant 0 : i32
  %c1 = ptx.constant 1 : i32
  %fz = ptx.constant 0.0 : f32
  ptx.bra ^loop(%zero, %fz, %fz, %fz, %fz : i32, f32, f32, f32, f32)
^loop(%i: i32, %x0: f32, %x1: f32, %x2: f32, %x3: f32):
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%x0, %x1, %x2, %x3},
      %adesc, %bdesc : f32
  %e:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%d#0, %d#1, %d#2, %d#3},
      %adesc, %bdesc : f32
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 1
  %i2 = ptx.add u32 %i, %c1 : i32
  %more = ptx.setp lt u32 %i2, %n : i32
  ptx.cond_bra %more, ^loop(%i2, %e#0, %e#1, %e#2, %e#3 : i32, f32, f32, f32, f32),
      ^done(%e#0, %e#1, %e#2, %e#3 : f32, f32, f32, f32)
^done(%r0: f32, %r1: f32, %r2: f32, %r3: f32):
  ptx.wgmma_wait_group 0
  ptx.st global f32 [%gout], %r0, %r1, %r2, %r3 : i64, f32, f32, f32, f32
  ptx.ret
}

// The next A fragments are computed while the wgmma reading the current ones
// is in flight: they must not take the current ones' registers (SSA says the
// old fragments are dead after the issue; the tensor cores still read them).
// They get registers of their own and move after wait_group 0.
// CHECK-LABEL: .visible .entry in_flight_fragments(
// CHECK:      wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f{{.*}}}, {[[A0:%r[0-9]+]], [[A1:%r[0-9]+]], [[A2:%r[0-9]+]], [[A3:%r[0-9]+]]}, %rd{{[0-9]+}}, 1, 1, 1, 0;
// CHECK-NEXT: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: xor.b32 [[N0:%r[0-9]+]], [[A0]], %r{{[0-9]+}};
// CHECK-NOT:  [[A0]],
// CHECK:      wgmma.wait_group.sync.aligned 0;
// CHECK:      mov.b32 [[A0]], [[N0]];
ptx.entry @in_flight_fragments(%bdesc: i64, %n: i32,
                               %out: i64 {ptx.ptr = f32, ptx.align = 16})
    attributes {reqntid = array<i32: 128>} {
  %gout = ptx.cvta to global %out : i64 -> i64
  %zero = ptx.constant 0 : i32
  %c1 = ptx.constant 1 : i32
  %mask = ptx.constant 1 : i32
  %fz = ptx.constant 0.0 : f32
  %a0 = ptx.constant 15360 : i32
  %a1 = ptx.constant 15361 : i32
  %a2 = ptx.constant 15362 : i32
  %a3 = ptx.constant 15363 : i32
  ptx.bra ^loop(%zero, %a0, %a1, %a2, %a3, %fz, %fz, %fz, %fz
                : i32, i32, i32, i32, i32, f32, f32, f32, f32)
^loop(%i: i32, %f0: i32, %f1: i32, %f2: i32, %f3: i32,
      %x0: f32, %x1: f32, %x2: f32, %x3: f32):
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%x0, %x1, %x2, %x3},
      {%f0, %f1, %f2, %f3}, %bdesc : f32, i32
  ptx.wgmma_commit_group
  %g0 = ptx.xor b32 %f0, %mask : i32
  %g1 = ptx.xor b32 %f1, %mask : i32
  %g2 = ptx.xor b32 %f2, %mask : i32
  %g3 = ptx.xor b32 %f3, %mask : i32
  ptx.wgmma_wait_group 0
  %i2 = ptx.add u32 %i, %c1 : i32
  %more = ptx.setp lt u32 %i2, %n : i32
  ptx.cond_bra %more, ^loop(%i2, %g0, %g1, %g2, %g3, %d#0, %d#1, %d#2, %d#3
                            : i32, i32, i32, i32, i32, f32, f32, f32, f32), ^done
^done:
  ptx.st global f32 [%gout], %d#0, %d#1, %d#2, %d#3 : i64, f32, f32, f32, f32
  ptx.ret
}

// scale-d 0 ignores the old accumulators, unless a guard may switch the
// wgmma off: then the new ones must start as copies of the old (the first
// takes the zero's own register, which nothing reads afterwards).
// CHECK-LABEL: .visible .entry guarded_scale_d_zero(
// CHECK:      wgmma.fence.sync.aligned;
// CHECK-NEXT: mov.f32 [[C1:%f[0-9]+]], [[Z:%f[0-9]+]];
// CHECK-NEXT: mov.f32 [[C2:%f[0-9]+]], [[Z]];
// CHECK-NEXT: mov.f32 [[C3:%f[0-9]+]], [[Z]];
// The copies write registers the wgmma reads: another fence after them.
// CHECK-NEXT: wgmma.fence.sync.aligned;
// CHECK-NEXT: @%p1 wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {[[Z]], [[C1]], [[C2]], [[C3]]}
ptx.entry @guarded_scale_d_zero(%adesc: i64, %bdesc: i64, %on: i32,
                                %out: i64 {ptx.ptr = f32, ptx.align = 16})
    attributes {reqntid = array<i32: 128>} {
  %gout = ptx.cvta to global %out : i64 -> i64
  %zero = ptx.constant 0 : i32
  %p = ptx.setp ne u32 %on, %zero : i32
  %fz = ptx.constant 0.0 : f32
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async if %p m64n8k16 f32 f16 f16 {%fz, %fz, %fz, %fz},
      %adesc, %bdesc scale_d_imm 0 : f32
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  ptx.st global f32 [%gout], %d#0, %d#1, %d#2, %d#3 : i64, f32, f32, f32, f32
  ptx.ret
}

}
