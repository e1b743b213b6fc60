// RUN: kaio-opt %s --kaio-pipeline-copies --kaio-group-async-copies --split-input-file --verify-diagnostics | FileCheck %s

// {kaio.pipeline_prefetch}: the leading reads of iteration i + 1 (the first
// k step's fragments) are issued with its wait and barrier (stage N - 2)
// between iteration i's last read and its last mma, which then hides their
// latency. Prologue: iterations 0 to 2's copies, iteration 0's wait (two
// groups, iteration 1's, stay in flight), the barrier, iteration 0's
// leading reads. Kernel loop: iteration i's first mma (on the carried
// fragments), its second k step's reads, iteration i + 1's wait (leaving
// iteration i + 2's two copies: N - 3 iterations), the barrier, the copies
// of iteration i + 3 (into iteration i - 1's buffers), iteration i + 1's
// leading reads, carried to the next trip, then iteration i's last mma.
// CHECK-LABEL: kaio.kernel @gemm_prefetch
// CHECK-COUNT-4: kaio.async_copy
// CHECK-NOT: kaio.load_fragment
// CHECK:     kaio.async_wait %{{.*}} {pending = 2 : i32}
// CHECK-NEXT: kaio.barrier{{$}}
// CHECK:     kaio.async_copy
// CHECK:     kaio.async_copy
// CHECK:     %[[FA:.*]] = kaio.load_fragment %[[A0:.*]][%c0_i32, %c0_i32] : <16x32xf16>
// CHECK-NEXT: %[[FB:.*]] = kaio.load_fragment %[[B0:.*]][%c0_i32, %c0_i32] : <32x8xf16>
// CHECK:     scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[CA:.*]] = %[[FA]], %[[CB:.*]] = %[[FB]], %[[BUF:.*]] = %[[A0]],
// CHECK-NOT: kaio.barrier
// CHECK:       %[[S0:.*]] = kaio.mma %[[CA]], %[[CB]], %[[ACC]]
// CHECK-NEXT:  %[[A1:.*]] = kaio.load_fragment %[[BUF]][%c0_i32, %c16_i32]
// CHECK-NEXT:  %[[B1:.*]] = kaio.load_fragment %{{.*}}[%c16_i32, %c0_i32]
// CHECK-NEXT:  kaio.async_wait %{{.*}} {pending = 2 : i32}
// CHECK-NEXT:  kaio.barrier{{$}}
// CHECK:       kaio.async_copy
// CHECK:       kaio.async_copy
// CHECK:       %[[NA:.*]] = kaio.load_fragment %{{.*}}[%c0_i32, %c0_i32]
// CHECK-NEXT:  %[[NB:.*]] = kaio.load_fragment %{{.*}}[%c0_i32, %c0_i32]
// CHECK-NEXT:  %[[S1:.*]] = kaio.mma %[[A1]], %[[B1]], %[[S0]]
// CHECK-NEXT:  scf.yield %[[S1]], %{{.*}}, %[[NA]], %[[NB]],
// CHECK-NOT: refill_fence
kaio.kernel @gemm_prefetch(%a: !kaio.ptr<f16>, %b: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %as = kaio.shared_alloc : !kaio.smem<16x32xf16>
  %bs = kaio.shared_alloc : !kaio.smem<32x8xf16>
  %zero = arith.constant 0.0 : f32
  %init = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32, 1x1>
  %sum = scf.for %k = %c0 to %n step %c32 iter_args(%acc = %init)
      -> (!kaio.frag<acc, m16n8k16, f32, 1x1>) : i32 {
    %ta = kaio.async_copy %a[%c0, %k] bounds [%c16, %n] ld %n to %as
        : !kaio.ptr<f16>, !kaio.smem<16x32xf16>
    %tb = kaio.async_copy %b[%k, %c0] bounds [%n, %c16] ld %c16 to %bs
        : !kaio.ptr<f16>, !kaio.smem<32x8xf16>
    kaio.async_wait %ta, %tb
    kaio.barrier
    %fa0 = kaio.load_fragment %as[%c0, %c0]
        : !kaio.smem<16x32xf16> -> !kaio.frag<a, m16n8k16, f16, 1x1>
    %fb0 = kaio.load_fragment %bs[%c0, %c0]
        : !kaio.smem<32x8xf16> -> !kaio.frag<b, m16n8k16, f16, 1x1>
    %s0 = kaio.mma %fa0, %fb0, %acc
        : !kaio.frag<a, m16n8k16, f16, 1x1>, !kaio.frag<b, m16n8k16, f16, 1x1>,
          !kaio.frag<acc, m16n8k16, f32, 1x1>
    %fa1 = kaio.load_fragment %as[%c0, %c16]
        : !kaio.smem<16x32xf16> -> !kaio.frag<a, m16n8k16, f16, 1x1>
    %fb1 = kaio.load_fragment %bs[%c16, %c0]
        : !kaio.smem<32x8xf16> -> !kaio.frag<b, m16n8k16, f16, 1x1>
    %s1 = kaio.mma %fa1, %fb1, %s0
        : !kaio.frag<a, m16n8k16, f16, 1x1>, !kaio.frag<b, m16n8k16, f16, 1x1>,
          !kaio.frag<acc, m16n8k16, f32, 1x1>
    scf.yield %s1 : !kaio.frag<acc, m16n8k16, f32, 1x1>
  } {kaio.pipeline_stages = 4 : i32, kaio.pipeline_prefetch}
  kaio.return
}

