// A whole kernel written in the ptx dialect: c[i] = a[i] + b[i] for i < n.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90 sm_90a sm_100a

// CHECK-LABEL: // kaio.kernel vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,u32)
// CHECK-NEXT: .visible .entry vector_add(
// CHECK-NEXT:   .param .u64 .ptr.global.align 16 vector_add_param_0,
// CHECK-NEXT:   .param .u64 .ptr.global.align 16 vector_add_param_1,
// CHECK-NEXT:   .param .u64 .ptr.global.align 16 vector_add_param_2,
// CHECK-NEXT:   .param .u32 vector_add_param_3
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 256
// CHECK-NEXT: {
// CHECK-NEXT:   .reg .pred %p<2>;
// CHECK-NEXT:   .reg .b32 %r<7>;
// CHECK-NEXT:   .reg .b64 %rd<11>;
// CHECK-NEXT:   .reg .f32 %f<4>;
// CHECK-EMPTY:
// CHECK-NEXT:   ld.param.u64 %rd1, [vector_add_param_0];
// CHECK-NEXT:   ld.param.u64 %rd2, [vector_add_param_1];
// CHECK-NEXT:   ld.param.u64 %rd3, [vector_add_param_2];
// CHECK-NEXT:   ld.param.u32 %r1, [vector_add_param_3];
// CHECK-NEXT:   mov.u32 %r2, %tid.x;
// CHECK-NEXT:   mov.u32 %r3, %ctaid.x;
// CHECK-NEXT:   mov.u32 %r4, %ntid.x;
// CHECK-NEXT:   mad.lo.s32 %r5, %r3, %r4, %r2;
// CHECK-NEXT:   setp.ge.u32 %p1, %r5, %r1;
// CHECK-NEXT:   @%p1 bra $L__BB0_2;
// CHECK-NEXT: $L__BB0_1:
// CHECK-NEXT:   cvta.to.global.u64 %rd4, %rd1;
// CHECK-NEXT:   cvta.to.global.u64 %rd5, %rd2;
// CHECK-NEXT:   cvta.to.global.u64 %rd6, %rd3;
// CHECK-NEXT:   mov.u32 %r6, 4;
// CHECK-NEXT:   mul.wide.u32 %rd7, %r5, %r6;
// CHECK-NEXT:   add.s64 %rd8, %rd4, %rd7;
// CHECK-NEXT:   add.s64 %rd9, %rd5, %rd7;
// CHECK-NEXT:   add.s64 %rd10, %rd6, %rd7;
// CHECK-NEXT:   ld.global.nc.f32 %f1, [%rd8];
// CHECK-NEXT:   ld.global.nc.f32 %f2, [%rd9];
// CHECK-NEXT:   add.rn.f32 %f3, %f1, %f2;
// CHECK-NEXT:   st.global.f32 [%rd10], %f3;
// CHECK-NEXT: $L__BB0_2:
// CHECK-NEXT:   ret;
// CHECK-NEXT: }
ptx.entry @vector_add(%a: i64 {ptx.ptr = f32, ptx.readonly, ptx.align = 16},
                      %b: i64 {ptx.ptr = f32, ptx.readonly, ptx.align = 16},
                      %c: i64 {ptx.ptr = f32, ptx.align = 16}, %n: i32)
    attributes {maxntid = array<i32: 256>} {
  %tid = ptx.sreg tid.x : i32
  %ctaid = ptx.sreg ctaid.x : i32
  %ntid = ptx.sreg ntid.x : i32
  %i = ptx.mad lo s32 %ctaid, %ntid, %tid : i32
  %oob = ptx.setp ge u32 %i, %n : i32
  ptx.cond_bra %oob, ^exit, ^body
^body:
  %ga = ptx.cvta to global %a : i64 -> i64
  %gb = ptx.cvta to global %b : i64 -> i64
  %gc = ptx.cvta to global %c : i64 -> i64
  %four = ptx.constant 4 : i32
  %off = ptx.mul wide u32 %i, %four : (i32, i32) -> i64
  %pa = ptx.add s64 %ga, %off : i64
  %pb = ptx.add s64 %gb, %off : i64
  %pc = ptx.add s64 %gc, %off : i64
  %x = ptx.ld global nc f32 [%pa] : i64 -> f32
  %y = ptx.ld global nc f32 [%pb] : i64 -> f32
  %s = ptx.add rn f32 %x, %y : f32
  ptx.st global f32 [%pc], %s : i64, f32
  ptx.bra ^exit
^exit:
  ptx.ret
}
