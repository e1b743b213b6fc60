// RUN: kaio-opt %s --allow-unregistered-dialect --convert-arith-to-ptx --split-input-file | FileCheck %s
// RUN: kaio-opt %s --allow-unregistered-dialect --convert-arith-to-ptx="fast-math=1" --split-input-file | FileCheck %s --check-prefix=FAST

// Integers: one instruction each, signedness from the op.
// CHECK-LABEL: ptx.entry @integers
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32, %[[L:.*]]: i64)
ptx.entry @integers(%a: i32, %b: i32, %l: i64) {
  // CHECK: ptx.add s32 %[[A]], %[[B]] : i32
  // CHECK: ptx.sub s32 %[[A]], %[[B]] : i32
  // CHECK: ptx.mul lo s32 %[[A]], %[[B]] : i32
  // CHECK: ptx.div s32 %[[A]], %[[B]] : i32
  // CHECK: ptx.div u32 %[[A]], %[[B]] : i32
  // CHECK: ptx.rem s32 %[[A]], %[[B]] : i32
  // CHECK: ptx.rem u32 %[[A]], %[[B]] : i32
  // min/max are single instructions.
  // CHECK: ptx.max s32 %[[A]], %[[B]] : i32
  // CHECK: ptx.max u32 %[[A]], %[[B]] : i32
  // CHECK: ptx.min s32 %[[A]], %[[B]] : i32
  // CHECK: ptx.min u32 %[[A]], %[[B]] : i32
  // CHECK: ptx.and b32 %[[A]], %[[B]] : i32
  // CHECK: ptx.or b32 %[[A]], %[[B]] : i32
  // CHECK: ptx.xor b32 %[[A]], %[[B]] : i32
  // CHECK: ptx.shl b32 %[[A]], %[[B]] : i32
  // CHECK: ptx.shr s32 %[[A]], %[[B]] : i32
  // CHECK: ptx.shr u32 %[[A]], %[[B]] : i32
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %a, %b : i32
  %2 = arith.muli %a, %b : i32
  %3 = arith.divsi %a, %b : i32
  %4 = arith.divui %a, %b : i32
  %5 = arith.remsi %a, %b : i32
  %6 = arith.remui %a, %b : i32
  %7 = arith.maxsi %a, %b : i32
  %8 = arith.maxui %a, %b : i32
  %9 = arith.minsi %a, %b : i32
  %10 = arith.minui %a, %b : i32
  %11 = arith.andi %a, %b : i32
  %12 = arith.ori %a, %b : i32
  %13 = arith.xori %a, %b : i32
  %14 = arith.shli %a, %b : i32
  %15 = arith.shrsi %a, %b : i32
  %16 = arith.shrui %a, %b : i32
  // 64-bit shifts take a u32 amount.
  // CHECK: %[[AMT:.*]] = ptx.cvt u32 u64 %[[L]] : i64 -> i32
  // CHECK: ptx.shr s64 %[[L]], %[[AMT]] : (i64, i32) -> i64
  %17 = arith.shrsi %l, %l : i64
  // Comparisons.
  // CHECK: ptx.setp eq u32
  // CHECK: ptx.setp ne u32
  // CHECK: ptx.setp lt s32
  // CHECK: ptx.setp le s32
  // CHECK: ptx.setp gt s32
  // CHECK: ptx.setp ge s32
  // CHECK: ptx.setp lo u32
  // CHECK: ptx.setp ls u32
  // CHECK: ptx.setp hi u32
  // CHECK: ptx.setp hs u32
  %c0 = arith.cmpi eq, %a, %b : i32
  %c1 = arith.cmpi ne, %a, %b : i32
  %c2 = arith.cmpi slt, %a, %b : i32
  %c3 = arith.cmpi sle, %a, %b : i32
  %c4 = arith.cmpi sgt, %a, %b : i32
  %c5 = arith.cmpi sge, %a, %b : i32
  %c6 = arith.cmpi ult, %a, %b : i32
  %c7 = arith.cmpi ule, %a, %b : i32
  %c8 = arith.cmpi ugt, %a, %b : i32
  %c9 = arith.cmpi uge, %a, %b : i32
  // CHECK: ptx.selp b32 %[[A]], %[[B]], %{{.*}} : i32
  %s = arith.select %c2, %a, %b : i32
  // Width changes and index (64-bit).
  // CHECK: ptx.cvt s64 s32 %[[A]] : i32 -> i64
  // CHECK: ptx.cvt u64 u32 %[[A]] : i32 -> i64
  // CHECK: ptx.cvt u16 u64 %[[L]] : i64 -> i16
  // CHECK: ptx.cvt s64 s32 %[[A]] : i32 -> i64
  %e0 = arith.extsi %a : i32 to i64
  %e1 = arith.extui %a : i32 to i64
  %e2 = arith.trunci %l : i64 to i16
  %e3 = arith.index_cast %a : i32 to index
  // ceildivsi is expanded first into ops with a direct form.
  // CHECK: ptx.div s32 %[[A]], %[[B]] : i32
  // CHECK: ptx.mul lo s32
  // CHECK: ptx.selp b32
  %cd = arith.ceildivsi %a, %b : i32
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7, %c8, %c9, %s, %e0, %e1, %e2, %e3, %cd) : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i64, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i32, i64, i64, i16, index, i32) -> ()
  ptx.ret
}

