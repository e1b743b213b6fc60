

// An accumulator tile as an A operand: n8 atoms 2kk and 2kk + 1 make the
// k16 atom kk, element pairs (2t, 2t + 1) packed per register, rows g then
// g + 8 (the same columns, so here the same register). The slice starts at
// atom 1 (columns 8..).
// CHECK-LABEL: kaio.kernel @accumulator_as_operand
// CHECK: %[[T:.*]] = arith.remui
// CHECK: %[[C:.*]] = arith.muli %[[T]], %c2_i32
// CHECK: %[[A:.*]] = arith.addi %[[C]], %c8_i32
// CHECK: %[[B:.*]] = arith.addi %[[C]], %c9_i32
// CHECK: %[[D:.*]] = arith.addi %[[C]], %c16_i32
// CHECK: %[[E:.*]] = arith.addi %[[C]], %c17_i32
// CHECK: %[[FA:.*]] = arith.sitofp %[[A]] : i32 to f16
// CHECK: %[[FB:.*]] = arith.sitofp %[[B]] : i32 to f16
// CHECK: %[[FD:.*]] = arith.sitofp %[[D]] : i32 to f16
// CHECK: %[[FE:.*]] = arith.sitofp %[[E]] : i32 to f16
// CHECK: %[[LO:.*]] = ptx.pack b32 %[[FA]], %[[FB]]
// CHECK: %[[HI:.*]] = ptx.pack b32 %[[FD]], %[[FE]]
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%[[LO]], %[[LO]], %[[HI]], %[[HI]]}
kaio.kernel @accumulator_as_operand(%O: !kaio.ptr<f32>, %v: f32, %h: f16) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %t = kaio.frag_fill %v : f32 -> !kaio.frag<acc, m16n8k16, f32, 1x3>
  %cols = kaio.frag_map %t indexed : !kaio.frag<acc, m16n8k16, f32, 1x3> -> !kaio.frag<acc, m16n8k16, f32, 1x3> {
  ^bb0(%e: f32, %r: i32, %c: i32):
    %f = arith.sitofp %c : i32 to f32
    kaio.yield %f : f32
  }
  %u = kaio.frag_slice %cols [0, 1] : !kaio.frag<acc, m16n8k16, f32, 1x3> -> !kaio.frag<acc, m16n8k16, f32, 1x2>
  %p = kaio.frag_to_operand %u : !kaio.frag<acc, m16n8k16, f32, 1x2> -> !kaio.frag<a, m16n8k16, f16, 1x1>
  %b = kaio.frag_fill %h : f16 -> !kaio.frag<b, m16n8k16, f16, 1x1>
  %z = kaio.frag_fill %v : f32 -> !kaio.frag<acc, m16n8k16, f32, 1x1>
  %d = kaio.mma %p, %b, %z : !kaio.frag<a, m16n8k16, f16, 1x1>, !kaio.frag<b, m16n8k16, f16, 1x1>, !kaio.frag<acc, m16n8k16, f32, 1x1>
  kaio.store_fragment %d, %O[%c0, %c0] bounds [%c16, %c16] ld %c16 : !kaio.frag<acc, m16n8k16, f32, 1x1>, !kaio.ptr<f32>
  kaio.return
}
