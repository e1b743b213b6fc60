// RUN: kaio-opt %s --kaio-assign-shared-layouts --split-input-file | FileCheck %s

// Tiles that flow together through a select share one layout, chosen for
// all their uses: a select feeding ldmatrix makes both swizzled.
// CHECK-LABEL: kaio.kernel @select_joins
// CHECK: kaio.shared_alloc : <64x16xf16, <row_major, swizzle = <3, 4, 3>>>
// CHECK: kaio.shared_alloc : <64x16xf16, <row_major, swizzle = <3, 4, 3>>>
// CHECK: arith.select {{.*}} : !kaio.smem<64x16xf16, <row_major, swizzle = <3, 4, 3>>>
kaio.kernel @select_joins(%n: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %p = arith.cmpi sgt, %n, %c0 : i32
  %a = kaio.shared_alloc : !kaio.smem<64x16xf16>
  %b = kaio.shared_alloc : !kaio.smem<64x16xf16>
  %s = arith.select %p, %a, %b : !kaio.smem<64x16xf16>
  %f = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<64x16xf16> -> !kaio.frag<a, m16n8k16, f16>
  kaio.return
}

// -----

// Through an scf.if's results and a loop's stages: the tile copied into
// (cp.async destination) and the one read elsewhere get the same swizzle.
// CHECK-LABEL: kaio.kernel @if_and_loop_join
// CHECK: kaio.shared_alloc : <16x64xf16, <row_major, swizzle = <3, 4, 3>>>
// CHECK: kaio.shared_alloc : <16x64xf16, <row_major, swizzle = <3, 4, 3>>>
// CHECK: scf.if {{.*}} -> (!kaio.smem<16x64xf16, <row_major, swizzle = <3, 4, 3>>>)
// CHECK: scf.for {{.*}} -> (!kaio.smem<16x64xf16, <row_major, swizzle = <3, 4, 3>>>, !kaio.smem<16x64xf16, <row_major, swizzle = <3, 4, 3>>>)
kaio.kernel @if_and_loop_join(%p: !kaio.ptr<f16>, %n: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %big = arith.cmpi sgt, %n, %c0 : i32
  %a = kaio.shared_alloc : !kaio.smem<16x64xf16>
  %b = kaio.shared_alloc : !kaio.smem<16x64xf16>
  %first = scf.if %big -> (!kaio.smem<16x64xf16>) {
    scf.yield %a : !kaio.smem<16x64xf16>
  } else {
    scf.yield %b : !kaio.smem<16x64xf16>
  }
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%x = %first, %y = %b)
      -> (!kaio.smem<16x64xf16>, !kaio.smem<16x64xf16>) : i32 {
    %t = kaio.async_copy %p[%c0, %k] bounds [%n, %n] ld %n to %x : !kaio.ptr<f16>, !kaio.smem<16x64xf16>
    kaio.async_wait %t
    scf.yield %y, %x : !kaio.smem<16x64xf16>, !kaio.smem<16x64xf16>
  }
  kaio.return
}
