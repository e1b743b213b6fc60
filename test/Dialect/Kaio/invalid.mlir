// Every verifier rule of the kaio dialect, one case each.
// RUN: kaio-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// expected-error @+1 {{pointer element must be an integer of 8, 16, 32 or 64 bits or f16/bf16/f32/f64, got 'i1'}}
func.func @ptr_of_i1(%p: !kaio.ptr<i1>)

// -----

// expected-error @+1 {{pointer element must be an integer of 8, 16, 32 or 64 bits or f16/bf16/f32/f64, got 'i4'}}
func.func @ptr_of_i4(%p: !kaio.ptr<i4>)

// -----

// expected-error @+1 {{shared tiles have 1 or 2 dimensions}}
func.func @smem_3d(%s: !kaio.smem<2x2x2xf32>)

// -----

// expected-error @+1 {{shared tile dimensions must be positive}}
func.func @smem_empty(%s: !kaio.smem<0x4xf32>)

// -----

// expected-error @+1 {{shared tile element must be a scalar or an 8-bit float (f8E4M3FN, f8E5M2), got 'index'}}
func.func @smem_of_index(%s: !kaio.smem<4x4xindex>)

// -----

// expected-error @+1 {{a layout applies to 2-D tiles only}}
func.func @smem_1d_layout(%s: !kaio.smem<64xf32, #kaio.layout<row_major, pad = 1>>)

// -----

// expected-error @+1 {{swizzle <3, 4, 2> is not a swizzle: need bits > 0, base >= 0, shift >= bits and base + shift + bits <= 32}}
func.func @smem_swizzle_overlap(%s: !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 2>>>)

// -----

// expected-error @+1 {{swizzle <-1, 4, 3> is not a swizzle}}
func.func @smem_swizzle_negative(%s: !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <-1, 4, 3>>>)

// -----

// expected-error @+1 {{swizzle base 0 would split 2-byte elements}}
func.func @smem_swizzle_splits_elements(%s: !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <2, 0, 3>>>)

// -----

// expected-error @+1 {{swizzle <3, 4, 3> permutes 128-byte segments; the tile has 96 bytes}}
func.func @smem_swizzle_partial_segment(%s: !kaio.smem<3x16xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>)

// -----

// expected-error @+1 {{expected '<'}}
func.func @smem_swizzle_old_syntax(%s: !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = 3>>)

// -----

// expected-error @+1 {{pad must be >= 0}}
func.func @smem_negative_pad(%s: !kaio.smem<64x64xf16, #kaio.layout<row_major, pad = -8>>)

// -----

// expected-error @+1 {{a layout either pads or swizzles, not both}}
func.func @smem_swizzle_and_pad(%s: !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <1, 4, 3>, pad = 8>>)

// -----

// expected-error @+1 {{'pad' is given twice}}
func.func @layout_pad_twice(%s: !kaio.smem<64x64xf16, #kaio.layout<row_major, pad = 8, pad = 8>>)

// -----

// expected-error @+1 {{expected 'pad' or 'swizzle'}}
func.func @layout_unknown_key(%s: !kaio.smem<64x64xf16, #kaio.layout<row_major, skew = 8>>)

// -----

// expected-error @+1 {{a layout either pads or swizzles, not both}}
func.func @smem_pad_and_swizzle(%s: !kaio.smem<64x64xf16, #kaio.layout<row_major, pad = 8, swizzle = <1, 4, 3>>>)

// -----


// expected-error @+1 {{swizzled layouts are row-major}}
func.func @smem_col_major_swizzle(%s: !kaio.smem<64x64xf16, #kaio.layout<col_major, swizzle = <1, 4, 3>>>)

//===----------------------------------------------------------------------===//
// Module attributes
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'kaio.target' names an unknown chip 'sm_42'}}
module attributes {kaio.target = "sm_42"} {
}

// -----

// expected-error @+1 {{'kaio.target' must be a string naming a chip, e.g. "sm_80"}}
module attributes {kaio.target = 80 : i32} {
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'kaio.kernel' op kernels return no values}}
kaio.kernel @returns_value() -> i32 attributes {block_size = array<i32: 32>} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op parameter #1 has type 'index'; kernels take !kaio.ptr, !kaio.tensor_map and scalars}}
kaio.kernel @index_param(%a: i32, %b: index) attributes {block_size = array<i32: 32>} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op 'kaio.readonly' marks pointer parameters only}}
kaio.kernel @readonly_scalar(%a: i32 {kaio.readonly}) attributes {block_size = array<i32: 32>} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op block_size has 1 to 3 dimensions}}
kaio.kernel @no_block_size() attributes {block_size = array<i32>} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op block_size has 1 to 3 dimensions}}
kaio.kernel @block_4d() attributes {block_size = array<i32: 2, 2, 2, 2>} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op block_size dimensions must be positive}}
kaio.kernel @block_zero() attributes {block_size = array<i32: 32, 0>} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op block of 2048 threads exceeds the limit of 1024}}
kaio.kernel @block_too_big() attributes {block_size = array<i32: 64, 32>} {
  kaio.return
}

// -----

// Extents whose product overflows 64 bits (2^21 * 2^21 * 2^22 = 2^64).
// expected-error @+1 {{'kaio.kernel' op block of 4294967296 threads exceeds the limit of 1024}}
kaio.kernel @block_overflow() attributes {block_size = array<i32: 2097152, 2097152, 4194304>} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op max_registers must be between 16 and 255}}
kaio.kernel @too_many_registers() attributes {block_size = array<i32: 32>, max_registers = 256 : i32} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op min_blocks_per_sm must be positive}}
kaio.kernel @no_blocks() attributes {block_size = array<i32: 32>, min_blocks_per_sm = 0 : i32} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op cluster_size dimensions must be positive}}
kaio.kernel @empty_cluster() attributes {block_size = array<i32: 32>, cluster_size = array<i32: 2, 0>} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op cluster_size has 1 to 3 dimensions}}
kaio.kernel @cluster_4d() attributes {block_size = array<i32: 32>, cluster_size = array<i32: 1, 1, 1, 2>} {
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op cluster of 16 blocks exceeds the portable limit of 8}}
kaio.kernel @huge_cluster() attributes {block_size = array<i32: 32>, cluster_size = array<i32: 4, 4>} {
  kaio.return
}

// -----

module attributes {kaio.target = "sm_80"} {
  // expected-error @+1 {{'kaio.kernel' op cluster_size needs sm_90, but the module targets sm_80}}
  kaio.kernel @old_cluster() attributes {block_size = array<i32: 32>, cluster_size = array<i32: 2>} {
    kaio.return
  }
}

// -----

module attributes {kaio.target = "sm_80"} {
  kaio.kernel @old_rank(%out: !kaio.ptr<i32>) attributes {block_size = array<i32: 32>} {
    // expected-error @+1 {{'kaio.block_rank' op needs sm_90, but the module targets sm_80}}
    %r = kaio.block_rank : i32
    kaio.store %r, %out[%r] : i32, !kaio.ptr<i32>, i32
    kaio.return
  }
}

