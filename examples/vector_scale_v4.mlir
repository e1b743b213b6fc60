// y[i] = alpha * x[i] with 16-byte accesses: each thread scales four
// consecutive floats with one ld.global.nc.v4 and one st.global.v4; the last
// n % 4 elements take the scalar path. x and y must be 16-byte aligned
// (cudaMalloc's are).
module {
  kaio.kernel @vector_scale_v4(%alpha: f32, %x: !kaio.ptr<f32> {kaio.readonly},
                               %y: !kaio.ptr<f32>, %n: i32)
      attributes {block_size = array<i32: 256>} {
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %tid = kaio.thread_id x : i32
    %bid = kaio.block_id x : i32
    %bdim = kaio.block_dim x : i32
    %base = arith.muli %bid, %bdim : i32
    %t = arith.addi %base, %tid : i32
    %i = arith.muli %t, %c4 : i32
    %end = arith.addi %i, %c4 : i32
    %full = arith.cmpi ule, %end, %n : i32
    scf.if %full {
      %a, %b, %c, %d = kaio.load_vector %x[%i]
          : !kaio.ptr<f32>, i32 -> f32, f32, f32, f32
      %a2 = arith.mulf %alpha, %a : f32
      %b2 = arith.mulf %alpha, %b : f32
      %c2 = arith.mulf %alpha, %c : f32
      %d2 = arith.mulf %alpha, %d : f32
      kaio.store_vector %a2, %b2, %c2, %d2 to %y[%i]
          : (f32, f32, f32, f32), !kaio.ptr<f32>, i32
    } else {
      // The ragged tail, one element at a time.
      %lim = arith.minui %end, %n : i32
      scf.for %j = %i to %lim step %c1 : i32 {
        %v = kaio.load %x[%j] : !kaio.ptr<f32>, i32 -> f32
        %s = arith.mulf %alpha, %v : f32
        kaio.store %s, %y[%j] : f32, !kaio.ptr<f32>, i32
      }
    }
    kaio.return
  }
}