// -----

// Unsigned division and remainder by a power of two are a shift and a mask
// (ptxas does not strength-reduce a divisor it sees in a register); signed
// ones and other divisors stay divisions.
// CHECK-LABEL: ptx.entry @pow2_divisors
// CHECK-SAME: (%[[A:.*]]: i32, %[[L:.*]]: i64)
// CHECK: %[[C3:.*]] = ptx.constant 3 : i32
// CHECK: ptx.shr u32 %[[A]], %[[C3]] : i32
// CHECK: %[[M:.*]] = ptx.constant 7 : i32
// CHECK: ptx.and b32 %[[A]], %[[M]] : i32
// CHECK: %[[C4:.*]] = ptx.constant 4 : i32
// CHECK: ptx.shr u64 %[[L]], %[[C4]] : (i64, i32) -> i64
// CHECK: %[[M64:.*]] = ptx.constant 15 : i64
// CHECK: ptx.and b64 %[[L]], %[[M64]] : i64
// CHECK: ptx.div s32
// CHECK: ptx.rem s32
// CHECK: ptx.div u32
// CHECK: ptx.rem u32
ptx.entry @pow2_divisors(%a: i32, %l: i64) {
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i64
  %c6 = arith.constant 6 : i32
  %0 = arith.divui %a, %c8 : i32
  %1 = arith.remui %a, %c8 : i32
  %2 = arith.divui %l, %c16 : i64
  %3 = arith.remui %l, %c16 : i64
  %4 = arith.divsi %a, %c8 : i32
  %5 = arith.remsi %a, %c8 : i32
  %6 = arith.divui %a, %c6 : i32
  %7 = arith.remui %a, %c6 : i32
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7) : (i32, i32, i64, i64, i32, i32, i32, i32) -> ()
  ptx.ret
}

// -----

// i8 lives in 16-bit registers. Ops whose low 8 bits do not depend on the
// upper bits (add, and, shl) use them as they are; division, comparison and
// right shifts first extend the operands (sign or zero); shift amounts take
// only the low byte.
// CHECK-LABEL: ptx.entry @i8
ptx.entry @i8(%a: i32, %b: i32) {
  // CHECK: %[[C:.*]] = ptx.constant -56 : i16
  // CHECK: %[[X:.*]] = ptx.cvt u8 u32 %{{.*}} : i32 -> i16
  // CHECK: %[[Y:.*]] = ptx.cvt u8 u32 %{{.*}} : i32 -> i16
  %c = arith.constant 200 : i8
  %x = arith.trunci %a : i32 to i8
  %y = arith.trunci %b : i32 to i8
  // CHECK: %[[S:.*]] = ptx.add s16 %[[X]], %[[Y]] : i16
  %0 = arith.addi %x, %y : i8
  // CHECK: %[[XS:.*]] = ptx.cvt s16 s8 %[[X]] : i16 -> i16
  // CHECK: %[[YS:.*]] = ptx.cvt s16 s8 %[[Y]] : i16 -> i16
  // CHECK: ptx.div s16 %[[XS]], %[[YS]] : i16
  %1 = arith.divsi %x, %y : i8
  // CHECK: %[[XU:.*]] = ptx.cvt u16 u8 %[[X]] : i16 -> i16
  // CHECK: %[[AMT:.*]] = ptx.cvt u32 u8 %[[S]] : i16 -> i32
  // CHECK: ptx.shr u16 %[[XU]], %[[AMT]] : (i16, i32) -> i16
  %2 = arith.shrui %x, %0 : i8
  // CHECK: %[[XU2:.*]] = ptx.cvt u16 u8 %[[X]] : i16 -> i16
  // CHECK: %[[YU2:.*]] = ptx.cvt u16 u8 %[[Y]] : i16 -> i16
  // CHECK: ptx.setp lo u16 %[[XU2]], %[[YU2]] : i16
  %3 = arith.cmpi ult, %x, %y : i8
  // CHECK: ptx.cvt u32 u8 %[[X]] : i16 -> i32
  %4 = arith.extui %x : i8 to i32
  // CHECK: ptx.cvt rn f32 s8 %[[X]] : i16 -> f32
  %5 = arith.sitofp %x : i8 to f32
  "test.use"(%c, %0, %1, %2, %3, %4, %5) : (i8, i8, i8, i8, i1, i32, f32) -> ()
  ptx.ret
}

