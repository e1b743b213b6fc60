// RUN: kaio-opt %s --kaio-lower-tiles | FileCheck %s

// The sm_90a tile ops: mbarrier ops at the barrier's shared address, the
// wait a try_wait.parity loop; warpgroup_mma one wgmma.mma_async per 16 of K
// between a fence and a commit, reading A (K-major) and B (N-major,
// trans-b) through descriptors: 128-byte swizzle (mode 1 << 62), 8-row
// groups 1024 bytes apart (SBO 64 << 32), B's 64-column blocks K * 128 =
// 8192 bytes apart (LBO 512 << 16); each k16 step moves A 32 bytes (+2) and
// B 16 rows (+128). A zero-filled accumulator is not read: the first wgmma
// takes scale-d 0. The accumulators go from wgmma to wgmma and, after the
// wait, to the store as the same 64 registers.

// CHECK-LABEL: kaio.kernel @wg
// The descriptors of every k step are computed as soon as their operands
// exist (here: after the tile), not between the wgmma of a group or after
// an earlier group was issued (ptxas would serialise the wgmma, C7513).
// Operand rows start on whole swizzle patterns: their address is the
// tile's plus row * 128 bytes, no swizzle arithmetic.
// CHECK: %[[T:.*]] = kaio.shared_alloc : <256x64xf16
// CHECK: %[[TA:.*]] = kaio.shared_address %[[T]][%[[Z:.*]], %[[Z]]]
// CHECK: %[[AOFF:.*]] = arith.muli %arg1, %c128_i32 : i32
// CHECK: %[[A:.*]] = arith.addi %[[TA]], %[[AOFF]] : i32
// CHECK: %[[A64:.*]] = arith.extui %[[A]] : i32 to i64
// CHECK: %[[A4:.*]] = arith.shrui %[[A64]], %c4_i64 : i64
// The address field keeps its 14 bits (a CTA of rank > 0 of a cluster
// sees its own addresses with high bits set, which would spill into the
// leading byte offset; any kernel may be launched in clusters).
// CHECK: %[[AF:.*]] = arith.andi %[[A4]], %c16383_i64 : i64
// CHECK: %[[DA:.*]] = arith.ori %[[AF]], %c4611686293305294848_i64 : i64
// CHECK: arith.muli %arg2, %{{.*}} : i32
// CHECK: %[[B:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: %[[B64:.*]] = arith.extui %[[B]] : i32 to i64
// CHECK: %[[DB:.*]] = arith.ori %{{.*}}, %c4611686293338849280_i64 : i64
// CHECK: %[[DA1:.*]] = arith.addi %[[DA]], %c2_i64 : i64
// CHECK: %[[DB1:.*]] = arith.addi %[[DB]], %c128_i64 : i64
// CHECK: arith.addi %[[DA]], %c4_i64{{.*}} : i64
// CHECK: arith.addi %[[DB]], %c256_i64 : i64
// CHECK: arith.addi %[[DA]], %c6_i64 : i64
// CHECK: arith.addi %[[DB]], %c384_i64 : i64
// CHECK: %[[BARS:.*]] = kaio.shared_alloc : <4xi64>
// CHECK: %[[B0:.*]] = kaio.shared_address %[[BARS]][%[[S:.*]]] : <4xi64>
// CHECK: ptx.mbarrier_init [%[[B0]]], %{{.*}} : i32
// CHECK: ptx.mbarrier_arrive expect_tx shared [%{{.*}}], %arg4 : i32
// CHECK: ptx.mbarrier_arrive shared [%{{.*}}] : i32
// On another block of the cluster: its address by mapa, the default
// .release.cta (no cluster-scope fence on every arrive).
// CHECK: %[[REMOTE:.*]] = ptx.mapa shared_cluster %{{.*}}, %arg5 : i32
// CHECK: ptx.mbarrier_arrive shared_cluster [%[[REMOTE]]] : i32
// CHECK: %[[REMOTE2:.*]] = ptx.mapa shared_cluster %{{.*}}, %arg5 : i32
// CHECK: ptx.mbarrier_arrive expect_tx shared_cluster [%[[REMOTE2]]], %arg4 : i32
// CHECK: %[[B3:.*]] = kaio.shared_address %[[BARS]][%[[S]]] : <4xi64>
// CHECK: scf.while : () -> () {
// CHECK:   %[[READY:.*]] = ptx.mbarrier_try_wait parity [%[[B3]]], %arg4 : i32, i32
// CHECK:   %[[PENDING:.*]] = arith.xori %[[READY]], %true : i1
// CHECK:   scf.condition(%[[PENDING]])
// CHECK: } do {
// CHECK: ptx.setmaxnreg inc 232
// CHECK-NEXT: ptx.wgmma_fence
// CHECK-NEXT: %[[D0:.*]]:64 = ptx.wgmma_mma_async m64n128k16 f32 f16 f16 {%cst, {{.*}}}, %[[DA]], %[[DB]] scale_d_imm 0 trans_b : f32
// CHECK-NEXT: %[[D1:.*]]:64 = ptx.wgmma_mma_async m64n128k16 f32 f16 f16 {%[[D0]]#0, {{.*}}, %[[D0]]#63}, %[[DA1]], %[[DB1]] trans_b : f32
// CHECK-NEXT: ptx.wgmma_mma_async
// CHECK-NEXT: %[[D3:.*]]:64 = ptx.wgmma_mma_async
// CHECK-NEXT: ptx.wgmma_commit_group
// CHECK-NEXT: ptx.wgmma_wait_group 1
// CHECK-NEXT: ptx.wgmma_wait_group 0
// CHECK: kaio.store_vector %[[D3]]#0, %[[D3]]#1 to
// CHECK-NOT: kaio.warpgroup
// CHECK-NOT: kaio.mbarrier
!T = !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!B32 = !kaio.smem<256x16xbf16, #kaio.layout<row_major, swizzle = <1, 4, 3>>>
!Bars = !kaio.smem<4xi64>
!Acc = !kaio.frag<acc, m16n8k16, f32, 1x16>
kaio.kernel @wg(%out: !kaio.ptr<f32>, %ar: i32, %br: i32, %s: i32, %p: i32,
                %rank: i32)
    attributes {block_size = array<i32: 128>, cluster_size = array<i32: 2>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %t = kaio.shared_alloc : !T
  %bars = kaio.shared_alloc : !Bars
  kaio.mbarrier_init %bars[%s], %c1 : !Bars
  kaio.mbarrier_arrive %bars[%s] expect_tx %p : !Bars
  kaio.mbarrier_arrive %bars[%s] : !Bars
  kaio.mbarrier_arrive %bars[%s] on_block %rank : !Bars
  kaio.mbarrier_arrive %bars[%s] expect_tx %p on_block %rank : !Bars
  kaio.mbarrier_wait %bars[%s], %p : !Bars
  kaio.setmaxnreg inc 232
  %init = kaio.frag_fill %zero : f32 -> !Acc
  %d = kaio.warpgroup_mma %t[%ar], %t[%br], %init : !T, !T, !Acc
  kaio.warpgroup_wait pending 1
  %r = kaio.warpgroup_wait %d pending 0 : !Acc
  kaio.store_fragment %r, %out[%c0, %c0] bounds [%p, %p] ld %p : !Acc, !kaio.ptr<f32>
  kaio.return
}

