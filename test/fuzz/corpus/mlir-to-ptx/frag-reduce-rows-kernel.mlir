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

