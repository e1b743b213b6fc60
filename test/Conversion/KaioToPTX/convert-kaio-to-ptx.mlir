// RUN: kaio-opt %s --convert-kaio-to-ptx --split-input-file | FileCheck %s
// RUN: kaio-opt %s --convert-kaio-to-ptx="chip=sm_75" --split-input-file | FileCheck %s --check-prefix=SM75

// Kernels become entries; pointers become 64-bit global addresses (cvta of
// the parameter), ids become special registers, loads and stores address
// arithmetic and ld/st; read-only pointers load through ld.global.nc.
// CHECK: module attributes {ptx.target = "sm_80"}
// CHECK-LABEL: ptx.entry @simt
// CHECK-SAME: (%[[A:.*]]: i64 {ptx.align = 4 : i64, ptx.ptr = f32, ptx.readonly}, %[[B:.*]]: i64 {ptx.align = 4 : i64, ptx.ptr = f32}, %[[N:.*]]: i32)
// CHECK-SAME: attributes {maxntid = array<i32: 128>}
kaio.kernel @simt(%a: !kaio.ptr<f32> {kaio.readonly}, %b: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  // CHECK: %[[GA:.*]] = ptx.cvta to global %[[A]] : i64 -> i64
  // CHECK: %[[GB:.*]] = ptx.cvta to global %[[B]] : i64 -> i64
  // CHECK: ptx.sreg tid.x
  // CHECK: ptx.sreg ctaid.y
  // CHECK: ptx.sreg ntid.z
  // CHECK: ptx.sreg nctaid.x
  // CHECK: ptx.sreg laneid
  %tid = kaio.thread_id x : i32
  %bid = kaio.block_id y : i32
  %bdim = kaio.block_dim z : i32
  %gdim = kaio.grid_dim x : i32
  %lane = kaio.lane_id : i32
  // warp_id of a 1-D block: tid.x >> 5.
  // CHECK: %[[T:.*]] = ptx.sreg tid.x : i32
  // CHECK: ptx.shr u32 %[[T]], %{{.*}} : i32
  %warp = kaio.warp_id : i32
  // CHECK: %[[OFF:.*]] = ptx.mul wide s32 %{{.*}}, %{{.*}} : (i32, i32) -> i64
  // CHECK: %[[ADDR:.*]] = ptx.add s64 %[[GA]], %[[OFF]] : i64
  // CHECK: ptx.ld global nc f32 [%[[ADDR]]] : i64 -> f32
  %x = kaio.load %a[%tid] : !kaio.ptr<f32>, i32 -> f32
  // A masked load is a guarded ld and a selp of the fallback.
  // CHECK: %[[M:.*]] = arith.cmpi
  // CHECK: %[[LD:.*]] = ptx.ld if %[[M]] global f32
  // CHECK: ptx.selp b32 %[[LD]], %{{.*}}, %[[M]] : f32
  %m = arith.cmpi slt, %tid, %n : i32
  %zero = arith.constant 0.0 : f32
  %y = kaio.load %b[%lane] : !kaio.ptr<f32>, i32 -> f32 mask %m else %zero
  // CHECK: ptx.st if %[[M]] global f32 [%{{.*}}], %{{.*}} : i64, f32
  kaio.store %x, %b[%tid] mask %m : f32, !kaio.ptr<f32>, i32
  // ptr_add scales by the element size; ptr_to_int is the address.
  // CHECK: ptx.mul lo s64 %{{.*}}, %{{.*}} : i64
  // CHECK: ptx.add s64 %[[GB]]
  %i64 = arith.constant 4 : i64
  %p = kaio.ptr_add %b, %i64 : !kaio.ptr<f32>, i64
  kaio.store %y, %p[%warp] : f32, !kaio.ptr<f32>, i32
  // CHECK: ptx.atom global add f32
  %old = kaio.atomic add %b[%bid], %x : !kaio.ptr<f32>, i32, f32
  kaio.store %old, %b[%bdim] : f32, !kaio.ptr<f32>, i32
  kaio.store %old, %b[%gdim] : f32, !kaio.ptr<f32>, i32
  // CHECK: ptx.ret
  kaio.return
}

// -----

