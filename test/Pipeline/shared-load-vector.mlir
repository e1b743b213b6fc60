// kaio.shared_load_vector: a thread's own 16-byte chunk of a staged row in
// one ld.shared.v4 (eight 16-bit elements as four b32 words), where four
// scalar loads at a 16-byte lane stride would conflict 4 ways.
// RUN: kaio-opt --kaio-to-ptx="chip=sm_80" %s | kaio-translate --mlir-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}
// PTX-LABEL: .entry reverse_chunks_f32
// PTX: cp.async.cg.shared.global
// PTX: ld.shared.v4.f32
// PTX-LABEL: .entry reverse_chunks_f16
// PTX: ld.shared.v4.b32

// The interpreter: y[i] = x[i + 3 - 2 * (i % 4)] (each chunk reversed),
// and its profile counts one shared load per thread without a conflict.
// RUN: kaio-run %s --interpret --chip sm_80 --kernel reverse_chunks_f32 --grid 1 --block 128 --arg x=f32[512]:iota --arg y=f32[512]:zeros --profile --print y | FileCheck %s --check-prefix=F32
// F32: ld.shared.16B{{ +}}4{{ }}
// F32: shared memory{{ +}}requests{{ +}}wavefronts{{ +}}ideal{{ +}}bank conflicts
// F32-NEXT: cp.async{{ +}}4{{ +}}16{{ +}}16{{ +}}0{{$}}
// F32-NEXT: ld.shared{{ +}}4{{ +}}16{{ +}}16{{ +}}0{{$}}
// F32-LABEL: y: f32[512]
// F32-NEXT: [0] 3
// F32-NEXT: [1] 2
// F32-NEXT: [2] 1
// F32-NEXT: [3] 0
// F32-NEXT: [4] 7
// F32: [504] 507
// F32: [511] 508
// RUN: kaio-run %s --interpret --chip sm_80 --kernel reverse_chunks_f16 --grid 1 --block 32 --arg x=f16[256]:iota --arg y=f16[256]:zeros --print y | FileCheck %s --check-prefix=F16
// F16-LABEL: y: f16[256]
// F16-NEXT: [0] 7
// F16-NEXT: [1] 6
// F16: [7] 0
// F16: [248] 255
// F16: [255] 248

kaio.kernel @reverse_chunks_f32(%x: !kaio.ptr<f32> {kaio.readonly}, %y: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 128>} {
  %row = kaio.shared_alloc : !kaio.smem<1x512xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c512 = arith.constant 512 : i32
  %t = kaio.thread_id x : i32
  %tok = kaio.async_copy %x[%c0, %c0] bounds [%c1, %c512] ld %c512 to %row aligned : !kaio.ptr<f32>, !kaio.smem<1x512xf32>
  kaio.async_wait %tok
  kaio.barrier
  %i = arith.muli %t, %c4 : i32
  %a, %b, %c, %d = kaio.shared_load_vector %row[%c0, %i] : !kaio.smem<1x512xf32> -> f32, f32, f32, f32
  kaio.store_vector %d, %c, %b, %a to %y[%i] : (f32, f32, f32, f32), !kaio.ptr<f32>, i32
  kaio.return
}

kaio.kernel @reverse_chunks_f16(%x: !kaio.ptr<f16> {kaio.readonly}, %y: !kaio.ptr<f16>)
    attributes {block_size = array<i32: 32>} {
  %row = kaio.shared_alloc : !kaio.smem<1x256xf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c256 = arith.constant 256 : i32
  %t = kaio.thread_id x : i32
  %tok = kaio.async_copy %x[%c0, %c0] bounds [%c1, %c256] ld %c256 to %row aligned : !kaio.ptr<f16>, !kaio.smem<1x256xf16>
  kaio.async_wait %tok
  kaio.barrier
  %i = arith.muli %t, %c8 : i32
  %v:8 = kaio.shared_load_vector %row[%c0, %i] : !kaio.smem<1x256xf16> -> f16, f16, f16, f16, f16, f16, f16, f16
  kaio.store_vector %v#7, %v#6, %v#5, %v#4, %v#3, %v#2, %v#1, %v#0 to %y[%i] : (f16, f16, f16, f16, f16, f16, f16, f16), !kaio.ptr<f16>, i32
  kaio.return
}
