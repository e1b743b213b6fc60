// RUN: kaio-opt %s --kaio-pipeline-copies --kaio-group-async-copies | FileCheck %s

// The wait counts of both forms of a 3-stage loop. With a barrier after
// the last read, the copies of iteration i + 2 are issued before the wait
// for iteration i's, which leaves two iterations' copies in flight; with
// the barrier between the wait and the first read they are issued after
// it, and the wait leaves one (the iteration i + 1 ones): the same depth
// while iteration i computes.
// CHECK-LABEL: kaio.kernel @trailing_barrier
// CHECK: scf.for
// CHECK:   kaio.async_copy
// CHECK:   kaio.async_wait %{{.*}} {pending = 2 : i32}
// CHECK-NEXT:   kaio.barrier
// CHECK:   kaio.shared_load
// CHECK:   kaio.barrier
kaio.kernel @trailing_barrier(%p: !kaio.ptr<f16>, %out: !kaio.ptr<f16>, %n: i32)
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

// CHECK-LABEL: kaio.kernel @refill_fence
// CHECK: scf.for
// CHECK:   kaio.async_wait %{{.*}} {pending = 1 : i32}
// CHECK-NEXT:   kaio.barrier
// CHECK:   kaio.async_copy
// CHECK:   kaio.shared_load
// CHECK-NOT:   kaio.barrier
// CHECK:   scf.yield
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
