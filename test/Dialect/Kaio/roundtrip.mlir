// Every kaio op, type and attribute prints in a form that parses back to the
// same IR, in the custom and in the generic form.
// RUN: kaio-opt %s | kaio-opt | FileCheck %s
// RUN: kaio-opt %s --mlir-print-op-generic | kaio-opt | FileCheck %s

// CHECK-LABEL: kaio.kernel @ids
// CHECK-SAME: attributes {block_size = array<i32: 32, 4, 2>, max_registers = 64 : i32, min_blocks_per_sm = 2 : i32}
kaio.kernel @ids(%out: !kaio.ptr<i32>)
    attributes {block_size = array<i32: 32, 4, 2>, max_registers = 64 : i32,
                min_blocks_per_sm = 2 : i32} {
  // CHECK: kaio.thread_id x : i32
  // CHECK: kaio.thread_id y : i32
  // CHECK: kaio.thread_id z : i32
  // CHECK: kaio.block_id x : i32
  // CHECK: kaio.block_dim y : i32
  // CHECK: kaio.grid_dim z : i32
  // CHECK: kaio.lane_id : i32
  // CHECK: kaio.warp_id : i32
  %tx = kaio.thread_id x : i32
  %ty = kaio.thread_id y : i32
  %tz = kaio.thread_id z : i32
  %bx = kaio.block_id x : i32
  %ny = kaio.block_dim y : i32
  %gz = kaio.grid_dim z : i32
  %lane = kaio.lane_id : i32
  %warp = kaio.warp_id : i32
  %s0 = arith.addi %tx, %ty : i32
  %s1 = arith.addi %s0, %tz : i32
  %s2 = arith.addi %s1, %bx : i32
  %s3 = arith.addi %s2, %ny : i32
  %s4 = arith.addi %s3, %gz : i32
  %s5 = arith.addi %s4, %lane : i32
  kaio.store %s5, %out[%warp] : i32, !kaio.ptr<i32>, i32
  // CHECK: kaio.return
  kaio.return
}

