// warpgroup_mma's other operand forms through the whole pipeline, the PTX
// printer (with its register-coalescing check) and ptxas for sm_90a: A
// transposed (M-major, trans-a) from two 64-byte-swizzled column blocks
// with an N-major B, and 8-bit floats (E4M3 x E5M2, both K-major, k32)
// loaded by TMA from byte tensor maps. (The interpreter runs the same
// forms against references in test/unittests/Examples/WarpgroupTilesTest.cpp.)
// RUN: kaio-opt --kaio-to-ptx %s | kaio-translate --mlir-to-ptx --ptx-verify-coalescing -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75 %}

// CHECK-LABEL: .visible .entry trans_a(
// The first of each group takes scale-d 0 (a zero accumulator); then the
// scales, and for 16-bit operands the transposes: trans-a set, trans-b set
// (N-major B); 8-bit ones take no transpose immediates.
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {{[01]}}, 1, 1, 1, 1;
// CHECK-LABEL: .visible .entry fp8(
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2 {{.*}}, {{[01]}}, 1, 1;
// PTXAS-DAG: Compiling entry function 'trans_a' for 'sm_90a'
// PTXAS-DAG: Compiling entry function 'fp8' for 'sm_90a'

!AT = !kaio.smem<64x32xf16, #kaio.layout<row_major, swizzle = <2, 4, 3>>>
!BN = !kaio.smem<64x32xf16, #kaio.layout<row_major, swizzle = <2, 4, 3>>>
!Acc = !kaio.frag<acc, m16n8k16, f32, 1x8>
!A8 = !kaio.smem<64x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!B8 = !kaio.smem<128x128xf8E5M2, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!M8A = !kaio.tensor_map<64x128xf8E4M3FN, swizzle = 128>
!M8B = !kaio.tensor_map<128x128xf8E5M2, swizzle = 128>
!Acc8 = !kaio.frag<acc, m16n8k16, f32, 1x16>
!Bar = !kaio.smem<1xi64>
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @trans_a(%out: !kaio.ptr<f32>)
      attributes {block_size = array<i32: 128>} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant 0.0 : f32
    %a = kaio.shared_alloc : !AT
    %b = kaio.shared_alloc : !BN
    %init = kaio.frag_fill %zero : f32 -> !Acc
    %d = kaio.warpgroup_mma %a[%c0] transpose, %b[%c0], %init {k = 32}
        : !AT, !BN, !Acc
    %r = kaio.warpgroup_wait %d pending 0 : !Acc
    %warp = kaio.warp_id : i32
    %c16 = arith.constant 16 : i32
    %row = arith.muli %warp, %c16 : i32
    kaio.store_fragment %r, %out[%row, %c0] bounds [%c64, %c64] ld %c64
        : !Acc, !kaio.ptr<f32>
    kaio.return
  }

  kaio.kernel @fp8(%ma: !M8A, %mb: !M8B, %out: !kaio.ptr<f32>)
      attributes {block_size = array<i32: 128>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %bytes = arith.constant 24576 : i32
    %zero = arith.constant 0.0 : f32
    %a = kaio.shared_alloc : !A8
    %b = kaio.shared_alloc : !B8
    %bar = kaio.shared_alloc : !Bar
    %tid = kaio.thread_id x : i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    scf.if %first {
      kaio.mbarrier_init %bar[%c0], %c1 : !Bar
    }
    kaio.barrier
    scf.if %first {
      kaio.mbarrier_arrive %bar[%c0] expect_tx %bytes : !Bar
      kaio.tma_load %ma[%c0, %c0] to %a[%c0], %bar[%c0] : !M8A, !A8, !Bar
      kaio.tma_load %mb[%c0, %c0] to %b[%c0], %bar[%c0] : !M8B, !B8, !Bar
    }
    kaio.mbarrier_wait %bar[%c0], %c0 : !Bar
    %init = kaio.frag_fill %zero : f32 -> !Acc8
    %d = kaio.warpgroup_mma %a[%c0], %b[%c0] transpose, %init : !A8, !B8, !Acc8
    %r = kaio.warpgroup_wait %d pending 0 : !Acc8
    %warp = kaio.warp_id : i32
    %row = arith.muli %warp, %c16 : i32
    kaio.store_fragment %r, %out[%row, %c0] bounds [%c64, %c128] ld %c128
        : !Acc8, !kaio.ptr<f32>
    kaio.return
  }
}
