// RUN: kaio-opt %s --split-input-file --ptx-pack-conversions --ptx-cleanup | FileCheck %s
// RUN: kaio-opt %s --split-input-file --ptx-pack-conversions --ptx-cleanup --mlir-print-op-generic | FileCheck %s --check-prefix=COUNT
// The sm_80 module, printed and assembled.
// RUN: kaio-opt %s --split-input-file --ptx-pack-conversions --ptx-cleanup > %t.mlir
// RUN: sed -n '1,/^\/\/ -----/p' %t.mlir | kaio-translate --mlir-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}

// Two round-to-nearest f32 -> bf16 (or f16) conversions packed into one
// 32-bit register become one cvt.rn.bf16x2.f32 (hi first, as PTX writes
// it). Guarded, saturating, ftz or other-rounding conversions, ones with
// other uses and mixed types stay.
module attributes {ptx.target = "sm_80", ptx.version = "7.0", ptx.address_size = 64 : i64} {
  // CHECK-LABEL: ptx.entry @pairs
  // CHECK-SAME: (%[[OUT:.*]]: i64, %[[X:.*]]: f32, %[[Y:.*]]: f32, %[[P:.*]]: i32)
  ptx.entry @pairs(%out: i64, %x: f32, %y: f32, %p: i32) {
    // CHECK: %[[B:.*]] = ptx.cvt_pack rn bf16x2 %[[Y]], %[[X]] : i32
    %a = ptx.cvt rn bf16 f32 %x : f32 -> bf16
    %b = ptx.cvt rn bf16 f32 %y : f32 -> bf16
    %ab = ptx.pack b32 %a, %b : bf16, bf16 -> i32
    // CHECK: %[[H:.*]] = ptx.cvt_pack rn f16x2 %[[X]], %[[Y]] : i32
    %c = ptx.cvt rn f16 f32 %y : f32 -> f16
    %d = ptx.cvt rn f16 f32 %x : f32 -> f16
    %cd = ptx.pack b32 %c, %d : f16, f16 -> i32
    // CHECK: ptx.st global b32 [%[[OUT]]], %[[B]]
    // CHECK: ptx.st global b32 [%[[OUT]] + 4], %[[H]]
    ptx.st global b32 [%out], %ab : i64, i32
    ptx.st global b32 [%out + 4], %cd : i64, i32
    ptx.ret
  }

  // CHECK-LABEL: ptx.entry @kept
  ptx.entry @kept(%out: i64, %x: f32, %y: f32, %p: i32) {
    %q = ptx.setp eq s32 %p, %p : i32
    // CHECK-NOT: ptx.cvt_pack
    // A guarded conversion.
    %a = ptx.cvt if %q rn bf16 f32 %x : f32 -> bf16
    %b = ptx.cvt rn bf16 f32 %y : f32 -> bf16
    %ab = ptx.pack b32 %a, %b : bf16, bf16 -> i32
    // Round toward zero; saturating; ftz.
    %c = ptx.cvt rz bf16 f32 %x : f32 -> bf16
    %cc = ptx.pack b32 %c, %b : bf16, bf16 -> i32
    %d = ptx.cvt rn sat f16 f32 %x : f32 -> f16
    %e = ptx.cvt rn f16 f32 %y : f32 -> f16
    %de = ptx.pack b32 %d, %e : f16, f16 -> i32
    %f = ptx.cvt rn ftz f16 f32 %x : f32 -> f16
    %fe = ptx.pack b32 %f, %e : f16, f16 -> i32
    // A conversion used twice (%b above, packed with a guarded one).
    // Mixed types.
    %g = ptx.cvt rn f16 f32 %y : f32 -> f16
    %h = ptx.cvt rn bf16 f32 %x : f32 -> bf16
    %gh = ptx.pack b32 %g, %h : f16, bf16 -> i32
    ptx.st global b32 [%out], %ab : i64, i32
    ptx.st global b32 [%out + 4], %cc : i64, i32
    ptx.st global b32 [%out + 8], %de : i64, i32
    ptx.st global b32 [%out + 12], %fe : i64, i32
    ptx.st global b32 [%out + 16], %gh : i64, i32
    ptx.ret
  }
}
// COUNT-COUNT-2: "ptx.cvt_pack"
// COUNT-NOT: "ptx.cvt_pack"
// PTX: cvt.rn.bf16x2.f32
// PTX: cvt.rn.f16x2.f32
// PTX-NOT: x2.f32

// -----

// Below sm_80 there is no packed conversion: nothing changes.
module attributes {ptx.target = "sm_75", ptx.version = "7.0", ptx.address_size = 64 : i64} {
  // CHECK-LABEL: ptx.entry @old
  // CHECK-NOT: ptx.cvt_pack
  // CHECK-COUNT-2: ptx.cvt rn f16 f32
  ptx.entry @old(%out: i64, %x: f32, %y: f32) {
    %a = ptx.cvt rn f16 f32 %x : f32 -> f16
    %b = ptx.cvt rn f16 f32 %y : f32 -> f16
    %ab = ptx.pack b32 %a, %b : f16, f16 -> i32
    ptx.st global b32 [%out], %ab : i64, i32
    ptx.ret
  }
}