// CHECK-LABEL: kaio.kernel @global_memory
// CHECK-SAME: (%{{.*}}: !kaio.ptr<f32> {kaio.readonly}, %{{.*}}: !kaio.ptr<f16>, %{{.*}}: !kaio.ptr<bf16>, %{{.*}}: !kaio.ptr<i8>, %{{.*}}: !kaio.ptr<i16>, %{{.*}}: !kaio.ptr<i64>, %{{.*}}: !kaio.ptr<f64>, %{{.*}}: !kaio.ptr<ui8>, %{{.*}}: i64, %{{.*}}: f32)
// CHECK-SAME: attributes {block_size = array<i32: 128>}
kaio.kernel @global_memory(%a: !kaio.ptr<f32> {kaio.readonly},
                           %h: !kaio.ptr<f16>, %bf: !kaio.ptr<bf16>,
                           %b: !kaio.ptr<i8>, %s: !kaio.ptr<i16>,
                           %l: !kaio.ptr<i64>, %d: !kaio.ptr<f64>,
                           %u: !kaio.ptr<ui8>, %n: i64, %x: f32)
    attributes {block_size = array<i32: 128>} {
  %i = kaio.thread_id x : i32
  %zero = arith.constant 0.0 : f32
  %m = arith.cmpi slt, %i, %i : i32
  // CHECK: kaio.ptr_add %{{.*}}, %{{.*}} : <f32>, i32
  // CHECK: kaio.ptr_add %{{.*}}, %{{.*}} : <f32>, i64
  // CHECK: kaio.ptr_to_int %{{.*}} : <f32>
  %p = kaio.ptr_add %a, %i : !kaio.ptr<f32>, i32
  %q = kaio.ptr_add %p, %n : !kaio.ptr<f32>, i64
  %addr = kaio.ptr_to_int %q : !kaio.ptr<f32>
  // CHECK: kaio.load %{{.*}}[%{{.*}}] : <f32>, i32 -> f32
  // CHECK: kaio.load %{{.*}}[%{{.*}}] : <f32>, i64 -> f32 mask %{{.*}} else %{{.*}}
  %v = kaio.load %a[%i] : !kaio.ptr<f32>, i32 -> f32
  %w = kaio.load %a[%n] : !kaio.ptr<f32>, i64 -> f32 mask %m else %zero
  // CHECK: kaio.load %{{.*}}[%{{.*}}] : <ui8>, i32 -> i8
  %byte = kaio.load %u[%i] : !kaio.ptr<ui8>, i32 -> i8
  // CHECK: kaio.store %{{.*}}, %{{.*}}[%{{.*}}] : f32, <f32>, i32
  // CHECK: kaio.store %{{.*}}, %{{.*}}[%{{.*}}] mask %{{.*}} : i8, <i8>, i64
  kaio.store %v, %a[%i] : f32, !kaio.ptr<f32>, i32
  kaio.store %byte, %b[%n] mask %m : i8, !kaio.ptr<i8>, i64
  // CHECK: kaio.load_vector %{{.*}}[%{{.*}}] : <f32>, i32 -> f32, f32, f32, f32
  // CHECK: kaio.load_vector %{{.*}}[%{{.*}}] : <f32>, i64 -> f32, f32 mask %{{.*}} else %{{.*}}
  // CHECK: kaio.store_vector %{{.*}}, %{{.*}} to %{{.*}}[%{{.*}}] mask %{{.*}} : (f32, f32), <f32>, i32
  %v0, %v1, %v2, %v3 = kaio.load_vector %a[%i] : !kaio.ptr<f32>, i32 -> f32, f32, f32, f32
  %w0, %w1 = kaio.load_vector %a[%n] : !kaio.ptr<f32>, i64 -> f32, f32 mask %m else %zero
  kaio.store_vector %v0, %w1 to %a[%i] mask %m : (f32, f32), !kaio.ptr<f32>, i32
  // CHECK: kaio.load_vector %{{.*}}[%{{.*}}] : <f16>, i32 -> f16, f16, f16, f16, f16, f16, f16, f16
  // CHECK: kaio.store_vector {{.*}} : (f16, f16, f16, f16, f16, f16, f16, f16), <f16>, i32
  %h8:8 = kaio.load_vector %h[%i] : !kaio.ptr<f16>, i32 -> f16, f16, f16, f16, f16, f16, f16, f16
  kaio.store_vector %h8#0, %h8#1, %h8#2, %h8#3, %h8#4, %h8#5, %h8#6, %h8#7 to %h[%i] : (f16, f16, f16, f16, f16, f16, f16, f16), !kaio.ptr<f16>, i32
  %c1 = arith.constant 1 : i32
  %c1l = arith.constant 1 : i64
  %hv = arith.constant 1.0 : f16
  %bv = arith.constant 1.0 : bf16
  %dv = arith.constant 1.0 : f64
  // CHECK: kaio.atomic add %{{.*}}[%{{.*}}], %{{.*}} : <f32>, i32, f32
  // CHECK: kaio.atomic add %{{.*}}[%{{.*}}], %{{.*}} : <f16>, i32, f16
  // CHECK: kaio.atomic add %{{.*}}[%{{.*}}], %{{.*}} : <bf16>, i32, bf16
  // CHECK: kaio.atomic add %{{.*}}[%{{.*}}], %{{.*}} : <f64>, i32, f64
  // CHECK: kaio.atomic max %{{.*}}[%{{.*}}], %{{.*}} : <i64>, i32, i64
  // CHECK: kaio.atomic min %{{.*}}[%{{.*}}], %{{.*}} : <i64>, i32, i64
  // CHECK: kaio.atomic exch %{{.*}}[%{{.*}}], %{{.*}} : <i64>, i32, i64
  // CHECK: kaio.atomic and %{{.*}}[%{{.*}}], %{{.*}} : <i64>, i32, i64
  // CHECK: kaio.atomic or %{{.*}}[%{{.*}}], %{{.*}} : <i64>, i64, i64
  // CHECK: kaio.atomic xor %{{.*}}[%{{.*}}], %{{.*}} : <i64>, i64, i64
  %o0 = kaio.atomic add %a[%i], %x : !kaio.ptr<f32>, i32, f32
  %o1 = kaio.atomic add %h[%i], %hv : !kaio.ptr<f16>, i32, f16
  %o2 = kaio.atomic add %bf[%i], %bv : !kaio.ptr<bf16>, i32, bf16
  %o3 = kaio.atomic add %d[%i], %dv : !kaio.ptr<f64>, i32, f64
  %o4 = kaio.atomic max %l[%i], %c1l : !kaio.ptr<i64>, i32, i64
  %o5 = kaio.atomic min %l[%i], %c1l : !kaio.ptr<i64>, i32, i64
  %o6 = kaio.atomic exch %l[%i], %c1l : !kaio.ptr<i64>, i32, i64
  %o7 = kaio.atomic and %l[%i], %c1l : !kaio.ptr<i64>, i32, i64
  %o8 = kaio.atomic or %l[%n], %c1l : !kaio.ptr<i64>, i64, i64
  %o9 = kaio.atomic xor %l[%n], %addr : !kaio.ptr<i64>, i64, i64
  %sv = arith.constant 7 : i16
  kaio.store %sv, %s[%c1] : i16, !kaio.ptr<i16>, i32
  kaio.return
}

