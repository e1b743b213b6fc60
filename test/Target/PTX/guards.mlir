// Guard predicates (@p / @!p) on every kind of instruction that takes one.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_90 sm_100a

ptx.var shared @smem : b32 [64] align 16

// CHECK-LABEL: .visible .entry guarded(
ptx.entry @guarded(%p: i64 {ptx.ptr = f32}, %a: i32, %x: f32, %w: i64) {
  // CHECK:      setp.lt.s32 %p1, %r1, %r1;
  %c = ptx.setp lt s32 %a, %a : i32
  // Arithmetic, moves, conversions, comparisons.
  // CHECK-NEXT: @%p1 add.s32 %r2, %r1, %r1;
  // CHECK-NEXT: @!%p1 fma.rn.f32 %f2, %f1, %f1, %f1;
  // CHECK-NEXT: @%p1 mul.wide.s32 %rd3, %r1, %r1;
  // CHECK-NEXT: @!%p1 mov.b32 %r3, %f1;
  // CHECK-NEXT: @%p1 mov.b64 %rd4, {%r1, %r1};
  // CHECK-NEXT: @!%p1 mov.b64 {%r4, %r5}, %rd2;
  // CHECK-NEXT: @%p1 mov.u32 %r6, %tid.x;
  // CHECK-NEXT: @!%p1 cvt.rn.f32.s32 %f3, %r1;
  // CHECK-NEXT: @%p1 setp.gt.f32 %p2, %f1, %f1;
  // CHECK-NEXT: @!%p1 selp.b32 %r7, %r1, %r1, %p2;
  // CHECK-NEXT: @%p1 sqrt.rn.f32 %f4, %f1;
  // CHECK-NEXT: @!%p1 lop3.b32 %r8, %r1, %r1, %r1, 128;
  %0 = ptx.add if %c s32 %a, %a : i32
  %1 = ptx.fma if not %c rn f32 %x, %x, %x : f32
  %2 = ptx.mul if %c wide s32 %a, %a : (i32, i32) -> i64
  %3 = ptx.mov if not %c b32 %x : f32 -> i32
  %4 = ptx.pack if %c b64 %a, %a : i32, i32 -> i64
  %5:2 = ptx.unpack if not %c b64 %w : i64 -> i32, i32
  %6 = ptx.sreg if %c tid.x : i32
  %7 = ptx.cvt if not %c rn f32 s32 %a : i32 -> f32
  %8 = ptx.setp if %c gt f32 %x, %x : f32
  %9 = ptx.selp if not %c b32 %a, %a, %8 : i32
  %10 = ptx.sqrt if %c rn f32 %x : f32
  %11 = ptx.lop3 if not %c b32 %a, %a, %a, 128 : i32
  // Memory.
  // CHECK-NEXT: @%p1 ld.global.f32 %f5, [%rd1];
  // CHECK-NEXT: @!%p1 st.global.v2.f32 [%rd1+8], {%f1, %f5};
  // CHECK-NEXT: @%p1 cvta.to.global.u64 %rd5, %rd1;
  // CHECK-NEXT: @!%p1 atom.global.add.f32 %f6, [%rd1], %f1;
  // CHECK-NEXT: @%p1 red.global.add.u32 [%rd1], %r1;
  // CHECK-NEXT: @!%p1 mov.u32 %r9, smem;
  // CHECK-NEXT: @%p1 membar.gl;
  // CHECK-NEXT: @!%p1 fence.acq_rel.gpu;
  %12 = ptx.ld if %c global f32 [%p] : i64 -> f32
  ptx.st if not %c global f32 [%p + 8], %x, %12 : i64, f32, f32
  %13 = ptx.cvta if %c to global %p : i64 -> i64
  %14 = ptx.atom if not %c global add f32 [%p], %x : i64, f32 -> f32
  ptx.red if %c global add u32 [%p], %a : i64, i32
  %s = ptx.addressof if not %c @smem : i32
  ptx.membar if %c gl
  ptx.fence if not %c acq_rel gpu
  // Warp-level, tensor-core and async-copy instructions.
  // CHECK-NEXT: @%p1 shfl.sync.bfly.b32 %r10, %r1, %r1, %r1, %r1;
  // CHECK-NEXT: @!%p1 vote.sync.ballot.b32 %r11, %p1, %r1;
  // CHECK-NEXT: @%p1 activemask.b32 %r12;
  // CHECK-NEXT: @!%p1 redux.sync.add.u32 %r13, %r1, %r1;
  // CHECK-NEXT: @%p1 ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r14, %r15}, [%r9];
  // CHECK-NEXT: @!%p1 mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f7, %f8, %f9, %f10}, {%r14, %r15, %r14, %r15}, {%r14, %r15}, {%f1, %f1, %f1, %f1};
  // CHECK-NEXT: @%p1 cp.async.cg.shared.global [%r9], [%rd5], 16;
  // CHECK-NEXT: @!%p1 cp.async.commit_group;
  // CHECK-NEXT: @%p1 cp.async.wait_group 0;
  // CHECK-NEXT: @!%p1 cp.async.wait_all;
  // CHECK-NEXT: @%p1 bar.sync 0;
  // CHECK-NEXT: @!%p1 barrier.sync 1, 64;
  // CHECK-NEXT: @%p1 trap;
  // CHECK-NEXT: ret;
  %15, %v = ptx.shfl_sync if %c bfly %a, %a, %a, %a : i32 -> i32
  %16 = ptx.vote_sync if not %c ballot %c, %a : i32
  %17 = ptx.activemask if %c
  %18 = ptx.redux_sync if not %c add u32 %a, %a
  %19:2 = ptx.ldmatrix if %c [%s] : i32 -> i32, i32
  %20:4 = ptx.mma_sync if not %c m16n8k16 row col f32 f16 f16 f32
      {%19#0, %19#1, %19#0, %19#1}, {%19#0, %19#1}, {%x, %x, %x, %x}
      : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32)
      -> f32, f32, f32, f32
  ptx.cp_async if %c cg 16 [%s], [%13] : i32
  ptx.cp_async_commit_group if not %c
  ptx.cp_async_wait_group if %c 0
  ptx.cp_async_wait_all if not %c
  ptx.bar_sync if %c 0
  ptx.barrier_sync if not %c 1, 64
  ptx.trap if %c
  ptx.ret
}
