// RUN: kaio-opt %s --ptx-check-wgmma-reads --split-input-file --verify-diagnostics
// RUN: not kaio-translate --mlir-to-ptx --split-input-file %s 2>&1 | FileCheck %s --check-prefix=PRINT

// A wgmma's results are written when its group completes: reading them
// before a wgmma.wait_group that retires the group is undefined in PTX (the
// interpreter would give the final values). The printer refuses too.

// Read right after the commit, before any wait.
module attributes {ptx.target = "sm_90a"} {
ptx.entry @early_read(%adesc: i64, %bdesc: i64, %out: i64)
    attributes {reqntid = array<i32: 128>} {
  %z = ptx.constant 0.0 : f32
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%z, %z, %z, %z},
      %adesc, %bdesc scale_d_imm 0 : f32
  ptx.wgmma_commit_group
  // expected-error @+1 {{reads a wgmma result before a wgmma.wait_group retires it}}
  %x = ptx.add rn f32 %d#0, %d#1 : f32
  ptx.wgmma_wait_group 0
  ptx.st global f32 [%out], %x : i64, f32
  ptx.ret
}
}
// PRINT: error: reads a wgmma result before a wgmma.wait_group retires it

// -----

// wait_group 1 retires all but the newest group: the older group's results
// are readable, the newer one's not yet.
module attributes {ptx.target = "sm_90a"} {
ptx.entry @wait_one(%adesc: i64, %bdesc: i64, %out: i64)
    attributes {reqntid = array<i32: 128>} {
  %z = ptx.constant 0.0 : f32
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%z, %z, %z, %z},
      %adesc, %bdesc scale_d_imm 0 : f32
  ptx.wgmma_commit_group
  %e:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%z, %z, %z, %z},
      %adesc, %bdesc scale_d_imm 0 : f32
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 1
  %ok = ptx.add rn f32 %d#0, %d#1 : f32
  // expected-error @+1 {{reads a wgmma result before a wgmma.wait_group retires it}}
  %bad = ptx.add rn f32 %e#0, %ok : f32
  ptx.wgmma_wait_group 0
  ptx.st global f32 [%out], %bad : i64, f32
  ptx.ret
}
}

// -----

// Through a block argument, on one path of two: the join keeps the later
// retirement. A wgmma accumulating into an in-flight result is fine (the
// GEMM main loop), as is passing it to a block on a branch.
module attributes {ptx.target = "sm_90a"} {
ptx.entry @through_a_join(%adesc: i64, %bdesc: i64, %n: i32, %out: i64)
    attributes {reqntid = array<i32: 128>} {
  %z = ptx.constant 0.0 : f32
  %zero = ptx.constant 0 : i32
  %p = ptx.setp ne u32 %n, %zero : i32
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%z, %z, %z, %z},
      %adesc, %bdesc scale_d_imm 0 : f32
  %e:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%d#0, %d#1, %d#2, %d#3},
      %adesc, %bdesc : f32
  ptx.wgmma_commit_group
  ptx.cond_bra %p, ^join(%e#0 : f32), ^join(%z : f32)
^join(%v: f32):
  // expected-error @+1 {{reads a wgmma result before a wgmma.wait_group retires it}}
  %w = ptx.mul rn f32 %v, %v : f32
  ptx.wgmma_wait_group 0
  %u = ptx.mul rn f32 %v, %w : f32
  ptx.st global f32 [%out], %u : i64, f32
  ptx.ret
}
}