// CHECK-LABEL: kaio.kernel @shared_and_sync
kaio.kernel @shared_and_sync(%out: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 256>} {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %one = arith.constant 1.0 : f32
  // CHECK: kaio.shared_alloc : <256xf32>
  // CHECK: kaio.shared_alloc : <16x16xf32>
  // CHECK: kaio.shared_alloc : <16x16xf32, <row_major>>
  // CHECK: kaio.shared_alloc : <16x16xf32, <row_major, pad = 1>>
  // CHECK: kaio.shared_alloc : <64x64xf16, <row_major, swizzle = <3, 4, 3>>>
  // CHECK: kaio.shared_alloc : <16x32xf16, <col_major>>
  // CHECK: kaio.shared_alloc : <16x32xf16, <col_major, pad = 8>>
  // CHECK: kaio.shared_alloc : <8x8xi8>
  %flat = kaio.shared_alloc : !kaio.smem<256xf32>
  %tile = kaio.shared_alloc : !kaio.smem<16x16xf32>
  %plain = kaio.shared_alloc : !kaio.smem<16x16xf32, #kaio.layout<row_major>>
  %padded = kaio.shared_alloc : !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 1>>
  %swz = kaio.shared_alloc : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  %cm = kaio.shared_alloc : !kaio.smem<16x32xf16, #kaio.layout<col_major>>
  %cmp = kaio.shared_alloc : !kaio.smem<16x32xf16, #kaio.layout<col_major, pad = 8>>
  %bytes = kaio.shared_alloc : !kaio.smem<8x8xi8>
  %tid = kaio.thread_id x : i32
  // CHECK: kaio.shared_store %{{.*}}, %{{.*}}[%{{.*}}] : f32, <256xf32>
  // CHECK: kaio.shared_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : f32, <16x16xf32, <row_major, pad = 1>>
  kaio.shared_store %one, %flat[%tid] : f32, !kaio.smem<256xf32>
  kaio.shared_store %one, %padded[%c0, %c3] : f32, !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 1>>
  // CHECK: kaio.barrier
  kaio.barrier
  // CHECK: kaio.shared_load %{{.*}}[%{{.*}}] : <256xf32> -> f32
  // CHECK: kaio.shared_load %{{.*}}[%{{.*}}, %{{.*}}] : <16x16xf32> -> f32
  // CHECK: kaio.shared_load %{{.*}}[%{{.*}}, %{{.*}}] : <16x16xf32, <row_major>> -> f32
  // CHECK: kaio.shared_load %{{.*}}[%{{.*}}, %{{.*}}] : <8x8xi8> -> i8
  %a = kaio.shared_load %flat[%c3] : !kaio.smem<256xf32> -> f32
  %b = kaio.shared_load %tile[%c3, %c0] : !kaio.smem<16x16xf32> -> f32
  %c = kaio.shared_load %plain[%c3, %c0] : !kaio.smem<16x16xf32, #kaio.layout<row_major>> -> f32
  %byte = kaio.shared_load %bytes[%c3, %c3] : !kaio.smem<8x8xi8> -> i8
  // CHECK: kaio.shared_load_vector %{{.*}}[%{{.*}}, %{{.*}}] : <16x16xf32> -> f32, f32, f32, f32
  // CHECK: kaio.shared_load_vector %{{.*}}[%{{.*}}, %{{.*}}] : <64x64xf16, <row_major, swizzle = <3, 4, 3>>> -> f16, f16, f16, f16, f16, f16, f16, f16
  %v4:4 = kaio.shared_load_vector %tile[%c3, %c0] : !kaio.smem<16x16xf32> -> f32, f32, f32, f32
  %v8:8 = kaio.shared_load_vector %swz[%c3, %c0] : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>> -> f16, f16, f16, f16, f16, f16, f16, f16
  // CHECK: kaio.shared_store_vector %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : (f32, f32, f32, f32), <16x16xf32>
  // CHECK: kaio.shared_store_vector %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : (f16, f16, f16, f16, f16, f16, f16, f16), <64x64xf16, <row_major, swizzle = <3, 4, 3>>>
  // CHECK: kaio.shared_store_vector %{{.*}}, %{{.*}} to %{{.*}}[%{{.*}}] : (f32, f32), <256xf32>
  kaio.shared_store_vector %v4#3, %v4#2, %v4#1, %v4#0 to %tile[%c3, %c0] : (f32, f32, f32, f32), !kaio.smem<16x16xf32>
  kaio.shared_store_vector %v8#0, %v8#1, %v8#2, %v8#3, %v8#4, %v8#5, %v8#6, %v8#7 to %swz[%c3, %c0] : (f16, f16, f16, f16, f16, f16, f16, f16), !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  kaio.shared_store_vector %a, %b to %flat[%c0] : (f32, f32), !kaio.smem<256xf32>
  // CHECK: kaio.shared_address %{{.*}}[%{{.*}}, %{{.*}}] : <64x64xf16, <row_major, swizzle = <3, 4, 3>>>
  // CHECK: kaio.shared_address %{{.*}}[%{{.*}}, %{{.*}}] : <16x32xf16, <col_major>>
  // CHECK: kaio.shared_address %{{.*}}[%{{.*}}, %{{.*}}] : <16x32xf16, <col_major, pad = 8>>
  %addr0 = kaio.shared_address %swz[%c3, %c0] : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  %addr1 = kaio.shared_address %cm[%c3, %c0] : !kaio.smem<16x32xf16, #kaio.layout<col_major>>
  %addr2 = kaio.shared_address %cmp[%c3, %c0] : !kaio.smem<16x32xf16, #kaio.layout<col_major, pad = 8>>
  // CHECK: kaio.tile_offset [%{{.*}}, %{{.*}}] : !kaio.smem<64x64xf16, <row_major, swizzle = <3, 4, 3>>>
  %off = kaio.tile_offset [%c3, %c0] : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  // CHECK: kaio.shuffle up %{{.*}}, %{{.*}} : f32
  // CHECK: kaio.shuffle down %{{.*}}, %{{.*}} {width = 16 : i32} : f32
  // CHECK: kaio.shuffle xor %{{.*}}, %{{.*}} : i32
  // CHECK: kaio.shuffle idx %{{.*}}, %{{.*}} {width = 8 : i32} : i32
  %s0 = kaio.shuffle up %a, %c3 : f32
  %s1 = kaio.shuffle down %b, %c3 {width = 16 : i32} : f32
  %s2 = kaio.shuffle xor %addr0, %c3 : i32
  %s3 = kaio.shuffle idx %addr1, %c0 {width = 8 : i32} : i32
  // CHECK: kaio.warp_reduce sum %{{.*}} : f32
  // CHECK: kaio.warp_reduce max %{{.*}} : i32
  // CHECK: kaio.warp_reduce min %{{.*}} : f16
  %h = arith.constant 2.0 : f16
  %r0 = kaio.warp_reduce sum %s0 : f32
  %r1 = kaio.warp_reduce max %s2 : i32
  %r2 = kaio.warp_reduce min %h : f16
  // CHECK: kaio.block_reduce sum %{{.*}} : f32
  // CHECK: kaio.block_reduce max %{{.*}} : i32
  // CHECK: kaio.block_reduce min %{{.*}} : f16
  %b0 = kaio.block_reduce sum %s1 : f32
  %b1 = kaio.block_reduce max %s3 : i32
  %b2 = kaio.block_reduce min %r2 : f16
  kaio.store %b0, %out[%tid] : f32, !kaio.ptr<f32>, i32
  kaio.return
}

