// Branches and block arguments: fall-through elision, bra.uni, cond_bra
// with and without edge operands, parallel moves that need temporaries (a
// swap), loops, exit and trap.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// A counted loop: i and acc are block arguments of the header. Register
// coalescing gives i the zero's register (then i2 too: i is dead once i2
// is computed) and the exit's %sum acc's; acc2 cannot share acc's register,
// as the exit still reads the old acc.
// CHECK-LABEL: .visible .entry counted_loop(
ptx.entry @counted_loop(%out: i64 {ptx.ptr = i32}, %n: i32) {
  // CHECK:      mov.u32 %r2, 0;
  // CHECK-NEXT: mov.u32 %r3, 1;
  // CHECK-NEXT: mov.b32 %r4, %r2;
  // CHECK-NEXT: $L__BB0_1:
  // CHECK-NEXT: setp.lt.s32 %p1, %r2, %r1;
  // CHECK-NEXT: add.s32 %r5, %r4, %r2;
  // CHECK-NEXT: add.s32 %r2, %r2, %r3;
  // CHECK-NEXT: @!%p1 bra $L__K0_edge0;
  // CHECK-NEXT: mov.b32 %r4, %r5;
  // CHECK-NEXT: bra $L__BB0_1;
  // CHECK-NEXT: $L__K0_edge0:
  // CHECK-NEXT: $L__BB0_2:
  // CHECK-NEXT: st.global.u32 [%rd1], %r4;
  // CHECK-NEXT: ret;
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  ptx.bra ^header(%zero, %zero : i32, i32)
^header(%i: i32, %acc: i32):
  %more = ptx.setp lt s32 %i, %n : i32
  %acc2 = ptx.add s32 %acc, %i : i32
  %i2 = ptx.add s32 %i, %one : i32
  ptx.cond_bra %more, ^header(%i2, %acc2 : i32, i32), ^done(%acc : i32)
^done(%sum: i32):
  ptx.st global u32 [%out], %sum : i64, i32
  ptx.ret
}

// Swapping two block arguments on the back edge goes through temporaries.
// CHECK-LABEL: .visible .entry swap_loop(
ptx.entry @swap_loop(%out: i64 {ptx.ptr = f32}, %n: i32, %x: f32, %y: f32) {
  // CHECK:      mov.u32 %r2, 0;
  // CHECK-NEXT: mov.u32 %r3, 1;
  // CHECK-NEXT: $L__BB1_1:
  // CHECK-NEXT: add.s32 %r2, %r2, %r3;
  // CHECK-NEXT: setp.lt.s32 %p1, %r2, %r1;
  // CHECK-NEXT: @!%p1 bra.uni $L__K1_edge0;
  // CHECK-NEXT: mov.f32 %f3, %f2;
  // CHECK-NEXT: mov.f32 %f4, %f1;
  // CHECK-NEXT: mov.f32 %f1, %f3;
  // CHECK-NEXT: mov.f32 %f2, %f4;
  // CHECK-NEXT: bra.uni $L__BB1_1;
  // CHECK-NEXT: $L__K1_edge0:
  // CHECK-NEXT: $L__BB1_2:
  // CHECK-NEXT: sub.rn.f32 %f5, %f1, %f2;
  // CHECK-NEXT: st.global.f32 [%rd1], %f5;
  // CHECK-NEXT: ret;
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  ptx.bra ^loop(%x, %y, %zero : f32, f32, i32)
^loop(%a: f32, %b: f32, %i: i32):
  %i2 = ptx.add s32 %i, %one : i32
  %more = ptx.setp lt s32 %i2, %n : i32
  ptx.cond_bra uni %more, ^loop(%b, %a, %i2 : f32, f32, i32), ^done
^done:
  %d = ptx.sub rn f32 %a, %b : f32
  ptx.st global f32 [%out], %d : i64, f32
  ptx.ret
}

// Diamonds: cond_bra without edge operands, a join with a block argument,
// an explicit forward bra.uni, exit and a guarded trap.
// CHECK-LABEL: .visible .entry diamond(
ptx.entry @diamond(%out: i64 {ptx.ptr = i32}, %a: i32) {
  // %a, %m and %abs share one register: the join moves nothing.
  // CHECK:      mov.u32 %r2, 0;
  // CHECK-NEXT: setp.lt.s32 %p1, %r1, %r2;
  // CHECK-NEXT: @%p1 bra $L__BB2_2;
  // CHECK-NEXT: $L__BB2_1:
  // CHECK-NEXT: bra.uni $L__BB2_3;
  // CHECK-NEXT: $L__BB2_2:
  // CHECK-NEXT: neg.s32 %r1, %r1;
  // CHECK-NEXT: $L__BB2_3:
  // CHECK-NEXT: setp.eq.s32 %p2, %r1, %r2;
  // CHECK-NEXT: @%p2 trap;
  // CHECK-NEXT: setp.gt.s32 %p3, %r1, %r2;
  // CHECK-NEXT: @%p3 bra $L__BB2_5;
  // CHECK-NEXT: $L__BB2_4:
  // CHECK-NEXT: exit;
  // CHECK-NEXT: $L__BB2_5:
  // CHECK-NEXT: st.global.u32 [%rd1], %r1;
  // CHECK-NEXT: ret;
  %zero = ptx.constant 0 : i32
  %neg = ptx.setp lt s32 %a, %zero : i32
  ptx.cond_bra %neg, ^negate, ^keep
^keep:
  ptx.bra uni ^join(%a : i32)
^negate:
  %m = ptx.neg s32 %a : i32
  ptx.bra ^join(%m : i32)
^join(%abs: i32):
  %isZero = ptx.setp eq s32 %abs, %zero : i32
  ptx.trap if %isZero
  %pos = ptx.setp gt s32 %abs, %zero : i32
  ptx.cond_bra %pos, ^store, ^quit
^quit:
  ptx.exit
^store:
  ptx.st global u32 [%out], %abs : i64, i32
  ptx.ret
}

// When the true block follows, the branch tests the negated predicate and
// falls through.
// CHECK-LABEL: .entry fallthrough(
// CHECK: setp.lt.s32 %p1, %r1, %r2;
// CHECK-NEXT: @!%p1 bra $L__BB3_2;
// CHECK-NEXT: $L__BB3_1:
// CHECK-NEXT: trap;
// CHECK-NEXT: $L__BB3_2:
// CHECK-NEXT: ret;
ptx.entry @fallthrough(%a: i32, %b: i32) {
  %lt = ptx.setp lt s32 %a, %b : i32
  ptx.cond_bra %lt, ^then, ^done
^then:
  ptx.trap
  ptx.bra ^done
^done:
  ptx.ret
}
