// tf32 and int8 mma from shared tiles: fragments are loaded element by
// element (ldmatrix moves only 16-bit elements), tf32 through cvt.rna,
// bytes packed four to a register. The interpreter checks the results in
// test/unittests/Examples (Tf32MmaFromTiles, Int8MmaFromTiles).
// RUN: kaio-opt --kaio-to-ptx="chip=sm_80" %s | kaio-translate --mlir-to-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// CHECK-LABEL: .visible .entry tf32_tile(
// CHECK-NOT: ldmatrix
// CHECK: ld.shared.f32
// CHECK: cvt.rna.tf32.f32
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

// CHECK-LABEL: .visible .entry s8_tile(
// CHECK-NOT: ldmatrix
// CHECK: ld.shared.s8
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
