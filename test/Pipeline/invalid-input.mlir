// The pipeline rejects what it cannot lower with a located diagnostic, never
// a crash.
// RUN: not kaio-opt --kaio-to-ptx="chip=sm_80" --split-input-file %s 2>&1 | FileCheck %s
// RUN: not kaio-opt --kaio-to-ptx="chip=sm_75" --split-input-file %s 2>&1 | FileCheck %s --check-prefix=SM75
// RUN: not kaio-opt --kaio-to-ptx="chip=sm_42" --split-input-file %s 2>&1 | FileCheck %s --check-prefix=CHIP

// CHIP: invalid-input.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unknown chip 'sm_42'

kaio.kernel @exp_f64(%p: !kaio.ptr<f64>) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %x = kaio.load %p[%c0] : !kaio.ptr<f64>, i32 -> f64
  // CHECK: invalid-input.mlir:[[@LINE+1]]:8: error: 'math.exp' op on f64 is not supported by the PTX lowering
  %y = math.exp %x : f64
  kaio.store %y, %p[%c0] : f64, !kaio.ptr<f64>, i32
  kaio.return
}

// -----

kaio.kernel @vector_arith(%p: !kaio.ptr<i32>, %x: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %v = builtin.unrealized_conversion_cast %x : i32 to vector<2xf16>
  // CHECK: invalid-input.mlir:[[@LINE+1]]:8: error: failed to legalize operation 'arith.addf'
  %w = arith.addf %v, %v : vector<2xf16>
  %e = builtin.unrealized_conversion_cast %w : vector<2xf16> to i32
  kaio.store %e, %p[%c0] : i32, !kaio.ptr<i32>, i32
  kaio.return
}

// -----

kaio.kernel @remf(%p: !kaio.ptr<f32>, %x: f32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  // CHECK: invalid-input.mlir:[[@LINE+1]]:8: error: failed to legalize operation 'arith.remf'
  %y = arith.remf %x, %x : f32
  kaio.store %y, %p[%c0] : f32, !kaio.ptr<f32>, i32
  kaio.return
}

// -----

kaio.kernel @atan(%p: !kaio.ptr<f32>, %x: f32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  // CHECK: invalid-input.mlir:[[@LINE+1]]:8: error: failed to legalize operation 'math.atan'
  %y = math.atan %x : f32
  kaio.store %y, %p[%c0] : f32, !kaio.ptr<f32>, i32
  kaio.return
}

// -----

// The kaio verifiers run first.
kaio.kernel @divergent_barrier() attributes {block_size = array<i32: 64>} {
  %c0 = arith.constant 0 : i32
  %tid = kaio.thread_id x : i32
  %first = arith.cmpi eq, %tid, %c0 : i32
  // CHECK: invalid-input.mlir:[[@LINE+3]]:5: error: 'kaio.barrier' op synchronises the block but sits under thread-dependent control flow
  // CHECK: invalid-input.mlir:[[@LINE+1]]:3: note: the condition depends on the thread
  scf.if %first {
    kaio.barrier
  }
  kaio.return
}

// -----

// bf16 atomics need sm_90.
kaio.kernel @atomic_bf16(%p: !kaio.ptr<bf16>, %x: bf16) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  // CHECK: invalid-input.mlir:[[@LINE+1]]:8: error: 'ptx.atom' op requires sm_90 or newer, but the module targets sm_80
  %o = kaio.atomic add %p[%c0], %x : !kaio.ptr<bf16>, i32, bf16
  kaio.return
}

// -----

// mma.m16n8k16 needs sm_80: the chip option is checked when the ptx ops are
// built (a module's kaio.target is checked by the kaio verifier already).
kaio.kernel @mma_k16(%p: !kaio.ptr<f32>, %n: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %h = arith.constant 1.0 : f16
  %f = arith.constant 0.0 : f32
  %a = kaio.frag_fill %h : f16 -> !kaio.frag<a, m16n8k16, f16>
  %b = kaio.frag_fill %h : f16 -> !kaio.frag<b, m16n8k16, f16>
  %c = kaio.frag_fill %f : f32 -> !kaio.frag<acc, m16n8k16, f32>
  // SM75: invalid-input.mlir:[[@LINE+1]]:8: error: 'ptx.mma_sync' op requires sm_80 or newer, but the module targets sm_75
  %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k16, f16>, !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
  kaio.store_fragment %d, %p[%c0, %c0] bounds [%n, %n] ld %n
      : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
  kaio.return
}

// -----

// An unsupported terminator.
kaio.kernel @switch(%p: !kaio.ptr<i32>, %x: i32) attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  // CHECK: invalid-input.mlir:[[@LINE+1]]:3: error: failed to legalize operation 'cf.switch'
  cf.switch %x : i32, [
    default: ^a,
    1: ^b
  ]
^a:
  kaio.store %x, %p[%c0] : i32, !kaio.ptr<i32>, i32
  kaio.return
^b:
  kaio.return
}
