// RUN: kaio-opt %s --ptx-fold-address-offsets --ptx-cleanup | FileCheck %s
// RUN: kaio-opt %s --ptx-fold-address-offsets --ptx-cleanup | kaio-translate --mlir-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// Addresses that are a register plus constants (chains of add and sub)
// become [reg+imm] operands of ld, st, ldmatrix, stmatrix and cp.async's
// shared destination, so that the loads of one tile at constant steps
// share one address register; the adds go. Guarded adds, float adds,
// non-constant steps and the global source of cp.async stay.
module attributes {ptx.target = "sm_90", ptx.version = "8.0", ptx.address_size = 64 : i64} {
  // CHECK-LABEL: ptx.entry @fold
  // CHECK-SAME: (%[[P:.*]]: i64, %[[S:.*]]: i32, %[[N:.*]]: i32)
  ptx.entry @fold(%p: i64, %s: i32, %n: i32) {
    // CHECK: %[[Q:.*]] = ptx.setp
    %q = ptx.setp eq s32 %s, %n : i32
    %c16 = ptx.constant 16 : i32
    %c2048 = ptx.constant 2048 : i32
    %c8 = ptx.constant 8 : i64
    %a = ptx.add u32 %s, %c2048 : i32
    %b = ptx.add u32 %a, %c16 : i32
    %c = ptx.sub u32 %b, %c16 : i32
    // CHECK: ptx.ldmatrix [%[[S]] + 2048] : i32 -> i32, i32, i32, i32
    %m:4 = ptx.ldmatrix [%c] : i32 -> i32, i32, i32, i32
    // CHECK: ptx.ldmatrix trans [%[[S]] + 2064] : i32 -> i32, i32
    %t:2 = ptx.ldmatrix trans [%b] : i32 -> i32, i32
    // CHECK: ptx.stmatrix [%[[S]] + 2048], %{{.*}} : i32, i32
    ptx.stmatrix [%a], %m#0 : i32, i32
    // A constant on the left folds as well; an existing offset adds up.
    %g = ptx.add u64 %c8, %p : i64
    // CHECK: ptx.ld global f32 [%[[P]] + 24] : i64 -> f32
    %x = ptx.ld global f32 [%g + 16] : i64 -> f32
    // CHECK: ptx.st shared f32 [%[[S]] + 2064], %{{.*}} : i32, f32
    ptx.st shared f32 [%b], %x : i32, f32
    // CHECK: ptx.cp_async cg 16 [%[[S]] + 2048], [%[[G:.*]]] : i32
    // CHECK-NOT: 8]
    ptx.cp_async cg 16 [%a], [%g] : i32
    // Not folded: a non-constant step, a guarded add.
    // CHECK: %[[V:.*]] = ptx.add u32 %[[S]], %[[N]] : i32
    // CHECK: ptx.ld shared f32 [%[[V]]] : i32 -> f32
    %v = ptx.add u32 %s, %n : i32
    %y = ptx.ld shared f32 [%v] : i32 -> f32
    // CHECK: %[[W:.*]] = ptx.add if %[[Q]] u32 %[[S]], %{{.*}} : i32
    // CHECK: ptx.ld shared f32 [%[[W]]] : i32 -> f32
    %w = ptx.add if %q u32 %s, %c16 : i32
    %z = ptx.ld shared f32 [%w] : i32 -> f32
    ptx.st global f32 [%p], %y : i64, f32
    ptx.st global f32 [%p], %z : i64, f32
    ptx.ret
  }
}
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{.*}}, [%r{{[0-9]+}}+2048];
// PTX: cp.async.cg.shared.global [%r{{[0-9]+}}+2048], [%rd{{[0-9]+}}], 16;
