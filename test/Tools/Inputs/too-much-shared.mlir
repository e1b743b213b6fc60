// Two tiles of 32 KiB: the kernel exceeds the 48 KiB static limit.
kaio.kernel @too_much_shared(%p: !kaio.ptr<f32>) attributes {block_size = array<i32: 32>} {
  %a = kaio.shared_alloc : !kaio.smem<8192xf32>
  %b = kaio.shared_alloc : !kaio.smem<8192xf32>
  kaio.return
}