// Barriers under control flow that is the same for every thread of the
// block are accepted: a condition on block ids and kernel parameters, a loop
// whose bounds are uniform (even though its body uses the thread id).
// CHECK-LABEL: kaio.kernel @uniform_control_flow
kaio.kernel @uniform_control_flow(%n: i32, %p: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 64>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %bid = kaio.block_id x : i32
  %tid = kaio.thread_id x : i32
  %uniform = arith.cmpi slt, %bid, %n : i32
  %x = kaio.load %p[%c0] : !kaio.ptr<f32>, i32 -> f32
  // CHECK: scf.if
  // CHECK-NEXT: kaio.barrier
  // CHECK: kaio.block_reduce sum
  scf.if %uniform {
    kaio.barrier
    %r = kaio.block_reduce sum %x : f32
  }
  // CHECK: scf.for
  // CHECK: kaio.barrier
  scf.for %i = %c0 to %n step %c1 : i32 {
    %v = arith.addi %i, %tid : i32
    kaio.barrier
    kaio.store %x, %p[%v] : f32, !kaio.ptr<f32>, i32
  }
  kaio.return
}

// CHECK-LABEL: kaio.kernel @tiles
kaio.kernel @tiles(%A: !kaio.ptr<f16> {kaio.readonly},
                   %B: !kaio.ptr<bf16> {kaio.readonly},
                   %C: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %As = kaio.shared_alloc : !kaio.smem<32x16xf16>
  %Bs = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<row_major, pad = 8>>
  %Bc = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<col_major>>
  %Ts = kaio.shared_alloc : !kaio.smem<16x64xbf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  // CHECK: %[[T0:.*]] = kaio.async_copy %{{.*}}[%{{.*}}, %{{.*}}] bounds [%{{.*}}, %{{.*}}] ld %{{.*}} to %{{.*}} : <f16>, <32x16xf16>
  // CHECK: %[[T1:.*]] = kaio.async_copy %{{.*}} : <bf16>, <16x64xbf16, <row_major, swizzle = <3, 4, 3>>>
  // CHECK: kaio.async_copy %{{.*}} to %{{.*}} aligned : <f16>, <32x16xf16>
  // CHECK: kaio.async_copy %{{.*}} to %{{.*}} rows [16, 8] aligned : <f16>, <32x16xf16>
  // CHECK: kaio.async_wait %[[T0]], %[[T1]]
  // CHECK: kaio.async_wait %[[T1]] {pending = 1 : i32}
  // CHECK: kaio.async_wait{{ *$}}
  %t0 = kaio.async_copy %A[%c0, %c0] bounds [%n, %n] ld %n to %As
      : !kaio.ptr<f16>, !kaio.smem<32x16xf16>
  %t1 = kaio.async_copy %B[%c0, %c0] bounds [%n, %n] ld %n to %Ts
      : !kaio.ptr<bf16>, !kaio.smem<16x64xbf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  %t2 = kaio.async_copy %A[%c0, %c0] bounds [%n, %n] ld %n to %As aligned
      : !kaio.ptr<f16>, !kaio.smem<32x16xf16>
  %t3 = kaio.async_copy %A[%c0, %c0] bounds [%n, %n] ld %n to %As rows [16, 8] aligned
      : !kaio.ptr<f16>, !kaio.smem<32x16xf16>
  kaio.async_wait %t0, %t1
  kaio.async_wait %t1 {pending = 1 : i32}
  kaio.async_wait
  kaio.barrier
  // CHECK: kaio.frag_fill %{{.*}} : f32 -> <acc, m16n8k16, f32>
  %acc = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32>
  // CHECK: kaio.load_fragment %{{.*}}[%{{.*}}, %{{.*}}] : <32x16xf16> -> <a, m16n8k16, f16>
  // CHECK: kaio.load_fragment %{{.*}}[%{{.*}}, %{{.*}}] : <16x16xf16, <row_major, pad = 8>> -> <b, m16n8k16, f16>
  // CHECK: kaio.load_fragment %{{.*}}[%{{.*}}, %{{.*}}] : <16x16xf16, <col_major>> -> <b, m16n8k16, f16>
  // CHECK: kaio.load_fragment %{{.*}}[%{{.*}}, %{{.*}}] : <16x64xbf16, <row_major, swizzle = <3, 4, 3>>> -> <a, m16n8k16, bf16>
  // CHECK: kaio.load_fragment %{{.*}}[%{{.*}}, %{{.*}}] : <32x16xf16> -> <a, m16n8k8, f16>
  // CHECK: kaio.load_fragment %{{.*}}[%{{.*}}, %{{.*}}] transpose : <32x16xf16> -> <a, m16n8k16, f16>
  %a = kaio.load_fragment %As[%c16, %c0] : !kaio.smem<32x16xf16> -> !kaio.frag<a, m16n8k16, f16>
  %b = kaio.load_fragment %Bs[%c0, %c8] : !kaio.smem<16x16xf16, #kaio.layout<row_major, pad = 8>> -> !kaio.frag<b, m16n8k16, f16>
  %bc = kaio.load_fragment %Bc[%c0, %c8] : !kaio.smem<16x16xf16, #kaio.layout<col_major>> -> !kaio.frag<b, m16n8k16, f16>
  %abf = kaio.load_fragment %Ts[%c0, %c16] : !kaio.smem<16x64xbf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>> -> !kaio.frag<a, m16n8k16, bf16>
  %a8 = kaio.load_fragment %As[%c0, %c8] : !kaio.smem<32x16xf16> -> !kaio.frag<a, m16n8k8, f16>
  %at = kaio.load_fragment %As[%c16, %c0] transpose : !kaio.smem<32x16xf16> -> !kaio.frag<a, m16n8k16, f16>
  // CHECK: kaio.mma %{{.*}}, %{{.*}}, %{{.*}} : <a, m16n8k16, f16>, <b, m16n8k16, f16>, <acc, m16n8k16, f32>
  %d = kaio.mma %a, %b, %acc : !kaio.frag<a, m16n8k16, f16>, !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
  %d2 = kaio.mma %a, %bc, %d : !kaio.frag<a, m16n8k16, f16>, !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
  // CHECK: kaio.frag_map %{{.*}}, %{{.*}} : <acc, m16n8k16, f32>, f32 -> <acc, m16n8k16, f32> {
  // CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32):
  // CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[S]] : f32
  // CHECK-NEXT: kaio.yield %[[Y]] : f32
  // CHECK-NEXT: }
  %alpha = arith.constant 2.0 : f32
  %scaled = kaio.frag_map %d2, %alpha : !kaio.frag<acc, m16n8k16, f32>, f32
      -> !kaio.frag<acc, m16n8k16, f32> {
  ^bb0(%x: f32, %s: f32):
    %y = arith.mulf %x, %s : f32
    kaio.yield %y : f32
  }
  // CHECK: kaio.frag_map %{{.*}} : <acc, m16n8k16, f32> -> <acc, m16n8k16, f16> {
  %half = kaio.frag_map %scaled : !kaio.frag<acc, m16n8k16, f32>
      -> !kaio.frag<acc, m16n8k16, f16> {
  ^bb0(%x: f32):
    %y = arith.truncf %x : f32 to f16
    kaio.yield %y : f16
  }
  // CHECK: kaio.store_fragment %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] bounds [%{{.*}}, %{{.*}}] ld %{{.*}} : <acc, m16n8k16, f32>, <f32>
  kaio.store_fragment %scaled, %C[%c0, %c8] bounds [%n, %n] ld %n
      : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
  // CHECK: kaio.store_fragment %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] bounds [%{{.*}}, %{{.*}}] ld %{{.*}} beta %{{.*}} : <acc, m16n8k16, f32>, <f32>
  kaio.store_fragment %scaled, %C[%c0, %c8] bounds [%n, %n] ld %n beta %alpha
      : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
  kaio.return
}

