// The printed .version is the lowest the chip and the ops need, unless
// --ptx-version overrides it; an override below what is needed is an error.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_75 %s | FileCheck %s --check-prefix=SM75
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s --check-prefix=SM80
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_86 %s | FileCheck %s --check-prefix=SM86
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_89 %s | FileCheck %s --check-prefix=SM89
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90 %s | FileCheck %s --check-prefix=SM90
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_90a %s | FileCheck %s --check-prefix=SM90A
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_100a %s | FileCheck %s --check-prefix=SM100A
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_120 %s | FileCheck %s --check-prefix=SM120
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 --ptx-version=8.5 %s | FileCheck %s --check-prefix=OVERRIDE
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_80 --ptx-version=6.5 %s 2>&1 | FileCheck %s --check-prefix=TOOLOW
// RUN: not kaio-translate --mlir-to-ptx --ptx-chip=sm_80 --ptx-version=seven %s 2>&1 | FileCheck %s --check-prefix=BADVERSION
// RUN: %ptx-check %s sm_75 sm_80 sm_86 sm_89 sm_90 sm_90a sm_100a sm_120
// RUN: %ptx-check %s sm_80 sm_90 --ptx-version=8.5

// SM75:      .version 6.3
// SM75-NEXT: .target sm_75
// SM75-NEXT: .address_size 64
// SM80:      .version 7.0
// SM80-NEXT: .target sm_80
// SM86:      .version 7.1
// SM86-NEXT: .target sm_86
// SM89:      .version 7.8
// SM89-NEXT: .target sm_89
// SM90:      .version 7.8
// SM90-NEXT: .target sm_90
// SM90A:      .version 8.0
// SM90A-NEXT: .target sm_90a
// SM100A:      .version 8.6
// SM100A-NEXT: .target sm_100a
// SM120:      .version 8.7
// SM120-NEXT: .target sm_120
// OVERRIDE:      .version 8.5
// OVERRIDE-NEXT: .target sm_80

// TOOLOW: error: PTX ISA 6.5 is too old: sm_80 needs 7.0
// BADVERSION: error: invalid --ptx-version 'seven'; expected e.g. 8.0

ptx.entry @plain(%p: i64 {ptx.ptr = f32}) {
  %t = ptx.sreg tid.x : i32
  %x = ptx.cvt rn f32 u32 %t : i32 -> f32
  ptx.st global f32 [%p], %x : i64, f32
  ptx.ret
}