// -----

kaio.kernel @diverged_cluster_barrier() attributes {block_size = array<i32: 64>, cluster_size = array<i32: 2>} {
  %c0 = arith.constant 0 : i32
  %tid = kaio.thread_id x : i32
  %first = arith.cmpi eq, %tid, %c0 : i32
  // expected-note @+1 {{the condition depends on the thread or its block}}
  scf.if %first {
    // expected-error @+1 {{'kaio.cluster_barrier' op synchronises the cluster but sits under control flow that depends on the thread or its block: threads that skip it deadlock}}
    kaio.cluster_barrier
  }
  kaio.return
}

// -----

kaio.kernel @rank_cluster_barrier() attributes {block_size = array<i32: 64>, cluster_size = array<i32: 2>} {
  %c0 = arith.constant 0 : i32
  %r = kaio.block_rank : i32
  %root = arith.cmpi eq, %r, %c0 : i32
  // A block-wide barrier may depend on the block; the cluster's may not.
  // expected-note @+1 {{the condition depends on the thread or its block}}
  scf.if %root {
    kaio.barrier
    // expected-error @+1 {{'kaio.cluster_barrier' op synchronises the cluster}}
    kaio.cluster_barrier
  }
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op kernel must have a body}}
kaio.kernel @declaration() attributes {block_size = array<i32: 32>}

// -----

// expected-error @+1 {{'kaio.kernel' op type of entry block argument #0('i64') must match the type of the corresponding argument in function signature('i32')}}
"kaio.kernel"() ({
^bb0(%a: i64):
  kaio.return
}) {sym_name = "mismatch", function_type = (i32) -> (),
    block_size = array<i32: 32>} : () -> ()

//===----------------------------------------------------------------------===//
// Synchronisation under thread-dependent control flow
//===----------------------------------------------------------------------===//

// -----

kaio.kernel @barrier_under_thread_if() attributes {block_size = array<i32: 64>} {
  %c0 = arith.constant 0 : i32
  %tid = kaio.thread_id x : i32
  %first = arith.cmpi eq, %tid, %c0 : i32
  // expected-note @+1 {{the condition depends on the thread}}
  scf.if %first {
    // expected-error @+1 {{'kaio.barrier' op synchronises the block but sits under thread-dependent control flow: threads that skip it deadlock or race}}
    kaio.barrier
  }
  kaio.return
}

// -----

kaio.kernel @barrier_under_lane_if() attributes {block_size = array<i32: 64>} {
  %c16 = arith.constant 16 : i32
  %lane = kaio.lane_id : i32
  %low = arith.cmpi ult, %lane, %c16 : i32
  // expected-note @+1 {{the condition depends on the thread}}
  scf.if %low {
  } else {
    // expected-error @+1 {{'kaio.barrier' op synchronises the block}}
    kaio.barrier
  }
  kaio.return
}

// -----

kaio.kernel @block_reduce_in_thread_loop(%n: i32) attributes {block_size = array<i32: 64>} {
  %c1 = arith.constant 1 : i32
  %x = arith.constant 1.0 : f32
  %tid = kaio.thread_id x : i32
  // Each thread runs a different number of iterations.
  // expected-note @+1 {{the condition depends on the thread}}
  scf.for %i = %tid to %n step %c1 : i32 {
    // expected-error @+1 {{'kaio.block_reduce' op synchronises the block but sits under thread-dependent control flow}}
    %r = kaio.block_reduce sum %x : f32
  }
  kaio.return
}

// -----

kaio.kernel @async_copy_under_thread_if(%p: !kaio.ptr<f16>, %n: i32) attributes {block_size = array<i32: 64>} {
  %c0 = arith.constant 0 : i32
  %warp = kaio.warp_id : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %w0 = arith.cmpi eq, %warp, %c0 : i32
  // expected-note @+1 {{the condition depends on the thread}}
  scf.if %w0 {
    // expected-error @+1 {{'kaio.async_copy' op synchronises the block but sits under thread-dependent control flow}}
    %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  }
  kaio.return
}

// -----

kaio.kernel @async_copy_rows_outside(%p: !kaio.ptr<f16>, %n: i32) attributes {block_size = array<i32: 64>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  // expected-error @+1 {{'kaio.async_copy' op 'rows' must be [first, count] with rows first .. first + count - 1 inside the tile's 16}}
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s rows [8, 9]
      : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
  kaio.return
}

// -----

// The dependence flows through a load at a thread-dependent address and a
// loop-carried value.
kaio.kernel @barrier_after_dependent_load(%p: !kaio.ptr<i32>, %n: i32) attributes {block_size = array<i32: 64>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %tid = kaio.thread_id x : i32
  %v = kaio.load %p[%tid] : !kaio.ptr<i32>, i32 -> i32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %next = arith.addi %acc, %v : i32
    scf.yield %next : i32
  }
  %big = arith.cmpi sgt, %sum, %n : i32
  // expected-note @+1 {{the condition depends on the thread}}
  scf.if %big {
    // expected-error @+1 {{'kaio.barrier' op synchronises the block}}
    kaio.barrier
  }
  kaio.return
}

// -----

kaio.kernel @barrier_in_thread_while(%n: i32) attributes {block_size = array<i32: 64>} {
  %c1 = arith.constant 1 : i32
  %tid = kaio.thread_id x : i32
  // expected-note @+1 {{the condition depends on the thread}}
  %r = scf.while (%i = %tid) : (i32) -> i32 {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%i: i32):
    // expected-error @+1 {{'kaio.barrier' op synchronises the block}}
    kaio.barrier
    %j = arith.addi %i, %c1 : i32
    scf.yield %j : i32
  }
  kaio.return
}

//===----------------------------------------------------------------------===//
// Shared memory limits and target requirements
//===----------------------------------------------------------------------===//

// -----

// Above 48 KiB the tiles move to dynamic shared memory, up to the chip's
// opt-in maximum (227 KiB on sm_90, the largest; 64 KiB on sm_75).
kaio.kernel @one_alloc_too_big() attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.shared_alloc' op allocates 262144 bytes; no chip has more than 232448 bytes of shared memory per block}}
  %s = kaio.shared_alloc : !kaio.smem<65536xf32>
  kaio.return
}

// -----

// expected-error @+1 {{'kaio.kernel' op uses 262144 bytes of shared memory; any chip allows at most 232448 per block}}
kaio.kernel @allocs_too_big() attributes {block_size = array<i32: 32>} {
  %a = kaio.shared_alloc : !kaio.smem<256x128xf32>
  %b = kaio.shared_alloc : !kaio.smem<32768xf32>
  kaio.return
}

// -----

