// RUN: kaio-opt %s --kaio-group-async-copies --split-input-file --verify-diagnostics | FileCheck %s

// Straight line: a wait may leave the copies issued after its token's copy
// in flight.
// CHECK-LABEL: kaio.kernel @straight_line
kaio.kernel @straight_line(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %s0 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %s1 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %s2 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %t0 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t1 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s1 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t2 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s2 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  // CHECK: kaio.async_wait %{{.*}} {pending = 2 : i32}
  kaio.async_wait %t0
  // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
  kaio.async_wait %t1
  // Several tokens: the newest decides.
  // CHECK: kaio.async_wait %{{.*}}, %{{.*}} {pending = 0 : i32}
  kaio.async_wait %t0, %t2
  // No token: wait for everything.
  // CHECK: kaio.async_wait {pending = 0 : i32}
  kaio.async_wait
  // A pending count the user wrote is kept when it is safe (it may wait
  // earlier than needed); an unsafe one is replaced, with a warning.
  // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
  kaio.async_wait %t0 {pending = 1 : i32}
  // CHECK: kaio.async_wait %{{.*}} {pending = 2 : i32}
  // expected-warning @+1 {{pending = 5 would leave an awaited copy in flight (at most 2 newer copy groups are issued after it); waiting with 2 instead}}
  kaio.async_wait %t0 {pending = 5 : i32}
  kaio.return
}

// -----

// A double-buffered loop: the token of the copy issued in the previous
// iteration is loop-carried; only this iteration's prefetch is newer.
// CHECK-LABEL: kaio.kernel @loop_carried
kaio.kernel @loop_carried(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s0 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %s1 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %first = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  // CHECK: scf.for
  %last = scf.for %k = %c16 to %n step %c16 iter_args(%t = %first) -> (!kaio.token) : i32 {
    %next = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %s1 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
    kaio.async_wait %t
    kaio.barrier
    // CHECK: kaio.async_wait %{{.*}} {pending = 0 : i32}
    kaio.async_wait %next
    scf.yield %next : !kaio.token
  }
  // CHECK: kaio.async_wait %{{.*}} {pending = 0 : i32}
  kaio.async_wait %last
  kaio.return
}

// -----

// A copy inside a nested region could be newer or not: wait for everything.
// CHECK-LABEL: kaio.kernel @nested_region_copy
kaio.kernel @nested_region_copy(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %s0 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %s1 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %t0 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %big = arith.cmpi sgt, %n, %c0 : i32
  scf.if %big {
    %t1 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s1 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    // CHECK: kaio.async_wait %{{.*}} {pending = 0 : i32}
    kaio.async_wait %t1
  }
  // CHECK: kaio.async_wait %{{.*}} {pending = 0 : i32}
  // expected-remark @+1 {{the copies issued after the awaited one are not countable statically; waiting for all copies (cp.async.wait_group 0)}}
  kaio.async_wait %t0
  kaio.return
}

// -----

// A token from outside the wait's block: counted as 0.
// CHECK-LABEL: kaio.kernel @token_from_outer_block
kaio.kernel @token_from_outer_block(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s0 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %t0 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  scf.for %i = %c0 to %n step %c1 : i32 {
    // CHECK: kaio.async_wait %{{.*}} {pending = 0 : i32}
    // expected-remark @+1 {{not countable statically}}
    kaio.async_wait %t0
  }
  kaio.return
}

// -----

// wait_group takes a small immediate: deep pipelines wait a little early.
// CHECK-LABEL: kaio.kernel @clamped
// CHECK: kaio.async_wait %{{.*}} {pending = 7 : i32}
kaio.kernel @clamped(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %t0 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t1 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t2 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t3 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t4 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t5 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t6 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t7 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t8 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  kaio.async_wait %t0
  kaio.return
}

// -----

// A two-stage pipeline whose wait comes before the body's copy: the token
// awaited was issued two copies ago (one iteration earlier, or by the
// prologue), so the newer group (the other stage) may stay in flight. The
// count follows the loop-carried tokens through the yield and the inits.
// CHECK-LABEL: kaio.kernel @wait_before_copy
kaio.kernel @wait_before_copy(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s0 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %s1 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %t0 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t1 = kaio.async_copy %p[%c0, %c16] bounds [%n, %n] ld %n to %s1 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %r:2 = scf.for %k = %c0 to %n step %c16 iter_args(%a = %t0, %b = %t1) -> (!kaio.token, !kaio.token) : i32 {
    // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
    kaio.async_wait %a
    kaio.barrier
    %c = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
    kaio.async_wait %b
    scf.yield %b, %c : !kaio.token, !kaio.token
  }
  kaio.return
}

