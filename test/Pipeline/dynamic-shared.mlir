// Tiles beyond the 48 KiB static limit live in dynamic shared memory: one
// extern array, each tile at an aligned offset, the kernel's need recorded
// (`dynamic_smem`, and `smem=N` in the signature comment) so that the
// runtime and the interpreter launch with it and opt in beyond 48 KiB.
// RUN: kaio-opt --kaio-to-ptx="chip=sm_90" %s | FileCheck %s
// RUN: kaio-opt --kaio-to-ptx="chip=sm_90" %s | kaio-translate --mlir-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// kaio-prof reads the requirement from the signature comment.
// RUN: kaio-prof %t.ptx --chip sm_90 --kernel big_tiles | FileCheck %s --check-prefix=PROF
// PROF: shared memory: 0 bytes static + 106496 dynamic
// RUN: kaio-opt --kaio-to-ptx="chip=sm_80" %s | kaio-translate --mlir-to-ptx -o %t.80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin %}

// The interpreter launches with the declared 106496 bytes (no --smem): each
// output is x[i] + x[8191 - i] = 8191, read back through both tiles.
// RUN: kaio-run %s --interpret --chip sm_90 --kernel big_tiles --grid 1 --block 256 --arg x=f32[8192]:iota --arg y=f32[8192]:zeros --print y | FileCheck %s --check-prefix=INTERP
// INTERP-LABEL: y: f32[8192]
// INTERP-NEXT: [0] 8191
// INTERP: min 8191  max 8191  mean 8191

// sm_86 allows 99 KiB per block: too much there.
// RUN: not kaio-opt --kaio-to-ptx="chip=sm_86" %s 2>&1 | FileCheck %s --check-prefix=SM86
// SM86: error: 'kaio.kernel' op uses 106496 bytes of shared memory; sm_86 allows at most 101376 per block

// CHECK: ptx.var shared @__kaio_dyn_smem : b8 extern align 1024
// CHECK-LABEL: ptx.entry @big_tiles
// CHECK-SAME: dynamic_smem = 106496 : i64
// CHECK-DAG: %[[C32K:.*]] = ptx.constant 32768 : i32
// CHECK-DAG: %[[C64K:.*]] = ptx.constant 65536 : i32
// CHECK-DAG: %[[DYN:.*]] = ptx.addressof @__kaio_dyn_smem : i32
// CHECK: ptx.add u32 %[[DYN]], %[[C32K]] : i32
// CHECK: ptx.add u32 %[[DYN]], %[[C64K]] : i32
// A kernel under the static limit keeps static arrays.
// CHECK-LABEL: ptx.entry @small
// CHECK-NOT: dynamic_smem
// CHECK: ptx.addressof @__kaio_smem_

// PTX: .extern .shared .align 1024 .b8 __kaio_dyn_smem[];
// PTX: // kaio.kernel big_tiles(ptr<const f32>,ptr<f32>) smem=106496 maxntid=256{{$}}
// PTX: // kaio.kernel small(ptr<f32>) maxntid=32{{$}}
kaio.kernel @big_tiles(%x: !kaio.ptr<f32> {kaio.readonly}, %y: !kaio.ptr<f32>)
    attributes {block_size = array<i32: 256>} {
  %a = kaio.shared_alloc : !kaio.smem<8192xf32>
  %b = kaio.shared_alloc : !kaio.smem<8192xf32>
  // A swizzled tile, aligned to its 1 KiB period at offset 65536.
  %s = kaio.shared_alloc : !kaio.smem<160x64xf32, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c256 = arith.constant 256 : i32
  %c8191 = arith.constant 8191 : i32
  %t = kaio.thread_id x : i32
  scf.for %k = %c0 to %c32 step %c1 : i32 {
    %kk = arith.muli %k, %c256 : i32
    %i = arith.addi %kk, %t : i32
    %v = kaio.load %x[%i] : !kaio.ptr<f32>, i32 -> f32
    kaio.shared_store %v, %a[%i] : f32, !kaio.smem<8192xf32>
    %j = arith.subi %c8191, %i : i32
    kaio.shared_store %v, %b[%j] : f32, !kaio.smem<8192xf32>
  }
  kaio.barrier
  scf.for %k = %c0 to %c32 step %c1 : i32 {
    %kk = arith.muli %k, %c256 : i32
    %i = arith.addi %kk, %t : i32
    %u = kaio.shared_load %a[%i] : !kaio.smem<8192xf32> -> f32
    %w = kaio.shared_load %b[%i] : !kaio.smem<8192xf32> -> f32
    %sum = arith.addf %u, %w : f32
    kaio.store %sum, %y[%i] : f32, !kaio.ptr<f32>, i32
  }
  %row = arith.divui %t, %c32 : i32
  %col = arith.remui %t, %c32 : i32
  %z = arith.constant 0.0 : f32
  kaio.shared_store %z, %s[%row, %col] : f32, !kaio.smem<160x64xf32, #kaio.layout<row_major, swizzle = <3, 4, 3>>>
  kaio.return
}

kaio.kernel @small(%y: !kaio.ptr<f32>) attributes {block_size = array<i32: 32>} {
  %a = kaio.shared_alloc : !kaio.smem<32xf32>
  %t = kaio.thread_id x : i32
  %v = kaio.shared_load %a[%t] : !kaio.smem<32xf32> -> f32
  kaio.store %v, %y[%t] : f32, !kaio.ptr<f32>, i32
  kaio.return
}