// The block reduction's scratch counts too.
module attributes {kaio.target = "sm_75"} {
  // expected-error @+1 {{'kaio.kernel' op uses 65792 bytes of shared memory; sm_75 allows at most 65536 per block}}
  kaio.kernel @alloc_and_reduce(%x: f32) attributes {block_size = array<i32: 32>} {
    %a = kaio.shared_alloc : !kaio.smem<16384xf32>
    %r = kaio.block_reduce sum %x : f32
    kaio.return
  }
}

// -----

// Padding counts: 64 rows of 100 f32 and 704 columns of 24 f16 (59392
// bytes), and 6400 more.
module attributes {kaio.target = "sm_75"} {
  // expected-error @+1 {{'kaio.kernel' op uses 65792 bytes of shared memory; sm_75 allows at most 65536 per block}}
  kaio.kernel @padding_counts() attributes {block_size = array<i32: 32>} {
    %a = kaio.shared_alloc : !kaio.smem<64x96xf32, #kaio.layout<row_major, pad = 4>>
    %b = kaio.shared_alloc : !kaio.smem<16x704xf16, #kaio.layout<col_major, pad = 8>>
    %c = kaio.shared_alloc : !kaio.smem<1600xf32>
    kaio.return
  }
}

// -----

module attributes {kaio.target = "sm_75"} {
  kaio.kernel @mma_on_sm75() attributes {block_size = array<i32: 32>} {
    %h = arith.constant 0.0 : f16
    %f = arith.constant 0.0 : f32
    %a = kaio.frag_fill %h : f16 -> !kaio.frag<a, m16n8k16, f16>
    %b = kaio.frag_fill %h : f16 -> !kaio.frag<b, m16n8k16, f16>
    %c = kaio.frag_fill %f : f32 -> !kaio.frag<acc, m16n8k16, f32>
    // expected-error @+1 {{'kaio.mma' op needs sm_80, but the module targets sm_75}}
    %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k16, f16>, !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
    kaio.return
  }
}

// -----

module attributes {kaio.target = "sm_75"} {
  kaio.kernel @async_copy_on_sm75(%p: !kaio.ptr<f16>, %n: i32) attributes {block_size = array<i32: 32>} {
    %c0 = arith.constant 0 : i32
    %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
    // expected-error @+1 {{'kaio.async_copy' op needs cp.async (sm_80), but the module targets sm_75}}
    %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    kaio.return
  }
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

// -----

kaio.kernel @load_wrong_type(%p: !kaio.ptr<f32>, %i: i32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.load' op loads 'f16' through a pointer to 'f32'}}
  %v = kaio.load %p[%i] : !kaio.ptr<f32>, i32 -> f16
  kaio.return
}

// -----

kaio.kernel @load_mask_without_fallback(%p: !kaio.ptr<f32>, %i: i32) attributes {block_size = array<i32: 32>} {
  %m = arith.cmpi eq, %i, %i : i32
  // expected-error @+1 {{'kaio.load' op a masked load needs a fallback value}}
  %v = "kaio.load"(%p, %i, %m) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (!kaio.ptr<f32>, i32, i1) -> f32
  kaio.return
}

// -----

kaio.kernel @load_fallback_without_mask(%p: !kaio.ptr<f32>, %i: i32, %x: f32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.load' op a fallback value needs a mask}}
  %v = "kaio.load"(%p, %i, %x) {operandSegmentSizes = array<i32: 1, 1, 0, 1>} : (!kaio.ptr<f32>, i32, f32) -> f32
  kaio.return
}

// -----

kaio.kernel @load_fallback_type(%p: !kaio.ptr<f32>, %i: i32, %x: f64) attributes {block_size = array<i32: 32>} {
  %m = arith.cmpi eq, %i, %i : i32
  // expected-error @+1 {{'kaio.load' op fallback value must have the result type}}
  %v = "kaio.load"(%p, %i, %m, %x) {operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (!kaio.ptr<f32>, i32, i1, f64) -> f32
  kaio.return
}

// -----

kaio.kernel @store_wrong_type(%p: !kaio.ptr<i32>, %i: i32, %x: f32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.store' op stores 'f32' through a pointer to 'i32'}}
  kaio.store %x, %p[%i] : f32, !kaio.ptr<i32>, i32
  kaio.return
}

// -----

kaio.kernel @atomic_wrong_type(%p: !kaio.ptr<f32>, %i: i32, %x: i32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.atomic' op atomic on 'i32' through a pointer to 'f32'}}
  %o = kaio.atomic add %p[%i], %x : !kaio.ptr<f32>, i32, i32
  kaio.return
}

// -----

kaio.kernel @atomic_add_i16(%p: !kaio.ptr<i16>, %i: i32, %x: i16) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.atomic' op atomic add takes i32, i64, f16, bf16, f32 or f64}}
  %o = kaio.atomic add %p[%i], %x : !kaio.ptr<i16>, i32, i16
  kaio.return
}

// -----

kaio.kernel @atomic_max_f32(%p: !kaio.ptr<f32>, %i: i32, %x: f32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.atomic' op atomic min/max take i32 or i64}}
  %o = kaio.atomic max %p[%i], %x : !kaio.ptr<f32>, i32, f32
  kaio.return
}

// -----

kaio.kernel @atomic_xor_f64(%p: !kaio.ptr<f64>, %i: i32, %x: f64) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.atomic' op bitwise and exchange atomics take i32 or i64}}
  %o = kaio.atomic xor %p[%i], %x : !kaio.ptr<f64>, i32, f64
  kaio.return
}

// -----

kaio.kernel @atomic_result_type(%p: !kaio.ptr<i32>, %i: i32, %x: i32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.atomic' op failed to verify that all of {value, result} have same type}}
  %o = "kaio.atomic"(%p, %i, %x) {kind = 0 : i32} : (!kaio.ptr<i32>, i32, i32) -> i64
  kaio.return
}

// -----

kaio.kernel @ptr_add_result(%p: !kaio.ptr<f32>, %i: i32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.ptr_add' op failed to verify that all of {base, result} have same type}}
  %q = "kaio.ptr_add"(%p, %i) : (!kaio.ptr<f32>, i32) -> !kaio.ptr<f16>
  kaio.return
}

//===----------------------------------------------------------------------===//
// Shared tiles, shuffles
//===----------------------------------------------------------------------===//

// -----

kaio.kernel @shared_index_count() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf32>
  // expected-error @+1 {{'kaio.shared_load' op expected 2 indices into '!kaio.smem<16x16xf32>'}}
  %v = kaio.shared_load %s[%c0] : !kaio.smem<16x16xf32> -> f32
  kaio.return
}

// -----

kaio.kernel @shared_load_wrong_type() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf32>
  // expected-error @+1 {{'kaio.shared_load' op accesses 'f16' in a tile of 'f32'}}
  %v = kaio.shared_load %s[%c0, %c0] : !kaio.smem<16x16xf32> -> f16
  kaio.return
}

