

// Online softmax on accumulator tiles (FlashAttention): row reductions, a
// row-broadcast and indexed frag_map, static slices and the accumulator
// reused as the A operand of the next mma.
// CHECK-LABEL: func.func @softmax_tiles
// CHECK: %[[M:.*]] = kaio.frag_reduce_rows max %{{.*}} : <acc, m16n8k16, f32, 1x8> -> <acc, m16n8k16, f32>
// CHECK: kaio.frag_reduce_rows sum
// CHECK: kaio.frag_map %{{.*}}, %[[M]], %{{.*}} indexed : <acc, m16n8k16, f32, 1x8>, !kaio.frag<acc, m16n8k16, f32>, i32 -> <acc, m16n8k16, f32, 1x8>
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: kaio.frag_to_operand %{{.*}} : <acc, m16n8k16, f32, 1x8> -> <a, m16n8k16, bf16, 1x4>
// CHECK: kaio.frag_slice %{{.*}}[0, 2] : <a, m16n8k16, bf16, 1x4> -> <a, m16n8k16, bf16, 1x2>
func.func @softmax_tiles(%s: !kaio.frag<acc, m16n8k16, f32, 1x8>, %lim: i32) {
  %m = kaio.frag_reduce_rows max %s : !kaio.frag<acc, m16n8k16, f32, 1x8> -> !kaio.frag<acc, m16n8k16, f32, 1x1>
  %l = kaio.frag_reduce_rows sum %s : !kaio.frag<acc, m16n8k16, f32, 1x8> -> !kaio.frag<acc, m16n8k16, f32, 1x1>
  %p = kaio.frag_map %s, %m, %lim indexed : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.frag<acc, m16n8k16, f32, 1x1>, i32 -> !kaio.frag<acc, m16n8k16, f32, 1x8> {
  ^bb0(%x: f32, %r: i32, %c: i32, %mx: f32, %n: i32):
    %d = arith.subf %x, %mx : f32
    %e = math.exp2 %d : f32
    %in = arith.cmpi slt, %c, %n : i32
    %z = arith.constant 0.0 : f32
    %y = arith.select %in, %e, %z : f32
    kaio.yield %y : f32
  }
  %a = kaio.frag_to_operand %p : !kaio.frag<acc, m16n8k16, f32, 1x8> -> !kaio.frag<a, m16n8k16, bf16, 1x4>
  %h = kaio.frag_slice %a [0, 2] : !kaio.frag<a, m16n8k16, bf16, 1x4> -> !kaio.frag<a, m16n8k16, bf16, 1x2>
  return
}
