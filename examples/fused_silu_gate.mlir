// KAIO's showcase: out = x * sigmoid(x) * gate (the SiLU-gated MLP of
// LLaMA/Mistral/Qwen), fused into one pass over memory.
module {
  kaio.kernel @fused_silu_gate(%x: !kaio.ptr<f32> {kaio.readonly},
                               %gate: !kaio.ptr<f32> {kaio.readonly},
                               %out: !kaio.ptr<f32>, %n: i32)
      attributes {block_size = array<i32: 256>} {
    %tid = kaio.thread_id x : i32
    %bid = kaio.block_id x : i32
    %bdim = kaio.block_dim x : i32
    %base = arith.muli %bid, %bdim : i32
    %i = arith.addi %base, %tid : i32
    %inside = arith.cmpi ult, %i, %n : i32
    scf.if %inside {
      %one = arith.constant 1.0 : f32
      %xi = kaio.load %x[%i] : !kaio.ptr<f32>, i32 -> f32
      %g = kaio.load %gate[%i] : !kaio.ptr<f32>, i32 -> f32
      %negx = arith.negf %xi : f32
      %e = math.exp %negx : f32
      %den = arith.addf %one, %e : f32
      %sig = arith.divf %one, %den : f32
      %silu = arith.mulf %xi, %sig : f32
      %r = arith.mulf %silu, %g : f32
      kaio.store %r, %out[%i] : f32, !kaio.ptr<f32>, i32
    }
    kaio.return
  }
}