// -----

kaio.kernel @shared_store_wrong_type(%x: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<64xf32>
  // expected-error @+1 {{'kaio.shared_store' op accesses 'i32' in a tile of 'f32'}}
  kaio.shared_store %x, %s[%c0] : i32, !kaio.smem<64xf32>
  kaio.return
}

// -----

kaio.kernel @shared_load_out_of_bounds() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x32xf32>
  // expected-error @+1 {{'kaio.shared_load' op index 16 is outside dimension 0 of size 16}}
  %v = kaio.shared_load %s[%c16, %c0] : !kaio.smem<16x32xf32> -> f32
  kaio.return
}

// -----

kaio.kernel @shared_store_negative_index(%x: f32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %cm1 = arith.constant -1 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x32xf32>
  // expected-error @+1 {{'kaio.shared_store' op index -1 is outside dimension 1 of size 32}}
  kaio.shared_store %x, %s[%c0, %cm1] : f32, !kaio.smem<16x32xf32>
  kaio.return
}

// -----

kaio.kernel @shared_address_out_of_bounds() attributes {block_size = array<i32: 32>} {
  %c64 = arith.constant 64 : i32
  %s = kaio.shared_alloc : !kaio.smem<64xf16>
  // expected-error @+1 {{'kaio.shared_address' op index 64 is outside dimension 0 of size 64}}
  %a = kaio.shared_address %s[%c64] : !kaio.smem<64xf16>
  kaio.return
}

// -----

kaio.kernel @shuffle_width(%x: f32, %d: i32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.shuffle' op width must be a power of two up to 32}}
  %y = kaio.shuffle down %x, %d {width = 12 : i32} : f32
  kaio.return
}

// -----

kaio.kernel @shuffle_wide(%x: f32, %d: i32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.shuffle' op width must be a power of two up to 32}}
  %y = kaio.shuffle idx %x, %d {width = 64 : i32} : f32
  kaio.return
}

//===----------------------------------------------------------------------===//
// Async copies
//===----------------------------------------------------------------------===//

// -----

kaio.kernel @async_copy_wrong_type(%p: !kaio.ptr<f32>, %n: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  // expected-error @+1 {{'kaio.async_copy' op copies 'f32' into a tile of 'f16'}}
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
      : !kaio.ptr<f32>, !kaio.smem<16x16xf16>
  kaio.return
}

// -----

kaio.kernel @async_copy_1d(%p: !kaio.ptr<f32>, %n: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<256xf32>
  // expected-error @+1 {{'kaio.async_copy' op copies into 2-D tiles}}
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
      : !kaio.ptr<f32>, !kaio.smem<256xf32>
  kaio.return
}

// -----

kaio.kernel @async_copy_short_rows(%p: !kaio.ptr<f16>, %n: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x3xf16>
  // expected-error @+1 {{'kaio.async_copy' op tile rows of 6 bytes are not a multiple of 4 (cp.async moves 4, 8 or 16 bytes)}}
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
      : !kaio.ptr<f16>, !kaio.smem<16x3xf16>
  kaio.return
}

// -----

kaio.kernel @async_copy_col_major(%p: !kaio.ptr<f16>, %n: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<col_major>>
  // expected-error @+1 {{'kaio.async_copy' op copies row-major global rows into row-major tiles only}}
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
      : !kaio.ptr<f16>, !kaio.smem<16x16xf16, #kaio.layout<col_major>>
  kaio.return
}

// -----

kaio.kernel @async_copy_unaligned_pad(%p: !kaio.ptr<f16>, %n: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<row_major, pad = 1>>
  // expected-error @+1 {{'kaio.async_copy' op tile rows start 34 bytes apart, not a multiple of 4 (cp.async writes aligned chunks)}}
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
      : !kaio.ptr<f16>, !kaio.smem<16x16xf16, #kaio.layout<row_major, pad = 1>>
  kaio.return
}

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

// -----

kaio.kernel @frag_fill_no_variant(%x: f32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.frag_fill' op no mma.m16n8k16 takes 'f32' as a}}
  %a = kaio.frag_fill %x : f32 -> !kaio.frag<a, m16n8k16, f32>
  kaio.return
}

// -----

kaio.kernel @frag_fill_wrong_type(%x: f32) attributes {block_size = array<i32: 32>} {
  // expected-error @+1 {{'kaio.frag_fill' op fill value must have the fragment's element type}}
  %a = kaio.frag_fill %x : f32 -> !kaio.frag<acc, m16n8k16, f16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_no_variant() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf64>
  // expected-error @+1 {{'kaio.load_fragment' op no mma.m16n8k8 takes 'f64' as b}}
  %b = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<16x16xf64> -> !kaio.frag<b, m16n8k8, f64>
  kaio.return
}

// -----

kaio.kernel @load_fragment_acc() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf32>
  // expected-error @+1 {{'kaio.load_fragment' op accumulators are not loaded from shared tiles}}
  %c = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<16x16xf32> -> !kaio.frag<acc, m16n8k16, f32>
  kaio.return
}

// -----

kaio.kernel @load_fragment_wrong_type() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  // expected-error @+1 {{'kaio.load_fragment' op loads 'bf16' from a tile of 'f16'}}
  %a = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<16x16xf16> -> !kaio.frag<a, m16n8k16, bf16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_transposed_a_col_major() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<col_major>>
  // expected-error @+1 {{'kaio.load_fragment' op the A operand comes from a row-major tile}}
  %a = kaio.load_fragment %s[%c0, %c0] transpose : !kaio.smem<16x16xf16, #kaio.layout<col_major>> -> !kaio.frag<a, m16n8k16, f16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_transposed_b_col_major() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<col_major>>
  // expected-error @+1 {{'kaio.load_fragment' op loads a transposed B from a row-major tile}}
  %b = kaio.load_fragment %s[%c0, %c0] transpose : !kaio.smem<16x16xf16, #kaio.layout<col_major>> -> !kaio.frag<b, m16n8k16, f16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_transposed_a_outside() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16>
  // A^T's atom is 16 (k) x 16 (m) tile elements: column 8 leaves the tile.
  // expected-error @+1 {{'kaio.load_fragment' op columns 8..23 are outside the tile}}
  %a = kaio.load_fragment %s[%c0, %c8] transpose : !kaio.smem<16x16xf16> -> !kaio.frag<a, m16n8k16, f16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_1d() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<256xf16>
  // expected-error @+1 {{'kaio.load_fragment' op loads from 2-D tiles}}
  %a = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<256xf16> -> !kaio.frag<a, m16n8k16, f16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_4bit() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x64xi8>
  // expected-error @+1 {{'kaio.load_fragment' op 4-bit fragments are not loaded from shared tiles}}
  %a = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<16x64xi8> -> !kaio.frag<a, m16n8k64, i4>
  kaio.return
}