// -----

// i1 is a predicate: logic ops, arithmetic modulo 2, eq/ne as xnor/xor,
// select as and/or, extension to 0/-1 (signed) or 0/1, truncation to the low
// bit.
// CHECK-LABEL: ptx.entry @i1
ptx.entry @i1(%a: i32, %b: i32) {
  // CHECK: %[[P:.*]] = ptx.setp lt s32
  // CHECK: %[[Q:.*]] = ptx.setp gt s32
  %p = arith.cmpi slt, %a, %b : i32
  %q = arith.cmpi sgt, %a, %b : i32
  // CHECK: %[[AND:.*]] = ptx.and pred %[[P]], %[[Q]] : i1
  // CHECK: ptx.or pred %[[P]], %[[Q]] : i1
  // CHECK: ptx.xor pred %[[P]], %[[Q]] : i1
  // CHECK: ptx.xor pred %[[P]], %[[Q]] : i1
  // CHECK: ptx.and pred %[[P]], %[[Q]] : i1
  %0 = arith.andi %p, %q : i1
  %1 = arith.ori %p, %q : i1
  %2 = arith.xori %p, %q : i1
  %3 = arith.addi %p, %q : i1
  %4 = arith.muli %p, %q : i1
  // CHECK: %[[NE:.*]] = ptx.xor pred %[[P]], %[[Q]] : i1
  // CHECK: ptx.not pred %[[NE]] : i1
  %5 = arith.cmpi eq, %p, %q : i1
  // CHECK: %[[NP:.*]] = ptx.not pred %[[P]] : i1
  // CHECK: %[[F:.*]] = ptx.and pred %[[NP]], %[[AND]] : i1
  // CHECK: %[[T:.*]] = ptx.and pred %[[P]], %[[Q]] : i1
  // CHECK: ptx.or pred %[[T]], %[[F]] : i1
  %6 = arith.select %p, %q, %0 : i1
  // CHECK: %[[ZERO:.*]] = ptx.constant 0 : i32
  // CHECK: %[[ONES:.*]] = ptx.constant -1 : i32
  // CHECK: ptx.selp b32 %[[ONES]], %[[ZERO]], %[[P]] : i32
  %7 = arith.extsi %p : i1 to i32
  // CHECK: %[[LOW:.*]] = ptx.and b32 %{{.*}}, %{{.*}} : i32
  // CHECK: ptx.setp ne b32 %[[LOW]], %{{.*}} : i32
  %8 = arith.trunci %a : i32 to i1
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8) : (i1, i1, i1, i1, i1, i1, i1, i32, i1) -> ()
  ptx.ret
}

// -----

