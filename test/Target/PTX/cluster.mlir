// Thread block clusters (sm_90): the cluster special registers, the cluster
// barrier (PTX 7.8; .release/.relaxed/.acquire from 8.0), mapa, and
// ld/st/atom/red/cvta on .shared::cluster.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s | FileCheck %s
// RUN: %ptx-check %s sm_90 sm_90a sm_100a

ptx.var shared @tile : u32 [64] align 16

// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90
// CHECK-LABEL: .visible .entry cluster(
ptx.entry @cluster(%out: i64 {ptx.ptr = i32}, %g: i64) {
  // CHECK:      mov.u32 %r1, %clusterid.x;
  // CHECK-NEXT: mov.u32 %r2, %clusterid.y;
  // CHECK-NEXT: mov.u32 %r3, %clusterid.z;
  // CHECK-NEXT: mov.u32 %r4, %nclusterid.x;
  // CHECK-NEXT: mov.u32 %r5, %nclusterid.y;
  // CHECK-NEXT: mov.u32 %r6, %nclusterid.z;
  // CHECK-NEXT: mov.u32 %r7, %cluster_ctaid.x;
  // CHECK-NEXT: mov.u32 %r8, %cluster_ctaid.y;
  // CHECK-NEXT: mov.u32 %r9, %cluster_ctaid.z;
  // CHECK-NEXT: mov.u32 %r10, %cluster_nctaid.x;
  // CHECK-NEXT: mov.u32 %r11, %cluster_nctaid.y;
  // CHECK-NEXT: mov.u32 %r12, %cluster_nctaid.z;
  // CHECK-NEXT: mov.u32 %r13, %cluster_ctarank;
  // CHECK-NEXT: mov.u32 %r14, %cluster_nctarank;
  // CHECK-NEXT: mov.pred %p1, %is_explicit_cluster;
  %0 = ptx.sreg clusterid.x : i32
  %1 = ptx.sreg clusterid.y : i32
  %2 = ptx.sreg clusterid.z : i32
  %3 = ptx.sreg nclusterid.x : i32
  %4 = ptx.sreg nclusterid.y : i32
  %5 = ptx.sreg nclusterid.z : i32
  %6 = ptx.sreg cluster_ctaid.x : i32
  %7 = ptx.sreg cluster_ctaid.y : i32
  %8 = ptx.sreg cluster_ctaid.z : i32
  %9 = ptx.sreg cluster_nctaid.x : i32
  %10 = ptx.sreg cluster_nctaid.y : i32
  %11 = ptx.sreg cluster_nctaid.z : i32
  %rank = ptx.sreg cluster_ctarank : i32
  %size = ptx.sreg cluster_nctarank : i32
  %explicit = ptx.sreg is_explicit_cluster : i1

  // CHECK-NEXT: barrier.cluster.arrive;
  // CHECK-NEXT: barrier.cluster.wait;
  // CHECK-NEXT: barrier.cluster.arrive.aligned;
  // CHECK-NEXT: barrier.cluster.wait.aligned;
  // CHECK-NEXT: barrier.cluster.arrive.release.aligned;
  // CHECK-NEXT: barrier.cluster.arrive.relaxed;
  // CHECK-NEXT: barrier.cluster.wait.acquire.aligned;
  ptx.barrier_cluster_arrive
  ptx.barrier_cluster_wait
  ptx.barrier_cluster_arrive aligned
  ptx.barrier_cluster_wait aligned
  ptx.barrier_cluster_arrive release aligned
  ptx.barrier_cluster_arrive relaxed
  ptx.barrier_cluster_wait acquire aligned

  // The neighbour CTA's tile, through .shared::cluster and generically.
  // CHECK-NEXT: mov.u32 %r15, tile;
  // CHECK-NEXT: mapa.shared::cluster.u32 %r16, %r15, %r13;
  // CHECK-NEXT: mov.u64 %rd3, tile;
  // CHECK-NEXT: mapa.shared::cluster.u64 %rd4, %rd3, %r13;
  // CHECK-NEXT: cvta.shared.u64 %rd5, %rd3;
  // CHECK-NEXT: mapa.u64 %rd6, %rd5, %r13;
  // CHECK-NEXT: cvta.shared::cluster.u64 %rd7, %rd4;
  %t = ptx.addressof @tile : i32
  %remote = ptx.mapa shared_cluster %t, %rank : i32
  %t64 = ptx.addressof @tile : i64
  %remote64 = ptx.mapa shared_cluster %t64, %rank : i64
  %gen = ptx.cvta shared %t64 : i64 -> i64
  %remoteGen = ptx.mapa generic %gen, %rank : i64
  %back = ptx.cvta shared_cluster %remote64 : i64 -> i64

  // CHECK-NEXT: ld.shared::cluster.u32 %r17, [%r16];
  // CHECK-NEXT: ld.shared::cluster.v2.u32 {%r18, %r19}, [%rd4+8];
  // CHECK-NEXT: st.shared::cluster.u32 [%r16+4], %r17;
  // CHECK-NEXT: atom.shared::cluster.add.u32 %r20, [%r16], %r13;
  // CHECK-NEXT: red.relaxed.cluster.shared::cluster.add.u32 [%r16], %r14;
  %v = ptx.ld shared_cluster u32 [%remote] : i32 -> i32
  %w:2 = ptx.ld shared_cluster u32 [%remote64 + 8] : i64 -> i32, i32
  ptx.st shared_cluster u32 [%remote + 4], %v : i32, i32
  %old = ptx.atom shared_cluster add u32 [%remote], %rank : i32, i32 -> i32
  ptx.red shared_cluster relaxed cluster add u32 [%remote], %size : i32, i32

  %sel = ptx.selp b32 %w#0, %w#1, %explicit : (i32, i32) -> i32
  %sum = ptx.add u32 %sel, %old : i32
  %gsum = ptx.add u32 %sum, %0 : i32
  ptx.st global u32 [%out], %gsum : i64, i32
  ptx.st global u64 [%out + 8], %remoteGen : i64, i64
  ptx.st global u64 [%out + 16], %back : i64, i64
  ptx.ret
}
