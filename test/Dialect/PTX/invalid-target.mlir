// RUN: kaio-opt %s -split-input-file -verify-diagnostics

// The module attributes ptx.target, ptx.version and ptx.address_size, and the
// minimum SM and PTX ISA version each op needs (PTX_Requires and
// getPTXRequirement).

//===----------------------------------------------------------------------===//
// module attributes
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'ptx.target' must name a known chip: sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_90a sm_100 sm_100a sm_120 sm_120a}}
module attributes {ptx.target = "sm_70"} {
}

// -----

// expected-error @+1 {{'ptx.target' must name a known chip}}
module attributes {ptx.target = 80 : i32} {
}

// -----

// expected-error @+1 {{'ptx.version' must be a version string like "8.0"}}
module attributes {ptx.target = "sm_80", ptx.version = "8"} {
}

// -----

// expected-error @+1 {{'ptx.version' must be a version string like "8.0"}}
module attributes {ptx.version = 8.0 : f32} {
}

// -----

// expected-error @+1 {{'ptx.version' 9.5 is newer than PTX ISA 9.0, the newest the driver compiles}}
module attributes {ptx.version = "9.5"} {
}

// -----

// expected-error @+1 {{ptx.version 7.0 cannot target sm_90 (needs 7.8 or newer)}}
module attributes {ptx.target = "sm_90", ptx.version = "7.0"} {
}

// -----

// expected-error @+1 {{'ptx.address_size' must be 64}}
module attributes {ptx.target = "sm_80", ptx.address_size = 32 : i64} {
}

// -----

// expected-error @+1 {{unknown ptx module attribute 'ptx.arch'}}
module attributes {ptx.arch = "sm_80"} {
}

// -----

module {
  // expected-error @+1 {{'ptx.target' is only valid on a builtin.module}}
  ptx.entry @k() attributes {ptx.target = "sm_80"} {
    ptx.ret
  }
}

// -----

// expected-error @+1 {{'ptx.readonly' is only valid on ptx.entry arguments}}
module attributes {ptx.readonly} {
}

// -----

//===----------------------------------------------------------------------===//
// SM requirements: the first op above the target is reported
//===----------------------------------------------------------------------===//