// Atomic kinds and their PTX types.
// CHECK-LABEL: ptx.entry @atomics
// CHECK: ptx.atom global add u32
// CHECK: ptx.atom global max s32
// CHECK: ptx.atom global min s64
// CHECK: ptx.atom global exch b32
// CHECK: ptx.atom global and b64
// CHECK: ptx.atom global or b32
// CHECK: ptx.atom global xor b32
// CHECK: ptx.atom global add f16
kaio.kernel @atomics(%p: !kaio.ptr<i32>, %l: !kaio.ptr<i64>, %h: !kaio.ptr<f16>, %v: i32, %w: i64, %x: f16)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %0 = kaio.atomic add %p[%c0], %v : !kaio.ptr<i32>, i32, i32
  %1 = kaio.atomic max %p[%c0], %v : !kaio.ptr<i32>, i32, i32
  %2 = kaio.atomic min %l[%c0], %w : !kaio.ptr<i64>, i32, i64
  %3 = kaio.atomic exch %p[%c0], %v : !kaio.ptr<i32>, i32, i32
  %4 = kaio.atomic and %l[%c0], %w : !kaio.ptr<i64>, i32, i64
  %5 = kaio.atomic or %p[%c0], %v : !kaio.ptr<i32>, i32, i32
  %6 = kaio.atomic xor %p[%c0], %v : !kaio.ptr<i32>, i32, i32
  %7 = kaio.atomic add %h[%c0], %x : !kaio.ptr<f16>, i32, f16
  kaio.return
}

// -----

// Shared tiles become module-level .shared byte arrays (padding included)
// addressed with the layout: row-major with pad, swizzled (Swizzle<3, 4, 3>
// of the byte offset; the tile aligned to the swizzle's 1 KiB period),
// column-major.
// CHECK-LABEL: module
// CHECK: ptx.var shared @__kaio_smem_0 : b8 [1088] align 16
// CHECK: ptx.var shared @__kaio_smem_1 : b8 [2048] align 1024
// CHECK: ptx.var shared @__kaio_smem_2 : b8 [1536] align 16
// CHECK: ptx.var shared @__kaio_smem_3 : b8 [1024] align 16
// CHECK-LABEL: ptx.entry @shared
kaio.kernel @shared(%out: !kaio.ptr<f32>) attributes {block_size = array<i32: 256>} {
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  // CHECK: %[[PAD:.*]] = ptx.addressof @__kaio_smem_0 : i32
  // CHECK: %[[SWZ:.*]] = ptx.addressof @__kaio_smem_1 : i32
  // CHECK: %[[CM:.*]] = ptx.addressof @__kaio_smem_2 : i32
  // CHECK: %[[FLAT:.*]] = ptx.addressof @__kaio_smem_3 : i32
  %pad = kaio.shared_alloc : !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 1>>
  %swz = kaio.shared_alloc : !kaio.smem<16x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  %cm = kaio.shared_alloc : !kaio.smem<16x32xf16, #kaio.layout<col_major, pad = 8>>
  %flat = kaio.shared_alloc : !kaio.smem<256xf32>
  // Row-major, pad 1: (r * 17 + c) * 4.
  // CHECK: %[[L0:.*]] = ptx.mad lo u32 %{{.*}}, %{{.*}}, %{{.*}} : i32
  // CHECK: %[[B0:.*]] = ptx.mul lo u32 %[[L0]], %{{.*}} : i32
  // CHECK: %[[A0:.*]] = ptx.add u32 %[[PAD]], %[[B0]] : i32
  // CHECK: ptx.ld shared f32 [%[[A0]]] : i32 -> f32
  %v = kaio.shared_load %pad[%c3, %c1] : !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 1>> -> f32
  // Swizzled: o = (r * 64 + c) * 2; o ^ ((o >> 7) & 7) << 4 (the whole
  // formula: kaio.shared_address does not split offsets).
  // CHECK: %[[L1:.*]] = ptx.mad lo u32 %{{.*}}, %{{.*}}, %{{.*}} : i32
  // CHECK: %[[O1:.*]] = ptx.mul lo u32 %[[L1]], %{{.*}} : i32
  // CHECK: %[[C7:.*]] = ptx.constant 7 : i32
  // CHECK: %[[S1:.*]] = ptx.shr u32 %[[O1]], %[[C7]] : i32
  // CHECK: %[[M7:.*]] = ptx.constant 7 : i32
  // CHECK: %[[M1:.*]] = ptx.and b32 %[[S1]], %[[M7]] : i32
  // CHECK: %[[C4:.*]] = ptx.constant 4 : i32
  // CHECK: %[[H1:.*]] = ptx.shl b32 %[[M1]], %[[C4]] : i32
  // CHECK: %[[X1:.*]] = ptx.xor b32 %[[O1]], %[[H1]] : i32
  // CHECK: %[[A1:.*]] = ptx.add u32 %[[SWZ]], %[[X1]] : i32
  %a1 = kaio.shared_address %swz[%c3, %c1] : !kaio.smem<16x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  // Column-major, pad 8: (c * 24 + r) * 2.
  // CHECK: ptx.mad lo u32
  // CHECK: ptx.mul lo u32
  // CHECK: %[[A2:.*]] = ptx.add u32 %[[CM]], %{{.*}} : i32
  %a2 = kaio.shared_address %cm[%c3, %c1] : !kaio.smem<16x32xf16, #kaio.layout<col_major, pad = 8>>
  // CHECK: ptx.st shared f32
  kaio.shared_store %v, %flat[%a1] : f32, !kaio.smem<256xf32>
  // CHECK: ptx.bar_sync 0
  kaio.barrier
  kaio.store %v, %out[%a2] : f32, !kaio.ptr<f32>, i32
  kaio.return
}

