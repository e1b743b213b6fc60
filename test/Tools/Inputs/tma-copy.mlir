// A TMA tile copy: thread 0 loads a 16 x 64 f16 box of the tensor map at
// (x, y) into shared memory; every thread waits for the mbarrier phase and
// copies 16 bytes of the tile to `out` (row-major: no swizzle).
module attributes {ptx.target = "sm_90a"} {
  ptx.var shared @tile : b8 [2048] align 1024
  ptx.var shared @bar : b64 [1] align 8
  ptx.entry @tma_copy(%map: i64 {ptx.tensor_map}, %out: i64 {ptx.ptr = f16},
                      %x: i32, %y: i32) {
    %tid = ptx.sreg tid.x : i32
    %t = ptx.addressof @tile : i32
    %b = ptx.addressof @bar : i32
    %zero = ptx.constant 0 : i32
    %one = ptx.constant 1 : i32
    %c16 = ptx.constant 16 : i32
    %bytes = ptx.constant 2048 : i32
    %first = ptx.setp eq u32 %tid, %zero : i32
    ptx.mbarrier_init if %first [%b], %one : i32
    ptx.fence_mbarrier_init
    ptx.bar_sync 0
    %s = ptx.mbarrier_arrive if %first expect_tx shared [%b], %bytes : i32 -> i64
    ptx.cp_async_bulk_tensor_load if %first 2d [%t], [%map, {%x, %y}], [%b] : i32, i32
    ptx.bra ^wait
  ^wait:
    %ready = ptx.mbarrier_try_wait parity [%b], %zero : i32, i32
    ptx.cond_bra %ready, ^done, ^wait
  ^done:
    %off = ptx.mul lo s32 %tid, %c16 : i32
    %src = ptx.add s32 %t, %off : i32
    %v:4 = ptx.ld shared b32 [%src] : i32 -> i32, i32, i32, i32
    %goff = ptx.mul wide u32 %tid, %c16 : (i32, i32) -> i64
    %o = ptx.add s64 %out, %goff : i64
    ptx.st global b32 [%o], %v#0, %v#1, %v#2, %v#3 : i64, i32, i32, i32, i32
    ptx.ret
  }
}
