// A whole tensor-core kernel for one warp: C = A * B with A 16x16 f16
// row-major, B 16x8 f16 row-major and C 16x8 f32 row-major, all in global
// memory.
//   1. cp.async copies A (512 bytes, 16 per lane, .cg) and B (256 bytes,
//      8 per lane, .ca) into shared memory; wait_group 0 + bar.sync make
//      them visible to the warp.
//   2. ldmatrix.x4 loads A's fragment. Matrix i (rows from lanes 8i..8i+7)
//      is the 8x8 block at rows 8*(i%2), columns 8*(i/2), which is where
//      mma.m16n8k16 wants a0..a3, so lane l points at row l%16, column
//      8*(l/16): sA + (l%16)*32 + (l/16)*16 bytes.
//   3. ldmatrix.x2.trans loads B's fragment from the row-major tile: matrix
//      j holds k rows 8j..8j+7, and .trans hands lane l the elements
//      B[8j + 2(l%4) + {0,1}][l/4], which is b_j. Lane l points at k row
//      l%16: sB + (l%16)*16 bytes (lanes 16..31 repeat valid addresses).
//   4. mma.sync.m16n8k16.row.col.f32.f16.f16.f32 with C = 0.
//   5. d0,d1 are C[l/4][2(l%4) + {0,1}] and d2,d3 the same 8 rows lower:
//      float offset 8*(l/4) + 2*(l%4) = 2l, so lane l stores two v2.f32 at
//      byte offsets 8l and 8l + 256.
// REQUIRES: ptxas
// RUN: kaio-translate --mlir-to-ptx --ptx-chip=sm_80 %s | FileCheck %s
// RUN: %ptx-check %s sm_80 sm_86 sm_90 sm_90a sm_100a

ptx.var shared @sA : b16 [256] align 16
ptx.var shared @sB : b16 [128] align 16

// CHECK-LABEL: // kaio.kernel mma_tile(ptr<const f16>,ptr<const f16>,ptr<f32>)
ptx.entry @mma_tile(%a: i64 {ptx.ptr = f16, ptx.readonly, ptx.align = 16},
                    %b: i64 {ptx.ptr = f16, ptx.readonly, ptx.align = 16},
                    %c: i64 {ptx.ptr = f32, ptx.align = 16})
    attributes {reqntid = array<i32: 32>} {
  %lane = ptx.sreg laneid : i32
  %sA = ptx.addressof @sA : i32
  %sB = ptx.addressof @sB : i32
  %ga = ptx.cvta to global %a : i64 -> i64
  %gb = ptx.cvta to global %b : i64 -> i64
  %gc = ptx.cvta to global %c : i64 -> i64

  // 1. Global -> shared.
  %c16 = ptx.constant 16 : i32
  %c8 = ptx.constant 8 : i32
  %offA32 = ptx.mul lo u32 %lane, %c16 : i32
  %offA64 = ptx.mul wide u32 %lane, %c16 : (i32, i32) -> i64
  %dstA = ptx.add u32 %sA, %offA32 : i32
  %srcA = ptx.add s64 %ga, %offA64 : i64
  ptx.cp_async cg 16 [%dstA], [%srcA] : i32
  %offB32 = ptx.mul lo u32 %lane, %c8 : i32
  %offB64 = ptx.mul wide u32 %lane, %c8 : (i32, i32) -> i64
  %dstB = ptx.add u32 %sB, %offB32 : i32
  %srcB = ptx.add s64 %gb, %offB64 : i64
  ptx.cp_async ca 8 [%dstB], [%srcB] : i32
  ptx.cp_async_commit_group
  ptx.cp_async_wait_group 0
  ptx.bar_sync 0

  // 2. A fragment: sA + (lane & 15) * 32 + (lane >> 4) * 16.
  %c15 = ptx.constant 15 : i32
  %c4 = ptx.constant 4 : i32
  %c32 = ptx.constant 32 : i32
  %row = ptx.and b32 %lane, %c15 : i32
  %half = ptx.shr u32 %lane, %c4 : i32
  %rowOffA = ptx.mul lo u32 %row, %c32 : i32
  %colOffA = ptx.mul lo u32 %half, %c16 : i32
  %rowA = ptx.add u32 %sA, %rowOffA : i32
  %ptrA = ptx.add u32 %rowA, %colOffA : i32
  %fa:4 = ptx.ldmatrix [%ptrA] : i32 -> i32, i32, i32, i32

  // 3. B fragment: sB + (lane & 15) * 16, transposed.
  %rowOffB = ptx.mul lo u32 %row, %c16 : i32
  %ptrB = ptx.add u32 %sB, %rowOffB : i32
  %fb:2 = ptx.ldmatrix trans [%ptrB] : i32 -> i32, i32

  // 4. D = A * B + 0.
  %zero = ptx.constant 0.0 : f32
  %d:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32
      {%fa#0, %fa#1, %fa#2, %fa#3}, {%fb#0, %fb#1},
      {%zero, %zero, %zero, %zero}
      : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32)
      -> f32, f32, f32, f32

  // 5. C rows lane/4 and lane/4 + 8, columns 2*(lane%4) + {0, 1}.
  %offC = ptx.mul wide u32 %lane, %c8 : (i32, i32) -> i64
  %ptrC = ptx.add s64 %gc, %offC : i64
  ptx.st global f32 [%ptrC], %d#0, %d#1 : i64, f32, f32
  ptx.st global f32 [%ptrC + 256], %d#2, %d#3 : i64, f32, f32
  ptx.ret
}