// -----

// warp_id and block_reduce in a 2-D block: the linear thread id (tid.z
// ntid.y + tid.y) ntid.x + tid.x, found from the entry's launch bounds once
// the kernel's body has moved into it (warp_id used to be tid.x >> 5, 0 for
// every warp of a 32 x 4 block, and block_reduce's warps all wrote slot 0).
// CHECK-LABEL: ptx.entry @two_d
kaio.kernel @two_d(%out: !kaio.ptr<f32>, %x: f32) attributes {block_size = array<i32: 32, 4>} {
  // CHECK: %[[Y:.*]] = ptx.sreg tid.y : i32
  // CHECK: %[[ZY:.*]] = ptx.mad lo u32 %{{.*}}, %{{.*}}, %[[Y]] : i32
  // CHECK: %[[L:.*]] = ptx.mad lo u32 %[[ZY]], %{{.*}}, %{{.*}} : i32
  // CHECK: ptx.shr u32 %[[L]], %{{.*}} : i32
  %w = kaio.warp_id : i32
  // CHECK: ptx.sreg tid.y : i32
  // CHECK: %[[RZY:.*]] = ptx.mad lo u32 %{{.*}}, %{{.*}}, %{{.*}} : i32
  // CHECK: %[[RL:.*]] = ptx.mad lo u32 %[[RZY]], %{{.*}}, %{{.*}} : i32
  // CHECK: ptx.and b32 %[[RL]]
  // CHECK: ptx.shr u32 %[[RL]]
  // CHECK: ptx.sreg ntid.y
  %r = kaio.block_reduce sum %x : f32
  kaio.store %r, %out[%w] : f32, !kaio.ptr<f32>, i32
  kaio.return
}

// -----

// Shuffles: shfl.sync with the segment mask of `width`; warp reductions:
// redux.sync for i32 on sm_80, a butterfly of shuffles otherwise; block
// reductions: a warp reduction, partials through shared memory, two
// barriers.
// CHECK: ptx.var shared @__kaio_reduce_0 : b32 [32] align 16
// CHECK-LABEL: ptx.entry @reductions
// SM75-LABEL: ptx.entry @reductions
kaio.kernel @reductions(%x: f32, %i: i32, %d: i32) attributes {block_size = array<i32: 128>} {
  // CHECK: ptx.shfl_sync down
  // CHECK: ptx.shfl_sync bfly
  // CHECK: ptx.shfl_sync up
  // CHECK: ptx.shfl_sync idx
  %s0 = kaio.shuffle down %x, %d : f32
  %s1 = kaio.shuffle xor %x, %d {width = 16 : i32} : f32
  %s2 = kaio.shuffle up %i, %d : i32
  %s3 = kaio.shuffle idx %i, %d {width = 8 : i32} : i32
  // CHECK: ptx.redux_sync add s32
  // SM75-NOT: ptx.redux_sync
  // SM75-COUNT-5: ptx.shfl_sync bfly
  %r0 = kaio.warp_reduce sum %s2 : i32
  // CHECK-COUNT-5: ptx.shfl_sync bfly
  // CHECK: ptx.max f32
  %r1 = kaio.warp_reduce max %s0 : f32
  // CHECK: ptx.st if %{{.*}} shared f32
  // CHECK: ptx.bar_sync 0
  // CHECK: ptx.ld if %{{.*}} shared f32
  // CHECK: ptx.bar_sync 0
  %r2 = kaio.block_reduce sum %s1 : f32
  kaio.return
}