// A from registers (one A atom of 4 registers per k16 step, no A
// descriptor) and a K-major B (`transpose`: no trans-b, no LBO, its start
// steps 32 bytes like A's would).
// CHECK-LABEL: kaio.kernel @wg_regs
// Without a cluster_size too.
// CHECK: arith.andi %{{.*}}, %c16383_i64 : i64
// CHECK: %[[DBT:.*]] = arith.ori %{{.*}}, %c4611686293305294848_i64 : i64
// CHECK: %[[DBT1:.*]] = arith.addi %[[DBT]], %c2_i64 : i64
// CHECK: %[[L0:.*]]:4 = ptx.ldmatrix
// CHECK: %[[L1:.*]]:4 = ptx.ldmatrix
// CHECK: ptx.wgmma_fence
// CHECK: %[[E0:.*]]:32 = ptx.wgmma_mma_async m64n64k16 f32 bf16 bf16 {%cst, {{.*}}}, {%[[L0]]#0, %[[L0]]#1, %[[L0]]#2, %[[L0]]#3}, %[[DBT]] scale_d_imm 0 : f32, i32
// CHECK: ptx.wgmma_mma_async m64n64k16 f32 bf16 bf16 {%[[E0]]#0, {{.*}}}, {%[[L1]]#0, %[[L1]]#1, %[[L1]]#2, %[[L1]]#3}, %[[DBT1]] : f32, i32
// CHECK: ptx.wgmma_mma_async
// CHECK: ptx.wgmma_mma_async
// CHECK-NEXT: ptx.wgmma_commit_group
!TB = !kaio.smem<128x64xbf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!AccB = !kaio.frag<acc, m16n8k16, f32, 1x8>
kaio.kernel @wg_regs(%out: !kaio.ptr<f32>, %br: i32, %p: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %t = kaio.shared_alloc : !TB
  %a = kaio.load_fragment %t[%c0, %c0] : !TB -> !kaio.frag<a, m16n8k16, bf16, 1x4>
  %init = kaio.frag_fill %zero : f32 -> !AccB
  %d = kaio.warpgroup_mma %a, %t[%br] transpose, %init
      : !kaio.frag<a, m16n8k16, bf16, 1x4>, !TB, !AccB
  %r = kaio.warpgroup_wait %d pending 0 : !AccB
  kaio.store_fragment %r, %out[%c0, %c0] bounds [%p, %p] ld %p : !AccB, !kaio.ptr<f32>
  kaio.return
}

