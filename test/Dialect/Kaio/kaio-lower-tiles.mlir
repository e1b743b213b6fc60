// RUN: kaio-opt %s --kaio-lower-tiles --split-input-file | FileCheck %s
// RUN: kaio-opt %s --kaio-lower-tiles --cse --split-input-file | FileCheck %s --check-prefix=XOR

// Each thread copies 16-byte chunks of the 32x16 f16 tile (2 per row) with
// cp.async, zero filled past the matrix edge (src-size < 16); when the source
// is not 16-byte aligned it copies element by element with masked loads.
// The 64 chunks go to the first 64 of the block's 128 threads: straight-line
// code for exactly block_size threads, which the kernel then requires.
// CHECK-LABEL: kaio.kernel @async_copy
// CHECK-SAME: (%[[SRC:.*]]: !kaio.ptr<f16>, %[[ROW:.*]]: i32, %[[COL:.*]]: i32, %[[M:.*]]: i32, %[[N:.*]]: i32)
// CHECK-SAME: kaio.exact_block_size
// CHECK: %[[TILE:.*]] = kaio.shared_alloc
// CHECK: %[[BASE:.*]] = kaio.ptr_to_int %[[SRC]]
// CHECK: %[[C16:.*]] = arith.constant 16 : i64
// CHECK: arith.remui %[[BASE]], %[[C16]] : i64
// Base, leading dimension and first column all 16-byte aligned:
// CHECK: arith.andi
// CHECK: %[[ALIGNED:.*]] = arith.andi
// CHECK-NEXT: %[[TID:.*]] = kaio.thread_id x
// CHECK-NOT: kaio.block_dim
// CHECK: %[[TOTAL:.*]] = arith.constant 64 : i32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[TID]], %[[TOTAL]] : i32
// Which chunk a thread copies, and where it lands, depend on the thread
// only: outside the guard, so that LICM can hoist them out of a K loop.
// CHECK: %[[R:.*]] = arith.divui %[[TID]], %{{.*}} : i32
// CHECK: %[[CC:.*]] = arith.remui %[[TID]], %{{.*}} : i32
// CHECK: %[[TCOL:.*]] = arith.muli %[[CC]], %{{.*}} : i32
// The address is the tile's base plus a layout offset of the indices alone.
// CHECK: %[[BASE:.*]] = kaio.shared_address %[[TILE]][%{{.*}}, %{{.*}}]
// CHECK: %[[OFF:.*]] = kaio.tile_offset [%[[R]], %[[TCOL]]] : !kaio.smem<32x16xf16, <row_major, pad = 8>>
// CHECK: %[[SADDR:.*]] = arith.addi %[[BASE]], %[[OFF]] : i32
// CHECK: scf.if %[[IN]] {
// CHECK:   %[[GR:.*]] = arith.addi %[[ROW]], %[[R]] : i32
// CHECK:   %[[GC:.*]] = arith.addi %[[COL]], %[[TCOL]] : i32
// CHECK:   %[[ROWOK:.*]] = arith.cmpi slt, %[[GR]], %[[M]] : i32
// CHECK:   scf.if %[[ALIGNED]] {
// CHECK:     %[[LEFT:.*]] = arith.subi %[[N]], %[[GC]] : i32
// CHECK:     arith.minsi %[[LEFT]]
// CHECK:     %[[VALID:.*]] = arith.select %[[ROWOK]]
// CHECK:     %[[BYTES:.*]] = arith.muli %[[VALID]]
// CHECK:     %[[PTR:.*]] = kaio.ptr_add %[[SRC]]
// CHECK:     %[[GADDR:.*]] = kaio.ptr_to_int %[[PTR]]
// CHECK:     ptx.cp_async cg 16 [%[[SADDR]]], [%[[GADDR]]], %[[BYTES]] : i32
// CHECK:   } else {
// CHECK:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-COUNT-8: kaio.load %[[SRC]][%{{.*}}] : <f16>, i64 -> f16 mask %{{.*}} else %[[ZERO]]
// CHECK:   }
// CHECK: }
// CHECK-NOT: scf.for
// CHECK: ptx.cp_async_commit_group
// CHECK: ptx.cp_async_wait_group 1
// CHECK-NOT: kaio.async
kaio.kernel @async_copy(%p: !kaio.ptr<f16>, %row: i32, %col: i32, %m: i32, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %s = kaio.shared_alloc : !kaio.smem<32x16xf16, #kaio.layout<row_major, pad = 8>>
  %t = kaio.async_copy %p[%row, %col] bounds [%m, %n] ld %n to %s
      : !kaio.ptr<f16>, !kaio.smem<32x16xf16, #kaio.layout<row_major, pad = 8>>
  kaio.async_wait %t {pending = 1 : i32}
  kaio.return
}

