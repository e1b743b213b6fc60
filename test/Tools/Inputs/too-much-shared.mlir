// Two tiles of 120000 bytes: more shared memory than any chip has (227 KiB).
kaio.kernel @too_much_shared(%p: !kaio.ptr<f32>) attributes {block_size = array<i32: 32>} {
  %a = kaio.shared_alloc : !kaio.smem<30000xf32>
  %b = kaio.shared_alloc : !kaio.smem<30000xf32>
  kaio.return
}