module attributes {ptx.target = "sm_75"} {
  ptx.entry @k(%s: i32, %g: i64) {
    // expected-error @+1 {{'ptx.cp_async' op requires sm_80 or newer, but the module targets sm_75}}
    ptx.cp_async ca 16 [%s], [%g] : i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80"} {
  ptx.entry @k(%h: bf16) {
    // expected-error @+1 {{'ptx.add' op requires sm_90 or newer, but the module targets sm_80}}
    %0 = ptx.add rn bf16 %h, %h : bf16
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_89"} {
  ptx.entry @k(%s: i32) {
    // expected-error @+1 {{'ptx.stmatrix' op requires sm_90 or newer, but the module targets sm_89}}
    ptx.stmatrix [%s], %s : i32, i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75"} {
  ptx.entry @k(%r: i32, %f: f32) {
    %0:4 = ptx.mma_sync m16n8k8 row col f32 f16 f16 f32 {%r, %r}, {%r}, {%f, %f, %f, %f} : (i32, i32), (i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
    // expected-error @+1 {{'ptx.mma_sync' op requires sm_80 or newer, but the module targets sm_75}}
    %1:4 = ptx.mma_sync m16n8k16 row col f32 f16 f16 f32 {%r, %r, %r, %r}, {%r, %r}, {%f, %f, %f, %f} : (i32, i32, i32, i32), (i32, i32), (f32, f32, f32, f32) -> f32, f32, f32, f32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75"} {
  ptx.entry @k(%r: i32) {
    // expected-error @+1 {{'ptx.mma_sync' op requires sm_80 or newer, but the module targets sm_75}}
    %0:4 = ptx.mma_sync m16n8k32 row col s32 s8 s8 s32 {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : (i32, i32, i32, i32), (i32, i32), (i32, i32, i32, i32) -> i32, i32, i32, i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75"} {
  ptx.entry @k(%a: i32) {
    // expected-error @+1 {{'ptx.redux_sync' op requires sm_80 or newer, but the module targets sm_75}}
    %0 = ptx.redux_sync add u32 %a, %a
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_87"} {
  ptx.entry @k() {
    ptx.fence sc gpu
    // expected-error @+1 {{'ptx.fence' op requires sm_90 or newer, but the module targets sm_87}}
    ptx.fence acq_rel cluster
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_86"} {
  ptx.entry @k(%p: i64, %a: i32) {
    // expected-error @+1 {{'ptx.atom' op requires sm_90 or newer, but the module targets sm_86}}
    %0 = ptx.atom global relaxed cluster add u32 [%p], %a : i64, i32 -> i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80"} {
  ptx.entry @k(%p: i64, %h: vector<2xbf16>) {
    // expected-error @+1 {{'ptx.red' op requires sm_90 or newer, but the module targets sm_80}}
    ptx.red global add bf16x2 [%p], %h : i64, vector<2xbf16>
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75"} {
  ptx.entry @k(%f: f32) {
    // expected-error @+1 {{'ptx.cvt' op requires sm_80 or newer, but the module targets sm_75}}
    %0 = ptx.cvt rn relu f16 f32 %f : f32 -> f16
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80"} {
  ptx.entry @k(%f: f32) {
    %0 = ptx.cvt rna tf32 f32 %f : f32 -> i32
    // expected-error @+1 {{'ptx.cvt' op requires sm_90 or newer, but the module targets sm_80}}
    %1 = ptx.cvt rn tf32 f32 %f : f32 -> i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80"} {
  ptx.entry @k(%h: bf16) {
    %0 = ptx.cvt f32 bf16 %h : bf16 -> f32
    // expected-error @+1 {{'ptx.cvt' op requires sm_90 or newer, but the module targets sm_80}}
    %1 = ptx.cvt f64 bf16 %h : bf16 -> f64
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75"} {
  ptx.entry @k(%f: f32) {
    // expected-error @+1 {{'ptx.cvt_pack' op requires sm_80 or newer, but the module targets sm_75}}
    %0 = ptx.cvt_pack rn f16x2 %f, %f : i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75"} {
  ptx.entry @k(%f: f32) {
    // expected-error @+1 {{'ptx.min' op requires sm_80 or newer, but the module targets sm_75}}
    %0 = ptx.min NaN f32 %f, %f : f32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75"} {
  ptx.entry @k(%h: f16, %b: bf16) {
    %0 = ptx.abs f16 %h : f16
    // expected-error @+1 {{'ptx.abs' op requires sm_80 or newer, but the module targets sm_75}}
    %1 = ptx.abs bf16 %b : bf16
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75"} {
  ptx.entry @k(%b: bf16) {
    // expected-error @+1 {{'ptx.fma' op requires sm_80 or newer, but the module targets sm_75}}
    %0 = ptx.fma rn bf16 %b, %b, %b : bf16
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_89"} {
  ptx.entry @k(%b: bf16) {
    // expected-error @+1 {{'ptx.setp' op requires sm_90 or newer, but the module targets sm_89}}
    %0 = ptx.setp lt bf16 %b, %b : bf16
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80"} {
  ptx.entry @k(%h: f16, %b: bf16) {
    %0 = ptx.ex2 approx f16 %h : f16
    // expected-error @+1 {{'ptx.ex2' op requires sm_90 or newer, but the module targets sm_80}}
    %1 = ptx.ex2 approx ftz bf16 %b : bf16
    ptx.ret
  }
}

// -----

//===----------------------------------------------------------------------===//
// PTX ISA requirements
//===----------------------------------------------------------------------===//

module attributes {ptx.version = "7.0"} {
  ptx.entry @k(%s: i32) {
    // expected-error @+1 {{'ptx.stmatrix' op requires PTX ISA 7.8, but the module sets ptx.version 7.0}}
    ptx.stmatrix [%s], %s : i32, i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80", ptx.version = "8.0"} {
  ptx.entry @k(%f: f32) {
    %0 = ptx.cvt_pack rn f16x2 %f, %f : i32
    // expected-error @+1 {{'ptx.cvt_pack' op requires PTX ISA 8.1, but the module sets ptx.version 8.0}}
    %1 = ptx.cvt_pack rn satfinite f16x2 %f, %f : i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80", ptx.version = "7.0"} {
  ptx.entry @k(%h: bf16) {
    // expected-error @+1 {{'ptx.cvt' op requires PTX ISA 7.1, but the module sets ptx.version 7.0}}
    %0 = ptx.cvt f32 bf16 %h : bf16 -> f32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75", ptx.version = "6.4"} {
  ptx.entry @k(%h: f16) {
    // expected-error @+1 {{'ptx.abs' op requires PTX ISA 6.5, but the module sets ptx.version 6.4}}
    %0 = ptx.abs f16 %h : f16
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80", ptx.version = "7.6"} {
  ptx.entry @k(%p: i64) {
    %0 = ptx.cvta to global %p : i64 -> i64
    // expected-error @+1 {{'ptx.cvta' op requires PTX ISA 7.7, but the module sets ptx.version 7.6}}
    %1 = ptx.cvta param %p : i64 -> i64
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_75", ptx.version = "6.4"} {
  ptx.entry @k(%s: i32) {
    // expected-error @+1 {{'ptx.ldmatrix' op requires PTX ISA 6.5, but the module sets ptx.version 6.4}}
    %0 = ptx.ldmatrix [%s] : i32 -> i32
    ptx.ret
  }
}

// -----

//===----------------------------------------------------------------------===//
// Hopper (sm_90 / sm_90a) families
//===----------------------------------------------------------------------===//

module attributes {ptx.target = "sm_80", ptx.version = "7.7"} {
  ptx.entry @k(%b: i32, %n: i32) {
    // expected-error @+1 {{'ptx.mbarrier_init' op requires PTX ISA 7.8, but the module sets ptx.version 7.7}}
    ptx.mbarrier_init [%b], %n : i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80"} {
  ptx.entry @k(%b: i32, %n: i32) {
    // expected-error @+1 {{'ptx.mbarrier_arrive' op requires sm_90 or newer, but the module targets sm_80}}
    ptx.mbarrier_arrive shared [%b], %n : i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90", ptx.version = "7.8"} {
  ptx.entry @k(%b: i32, %n: i32) {
    // expected-error @+1 {{'ptx.mbarrier_arrive' op requires PTX ISA 8.0, but the module sets ptx.version 7.8}}
    %s = ptx.mbarrier_arrive expect_tx shared [%b], %n : i32 -> i64
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90", ptx.version = "7.8"} {
  ptx.entry @k(%b: i32, %n: i32) {
    // expected-error @+1 {{'ptx.mbarrier_arrive' op requires PTX ISA 8.0, but the module sets ptx.version 7.8}}
    ptx.mbarrier_arrive shared_cluster [%b] : i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90", ptx.version = "8.5"} {
  ptx.entry @k(%b: i32, %n: i32) {
    // expected-error @+1 {{'ptx.mbarrier_arrive' op requires PTX ISA 8.6, but the module sets ptx.version 8.5}}
    %s = ptx.mbarrier_arrive relaxed cta shared [%b] : i32 -> i64
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80"} {
  ptx.entry @k(%b: i32, %n: i32) {
    // expected-error @+1 {{'ptx.mbarrier_expect_tx' op requires sm_90 or newer, but the module targets sm_80}}
    ptx.mbarrier_expect_tx shared [%b], %n : i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_80"} {
  ptx.entry @k(%b: i32, %s: i64) {
    // expected-error @+1 {{'ptx.mbarrier_try_wait' op requires sm_90 or newer, but the module targets sm_80}}
    %w = ptx.mbarrier_try_wait [%b], %s : i32, i64
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90", ptx.version = "7.8"} {
  ptx.entry @k(%b: i32, %s: i64) {
    // expected-error @+1 {{'ptx.mbarrier_try_wait' op requires PTX ISA 8.0, but the module sets ptx.version 7.8}}
    %w = ptx.mbarrier_try_wait acquire cta [%b], %s : i32, i64
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_89"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.fence_proxy_async' op requires sm_90 or newer, but the module targets sm_89}}
    ptx.fence_proxy_async
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90", ptx.version = "7.8"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.fence_mbarrier_init' op requires PTX ISA 8.0, but the module sets ptx.version 7.8}}
    ptx.fence_mbarrier_init
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90", ptx.version = "7.8"} {
  ptx.entry @k(%m: i32) {
    // expected-error @+1 {{'ptx.elect_sync' op requires PTX ISA 8.0, but the module sets ptx.version 7.8}}
    %l, %p = ptx.elect_sync %m
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.setmaxnreg' op requires sm_90a (arch-specific), but the module targets sm_90}}
    ptx.setmaxnreg inc 240
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_100a"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.setmaxnreg' op requires sm_90a (arch-specific), but the module targets sm_100a}}
    ptx.setmaxnreg dec 24
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_89"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.sreg' op requires sm_90 or newer, but the module targets sm_89}}
    %0 = ptx.sreg cluster_ctarank : i32
    ptx.ret
  }
}

// -----

module attributes {ptx.version = "7.7"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.sreg' op requires PTX ISA 7.8, but the module sets ptx.version 7.7}}
    %0 = ptx.sreg is_explicit_cluster : i1
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_89"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.barrier_cluster_arrive' op requires sm_90 or newer, but the module targets sm_89}}
    ptx.barrier_cluster_arrive
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90", ptx.version = "7.8"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.barrier_cluster_wait' op requires PTX ISA 8.0, but the module sets ptx.version 7.8}}
    ptx.barrier_cluster_wait acquire
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_89"} {
  ptx.entry @k(%a: i32, %r: i32) {
    // expected-error @+1 {{'ptx.mapa' op requires sm_90 or newer, but the module targets sm_89}}
    %0 = ptx.mapa shared_cluster %a, %r : i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_89"} {
  ptx.entry @k(%a: i32) {
    // expected-error @+1 {{'ptx.ld' op requires sm_90 or newer, but the module targets sm_89}}
    %0 = ptx.ld shared_cluster u32 [%a] : i32 -> i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_89"} {
  ptx.entry @k(%a: i32) {
    // expected-error @+1 {{'ptx.st' op requires sm_90 or newer, but the module targets sm_89}}
    ptx.st shared_cluster u32 [%a], %a : i32, i32
    ptx.ret
  }
}

// -----

//===----------------------------------------------------------------------===//
// malformed ops under a target are reported, never crashed on
//===----------------------------------------------------------------------===//

module attributes {ptx.target = "sm_80"} {
  ptx.entry @k(%a: i32) {
    // expected-error @+1 {{'ptx.add' op requires attribute 'type'}}
    %0 = "ptx.add"(%a, %a) : (i32, i32) -> i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_89"} {
  ptx.entry @k(%s: i32, %g: i64, %n: i32) {
    // expected-error @+1 {{'ptx.cp_async_bulk_load' op requires sm_90 or newer, but the module targets sm_89}}
    ptx.cp_async_bulk_load [%s], [%g], %n, [%s] : i32, i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90"} {
  ptx.entry @k(%s: i32, %g: i64, %n: i32, %m: i16) {
    // expected-error @+1 {{'ptx.cp_async_bulk_load' op requires sm_90a (arch-specific), but the module targets sm_90}}
    ptx.cp_async_bulk_load [%s], [%g], %n, [%s] multicast %m : i32, i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_100a"} {
  ptx.entry @k(%s: i32, %map: i64, %x: i32, %m: i16) {
    // expected-error @+1 {{'ptx.cp_async_bulk_tensor_load' op requires sm_90a (arch-specific), but the module targets sm_100a}}
    ptx.cp_async_bulk_tensor_load 1d [%s], [%map, {%x}], [%s] multicast %m : i32, i32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90", ptx.version = "7.8"} {
  ptx.entry @k(%map: i64, %x: i32) {
    // expected-error @+1 {{'ptx.cp_async_bulk_prefetch_tensor' op requires PTX ISA 8.0, but the module sets ptx.version 7.8}}
    ptx.cp_async_bulk_prefetch_tensor 1d [%map, {%x}]
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_87"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.cp_async_bulk_commit_group' op requires sm_90 or newer, but the module targets sm_87}}
    ptx.cp_async_bulk_commit_group
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90"} {
  ptx.entry @k(%c: f32, %ad: i64, %bd: i64) {
    // expected-error @+1 {{'ptx.wgmma_mma_async' op requires sm_90a (arch-specific), but the module targets sm_90}}
    %d:4 = ptx.wgmma_mma_async m64n8k16 f32 f16 f16 {%c, %c, %c, %c}, %ad, %bd : f32
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_100a"} {
  ptx.entry @k() {
    // expected-error @+1 {{'ptx.wgmma_fence' op requires sm_90a (arch-specific), but the module targets sm_100a}}
    ptx.wgmma_fence
    ptx.ret
  }
}

// -----

module attributes {ptx.target = "sm_90a", ptx.version = "8.3"} {
  ptx.entry @k(%a: i32, %ad: i64, %bd: i64) {
    // expected-error @+1 {{'ptx.wgmma_mma_async' op requires PTX ISA 8.4, but the module sets ptx.version 8.3}}
    %d:4 = ptx.wgmma_mma_async m64n8k32 s32 u8 s8 {%a, %a, %a, %a}, %ad, %bd : i32
    ptx.ret
  }
}
