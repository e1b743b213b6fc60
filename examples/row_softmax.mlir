// out[r, :] = softmax(x[r, :]) for a rows x n row-major matrix, any n: one
// block per row, numerically stable (subtract the row max).
module {
  kaio.kernel @row_softmax(%x: !kaio.ptr<f32> {kaio.readonly},
                           %out: !kaio.ptr<f32>, %rows: i32, %n: i32)
      attributes {block_size = array<i32: 256>} {
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %tid = kaio.thread_id x : i32
    %row = kaio.block_id x : i32
    %bdim = kaio.block_dim x : i32
    %row_off = arith.muli %row, %n : i32
    %xrow = kaio.ptr_add %x, %row_off : !kaio.ptr<f32>, i32
    %orow = kaio.ptr_add %out, %row_off : !kaio.ptr<f32>, i32
    %m = scf.for %i = %tid to %n step %bdim iter_args(%acc = %ninf) -> (f32) : i32 {
      %v = kaio.load %xrow[%i] : !kaio.ptr<f32>, i32 -> f32
      %mx = arith.maxnumf %acc, %v : f32
      scf.yield %mx : f32
    }
    %rmax = kaio.block_reduce max %m : f32
    %s = scf.for %i = %tid to %n step %bdim iter_args(%acc = %zero) -> (f32) : i32 {
      %v = kaio.load %xrow[%i] : !kaio.ptr<f32>, i32 -> f32
      %d = arith.subf %v, %rmax : f32
      %e = math.exp %d : f32
      %a2 = arith.addf %acc, %e : f32
      scf.yield %a2 : f32
    }
    %rsum = kaio.block_reduce sum %s : f32
    %inv = arith.divf %one, %rsum : f32
    scf.for %i = %tid to %n step %bdim : i32 {
      %v = kaio.load %xrow[%i] : !kaio.ptr<f32>, i32 -> f32
      %d = arith.subf %v, %rmax : f32
      %e = math.exp %d : f32
      %p = arith.mulf %e, %inv : f32
      kaio.store %p, %orow[%i] : f32, !kaio.ptr<f32>, i32
    }
    kaio.return
  }
}
