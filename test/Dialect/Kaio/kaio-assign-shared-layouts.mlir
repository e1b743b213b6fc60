// RUN: kaio-opt %s --kaio-assign-shared-layouts --split-input-file | FileCheck %s

// Tiles feeding ldmatrix and cp.async destinations get the swizzle table's
// entry for their row width: Swizzle<3, 4, 3> for 32- and 128-byte rows, none
// for 16-byte rows; rows that are not a power of two get a 16-byte pad.
// Other 4-byte tiles get one element; explicit layouts and 1-D arrays stay.
// CHECK-LABEL: kaio.kernel @layouts
kaio.kernel @layouts(%p: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  // CHECK: %[[FRAG:.*]] = kaio.shared_alloc : <32x16xf16, <row_major, swizzle = <3, 4, 3>>>
  // CHECK: %[[COPY:.*]] = kaio.shared_alloc : <16x32xf32, <row_major, swizzle = <3, 4, 3>>>
  // CHECK: %[[ODD:.*]] = kaio.shared_alloc : <16x24xf16, <row_major, pad = 8>>
  // CHECK: %[[NARROW:.*]] = kaio.shared_alloc : <16x8xf16, <row_major>>
  // CHECK: %[[F32:.*]] = kaio.shared_alloc : <16x16xf32, <row_major, pad = 1>>
  // CHECK: %[[I32:.*]] = kaio.shared_alloc : <8x8xi32, <row_major, pad = 1>>
  // CHECK: %[[F16:.*]] = kaio.shared_alloc : <16x16xf16, <row_major>>
  // CHECK: %[[I8:.*]] = kaio.shared_alloc : <16x16xi8, <row_major>>
  // CHECK: %[[FLAT:.*]] = kaio.shared_alloc : <256xf32>{{$}}
  // CHECK: %[[KEEP:.*]] = kaio.shared_alloc : <16x16xf32, <col_major, pad = 2>>
  // CHECK: %[[SWZ:.*]] = kaio.shared_alloc : <16x64xf16, <row_major, swizzle = <3, 4, 3>>>
  %frag = kaio.shared_alloc : !kaio.smem<32x16xf16>
  %copy = kaio.shared_alloc : !kaio.smem<16x32xf32>
  %odd = kaio.shared_alloc : !kaio.smem<16x24xf16>
  %narrow = kaio.shared_alloc : !kaio.smem<16x8xf16>
  %f32 = kaio.shared_alloc : !kaio.smem<16x16xf32>
  %i32 = kaio.shared_alloc : !kaio.smem<8x8xi32>
  %f16 = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %i8 = kaio.shared_alloc : !kaio.smem<16x16xi8>
  %flat = kaio.shared_alloc : !kaio.smem<256xf32>
  %keep = kaio.shared_alloc : !kaio.smem<16x16xf32, #kaio.layout<col_major, pad = 2>>
  %swz = kaio.shared_alloc : !kaio.smem<16x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  // Users see the new types.
  // CHECK: kaio.load_fragment %[[FRAG]][{{.*}}] : <32x16xf16, <row_major, swizzle = <3, 4, 3>>> -> <a, m16n8k16, f16>
  %a = kaio.load_fragment %frag[%c0, %c0] : !kaio.smem<32x16xf16> -> !kaio.frag<a, m16n8k16, f16>
  // CHECK: kaio.async_copy {{.*}} to %[[COPY]] : <f32>, <16x32xf32, <row_major, swizzle = <3, 4, 3>>>
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %copy
      : !kaio.ptr<f32>, !kaio.smem<16x32xf32>
  %b = kaio.load_fragment %odd[%c0, %c0] : !kaio.smem<16x24xf16> -> !kaio.frag<b, m16n8k16, f16>
  %b2 = kaio.load_fragment %narrow[%c0, %c0] : !kaio.smem<16x8xf16> -> !kaio.frag<b, m16n8k16, f16>
  // CHECK: kaio.shared_load %[[F32]][{{.*}}] : <16x16xf32, <row_major, pad = 1>> -> f32
  %v = kaio.shared_load %f32[%c0, %c0] : !kaio.smem<16x16xf32> -> f32
  // CHECK: kaio.shared_store {{.*}}, %[[FLAT]][{{.*}}] : f32, <256xf32>
  kaio.shared_store %v, %flat[%c0] : f32, !kaio.smem<256xf32>
  kaio.return
}

// -----

// A tile both copied into and read as fragments: one swizzle serves both.
// CHECK-LABEL: kaio.kernel @copied_and_loaded
// CHECK: kaio.shared_alloc : <64x16xf16, <row_major, swizzle = <3, 4, 3>>>
// CHECK: kaio.async_copy {{.*}} : <f16>, <64x16xf16, <row_major, swizzle = <3, 4, 3>>>
// CHECK: kaio.load_fragment {{.*}} : <64x16xf16, <row_major, swizzle = <3, 4, 3>>> -> <b, m16n8k16, f16>
kaio.kernel @copied_and_loaded(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<64x16xf16>
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
      : !kaio.ptr<f16>, !kaio.smem<64x16xf16>
  kaio.async_wait %t
  kaio.barrier
  %b = kaio.load_fragment %s[%c0, %c0] : !kaio.smem<64x16xf16> -> !kaio.frag<b, m16n8k16, f16>
  kaio.return
}

// -----

// A 4-byte tile read 16 bytes a lane (kaio.shared_load_vector) gets the
// swizzle table's entry too, not the one-element pad that would misalign
// every row past the first; one that scalar loads read keeps the pad.
// CHECK-LABEL: kaio.kernel @vector_reads
// CHECK: kaio.shared_alloc : <16x32xf32, <row_major, swizzle = <3, 4, 3>>>
// CHECK: kaio.shared_alloc : <16x32xf32, <row_major, pad = 1>>
// CHECK: kaio.shared_load_vector {{.*}} : <16x32xf32, <row_major, swizzle = <3, 4, 3>>> -> f32, f32, f32, f32
kaio.kernel @vector_reads(%p: !kaio.ptr<f32>) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x32xf32>
  %t = kaio.shared_alloc : !kaio.smem<16x32xf32>
  %v:4 = kaio.shared_load_vector %s[%c1, %c0] : !kaio.smem<16x32xf32> -> f32, f32, f32, f32
  %w = kaio.shared_load %t[%c1, %c0] : !kaio.smem<16x32xf32> -> f32
  kaio.return
}

// -----

// So does one written 16 bytes a lane (kaio.shared_store_vector).
// CHECK-LABEL: kaio.kernel @vector_writes
// CHECK: kaio.shared_alloc : <16x32xf32, <row_major, swizzle = <3, 4, 3>>>
// CHECK: kaio.shared_store_vector {{.*}} : (f32, f32, f32, f32), <16x32xf32, <row_major, swizzle = <3, 4, 3>>>
kaio.kernel @vector_writes(%x: f32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x32xf32>
  kaio.shared_store_vector %x, %x, %x, %x to %s[%c1, %c0] : (f32, f32, f32, f32), !kaio.smem<16x32xf32>
  kaio.return
}
