// kaio.shared_store_vector: a thread's 4 (8 16-bit) consecutive values
// staged in a shared row with one st.shared.v4, where four scalar stores
// at a 16-byte lane stride would conflict; the warp then reads the row
// across, one element a lane, and writes global memory in whole lines.
// RUN: kaio-opt --kaio-to-ptx="chip=sm_80" %s | kaio-translate --mlir-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o %t.cubin %}
// PTX-LABEL: .entry stage_f32
// PTX: st.shared.v4.f32
// PTX: bar.sync 0;
// PTX: ld.shared.f32
// PTX-LABEL: .entry stage_f16
// PTX: st.shared.v4.b32
// PTX: ld.shared.b16

// The interpreter: y[i] = x[i + 3 - 2 * (i % 4)] (each 4-chunk reversed
// on its way through shared memory); one 16-byte store per thread and
// four 4-byte loads, none conflicting; the global stores 4 sectors a warp.
// RUN: kaio-run %s --interpret --chip sm_80 --kernel stage_f32 --grid 1 --block 128 --arg x=f32[512]:iota --arg y=f32[512]:zeros --profile --print y | FileCheck %s --check-prefix=F32
// F32: shared memory{{ +}}requests{{ +}}wavefronts{{ +}}ideal{{ +}}bank conflicts
// F32-NEXT: ld.shared{{ +}}16{{ +}}16{{ +}}16{{ +}}0{{$}}
// F32-NEXT: st.shared{{ +}}4{{ +}}16{{ +}}16{{ +}}0{{$}}
// F32-LABEL: y: f32[512]
// F32-NEXT: [0] 3
// F32-NEXT: [1] 2
// F32-NEXT: [2] 1
// F32-NEXT: [3] 0
// F32-NEXT: [4] 7
// F32: [504] 507
// F32: [511] 508
// RUN: kaio-run %s --interpret --chip sm_80 --kernel stage_f16 --grid 1 --block 32 --arg x=f16[256]:iota --arg y=f16[256]:zeros --print y | FileCheck %s --check-prefix=F16
// F16-LABEL: y: f16[256]
// F16-NEXT: [0] 7
// F16-NEXT: [1] 6
// F16: [7] 0
// F16: [248] 255
// F16: [255] 248

kaio.kernel @stage_f32(%x: !kaio.ptr<f32> {kaio.readonly}, %y: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 128>} {
  %row = kaio.shared_alloc : !kaio.smem<1x512xf32>
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %c384 = arith.constant 384 : i32
  %t = kaio.thread_id x : i32
  %i = arith.muli %t, %c4 : i32
  %v:4 = kaio.load_vector %x[%i] : !kaio.ptr<f32>, i32 -> f32, f32, f32, f32
  kaio.shared_store_vector %v#3, %v#2, %v#1, %v#0 to %row[%c0, %i] : (f32, f32, f32, f32), !kaio.smem<1x512xf32>
  kaio.barrier
  %j1 = arith.addi %t, %c128 : i32
  %j2 = arith.addi %t, %c256 : i32
  %j3 = arith.addi %t, %c384 : i32
  %a = kaio.shared_load %row[%c0, %t] : !kaio.smem<1x512xf32> -> f32
  %b = kaio.shared_load %row[%c0, %j1] : !kaio.smem<1x512xf32> -> f32
  %c = kaio.shared_load %row[%c0, %j2] : !kaio.smem<1x512xf32> -> f32
  %d = kaio.shared_load %row[%c0, %j3] : !kaio.smem<1x512xf32> -> f32
  kaio.store %a, %y[%t] : f32, !kaio.ptr<f32>, i32
  kaio.store %b, %y[%j1] : f32, !kaio.ptr<f32>, i32
  kaio.store %c, %y[%j2] : f32, !kaio.ptr<f32>, i32
  kaio.store %d, %y[%j3] : f32, !kaio.ptr<f32>, i32
  kaio.return
}

kaio.kernel @stage_f16(%x: !kaio.ptr<f16> {kaio.readonly}, %y: !kaio.ptr<f16>)
    attributes {block_size = array<i32: 32>} {
  %row = kaio.shared_alloc : !kaio.smem<1x256xf16>
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %c256 = arith.constant 256 : i32
  %t = kaio.thread_id x : i32
  %i = arith.muli %t, %c8 : i32
  %v:8 = kaio.load_vector %x[%i] : !kaio.ptr<f16>, i32 -> f16, f16, f16, f16, f16, f16, f16, f16
  kaio.shared_store_vector %v#7, %v#6, %v#5, %v#4, %v#3, %v#2, %v#1, %v#0 to %row[%c0, %i] : (f16, f16, f16, f16, f16, f16, f16, f16), !kaio.smem<1x256xf16>
  kaio.barrier
  scf.for %j = %t to %c256 step %c32 : i32 {
    %e = kaio.shared_load %row[%c0, %j] : !kaio.smem<1x256xf16> -> f16
    kaio.store %e, %y[%j] : f16, !kaio.ptr<f16>, i32
  }
  kaio.return
}