// Fragment types of every role and mma shape, as function arguments.
// CHECK-LABEL: func.func @fragment_types
// CHECK-SAME: %{{.*}}: !kaio.frag<a, m16n8k8, f16>
// CHECK-SAME: %{{.*}}: !kaio.frag<b, m16n8k8, f16>
// CHECK-SAME: %{{.*}}: !kaio.frag<acc, m16n8k8, f16>
// CHECK-SAME: %{{.*}}: !kaio.frag<a, m16n8k8, f32>
// CHECK-SAME: %{{.*}}: !kaio.frag<b, m16n8k8, f32>
// CHECK-SAME: %{{.*}}: !kaio.frag<acc, m16n8k8, f32>
// CHECK-SAME: %{{.*}}: !kaio.frag<a, m16n8k16, bf16>
// CHECK-SAME: %{{.*}}: !kaio.frag<b, m16n8k16, bf16>
// CHECK-SAME: %{{.*}}: !kaio.frag<a, m16n8k16, i8>
// CHECK-SAME: %{{.*}}: !kaio.frag<b, m16n8k16, ui8>
// CHECK-SAME: %{{.*}}: !kaio.frag<acc, m16n8k16, i32>
// CHECK-SAME: %{{.*}}: !kaio.frag<a, m16n8k32, i8>
// CHECK-SAME: %{{.*}}: !kaio.frag<b, m16n8k32, i8>
// CHECK-SAME: %{{.*}}: !kaio.frag<acc, m16n8k32, i32>
// CHECK-SAME: %{{.*}}: !kaio.frag<a, m16n8k64, i4>
// CHECK-SAME: %{{.*}}: !kaio.frag<b, m16n8k64, ui4>
// CHECK-SAME: %{{.*}}: !kaio.frag<acc, m16n8k64, i32>
// CHECK-SAME: %{{.*}}: !kaio.token
func.func @fragment_types(
    %a1: !kaio.frag<a, m16n8k8, f16>, %b1: !kaio.frag<b, m16n8k8, f16>,
    %c1: !kaio.frag<acc, m16n8k8, f16>,
    %a2: !kaio.frag<a, m16n8k8, f32>, %b2: !kaio.frag<b, m16n8k8, f32>,
    %c2: !kaio.frag<acc, m16n8k8, f32>,
    %a3: !kaio.frag<a, m16n8k16, bf16>, %b3: !kaio.frag<b, m16n8k16, bf16>,
    %a4: !kaio.frag<a, m16n8k16, i8>, %b4: !kaio.frag<b, m16n8k16, ui8>,
    %c4: !kaio.frag<acc, m16n8k16, i32>,
    %a5: !kaio.frag<a, m16n8k32, i8>, %b5: !kaio.frag<b, m16n8k32, i8>,
    %c5: !kaio.frag<acc, m16n8k32, i32>,
    %a6: !kaio.frag<a, m16n8k64, i4>, %b6: !kaio.frag<b, m16n8k64, ui4>,
    %c6: !kaio.frag<acc, m16n8k64, i32>, %t: !kaio.token) {
  // CHECK: kaio.mma {{.*}} : <a, m16n8k8, f16>, <b, m16n8k8, f16>, <acc, m16n8k8, f16>
  // CHECK: kaio.mma {{.*}} : <a, m16n8k8, f32>, <b, m16n8k8, f32>, <acc, m16n8k8, f32>
  // CHECK: kaio.mma {{.*}} : <a, m16n8k16, i8>, <b, m16n8k16, ui8>, <acc, m16n8k16, i32>
  // CHECK: kaio.mma {{.*}} : <a, m16n8k32, i8>, <b, m16n8k32, i8>, <acc, m16n8k32, i32>
  // CHECK: kaio.mma {{.*}} : <a, m16n8k64, i4>, <b, m16n8k64, ui4>, <acc, m16n8k64, i32>
  %0 = kaio.mma %a1, %b1, %c1 : !kaio.frag<a, m16n8k8, f16>, !kaio.frag<b, m16n8k8, f16>, !kaio.frag<acc, m16n8k8, f16>
  %1 = kaio.mma %a2, %b2, %c2 : !kaio.frag<a, m16n8k8, f32>, !kaio.frag<b, m16n8k8, f32>, !kaio.frag<acc, m16n8k8, f32>
  %2 = kaio.mma %a4, %b4, %c4 : !kaio.frag<a, m16n8k16, i8>, !kaio.frag<b, m16n8k16, ui8>, !kaio.frag<acc, m16n8k16, i32>
  %3 = kaio.mma %a5, %b5, %c5 : !kaio.frag<a, m16n8k32, i8>, !kaio.frag<b, m16n8k32, i8>, !kaio.frag<acc, m16n8k32, i32>
  %4 = kaio.mma %a6, %b6, %c6 : !kaio.frag<a, m16n8k64, i4>, !kaio.frag<b, m16n8k64, ui4>, !kaio.frag<acc, m16n8k64, i32>
  // CHECK: kaio.async_wait %{{.*}} {pending = 0 : i32}
  kaio.async_wait %t {pending = 0 : i32}
  return
}