// -----

kaio.kernel @load_fragment_a_col_major() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<col_major>>
  // expected-error @+1 {{'kaio.load_fragment' op the A operand comes from a row-major tile}}
  %a = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<16x16xf16, #kaio.layout<col_major>> -> !kaio.frag<a, m16n8k16, f16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_small_tile() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<8x64xf16>
  // expected-error @+1 {{'kaio.load_fragment' op a 16x16 fragment does not fit in '!kaio.smem<8x64xf16>'}}
  %a = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<8x64xf16> -> !kaio.frag<a, m16n8k16, f16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_rows_outside() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c24 = arith.constant 24 : i32
  %s = kaio.shared_alloc : !kaio.smem<32x16xf16>
  // expected-error @+1 {{'kaio.load_fragment' op rows 24..39 are outside the tile}}
  %a = kaio.load_fragment %s[%c24, %c0] : !kaio.smem<32x16xf16> -> !kaio.frag<a, m16n8k16, f16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_columns_outside() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c60 = arith.constant 60 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x64xf16>
  // expected-error @+1 {{'kaio.load_fragment' op columns 60..67 are outside the tile}}
  %b = kaio.load_fragment %s[%c0, %c60] : !kaio.smem<16x64xf16> -> !kaio.frag<b, m16n8k16, f16>
  kaio.return
}

// -----

kaio.kernel @load_fragment_negative_row() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %cm8 = arith.constant -8 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x64xf16>
  // expected-error @+1 {{'kaio.load_fragment' op rows -8..7 are outside the tile}}
  %b = kaio.load_fragment %s[%cm8, %c0] : !kaio.smem<16x64xf16> -> !kaio.frag<b, m16n8k16, f16>
  kaio.return
}

// -----

func.func @mma_roles(%a: !kaio.frag<a, m16n8k16, f16>, %c: !kaio.frag<acc, m16n8k16, f32>) {
  // expected-error @+1 {{'kaio.mma' op operands must be A, B and accumulator fragments}}
  %d = kaio.mma %a, %a, %c : !kaio.frag<a, m16n8k16, f16>, !kaio.frag<a, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
  return
}

// -----

func.func @mma_tiles(%a: !kaio.frag<a, m16n8k16, f16, 2x1>, %b: !kaio.frag<b, m16n8k16, f16, 1x2>, %c: !kaio.frag<acc, m16n8k16, f32, 2x4>) {
  // expected-error @+1 {{'kaio.mma' op a tile of 2x1 A atoms times 1x2 B atoms does not make 2x4 accumulator atoms}}
  %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k16, f16, 2x1>, !kaio.frag<b, m16n8k16, f16, 1x2>, !kaio.frag<acc, m16n8k16, f32, 2x4>
  return
}

// -----

// expected-error @+1 {{a fragment tile has 1 to 256 atoms, not 32x16}}
func.func @too_many_atoms(%a: !kaio.frag<acc, m16n8k16, f32, 32x16>)

// -----

// expected-error @+1 {{expected a tile shape ROWSxCOLS}}
func.func @tile_shape_1d(%a: !kaio.frag<acc, m16n8k16, f32, 4>)

// -----

func.func @frag_map_tile(%c: !kaio.frag<acc, m16n8k16, f32, 2x2>) {
  // expected-error @+1 {{'kaio.frag_map' op result must keep the fragment's role and shape}}
  %h = kaio.frag_map %c : !kaio.frag<acc, m16n8k16, f32, 2x2> -> !kaio.frag<acc, m16n8k16, f32, 2x1> {
  ^bb0(%v: f32):
    kaio.yield %v : f32
  }
  return
}

// -----

func.func @tile_too_large(%n: i32) {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<32x16xf16>
  // expected-error @+1 {{'kaio.load_fragment' op a 64x16 fragment does not fit in '!kaio.smem<32x16xf16>'}}
  %a = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<32x16xf16> -> !kaio.frag<a, m16n8k16, f16, 4x1>
  return
}

// -----

func.func @tile_offset_rank(%i: i32) {
  // expected-error @+1 {{'kaio.tile_offset' op takes 2 indices for '!kaio.smem<16x16xf16, <row_major>>', got 1}}
  %o = kaio.tile_offset [%i] : !kaio.smem<16x16xf16, #kaio.layout<row_major>>
  return
}

// -----

func.func @tile_offset_layout(%i: i32) {
  // expected-error @+1 {{'kaio.tile_offset' op needs a tile type with a layout, got '!kaio.smem<16x16xf16>'}}
  %o = kaio.tile_offset [%i, %i] : !kaio.smem<16x16xf16>
  return
}

// -----

func.func @mma_shapes(%a: !kaio.frag<a, m16n8k16, f16>, %b: !kaio.frag<b, m16n8k8, f16>, %c: !kaio.frag<acc, m16n8k16, f32>) {
  // expected-error @+1 {{'kaio.mma' op fragments have different mma shapes}}
  %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k16, f16>, !kaio.frag<b, m16n8k8, f16>, !kaio.frag<acc, m16n8k16, f32>
  return
}

// -----

func.func @mma_mixed_types(%a: !kaio.frag<a, m16n8k16, f16>, %b: !kaio.frag<b, m16n8k16, bf16>, %c: !kaio.frag<acc, m16n8k16, f32>) {
  // expected-error @+1 {{'kaio.mma' op no mma.m16n8k16 multiplies 'f16' x 'bf16' into 'f32'}}
  %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k16, f16>, !kaio.frag<b, m16n8k16, bf16>, !kaio.frag<acc, m16n8k16, f32>
  return
}

// -----

func.func @mma_bf16_into_f16(%a: !kaio.frag<a, m16n8k16, bf16>, %b: !kaio.frag<b, m16n8k16, bf16>, %c: !kaio.frag<acc, m16n8k16, f16>) {
  // expected-error @+1 {{'kaio.mma' op no mma.m16n8k16 multiplies 'bf16' x 'bf16' into 'f16'}}
  %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k16, bf16>, !kaio.frag<b, m16n8k16, bf16>, !kaio.frag<acc, m16n8k16, f16>
  return
}

// -----

func.func @frag_map_role(%x: !kaio.frag<acc, m16n8k16, f32>) {
  // expected-error @+1 {{'kaio.frag_map' op result must keep the fragment's role and shape}}
  %y = kaio.frag_map %x : !kaio.frag<acc, m16n8k16, f32> -> !kaio.frag<acc, m16n8k8, f32> {
  ^bb0(%e: f32):
    kaio.yield %e : f32
  }
  return
}

// -----

func.func @frag_map_arguments(%x: !kaio.frag<acc, m16n8k16, f32>, %s: f32) {
  // expected-error @+1 {{'kaio.frag_map' op body takes the element and each extra operand}}
  %y = kaio.frag_map %x, %s : !kaio.frag<acc, m16n8k16, f32>, f32 -> !kaio.frag<acc, m16n8k16, f32> {
  ^bb0(%e: f32):
    kaio.yield %e : f32
  }
  return
}

