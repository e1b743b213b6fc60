// y[i] = alpha * x[i] + y[i], grid-stride loop so any grid covers any n.
module {
  kaio.kernel @saxpy(%alpha: f32, %x: !kaio.ptr<f32> {kaio.readonly},
                     %y: !kaio.ptr<f32>, %n: i32)
      attributes {block_size = array<i32: 256>} {
    %tid = kaio.thread_id x : i32
    %bid = kaio.block_id x : i32
    %bdim = kaio.block_dim x : i32
    %gdim = kaio.grid_dim x : i32
    %first = arith.muli %bid, %bdim : i32
    %i0 = arith.addi %first, %tid : i32
    %stride = arith.muli %bdim, %gdim : i32
    scf.for %i = %i0 to %n step %stride : i32 {
      %xi = kaio.load %x[%i] : !kaio.ptr<f32>, i32 -> f32
      %yi = kaio.load %y[%i] : !kaio.ptr<f32>, i32 -> f32
      %r = math.fma %alpha, %xi, %yi : f32
      kaio.store %r, %y[%i] : f32, !kaio.ptr<f32>, i32
    }
    kaio.return
  }
}