// -----

// `aligned`: no run-time alignment test and no element-wise path. A 64x64
// f16 tile is 512 chunks: four full rounds of a 16x8 block (linear thread id
// tid.x + 16 tid.y), none guarded.
// CHECK-LABEL: kaio.kernel @async_copy_aligned
// CHECK-SAME: kaio.exact_block_size
// CHECK-NOT: arith.remui %{{.*}} : i64
// CHECK: %[[TX:.*]] = kaio.thread_id x
// CHECK: %[[TY:.*]] = kaio.thread_id y
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[Y16:.*]] = arith.muli %[[TY]], %[[C16]]
// CHECK: %[[TID:.*]] = arith.addi %[[TX]], %[[Y16]]
// CHECK: arith.constant 128 : i32
// CHECK: arith.constant 256 : i32
// CHECK: arith.constant 384 : i32
// A tile wholly inside the matrix takes four full chunks with no bounds
// arithmetic; an edge tile zero-fills past the edge (src-size).
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-4: ptx.cp_async cg 16 [%{{.*}}], [%{{.*}}] : i32
// CHECK: } else {
// CHECK-COUNT-4: ptx.cp_async cg 16 [%{{.*}}], [%{{.*}}], %{{.*}} : i32
// CHECK-NOT: ptx.cp_async cg
// CHECK-NOT: kaio.load
// CHECK: ptx.cp_async_commit_group
kaio.kernel @async_copy_aligned(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 16, 8>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<64x64xf16, #kaio.layout<row_major, pad = 8>>
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s aligned
      : !kaio.ptr<f16>, !kaio.smem<64x64xf16, #kaio.layout<row_major, pad = 8>>
  kaio.return
}

// -----

// `rows [16, 16]`: 16 rows of the source into rows 16 .. 31 of a 64-row
// tile (one page of a paged cache, say): 16 x 8 chunks, one round of the
// 128 threads; each chunk's shared address is the whole-tile one's plus 16
// padded rows (16 x 144 bytes), and a copy is interior when its 16 rows
// are inside the matrix.
// CHECK-LABEL: kaio.kernel @async_copy_rows
// CHECK: %[[ROW:.*]] = arith.constant 5 : i32
// CHECK: arith.constant 2304 : i32
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[END:.*]] = arith.addi %[[ROW]], %[[C16]] : i32
// CHECK: arith.cmpi sle, %[[END]], %arg1 : i32
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-1: ptx.cp_async cg 16 [%{{.*}}], [%{{.*}}] : i32
// CHECK-NEXT: } else {
// CHECK-COUNT-1: ptx.cp_async cg 16 [%{{.*}}], [%{{.*}}], %{{.*}} : i32
// CHECK-NEXT: }
// CHECK-NEXT: ptx.cp_async_commit_group
kaio.kernel @async_copy_rows(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 16, 8>} {
  %c0 = arith.constant 0 : i32
  %c5 = arith.constant 5 : i32
  %s = kaio.shared_alloc : !kaio.smem<64x64xf16, #kaio.layout<row_major, pad = 8>>
  %t = kaio.async_copy %p[%c5, %c0] bounds [%n, %n] ld %n to %s rows [16, 16] aligned
      : !kaio.ptr<f16>, !kaio.smem<64x64xf16, #kaio.layout<row_major, pad = 8>>
  kaio.return
}

// -----

