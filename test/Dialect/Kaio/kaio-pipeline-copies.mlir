// RUN: kaio-opt %s --kaio-pipeline-copies --split-input-file --verify-diagnostics | FileCheck %s

// A "copy, wait, compute" loop marked for 3 stages: the tile gets 3 buffers
// picked by a counter (0, 1, 2, 0, ...; no remainder); the prologue issues
// the copies of the first two iterations (predicated on the trip count), the
// loop copies iteration i + 2 (predicated off at the end) while it computes
// iteration i with the buffer and token carried from two iterations before.
// CHECK-LABEL: kaio.kernel @three_stages
// CHECK-COUNT-3: kaio.shared_alloc : <16x16xf16>
// Prologue: iterations 0 and 1.
// CHECK: arith.cmpi slt
// CHECK: %[[P0:.*]] = kaio.async_copy
// CHECK: arith.cmpi slt
// CHECK: %[[P1:.*]] = kaio.async_copy
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[SLOT:.*]] = %{{.*}}, {{.*}} = %[[P0]], {{.*}} = %[[P1]],
// CHECK-NOT: arith.remui
// CHECK:   arith.cmpi eq, %[[SLOT]]
// CHECK:   arith.select
// CHECK:   %[[NEXT:.*]] = kaio.async_copy
// CHECK:   arith.addi %[[SLOT]]
// CHECK:   kaio.async_wait %{{.*}}
// CHECK:   kaio.barrier
// CHECK:   kaio.shared_load
// CHECK:   kaio.barrier
// CHECK:   scf.yield {{.*}}%[[NEXT]]
// CHECK-NOT: kaio.pipeline_stages
kaio.kernel @three_stages(%p: !kaio.ptr<f16>, %out: !kaio.ptr<f16>, %n: i32)
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
    kaio.barrier
    scf.yield %a : f16
  } {kaio.pipeline_stages = 3 : i32}
  kaio.store %sum, %out[%c0] : f16, !kaio.ptr<f16>, i32
  kaio.return
}

// -----

kaio.kernel @one_stage(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  // expected-error @+1 {{'kaio.pipeline_stages' is an integer from 2 to 8 on an scf.for}}
  scf.for %k = %c0 to %n step %c16 : i32 {
    %t = kaio.async_copy %p[%c0, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
  } {kaio.pipeline_stages = 1 : i32}
  kaio.return
}

// -----

kaio.kernel @no_copies(%n: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'scf.for' op 'kaio.pipeline_stages' on a loop with no kaio.async_copy}}
  scf.for %k = %c0 to %n step %c1 : i32 {
    kaio.barrier
  } {kaio.pipeline_stages = 2 : i32}
  kaio.return
}

// -----

// No barrier after the last read, nor between the wait and the first read
// (one before the wait does not order this iteration's reads before the
// next one's copies): a later iteration's copy would refill the buffer
// while other warps may still read it.
kaio.kernel @unfenced(%p: !kaio.ptr<f16>, %out: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %zero = arith.constant 0.0 : f16
  // expected-error @+1 {{'scf.for' op a pipelined loop needs a kaio.barrier after the last read of a copied tile, or between its last wait and its first read}}
  %sum = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %zero) -> (f16) : i32 {
    %t = kaio.async_copy %p[%c0, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.barrier
    kaio.async_wait %t
    // expected-note @+1 {{the last read}}
    %v = kaio.shared_load %s[%c0, %c0] : !kaio.smem<16x16xf16> -> f16
    %a = arith.addf %acc, %v : f16
    scf.yield %a : f16
  } {kaio.pipeline_stages = 2 : i32}
  kaio.store %sum, %out[%c0] : f16, !kaio.ptr<f16>, i32
  kaio.return
}

// -----

// A barrier between the wait and the first read, none after the
// last read: the copies of iteration i + 2 are issued after that barrier
// (every warp is then done with iteration i - 1, which read the buffer they
// refill), one barrier an iteration (CUTLASS's multistage order).
// CHECK-LABEL: kaio.kernel @refill_fence
// CHECK: scf.for
// CHECK:   kaio.async_wait %{{.*}}
// CHECK-NEXT:   kaio.barrier
// CHECK-NOT:   kaio.refill_fence
// CHECK:   %[[NEXT:.*]] = kaio.async_copy
// CHECK:   kaio.shared_load
// CHECK-NOT:   kaio.barrier
// CHECK:   scf.yield {{.*}}%[[NEXT]]
kaio.kernel @refill_fence(%p: !kaio.ptr<f16>, %out: !kaio.ptr<f16>, %n: i32)
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
  } {kaio.pipeline_stages = 3 : i32}
  kaio.store %sum, %out[%c0] : f16, !kaio.ptr<f16>, i32
  kaio.return
}