// -----

func.func @frag_map_element_argument(%x: !kaio.frag<acc, m16n8k16, f32>) {
  // expected-error @+1 {{'kaio.frag_map' op first body argument must be the element type}}
  %y = kaio.frag_map %x : !kaio.frag<acc, m16n8k16, f32> -> !kaio.frag<acc, m16n8k16, f32> {
  ^bb0(%e: f16):
    %w = arith.extf %e : f16 to f32
    kaio.yield %w : f32
  }
  return
}

// -----

func.func @frag_map_extra_argument(%x: !kaio.frag<acc, m16n8k16, f32>, %s: f32) {
  // expected-error @+1 {{'kaio.frag_map' op body arguments must match the extra operands}}
  %y = kaio.frag_map %x, %s : !kaio.frag<acc, m16n8k16, f32>, f32 -> !kaio.frag<acc, m16n8k16, f32> {
  ^bb0(%e: f32, %t: i32):
    kaio.yield %e : f32
  }
  return
}

// -----

func.func @frag_map_yield(%x: !kaio.frag<acc, m16n8k16, f32>) {
  // expected-error @+1 {{'kaio.frag_map' op body must yield the result's element type}}
  %y = kaio.frag_map %x : !kaio.frag<acc, m16n8k16, f32> -> !kaio.frag<acc, m16n8k16, f16> {
  ^bb0(%e: f32):
    kaio.yield %e : f32
  }
  return
}

// -----

func.func @frag_map_operand_type(%x: !kaio.frag<a, m16n8k16, f16>) {
  // expected-error @+1 {{'kaio.frag_map' op only accumulators change element type}}
  %y = kaio.frag_map %x : !kaio.frag<a, m16n8k16, f16> -> !kaio.frag<a, m16n8k16, bf16> {
  ^bb0(%e: f16):
    %w = arith.extf %e : f16 to f32
    %b = arith.truncf %w : f32 to bf16
    kaio.yield %b : bf16
  }
  return
}

// -----

func.func @yield_outside_frag_map(%x: f32) {
  // expected-error @+1 {{'kaio.yield' op expects parent op 'kaio.frag_map'}}
  kaio.yield %x : f32
}

// -----

func.func @store_fragment_operand(%a: !kaio.frag<a, m16n8k16, f16>, %p: !kaio.ptr<f16>, %i: i32) {
  // expected-error @+1 {{'kaio.store_fragment' op stores accumulator fragments}}
  kaio.store_fragment %a, %p[%i, %i] bounds [%i, %i] ld %i : !kaio.frag<a, m16n8k16, f16>, !kaio.ptr<f16>
  return
}

// -----

func.func @store_fragment_f64(%c: !kaio.frag<acc, m16n8k16, f32>, %p: !kaio.ptr<f64>, %i: i32) {
  // expected-error @+1 {{'kaio.store_fragment' op stores to f32, f16, bf16 or i32 matrices, not 'f64'}}
  kaio.store_fragment %c, %p[%i, %i] bounds [%i, %i] ld %i : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f64>
  return
}

// -----

func.func @store_fragment_int_to_float(%c: !kaio.frag<acc, m16n8k32, i32>, %p: !kaio.ptr<f32>, %i: i32) {
  // expected-error @+1 {{'kaio.store_fragment' op integer accumulators store to i32 matrices}}
  kaio.store_fragment %c, %p[%i, %i] bounds [%i, %i] ld %i : !kaio.frag<acc, m16n8k32, i32>, !kaio.ptr<f32>
  return
}

// -----

func.func @store_fragment_int_beta(%c: !kaio.frag<acc, m16n8k32, i32>, %p: !kaio.ptr<i32>, %i: i32, %b: f32) {
  // expected-error @+1 {{'kaio.store_fragment' op beta applies to floating-point matrices}}
  kaio.store_fragment %c, %p[%i, %i] bounds [%i, %i] ld %i beta %b : !kaio.frag<acc, m16n8k32, i32>, !kaio.ptr<i32>
  return
}

// -----

func.func @store_fragment_no_variant(%c: !kaio.frag<acc, m16n8k16, f64>, %p: !kaio.ptr<f32>, %i: i32) {
  // expected-error @+1 {{'kaio.store_fragment' op no mma.m16n8k16 takes 'f64' as acc}}
  kaio.store_fragment %c, %p[%i, %i] bounds [%i, %i] ld %i : !kaio.frag<acc, m16n8k16, f64>, !kaio.ptr<f32>
  return
}

// -----

// expected-error @+1 {{'kaio.signed' marks i16, i32 or i64 parameters only}}
kaio.kernel @k(%a: f32 {kaio.signed}) attributes {block_size = array<i32: 32>} {
  kaio.return
}

// -----

func.func @load_vector_width(%p: !kaio.ptr<f32>, %i: i32) {
  // expected-error @+1 {{'kaio.load_vector' op accesses 2 or 4 elements, not 3}}
  %a, %b, %c = kaio.load_vector %p[%i] : !kaio.ptr<f32>, i32 -> f32, f32, f32
  return
}

// -----

func.func @load_vector_8_of_32_bits(%p: !kaio.ptr<f32>, %i: i32) {
  // expected-error @+1 {{'kaio.load_vector' op accesses 2 or 4 elements, not 8}}
  %v:8 = kaio.load_vector %p[%i] : !kaio.ptr<f32>, i32 -> f32, f32, f32, f32, f32, f32, f32, f32
  return
}

// -----

func.func @load_vector_6_halves(%p: !kaio.ptr<bf16>, %i: i32) {
  // expected-error @+1 {{'kaio.load_vector' op accesses 2 or 4 elements (8 of 16 bits), not 6}}
  %v:6 = kaio.load_vector %p[%i] : !kaio.ptr<bf16>, i32 -> bf16, bf16, bf16, bf16, bf16, bf16
  return
}

// -----

func.func @load_vector_too_wide(%p: !kaio.ptr<f64>, %i: i32) {
  // expected-error @+1 {{'kaio.load_vector' op a 256-bit access exceeds the 128-bit limit}}
  %a, %b, %c, %d = kaio.load_vector %p[%i] : !kaio.ptr<f64>, i32 -> f64, f64, f64, f64
  return
}

// -----

func.func @store_vector_type(%p: !kaio.ptr<f32>, %i: i32, %v: f16) {
  // expected-error @+1 {{'kaio.store_vector' op accesses 'f16' through a pointer to 'f32'}}
  kaio.store_vector %v, %v to %p[%i] : (f16, f16), !kaio.ptr<f32>, i32
  return
}

// -----