// `kaio.aligned_copies` on the kernel makes every copy in it `aligned` (a
// library variant the host picks after checking the arguments): the same
// code as above, no alignment test, no element-wise path.
// CHECK-LABEL: kaio.kernel @kernel_aligned_copies
// CHECK-NOT: arith.remui %{{.*}} : i64
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-4: ptx.cp_async cg 16 [%{{.*}}], [%{{.*}}] : i32
// CHECK: } else {
// CHECK-COUNT-4: ptx.cp_async cg 16 [%{{.*}}], [%{{.*}}], %{{.*}} : i32
// CHECK-NOT: kaio.load
// CHECK: ptx.cp_async_commit_group
kaio.kernel @kernel_aligned_copies(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 16, 8>, kaio.aligned_copies} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<64x64xf16, #kaio.layout<row_major, pad = 8>>
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
      : !kaio.ptr<f16>, !kaio.smem<64x64xf16, #kaio.layout<row_major, pad = 8>>
  kaio.return
}

// -----

// More than 16 rounds of the block keep a loop over the run-time thread
// count, and the kernel keeps .maxntid semantics.
// CHECK-LABEL: kaio.kernel @async_copy_loop
// CHECK-NOT: kaio.exact_block_size
// CHECK: kaio.block_dim z
// CHECK: scf.for
// CHECK: ptx.cp_async cg 16
kaio.kernel @async_copy_loop(%p: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<64x64xf32, #kaio.layout<row_major>>
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s aligned
      : !kaio.ptr<f32>, !kaio.smem<64x64xf32, #kaio.layout<row_major>>
  kaio.return
}

// -----

// Rows that start 68 bytes apart (pad = 1 f32) keep only 4-byte alignment:
// 4-byte cp.async.ca chunks, 16 per row: 256 chunks, two rounds of 128
// (in the interior path and in the edge path).
// CHECK-LABEL: kaio.kernel @async_copy_small_chunks
// CHECK: arith.constant 4 : i64
// CHECK-COUNT-2: ptx.cp_async ca 4 [%{{.*}}], [%{{.*}}] : i32
// CHECK-COUNT-2: ptx.cp_async ca 4 [%{{.*}}], [%{{.*}}], %{{.*}} : i32
// CHECK-NOT: ptx.cp_async ca
kaio.kernel @async_copy_small_chunks(%p: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 1>>
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
      : !kaio.ptr<f32>, !kaio.smem<16x16xf32, #kaio.layout<row_major, pad = 1>>
  kaio.return
}

// -----

// 8-byte rows: 8-byte chunks.
// CHECK-LABEL: kaio.kernel @async_copy_8_byte_rows
// CHECK: ptx.cp_async ca 8
kaio.kernel @async_copy_8_byte_rows(%p: !kaio.ptr<f16>, %n: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %s = kaio.shared_alloc : !kaio.smem<16x4xf16, #kaio.layout<row_major>>
  %t = kaio.async_copy %p[%c0, %c0] bounds [%n, %n] ld %n to %s
      : !kaio.ptr<f16>, !kaio.smem<16x4xf16, #kaio.layout<row_major>>
  kaio.return
}

// -----

