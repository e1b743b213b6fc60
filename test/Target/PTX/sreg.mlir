// Every special register: 32-bit ones through mov.u32, %clock64 and
// %globaltimer through mov.u64.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry sregs(
ptx.entry @sregs(%out: i64 {ptx.ptr = i32}) {
  // CHECK:      mov.u32 %r1, %tid.x;
  // CHECK-NEXT: mov.u32 %r2, %tid.y;
  // CHECK-NEXT: mov.u32 %r3, %tid.z;
  // CHECK-NEXT: mov.u32 %r4, %ntid.x;
  // CHECK-NEXT: mov.u32 %r5, %ntid.y;
  // CHECK-NEXT: mov.u32 %r6, %ntid.z;
  // CHECK-NEXT: mov.u32 %r7, %ctaid.x;
  // CHECK-NEXT: mov.u32 %r8, %ctaid.y;
  // CHECK-NEXT: mov.u32 %r9, %ctaid.z;
  // CHECK-NEXT: mov.u32 %r10, %nctaid.x;
  // CHECK-NEXT: mov.u32 %r11, %nctaid.y;
  // CHECK-NEXT: mov.u32 %r12, %nctaid.z;
  // CHECK-NEXT: mov.u32 %r13, %laneid;
  // CHECK-NEXT: mov.u32 %r14, %warpid;
  // CHECK-NEXT: mov.u32 %r15, %nwarpid;
  // CHECK-NEXT: mov.u32 %r16, %smid;
  // CHECK-NEXT: mov.u32 %r17, %nsmid;
  // CHECK-NEXT: mov.u32 %r18, %clock;
  // CHECK-NEXT: mov.u64 %rd2, %clock64;
  // CHECK-NEXT: mov.u64 %rd3, %globaltimer;
  // CHECK-NEXT: mov.u32 %r19, %dynamic_smem_size;
  // CHECK-NEXT: mov.u32 %r20, %total_smem_size;
  // CHECK-NEXT: mov.u32 %r21, %lanemask_eq;
  // CHECK-NEXT: mov.u32 %r22, %lanemask_lt;
  // CHECK-NEXT: mov.u32 %r23, %lanemask_le;
  // CHECK-NEXT: mov.u32 %r24, %lanemask_gt;
  // CHECK-NEXT: mov.u32 %r25, %lanemask_ge;
  %0 = ptx.sreg tid.x : i32
  %1 = ptx.sreg tid.y : i32
  %2 = ptx.sreg tid.z : i32
  %3 = ptx.sreg ntid.x : i32
  %4 = ptx.sreg ntid.y : i32
  %5 = ptx.sreg ntid.z : i32
  %6 = ptx.sreg ctaid.x : i32
  %7 = ptx.sreg ctaid.y : i32
  %8 = ptx.sreg ctaid.z : i32
  %9 = ptx.sreg nctaid.x : i32
  %10 = ptx.sreg nctaid.y : i32
  %11 = ptx.sreg nctaid.z : i32
  %12 = ptx.sreg laneid : i32
  %13 = ptx.sreg warpid : i32
  %14 = ptx.sreg nwarpid : i32
  %15 = ptx.sreg smid : i32
  %16 = ptx.sreg nsmid : i32
  %17 = ptx.sreg clock : i32
  %18 = ptx.sreg clock64 : i64
  %19 = ptx.sreg globaltimer : i64
  %20 = ptx.sreg dynamic_smem_size : i32
  %21 = ptx.sreg total_smem_size : i32
  %22 = ptx.sreg lanemask_eq : i32
  %23 = ptx.sreg lanemask_lt : i32
  %24 = ptx.sreg lanemask_le : i32
  %25 = ptx.sreg lanemask_gt : i32
  %26 = ptx.sreg lanemask_ge : i32
  // Keep the timers observable.
  // CHECK-NEXT: st.global.u64 [%rd1], %rd2;
  // CHECK-NEXT: st.global.u64 [%rd1+8], %rd3;
  ptx.st global u64 [%out], %18 : i64, i64
  ptx.st global u64 [%out + 8], %19 : i64, i64
  ptx.ret
}
