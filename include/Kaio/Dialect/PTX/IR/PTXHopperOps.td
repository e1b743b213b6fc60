//===- PTXHopperOps.td - sm_90 ptx operations --------------*- tablegen -*-===//
//
// The Hopper instruction families: mbarrier, proxy fences, elect.sync and
// setmaxnreg, thread block clusters, bulk asynchronous copies (TMA) and
// warpgroup MMA. Same rules as PTXOps.td: one op per instruction family,
// modifiers as attributes, PTX_Requires<sm, isa, arch> for what the op needs
// (verified against the ptx.target/ptx.version of the module).
//
// Shared memory addresses are `.shared::cta` addresses (i32 or i64); the
// state space attribute `shared_cluster` selects `.shared::cluster` where
// an instruction may reach another CTA of the cluster.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_DIALECT_PTX_IR_PTXHOPPEROPS_TD
#define KAIO_DIALECT_PTX_IR_PTXHOPPEROPS_TD

include "Kaio/Dialect/PTX/IR/PTXOpBase.td"

defvar GuardFmt = "(`if` (`not` $guard_negated^)? $guard^)?";

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

def PTX_MBarrierInitOp : PTX_Inst<"mbarrier_init", [], 80, 78> {
  let summary = "initialise an mbarrier object "
                "(`mbarrier.init.shared::cta.b64 [addr], count`)";
  let arguments = !con((ins PTX_AddrReg:$addr, I32:$count), guardArgs);
  let assemblyFormat = GuardFmt # [{
    ` ` `[` $addr `]` `,` $count attr-dict `:` type($addr)
  }];
}

def PTX_MBarrierInvalOp : PTX_Inst<"mbarrier_inval", [], 80, 78> {
  let summary = "invalidate an mbarrier object "
                "(`mbarrier.inval.shared::cta.b64 [addr]`)";
  let arguments = !con((ins PTX_AddrReg:$addr), guardArgs);
  let assemblyFormat = GuardFmt # [{
    ` ` `[` $addr `]` attr-dict `:` type($addr)
  }];
}

def PTX_MBarrierArriveOp : PTX_Inst<"mbarrier_arrive",
    [AttrSizedOperandSegments], 80, 78, 1> {
  let summary = "arrive on an mbarrier "
                "(`mbarrier.arrive{.expect_tx}{.sem.scope}.space.b64`)";
  let description = [{
    `%s = ptx.mbarrier_arrive shared [%b] : i32 -> i64` prints
    `mbarrier.arrive.shared::cta.b64 %rd1, [%r1]`. The optional `count`
    operand is the arrival count (sm_90) or, with `expect_tx`, the number of
    transaction bytes the barrier now expects. `release`/`relaxed` come with
    a scope (`cta`, `cluster`). On `shared_cluster` (a barrier of any CTA in
    the cluster) there is no state result; without a result a local arrive
    prints the sink `_`.

    ```mlir
    %s = ptx.mbarrier_arrive expect_tx release cta shared [%b], %bytes : i32 -> i64
    ptx.mbarrier_arrive release cluster shared_cluster [%remote] : i32
    ```
  }];
  let arguments = !con((ins UnitAttr:$expect_tx,
                            OptionalAttr<PTX_MemOrder>:$sem,
                            OptionalAttr<PTX_MemScope>:$scope,
                            PTX_StateSpace:$space, PTX_AddrReg:$addr,
                            Optional<I32>:$count), guardArgs);
  let results = (outs Optional<I64>:$state);
  let assemblyFormat = GuardFmt # [{
    (`expect_tx` $expect_tx^)? ($sem^)? ($scope^)? $space ` ` `[` $addr `]`
    (`,` $count^)? attr-dict `:` type($addr) (`->` type($state)^)?
  }];
  let hasVerifier = 1;
}

def PTX_MBarrierExpectTxOp : PTX_Inst<"mbarrier_expect_tx", [], 90, 80> {
  let summary = "raise the expected transaction bytes of an mbarrier "
                "(`mbarrier.expect_tx{.relaxed.scope}.space.b64`)";
  let arguments = !con((ins OptionalAttr<PTX_MemOrder>:$sem,
                            OptionalAttr<PTX_MemScope>:$scope,
                            PTX_StateSpace:$space, PTX_AddrReg:$addr,
                            I32:$tx_count), guardArgs);
  let assemblyFormat = GuardFmt # [{
    ($sem^)? ($scope^)? $space ` ` `[` $addr `]` `,` $tx_count attr-dict `:`
    type($addr)
  }];
  let hasVerifier = 1;
}