// Floats: f32/f64 get an explicit .rn unless contraction is allowed, which
// keeps ptxas from fusing them into fma. Division is div.rn, or div.approx
// under fast-math (f32 only; f64 stays div.rn). f16 divides in f32.
// CHECK-LABEL: ptx.entry @floats
// FAST-LABEL: ptx.entry @floats
ptx.entry @floats(%a: f32, %b: f32, %h: f16, %g: f16, %d: f64) {
  // CHECK: ptx.add rn f32
  // CHECK: ptx.add f32
  // CHECK: ptx.sub rn f32
  // CHECK: ptx.mul rn f32
  // maxnumf/minnumf return the non-NaN operand, as PTX max/min do.
  // CHECK: ptx.max f32
  // CHECK: ptx.min f32
  // CHECK: ptx.neg f32
  // FAST: ptx.add f32
  // FAST: ptx.add f32
  // FAST: ptx.sub f32
  // FAST: ptx.mul f32
  %0 = arith.addf %a, %b : f32
  %1 = arith.addf %a, %b fastmath<contract> : f32
  %2 = arith.subf %a, %b : f32
  %3 = arith.mulf %a, %b : f32
  %4 = arith.maxnumf %a, %b : f32
  %5 = arith.minnumf %a, %b : f32
  %6 = arith.negf %a : f32
  // CHECK: ptx.div rn f32
  // FAST: ptx.div approx f32
  %7 = arith.divf %a, %b : f32
  // CHECK: ptx.div rn f64
  // FAST: ptx.div rn f64
  %8 = arith.divf %d, %d : f64
  // CHECK: %[[HA:.*]] = ptx.cvt f32 f16 %{{.*}} : f16 -> f32
  // CHECK: %[[HB:.*]] = ptx.cvt f32 f16 %{{.*}} : f16 -> f32
  // CHECK: %[[Q:.*]] = ptx.div rn f32 %[[HA]], %[[HB]] : f32
  // CHECK: ptx.cvt rn f16 f32 %[[Q]] : f32 -> f16
  // FAST: ptx.div approx f32
  %9 = arith.divf %h, %g : f16
  // A reciprocal approximation allowed (arcp): div.full, within 2 ulp,
  // with or without fast-math; f16 through f32.
  // CHECK: ptx.div full f32
  // FAST: ptx.div full f32
  %30 = arith.divf %a, %b fastmath<arcp> : f32
  // CHECK: ptx.div full f32
  // CHECK: ptx.cvt rn f16 f32
  // FAST: ptx.div full f32
  %31 = arith.divf %h, %g fastmath<arcp> : f16
  // CHECK: ptx.add rn f16
  %10 = arith.addf %h, %g : f16
  // maximumf: IEEE maximum, NaN if either is NaN, and -0 < +0 (for equal
  // operands the bitwise and picks +0).
  // CHECK: %[[M:.*]] = ptx.max f32 %[[X:.*]], %[[Y:.*]] : f32
  // CHECK: %[[XI:.*]] = ptx.mov b32 %[[X]] : f32 -> i32
  // CHECK: %[[YI:.*]] = ptx.mov b32 %[[Y]] : f32 -> i32
  // CHECK: %[[AND:.*]] = ptx.and b32 %[[XI]], %[[YI]] : i32
  // CHECK: %[[Z:.*]] = ptx.mov b32 %[[AND]] : i32 -> f32
  // CHECK: %[[EQ:.*]] = ptx.setp eq f32 %[[X]], %[[Y]] : f32
  // CHECK: %[[R:.*]] = ptx.selp f32 %[[Z]], %[[M]], %[[EQ]] : f32
  // CHECK: %[[NAN:.*]] = ptx.constant 0x7FC00000 : f32
  // CHECK: %[[ISNAN:.*]] = ptx.setp nan f32 %[[X]], %[[Y]] : f32
  // CHECK: ptx.selp f32 %[[NAN]], %[[R]], %[[ISNAN]] : f32
  %11 = arith.maximumf %a, %b : f32
  // CHECK: ptx.cvt f64 f32 %{{.*}} : f32 -> f64
  // CHECK: ptx.cvt rn f16 f64 %{{.*}} : f64 -> f16
  // CHECK: ptx.cvt rzi s32 f32 %{{.*}} : f32 -> i32
  // CHECK: ptx.cvt rzi u64 f64 %{{.*}} : f64 -> i64
  // CHECK: ptx.cvt rn f32 u32 %{{.*}} : i32 -> f32
  // CHECK: ptx.mov b32 %{{.*}} : f32 -> i32
  %12 = arith.extf %a : f32 to f64
  %13 = arith.truncf %d : f64 to f16
  %14 = arith.fptosi %a : f32 to i32
  %15 = arith.fptoui %d : f64 to i64
  %16 = arith.uitofp %14 : i32 to f32
  %17 = arith.bitcast %a : f32 to i32
  // CHECK: ptx.selp b16 %{{.*}}, %{{.*}}, %{{.*}} : f16
  %c = arith.cmpf olt, %a, %b : f32
  %18 = arith.select %c, %h, %g : f16
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %30, %31) : (f32, f32, f32, f32, f32, f32, f32, f32, f64, f16, f16, f32, f64, f16, i32, i64, f32, i32, f16, f32, f16) -> ()
  ptx.ret
}

