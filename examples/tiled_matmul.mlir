// C = A x B for row-major f32 matrices of any M x K and K x N: 16 x 16
// tiles of A and B staged through shared memory, one C element per thread.
module {
  kaio.kernel @tiled_matmul(%A: !kaio.ptr<f32> {kaio.readonly},
                            %B: !kaio.ptr<f32> {kaio.readonly},
                            %C: !kaio.ptr<f32>, %M: i32 {kaio.signed},
                            %N: i32 {kaio.signed}, %K: i32 {kaio.signed})
      attributes {block_size = array<i32: 16, 16>} {
    %c0 = arith.constant 0 : i32
    %c16 = arith.constant 16 : i32
    %zero = arith.constant 0.0 : f32
    %tx = kaio.thread_id x : i32
    %ty = kaio.thread_id y : i32
    %bx = kaio.block_id x : i32
    %by = kaio.block_id y : i32
    %row0 = arith.muli %by, %c16 : i32
    %row = arith.addi %row0, %ty : i32
    %col0 = arith.muli %bx, %c16 : i32
    %col = arith.addi %col0, %tx : i32
    %As = kaio.shared_alloc : !kaio.smem<16x16xf32>
    %Bs = kaio.shared_alloc : !kaio.smem<16x16xf32>
    %row_ok = arith.cmpi slt, %row, %M : i32
    %col_ok = arith.cmpi slt, %col, %N : i32
    %acc = scf.for %t = %c0 to %K step %c16 iter_args(%sum = %zero) -> (f32) : i32 {
      %ak = arith.addi %t, %tx : i32
      %ak_ok = arith.cmpi slt, %ak, %K : i32
      %a_ok = arith.andi %row_ok, %ak_ok : i1
      %a_row = arith.muli %row, %K : i32
      %a_idx = arith.addi %a_row, %ak : i32
      %a = kaio.load %A[%a_idx] : !kaio.ptr<f32>, i32 -> f32 mask %a_ok else %zero
      kaio.shared_store %a, %As[%ty, %tx] : f32, !kaio.smem<16x16xf32>
      %bk = arith.addi %t, %ty : i32
      %bk_ok = arith.cmpi slt, %bk, %K : i32
      %b_ok = arith.andi %bk_ok, %col_ok : i1
      %b_row = arith.muli %bk, %N : i32
      %b_idx = arith.addi %b_row, %col : i32
      %b = kaio.load %B[%b_idx] : !kaio.ptr<f32>, i32 -> f32 mask %b_ok else %zero
      kaio.shared_store %b, %Bs[%ty, %tx] : f32, !kaio.smem<16x16xf32>
      kaio.barrier
      %c1 = arith.constant 1 : i32
      %inner = scf.for %k = %c0 to %c16 step %c1 iter_args(%s = %sum) -> (f32) : i32 {
        %av = kaio.shared_load %As[%ty, %k] : !kaio.smem<16x16xf32> -> f32
        %bv = kaio.shared_load %Bs[%k, %tx] : !kaio.smem<16x16xf32> -> f32
        %s2 = math.fma %av, %bv, %s : f32
        scf.yield %s2 : f32
      }
      kaio.barrier
      scf.yield %inner : f32
    }
    %ok = arith.andi %row_ok, %col_ok : i1
    scf.if %ok {
      %c_row = arith.muli %row, %N : i32
      %c_idx = arith.addi %c_row, %col : i32
      kaio.store %acc, %C[%c_idx] : f32, !kaio.ptr<f32>, i32
    }
    kaio.return
  }
}