// -----

// A single k step a tile: every read runs ahead; the loop keeps the mma.
// Three stages: the wait leaves nothing in flight (the next iteration's
// copies were issued one trip earlier).
// CHECK-LABEL: kaio.kernel @all_reads_ahead
// CHECK:     scf.for
// CHECK-NOT:   kaio.shared_load
// CHECK:       kaio.async_wait %{{.*}} {pending = 0 : i32}
// CHECK-NEXT:  kaio.barrier
// CHECK:       kaio.async_copy
// CHECK:       kaio.shared_load
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  scf.yield
kaio.kernel @all_reads_ahead(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %zero = arith.constant 0.0 : f16
  %sum = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %zero) -> (f16) : i32 {
    %t = kaio.async_copy %p[%c0, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
    kaio.barrier
    %v = kaio.shared_load %s[%c0, %c0] : !kaio.smem<16x16xf16> -> f16
    %a = arith.addf %acc, %v : f16
    scf.yield %a : f16
  } {kaio.pipeline_stages = 3 : i32, kaio.pipeline_prefetch}
  kaio.return
}

// -----

kaio.kernel @two_stages(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  // expected-error @+1 {{'kaio.pipeline_prefetch' is a unit attribute of an scf.for with 'kaio.pipeline_stages' of at least 3}}
  scf.for %k = %c0 to %n step %c16 : i32 {
    %t = kaio.async_copy %p[%c0, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
    kaio.barrier
  } {kaio.pipeline_stages = 2 : i32, kaio.pipeline_prefetch}
  kaio.return
}

// -----

// The first form (a barrier after the last read) has no barrier for the
// reads to follow.
kaio.kernel @trailing_barrier(%p: !kaio.ptr<f16>, %out: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %zero = arith.constant 0.0 : f16
  // expected-error @+1 {{'scf.for' op 'kaio.pipeline_prefetch': needs a kaio.barrier between the loop's last wait and its first read of a copied tile}}
  %sum = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %zero) -> (f16) : i32 {
    %t = kaio.async_copy %p[%c0, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
    %v = kaio.shared_load %s[%c0, %c0] : !kaio.smem<16x16xf16> -> f16
    %a = arith.addf %acc, %v : f16
    kaio.barrier
    scf.yield %a : f16
  } {kaio.pipeline_stages = 3 : i32, kaio.pipeline_prefetch}
  kaio.store %sum, %out[%c0] : f16, !kaio.ptr<f16>, i32
  kaio.return
}

// -----

// A global store after the last read would move past the next barrier.
kaio.kernel @store_after_reads(%p: !kaio.ptr<f16>, %out: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  // expected-error @+1 {{'scf.for' op 'kaio.pipeline_prefetch': what follows the loop's last read of a copied tile runs after the next iteration's barrier, so it must not touch memory}}
  scf.for %k = %c0 to %n step %c16 : i32 {
    %t = kaio.async_copy %p[%c0, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
    kaio.barrier
    %v = kaio.shared_load %s[%c0, %c0] : !kaio.smem<16x16xf16> -> f16
    %w = arith.addf %v, %v : f16
    // expected-note @+1 {{here}}
    kaio.store %w, %out[%k] : f16, !kaio.ptr<f16>, i32
  } {kaio.pipeline_stages = 3 : i32, kaio.pipeline_prefetch}
  kaio.return
}

// -----

// A leading read at an index that moves with the iteration would run once
// past the end at the next index (off the tile).
kaio.kernel @moving_read(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %zero = arith.constant 0.0 : f16
  // expected-error @+1 {{'scf.for' op 'kaio.pipeline_prefetch': a leading read's indices depend on the iteration; it runs once past the end}}
  %sum = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %zero) -> (f16) : i32 {
    %t = kaio.async_copy %p[%c0, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
    kaio.barrier
    %r = arith.divui %k, %c16 : i32
    // expected-note @+1 {{here}}
    %v = kaio.shared_load %s[%r, %c0] : !kaio.smem<16x16xf16> -> f16
    %a = arith.addf %acc, %v : f16
    scf.yield %a : f16
  } {kaio.pipeline_stages = 3 : i32, kaio.pipeline_prefetch}
  kaio.return
}

// -----

// Without prefetch, a shared read the copies depend on (a page index
// staged in shared memory) cannot run ahead of the iteration that writes
// it: the loop is not pipelined.
kaio.kernel @copy_needs_a_shared_read(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %idx = kaio.shared_alloc : !kaio.smem<4xi32>
  // expected-error @+1 {{'scf.for' op could not be software-pipelined into 3 stages}}
  scf.for %k = %c0 to %n step %c16 : i32 {
    kaio.shared_store %k, %idx[%c0] : i32, !kaio.smem<4xi32>
    kaio.barrier
    %row = kaio.shared_load %idx[%c0] : !kaio.smem<4xi32> -> i32
    %t = kaio.async_copy %p[%row, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
    kaio.barrier
  } {kaio.pipeline_stages = 3 : i32}
  kaio.return
}