// ldmatrix: A as four 8x8 matrices (lane / 8 picks the matrix, lane % 8 its
// row); B from a row-major [k][n] tile transposed; B from a column-major
// tile as is.
// CHECK-LABEL: kaio.kernel @load_fragments
// CHECK: %[[A_TILE:.*]] = kaio.shared_alloc : <32x16xf16, <row_major, pad = 8>>
// CHECK: %[[B_TILE:.*]] = kaio.shared_alloc : <16x16xf16, <row_major, pad = 8>>
// CHECK: %[[BC_TILE:.*]] = kaio.shared_alloc : <16x16xf16, <col_major>>
// CHECK: %[[LANE:.*]] = kaio.lane_id : i32
// CHECK: arith.remui %[[LANE]], %{{.*}} : i32
// CHECK: %[[A_BASE:.*]] = kaio.shared_address %[[A_TILE]]
// CHECK: %[[A_OFF:.*]] = kaio.tile_offset
// CHECK: %[[A_ADDR:.*]] = arith.addi %[[A_BASE]], %[[A_OFF]]
// A constant index is a constant step from the tile offset of index 0
// (8 padded rows of 48 bytes): loads at constant indices share registers.
// CHECK: %[[A_ROW8:.*]] = arith.addi %[[A_ADDR]], %c384_i32
// CHECK: %{{.*}}:4 = ptx.ldmatrix [%[[A_ROW8]]] : i32 -> i32, i32, i32, i32
// CHECK: %[[B_BASE:.*]] = kaio.shared_address %[[B_TILE]]
// CHECK: %[[B_OFF:.*]] = kaio.tile_offset
// CHECK: %[[B_ADDR:.*]] = arith.addi %[[B_BASE]], %[[B_OFF]]
// CHECK: %[[B_COL8:.*]] = arith.addi %[[B_ADDR]], %c16_i32
// CHECK: %{{.*}}:2 = ptx.ldmatrix trans [%[[B_COL8]]] : i32 -> i32, i32
// CHECK: %[[BC_BASE:.*]] = kaio.shared_address %[[BC_TILE]]
// CHECK: kaio.tile_offset {{.*}} : !kaio.smem<16x16xf16, <col_major>>
// CHECK: %{{.*}}:2 = ptx.ldmatrix [%{{.*}}] : i32 -> i32, i32
// CHECK: kaio.shared_address %[[A_TILE]]
// CHECK: %{{.*}}:2 = ptx.ldmatrix [%{{.*}}] : i32 -> i32, i32
// CHECK-NOT: kaio.load_fragment
kaio.kernel @load_fragments(%c: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %As = kaio.shared_alloc : !kaio.smem<32x16xf16, #kaio.layout<row_major, pad = 8>>
  %Bs = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<row_major, pad = 8>>
  %Bc = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<col_major>>
  %a = kaio.load_fragment %As[%c8, %c0] : !kaio.smem<32x16xf16, #kaio.layout<row_major, pad = 8>> -> !kaio.frag<a, m16n8k16, f16>
  %b = kaio.load_fragment %Bs[%c0, %c8] : !kaio.smem<16x16xf16, #kaio.layout<row_major, pad = 8>> -> !kaio.frag<b, m16n8k16, f16>
  %bc = kaio.load_fragment %Bc[%c0, %c8] : !kaio.smem<16x16xf16, #kaio.layout<col_major>> -> !kaio.frag<b, m16n8k16, f16>
  %a8 = kaio.load_fragment %As[%c0, %c8] : !kaio.smem<32x16xf16, #kaio.layout<row_major, pad = 8>> -> !kaio.frag<a, m16n8k8, f16>
  kaio.return
}

// -----

// A transposed A (a tile of A^T, [k][m]: a column-major A): ldmatrix .trans,
// each lane addressing stored row k = 8 (matrix / 2) + lane % 8 at m = 8
// (matrix % 2); atoms 16 tile columns apart.
// CHECK-LABEL: kaio.kernel @load_transposed_a
// CHECK: %[[T:.*]] = kaio.shared_alloc : <16x32xf16, <row_major, pad = 8>>
// CHECK: %[[LANE:.*]] = kaio.lane_id : i32
// CHECK: %[[R:.*]] = arith.remui %[[LANE]], %{{.*}} : i32
// CHECK: %[[Q:.*]] = arith.divui %[[LANE]], %{{.*}} : i32
// CHECK: %[[J:.*]] = arith.remui %[[Q]], %{{.*}} : i32
// CHECK: %[[JR:.*]] = arith.remui %[[J]], %{{.*}} : i32
// CHECK: %[[JC:.*]] = arith.divui %[[J]], %{{.*}} : i32
// CHECK: %[[M8:.*]] = arith.muli %[[JR]], %{{.*}} : i32
// CHECK: %[[M:.*]] = arith.addi %{{.*}}, %[[M8]] : i32
// CHECK: %[[K8:.*]] = arith.muli %[[JC]], %{{.*}} : i32
// CHECK: %[[RK:.*]] = arith.addi %[[R]], %[[K8]] : i32
// CHECK: %[[K:.*]] = arith.addi %{{.*}}, %[[RK]] : i32
// CHECK: kaio.tile_offset [%[[K]], %[[M]]] : !kaio.smem<16x32xf16, <row_major, pad = 8>>
// CHECK: %{{.*}}:4 = ptx.ldmatrix trans [%{{.*}}] : i32 -> i32, i32, i32, i32
// The second atom: 16 tile columns (32 bytes) further.
// CHECK: %[[OFF2:.*]] = kaio.tile_offset
// CHECK: %[[BASE:.*]] = arith.addi %{{.*}}, %[[OFF2]] : i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[BASE]], %c32_i32 : i32
// CHECK: %{{.*}}:4 = ptx.ldmatrix trans [%[[NEXT]]] : i32 -> i32, i32, i32, i32
// CHECK-NOT: kaio.load_fragment
kaio.kernel @load_transposed_a(%c: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %At = kaio.shared_alloc : !kaio.smem<16x32xf16, #kaio.layout<row_major, pad = 8>>
  %a = kaio.load_fragment %At[%c0, %c0] transpose : !kaio.smem<16x32xf16, #kaio.layout<row_major, pad = 8>> -> !kaio.frag<a, m16n8k16, f16, 2x1>
  kaio.return
}

