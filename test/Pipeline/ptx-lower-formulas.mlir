// RUN: kaio-opt %s --ptx-lower-formulas | FileCheck %s
// RUN: kaio-opt %s --ptx-lower-formulas="fast-math=1" | FileCheck %s --check-prefix=FAST
// RUN: not kaio-translate --mlir-to-ptx %s -o - 2>&1 | FileCheck %s --check-prefix=RAW

// A kernel written at the ptx level (as the op library's sm_90a GEMM is)
// whose formula uses arith and math ops: --ptx-lower-formulas lowers them
// and leaves the hand-written ptx ops in place (no canonicalizer, CSE or
// ptx cleanup runs; the conversion driver only shares equal constants).

// CHECK-LABEL: ptx.entry @silu
// CHECK: %[[X:.*]] = ptx.ld global f32
// CHECK: %[[S:.*]] = ptx.add rn f32 %[[X]],
// CHECK: ptx.neg f32 %[[S]]
// CHECK: ptx.ex2 approx ftz f32
// CHECK: ptx.add rn f32
// CHECK: %[[Y:.*]] = ptx.div rn f32 %[[S]],
// CHECK-NOT: arith.
// CHECK-NOT: math.
// CHECK: %[[Z:.*]] = ptx.mul rn f32 %[[Y]],
// CHECK: ptx.st global f32 [%{{.*}}], %[[Z]]
// FAST-LABEL: ptx.entry @silu
// FAST: ptx.div approx f32
// The printer alone takes no arith or math op.
// RAW: error:
ptx.entry @silu(%p: i64 {ptx.ptr = f32, ptx.name = "p"}) {
  %one = ptx.constant 1.000000e+00 : f32
  %one2 = ptx.constant 1.000000e+00 : f32
  %x = ptx.ld global f32 [%p] : i64 -> f32
  %s = ptx.add rn f32 %x, %one : f32
  %nx = arith.negf %s : f32
  %e = math.exp %nx : f32
  %c = arith.constant 0x3F800000 : f32
  %d = arith.addf %c, %e : f32
  %y = arith.divf %s, %d : f32
  %z = ptx.mul rn f32 %y, %one2 : f32
  ptx.st global f32 [%p], %z : i64, f32
  ptx.ret
}
