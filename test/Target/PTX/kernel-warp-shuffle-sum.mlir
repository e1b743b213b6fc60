// A whole kernel: every warp sums the 32 floats it covers with shfl.sync
// (butterfly steps 16/8/4 leave each lane with the sum of its residue class
// mod 4, then down steps 2/1 gather the total in lane 0), and lane 0 writes
// out[warp] = sum. Threads past n contribute 0 but still take part in every
// shuffle, since the member mask names the whole warp. Launch with a block
// size that is a multiple of 32; out holds one float per warp of the grid.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90 sm_100a

// CHECK-LABEL: // kaio.kernel warp_sum(ptr<const f32>,ptr<f32>,u32)
// CHECK-NEXT: .visible .entry warp_sum(
// CHECK-NEXT:   .param .u64 .ptr.global warp_sum_param_0,
// CHECK-NEXT:   .param .u64 .ptr.global warp_sum_param_1,
// CHECK-NEXT:   .param .u32 warp_sum_param_2
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 1024
// CHECK:        ld.param.u64 %rd1, [warp_sum_param_0];
// CHECK-NEXT:   ld.param.u64 %rd2, [warp_sum_param_1];
// CHECK-NEXT:   ld.param.u32 %r1, [warp_sum_param_2];
// CHECK-NEXT:   mov.u32 %r2, %tid.x;
// CHECK-NEXT:   mov.u32 %r3, %ctaid.x;
// CHECK-NEXT:   mov.u32 %r4, %ntid.x;
// CHECK-NEXT:   mad.lo.s32 %r5, %r3, %r4, %r2;
// CHECK-NEXT:   mov.u32 %r6, %laneid;
// CHECK-NEXT:   setp.lt.u32 %p1, %r5, %r1;
// CHECK-NEXT:   cvta.to.global.u64 %rd3, %rd1;
// CHECK-NEXT:   mov.u32 %r7, 4;
// CHECK-NEXT:   mul.wide.u32 %rd4, %r5, %r7;
// CHECK-NEXT:   add.s64 %rd5, %rd3, %rd4;
// CHECK-NEXT:   @%p1 ld.global.nc.f32 %f1, [%rd5];
// CHECK-NEXT:   mov.f32 %f2, 0f00000000;
// CHECK-NEXT:   selp.f32 %f3, %f1, %f2, %p1;
// CHECK-NEXT:   mov.u32 %r8, 4294967295;
// CHECK-NEXT:   mov.u32 %r9, 31;
// CHECK-NEXT:   mov.u32 %r10, 16;
// CHECK-NEXT:   mov.u32 %r11, 8;
// CHECK-NEXT:   mov.u32 %r12, 4;
// CHECK-NEXT:   mov.u32 %r13, 2;
// CHECK-NEXT:   mov.u32 %r14, 1;
// CHECK-NEXT:   shfl.sync.bfly.b32 %f4, %f3, %r10, %r9, %r8;
// CHECK-NEXT:   add.rn.f32 %f5, %f3, %f4;
// CHECK-NEXT:   shfl.sync.bfly.b32 %f6, %f5, %r11, %r9, %r8;
// CHECK-NEXT:   add.rn.f32 %f7, %f5, %f6;
// CHECK-NEXT:   shfl.sync.bfly.b32 %f8, %f7, %r12, %r9, %r8;
// CHECK-NEXT:   add.rn.f32 %f9, %f7, %f8;
// CHECK-NEXT:   shfl.sync.down.b32 %f10, %f9, %r13, %r9, %r8;
// CHECK-NEXT:   add.rn.f32 %f11, %f9, %f10;
// CHECK-NEXT:   shfl.sync.down.b32 %f12, %f11, %r14, %r9, %r8;
// CHECK-NEXT:   add.rn.f32 %f13, %f11, %f12;
// CHECK-NEXT:   mov.u32 %r15, 0;
// CHECK-NEXT:   setp.eq.u32 %p2, %r6, %r15;
// CHECK-NEXT:   mov.u32 %r16, 5;
// CHECK-NEXT:   shr.u32 %r17, %r5, %r16;
// CHECK-NEXT:   cvta.to.global.u64 %rd6, %rd2;
// CHECK-NEXT:   mul.wide.u32 %rd7, %r17, %r7;
// CHECK-NEXT:   add.s64 %rd8, %rd6, %rd7;
// CHECK-NEXT:   @%p2 st.global.f32 [%rd8], %f13;
// CHECK-NEXT:   ret;
// CHECK-NEXT: }
ptx.entry @warp_sum(%in: i64 {ptx.ptr = f32, ptx.readonly},
                    %out: i64 {ptx.ptr = f32}, %n: i32)
    attributes {maxntid = array<i32: 1024>} {
  %tid = ptx.sreg tid.x : i32
  %ctaid = ptx.sreg ctaid.x : i32
  %ntid = ptx.sreg ntid.x : i32
  %gid = ptx.mad lo s32 %ctaid, %ntid, %tid : i32
  %lane = ptx.sreg laneid : i32
  %inRange = ptx.setp lt u32 %gid, %n : i32
  %gin = ptx.cvta to global %in : i64 -> i64
  %four = ptx.constant 4 : i32
  %off = ptx.mul wide u32 %gid, %four : (i32, i32) -> i64
  %addr = ptx.add s64 %gin, %off : i64
  // The guarded load leaves %loaded undefined past n; selp replaces it by 0.
  %loaded = ptx.ld if %inRange global nc f32 [%addr] : i64 -> f32
  %zero = ptx.constant 0.0 : f32
  %x = ptx.selp f32 %loaded, %zero, %inRange : f32
  %all = ptx.constant -1 : i32
  %clamp = ptx.constant 31 : i32
  %c16 = ptx.constant 16 : i32
  %c8 = ptx.constant 8 : i32
  %c4 = ptx.constant 4 : i32
  %c2 = ptx.constant 2 : i32
  %c1 = ptx.constant 1 : i32
  %y16, %v16 = ptx.shfl_sync bfly %x, %c16, %clamp, %all : f32 -> f32
  %s16 = ptx.add rn f32 %x, %y16 : f32
  %y8, %v8 = ptx.shfl_sync bfly %s16, %c8, %clamp, %all : f32 -> f32
  %s8 = ptx.add rn f32 %s16, %y8 : f32
  %y4, %v4 = ptx.shfl_sync bfly %s8, %c4, %clamp, %all : f32 -> f32
  %s4 = ptx.add rn f32 %s8, %y4 : f32
  %y2, %v2 = ptx.shfl_sync down %s4, %c2, %clamp, %all : f32 -> f32
  %s2 = ptx.add rn f32 %s4, %y2 : f32
  %y1, %v1 = ptx.shfl_sync down %s2, %c1, %clamp, %all : f32 -> f32
  %sum = ptx.add rn f32 %s2, %y1 : f32
  // out[gid / 32] = sum, from lane 0 only.
  %zeroI = ptx.constant 0 : i32
  %isLane0 = ptx.setp eq u32 %lane, %zeroI : i32
  %c5 = ptx.constant 5 : i32
  %warp = ptx.shr u32 %gid, %c5 : i32
  %gout = ptx.cvta to global %out : i64 -> i64
  %woff = ptx.mul wide u32 %warp, %four : (i32, i32) -> i64
  %dst = ptx.add s64 %gout, %woff : i64
  ptx.st if %isLane0 global f32 [%dst], %sum : i64, f32
  ptx.ret
}
