// Two kernels: kaio-run compiles only the one it runs. @too_big_for_sm_80
// verifies but does not lower for sm_80 (200 KiB of shared memory, above
// its 163 KiB), so running @scale on sm_80 shows it was never compiled.
module {
  kaio.kernel @scale(%x: !kaio.ptr<f32>, %n: i32)
      attributes {block_size = array<i32: 64>} {
    %t = kaio.thread_id x : i32
    %b = kaio.block_id x : i32
    %d = kaio.block_dim x : i32
    %base = arith.muli %b, %d : i32
    %i = arith.addi %base, %t : i32
    %in = arith.cmpi ult, %i, %n : i32
    scf.if %in {
      %v = kaio.load %x[%i] : !kaio.ptr<f32>, i32 -> f32
      %two = arith.constant 2.0 : f32
      %w = arith.mulf %v, %two : f32
      kaio.store %w, %x[%i] : f32, !kaio.ptr<f32>, i32
    }
    kaio.return
  }
  kaio.kernel @too_big_for_sm_80(%x: !kaio.ptr<f32>)
      attributes {block_size = array<i32: 32>} {
    %a = kaio.shared_alloc : !kaio.smem<51200xf32>
    %t = kaio.thread_id x : i32
    %v = kaio.shared_load %a[%t] : !kaio.smem<51200xf32> -> f32
    kaio.store %v, %x[%t] : f32, !kaio.ptr<f32>, i32
    kaio.return
  }
}