// -----

// If the prologue issues the stages in the other order, the first
// iteration has nothing newer than %a: the smaller count wins.
// CHECK-LABEL: kaio.kernel @first_iteration_decides
kaio.kernel @first_iteration_decides(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s0 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %s1 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %t1 = kaio.async_copy %p[%c0, %c16] bounds [%n, %n] ld %n to %s1 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t0 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %r:2 = scf.for %k = %c0 to %n step %c16 iter_args(%a = %t0, %b = %t1) -> (!kaio.token, !kaio.token) : i32 {
    // CHECK: kaio.async_wait %{{.*}} {pending = 0 : i32}
    kaio.async_wait %a
    kaio.barrier
    %c = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    scf.yield %b, %c : !kaio.token, !kaio.token
  }
  kaio.return
}

// -----

// A pipeline split into two loops (masked and unmasked steps): the second
// loop's inits are the first loop's results, whose newer copies are the
// ones its last iteration issued after them (or, when it runs none, its
// own inits'), so the second loop keeps the other stage in flight too.
// CHECK-LABEL: kaio.kernel @chained_loops
kaio.kernel @chained_loops(%p: !kaio.ptr<f16>, %n: i32, %m: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s0 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %s1 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %t0 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t1 = kaio.async_copy %p[%c0, %c16] bounds [%n, %n] ld %n to %s1 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %r:2 = scf.for %k = %c0 to %m step %c16 iter_args(%a = %t0, %b = %t1) -> (!kaio.token, !kaio.token) : i32 {
    // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
    kaio.async_wait %a
    kaio.barrier
    %c = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    scf.yield %b, %c : !kaio.token, !kaio.token
  }
  %u:2 = scf.for %k = %m to %n step %c16 iter_args(%a = %r#0, %b = %r#1) -> (!kaio.token, !kaio.token) : i32 {
    // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
    kaio.async_wait %a
    kaio.barrier
    %c = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    scf.yield %b, %c : !kaio.token, !kaio.token
  }
  // After the loops: the first result has one newer copy, the second none.
  // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
  kaio.async_wait %u#0
  // CHECK: kaio.async_wait %{{.*}} {pending = 0 : i32}
  kaio.async_wait %u#1
  kaio.return
}

// -----

// A loop whose body's copies cannot be counted (one inside an scf.if):
// after it, only the copies after the loop count (fewer: still safe).
// CHECK-LABEL: kaio.kernel @loop_result_uncountable
kaio.kernel @loop_result_uncountable(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s0 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %t0 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%a = %t0) -> (!kaio.token) : i32 {
    %big = arith.cmpi sgt, %k, %c16 : i32
    scf.if %big {
      %x = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    }
    %c = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    scf.yield %a : !kaio.token
  }
  %t2 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
  kaio.async_wait %r
  kaio.return
}

// -----

// After a loop, its token result's newer copies are the fewer of what its
// last iteration issued after the yielded copy and what followed its init:
// %r#0 yields %c (one newer, %d) but may be its init %t1 (none newer) when
// the loop runs no iteration, so nothing may stay in flight.
// CHECK-LABEL: kaio.kernel @loop_result_zero_trips
kaio.kernel @loop_result_zero_trips(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s0 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %s1 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %t0 = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %t1 = kaio.async_copy %p[%c0, %c16] bounds [%n, %n] ld %n to %s1 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  %r:2 = scf.for %k = %c0 to %n step %c16 iter_args(%a = %t1, %b = %t0) -> (!kaio.token, !kaio.token) : i32 {
    %c = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    %d = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %s1 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    scf.yield %c, %d : !kaio.token, !kaio.token
  }
  // CHECK: kaio.async_wait %{{.*}} {pending = 0 : i32}
  kaio.async_wait %r#0
  // %r#1: none newer after its last iteration's %d, one (%t1) after its
  // init %t0 — and one copy after the loop.
  %e = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s0 : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  // CHECK: kaio.async_wait %{{.*}} {pending = 1 : i32}
  kaio.async_wait %r#1
  kaio.return
}
