// An f32 stored through an i32 pointer: kaio-embed must report it at the
// store.
kaio.kernel @k(%p: !kaio.ptr<i32>) attributes {block_size = array<i32: 32>} {
  %f = arith.constant 1.0 : f32
  %c = arith.constant 0 : i32
  kaio.store %f, %p[%c] : f32, !kaio.ptr<i32>, i32
  kaio.return
}