def PTX_MBarrierTryWaitOp : PTX_Inst<"mbarrier_try_wait",
    [AttrSizedOperandSegments], 90, 78, 1> {
  let summary = "test an mbarrier phase, waiting for a while "
                "(`mbarrier.try_wait{.parity}{.sem.scope}.shared::cta.b64`)";
  let description = [{
    `%done = ptx.mbarrier_try_wait [%b], %state : i32, i64` tests the phase
    of the i64 state token an arrive returned; with `parity` it tests the
    phase parity (an i32, 0 or 1). The optional `hint` is the suspend time
    limit in nanoseconds.
  }];
  let arguments = !con((ins UnitAttr:$parity,
                            OptionalAttr<PTX_MemOrder>:$sem,
                            OptionalAttr<PTX_MemScope>:$scope,
                            PTX_AddrReg:$addr,
                            AnyTypeOf<[I32, I64]>:$phase,
                            Optional<I32>:$hint), guardArgs);
  let results = (outs PTX_Pred:$ready);
  let assemblyFormat = GuardFmt # [{
    (`parity` $parity^)? ($sem^)? ($scope^)? ` ` `[` $addr `]` `,` $phase
    (`hint` $hint^)? attr-dict `:` type($addr) `,` type($phase)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Proxy fences, elect.sync, setmaxnreg
//===----------------------------------------------------------------------===//

def PTX_FenceProxyAsyncOp : PTX_Inst<"fence_proxy_async", [], 90, 80> {
  let summary = "order generic-proxy accesses against the async proxy "
                "(`fence.proxy.async{.space}`)";
  let description = [{
    Without a state space the fence covers all of them; `shared` prints
    `.shared::cta`, `shared_cluster` `.shared::cluster`, `global` `.global`.
  }];
  let arguments = !con((ins OptionalAttr<PTX_StateSpace>:$space), guardArgs);
  let assemblyFormat = GuardFmt # " ($space^)? attr-dict";
  let hasVerifier = 1;
}

def PTX_FenceMBarrierInitOp : PTX_Inst<"fence_mbarrier_init", [], 90, 80> {
  let summary = "make mbarrier.init visible to the cluster "
                "(`fence.mbarrier_init.release.cluster`)";
  let arguments = guardArgs;
  let assemblyFormat = GuardFmt # " attr-dict";
}

def PTX_ElectSyncOp : PTX_Inst<"elect_sync", [], 90, 80> {
  let summary = "elect one leader lane (`elect.sync d|p, membermask`)";
  let description = [{
    `%lane, %is_leader = ptx.elect_sync %mask`: the elected lane's id and
    whether this lane is it. An unused lane id prints as the sink `_`.
  }];
  let arguments = !con((ins I32:$mask), guardArgs);
  let results = (outs I32:$leader, PTX_Pred:$is_leader);
  let assemblyFormat = GuardFmt # " $mask attr-dict";
}

def PTX_SetMaxNRegOp : PTX_Inst<"setmaxnreg", [], 90, 80, 0, 1> {
  let summary = "change the warp's register budget "
                "(`setmaxnreg.{inc,dec}.sync.aligned.u32 N`)";
  let description = [{
    N is in [24, 256] and a multiple of 8. sm_90a only.
  }];
  let arguments = !con((ins PTX_SetMaxNRegAction:$action, I32Attr:$count),
                       guardArgs);
  let assemblyFormat = GuardFmt # " $action $count attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Thread block clusters
//===----------------------------------------------------------------------===//

def PTX_BarrierClusterArriveOp : PTX_Inst<"barrier_cluster_arrive", [], 90,
                                          78, 1> {
  let summary = "arrive at the cluster barrier "
                "(`barrier.cluster.arrive{.release,.relaxed}{.aligned}`)";
  let arguments = !con((ins OptionalAttr<PTX_MemOrder>:$sem,
                            UnitAttr:$aligned), guardArgs);
  let assemblyFormat = GuardFmt # " ($sem^)? (`aligned` $aligned^)? attr-dict";
  let hasVerifier = 1;
}

def PTX_BarrierClusterWaitOp : PTX_Inst<"barrier_cluster_wait", [], 90, 78,
                                        1> {
  let summary = "wait at the cluster barrier "
                "(`barrier.cluster.wait{.acquire}{.aligned}`)";
  let arguments = !con((ins OptionalAttr<PTX_MemOrder>:$sem,
                            UnitAttr:$aligned), guardArgs);
  let assemblyFormat = GuardFmt # " ($sem^)? (`aligned` $aligned^)? attr-dict";
  let hasVerifier = 1;
}

def PTX_MapaOp : PTX_Inst<"mapa", [AllTypesMatch<["addr", "result"]>], 90,
                          78> {
  let summary = "map an address to the same variable in another CTA of the "
                "cluster (`mapa{.shared::cluster}.u32/u64 d, a, rank`)";
  let description = [{
    `%r = ptx.mapa shared_cluster %a, %rank : i32` maps a `.shared::cta`
    address to the `.shared::cluster` address of the variable in CTA `rank`;
    `generic` maps generic (64-bit) addresses.
  }];
  let arguments = !con((ins PTX_StateSpace:$space, PTX_AddrReg:$addr,
                            I32:$rank), guardArgs);
  let results = (outs PTX_AddrReg:$result);
  let assemblyFormat = GuardFmt # [{
    $space $addr `,` $rank attr-dict `:` type($addr)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Bulk asynchronous copies (TMA)
//===----------------------------------------------------------------------===//
//
// One op per direction: a load (global → `.shared::cluster`) completes on an
// mbarrier's transaction count and may multicast to several CTAs of the
// cluster; a store (`.shared::cta` → global) joins a bulk async-group that
// cp_async_bulk_commit_group / cp_async_bulk_wait_group track. Tensor copies
// name a tensor map (the 64-bit address of a CUtensorMap in global, const or
// param memory) and one s32 coordinate per dimension.

def PTX_CpAsyncBulkLoadOp : PTX_Inst<"cp_async_bulk_load",
    [AttrSizedOperandSegments], 90, 80, 1> {
  let summary = "bulk copy global → shared completing on an mbarrier "
                "(`cp.async.bulk.shared::cluster.global.mbarrier::"
                "complete_tx::bytes{.multicast::cluster}`)";
  let description = [{
    `ptx.cp_async_bulk_load [%dst], [%src], %size, [%bar] : i32, i32` copies
    `size` bytes (a multiple of 16; both addresses 16-byte aligned) and
    completes `size` transaction bytes on the mbarrier. With `multicast
    %mask` (an i16 CTA mask) the data and the completion go to the same
    offsets in every CTA of the cluster whose bit is set; multicast is
    treated as sm_90a-only.

    ```mlir
    ptx.cp_async_bulk_load [%dst], [%src], %size, [%bar] multicast %mask
        : i32, i32
    ```
  }];
  let arguments = !con((ins PTX_AddrReg:$dst, I64:$src, I32:$size,
                            PTX_AddrReg:$mbar, Optional<I16>:$cta_mask),
                       guardArgs);
  let assemblyFormat = GuardFmt # [{
    ` ` `[` $dst `]` `,` `[` $src `]` `,` $size `,` `[` $mbar `]`
    (`multicast` $cta_mask^)? attr-dict `:` type($dst) `,` type($mbar)
  }];
  let hasVerifier = 1;
}

def PTX_CpAsyncBulkStoreOp : PTX_Inst<"cp_async_bulk_store", [], 90, 80> {
  let summary = "bulk copy shared → global in a bulk async-group "
                "(`cp.async.bulk.global.shared::cta.bulk_group`)";
  let description = [{
    `ptx.cp_async_bulk_store [%dst], [%src], %size : i32` copies `size`
    bytes (a multiple of 16) from the CTA's shared memory to global memory.
  }];
  let arguments = !con((ins I64:$dst, PTX_AddrReg:$src, I32:$size),
                       guardArgs);
  let assemblyFormat = GuardFmt # [{
    ` ` `[` $dst `]` `,` `[` $src `]` `,` $size attr-dict `:` type($src)
  }];
  let hasVerifier = 1;
}