// The module's target chip is an attribute the verifiers read.
// CHECK-LABEL: module attributes {kaio.target = "sm_90"}
module attributes {kaio.target = "sm_90"} {
  // CHECK: kaio.kernel @targeted
  kaio.kernel @targeted() attributes {block_size = array<i32: 1024>} {
    kaio.return
  }
}

// -----

// Fragment tiles: a warp's 64 x 32 accumulator as 4 x 4 atoms, fed by a
// 4 x 2 tile of A atoms and a 2 x 4 tile of B atoms.
// CHECK-LABEL: func.func @fragment_tiles
// CHECK-SAME: !kaio.frag<a, m16n8k16, f16, 4x2>, %{{.*}}: !kaio.frag<b, m16n8k16, f16, 2x4>, %{{.*}}: !kaio.frag<acc, m16n8k16, f32, 4x4>
// CHECK: kaio.mma {{.*}} : <a, m16n8k16, f16, 4x2>, <b, m16n8k16, f16, 2x4>, <acc, m16n8k16, f32, 4x4>
// CHECK: kaio.frag_map {{.*}} : <acc, m16n8k16, f32, 4x4> -> <acc, m16n8k16, f16, 4x4>
// A 1x1 tile is a single fragment and prints as one.
// CHECK: kaio.frag_fill %{{.*}} : f32 -> <acc, m16n8k16, f32>
func.func @fragment_tiles(%a: !kaio.frag<a, m16n8k16, f16, 4x2>,
                          %b: !kaio.frag<b, m16n8k16, f16, 2x4>,
                          %c: !kaio.frag<acc, m16n8k16, f32, 4x4>, %x: f32) {
  %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k16, f16, 4x2>, !kaio.frag<b, m16n8k16, f16, 2x4>, !kaio.frag<acc, m16n8k16, f32, 4x4>
  %h = kaio.frag_map %d : !kaio.frag<acc, m16n8k16, f32, 4x4> -> !kaio.frag<acc, m16n8k16, f16, 4x4> {
  ^bb0(%v: f32):
    %t = arith.truncf %v : f32 to f16
    kaio.yield %t : f16
  }
  %one = kaio.frag_fill %x : f32 -> !kaio.frag<acc, m16n8k16, f32, 1x1>
  return
}


