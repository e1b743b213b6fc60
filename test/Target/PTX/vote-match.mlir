// vote.sync (all/any/uni into a predicate, ballot into a mask), match.sync
// any/all on 32- and 64-bit values, and activemask.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry votes(
ptx.entry @votes(%a: i32, %w: i64) {
  // CHECK:      activemask.b32 %r2;
  // CHECK-NEXT: setp.ne.s32 %p1, %r1, %r2;
  // CHECK-NEXT: vote.sync.all.pred %p2, %p1, %r2;
  // CHECK-NEXT: vote.sync.any.pred %p3, %p1, %r2;
  // CHECK-NEXT: vote.sync.uni.pred %p4, %p1, %r2;
  // CHECK-NEXT: vote.sync.ballot.b32 %r3, %p1, %r2;
  %mask = ptx.activemask
  %p = ptx.setp ne s32 %a, %mask : i32
  %0 = ptx.vote_sync all %p, %mask : i1
  %1 = ptx.vote_sync any %p, %mask : i1
  %2 = ptx.vote_sync uni %p, %mask : i1
  %3 = ptx.vote_sync ballot %p, %mask : i32
  // CHECK-NEXT: match.any.sync.b32 %r4, %r1, %r2;
  // CHECK-NEXT: match.all.sync.b32 %r5, %r1, %r2;
  // CHECK-NEXT: match.any.sync.b64 %r6, %rd1, %r2;
  // CHECK-NEXT: match.all.sync.b64 %r7, %rd1, %r2;
  %4 = ptx.match_sync any b32 %a, %mask : i32
  %5 = ptx.match_sync all b32 %a, %mask : i32
  %6 = ptx.match_sync any b64 %w, %mask : i64
  %7 = ptx.match_sync all b64 %w, %mask : i64
  ptx.ret
}