// -----

// The module's kaio.target picks the chip when the option does not.
// CHECK: module attributes {ptx.target = "sm_90"}
// CHECK: ptx.entry @targeted() attributes {maxnreg = 128 : i32, maxntid = array<i32: 32, 2>, minnctapersm = 2 : i32}
// SM75: module attributes {ptx.target = "sm_75"}
module attributes {kaio.target = "sm_90"} {
  kaio.kernel @targeted() attributes {block_size = array<i32: 32, 2>, max_registers = 128 : i32, min_blocks_per_sm = 2 : i32} {
    kaio.return
  }
}

// -----

// kaio.signed parameters stay signed in the ptx kernel.
// CHECK-LABEL: ptx.entry @signed_param
// CHECK-SAME: (%{{.*}}: i32 {ptx.signed}, %{{.*}}: i32)
kaio.kernel @signed_param(%n: i32 {kaio.signed}, %m: i32)
    attributes {block_size = array<i32: 32>} {
  kaio.return
}

// -----

// Vector accesses are one ld.v4/st.v2; a masked one is guarded, and each
// result falls back to the else value.
// CHECK-LABEL: ptx.entry @vectors
// CHECK: %[[M:.*]] = arith.cmpi
// CHECK: %[[V:.*]]:4 = ptx.ld global nc f32 [%{{.*}}] : i64 -> f32, f32, f32, f32
// CHECK: %[[W:.*]]:2 = ptx.ld if %[[M]] global f32 [%{{.*}}] : i64 -> f32, f32
// CHECK: ptx.selp b32 %[[W]]#0, %{{.*}}, %[[M]] : f32
// CHECK: ptx.selp b32 %[[W]]#1, %{{.*}}, %[[M]] : f32
// CHECK: ptx.st if %[[M]] global f32 [%{{.*}}], %[[V]]#0, %[[V]]#3 : i64, f32, f32
kaio.kernel @vectors(%x: !kaio.ptr<f32> {kaio.readonly}, %y: !kaio.ptr<f32>,
                     %i: i32, %n: i32) attributes {block_size = array<i32: 32>} {
  %zero = arith.constant 0.0 : f32
  %m = arith.cmpi ult, %i, %n : i32
  %a, %b, %c, %d = kaio.load_vector %x[%i] : !kaio.ptr<f32>, i32 -> f32, f32, f32, f32
  %e, %f = kaio.load_vector %y[%i] : !kaio.ptr<f32>, i32 -> f32, f32 mask %m else %zero
  kaio.store_vector %a, %d to %y[%i] mask %m : (f32, f32), !kaio.ptr<f32>, i32
  kaio.return
}

// -----

// Eight halves are one 16-byte access: ld.v4.b32 of packed pairs, unpacked;
// stores pack them back.
// CHECK-LABEL: ptx.entry @eight_halves
// CHECK: %[[W:.*]]:4 = ptx.ld global nc b32 [%{{.*}}] : i64 -> i32, i32, i32, i32
// CHECK: %[[H0:.*]]:2 = ptx.unpack b32 %[[W]]#0 : i32 -> f16, f16
// CHECK: %[[H3:.*]]:2 = ptx.unpack b32 %[[W]]#3 : i32 -> f16, f16
// CHECK: %[[P0:.*]] = ptx.pack b32 %[[H3]]#1, %[[H3]]#0 : f16, f16 -> i32
// CHECK: ptx.st global b32 [%{{.*}}], %[[P0]], %{{.*}}, %{{.*}}, %{{.*}} : i64, i32, i32, i32, i32
kaio.kernel @eight_halves(%x: !kaio.ptr<f16> {kaio.readonly}, %y: !kaio.ptr<f16>,
                          %i: i32) attributes {block_size = array<i32: 32>} {
  %h:8 = kaio.load_vector %x[%i] : !kaio.ptr<f16>, i32 -> f16, f16, f16, f16, f16, f16, f16, f16
  kaio.store_vector %h#7, %h#6, %h#5, %h#4, %h#3, %h#2, %h#1, %h#0 to %y[%i] : (f16, f16, f16, f16, f16, f16, f16, f16), !kaio.ptr<f16>, i32
  kaio.return
}
