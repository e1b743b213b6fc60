// Every verifier rule of the sm_90a tile ops and !kaio.tensor_map, one case
// each (the generic ones of invalid.mlir apply too).
// RUN: kaio-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a tensor map box has 1 to 5 dimensions}}
func.func @tensor_map(%m: !kaio.tensor_map<1x1x1x1x1x16xf16>)

// -----

// expected-error @+1 {{tensor map box dimensions are 1 to 256, got 512}}
func.func @tensor_map(%m: !kaio.tensor_map<512x16xf16>)

// -----

// expected-error @+1 {{tensor map element must be a scalar or an 8-bit float (f8E4M3FN, f8E5M2), got 'index'}}
func.func @tensor_map(%m: !kaio.tensor_map<16x16xindex>)

// -----

// expected-error @+1 {{tensor map swizzle is 0, 32, 64 or 128 bytes, got 16}}
func.func @tensor_map(%m: !kaio.tensor_map<16x64xf16, swizzle = 16>)

// -----

// expected-error @+1 {{the box's inner dimension is 8 bytes; TMA needs a multiple of 16}}
func.func @tensor_map(%m: !kaio.tensor_map<16x4xf16>)

// -----

// expected-error @+1 {{the box's inner dimension is 128 bytes, wider than its 64-byte swizzle}}
func.func @tensor_map(%m: !kaio.tensor_map<16x64xf16, swizzle = 64>)

// -----

func.func @bars_f32(%b: !kaio.smem<4xf32>, %i: i32) {
  // expected-error @+1 {{'kaio.mbarrier_init' op mbarriers live in a 1-D tile of i64, got '!kaio.smem<4xf32>'}}
  kaio.mbarrier_init %b[%i], %i : !kaio.smem<4xf32>
  return
}

// -----

func.func @bars_index(%b: !kaio.smem<4xi64>, %p: i32) {
  %c4 = arith.constant 4 : i32
  // expected-error @+1 {{'kaio.mbarrier_wait' op mbarrier 4 is outside the 4 of '!kaio.smem<4xi64>'}}
  kaio.mbarrier_wait %b[%c4], %p : !kaio.smem<4xi64>
  return
}

// -----

func.func @bars_count(%b: !kaio.smem<4xi64>, %i: i32) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'kaio.mbarrier_init' op arrival count must be in [1, 2^20), got 0}}
  kaio.mbarrier_init %b[%i], %c0 : !kaio.smem<4xi64>
  return
}

// -----

func.func @bars_tx(%b: !kaio.smem<4xi64>, %i: i32) {
  %big = arith.constant 1048576 : i32
  // expected-error @+1 {{'kaio.mbarrier_arrive' op transaction bytes must be in [0, 2^20), got 1048576}}
  kaio.mbarrier_arrive %b[%i] expect_tx %big : !kaio.smem<4xi64>
  return
}

// -----