// expected-error @+1 {{'kaio.aligned_copies' is a unit attribute of kaio.kernel}}
kaio.kernel @aligned_copies_not_unit() attributes {block_size = array<i32: 32>, kaio.aligned_copies = 1 : i32} {
  kaio.return
}

// -----

// A generic-form yield without a value (found by fuzzing: the body was
// read before its ops were verified).
func.func @frag_map_empty_yield(%c: !kaio.frag<acc, m16n8k16, f32>) {
  // expected-error @+1 {{'kaio.frag_map' op body must end in a kaio.yield of one value}}
  %h = kaio.frag_map %c : !kaio.frag<acc, m16n8k16, f32> -> !kaio.frag<acc, m16n8k16, f32> {
  ^bb0(%v: f32):
    "kaio.yield"() : () -> ()
  }
  return
}

// -----

func.func @frag_map_extra_tile(%x: !kaio.frag<acc, m16n8k16, f32, 2x4>, %m: !kaio.frag<acc, m16n8k16, f32, 1x1>) {
  // expected-error @+1 {{'kaio.frag_map' op fragment operand '!kaio.frag<acc, m16n8k16, f32>' is neither the input's tile nor a row broadcast (an R x 1 accumulator tile) of it}}
  %y = kaio.frag_map %x, %m : !kaio.frag<acc, m16n8k16, f32, 2x4>, !kaio.frag<acc, m16n8k16, f32, 1x1> -> !kaio.frag<acc, m16n8k16, f32, 2x4> {
  ^bb0(%e: f32, %v: f32):
    kaio.yield %e : f32
  }
  return
}

// -----

func.func @frag_map_extra_element(%x: !kaio.frag<acc, m16n8k16, f32, 2x4>, %m: !kaio.frag<acc, m16n8k16, f32, 2x1>) {
  // expected-error @+1 {{'kaio.frag_map' op body arguments must match the extra operands}}
  %y = kaio.frag_map %x, %m : !kaio.frag<acc, m16n8k16, f32, 2x4>, !kaio.frag<acc, m16n8k16, f32, 2x1> -> !kaio.frag<acc, m16n8k16, f32, 2x4> {
  ^bb0(%e: f32, %v: f16):
    kaio.yield %e : f32
  }
  return
}

// -----

func.func @frag_map_indexed_arguments(%x: !kaio.frag<acc, m16n8k16, f32>) {
  // expected-error @+1 {{'kaio.frag_map' op body takes the element, its row and column and each extra operand}}
  %y = kaio.frag_map %x indexed : !kaio.frag<acc, m16n8k16, f32> -> !kaio.frag<acc, m16n8k16, f32> {
  ^bb0(%e: f32):
    kaio.yield %e : f32
  }
  return
}

// -----

func.func @frag_map_indexed_types(%x: !kaio.frag<acc, m16n8k16, f32>) {
  // expected-error @+1 {{'kaio.frag_map' op an indexed body takes the row and column as i32}}
  %y = kaio.frag_map %x indexed : !kaio.frag<acc, m16n8k16, f32> -> !kaio.frag<acc, m16n8k16, f32> {
  ^bb0(%e: f32, %r: i64, %c: i64):
    kaio.yield %e : f32
  }
  return
}

// -----

func.func @reduce_rows_operand(%x: !kaio.frag<a, m16n8k16, f16, 1x2>) {
  // expected-error @+1 {{'kaio.frag_reduce_rows' op reduces accumulator tiles}}
  %y = kaio.frag_reduce_rows max %x : !kaio.frag<a, m16n8k16, f16, 1x2> -> !kaio.frag<a, m16n8k16, f16, 1x1>
  return
}

// -----

func.func @reduce_rows_f16(%x: !kaio.frag<acc, m16n8k16, f16, 1x2>) {
  // expected-error @+1 {{'kaio.frag_reduce_rows' op reduces f32 accumulators, not 'f16'}}
  %y = kaio.frag_reduce_rows max %x : !kaio.frag<acc, m16n8k16, f16, 1x2> -> !kaio.frag<acc, m16n8k16, f16, 1x1>
  return
}

// -----

func.func @reduce_rows_result(%x: !kaio.frag<acc, m16n8k16, f32, 2x4>) {
  // expected-error @+1 {{'kaio.frag_reduce_rows' op result must be '!kaio.frag<acc, m16n8k16, f32, 2x1>' (one column of atoms), not '!kaio.frag<acc, m16n8k16, f32>'}}
  %y = kaio.frag_reduce_rows sum %x : !kaio.frag<acc, m16n8k16, f32, 2x4> -> !kaio.frag<acc, m16n8k16, f32, 1x1>
  return
}

// -----

func.func @slice_outside(%x: !kaio.frag<a, m16n8k16, f16, 1x4>) {
  // expected-error @+1 {{'kaio.frag_slice' op atoms [0, 3] + 1x2 are outside the 1x4 tile}}
  %y = kaio.frag_slice %x [0, 3] : !kaio.frag<a, m16n8k16, f16, 1x4> -> !kaio.frag<a, m16n8k16, f16, 1x2>
  return
}

// -----

func.func @slice_role(%x: !kaio.frag<a, m16n8k16, f16, 1x4>) {
  // expected-error @+1 {{'kaio.frag_slice' op result must keep the role, shape and element type}}
  %y = kaio.frag_slice %x [0, 0] : !kaio.frag<a, m16n8k16, f16, 1x4> -> !kaio.frag<b, m16n8k16, f16, 1x1>
  return
}

// -----

func.func @slice_offsets(%x: !kaio.frag<a, m16n8k16, f16, 1x4>) {
  // expected-error @+1 {{'kaio.frag_slice' op takes two atom offsets (row, column)}}
  %y = kaio.frag_slice %x [0] : !kaio.frag<a, m16n8k16, f16, 1x4> -> !kaio.frag<a, m16n8k16, f16, 1x1>
  return
}

// -----

func.func @to_operand_role(%x: !kaio.frag<acc, m16n8k16, f32, 1x2>) {
  // expected-error @+1 {{'kaio.frag_to_operand' op turns an accumulator tile into an A tile}}
  %y = kaio.frag_to_operand %x : !kaio.frag<acc, m16n8k16, f32, 1x2> -> !kaio.frag<b, m16n8k16, f16, 1x1>
  return
}

// -----

func.func @to_operand_type(%x: !kaio.frag<acc, m16n8k8, f32, 1x1>) {
  // expected-error @+1 {{'kaio.frag_to_operand' op converts f32 accumulators to f16 or bf16, not 'f32' to 'f32'}}
  %y = kaio.frag_to_operand %x : !kaio.frag<acc, m16n8k8, f32, 1x1> -> !kaio.frag<a, m16n8k8, f32, 1x1>
  return
}

// -----