// -----

// Fragments become the lane's registers, also through scf.for: an f32
// accumulator is four f32 registers, f16 operands are packed pairs in i32.
// CHECK-LABEL: kaio.kernel @mma_loop
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[H:.*]] = arith.constant 1.000000e+00 : f16
// CHECK: %[[PAIR:.*]] = ptx.pack b32 %[[H]], %[[H]] : f16, f16 -> i32
// CHECK: %[[ACC:.*]]:4 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[C0:.*]] = %[[ZERO]], %[[C1:.*]] = %[[ZERO]], %[[C2:.*]] = %[[ZERO]], %[[C3:.*]] = %[[ZERO]]) -> (f32, f32, f32, f32)
// CHECK:   %[[A:.*]]:4 = ptx.ldmatrix
// CHECK:   %[[D:.*]]:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[A]]#0, %[[A]]#1, %[[A]]#2, %[[A]]#3}, {%[[PAIR]], %[[PAIR]]}, {%[[C0]], %[[C1]], %[[C2]], %[[C3]]} : {{.*}} -> f32, f32, f32, f32
// CHECK:   scf.yield %[[D]]#0, %[[D]]#1, %[[D]]#2, %[[D]]#3 : f32, f32, f32, f32
// CHECK: }
// Epilogue: the element function once per register, then masked stores at
// rows g, g + 8 and columns 2t, 2t + 1 of the 16x8 block.
// CHECK: %[[S0:.*]] = arith.mulf %[[ACC]]#0, %{{.*}} : f32
// CHECK: %[[S1:.*]] = arith.mulf %[[ACC]]#1, %{{.*}} : f32
// CHECK: %[[S2:.*]] = arith.mulf %[[ACC]]#2, %{{.*}} : f32
// CHECK: %[[S3:.*]] = arith.mulf %[[ACC]]#3, %{{.*}} : f32
// CHECK: %[[LANE:.*]] = kaio.lane_id : i32
// CHECK: %[[G:.*]] = arith.divui %[[LANE]], %{{.*}} : i32
// CHECK: %[[T:.*]] = arith.remui %[[LANE]], %{{.*}} : i32
// CHECK: kaio.store %[[S0]], %{{.*}}[%{{.*}}] mask %{{.*}} : f32, <f32>, i64
// CHECK: kaio.store %[[S1]], %{{.*}}[%{{.*}}] mask %{{.*}} : f32, <f32>, i64
// CHECK: kaio.store %[[S2]], %{{.*}}[%{{.*}}] mask %{{.*}} : f32, <f32>, i64
// CHECK: kaio.store %[[S3]], %{{.*}}[%{{.*}}] mask %{{.*}} : f32, <f32>, i64
// CHECK-NOT: kaio.frag
// CHECK-NOT: kaio.mma
// CHECK-NOT: kaio.store_fragment
kaio.kernel @mma_loop(%C: !kaio.ptr<f32>, %k: i32, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f16
  %alpha = arith.constant 0.5 : f32
  %As = kaio.shared_alloc : !kaio.smem<16x16xf16, #kaio.layout<row_major, pad = 8>>
  %init = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32>
  %b = kaio.frag_fill %one : f16 -> !kaio.frag<b, m16n8k16, f16>
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%c = %init)
      -> (!kaio.frag<acc, m16n8k16, f32>) : i32 {
    %a = kaio.load_fragment %As[%c0, %c0] : !kaio.smem<16x16xf16, #kaio.layout<row_major, pad = 8>> -> !kaio.frag<a, m16n8k16, f16>
    %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k16, f16>, !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
    scf.yield %d : !kaio.frag<acc, m16n8k16, f32>
  }
  %scaled = kaio.frag_map %acc, %alpha : !kaio.frag<acc, m16n8k16, f32>, f32
      -> !kaio.frag<acc, m16n8k16, f32> {
  ^bb0(%x: f32, %s: f32):
    %y = arith.mulf %x, %s : f32
    kaio.yield %y : f32
  }
  kaio.store_fragment %scaled, %C[%c0, %c0] bounds [%n, %n] ld %n
      : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
  kaio.return
}

