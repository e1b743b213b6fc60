// RUN: kaio-opt %s --kaio-lower-tiles --canonicalize --cse --split-input-file | FileCheck %s

// The online-softmax tile ops (FlashAttention): an indexed frag_map sees each
// element's row (g, g + 8) and column (2t, 2t + 1) in the m16n8 accumulator;
// frag_reduce_rows combines a lane's elements of a row, then the four lanes
// of the row with xor shuffles 1 and 2; a row-broadcast operand gives every
// element its row's value.
// CHECK-LABEL: kaio.kernel @softmax_tiles
// CHECK: %[[LANE:.*]] = kaio.lane_id
// CHECK: %[[G:.*]] = arith.divui %[[LANE]], %c4_i32
// CHECK: %[[T:.*]] = arith.remui %[[LANE]], %c4_i32
// CHECK: %[[C0:.*]] = arith.muli %[[T]], %c2_i32
// CHECK: %[[LT0:.*]] = arith.cmpi slt, %[[C0]], %[[G]]
// CHECK: %[[E0:.*]] = arith.select %[[LT0]], %arg2, %arg3
// CHECK: %[[C1:.*]] = arith.addi %[[C0]], %c1_i32
// CHECK: %[[E1:.*]] = arith.select
// CHECK: %[[G8:.*]] = arith.addi %[[G]], %c8_i32
// CHECK: %[[LT2:.*]] = arith.cmpi slt, %[[C0]], %[[G8]]
// CHECK: %[[E2:.*]] = arith.select %[[LT2]], %arg2, %arg3
// CHECK: %[[E3:.*]] = arith.select
// CHECK: %[[P0:.*]] = arith.maximumf %[[E0]], %[[E1]]
// CHECK: %[[P1:.*]] = arith.maximumf %[[E2]], %[[E3]]
// CHECK: %[[X1:.*]] = kaio.shuffle xor %[[P0]], %c1_i32
// CHECK: %[[M1:.*]] = arith.maximumf %[[P0]], %[[X1]]
// CHECK: %[[X2:.*]] = kaio.shuffle xor %[[M1]], %c2_i32
// CHECK: %[[ROW0:.*]] = arith.maximumf %[[M1]], %[[X2]]
// CHECK: kaio.shuffle xor %[[P1]], %c1_i32
// CHECK: arith.maximumf
// CHECK: kaio.shuffle xor %{{.*}}, %c2_i32
// CHECK: %[[ROW8:.*]] = arith.maximumf
// CHECK: arith.subf %[[E0]], %[[ROW0]]
// CHECK: arith.subf %[[E1]], %[[ROW0]]
// CHECK: arith.subf %[[E2]], %[[ROW8]]
// CHECK: arith.subf %[[E3]], %[[ROW8]]
kaio.kernel @softmax_tiles(%O: !kaio.ptr<f32>, %H: !kaio.ptr<f16>, %v: f32, %w: f32) attributes {block_size = array<i32: 32>} {
    %c0 = arith.constant 0 : i32
    %c16 = arith.constant 16 : i32
    %s0 = kaio.frag_fill %v : f32 -> !kaio.frag<acc, m16n8k16, f32, 1x1>
    %s1 = kaio.frag_fill %w : f32 -> !kaio.frag<acc, m16n8k16, f32, 1x1>
    %s = kaio.frag_map %s0, %s1 indexed : !kaio.frag<acc, m16n8k16, f32, 1x1>, !kaio.frag<acc, m16n8k16, f32, 1x1> -> !kaio.frag<acc, m16n8k16, f32, 1x1> {
    ^bb0(%e: f32, %r: i32, %c: i32, %f: f32):
      %in = arith.cmpi slt, %c, %r : i32
      %y = arith.select %in, %e, %f : f32
      kaio.yield %y : f32
    }
    %m = kaio.frag_reduce_rows max %s : !kaio.frag<acc, m16n8k16, f32, 1x1> -> !kaio.frag<acc, m16n8k16, f32, 1x1>
    %p = kaio.frag_map %s, %m : !kaio.frag<acc, m16n8k16, f32, 1x1>, !kaio.frag<acc, m16n8k16, f32, 1x1> -> !kaio.frag<acc, m16n8k16, f32, 1x1> {
    ^bb0(%e: f32, %mx: f32):
      %d = arith.subf %e, %mx : f32
      kaio.yield %d : f32
    }
    kaio.store_fragment %p, %O[%c0, %c0] bounds [%c16, %c16] ld %c16 : !kaio.frag<acc, m16n8k16, f32, 1x1>, !kaio.ptr<f32>
    kaio.return
}

// -----

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
