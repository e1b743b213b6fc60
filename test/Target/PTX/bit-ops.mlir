// popc, clz, brev, bfe, bfi, prmt (every mode) and lop3.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_75 sm_80 sm_90

// CHECK-LABEL: .visible .entry bits(
ptx.entry @bits(%a: i32, %b: i32, %c: i32, %w: i64) {
  // CHECK:      popc.b32 %r4, %r1;
  // CHECK-NEXT: popc.b64 %r5, %rd1;
  // CHECK-NEXT: clz.b32 %r6, %r1;
  // CHECK-NEXT: clz.b64 %r7, %rd1;
  // CHECK-NEXT: brev.b32 %r8, %r1;
  // CHECK-NEXT: brev.b64 %rd2, %rd1;
  %0 = ptx.popc b32 %a : i32
  %1 = ptx.popc b64 %w : (i64) -> i32
  %2 = ptx.clz b32 %a : i32
  %3 = ptx.clz b64 %w : (i64) -> i32
  %4 = ptx.brev b32 %a : i32
  %5 = ptx.brev b64 %w : i64
  // CHECK-NEXT: bfe.u32 %r9, %r1, %r2, %r3;
  // CHECK-NEXT: bfe.s32 %r10, %r1, %r2, %r3;
  // CHECK-NEXT: bfe.u64 %rd3, %rd1, %r2, %r3;
  // CHECK-NEXT: bfe.s64 %rd4, %rd1, %r2, %r3;
  // CHECK-NEXT: bfi.b32 %r11, %r1, %r2, %r3, %r3;
  // CHECK-NEXT: bfi.b64 %rd5, %rd1, %rd1, %r2, %r3;
  %6 = ptx.bfe u32 %a, %b, %c : i32
  %7 = ptx.bfe s32 %a, %b, %c : i32
  %8 = ptx.bfe u64 %w, %b, %c : (i64, i32, i32) -> i64
  %9 = ptx.bfe s64 %w, %b, %c : (i64, i32, i32) -> i64
  %10 = ptx.bfi b32 %a, %b, %c, %c : i32
  %11 = ptx.bfi b64 %w, %w, %b, %c : (i64, i64, i32, i32) -> i64
  // CHECK-NEXT: prmt.b32 %r12, %r1, %r2, %r3;
  // CHECK-NEXT: prmt.b32.f4e %r13, %r1, %r2, %r3;
  // CHECK-NEXT: prmt.b32.b4e %r14, %r1, %r2, %r3;
  // CHECK-NEXT: prmt.b32.rc8 %r15, %r1, %r2, %r3;
  // CHECK-NEXT: prmt.b32.ecl %r16, %r1, %r2, %r3;
  // CHECK-NEXT: prmt.b32.ecr %r17, %r1, %r2, %r3;
  // CHECK-NEXT: prmt.b32.rc16 %r18, %r1, %r2, %r3;
  %12 = ptx.prmt b32 %a, %b, %c : i32
  %13 = ptx.prmt f4e b32 %a, %b, %c : i32
  %14 = ptx.prmt b4e b32 %a, %b, %c : i32
  %15 = ptx.prmt rc8 b32 %a, %b, %c : i32
  %16 = ptx.prmt ecl b32 %a, %b, %c : i32
  %17 = ptx.prmt ecr b32 %a, %b, %c : i32
  %18 = ptx.prmt rc16 b32 %a, %b, %c : i32
  // a & b | ~c (0xF0 & 0xCC | ~0xAA) and the majority function.
  // CHECK-NEXT: lop3.b32 %r19, %r1, %r2, %r3, 213;
  // CHECK-NEXT: lop3.b32 %r20, %r1, %r2, %r3, 232;
  // CHECK-NEXT: ret;
  %19 = ptx.lop3 b32 %a, %b, %c, 213 : i32
  %20 = ptx.lop3 b32 %a, %b, %c, 232 : i32
  ptx.ret
}
