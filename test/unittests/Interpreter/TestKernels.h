//===- TestKernels.h - kernels shared by the interpreter tests --*- C++ -*-===//

#ifndef KAIO_TEST_UNITTESTS_INTERPRETER_TESTKERNELS_H
#define KAIO_TEST_UNITTESTS_INTERPRETER_TESTKERNELS_H

#include <string>

namespace kaio::interp::test {

/// A 16x16-tiled f32 matmul through shared memory, two barriers per tile.
inline const char *kTiledMatmul = R"(
ptx.var shared @As : f32 [256] align 16
ptx.var shared @Bs : f32 [256] align 16
ptx.entry @matmul(%A: i64, %B: i64, %C: i64, %n: i32) {
  %tx = ptx.sreg tid.x : i32
  %ty = ptx.sreg tid.y : i32
  %bx = ptx.sreg ctaid.x : i32
  %by = ptx.sreg ctaid.y : i32
  %c0 = ptx.constant 0 : i32
  %c1 = ptx.constant 1 : i32
  %c4 = ptx.constant 4 : i32
  %c16 = ptx.constant 16 : i32
  %c64 = ptx.constant 64 : i32
  %zero = ptx.constant 0.0 : f32
  %row = ptx.mad lo s32 %by, %c16, %ty : i32
  %col = ptx.mad lo s32 %bx, %c16, %tx : i32
  %as = ptx.addressof @As : i32
  %bs = ptx.addressof @Bs : i32
  %lin = ptx.mad lo s32 %ty, %c16, %tx : i32
  %lin4 = ptx.mul lo s32 %lin, %c4 : i32
  %sa = ptx.add s32 %as, %lin4 : i32
  %sb = ptx.add s32 %bs, %lin4 : i32
  %ty64 = ptx.mul lo s32 %ty, %c64 : i32
  %arow = ptx.add s32 %as, %ty64 : i32
  %tx4 = ptx.mul lo s32 %tx, %c4 : i32
  %bcol = ptx.add s32 %bs, %tx4 : i32
  %ntiles = ptx.div u32 %n, %c16 : i32
  ptx.bra ^loop(%c0, %zero : i32, f32)
^loop(%t: i32, %acc: f32):
  %t16 = ptx.mul lo s32 %t, %c16 : i32
  %acol = ptx.add s32 %t16, %tx : i32
  %aidx = ptx.mad lo s32 %row, %n, %acol : i32
  %aoff = ptx.mul wide u32 %aidx, %c4 : (i32, i32) -> i64
  %ap = ptx.add s64 %A, %aoff : i64
  %av = ptx.ld global f32 [%ap] : i64 -> f32
  ptx.st shared f32 [%sa], %av : i32, f32
  %brow = ptx.add s32 %t16, %ty : i32
  %bidx = ptx.mad lo s32 %brow, %n, %col : i32
  %boff = ptx.mul wide u32 %bidx, %c4 : (i32, i32) -> i64
  %bp = ptx.add s64 %B, %boff : i64
  %bv = ptx.ld global f32 [%bp] : i64 -> f32
  ptx.st shared f32 [%sb], %bv : i32, f32
  ptx.bar_sync 0
  ptx.bra ^inner(%c0, %acc : i32, f32)
^inner(%k: i32, %a2: f32):
  %k4 = ptx.mul lo s32 %k, %c4 : i32
  %pa = ptx.add s32 %arow, %k4 : i32
  %x = ptx.ld shared f32 [%pa] : i32 -> f32
  %kb = ptx.mul lo s32 %k, %c64 : i32
  %pb = ptx.add s32 %bcol, %kb : i32
  %y = ptx.ld shared f32 [%pb] : i32 -> f32
  %a3 = ptx.fma rn f32 %x, %y, %a2 : f32
  %k1 = ptx.add s32 %k, %c1 : i32
  %more = ptx.setp lt s32 %k1, %c16 : i32
  ptx.cond_bra %more, ^inner(%k1, %a3 : i32, f32), ^next(%a3 : f32)
^next(%acc2: f32):
  ptx.bar_sync 0
  %t1 = ptx.add s32 %t, %c1 : i32
  %moret = ptx.setp lt s32 %t1, %ntiles : i32
  ptx.cond_bra %moret, ^loop(%t1, %acc2 : i32, f32), ^done
^done:
  %cidx = ptx.mad lo s32 %row, %n, %col : i32
  %coff = ptx.mul wide u32 %cidx, %c4 : (i32, i32) -> i64
  %cp = ptx.add s64 %C, %coff : i64
  ptx.st global f32 [%cp], %acc2 : i64, f32
  ptx.ret
}
)";

/// vector_add as `vadd`, its bound check `setp.CMP` left to the caller:
/// vectorAdd("ge") is right, vectorAdd("gt") writes one element too far.
inline const char *kVectorAddWithBound = R"(
ptx.entry @vadd(%a: i64, %b: i64, %c: i64, %n: i32) {
  %tid = ptx.sreg tid.x : i32
  %ctaid = ptx.sreg ctaid.x : i32
  %ntid = ptx.sreg ntid.x : i32
  %i = ptx.mad lo s32 %ctaid, %ntid, %tid : i32
  %oob = ptx.setp CMP u32 %i, %n : i32
  ptx.cond_bra %oob, ^exit, ^body
^body:
  %four = ptx.constant 4 : i32
  %off = ptx.mul wide u32 %i, %four : (i32, i32) -> i64
  %pa = ptx.add s64 %a, %off : i64
  %pb = ptx.add s64 %b, %off : i64
  %pc = ptx.add s64 %c, %off : i64
  %x = ptx.ld global f32 [%pa] : i64 -> f32
  %y = ptx.ld global f32 [%pb] : i64 -> f32
  %s = ptx.add rn f32 %x, %y : f32
  ptx.st global f32 [%pc], %s : i64, f32
  ptx.bra ^exit
^exit:
  ptx.ret
}
)";

inline std::string vectorAdd(const std::string &cmp) {
  std::string s = kVectorAddWithBound;
  size_t pos = s.find("CMP");
  return s.replace(pos, 3, cmp);
}

} // namespace kaio::interp::test

#endif // KAIO_TEST_UNITTESTS_INTERPRETER_TESTKERNELS_H