def PTX_CpAsyncBulkCommitGroupOp : PTX_Inst<"cp_async_bulk_commit_group", [],
                                            90, 80> {
  let summary = "close the bulk async-group (`cp.async.bulk.commit_group`)";
  let arguments = guardArgs;
  let assemblyFormat = GuardFmt # " attr-dict";
}

def PTX_CpAsyncBulkWaitGroupOp : PTX_Inst<"cp_async_bulk_wait_group", [], 90,
                                          80> {
  let summary = "wait for bulk async-groups "
                "(`cp.async.bulk.wait_group{.read} N`)";
  let description = [{
    Waits until at most N of the thread's bulk async-groups are pending;
    with `read`, only until their source reads are done (the shared memory
    may be reused, the writes need not be visible yet).
  }];
  let arguments = !con((ins UnitAttr:$read, I32Attr:$n), guardArgs);
  let assemblyFormat = GuardFmt # " (`read` $read^)? $n attr-dict";
  let hasVerifier = 1;
}

def PTX_CpAsyncBulkTensorLoadOp : PTX_Inst<"cp_async_bulk_tensor_load",
    [AttrSizedOperandSegments], 90, 80, 1> {
  let summary = "tensor tile copy global → shared completing on an mbarrier "
                "(`cp.async.bulk.tensor.Nd.shared::cluster.global.tile."
                "mbarrier::complete_tx::bytes{.multicast::cluster}`)";
  let description = [{
    Copies the box of the tensor map at the coordinates (one per dimension,
    e.g. `2d [%dst], [%map, {%x, %y} ], [%bar]`) and completes its bytes on
    the mbarrier. `multicast %mask` as for cp_async_bulk_load (sm_90a).
  }];
  let arguments = !con((ins ConfinedAttr<I32Attr, [IntMinValue<1>,
                                                   IntMaxValue<5>]>:$dim,
                            PTX_AddrReg:$dst, I64:$tensor_map,
                            Variadic<I32>:$coords, PTX_AddrReg:$mbar,
                            Optional<I16>:$cta_mask), guardArgs);
  let assemblyFormat = GuardFmt # [{
    $dim `` `d` ` ` `[` $dst `]` `,` `[` $tensor_map `,` `{` $coords `}` `]` `,`
    `[` $mbar `]` (`multicast` $cta_mask^)? attr-dict `:` type($dst) `,`
    type($mbar)
  }];
  let hasVerifier = 1;
}

