// sum(x[0..n)) into *out (which starts at 0): each thread accumulates a
// grid-stride slice, each warp reduces with shuffles, lane 0 adds atomically.
module {
  kaio.kernel @warp_reduce_sum(%x: !kaio.ptr<f32> {kaio.readonly},
                               %out: !kaio.ptr<f32>, %n: i32)
      attributes {block_size = array<i32: 256>} {
    %zero = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : i32
    %tid = kaio.thread_id x : i32
    %bid = kaio.block_id x : i32
    %bdim = kaio.block_dim x : i32
    %gdim = kaio.grid_dim x : i32
    %first = arith.muli %bid, %bdim : i32
    %i0 = arith.addi %first, %tid : i32
    %stride = arith.muli %bdim, %gdim : i32
    %acc = scf.for %i = %i0 to %n step %stride iter_args(%s = %zero) -> (f32) : i32 {
      %v = kaio.load %x[%i] : !kaio.ptr<f32>, i32 -> f32
      %s2 = arith.addf %s, %v : f32
      scf.yield %s2 : f32
    }
    %total = kaio.warp_reduce sum %acc : f32
    %lane = kaio.lane_id : i32
    %leader = arith.cmpi eq, %lane, %c0 : i32
    scf.if %leader {
      %old = kaio.atomic add %out[%c0], %total : !kaio.ptr<f32>, i32, f32
    }
    kaio.return
  }
}
