// Shared tiles rotate through a loop's iter_args (a two-stage pipeline
// without unrolling): kaio-assign-shared-layouts gives both tiles one
// layout, and the lowering passes their addresses between blocks.
// RUN: kaio-opt --kaio-to-ptx="chip=sm_80" %s | kaio-translate --mlir-to-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}
// RUN: kaio-opt --kaio-assign-shared-layouts %s | FileCheck %s --check-prefix=LAYOUT
// LAYOUT: %[[S0:.*]] = kaio.shared_alloc : <1x32xf32, <row_major, pad = 1>>
// LAYOUT: %[[S1:.*]] = kaio.shared_alloc : <1x32xf32, <row_major, pad = 1>>
// LAYOUT: scf.for {{.*}} iter_args(%{{.*}} = %[[S0]], %{{.*}} = %[[S1]], %{{.*}} = %{{.*}}) -> (!kaio.smem<1x32xf32, <row_major, pad = 1>>, !kaio.smem<1x32xf32, <row_major, pad = 1>>, f32)
//
// Each iteration stores block k of x into the next tile and reads the
// current one (block k - 1) reversed: y[t] = sum_k x[32 k + 31 - t]
// = 4 (31 - t) + 192 for x = 0, 1, 2, ...
// RUN: kaio-run %s --interpret --kernel rot_sum --grid 1 --block 32 --arg x=f32[160]:iota --arg y=f32[32]:zeros --print y | FileCheck %s
// CHECK: [0] 316
// CHECK-NEXT: [1] 312
// CHECK: [31] 192
kaio.kernel @rot_sum(%x: !kaio.ptr<f32> {kaio.readonly}, %y: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %t = kaio.thread_id x : i32
  %s0 = kaio.shared_alloc : !kaio.smem<1x32xf32>
  %s1 = kaio.shared_alloc : !kaio.smem<1x32xf32>
  %v0 = kaio.load %x[%t] : !kaio.ptr<f32>, i32 -> f32
  kaio.shared_store %v0, %s0[%c0, %t] : f32, !kaio.smem<1x32xf32>
  %r:3 = scf.for %k = %c1 to %c5 step %c1 iter_args(%cur = %s0, %nxt = %s1, %acc = %zero)
      -> (!kaio.smem<1x32xf32>, !kaio.smem<1x32xf32>, f32) : i32 {
    %base = arith.muli %k, %c32 : i32
    %i = arith.addi %base, %t : i32
    %v = kaio.load %x[%i] : !kaio.ptr<f32>, i32 -> f32
    kaio.shared_store %v, %nxt[%c0, %t] : f32, !kaio.smem<1x32xf32>
    kaio.barrier
    %j = arith.subi %c31, %t : i32
    %w = kaio.shared_load %cur[%c0, %j] : !kaio.smem<1x32xf32> -> f32
    %sum = arith.addf %acc, %w : f32
    kaio.barrier
    scf.yield %nxt, %cur, %sum : !kaio.smem<1x32xf32>, !kaio.smem<1x32xf32>, f32
  }
  kaio.store %r#2, %y[%t] : f32, !kaio.ptr<f32>, i32
  kaio.return
}
