// The whole pipeline: kaio kernels to ptx-dialect kernels, printed as PTX and
// assembled by ptxas.
// RUN: kaio-opt --kaio-to-ptx="chip=sm_80 fast-math=1" %s | FileCheck %s
// RUN: kaio-opt --kaio-to-ptx="chip=sm_80" %s | kaio-translate --mlir-to-ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ kaio-opt --kaio-to-ptx="chip=sm_80" %s | kaio-translate --mlir-to-ptx -o %t.sm_80.ptx && %ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}
// RUN: %if ptxas %{ kaio-opt --kaio-to-ptx="chip=sm_90" %s | kaio-translate --mlir-to-ptx -o %t.sm_90.ptx && %ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin %}

// Only ptx ops are left, in entries of a module that names its chip.
// CHECK: module attributes {ptx.target = "sm_80"}
// CHECK-NOT: kaio.
// CHECK-NOT: arith.
// CHECK-NOT: scf.
// CHECK-NOT: cf.
// CHECK-LABEL: ptx.entry @scale
// CHECK: ptx.cvta to global
// CHECK: ptx.sreg tid.x
// CHECK: ptx.setp
// CHECK: ptx.cond_bra
// CHECK: ptx.ld global nc f32
// CHECK: ptx.div approx f32
// CHECK: ptx.st global f32
// CHECK: ptx.ret
// PTX-LABEL: .visible .entry scale(
// PTX: .maxntid 128
// PTX: ld.global.nc.f32
// PTX: div.rn.f32
// PTX: st.global.f32
kaio.kernel @scale(%x: !kaio.ptr<f32> {kaio.readonly}, %y: !kaio.ptr<f32>,
                   %s: f32, %n: i32) attributes {block_size = array<i32: 128>} {
  %tid = kaio.thread_id x : i32
  %bid = kaio.block_id x : i32
  %bdim = kaio.block_dim x : i32
  %base = arith.muli %bid, %bdim : i32
  %i = arith.addi %base, %tid : i32
  %inside = arith.cmpi slt, %i, %n : i32
  scf.if %inside {
    %v = kaio.load %x[%i] : !kaio.ptr<f32>, i32 -> f32
    %r = arith.divf %v, %s : f32
    kaio.store %r, %y[%i] : f32, !kaio.ptr<f32>, i32
  }
  kaio.return
}

// A tile kernel: shared tiles get layouts, copies become cp.async groups,
// fragments ldmatrix and mma.sync, all in registers through the loop.
// CHECK-LABEL: ptx.entry @mma_tile
// CHECK: ptx.cp_async cg 16
// CHECK: ptx.cp_async_commit_group
// CHECK: ptx.cp_async_wait_group 0
// CHECK: ptx.bar_sync 0
// CHECK: ptx.ldmatrix [%{{.*}}] : i32 -> i32, i32, i32, i32
// CHECK: ptx.ldmatrix trans [%{{.*}}] : i32 -> i32, i32
// CHECK: ptx.mma_sync m16n8k16 row col f32 f16 f16 f32
// CHECK: ptx.st if %{{.*}} global f32
// PTX-LABEL: .visible .entry mma_tile(
// PTX: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 0;
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
kaio.kernel @mma_tile(%A: !kaio.ptr<f16> {kaio.readonly},
                      %B: !kaio.ptr<f16> {kaio.readonly},
                      %C: !kaio.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {block_size = array<i32: 32>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %As = kaio.shared_alloc : !kaio.smem<16x16xf16>
  %Bs = kaio.shared_alloc : !kaio.smem<16x8xf16>
  %init = kaio.frag_fill %zero : f32 -> !kaio.frag<acc, m16n8k16, f32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%c = %init)
      -> (!kaio.frag<acc, m16n8k16, f32>) : i32 {
    %ta = kaio.async_copy %A[%c0, %k] bounds [%M, %K] ld %K to %As
        : !kaio.ptr<f16>, !kaio.smem<16x16xf16>
    %tb = kaio.async_copy %B[%k, %c0] bounds [%K, %N] ld %N to %Bs
        : !kaio.ptr<f16>, !kaio.smem<16x8xf16>
    kaio.async_wait %ta, %tb
    kaio.barrier
    %a = kaio.load_fragment %As[%c0, %c0] : !kaio.smem<16x16xf16> -> !kaio.frag<a, m16n8k16, f16>
    %b = kaio.load_fragment %Bs[%c0, %c0] : !kaio.smem<16x8xf16> -> !kaio.frag<b, m16n8k16, f16>
    %d = kaio.mma %a, %b, %c : !kaio.frag<a, m16n8k16, f16>, !kaio.frag<b, m16n8k16, f16>, !kaio.frag<acc, m16n8k16, f32>
    kaio.barrier
    scf.yield %d : !kaio.frag<acc, m16n8k16, f32>
  }
  kaio.store_fragment %acc, %C[%c0, %c0] bounds [%M, %N] ld %N
      : !kaio.frag<acc, m16n8k16, f32>, !kaio.ptr<f32>
  kaio.return
}

// Block-level reductions and warp shuffles.
// CHECK-LABEL: ptx.entry @reduce
// CHECK: ptx.shfl_sync bfly
// CHECK: ptx.bar_sync 0
// CHECK: ptx.redux_sync add s32
// PTX-LABEL: .visible .entry reduce(
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync 0;
// PTX: redux.sync.add.s32
kaio.kernel @reduce(%x: !kaio.ptr<f32>, %out: !kaio.ptr<i32>) attributes {block_size = array<i32: 256>} {
  %tid = kaio.thread_id x : i32
  %v = kaio.load %x[%tid] : !kaio.ptr<f32>, i32 -> f32
  %s = kaio.block_reduce sum %v : f32
  %w = kaio.warp_reduce sum %tid : i32
  %c0 = arith.constant 0 : i32
  %old = kaio.atomic add %out[%c0], %w : !kaio.ptr<i32>, i32, i32
  kaio.store %s, %x[%tid] : f32, !kaio.ptr<f32>, i32
  kaio.return
}