// A transposed A (M-major, trans-a): like an N-major B, its descriptor
// keeps blocks K * 128 = 8192 bytes apart (LBO 512 << 16: the same high
// bits as B's) and steps 16 rows (+128) per k16; B K-major (`transpose`)
// steps 32 bytes (+2) and takes no trans-b.
// CHECK-LABEL: kaio.kernel @wg_trans_a
// CHECK: %[[TDA:.*]] = arith.ori %{{.*}}, %c4611686293338849280_i64 : i64
// CHECK: %[[TDB:.*]] = arith.ori %{{.*}}, %c4611686293305294848_i64 : i64
// CHECK: %[[TDA1:.*]] = arith.addi %[[TDA]], %c128_i64 : i64
// CHECK: %[[TDB1:.*]] = arith.addi %[[TDB]], %c2_i64 : i64
// CHECK: ptx.wgmma_fence
// CHECK-NEXT: %[[T0:.*]]:32 = ptx.wgmma_mma_async m64n64k16 f32 f16 f16 {%cst, {{.*}}}, %[[TDA]], %[[TDB]] scale_d_imm 0 trans_a : f32
// CHECK-NEXT: ptx.wgmma_mma_async m64n64k16 f32 f16 f16 {%[[T0]]#0, {{.*}}}, %[[TDA1]], %[[TDB1]] trans_a : f32
!TA = !kaio.smem<128x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
kaio.kernel @wg_trans_a(%out: !kaio.ptr<f32>, %ar: i32, %br: i32, %p: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %t = kaio.shared_alloc : !TA
  %init = kaio.frag_fill %zero : f32 -> !AccB
  %d = kaio.warpgroup_mma %t[%ar] transpose, %t[%br] transpose, %init {k = 64}
      : !TA, !TA, !AccB
  %r = kaio.warpgroup_wait %d pending 0 : !AccB
  kaio.store_fragment %r, %out[%c0, %c0] bounds [%p, %p] ld %p : !AccB, !kaio.ptr<f32>
  kaio.return
}

