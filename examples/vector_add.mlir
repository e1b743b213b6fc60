// c[i] = a[i] + b[i] for i < n, one element per thread.
module {
  kaio.kernel @vector_add(%a: !kaio.ptr<f32> {kaio.readonly},
                          %b: !kaio.ptr<f32> {kaio.readonly},
                          %c: !kaio.ptr<f32>, %n: i32)
      attributes {block_size = array<i32: 256>} {
    %tid = kaio.thread_id x : i32
    %bid = kaio.block_id x : i32
    %bdim = kaio.block_dim x : i32
    %base = arith.muli %bid, %bdim : i32
    %i = arith.addi %base, %tid : i32
    %inside = arith.cmpi ult, %i, %n : i32
    scf.if %inside {
      %x = kaio.load %a[%i] : !kaio.ptr<f32>, i32 -> f32
      %y = kaio.load %b[%i] : !kaio.ptr<f32>, i32 -> f32
      %s = arith.addf %x, %y : f32
      kaio.store %s, %c[%i] : f32, !kaio.ptr<f32>, i32
    }
    kaio.return
  }
}