func.func @bars_parity(%b: !kaio.smem<4xi64>, %i: i32) {
  %c2 = arith.constant 2 : i32
  // expected-error @+1 {{'kaio.mbarrier_wait' op phase parity must be 0 or 1, got 2}}
  kaio.mbarrier_wait %b[%i], %c2 : !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_coords(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<4xi64>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_load' op expected 2 coordinates for}}
  kaio.tma_load %m[%i] to %t[%i], %b[%i] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_element(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xbf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<4xi64>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_load' op copies 'f16' elements into a tile of 'bf16'}}
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xbf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_no_layout(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xf16>, %b: !kaio.smem<4xi64>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_load' op the destination needs an explicit layout}}
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16>, !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_padded(%m: !kaio.tensor_map<128x64xf16>, %t: !kaio.smem<256x64xf16, #kaio.layout<row_major, pad = 8>>, %b: !kaio.smem<4xi64>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_load' op the destination must be row-major without padding}}
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<128x64xf16>, !kaio.smem<256x64xf16, #kaio.layout<row_major, pad = 8>>, !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_swizzle_mode(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 3, 4>>>, %b: !kaio.smem<4xi64>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_load' op the destination has swizzle <3, 3, 4>, which is not a hardware mode}}
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 3, 4>>>, !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_swizzle_mismatch(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xf16, #kaio.layout<row_major>>, %b: !kaio.smem<4xi64>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_load' op the map swizzles 128 bytes but the destination tile is not swizzled: TMA uses the map}}
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16, #kaio.layout<row_major>>, !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_row_bytes(%m: !kaio.tensor_map<64x128xf16>, %t: !kaio.smem<64x128xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<4xi64>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_load' op the destination rows are 256 bytes; its 128-byte swizzle needs rows of exactly 128}}
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<64x128xf16>, !kaio.smem<64x128xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_box_rows(%m: !kaio.tensor_map<16x32xf16>, %t: !kaio.smem<64x64xf16, #kaio.layout<row_major>>, %b: !kaio.smem<4xi64>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_load' op the box's rows are 32 elements but the tile's are 64}}
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<16x32xf16>, !kaio.smem<64x64xf16, #kaio.layout<row_major>>, !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_fit(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<4xi64>, %i: i32) {
  %r = arith.constant 192 : i32
  // expected-error @+1 {{'kaio.tma_load' op the box's 128 rows at row 192 do not fit the tile's 256}}
  kaio.tma_load %m[%i, %i] to %t[%r], %b[%i] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4xi64>
  return
}

// -----

func.func @tma_read_early(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<4xi64>, %i: i32) -> f16 {
  // expected-error @+1 {{'kaio.tma_load' op destination is read before a kaio.mbarrier_wait on its barrier: the copy may not have landed}}
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4xi64>
  // expected-note @+1 {{read here}}
  %x = kaio.shared_load %t[%i, %i] : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>> -> f16
  kaio.mbarrier_wait %b[%i], %i : !kaio.smem<4xi64>
  return %x : f16
}

// -----

// Writing it before the wait is a race too: the copy may land over it.
func.func @tma_write_early(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<4xi64>, %i: i32, %x: f16) {
  // expected-error @+1 {{'kaio.tma_load' op destination is written before a kaio.mbarrier_wait on its barrier: the copy may land over the write}}
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4xi64>
  // expected-note @+1 {{written here}}
  kaio.shared_store_vector %x, %x to %t[%i, %i] : (f16, f16), !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  kaio.mbarrier_wait %b[%i], %i : !kaio.smem<4xi64>
  return
}

// -----

// Reading after the wait is fine.
func.func @tma_read_after_wait(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<4xi64>, %i: i32) -> f16 {
  kaio.tma_load %m[%i, %i] to %t[%i], %b[%i] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4xi64>
  kaio.mbarrier_wait %b[%i], %i : !kaio.smem<4xi64>
  %x = kaio.shared_load %t[%i, %i] : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>> -> f16
  return %x : f16
}

// -----

func.func @mma_unswizzled(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op A must be swizzled (32, 64 or 128 bytes)}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_f32(%a: !kaio.smem<256x32xf32, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x32xf32, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op multiplies f16 or bf16 operands of one type or 8-bit floats (f8E4M3FN, f8E5M2), got 'f32' and 'f32'}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.smem<256x32xf32, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x32xf32, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_acc(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 2x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op the accumulator is a warp}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 2x8>
  return
}

// -----

func.func @mma_n(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<4096x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x33>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op no wgmma m64n264k16}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4096x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x33>
  return
}

// -----

func.func @mma_a_rows(%a: !kaio.smem<32x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op A has 32 rows; a warpgroup multiplies 64}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.smem<32x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_blocks(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x12>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op N = 96 is not a multiple of B's 64-column blocks}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x12>
  return
}

// -----

func.func @mma_b_rows(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x16>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op B needs 128 rows (N = 128, K = 64), the tile has 64}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x16>
  return
}

// -----

func.func @mma_row(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  %r = arith.constant 4 : i32
  // expected-error @+1 {{'kaio.warpgroup_mma' op A starts at row 4: it needs a multiple of 8 with 64 rows inside the tile's 256}}
  %d = kaio.warpgroup_mma %a[%r], %b[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_read_in_flight(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32, %p: !kaio.ptr<f32>) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op result is read before kaio.warpgroup_wait: wgmma writes it asynchronously}}
  %d = kaio.warpgroup_mma %a[%i], %a[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  // expected-note @+1 {{used here}}
  kaio.store_fragment %d, %p[%i, %i] bounds [%i, %i] ld %i : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.ptr<f32>
  return
}

// -----

func.func @mma_read_in_flight_loop(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32, %p: !kaio.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %c) -> (!kaio.frag<acc, m16n8k16, f32, 1x8>) {
    // expected-note @+1 {{used here}}
    kaio.store_fragment %acc, %p[%i, %i] bounds [%i, %i] ld %i : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.ptr<f32>
    // expected-error @+1 {{'kaio.warpgroup_mma' op result is read before kaio.warpgroup_wait}}
    %d = kaio.warpgroup_mma %a[%i], %a[%i], %acc : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
    scf.yield %d : !kaio.frag<acc, m16n8k16, f32, 1x8>
  }
  %w = kaio.warpgroup_wait %r pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @wait_pending(%c: !kaio.frag<acc, m16n8k16, f32, 1x8>) {
  // expected-error @+1 {{'kaio.warpgroup_wait' op pending must be in [0, 7], got 8}}
  kaio.warpgroup_wait pending 8
  return
}

// -----

func.func @wait_acc_pending(%c: !kaio.frag<acc, m16n8k16, f32, 1x8>) {
  // expected-error @+1 {{'kaio.warpgroup_wait' op with pending 1, an accumulator must come from a kaio.warpgroup_mma earlier in this block}}
  %w = kaio.warpgroup_wait %c pending 1 : !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @wait_acc_pending_newest(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  %s = kaio.warpgroup_mma %a[%i], %a[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  %o = kaio.warpgroup_mma %a[%i], %a[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  // expected-error @+1 {{'kaio.warpgroup_wait' op with pending 1 the accumulator's group may still be in flight: only 0 warpgroup_mma follow it before the wait}}
  %r = kaio.warpgroup_wait %o pending 1 : !kaio.frag<acc, m16n8k16, f32, 1x8>
  %w:2 = kaio.warpgroup_wait %s, %r pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

// The older of two groups is complete once at most one is pending.
func.func @wait_acc_pending_older(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32, %p: !kaio.ptr<f32>) {
  %s = kaio.warpgroup_mma %a[%i], %a[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  %o = kaio.warpgroup_mma %a[%i], %a[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  %r = kaio.warpgroup_wait %s pending 1 : !kaio.frag<acc, m16n8k16, f32, 1x8>
  kaio.store_fragment %r, %p[%i, %i] bounds [%i, %i] ld %i : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.ptr<f32>
  %w = kaio.warpgroup_wait %o pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @setmaxnreg() {
  // expected-error @+1 {{'kaio.setmaxnreg' op count must be a multiple of 8 in [24, 256], got 20}}
  kaio.setmaxnreg inc 20
  return
}

// -----

module attributes {kaio.target = "sm_80"} {
  kaio.kernel @tma_sm80(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>) attributes {block_size = array<i32: 128>} {
    %c0 = arith.constant 0 : i32
    %t = kaio.shared_alloc : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
    %b = kaio.shared_alloc : !kaio.smem<4xi64>
    // expected-error @+1 {{'kaio.tma_load' op needs sm_90, but the module targets sm_80}}
    kaio.tma_load %m[%c0, %c0] to %t[%c0], %b[%c0] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4xi64>
    kaio.return
  }
}

// -----

module attributes {kaio.target = "sm_90"} {
  kaio.kernel @wgmma_sm90() attributes {block_size = array<i32: 128>} {
    // expected-error @+1 {{'kaio.setmaxnreg' op needs sm_90a, but the module targets sm_90}}
    kaio.setmaxnreg dec 40
    kaio.return
  }
}

// -----

func.func @mma_b_unswizzled(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op B must be swizzled (32, 64 or 128 bytes)}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_a_no_row(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op A from a shared tile needs its first row: %a[%row]}}
  %d = kaio.warpgroup_mma %a, %a[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_a_regs_row(%a: !kaio.frag<a, m16n8k16, f16, 1x4>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op A in registers takes no row}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.frag<a, m16n8k16, f16, 1x4>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_a_regs_tile(%a: !kaio.frag<a, m16n8k16, f16, 2x4>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op A in registers is a warp's 16 rows, !kaio.frag<a, m16n8k16, f16|bf16, 1xK/16>; got '!kaio.frag<a, m16n8k16, f16, 2x4>'}}
  %d = kaio.warpgroup_mma %a, %b[%i], %c : !kaio.frag<a, m16n8k16, f16, 2x4>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_transpose_width(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x32xf16, #kaio.layout<row_major, swizzle = <2, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op a transposed B holds rows of K = 64, the tile's are 32}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i] transpose, %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x32xf16, #kaio.layout<row_major, swizzle = <2, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_transpose_rows(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x16>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op B needs 128 rows (N = 128, K = 64), the tile has 64}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i] transpose, %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x16>
  return
}

// -----

func.func @named_barrier_id() {
  // expected-error @+1 {{'kaio.barrier' op named barrier ids are 1 to 15 (0 is the block's), got 0}}
  kaio.barrier id 0, threads 128
  return
}

// -----

func.func @named_barrier_warps() {
  // expected-error @+1 {{'kaio.barrier' op a named barrier waits for whole warps: 32 to 1024 threads in steps of 32, got 48}}
  kaio.barrier id 1, threads 48
  return
}

// -----

// A named barrier of the consumer warps may sit under thread-dependent
// control flow (the block barrier may not: invalid.mlir).
kaio.kernel @named_barrier_in_branch() attributes {block_size = array<i32: 256>} {
  %c128 = arith.constant 128 : i32
  %tid = kaio.thread_id x : i32
  %consumer = arith.cmpi uge, %tid, %c128 : i32
  scf.if %consumer {
    kaio.barrier id 1, threads 128
  }
  kaio.return
}

// -----

func.func @tma_store_element(%t: !kaio.smem<64x64xbf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %m: !kaio.tensor_map<64x64xf16, swizzle = 128>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_store' op copies 'f16' elements from a tile of 'bf16'}}
  kaio.tma_store %t[%i] to %m[%i, %i] : !kaio.smem<64x64xbf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.tensor_map<64x64xf16, swizzle = 128>
  return
}

// -----

func.func @tma_store_swizzle(%t: !kaio.smem<64x64xf16, #kaio.layout<row_major>>, %m: !kaio.tensor_map<64x64xf16, swizzle = 128>, %i: i32) {
  // expected-error @+1 {{'kaio.tma_store' op the map swizzles 128 bytes but the source tile is not swizzled: TMA uses the map's layout}}
  kaio.tma_store %t[%i] to %m[%i, %i] : !kaio.smem<64x64xf16, #kaio.layout<row_major>>, !kaio.tensor_map<64x64xf16, swizzle = 128>
  return
}

// -----

func.func @tma_store_wait() {
  // expected-error @+1 {{'kaio.tma_store_wait' op pending must be in [0, 255], got 300}}
  kaio.tma_store_wait pending 300
  return
}

// -----

func.func @stage_a_fragment(%a: !kaio.frag<a, m16n8k16, f16>, %t: !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %i: i32) {
  // expected-error @+1 {{'kaio.shared_store_fragment' op stores accumulator fragments, got '!kaio.frag<a, m16n8k16, f16>'}}
  kaio.shared_store_fragment %a, %t[%i, %i] : !kaio.frag<a, m16n8k16, f16>, !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  return
}

// -----

func.func @stage_into_i32(%c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %t: !kaio.smem<64x64xi32>, %i: i32) {
  // expected-error @+1 {{'kaio.shared_store_fragment' op stores float accumulators into f32, f16 or bf16 tiles, got 'i32'}}
  kaio.shared_store_fragment %c, %t[%i, %i] : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.smem<64x64xi32>
  return
}

// -----

func.func @stage_sums_as_floats(%c: !kaio.frag<acc, m16n8k32, i32, 1x8>, %t: !kaio.smem<64x64xf32>, %i: i32) {
  // expected-error @+1 {{'kaio.shared_store_fragment' op stores i32 accumulators into i32 tiles, got 'f32'}}
  kaio.shared_store_fragment %c, %t[%i, %i] : !kaio.frag<acc, m16n8k32, i32, 1x8>, !kaio.smem<64x64xf32>
  return
}

// -----

func.func @stage_fit(%c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %t: !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %i: i32) {
  %c56 = arith.constant 56 : i32
  // expected-error @+1 {{'kaio.shared_store_fragment' op the 16 x 64 accumulator does not fit the '!kaio.smem<64x64xf16, <row_major, swizzle = <3, 4, 3>>>' there}}
  kaio.shared_store_fragment %c, %t[%c56, %i] : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  return
}

// -----

module attributes {kaio.target = "sm_80"} {
  kaio.kernel @tma_store_sm80(%m: !kaio.tensor_map<64x64xf16, swizzle = 128>) attributes {block_size = array<i32: 128>} {
    %c0 = arith.constant 0 : i32
    %t = kaio.shared_alloc : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
    // expected-error @+1 {{'kaio.tma_store' op needs sm_90, but the module targets sm_80}}
    kaio.tma_store %t[%c0] to %m[%c0, %c0] : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.tensor_map<64x64xf16, swizzle = 128>
    kaio.return
  }
}

// -----

func.func @mma_acc_shared(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op result, still in flight, is the accumulator of another kaio.warpgroup_mma and has other uses}}
  %d1 = kaio.warpgroup_mma %a[%i], %a[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  // expected-note @+1 {{used here}}
  %d2 = kaio.warpgroup_mma %a[%i], %a[%i], %d1 : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  %r:2 = kaio.warpgroup_wait %d1, %d2 pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_out_of_execute_region(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op result is read before kaio.warpgroup_wait}}
  %d = kaio.warpgroup_mma %a[%i], %a[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  %r = scf.execute_region -> !kaio.frag<acc, m16n8k16, f32, 1x8> {
    // expected-note @+1 {{used here}}
    scf.yield %d : !kaio.frag<acc, m16n8k16, f32, 1x8>
  }
  %w = kaio.warpgroup_wait %r pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @tma_wait_other_barrier(%m: !kaio.tensor_map<128x64xf16, swizzle = 128>, %t: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<4xi64>) -> f16 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'kaio.tma_load' op destination is read before a kaio.mbarrier_wait on its barrier}}
  kaio.tma_load %m[%c0, %c0] to %t[%c0], %b[%c0] : !kaio.tensor_map<128x64xf16, swizzle = 128>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<4xi64>
  kaio.mbarrier_wait %b[%c1], %c0 : !kaio.smem<4xi64>
  // expected-note @+1 {{read here}}
  %x = kaio.shared_load %t[%c0, %c0] : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>> -> f16
  return %x : f16
}

// -----

func.func @tma_row_alignment(%m: !kaio.tensor_map<8x32xf16, swizzle = 64>, %t: !kaio.smem<64x32xf16, #kaio.layout<row_major, swizzle = <2, 4, 3>>>, %b: !kaio.smem<4xi64>, %i: i32) {
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'kaio.tma_load' op row 1 starts 64 bytes into the tile; TMA needs 128-byte aligned shared addresses}}
  kaio.tma_load %m[%i, %i] to %t[%c1], %b[%i] : !kaio.tensor_map<8x32xf16, swizzle = 64>, !kaio.smem<64x32xf16, #kaio.layout<row_major, swizzle = <2, 4, 3>>>, !kaio.smem<4xi64>
  return
}

// -----

// A tile written by threads and read by wgmma needs a proxy fence.
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @unfenced(%v: f16) attributes {block_size = array<i32: 128>} {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant 0.0 : f32
    %t = kaio.shared_alloc : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
    // expected-note @+1 {{written here}}
    kaio.shared_store %v, %t[%c0, %c0] : f16, !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
    kaio.barrier
    %acc = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32, 1x8>
    // expected-error @+1 {{'kaio.warpgroup_mma' op reads a tile through the async proxy that generic stores write, and the kernel never fences them}}
    %d = kaio.warpgroup_mma %t[%c0], %t[%c0] transpose, %acc : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
    %r = kaio.warpgroup_wait %d pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>
    kaio.return
  }
}

// -----

// The same with the fence.
module attributes {kaio.target = "sm_90a"} {
  kaio.kernel @fenced(%v: f16) attributes {block_size = array<i32: 128>} {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant 0.0 : f32
    %t = kaio.shared_alloc : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
    kaio.shared_store %v, %t[%c0, %c0] : f16, !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
    kaio.fence_proxy_async
    kaio.barrier
    %acc = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32, 1x8>
    %d = kaio.warpgroup_mma %t[%c0], %t[%c0] transpose, %acc : !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
    %r = kaio.warpgroup_wait %d pending 0 : !kaio.frag<acc, m16n8k16, f32, 1x8>
    kaio.return
  }
}

// -----

kaio.kernel @named_barrier_too_big() attributes {block_size = array<i32: 128>} {
  // expected-error @+1 {{'kaio.barrier' op waits for 256 threads but the block has 128: it would never open}}
  kaio.barrier id 1, threads 256
  kaio.return
}

// -----

func.func @mma_ta_no_k(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op a transposed A needs its K: {k = 64}}}
  %d = kaio.warpgroup_mma %a[%i] transpose, %b[%i], %c : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_k_without_ta(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op k is for a transposed A; otherwise K is A's columns}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c {k = 64} : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_ta_k16(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op k must be a positive multiple of 16, got 40}}
  %d = kaio.warpgroup_mma %a[%i] transpose, %b[%i], %c {k = 40} : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_ta_rows(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op A needs 512 rows (64 / 64 blocks of K = 512), the tile has 256}}
  %d = kaio.warpgroup_mma %a[%i] transpose, %b[%i], %c {k = 512} : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_ta_vs_transposed_b(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op a transposed B holds rows of K = 32, the tile's are 64}}
  %d = kaio.warpgroup_mma %a[%i] transpose, %b[%i] transpose, %c {k = 32} : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_ta_row(%a: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  %c4 = arith.constant 4 : i32
  // expected-error @+1 {{'kaio.warpgroup_mma' op A starts at row 4: it needs a multiple of 8 with 64 rows inside the tile's 256}}
  %d = kaio.warpgroup_mma %a[%c4] transpose, %b[%i], %c {k = 64} : !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_ta_regs(%a: !kaio.frag<a, m16n8k16, f16, 1x4>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op A in registers is not transposed: only a shared tile can hold A^T}}
  %d = kaio.warpgroup_mma %a transpose, %b[%i], %c {k = 64} : !kaio.frag<a, m16n8k16, f16, 1x4>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_fp8_n_major_b(%a: !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op 8-bit float operands are K-major shared tiles: A not transposed, B with `transpose`}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i], %c : !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_fp8_mixed(%a: !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %b: !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op multiplies f16 or bf16 operands of one type or 8-bit floats (f8E4M3FN, f8E5M2), got 'f8E4M3FN' and 'f16'}}
  %d = kaio.warpgroup_mma %a[%i], %b[%i] transpose, %c : !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.smem<256x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @mma_fp8_k(%a: !kaio.smem<128x16xf8E4M3FN, #kaio.layout<row_major, swizzle = <0, 4, 3>>>, %c: !kaio.frag<acc, m16n8k16, f32, 1x8>, %i: i32) {
  // expected-error @+1 {{'kaio.warpgroup_mma' op A must be swizzled}}
  %d = kaio.warpgroup_mma %a[%i], %a[%i] transpose, %c : !kaio.smem<128x16xf8E4M3FN, #kaio.layout<row_major, swizzle = <0, 4, 3>>>, !kaio.smem<128x16xf8E4M3FN, #kaio.layout<row_major, swizzle = <0, 4, 3>>>, !kaio.frag<acc, m16n8k16, f32, 1x8>
  return
}

// -----

func.func @fp8_load_fragment(%a: !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %i: i32) {
  // expected-error @+1 {{'kaio.load_fragment' op a tile of 'f8E4M3FN' is filled by kaio.tma_load and read by kaio.warpgroup_mma only}}
  %x = kaio.load_fragment %a[%i, %i] : !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>> -> !kaio.frag<a, m16n8k32, f8E4M3FN, 1x1>
  return
}

// -----

func.func @fp8_shared_load(%a: !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>>, %i: i32) {
  // expected-error @+1 {{'kaio.shared_load' op result #0 must be scalar, but got 'f8E4M3FN'}}
  %x = kaio.shared_load %a[%i, %i] : !kaio.smem<128x128xf8E4M3FN, #kaio.layout<row_major, swizzle = <3, 4, 3>>> -> f8E4M3FN
  return
}

// -----

!T = !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
kaio.kernel @multicast_alone(%map: !kaio.tensor_map<64x64xf16, swizzle = 128>, %m: i32)
    attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %t = kaio.shared_alloc : !T
  %bars = kaio.shared_alloc : !kaio.smem<1xi64>
  // expected-error @+1 {{'kaio.tma_load' op multicast needs a kernel with cluster_size}}
  kaio.tma_load %map[%c0, %c0] to %t[%c0], %bars[%c0] multicast %m
      : !kaio.tensor_map<64x64xf16, swizzle = 128>, !T, !kaio.smem<1xi64>
  kaio.return
}

// -----

!T = !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
kaio.kernel @multicast_beyond(%map: !kaio.tensor_map<64x64xf16, swizzle = 128>)
    attributes {block_size = array<i32: 128>, cluster_size = array<i32: 2>} {
  %c0 = arith.constant 0 : i32
  %c5 = arith.constant 5 : i32
  %t = kaio.shared_alloc : !T
  %bars = kaio.shared_alloc : !kaio.smem<1xi64>
  // expected-error @+1 {{'kaio.tma_load' op multicast mask 5 must name blocks 0..1 of the cluster}}
  kaio.tma_load %map[%c0, %c0] to %t[%c0], %bars[%c0] multicast %c5
      : !kaio.tensor_map<64x64xf16, swizzle = 128>, !T, !kaio.smem<1xi64>
  kaio.return
}

// -----

!T = !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
kaio.kernel @multicast_nobody(%map: !kaio.tensor_map<64x64xf16, swizzle = 128>)
    attributes {block_size = array<i32: 128>, cluster_size = array<i32: 2>} {
  %c0 = arith.constant 0 : i32
  %t = kaio.shared_alloc : !T
  %bars = kaio.shared_alloc : !kaio.smem<1xi64>
  // expected-error @+1 {{'kaio.tma_load' op multicast mask 0 must name blocks 0..1 of the cluster}}
  kaio.tma_load %map[%c0, %c0] to %t[%c0], %bars[%c0] multicast %c0
      : !kaio.tensor_map<64x64xf16, swizzle = 128>, !T, !kaio.smem<1xi64>
  kaio.return
}

// -----

kaio.kernel @remote_alone(%r: i32) attributes {block_size = array<i32: 128>} {
  %c0 = arith.constant 0 : i32
  %bars = kaio.shared_alloc : !kaio.smem<1xi64>
  // expected-error @+1 {{'kaio.mbarrier_arrive' op on_block needs a kernel with cluster_size}}
  kaio.mbarrier_arrive %bars[%c0] on_block %r : !kaio.smem<1xi64>
  kaio.return
}

// -----

kaio.kernel @remote_beyond() attributes {block_size = array<i32: 128>, cluster_size = array<i32: 2>} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %bars = kaio.shared_alloc : !kaio.smem<1xi64>
  // expected-error @+1 {{'kaio.mbarrier_arrive' op on_block 2 is not a block of the 2-block cluster}}
  kaio.mbarrier_arrive %bars[%c0] on_block %c2 : !kaio.smem<1xi64>
  kaio.return
}

// -----

!T = !kaio.smem<64x64xf16, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
module attributes {kaio.target = "sm_90"} {
  kaio.kernel @multicast_sm90(%map: !kaio.tensor_map<64x64xf16, swizzle = 128>)
      attributes {block_size = array<i32: 128>, cluster_size = array<i32: 2>} {
    %c0 = arith.constant 0 : i32
    %c3 = arith.constant 3 : i32
    %t = kaio.shared_alloc : !T
    %bars = kaio.shared_alloc : !kaio.smem<1xi64>
    // expected-error @+1 {{'kaio.tma_load' op needs sm_90a, but the module targets sm_90}}
    kaio.tma_load %map[%c0, %c0] to %t[%c0], %bars[%c0] multicast %c3
        : !kaio.tensor_map<64x64xf16, swizzle = 128>, !T, !kaio.smem<1xi64>
    kaio.return
  }
}
