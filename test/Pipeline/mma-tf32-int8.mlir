// tf32 and int8 mma from shared tiles. A fragment whose registers hold
// consecutive elements of a stored row (A from [m][k] rows, B from [n][k]
// rows: K-major operands) loads with ldmatrix, 16 bytes a matrix row (4
// tf32, 16 bytes); one stored the other way loads element by element
// (ldmatrix.trans moves only 16-bit halves), as does one whose 16-byte
// rows would not stay whole (padding that is not a 16-byte multiple, a
// swizzle of smaller units, a column off a 16-byte boundary). tf32 goes
// through cvt.rna
// either way; bytes pack four to a register. The interpreter checks the
// results in test/unittests/Examples (Tf32MmaFromTiles, Int8MmaFromTiles
// and their K-major forms).
// RUN: kaio-opt --kaio-to-ptx="chip=sm_80" %s | kaio-translate --mlir-to-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// A [m][k]: one ldmatrix.x4, rounded to tf32; B [k][n]: element-wise.
// CHECK-LABEL: .visible .entry tf32_tile(
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: ldmatrix
// CHECK: cvt.rna.tf32.f32
// CHECK: ld.shared.f32
// CHECK-NOT: ldmatrix
// CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
kaio.kernel @tf32_tile(%A: !kaio.ptr<f32> {kaio.readonly},
                       %B: !kaio.ptr<f32> {kaio.readonly}, %C: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %As = kaio.shared_alloc : !kaio.smem<16x8xf32>
  %Bs = kaio.shared_alloc : !kaio.smem<8x8xf32>
  %ta = kaio.async_copy %A[%c0, %c0] bounds [%c16, %c8] ld %c8 to %As
      : !kaio.ptr<f32>, !kaio.smem<16x8xf32>
  %tb = kaio.async_copy %B[%c0, %c0] bounds [%c8, %c8] ld %c8 to %Bs
      : !kaio.ptr<f32>, !kaio.smem<8x8xf32>
  kaio.async_wait %ta, %tb
  kaio.barrier
  %a = kaio.load_fragment %As[%c0, %c0]
      : !kaio.smem<16x8xf32> -> !kaio.frag<a, m16n8k8, f32>
  %b = kaio.load_fragment %Bs[%c0, %c0]
      : !kaio.smem<8x8xf32> -> !kaio.frag<b, m16n8k8, f32>
  %z = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k8, f32>
  %d = kaio.mma %a, %b, %z : !kaio.frag<a, m16n8k8, f32>,
      !kaio.frag<b, m16n8k8, f32>, !kaio.frag<acc, m16n8k8, f32>
  kaio.store_fragment %d, %C[%c0, %c0] bounds [%c16, %c8] ld %c8
      : !kaio.frag<acc, m16n8k8, f32>, !kaio.ptr<f32>
  kaio.return
}

// B^T [n][k] read transposed: K-major, so B's two atoms side by side share
// one ldmatrix.x4 (matrices 0-1 the first atom's k halves, 4 columns
// apart); A [k][m] read transposed: element-wise.
// CHECK-LABEL: .visible .entry tf32_kmajor_b(
// CHECK-NOT: ld.shared.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: ldmatrix
// CHECK-COUNT-4: cvt.rna.tf32.f32
// CHECK-NOT: ldmatrix
// CHECK: ld.shared.f32
// CHECK-NOT: ldmatrix
// CHECK-COUNT-2: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
kaio.kernel @tf32_kmajor_b(%A: !kaio.ptr<f32> {kaio.readonly},
                           %B: !kaio.ptr<f32> {kaio.readonly},
                           %C: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %Bs = kaio.shared_alloc : !kaio.smem<16x8xf32>
  %As = kaio.shared_alloc : !kaio.smem<8x16xf32>
  %tb = kaio.async_copy %B[%c0, %c0] bounds [%c16, %c8] ld %c8 to %Bs
      : !kaio.ptr<f32>, !kaio.smem<16x8xf32>
  %ta = kaio.async_copy %A[%c0, %c0] bounds [%c8, %c16] ld %c16 to %As
      : !kaio.ptr<f32>, !kaio.smem<8x16xf32>
  kaio.async_wait %ta, %tb
  kaio.barrier
  %b = kaio.load_fragment %Bs[%c0, %c0] transpose
      : !kaio.smem<16x8xf32> -> !kaio.frag<b, m16n8k8, f32, 1x2>
  %a = kaio.load_fragment %As[%c0, %c0] transpose
      : !kaio.smem<8x16xf32> -> !kaio.frag<a, m16n8k8, f32>
  %z = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k8, f32, 1x2>
  %d = kaio.mma %a, %b, %z : !kaio.frag<a, m16n8k8, f32>,
      !kaio.frag<b, m16n8k8, f32, 1x2>, !kaio.frag<acc, m16n8k8, f32, 1x2>
  kaio.store_fragment %d, %C[%c0, %c0] bounds [%c16, %c16] ld %c16
      : !kaio.frag<acc, m16n8k8, f32, 1x2>, !kaio.ptr<f32>
  kaio.return
}

