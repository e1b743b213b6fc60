// Each block of a cluster stores its thread's value in shared memory and,
// after the cluster barrier, writes the value of the same thread of the
// next block of its cluster (mapa + ld.shared::cluster) to out; a second
// cluster barrier keeps every block's shared memory alive until its
// neighbour has read it.
module attributes {ptx.target = "sm_90", ptx.version = "8.0"} {
  ptx.var shared @word : b32 [256] align 4
  ptx.entry @rotate(%in: i64 {ptx.ptr = i32}, %out: i64 {ptx.ptr = i32}) {
    %tid = ptx.sreg tid.x : i32
    %bx = ptx.sreg ctaid.x : i32
    %nt = ptx.sreg ntid.x : i32
    %rank = ptx.sreg cluster_ctarank : i32
    %size = ptx.sreg cluster_nctarank : i32
    %one = ptx.constant 1 : i32
    %c4 = ptx.constant 4 : i32
    %base = ptx.mul lo s32 %bx, %nt : i32
    %g = ptx.add s32 %base, %tid : i32
    %goff = ptx.mul wide u32 %g, %c4 : (i32, i32) -> i64
    %src = ptx.add s64 %in, %goff : i64
    %v = ptx.ld global b32 [%src] : i64 -> i32
    %w = ptx.addressof @word : i32
    %woff = ptx.mul lo s32 %tid, %c4 : i32
    %mine = ptx.add s32 %w, %woff : i32
    ptx.st shared b32 [%mine], %v : i32, i32
    ptx.barrier_cluster_arrive release aligned
    ptx.barrier_cluster_wait acquire aligned
    %r1 = ptx.add s32 %rank, %one : i32
    %next = ptx.rem u32 %r1, %size : i32
    %theirs = ptx.mapa shared_cluster %mine, %next : i32
    %n = ptx.ld shared_cluster b32 [%theirs] : i32 -> i32
    %dst = ptx.add s64 %out, %goff : i64
    ptx.st global b32 [%dst], %n : i64, i32
    ptx.barrier_cluster_arrive release aligned
    ptx.barrier_cluster_wait acquire aligned
    ptx.ret
  }
}