def PTX_CpAsyncBulkTensorStoreOp : PTX_Inst<"cp_async_bulk_tensor_store",
    [AttrSizedOperandSegments], 90, 80> {
  let summary = "tensor tile copy shared → global in a bulk async-group "
                "(`cp.async.bulk.tensor.Nd.global.shared::cta.tile."
                "bulk_group`)";
  let arguments = !con((ins ConfinedAttr<I32Attr, [IntMinValue<1>,
                                                   IntMaxValue<5>]>:$dim,
                            I64:$tensor_map, Variadic<I32>:$coords,
                            PTX_AddrReg:$src), guardArgs);
  let assemblyFormat = GuardFmt # [{
    $dim `` `d` ` ` `[` $tensor_map `,` `{` $coords `}` `]` `,` `[` $src `]`
    attr-dict `:` type($src)
  }];
  let hasVerifier = 1;
}

def PTX_CpAsyncBulkPrefetchTensorOp : PTX_Inst<
    "cp_async_bulk_prefetch_tensor", [AttrSizedOperandSegments], 90, 80> {
  let summary = "prefetch a tensor tile into L2 "
                "(`cp.async.bulk.prefetch.tensor.Nd.L2.global.tile`)";
  let arguments = !con((ins ConfinedAttr<I32Attr, [IntMinValue<1>,
                                                   IntMaxValue<5>]>:$dim,
                            I64:$tensor_map, Variadic<I32>:$coords),
                       guardArgs);
  let assemblyFormat = GuardFmt # [{
    $dim `` `d` ` ` `[` $tensor_map `,` `{` $coords `}` `]` attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warpgroup matrix multiply-accumulate (wgmma, sm_90a)
//===----------------------------------------------------------------------===//

def PTX_WgmmaFenceOp : PTX_Inst<"wgmma_fence", [], 90, 80, 0, 1> {
  let summary = "order register and shared memory accesses before "
                "wgmma.mma_async (`wgmma.fence.sync.aligned`)";
  let arguments = guardArgs;
  let assemblyFormat = GuardFmt # " attr-dict";
}

def PTX_WgmmaCommitGroupOp : PTX_Inst<"wgmma_commit_group", [], 90, 80, 0,
                                      1> {
  let summary = "close the wgmma-group (`wgmma.commit_group.sync.aligned`)";
  let arguments = guardArgs;
  let assemblyFormat = GuardFmt # " attr-dict";
}

def PTX_WgmmaWaitGroupOp : PTX_Inst<"wgmma_wait_group", [], 90, 80, 0, 1> {
  let summary = "wait until at most N wgmma-groups are pending "
                "(`wgmma.wait_group.sync.aligned N`)";
  let arguments = !con((ins I32Attr:$n), guardArgs);
  let assemblyFormat = GuardFmt # " $n attr-dict";
  let hasVerifier = 1;
}

def PTX_WgmmaMmaAsyncOp : PTX_Inst<"wgmma_mma_async",
    [AttrSizedOperandSegments], 90, 80, 1, 1> {
  let summary = "warpgroup matrix multiply-accumulate "
                "(`wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype`)";
  let description = [{
    D = A * B + D (or A * B where scale-d is 0) on the 128 threads of a
    warpgroup, M = 64. The accumulators are read and written: the op takes
    the old ones (`acc`) and returns the new ones, which print as the same
    registers. A is a fragment of registers or a 64-bit shared memory matrix
    descriptor, B always a descriptor. The legal type combinations, K, N,
    register counts and modifiers come from the wgmma table in PTXInfo.h.

    scale-d is a predicate (`scale_d %p`) or an immediate (`scale_d_imm 0`),
    1 when absent. `scale_a`/`scale_b` (1 or -1) negate A or B, `trans_a`
    (A from a descriptor) and `trans_b` transpose them, where the variant
    takes them; absent they print as 1 and 0.

    ```mlir
    %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%c0, %c1, %c2, %c3},
        {%a0, %a1, %a2, %a3}, %bdesc scale_d %p : f32, i32
    %e:64 = ptx.wgmma_mma_async m64n128k16 f32 bf16 bf16 {%c...}, %adesc,
        %bdesc trans_b : f32
    ```
  }];
  let arguments = !con((ins I32Attr:$n, I32Attr:$k, PTX_Type:$d_type,
                            PTX_Type:$a_type, PTX_Type:$b_type,
                            UnitAttr:$satfinite,
                            Variadic<PTX_B32>:$acc, Variadic<PTX_B32>:$a,
                            Optional<I64>:$a_desc, I64:$b_desc,
                            Optional<PTX_Pred>:$scale_d,
                            OptionalAttr<I32Attr>:$scale_d_imm,
                            OptionalAttr<I32Attr>:$scale_a,
                            OptionalAttr<I32Attr>:$scale_b,
                            UnitAttr:$trans_a, UnitAttr:$trans_b), guardArgs);
  let results = (outs Variadic<PTX_B32>:$d);
  let assemblyFormat = GuardFmt # [{
    custom<WgmmaShape>($n, $k) $d_type $a_type $b_type
    (`satfinite` $satfinite^)? ` ` `{` $acc `}` `,` (`{` $a^ `}`)?
    ($a_desc^)? `,` $b_desc (`scale_d` $scale_d^)?
    (`scale_d_imm` $scale_d_imm^)? (`scale_a` $scale_a^)?
    (`scale_b` $scale_b^)? (`trans_a` $trans_a^)? (`trans_b` $trans_b^)?
    attr-dict `:` custom<WgmmaTypes>(ref($acc), type($acc), type($d), ref($a),
                                     type($a))
  }];
  let hasVerifier = 1;
}

#endif // KAIO_DIALECT_PTX_IR_PTXHOPPEROPS_TD