// -----

// cmpf: ordered predicates are PTX's plain ones (false on NaN), unordered
// ones the `u` variants; ord/uno are num/nan; false/true are constants.
// CHECK-LABEL: ptx.entry @cmpf
ptx.entry @cmpf(%a: f32, %b: f32) {
  // CHECK: ptx.constant false
  // CHECK: ptx.setp eq f32
  // CHECK: ptx.setp gt f32
  // CHECK: ptx.setp ge f32
  // CHECK: ptx.setp lt f32
  // CHECK: ptx.setp le f32
  // CHECK: ptx.setp ne f32
  // CHECK: ptx.setp num f32
  // CHECK: ptx.setp equ f32
  // CHECK: ptx.setp gtu f32
  // CHECK: ptx.setp geu f32
  // CHECK: ptx.setp ltu f32
  // CHECK: ptx.setp leu f32
  // CHECK: ptx.setp neu f32
  // CHECK: ptx.setp nan f32
  // CHECK: ptx.constant true
  %0 = arith.cmpf false, %a, %b : f32
  %1 = arith.cmpf oeq, %a, %b : f32
  %2 = arith.cmpf ogt, %a, %b : f32
  %3 = arith.cmpf oge, %a, %b : f32
  %4 = arith.cmpf olt, %a, %b : f32
  %5 = arith.cmpf ole, %a, %b : f32
  %6 = arith.cmpf one, %a, %b : f32
  %7 = arith.cmpf ord, %a, %b : f32
  %8 = arith.cmpf ueq, %a, %b : f32
  %9 = arith.cmpf ugt, %a, %b : f32
  %10 = arith.cmpf uge, %a, %b : f32
  %11 = arith.cmpf ult, %a, %b : f32
  %12 = arith.cmpf ule, %a, %b : f32
  %13 = arith.cmpf une, %a, %b : f32
  %14 = arith.cmpf uno, %a, %b : f32
  %15 = arith.cmpf true, %a, %b : f32
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15) : (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) -> ()
  ptx.ret
}

// -----

