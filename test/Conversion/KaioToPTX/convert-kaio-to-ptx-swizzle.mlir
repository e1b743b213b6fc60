// RUN: kaio-opt %s --convert-kaio-to-ptx --cse | FileCheck %s

// Swizzled accesses at a variable part plus constants that share no bit
// with it: the address is tile + S(variable) (one for all of them) xor
// S(constant) below the tile's alignment, + the rest. Lanes of a block of
// exactly 256 threads (tid < 256): column 4 (tid % 16) of a 128 x 16 f32
// tile under Swizzle<3, 4, 4> (rows 4 apart in distinct bank groups).
// CHECK-LABEL: ptx.entry @swizzle_split
kaio.kernel @swizzle_split(%out: !kaio.ptr<f32>) attributes {block_size = array<i32: 256>, kaio.exact_block_size} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c67 = arith.constant 67 : i32
  // CHECK: %[[T:.*]] = ptx.addressof @__kaio_smem_{{[0-9]+}} : i32
  %t = kaio.shared_alloc : !kaio.smem<128x16xf32, #kaio.layout<row_major, swizzle = <3, 4, 4>>>
  %tid = kaio.thread_id x : i32
  %lane16 = arith.remui %tid, %c16 : i32
  %r = arith.muli %lane16, %c4 : i32
  // (r, 0): o = r * 16 * 4, S(o) the whole formula, once.
  // CHECK: %[[L:.*]] = ptx.mul lo u32 %{{.*}}, %{{.*}} : i32
  // CHECK: %[[O:.*]] = ptx.mul lo u32 %[[L]], %{{.*}} : i32
  // CHECK: ptx.shr u32 %[[O]]
  // CHECK: %[[S:.*]] = ptx.xor b32 %[[O]], %{{.*}} : i32
  // CHECK: %[[B:.*]] = ptx.add u32 %[[T]], %[[S]] : i32
  // CHECK: ptx.ld shared f32 [%[[B]]] : i32 -> f32, f32, f32, f32
  %v0:4 = kaio.shared_load_vector %t[%r, %c0] : !kaio.smem<128x16xf32, #kaio.layout<row_major, swizzle = <3, 4, 4>>> -> f32, f32, f32, f32
  // (r + 3, 8): + 3 * 64 + 32 = 224 = 0xe0, S(0xe0) = 0xe0: base xor 224.
  // CHECK-NOT: ptx.shr
  // CHECK: %[[K1:.*]] = ptx.constant 224 : i32
  // CHECK: %[[A1:.*]] = ptx.xor b32 %{{.*}}, %[[K1]] : i32
  // CHECK: ptx.ld shared f32 [%[[A1]]] : i32 -> f32, f32, f32, f32
  %r3 = arith.addi %r, %c3 : i32
  %v1:4 = kaio.shared_load_vector %t[%r3, %c8] : !kaio.smem<128x16xf32, #kaio.layout<row_major, swizzle = <3, 4, 4>>> -> f32, f32, f32, f32
  // (r + 67, 4): 67 * 64 + 16 = 4304 = 4096 + 208; the tile is aligned to
  // 1 KiB: xor 208, add 4096.
  // CHECK-NOT: ptx.shr
  // CHECK: %[[K2:.*]] = ptx.constant 208 : i32
  // CHECK: %[[X2:.*]] = ptx.xor b32 %{{.*}}, %[[K2]] : i32
  // CHECK: %[[H2:.*]] = ptx.constant 4096 : i32
  // CHECK: %[[A2:.*]] = ptx.add u32 %[[X2]], %[[H2]] : i32
  // CHECK: ptx.ld shared f32 [%[[A2]]]
  %r67 = arith.addi %r, %c67 : i32
  %w = kaio.shared_load %t[%r67, %c4] : !kaio.smem<128x16xf32, #kaio.layout<row_major, swizzle = <3, 4, 4>>> -> f32
  // (tid + 1, 0): the constant's bit 6 may be set by tid * 64: the whole
  // formula.
  // CHECK: ptx.shr u32
  // CHECK: ptx.st shared f32
  %tid1 = arith.addi %tid, %c1 : i32
  kaio.shared_store %w, %t[%tid1, %c0] : f32, !kaio.smem<128x16xf32, #kaio.layout<row_major, swizzle = <3, 4, 4>>>
  %s0 = arith.addf %v0#0, %v1#3 : f32
  kaio.store %s0, %out[%tid] : f32, !kaio.ptr<f32>, i32
  kaio.return
}


// The bounds come from the entry the kernel became (reqntid 16: tid < 16,
// so tid * 64 and the constant 16 * 64 share no bit): split.
// CHECK-LABEL: ptx.entry @bounded_by_the_block
kaio.kernel @bounded_by_the_block(%out: !kaio.ptr<f32>, %n: i32) attributes {block_size = array<i32: 16>, kaio.exact_block_size} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %t = kaio.shared_alloc : !kaio.smem<128x16xf32, #kaio.layout<row_major, swizzle = <3, 4, 4>>>
  %tid = kaio.thread_id x : i32
  // CHECK: %[[K:.*]] = ptx.constant 1024 : i32
  // CHECK: %[[A:.*]] = ptx.add u32 %{{.*}}, %[[K]] : i32
  // CHECK: ptx.ld shared f32 [%[[A]]]
  %r = arith.addi %tid, %c16 : i32
  %w = kaio.shared_load %t[%r, %c0] : !kaio.smem<128x16xf32, #kaio.layout<row_major, swizzle = <3, 4, 4>>> -> f32
  // x % n for an unknown n is at most x, not within x's bits ((tid & 1) * 4
  // % 3 is 1 for odd threads): row + 1 may carry, the whole formula.
  // CHECK: arith.remui
  // CHECK: ptx.shr u32
  // CHECK: ptx.ld shared f32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %odd = arith.andi %tid, %c1 : i32
  %x = arith.muli %odd, %c4 : i32
  %rem = arith.remui %x, %n : i32
  %row = arith.addi %rem, %c1 : i32
  %v = kaio.shared_load %t[%row, %c0] : !kaio.smem<128x16xf32, #kaio.layout<row_major, swizzle = <3, 4, 4>>> -> f32
  %s = arith.addf %w, %v : f32
  kaio.store %s, %out[%tid] : f32, !kaio.ptr<f32>, i32
  kaio.return
}