// -----

// An f16 accumulator is two packed registers: frag_map unpacks, applies the
// function per element and packs again; store_fragment widens to f32.
// CHECK-LABEL: kaio.kernel @f16_accumulator
// CHECK: %[[D:.*]]:2 = ptx.mma_sync m16n8k8 row col f16 f16 f16 f16
// CHECK: %[[E0:.*]]:2 = ptx.unpack b32 %[[D]]#0 : i32 -> f16, f16
// CHECK: %[[E1:.*]]:2 = ptx.unpack b32 %[[D]]#1 : i32 -> f16, f16
// CHECK: %[[N0:.*]] = arith.negf %[[E0]]#0 : f16
// CHECK: %[[N1:.*]] = arith.negf %[[E0]]#1 : f16
// CHECK: %[[N2:.*]] = arith.negf %[[E1]]#0 : f16
// CHECK: %[[N3:.*]] = arith.negf %[[E1]]#1 : f16
// CHECK: %[[P0:.*]] = ptx.pack b32 %[[N0]], %[[N1]] : f16, f16 -> i32
// CHECK: %[[P1:.*]] = ptx.pack b32 %[[N2]], %[[N3]] : f16, f16 -> i32
// CHECK: %[[U0:.*]]:2 = ptx.unpack b32 %[[P0]] : i32 -> f16, f16
// CHECK: %[[U1:.*]]:2 = ptx.unpack b32 %[[P1]] : i32 -> f16, f16
// An interior tile stores each lane's row neighbours with one vector store;
// an edge tile element by element, masked.
// CHECK: scf.if %{{.*}} {
// CHECK: %[[W0:.*]] = arith.extf %[[U0]]#0 : f16 to f32
// CHECK: %[[W1:.*]] = arith.extf %[[U0]]#1 : f16 to f32
// CHECK: kaio.store_vector %[[W0]], %[[W1]] to
// CHECK: } else {
// CHECK: %[[S0:.*]] = arith.extf %[[U0]]#0 : f16 to f32
// CHECK: kaio.store %[[S0]]
// CHECK: arith.extf %[[U0]]#1 : f16 to f32
// CHECK: arith.extf %[[U1]]#0 : f16 to f32
// CHECK: arith.extf %[[U1]]#1 : f16 to f32
kaio.kernel @f16_accumulator(%C: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %h = arith.constant 1.0 : f16
  %a = kaio.frag_fill %h : f16 -> !kaio.frag<a, m16n8k8, f16>
  %b = kaio.frag_fill %h : f16 -> !kaio.frag<b, m16n8k8, f16>
  %c = kaio.frag_fill %h : f16 -> !kaio.frag<acc, m16n8k8, f16>
  %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k8, f16>, !kaio.frag<b, m16n8k8, f16>, !kaio.frag<acc, m16n8k8, f16>
  %neg = kaio.frag_map %d : !kaio.frag<acc, m16n8k8, f16> -> !kaio.frag<acc, m16n8k8, f16> {
  ^bb0(%x: f16):
    %y = arith.negf %x : f16
    kaio.yield %y : f16
  }
  kaio.store_fragment %neg, %C[%c0, %c0] bounds [%n, %n] ld %n
      : !kaio.frag<acc, m16n8k8, f16>, !kaio.ptr<f32>
  kaio.return
}

// -----