// bf16 computes in f32 (the bf16 bits are the high half of an f32) and
// rounds once; negation flips the sign bit. Conversions between bf16 and
// integers or f64, which need sm_90 as one cvt, go through f32: wide sources
// are first rounded to odd (cvt.rz, then the lowest bit set if inexact) so
// the final rounding to bf16 is correct.
// CHECK-LABEL: ptx.entry @bf16
// CHECK-SAME: (%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %[[I:.*]]: i32, %[[D:.*]]: f64, %[[S:.*]]: i16, %[[F:.*]]: f32)
ptx.entry @bf16(%x: bf16, %y: bf16, %i: i32, %d: f64, %s: i16, %f: f32) {
  // CHECK: %[[Z:.*]] = ptx.constant 0 : i16
  // CHECK: %[[XB:.*]] = ptx.pack b32 %[[Z]], %[[X]] : i16, bf16 -> i32
  // CHECK: %[[XW:.*]] = ptx.mov b32 %[[XB]] : i32 -> f32
  // CHECK: %[[YW:.*]] = ptx.mov b32 %{{.*}} : i32 -> f32
  // CHECK: %[[P:.*]] = ptx.mul rn f32 %[[XW]], %[[YW]] : f32
  // CHECK: ptx.cvt rn bf16 f32 %[[P]] : f32 -> bf16
  %0 = arith.mulf %x, %y : bf16
  // CHECK: ptx.div rn f32
  // CHECK: ptx.cvt rn bf16 f32
  %1 = arith.divf %x, %y : bf16
  // CHECK: ptx.div full f32
  // CHECK: ptx.cvt rn bf16 f32
  %20 = arith.divf %x, %y fastmath<arcp> : bf16
  // CHECK: ptx.setp nan f32
  %2 = arith.cmpf uno, %x, %y : bf16
  // CHECK: %[[SIGN:.*]] = ptx.constant -0.000000e+00 : bf16
  // CHECK: ptx.xor b16 %[[X]], %[[SIGN]] : bf16
  %3 = arith.negf %x : bf16
  // CHECK: ptx.cvt rn bf16 f32 %[[F]] : f32 -> bf16
  %4 = arith.truncf %f : f32 to bf16
  // i32 -> bf16: round to odd in f32, then to bf16.
  // CHECK: %[[RZ:.*]] = ptx.cvt rz f32 s32 %[[I]] : i32 -> f32
  // CHECK: %[[BACK:.*]] = ptx.cvt rzi s32 f32 %[[RZ]] : f32 -> i32
  // CHECK: %[[INEXACT:.*]] = ptx.setp ne b32 %[[BACK]], %[[I]] : i32
  // CHECK: %[[BITS:.*]] = ptx.mov b32 %[[RZ]] : f32 -> i32
  // CHECK: %[[STICKY:.*]] = ptx.selp b32 %{{.*}}, %{{.*}}, %[[INEXACT]] : i32
  // CHECK: %[[ODD:.*]] = ptx.or b32 %[[BITS]], %[[STICKY]] : i32
  // CHECK: %[[ODDF:.*]] = ptx.mov b32 %[[ODD]] : i32 -> f32
  // CHECK: ptx.cvt rn bf16 f32 %[[ODDF]] : f32 -> bf16
  %5 = arith.sitofp %i : i32 to bf16
  // i16 -> bf16: exact in f32.
  // CHECK: %[[SF:.*]] = ptx.cvt rn f32 u16 %[[S]] : i16 -> f32
  // CHECK: ptx.cvt rn bf16 f32 %[[SF]] : f32 -> bf16
  %6 = arith.uitofp %s : i16 to bf16
  // bf16 -> i32: widen exactly, then truncate.
  // CHECK: %[[W:.*]] = ptx.mov b32 %{{.*}} : i32 -> f32
  // CHECK: ptx.cvt rzi s32 f32 %[[W]] : f32 -> i32
  %7 = arith.fptosi %x : bf16 to i32
  // f64 -> bf16: round to odd in f32.
  // CHECK: %[[DZ:.*]] = ptx.cvt rz f32 f64 %[[D]] : f64 -> f32
  // CHECK: %[[DB:.*]] = ptx.cvt f64 f32 %[[DZ]] : f32 -> f64
  // CHECK: ptx.setp ne f64 %[[DB]], %[[D]] : f64
  // CHECK: ptx.or b32
  // CHECK: ptx.cvt rn bf16 f32
  %8 = arith.truncf %d : f64 to bf16
  // bf16 -> f64: exact through f32.
  // CHECK: %[[E:.*]] = ptx.mov b32 %{{.*}} : i32 -> f32
  // CHECK: ptx.cvt f64 f32 %[[E]] : f32 -> f64
  %9 = arith.extf %x : bf16 to f64
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %20) : (bf16, bf16, i1, bf16, bf16, bf16, bf16, i32, bf16, f64, bf16) -> ()
  ptx.ret
}

// -----

// On sm_80 and later (the module's ptx.target, set by convert-kaio-to-ptx),
// IEEE maximum/minimum of f32 is one max/min.NaN (NaN if either is; the PTX
// ISA orders +0.0 above -0.0); f16 and bf16 widen to it exactly and narrow
// back; f64 has no .NaN form and keeps the explicit sequence.
// CHECK-LABEL: ptx.entry @ieee_min_max_sm80
// CHECK: ptx.max NaN f32 %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: ptx.min NaN f32 %{{.*}}, %{{.*}} : f32
// CHECK: ptx.max NaN f32
// CHECK-NEXT: ptx.cvt rn bf16 f32
// CHECK: ptx.max f64
// CHECK: ptx.setp nan f64
module attributes {ptx.target = "sm_80"} {
ptx.entry @ieee_min_max_sm80(%a: f32, %b: f32, %x: bf16, %y: bf16, %d: f64,
                             %e: f64) {
  %0 = arith.maximumf %a, %b : f32
  %1 = arith.minimumf %a, %b : f32
  %2 = arith.maximumf %x, %y : bf16
  %3 = arith.maximumf %d, %e : f64
  "test.use"(%0, %1, %2, %3) : (f32, f32, bf16, f64) -> ()
  ptx.ret
}
}

// -----

// sm_75 has no .NaN form: the explicit sequence.
// CHECK-LABEL: ptx.entry @ieee_max_sm75
// CHECK: ptx.max f32
// CHECK-NOT: NaN
// CHECK: ptx.setp nan f32
module attributes {ptx.target = "sm_75"} {
ptx.entry @ieee_max_sm75(%a: f32, %b: f32) {
  %0 = arith.maximumf %a, %b : f32
  "test.use"(%0) : (f32) -> ()
  ptx.ret
}
}