// -----

// An unsigned loop (the builder's U32 loops) is pipelined as a signed loop
// over its zero-extended bounds, the body reading the induction value
// truncated back to i32.
// CHECK-LABEL: kaio.kernel @unsigned_loop
// CHECK: %[[LB:.*]] = arith.extui %c0_i32 : i32 to i64
// CHECK: %[[UB:.*]] = arith.extui %arg1 : i32 to i64
// CHECK: %[[STEP:.*]] = arith.extui %c16_i32 : i32 to i64
// CHECK: scf.for %[[IV:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] iter_args
// CHECK-SAME: : i64 {
// CHECK: %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}} : i64
// CHECK: arith.trunci %[[NEXT]] : i64 to i32
// CHECK: kaio.async_copy
kaio.kernel @unsigned_loop(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  scf.for unsigned %k = %c0 to %n step %c16 : i32 {
    %t = kaio.async_copy %p[%c0, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
    kaio.barrier
  } {kaio.pipeline_stages = 2 : i32}
  kaio.return
}

// -----

// Global loads the copies depend on (a paged cache's block table) run ahead
// with them: past the end their masks are off. A masked load's mask is
// and-ed with the iteration's predicate; an unmasked one gets it as its
// mask, reading zero there. A division by a run-time value (the page size)
// divides by 1 there.
// CHECK-LABEL: kaio.kernel @table_loads
// CHECK: %[[PAGED:.*]] = arith.cmpi ne, %arg3
// Prologue (iteration 0):
// CHECK: %[[P:.*]] = arith.cmpi slt
// CHECK: %[[D:.*]] = arith.select %[[P]], %arg4, %c1_i32
// CHECK: arith.divui %{{.*}}, %[[D]]
// CHECK: %[[M:.*]] = arith.andi %[[PAGED]], %[[P]]
// CHECK: kaio.load %arg1[%{{.*}}] : <i32>, i32 -> i32 mask %[[M]] else %c0_i32
// CHECK: kaio.load %arg1[%{{.*}}] : <i32>, i32 -> i32 mask %[[P]] else %{{.*}}
// CHECK: kaio.async_copy
// The loop (iteration i + 1):
// CHECK: scf.for
// CHECK:   %[[Q:.*]] = arith.cmpi slt
// CHECK:   %[[E:.*]] = arith.select %[[Q]], %arg4, %c1_i32
// CHECK:   arith.divui %{{.*}}, %[[E]]
// CHECK:   %[[N:.*]] = arith.andi %[[PAGED]], %[[Q]]
// CHECK:   kaio.load %arg1[%{{.*}}] : <i32>, i32 -> i32 mask %[[N]] else %c0_i32
// CHECK:   kaio.load %arg1[%{{.*}}] : <i32>, i32 -> i32 mask %[[Q]] else %{{.*}}
// CHECK:   kaio.async_copy
kaio.kernel @table_loads(%p: !kaio.ptr<f16>, %table: !kaio.ptr<i32>,
                         %n: i32, %flags: i32, %pageSize: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %paged = arith.cmpi ne, %flags, %c0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  scf.for %k = %c0 to %n step %c16 : i32 {
    %i = arith.divui %k, %pageSize : i32
    %page = kaio.load %table[%i] : !kaio.ptr<i32>, i32 -> i32 mask %paged else %c0
    %off = kaio.load %table[%page] : !kaio.ptr<i32>, i32 -> i32
    %t = kaio.async_copy %p[%off, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
    kaio.barrier
  } {kaio.pipeline_stages = 2 : i32}
  kaio.return
}

// -----

// A loop that stores to global memory: a load feeding its copies cannot
// run an iteration ahead of those stores.
kaio.kernel @loads_ahead_of_stores(%p: !kaio.ptr<f16>, %table: !kaio.ptr<i32>,
                                   %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  scf.for %k = %c0 to %n step %c16 : i32 {
    // expected-error @+1 {{'kaio.load' op feeds a pipelined copy, so it would run 1 iteration ahead of the loop's global stores}}
    %off = kaio.load %table[%k] : !kaio.ptr<i32>, i32 -> i32
    %t = kaio.async_copy %p[%off, %k] bounds [%c16, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.async_wait %t
    kaio.barrier
    kaio.store %k, %table[%k] : i32, !kaio.ptr<i32>, i32
  } {kaio.pipeline_stages = 2 : i32}
  kaio.return
}