// Integer mma: 8-bit operands, four to a register; a fill replicates the
// byte. The s32 accumulator is i32 registers; store_fragment stores them.
// CHECK-LABEL: kaio.kernel @int8_mma
// CHECK: %[[WA:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK-NEXT: arith.constant 16843009 : i32
// CHECK-NEXT: %[[RA:.*]] = arith.muli %[[WA]], %{{.*}} : i32
// CHECK: %[[WB:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK-NEXT: arith.constant 16843009 : i32
// CHECK-NEXT: %[[RB:.*]] = arith.muli %[[WB]], %{{.*}} : i32
// CHECK: ptx.mma_sync m16n8k32 row col s32 s8 s8 s32 satfinite {%[[RA]], %[[RA]], %[[RA]], %[[RA]]}, {%[[RB]], %[[RB]]}
// CHECK-COUNT-4: kaio.store {{.*}} : i32, <i32>, i64
kaio.kernel @int8_mma(%C: !kaio.ptr<i32>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %three = arith.constant 3 : i8
  %a = kaio.frag_fill %three : i8 -> !kaio.frag<a, m16n8k32, i8>
  %b = kaio.frag_fill %three : i8 -> !kaio.frag<b, m16n8k32, i8>
  %c = kaio.frag_fill %c0 : i32 -> !kaio.frag<acc, m16n8k32, i32>
  %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k32, i8>, !kaio.frag<b, m16n8k32, i8>, !kaio.frag<acc, m16n8k32, i32>
  kaio.store_fragment %d, %C[%c0, %c0] bounds [%n, %n] ld %n
      : !kaio.frag<acc, m16n8k32, i32>, !kaio.ptr<i32>
  kaio.return
}

// -----

