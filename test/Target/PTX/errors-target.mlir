// Target errors: no chip at all, an unknown chip, and a chip below what an
// op needs (redux.sync needs sm_80).
// RUN: not kaio-translate --mlir-to-ptx %s 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_42 %s 2>&1 | FileCheck %s --check-prefix=BADCHIP
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_75 %s 2>&1 | FileCheck %s --check-prefix=OLDCHIP

// NOTARGET: error: module has no 'ptx.target' attribute and no chip was given
// NOTARGET-NOT: .visible .entry
// BADCHIP: error: unknown chip 'sm_42'
// BADCHIP-NOT: .visible .entry
ptx.entry @warp_sum(%a: i32) {
  // OLDCHIP: errors-target.mlir:[[@LINE+2]]:8: error: 'ptx.redux_sync' op requires sm_80 or newer, but the target is sm_75
  // OLDCHIP-NOT: .visible .entry
  %m = ptx.redux_sync add u32 %a, %a
  ptx.ret
}
