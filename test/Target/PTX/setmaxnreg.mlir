// setmaxnreg.inc/dec (sm_90a only, PTX 8.0): a producer warpgroup gives
// registers back, a consumer warpgroup takes more. `maxnreg` fixes the
// count at entry so that ptxas honours the instruction.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90a %s | FileCheck %s
// RUN: %ptx-check %s sm_90a
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s 2>&1 | FileCheck %s --check-prefix=SM90

// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90a
// CHECK-LABEL: .visible .entry warp_specialized(
// CHECK:      .maxnreg 128
ptx.entry @warp_specialized(%warpgroup: i32) attributes {maxnreg = 128 : i32} {
  %zero = ptx.constant 0 : i32
  %producer = ptx.setp eq u32 %warpgroup, %zero : i32
  // CHECK:      @%p1 setmaxnreg.dec.sync.aligned.u32 24;
  // CHECK-NEXT: @!%p1 setmaxnreg.inc.sync.aligned.u32 240;
  // SM90: error: 'ptx.setmaxnreg' op requires sm_90a (arch-specific), but the target is sm_90
  ptx.setmaxnreg if %producer dec 24
  ptx.setmaxnreg if not %producer inc 240
  ptx.ret
}