// 8-bit floats: one k32 wgmma per 32 bytes of K (K = 128 elements: four),
// both operands K-major (no transpose immediates), each step +32 bytes.
// CHECK-LABEL: kaio.kernel @wg_fp8
// CHECK: %[[FA:.*]] = arith.ori %{{.*}}, %c4611686293305294848_i64{{.*}} : i64
// CHECK: %[[FB:.*]] = arith.ori %{{.*}}, %c4611686293305294848_i64{{.*}} : i64
// CHECK: %[[FA1:.*]] = arith.addi %[[FA]], %c2_i64{{.*}} : i64
// CHECK: %[[FB1:.*]] = arith.addi %[[FB]], %c2_i64{{.*}} : i64
// CHECK: ptx.wgmma_fence
// CHECK-NEXT: %[[F0:.*]]:32 = ptx.wgmma_mma_async m64n64k32 f32 e4m3 e5m2 {%cst, {{.*}}}, %[[FA]], %[[FB]] scale_d_imm 0 : f32
// CHECK-NEXT: ptx.wgmma_mma_async m64n64k32 f32 e4m3 e5m2 {%[[F0]]#0, {{.*}}}, %[[FA1]], %[[FB1]] : f32
// CHECK-NEXT: ptx.wgmma_mma_async m64n64k32
// CHECK-NEXT: ptx.wgmma_mma_async m64n64k32
// CHECK-NEXT: ptx.wgmma_commit_group
!A8 = !kaio.smem<64x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!B8 = !kaio.smem<64x128xf8E5M2, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
kaio.kernel @wg_fp8(%out: !kaio.ptr<f32>, %p: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %a = kaio.shared_alloc : !A8
  %b = kaio.shared_alloc : !B8
  %init = kaio.frag_fill %zero : f32 -> !AccB
  %d = kaio.warpgroup_mma %a[%c0], %b[%c0] transpose, %init : !A8, !B8, !AccB
  %r = kaio.warpgroup_wait %d pending 0 : !AccB
  kaio.store_fragment %r, %out[%c0, %c0] bounds [%p, %p] ld %p : !AccB, !kaio.ptr<f32>
  kaio.return
}

// The epilogue through shared memory: an f16 tile takes each lane's pairs
// of row neighbours as one packed 4-byte st.shared at the swizzled address
// (rows g and g + 8, columns 2t, 2t + 1 of each n8 atom), an f32 tile as
// st.shared.v2.f32 (two values), when the column is known even; then the fence for the async proxy and the wait for
// the TMA stores' reads.
// CHECK-LABEL: kaio.kernel @staging
// CHECK: %[[P:.*]] = ptx.pack b32 %{{.*}}, %{{.*}} : f16, f16 -> i32
// CHECK: ptx.st shared b32 [%{{.*}}], %[[P]] : i32, i32
// CHECK-COUNT-15: ptx.st shared b32
// CHECK-NOT: ptx.st shared b32
// CHECK: ptx.st shared f32 [%{{.*}}], %{{.*}}, %{{.*}} : i32, f32, f32
// CHECK-COUNT-15: ptx.st shared f32 [%{{.*}}], %{{.*}}, %{{.*}} : i32, f32, f32
// A column of unknown parity: one element per store (a pair could be
// misaligned).
// CHECK-COUNT-32: ptx.st shared b16 [%{{.*}}], %{{.*}} : i32, f16
// An i32 tile takes integer sums as they are, pairs as st.shared.v2.b32.
// CHECK: ptx.st shared b32 [%{{.*}}], %{{.*}}, %{{.*}} : i32, i32, i32
// CHECK-COUNT-15: ptx.st shared b32 [%{{.*}}], %{{.*}}, %{{.*}} : i32, i32, i32
// CHECK: ptx.fence_proxy_async shared
// CHECK: ptx.cp_async_bulk_wait_group read 1
!T16 = !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
!T32 = !kaio.smem<16x64xf32, #kaio.layout<row_major, pad = 4>>
!TI32 = !kaio.smem<16x64xi32, #kaio.layout<row_major, pad = 4>>
!AccI = !kaio.frag<acc, m16n8k32, i32, 1x8>
kaio.kernel @staging(%v: f32, %r: i32) attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %acc = kaio.frag_fill %v : f32 -> !AccB
  %sums = kaio.frag_fill %r : i32 -> !AccI
  %t16 = kaio.shared_alloc : !T16
  %t32 = kaio.shared_alloc : !T32
  %ti32 = kaio.shared_alloc : !TI32
  kaio.shared_store_fragment %acc, %t16[%r, %c0] : !AccB, !T16
  kaio.shared_store_fragment %acc, %t32[%c0, %c0] : !AccB, !T32
  kaio.shared_store_fragment %acc, %t16[%c0, %r] : !AccB, !T16
  kaio.shared_store_fragment %sums, %ti32[%c0, %c0] : !AccI, !TI32
  kaio.fence_proxy_async
  kaio.tma_store_wait pending 1
  kaio.return
}
