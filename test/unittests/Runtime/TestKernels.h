//===- TestKernels.h - Hand-written PTX used by the runtime tests -*- C++ -*-===//
//
// Written by hand (sm_75, PTX 7.0) so the tests need neither nvcc nor the
// KAIO compiler; each carries the `// kaio.kernel` signature comment the KAIO
// PTX printer emits.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_TEST_UNITTESTS_RUNTIME_TESTKERNELS_H
#define KAIO_TEST_UNITTESTS_RUNTIME_TESTKERNELS_H

namespace kaio::rt::test {

// c[i] = a[i] + b[i] for i < n, one thread per element.
inline const char *const kVectorAddPtx = R"PTX(
// kaio.kernel vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,u32)
.version 7.0
.target sm_75
.address_size 64

.visible .entry vector_add(
    .param .u64 a,
    .param .u64 b,
    .param .u64 c,
    .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;

    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
)PTX";

// out[y * w + x] = y * 1000 + x over a 2-D grid of 2-D blocks.
inline const char *const kFill2dPtx = R"PTX(
// kaio.kernel fill2d(ptr<f32>,u32,u32)
.version 7.0
.target sm_75
.address_size 64

.visible .entry fill2d(
    .param .u64 out,
    .param .u32 w,
    .param .u32 h)
{
    .reg .pred %p<3>;
    .reg .b32 %r<13>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [w];
    ld.param.u32 %r2, [h];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    mov.u32 %r7, %ctaid.y;
    mov.u32 %r8, %ntid.y;
    mov.u32 %r9, %tid.y;
    mad.lo.s32 %r10, %r7, %r8, %r9;
    setp.ge.u32 %p1, %r6, %r1;
    setp.ge.u32 %p2, %r10, %r2;
    or.pred %p1, %p1, %p2;
    @%p1 bra DONE;
    mad.lo.s32 %r11, %r10, 1000, %r6;
    cvt.rn.f32.u32 %f1, %r11;
    mad.lo.s32 %r12, %r10, %r1, %r6;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r12, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.f32 [%rd4], %f1;
DONE:
    ret;
}
)PTX";

// Reverses data[0, n) through n floats of dynamic shared memory, in one
// block: needs the > 48 KiB opt-in for n > 12288.
inline const char *const kSmemReversePtx = R"PTX(
// kaio.kernel smem_reverse(ptr<f32>,u32)
.version 7.0
.target sm_75
.address_size 64

.extern .shared .align 16 .b8 dsmem[];

.visible .entry smem_reverse(
    .param .u64 data,
    .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<9>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [data];
    ld.param.u32 %r1, [n];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, dsmem;
    mov.u32 %r5, %r2;
LOAD:
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra LOADED;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    shl.b32 %r6, %r5, 2;
    add.s32 %r7, %r4, %r6;
    st.shared.f32 [%r7], %f1;
    add.s32 %r5, %r5, %r3;
    bra LOAD;
LOADED:
    bar.sync 0;
    mov.u32 %r5, %r2;
STORE:
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    sub.s32 %r8, %r1, %r5;
    sub.s32 %r8, %r8, 1;
    shl.b32 %r6, %r8, 2;
    add.s32 %r7, %r4, %r6;
    ld.shared.f32 %f1, [%r7];
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.f32 [%rd4], %f1;
    add.s32 %r5, %r5, %r3;
    bra STORE;
DONE:
    ret;
}
)PTX";

} // namespace kaio::rt::test

#endif // KAIO_TEST_UNITTESTS_RUNTIME_TESTKERNELS_H