// Fragment tiles: a 2x1 tile of A atoms is two ldmatrix.x4; a 1x4 tile of B
// atoms is two ldmatrix.x4.trans, each filling two neighbouring atoms; the
// mma of the tiles is 2 x 4 mma.sync in a serpentine order (row 0 left to
// right, row 1 right to left), each reusing an operand of the previous one.
// CHECK-LABEL: kaio.kernel @fragment_tiles
// CHECK-COUNT-2: ptx.ldmatrix [%{{.*}}] : i32 -> i32, i32, i32, i32
// CHECK-COUNT-2: ptx.ldmatrix trans [%{{.*}}] : i32 -> i32, i32, i32, i32
// CHECK-NOT: ptx.ldmatrix
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[A:[0-9#]+]], %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}}, {%[[B0:[0-9#]+]], %{{[0-9#]+}}}
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[A]], %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}}, {%[[B1:[0-9#]+]], %{{[0-9#]+}}}
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[A]], %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}}, {%[[B2:[0-9#]+]], %{{[0-9#]+}}}
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[A]], %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}}, {%[[B3:[0-9#]+]], %{{[0-9#]+}}}
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[A1:[0-9#]+]], %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}}, {%[[B3]], %{{[0-9#]+}}}
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[A1]], %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}}, {%[[B2]], %{{[0-9#]+}}}
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[A1]], %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}}, {%[[B1]], %{{[0-9#]+}}}
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[A1]], %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}}, {%[[B0]], %{{[0-9#]+}}}
// CHECK-NOT: ptx.mma_sync
// Each of the 8 atoms stores its 4 elements: as 2 pairs in an interior tile,
// one by one, masked, at an edge.
// CHECK-COUNT-16: kaio.store_vector
// CHECK: } else {
// CHECK-COUNT-32: kaio.store %{{.*}} mask
// CHECK-NOT: kaio.store
kaio.kernel @fragment_tiles(%c: !kaio.ptr<f32>, %n: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %As = kaio.shared_alloc : !kaio.smem<32x16xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  %Bs = kaio.shared_alloc : !kaio.smem<16x32xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  %a = kaio.load_fragment %As[%c0, %c0] : !kaio.smem<32x16xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>> -> !kaio.frag<a, m16n8k16, f16, 2x1>
  %b = kaio.load_fragment %Bs[%c0, %c0] : !kaio.smem<16x32xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>> -> !kaio.frag<b, m16n8k16, f16, 1x4>
  %acc = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32, 2x4>
  %d = kaio.mma %a, %b, %acc : !kaio.frag<a, m16n8k16, f16, 2x1>, !kaio.frag<b, m16n8k16, f16, 1x4>, !kaio.frag<acc, m16n8k16, f32, 2x4>
  kaio.store_fragment %d, %c[%c0, %c0] bounds [%n, %n] ld %n : !kaio.frag<acc, m16n8k16, f32, 2x4>, !kaio.ptr<f32>
  kaio.return
}

// -----

// With beta the store accumulates (dst = frag + beta * dst) only when beta
// is non-zero; beta == 0 takes plain stores and never reads the matrix.
// CHECK-LABEL: kaio.kernel @store_fragment_beta
// CHECK: %[[NZ:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: scf.if %[[NZ]] {
// CHECK: scf.if
// CHECK: %[[OLD:.*]]:2 = kaio.load_vector
// CHECK: arith.mulf %{{.*}}, %[[OLD]]#0 : f32
// CHECK: arith.addf
// CHECK: kaio.store_vector
// CHECK: } else {
// CHECK: kaio.load %{{.*}} mask
// CHECK: arith.mulf
// CHECK: kaio.store %{{.*}} mask
// CHECK: } else {
// CHECK-NOT: kaio.load
// CHECK: kaio.store_vector
// CHECK: kaio.return
kaio.kernel @store_fragment_beta(%c: !kaio.ptr<f32>, %n: i32, %beta: f32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %acc = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32>
  kaio.store_fragment %acc, %c[%c0, %c0] bounds [%n, %n] ld %n beta %beta : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
  kaio.return
}

// -----

// Under a swizzle, atoms at constant k steps of one tile derive from one
// address: the lane's column in the tile is below 16 (the op's column, a
// constant, joins the atom's offset), so the 32- and 64-byte steps inside a
// 256-byte row are that address XOR 32 and XOR 64 (rows, the swizzle's
// source bits, untouched). Along the rows (a whole swizzle period, 8 rows of
// 256 bytes) the step stays an immediate. A run-time column has no bound:
// its atoms get an address each.
// XOR-LABEL: kaio.kernel @swizzled_k_steps
// XOR: %[[OFF:.*]] = kaio.tile_offset [%{{.*}}, %{{.*}}] : !kaio.smem<32x128xf16, <row_major, swizzle = <3, 4, 4>>>
// XOR: %[[BASE:.*]] = arith.addi %{{.*}}, %[[OFF]] : i32
// XOR: ptx.ldmatrix [%[[BASE]]]
// XOR: %[[K16:.*]] = arith.xori %[[BASE]], %c32_i32 : i32
// XOR: ptx.ldmatrix [%[[K16]]]
// XOR: %[[K32:.*]] = arith.xori %[[BASE]], %c64_i32 : i32
// XOR: %[[K32R16:.*]] = arith.addi %[[K32]], %c4096_i32 : i32
// XOR: ptx.ldmatrix [%[[K32R16]]]
// XOR-NOT: arith.xori
// XOR: kaio.tile_offset
// XOR: ptx.ldmatrix
// XOR: kaio.tile_offset
// XOR: ptx.ldmatrix
kaio.kernel @swizzled_k_steps(%c: !kaio.ptr<f32>, %col: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %t = kaio.shared_alloc : !kaio.smem<32x128xf16, #kaio.layout<row_major, swizzle = <3, 4, 4>>>
  %a0 = kaio.load_fragment %t[%c0, %c0] : !kaio.smem<32x128xf16, #kaio.layout<row_major, swizzle = <3, 4, 4>>> -> !kaio.frag<a, m16n8k16, f16>
  %a1 = kaio.load_fragment %t[%c0, %c16] : !kaio.smem<32x128xf16, #kaio.layout<row_major, swizzle = <3, 4, 4>>> -> !kaio.frag<a, m16n8k16, f16>
  %a2 = kaio.load_fragment %t[%c16, %c32] : !kaio.smem<32x128xf16, #kaio.layout<row_major, swizzle = <3, 4, 4>>> -> !kaio.frag<a, m16n8k16, f16>
  %r = kaio.load_fragment %t[%c0, %col] : !kaio.smem<32x128xf16, #kaio.layout<row_major, swizzle = <3, 4, 4>>> -> !kaio.frag<a, m16n8k16, f16, 1x2>
  kaio.return
}