// CHECK-LABEL: .visible .entry s8_tile(
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: ldmatrix
// CHECK: ld.shared.s8
// CHECK-NOT: ldmatrix
// CHECK: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32
kaio.kernel @s8_tile(%A: !kaio.ptr<i8> {kaio.readonly},
                     %B: !kaio.ptr<i8> {kaio.readonly}, %C: !kaio.ptr<i32>)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0 : i32
  %As = kaio.shared_alloc : !kaio.smem<16x32xi8>
  %Bs = kaio.shared_alloc : !kaio.smem<32x8xi8>
  %ta = kaio.async_copy %A[%c0, %c0] bounds [%c16, %c32] ld %c32 to %As
      : !kaio.ptr<i8>, !kaio.smem<16x32xi8>
  %tb = kaio.async_copy %B[%c0, %c0] bounds [%c32, %c8] ld %c8 to %Bs
      : !kaio.ptr<i8>, !kaio.smem<32x8xi8>
  kaio.async_wait %ta, %tb
  kaio.barrier
  %a = kaio.load_fragment %As[%c0, %c0]
      : !kaio.smem<16x32xi8> -> !kaio.frag<a, m16n8k32, i8>
  %b = kaio.load_fragment %Bs[%c0, %c0]
      : !kaio.smem<32x8xi8> -> !kaio.frag<b, m16n8k32, i8>
  %z = kaio.frag_fill %zero : i32 -> !kaio.frag<acc, m16n8k32, i32>
  %d = kaio.mma %a, %b, %z : !kaio.frag<a, m16n8k32, i8>,
      !kaio.frag<b, m16n8k32, i8>, !kaio.frag<acc, m16n8k32, i32>
  kaio.store_fragment %d, %C[%c0, %c0] bounds [%c16, %c8] ld %c8
      : !kaio.frag<acc, m16n8k32, i32>, !kaio.ptr<i32>
  kaio.return
}

// Both operands K-major (A [m][k], B^T [n][k]): no element-wise read.
// CHECK-LABEL: .visible .entry s8_kmajor(
// CHECK-NOT: ld.shared.s8
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: ld.shared.s8
// CHECK: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// CHECK-NOT: ld.shared.s8
// CHECK: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32

kaio.kernel @s8_kmajor(%A: !kaio.ptr<i8> {kaio.readonly},
                       %B: !kaio.ptr<i8> {kaio.readonly}, %C: !kaio.ptr<i32>)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0 : i32
  %As = kaio.shared_alloc : !kaio.smem<16x32xi8>
  %Bs = kaio.shared_alloc : !kaio.smem<8x32xi8>
  %ta = kaio.async_copy %A[%c0, %c0] bounds [%c16, %c32] ld %c32 to %As
      : !kaio.ptr<i8>, !kaio.smem<16x32xi8>
  %tb = kaio.async_copy %B[%c0, %c0] bounds [%c8, %c32] ld %c32 to %Bs
      : !kaio.ptr<i8>, !kaio.smem<8x32xi8>
  kaio.async_wait %ta, %tb
  kaio.barrier
  %a = kaio.load_fragment %As[%c0, %c0]
      : !kaio.smem<16x32xi8> -> !kaio.frag<a, m16n8k32, i8>
  %b = kaio.load_fragment %Bs[%c0, %c0] transpose
      : !kaio.smem<8x32xi8> -> !kaio.frag<b, m16n8k32, i8>
  %z = kaio.frag_fill %zero : i32 -> !kaio.frag<acc, m16n8k32, i32>
  %d = kaio.mma %a, %b, %z : !kaio.frag<a, m16n8k32, i8>,
      !kaio.frag<b, m16n8k32, i8>, !kaio.frag<acc, m16n8k32, i32>
  kaio.store_fragment %d, %C[%c0, %c0] bounds [%c16, %c8] ld %c8
      : !kaio.frag<acc, m16n8k32, i32>, !kaio.ptr<i32>
  kaio.return
}

// K-major, but ldmatrix's 16-byte rows would not stay whole: rows of 36
// bytes (pad 1), a swizzle of 4-byte units, a column 8 bytes into a row.
// Each loads element by element.
// CHECK-LABEL: .visible .entry tf32_rows_not_whole(
// CHECK-NOT: ldmatrix
// CHECK-COUNT-3: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NOT: ldmatrix
// CHECK: ret;
kaio.kernel @tf32_rows_not_whole(%C: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %padded = kaio.shared_alloc : !kaio.smem<16x8xf32, #kaio.layout<row_major, pad = 1>>
  %swizzled = kaio.shared_alloc : !kaio.smem<16x32xf32, #kaio.layout<row_major, swizzle = <3, 2, 3>>>
  %wide = kaio.shared_alloc : !kaio.smem<16x16xf32>
  %b = kaio.frag_fill %zero : f32 -> !kaio.frag<b, m16n8k8, f32>
  %z = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k8, f32>
  %a0 = kaio.load_fragment %padded[%c0, %c0]
      : !kaio.smem<16x8xf32, #kaio.layout<row_major, pad = 1>> -> !kaio.frag<a, m16n8k8, f32>
  %a1 = kaio.load_fragment %swizzled[%c0, %c0]
      : !kaio.smem<16x32xf32, #kaio.layout<row_major, swizzle = <3, 2, 3>>> -> !kaio.frag<a, m16n8k8, f32>
  %a2 = kaio.load_fragment %wide[%c0, %c2]
      : !kaio.smem<16x16xf32> -> !kaio.frag<a, m16n8k8, f32>
  %d0 = kaio.mma %a0, %b, %z : !kaio.frag<a, m16n8k8, f32>,
      !kaio.frag<b, m16n8k8, f32>, !kaio.frag<acc, m16n8k8, f32>
  %d1 = kaio.mma %a1, %b, %d0 : !kaio.frag<a, m16n8k8, f32>,
      !kaio.frag<b, m16n8k8, f32>, !kaio.frag<acc, m16n8k8, f32>
  %d2 = kaio.mma %a2, %b, %d1 : !kaio.frag<a, m16n8k8, f32>,
      !kaio.frag<b, m16n8k8, f32>, !kaio.frag<acc, m16n8k8, f32>
  kaio.store_fragment %d2, %C[%c0, %c0] bounds [%c16, %c16] ld %c16
      : !kaio.frag<acc, m16n8k8, f32>, !kaio.ptr<f32>
  kaio.return
}