// -----

// Online softmax on accumulator tiles (FlashAttention): row reductions, a
// row-broadcast and indexed frag_map, static slices and the accumulator
// reused as the A operand of the next mma.
// CHECK-LABEL: func.func @softmax_tiles
// CHECK: %[[M:.*]] = kaio.frag_reduce_rows max %{{.*}} : <acc, m16n8k16, f32, 1x8> -> <acc, m16n8k16, f32>
// CHECK: kaio.frag_reduce_rows sum
// CHECK: kaio.frag_map %{{.*}}, %[[M]], %{{.*}} indexed : <acc, m16n8k16, f32, 1x8>, !kaio.frag<acc, m16n8k16, f32>, i32 -> <acc, m16n8k16, f32, 1x8>
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: kaio.frag_to_operand %{{.*}} : <acc, m16n8k16, f32, 1x8> -> <a, m16n8k16, bf16, 1x4>
// CHECK: kaio.frag_slice %{{.*}}[0, 2] : <a, m16n8k16, bf16, 1x4> -> <a, m16n8k16, bf16, 1x2>
func.func @softmax_tiles(%s: !kaio.frag<acc, m16n8k16, f32, 1x8>, %lim: i32) {
  %m = kaio.frag_reduce_rows max %s : !kaio.frag<acc, m16n8k16, f32, 1x8> -> !kaio.frag<acc, m16n8k16, f32, 1x1>
  %l = kaio.frag_reduce_rows sum %s : !kaio.frag<acc, m16n8k16, f32, 1x8> -> !kaio.frag<acc, m16n8k16, f32, 1x1>
  %p = kaio.frag_map %s, %m, %lim indexed : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.frag<acc, m16n8k16, f32, 1x1>, i32 -> !kaio.frag<acc, m16n8k16, f32, 1x8> {
  ^bb0(%x: f32, %r: i32, %c: i32, %mx: f32, %n: i32):
    %d = arith.subf %x, %mx : f32
    %e = math.exp2 %d : f32
    %in = arith.cmpi slt, %c, %n : i32
    %z = arith.constant 0.0 : f32
    %y = arith.select %in, %e, %z : f32
    kaio.yield %y : f32
  }
  %a = kaio.frag_to_operand %p : !kaio.frag<acc, m16n8k16, f32, 1x8> -> !kaio.frag<a, m16n8k16, bf16, 1x4>
  %h = kaio.frag_slice %a [0, 2] : !kaio.frag<a, m16n8k16, bf16, 1x4> -> !kaio.frag<a, m16n8k16, bf16, 1x2>
  return
}