func.func @to_operand_tile(%x: !kaio.frag<acc, m16n8k16, f32, 1x4>) {
  // expected-error @+1 {{'kaio.frag_to_operand' op a 1x4 accumulator tile makes a 1x2 A tile (2 accumulator atoms per A atom), not 1x4}}
  %y = kaio.frag_to_operand %x : !kaio.frag<acc, m16n8k16, f32, 1x4> -> !kaio.frag<a, m16n8k16, f16, 1x4>
  return
}

// -----

func.func @unroll_zero(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'kaio.unroll' is an integer from 1 to 32 on an scf.for}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {kaio.unroll = 0 : i32}
  return
}

// -----

func.func @unroll_too_far(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'kaio.unroll' is an integer from 1 to 32 on an scf.for}}
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {kaio.unroll = 33 : i32}
  return
}

// -----

// expected-error @+1 {{'kaio.unroll' is an integer from 1 to 32 on an scf.for}}
func.func @unroll_not_a_loop() attributes {kaio.unroll = 2 : i32} {
  return
}

// -----

kaio.kernel @shared_load_vector_count() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<1x64xf32>
  // expected-error @+1 {{'kaio.shared_load_vector' op accesses 2 or 4 elements, not 3}}
  %v:3 = kaio.shared_load_vector %s[%c0, %c0] : !kaio.smem<1x64xf32> -> f32, f32, f32
  kaio.return
}

// -----

kaio.kernel @shared_load_vector_type() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<1x64xf32>
  // expected-error @+1 {{'kaio.shared_load_vector' op accesses 'f16' in a tile of 'f32'}}
  %v:2 = kaio.shared_load_vector %s[%c0, %c0] : !kaio.smem<1x64xf32> -> f16, f16
  kaio.return
}

// -----

kaio.kernel @shared_load_vector_column_major() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x32xf16, #kaio.layout<col_major>>
  // expected-error @+1 {{'kaio.shared_load_vector' op reads consecutive elements of a row; '!kaio.smem<16x32xf16, <col_major>>' is column-major}}
  %v:4 = kaio.shared_load_vector %s[%c0, %c0] : !kaio.smem<16x32xf16, #kaio.layout<col_major>> -> f16, f16, f16, f16
  kaio.return
}

// -----

kaio.kernel @shared_load_vector_unaligned() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %s = kaio.shared_alloc : !kaio.smem<1x64xf32>
  // expected-error @+1 {{'kaio.shared_load_vector' op element 2 is not aligned to the 4-element access}}
  %v:4 = kaio.shared_load_vector %s[%c0, %c2] : !kaio.smem<1x64xf32> -> f32, f32, f32, f32
  kaio.return
}

// -----

kaio.kernel @shared_load_vector_ragged_rows() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<4x6xf32>
  // expected-error @+1 {{'kaio.shared_load_vector' op rows of 6 elements are not whole 4-element accesses}}
  %v:4 = kaio.shared_load_vector %s[%c0, %c0] : !kaio.smem<4x6xf32> -> f32, f32, f32, f32
  kaio.return
}

// -----

kaio.kernel @shared_load_vector_swizzle_unit() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x64xf32, #kaio.layout<row_major, swizzle = <3, 2, 3>>>
  // expected-error @+1 {{'kaio.shared_load_vector' op a 16-byte access would cross the 4-byte units that '!kaio.smem<16x64xf32, <row_major, swizzle = <3, 2, 3>>>' swizzles}}
  %v:4 = kaio.shared_load_vector %s[%c0, %c0] : !kaio.smem<16x64xf32, #kaio.layout<row_major, swizzle = <3, 2, 3>>> -> f32, f32, f32, f32
  kaio.return
}

// -----

kaio.kernel @shared_load_vector_padded_rows() attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 2>>
  // expected-error @+1 {{'kaio.shared_load_vector' op rows of 72 bytes in '!kaio.smem<16x16xf32, <row_major, pad = 2>>' misalign a 16-byte access}}
  %v:4 = kaio.shared_load_vector %s[%c0, %c0] : !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 2>> -> f32, f32, f32, f32
  kaio.return
}

// -----

kaio.kernel @shared_store_vector_count(%x: f32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<1x64xf32>
  // expected-error @+1 {{'kaio.shared_store_vector' op accesses 2 or 4 elements, not 3}}
  kaio.shared_store_vector %x, %x, %x to %s[%c0, %c0] : (f32, f32, f32), !kaio.smem<1x64xf32>
  kaio.return
}

// -----

kaio.kernel @shared_store_vector_type(%x: f16) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<1x64xf32>
  // expected-error @+1 {{'kaio.shared_store_vector' op accesses 'f16' in a tile of 'f32'}}
  kaio.shared_store_vector %x, %x to %s[%c0, %c0] : (f16, f16), !kaio.smem<1x64xf32>
  kaio.return
}

// -----

kaio.kernel @shared_store_vector_column_major(%x: f16) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x32xf16, #kaio.layout<col_major>>
  // expected-error @+1 {{'kaio.shared_store_vector' op writes consecutive elements of a row; '!kaio.smem<16x32xf16, <col_major>>' is column-major}}
  kaio.shared_store_vector %x, %x to %s[%c0, %c0] : (f16, f16), !kaio.smem<16x32xf16, #kaio.layout<col_major>>
  kaio.return
}

// -----

kaio.kernel @shared_store_vector_unaligned(%x: f32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %s = kaio.shared_alloc : !kaio.smem<1x64xf32>
  // expected-error @+1 {{'kaio.shared_store_vector' op element 2 is not aligned to the 4-element access}}
  kaio.shared_store_vector %x, %x, %x, %x to %s[%c0, %c2] : (f32, f32, f32, f32), !kaio.smem<1x64xf32>
  kaio.return
}

// -----

kaio.kernel @shared_store_vector_padded_rows(%x: f32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 2>>
  // expected-error @+1 {{'kaio.shared_store_vector' op rows of 72 bytes in '!kaio.smem<16x16xf32, <row_major, pad = 2>>' misalign a 16-byte access}}
  kaio.shared_store_vector %x, %x, %x, %x to %s[%c0, %c0] : (f32, f32, f32, f32), !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 2>>
  kaio.return
}

// -----

kaio.kernel @shared_store_vector_index(%x: f32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %s = kaio.shared_alloc : !kaio.smem<2x64xf32>
  // expected-error @+1 {{'kaio.shared_store_vector' op index 64 is outside dimension 1 of size 64}}
  kaio.shared_store_vector %x, %x to %s[%c0, %c64] : (f32, f32), !kaio.smem<2x64xf32>
  kaio.return
}

// -----

kaio.kernel @shared_store_vector_too_wide(%x: f32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<1x64xf64>
  %d = arith.extf %x : f32 to f64
  // expected-error @+1 {{'kaio.shared_store_vector' op a 256-bit access exceeds the 128-bit limit}}
  kaio.shared_store_vector %d, %d, %d, %d to %s[%c0, %c0] : (f64, f64, f64, f64), !kaio.smem<1x64xf64>
  kaio.return
}
