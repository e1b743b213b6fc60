"""The kaio Python package against KAIO's C API and the fake CUDA driver
(KAIO_CUDA_DRIVER): arrays, op validation (nothing launched on bad input),
what the ops launch, kaio.compile with typed launches, the PTX disk cache.
Needs only Debian's python3 and python3-numpy; what needs a GPU or
torch >= 2.4 skips with the reason. Run by python-package.test."""

import ctypes
import os
import sys
import unittest

import kaio
from kaio import ops

try:
    import numpy as np
except ImportError:  # pragma: no cover - install-deps installs it
    np = None

try:
    import torch
except ImportError:
    torch = None

EXAMPLES = os.environ.get("KAIO_EXAMPLES_DIR", "")


class FakeCounters(ctypes.Structure):
    _fields_ = [("liveAllocations", ctypes.c_int),
                ("liveHostAllocations", ctypes.c_int),
                ("liveStreams", ctypes.c_int), ("liveEvents", ctypes.c_int),
                ("liveModules", ctypes.c_int),
                ("primaryContextRefs", ctypes.c_int * 2),
                ("jitCompiles", ctypes.c_int),
                ("linkCompiles", ctypes.c_int), ("launches", ctypes.c_int),
                ("lastGrid", ctypes.c_uint * 3),
                ("lastBlock", ctypes.c_uint * 3),
                ("lastSharedBytes", ctypes.c_uint),
                ("lastLaunchDevice", ctypes.c_int),
                ("lastKernel", ctypes.c_char * 64),
                ("faultsInjected", ctypes.c_int),
                ("lastFault", ctypes.c_char * 64),
                ("tensorMapsEncoded", ctypes.c_int),
                ("lastTensorMapParam", ctypes.c_ubyte * 128),
                ("lastCluster", ctypes.c_uint * 3),
                ("prevKernel", ctypes.c_char * 64),
                ("prevGrid", ctypes.c_uint * 3),
                ("lastGemmK", ctypes.c_uint),
                ("lastGemmKPerSplit", ctypes.c_uint),
                ("lastTensorMapBox", ctypes.c_uint * 5)]


def fake():
    lib = ctypes.CDLL(os.environ["KAIO_CUDA_DRIVER"])
    lib.fakeCudaCounters.restype = ctypes.POINTER(FakeCounters)
    return lib.fakeCudaCounters().contents


class CudaArrayInterface:
    """A third-party array speaking __cuda_array_interface__."""

    def __init__(self, base, shape=None, strides=None, typestr="<f4"):
        self.base = base
        self.__cuda_array_interface__ = {
            "shape": shape or base.shape, "typestr": typestr,
            "data": (base.ptr, False), "strides": strides, "version": 3}


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64),
                ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLPackArray:
    """A third-party array speaking DLPack (f32, no deleter)."""

    def __init__(self, base, device_type=2, device_id=0):
        self.base = base
        self.device_type = device_type
        self.device_id = device_id
        self.shape_buf = (ctypes.c_int64 * 2)(*base.shape)
        self.tensor = DLManagedTensor(base.ptr, device_type, device_id, 2, 2,
                                      32, 1, self.shape_buf, None, 0, None,
                                      None)

    def __dlpack_device__(self):
        return (self.device_type, self.device_id)

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.tensor), b"dltensor", None)


@unittest.skipIf(np is None, "needs python3-numpy")
class ArraysTest(unittest.TestCase):
    def test_version_and_devices(self):
        self.assertEqual(kaio.version(), kaio.__version__)
        self.assertEqual(kaio.device_count(), 2)  # the fake driver's

    def test_device_array_roundtrip(self):
        host = np.arange(12, dtype=np.float32).reshape(3, 4)
        a = kaio.DeviceArray.from_numpy(host)
        self.assertEqual(a.shape, (3, 4))
        self.assertEqual(a.dtype, "float32")
        np.testing.assert_array_equal(a.numpy(), host)
        h = kaio.DeviceArray.from_numpy(host.astype(np.float16))
        np.testing.assert_array_equal(h.numpy(), host.astype(np.float16))
        z = kaio.DeviceArray.zeros((5,), "int32")
        np.testing.assert_array_equal(z.numpy(), np.zeros(5, np.int32))
        cai = a.__cuda_array_interface__
        self.assertEqual(cai["typestr"], "<f4")
        self.assertEqual(cai["data"][0], a.ptr)

    def test_device_array_errors(self):
        with self.assertRaises(kaio.KaioValueError) as e:
            kaio.DeviceArray.empty((2,), "complex64")
        self.assertIn("dtype", str(e.exception))
        with self.assertRaises(ValueError):
            kaio.DeviceArray.empty((-1, 2))

    def test_memory_is_freed(self):
        before = fake().liveAllocations
        a = kaio.DeviceArray.empty((1024,))
        self.assertEqual(fake().liveAllocations, before + 1)
        del a
        self.assertEqual(fake().liveAllocations, before)


@unittest.skipIf(np is None, "needs python3-numpy")
class OpsTest(unittest.TestCase):
    def setUp(self):
        self.x = kaio.DeviceArray.from_numpy(
            np.ones((5, 33), dtype=np.float32))
        self.launches = fake().launches

    def assertNothingLaunched(self):
        self.assertEqual(fake().launches, self.launches)

    def assertLaunched(self, n, name):
        self.assertEqual(fake().launches, self.launches + n)
        self.assertIn(name, fake().lastKernel.decode())

    def test_bad_input_is_a_typed_error_naming_the_argument(self):
        wrong = kaio.DeviceArray.empty((5, 34))
        with self.assertRaises(kaio.KaioValueError) as e:
            ops.softmax(self.x, out=wrong)
        self.assertIn("softmax: out", str(e.exception))
        self.assertEqual(e.exception.status_name, "KAIO_ERROR_INVALID_VALUE")
        with self.assertRaises(ValueError) as e:
            ops.softmax(np.ones((2, 2), np.float32))
        self.assertIn("x: a host (NumPy) array", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.rms_norm("not an array")
        self.assertIn("x: a str", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.bias_activation(self.x, activation="swish")
        self.assertIn("activation: 'swish'", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.cross_entropy(self.x, None)
        self.assertIn("targets: null", str(e.exception))
        f16 = kaio.DeviceArray.empty((64, 32), "float16")
        with self.assertRaises(ValueError) as e:
            ops.gemm(f16, f16, beta=1.0)
        self.assertIn("beta", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.gemm(f16, f16)  # inner dimensions 32 vs 64
        self.assertIn("gemm", str(e.exception))
        # A bf16 C from f16 inputs is no C gemm takes.
        cbf = kaio.DeviceArray.empty((64, 64), "bfloat16")
        with self.assertRaises(Exception) as e:
            ops.gemm(f16, kaio.DeviceArray.empty((32, 64), "float16"),
                     out=cbf)
        self.assertIn("dtype bf16 is not supported with f16 inputs",
                      str(e.exception))
        # A transposed view reaches the library as a column-major matrix:
        # on this 8.0 GPU the portable kernel reads it when its lines are
        # 16-byte aligned, and names it when not.
        bt = CudaArrayInterface(kaio.DeviceArray.empty((48, 32), "float16"),
                                (32, 48), (2, 64), "<f2")
        ops.gemm(f16, bt)
        self.assertLaunched(1, "mma_gemm_f16_f32_bcol_aligned")
        self.launches = fake().launches
        odd = CudaArrayInterface(kaio.DeviceArray.empty((48, 33), "float16"),
                                 (32, 48), (2, 66), "<f2")
        with self.assertRaises(Exception) as e:
            ops.gemm(f16, odd)
        self.assertIn("gemm: b: a column-major matrix needs 16-byte aligned "
                      "lines", str(e.exception))
        strided = CudaArrayInterface(self.x, (5, 16), (132, 8))
        with self.assertRaises(ValueError) as e:
            ops.softmax(strided, out=self.x)
        self.assertIn("not contiguous in its last dimension",
                      str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.softmax(CudaArrayInterface(self.x))
        self.assertIn("out: required", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.softmax(DLPackArray(self.x, device_type=1), out=self.x)
        self.assertIn("device type 1", str(e.exception))
        # An array claiming host memory as the GPU's: refused before the
        # launch (which would fault and lose the context).
        host = np.ones((5, 33), np.float32)

        class HostMemory:
            ptr, shape = host.ctypes.data, host.shape
        with self.assertRaises(kaio.KaioValueError) as e:
            ops.softmax(CudaArrayInterface(HostMemory), out=self.x)
        self.assertIn("is not memory the GPU can use", str(e.exception))
        self.assertNothingLaunched()

    def test_ops_launch_their_kernels(self):
        y = ops.softmax(self.x, scale=0.5)
        self.assertEqual((y.shape, y.dtype), ((5, 33), "float32"))
        self.assertLaunched(1, "softmax")
        out, rstd = ops.rms_norm(self.x, return_rstd=True)
        self.assertEqual(rstd.shape, (5,))
        self.assertLaunched(2, "rms")
        out, h, mean, rstd = ops.layer_norm(self.x, residual=self.x,
                                            return_stats=True)
        self.assertEqual((h.shape, mean.shape), ((5, 33), (5,)))
        ops.swiglu(self.x, self.x, out=self.x)  # in place
        self.assertEqual(ops.argmax_rows(self.x).dtype, "int32")
        self.assertEqual(ops.reduce_all(self.x, "max").shape, (1,))
        targets = kaio.DeviceArray.from_numpy(np.zeros(5, np.int32))
        loss, lse = ops.cross_entropy(self.x, targets, return_lse=True)
        self.assertEqual((loss.shape, loss.dtype), ((5,), "float32"))
        dlogits = ops.cross_entropy_backward(self.x, targets, lse, loss)
        self.assertEqual(dlogits.shape, (5, 33))
        a = kaio.DeviceArray.empty((64, 32), "float16")
        b = kaio.DeviceArray.empty((32, 48), "float16")
        c = ops.gemm(a, b)
        self.assertEqual((c.shape, c.dtype), ((64, 48), "float32"))
        # On the fake 9.0 GPU (device 1) a transposed B (x.T of a (48, 32)
        # array) runs on the kernel that reads B column-major.
        b1 = kaio.DeviceArray.empty((48, 32), "float16", device=1)
        bt = CudaArrayInterface(b1, (32, 48), (2, 64), "<f2")
        bt.device = 1
        c1 = ops.gemm(kaio.DeviceArray.empty((64, 32), "float16", device=1),
                      bt)
        self.assertEqual(c1.shape, (64, 48))
        self.assertTrue(fake().lastKernel.decode().endswith("_bcol"),
                        fake().lastKernel)
        yt = ops.gemv(self.x, kaio.DeviceArray.empty((5,)), transposed=True)
        self.assertEqual(yt.shape, (33,))
        self.assertEqual(ops.reduce_cols(self.x, "min").shape, (33,))
        self.assertEqual(ops.argmax_all(self.x).dtype, "int32")
        self.assertEqual(fake().launches, self.launches + 19)
        self.assertIn("argmax_all_finish", fake().lastKernel.decode())

    def test_gemm_splits_k_for_decode_like_m(self):
        # On the fake 9.0 GPU (132 SMs): 16 x 256 is 2 tiles, K 1024 is 16
        # k tiles: gemm allocates the workspace and splits K in 4 (the
        # product on 8 work units, then the reduction in out's dtype); a
        # C of many tiles is one launch.
        x = kaio.DeviceArray.empty((16, 1024), "float16", device=1)
        w = kaio.DeviceArray.empty((256, 1024), "float16", device=1)
        launches = fake().launches
        c = ops.gemm(x, w.T, activation="relu")
        self.assertEqual((c.shape, c.dtype), ((16, 256), "float32"))
        self.assertEqual(fake().launches, launches + 2)
        self.assertEqual(fake().prevKernel.decode(),
                         "hopper_gemm_f16_f32_128x128x64_s4_bcol")
        self.assertEqual(fake().prevGrid[0], 8)
        self.assertEqual(fake().lastKernel.decode(), "gemm_split_reduce_f32")
        big = kaio.DeviceArray.empty((2048, 1024), "float16", device=1)
        wide = kaio.DeviceArray.empty((1024, 1024), "float16", device=1)
        ops.gemm(big, wide.T)  # 128 tiles
        self.assertEqual(fake().launches, launches + 3)

    def test_gemm_layouts_and_fp8(self):
        # On the fake 9.0 GPU (device 1): x @ w.T with w row-major (N, K)
        # reads w in place (the column-major-B kernel), in f16 and in FP8
        # (whose B must be K-major: w.T is, w itself is not).
        x = kaio.DeviceArray.empty((64, 32), "float16", device=1)
        w = kaio.DeviceArray.empty((48, 32), "float16", device=1)
        self.assertEqual(w.T.shape, (32, 48))
        c = ops.gemm(x, w.T)
        self.assertEqual((c.shape, c.dtype), ((64, 48), "float32"))
        self.assertEqual(fake().lastKernel.decode(),
                         "hopper_gemm_f16_f32_128x128x64_s4_bcol")
        x8 = kaio.DeviceArray.empty((64, 32), "float8_e4m3fn", device=1)
        w8 = kaio.DeviceArray.empty((48, 32), "float8_e4m3fn", device=1)
        c8 = ops.gemm(x8, w8.T, alpha=0.5)
        self.assertEqual(c8.shape, (64, 48))
        self.assertEqual(fake().lastKernel.decode(),
                         "hopper_gemm_e4m3_f32_128x128x128_s4_bcol")
        launches = fake().launches
        k8 = kaio.DeviceArray.empty((32, 48), "float8_e4m3fn", device=1)
        with self.assertRaises(Exception) as e:
            ops.gemm(x8, k8)
        self.assertIn("gemm: b: an e4m3 B must be column-major",
                      str(e.exception))
        self.assertEqual(fake().launches, launches)
        with self.assertRaises(ValueError) as e:
            kaio.DeviceArray.empty((2, 3, 4)).T
        self.assertIn("is not 2-D", str(e.exception))
        # 8-bit floats come back to NumPy as their codes.
        self.assertEqual(str(w8.numpy().dtype), "uint8")
        # float32 multiplies as tf32 (when allowed), K-major like FP8.
        x32 = kaio.DeviceArray.empty((64, 32), "float32", device=1)
        w32 = kaio.DeviceArray.empty((48, 32), "float32", device=1)
        # Without allow_tf32, full precision on the CUDA cores, any layout.
        ops.gemm(x32, w32.T)
        self.assertEqual(fake().lastKernel.decode(), "sgemm_f32_bcol_aligned")
        # Row-major float32: full precision on the CUDA cores.
        ops.gemm(x32, kaio.DeviceArray.empty((32, 48), "float32", device=1))
        self.assertEqual(fake().lastKernel.decode(), "sgemm_f32_aligned")
        self.assertEqual(ops.gemm(x32, w32.T, allow_tf32=True).shape,
                         (64, 48))
        self.assertEqual(fake().lastKernel.decode(),
                         "hopper_gemm_f32_f32_128x128x32_s4_bcol")

    def test_gemm_epilogue(self):
        # A linear layer: gelu(x @ w.T + b), one launch on the fake 9.0 GPU
        # (fused) and on the fake 8.0 GPU (the portable kernel fuses it
        # too).
        x = kaio.DeviceArray.empty((64, 32), "bfloat16", device=1)
        w = kaio.DeviceArray.empty((48, 32), "bfloat16", device=1)
        bias = kaio.DeviceArray.empty((48,), "bfloat16", device=1)
        y = kaio.DeviceArray.empty((64, 48), "bfloat16", device=1)
        launches = fake().launches
        ops.gemm(x, w.T, out=y, bias=bias, activation="gelu")
        self.assertEqual(fake().launches, launches + 1)
        self.assertEqual(fake().lastKernel.decode(),
                         "hopper_gemm_bf16_bf16_128x128x64_s4_bcol")
        a = kaio.DeviceArray.empty((64, 32), "float16")
        b = kaio.DeviceArray.empty((32, 48), "float16")
        c = ops.gemm(a, b, bias=kaio.DeviceArray.empty((48,)),
                     activation="relu")
        self.assertEqual((c.shape, c.dtype), ((64, 48), "float32"))
        self.assertEqual(fake().launches, launches + 2)
        self.assertEqual(fake().lastKernel.decode(),
                         "mma_gemm_f16_f32_aligned")
        # Bad input names the argument; nothing launches.
        with self.assertRaises(Exception) as e:
            ops.gemm(a, b, bias=kaio.DeviceArray.empty((47,)))
        self.assertIn("gemm: bias: is 1x47", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.gemm(a, b, activation="tanh")
        self.assertIn("activation", str(e.exception))
        self.assertEqual(fake().launches, launches + 2)
        # The backward of x @ w.T by the forward's kernels, transposes in
        # place: da = dc @ w, db = x.T @ dc (two launches).
        dc = kaio.DeviceArray.empty((64, 48), "bfloat16", device=1)
        launches = fake().launches
        da, db = ops.gemm_backward(x, w.T, dc)
        self.assertEqual((da.shape, db.shape), ((64, 32), (32, 48)))
        self.assertEqual(fake().launches, launches + 2)
        launches = fake().launches
        # The tuner on the fake 9.0 GPU: both tile widths, alone and in
        # clusters of two, timed (12 runs each), the choice named.
        choice = ops.tune_gemm(x, w.T, y, bias=bias, activation="gelu")
        self.assertIn(choice, ("n128", "n256", "n128c2", "n256c2"))
        self.assertEqual(fake().launches, launches + 48)

    def test_flash_attention(self):
        q = kaio.DeviceArray.empty((2, 100, 8, 64), "bfloat16")
        kv = kaio.DeviceArray.empty((2, 100, 2, 64), "bfloat16")
        out, lse = ops.flash_attention(q, kv, kv, causal=True,
                                       return_lse=True)
        self.assertEqual((out.shape, out.dtype), ((2, 100, 8, 64),
                                                  "bfloat16"))
        self.assertEqual((lse.shape, lse.dtype), ((2, 8, 100), "float32"))
        self.assertLaunched(1, "flash_fwd_bf16_d64")
        self.assertEqual(tuple(fake().lastGrid), (2, 8, 2))
        # [batch, heads, seq, dim] (torch SDPA's): 100 rows of 8 heads.
        ops.flash_attention(kaio.DeviceArray.empty((2, 8, 100, 64),
                                                   "bfloat16"),
                            kaio.DeviceArray.empty((2, 2, 100, 64),
                                                   "bfloat16"),
                            kaio.DeviceArray.empty((2, 2, 100, 64),
                                                   "bfloat16"),
                            layout="bhsd")
        self.assertEqual(tuple(fake().lastGrid), (2, 8, 2))
        # Packed sequences: [total, heads, dim] and offsets.
        cu = kaio.DeviceArray.from_numpy(np.array([0, 30, 100], np.int32))
        packed = kaio.DeviceArray.empty((100, 8, 64), "bfloat16")
        ops.flash_attention(packed, packed, packed, cu_seqlens_q=cu,
                            cu_seqlens_k=cu, max_seqlen_q=70)
        self.assertEqual(tuple(fake().lastGrid), (2, 8, 2))
        self.assertLaunched(3, "flash_fwd_bf16_d64")
        with self.assertRaises(kaio.KaioUnsupportedError) as e:
            wide = kaio.DeviceArray.empty((1, 16, 2, 96), "float16")
            ops.flash_attention(wide, wide, wide)
        self.assertIn("head dimension 96 (supported: 64, 128, 256)",
                      str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.flash_attention(q, kv, kv, layout="sbhd")
        self.assertIn("layout: 'sbhd'", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.flash_attention(q, q, kv)
        self.assertIn("v: is 2x100x2x64 but must be 2x100x8x64",
                      str(e.exception))
        self.assertEqual(fake().launches, self.launches + 3)
        # On a 9.0 GPU the TMA/wgmma forward; portable=True: mma.sync.
        h = kaio.DeviceArray.empty((2, 100, 8, 64), "bfloat16", device=1)
        # Its consumers take turns issuing (ping-pong) unless asked not to.
        ops.flash_attention(h, h, h)
        self.assertEqual(fake().lastKernel.decode(),
                         "hopper_flash_fwd_bf16_d64_pp")
        ops.flash_attention(h, h, h, schedule="independent")
        self.assertEqual(fake().lastKernel.decode(),
                         "hopper_flash_fwd_bf16_d64")
        ops.flash_attention(h, h, h, query_rows=192)
        self.assertEqual(fake().lastKernel.decode(),
                         "hopper_flash_fwd_bf16_d64_q192_pp")
        ops.flash_attention(h, h, h, query_rows=128)
        self.assertEqual(fake().lastKernel.decode(),
                         "hopper_flash_fwd_bf16_d64_pp")
        ops.flash_attention(h, h, h, portable=True)
        self.assertEqual(fake().lastKernel.decode(), "flash_fwd_bf16_d64")
        self.launches += 5
        with self.assertRaises(ValueError) as e:
            ops.flash_attention(h, h, h, query_rows=64)
        self.assertIn("query_rows: 64", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.flash_attention(h, h, h, schedule="pingpong")
        self.assertIn("schedule: 'pingpong'", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.flash_attention(h, h, h, schedule=["ping_pong"])
        self.assertIn("schedule: ['ping_pong']", str(e.exception))
        with self.assertRaises(kaio.KaioUnsupportedError) as e:
            wide = kaio.DeviceArray.empty((1, 16, 2, 256), "float16")
            ops.flash_attention(wide, wide, wide, schedule="ping_pong")
        self.assertIn("schedule: ping-pong at head dimension 256",
                      str(e.exception))
        with self.assertRaises(kaio.KaioUnsupportedError) as e:
            ops.flash_attention(wide, wide, wide, query_rows=192)
        self.assertIn("queryRows: 192 at head dimension 256",
                      str(e.exception))
        self.assertEqual(fake().launches, self.launches + 3)
        dq, dk, dv = ops.flash_attention_backward(q, kv, kv, out, out, lse,
                                                  causal=True)
        self.assertEqual((dq.shape, dk.shape, dv.shape),
                         ((2, 100, 8, 64), (2, 100, 2, 64), (2, 100, 2, 64)))
        self.assertLaunched(6, "flash_bwd_dkdv_bf16_d64")
        # portable=True reaches the options (the same kernels on an 8.0 GPU).
        ops.flash_attention_backward(q, kv, kv, out, out, lse, causal=True,
                                     portable=True)
        self.assertLaunched(9, "flash_bwd_dkdv_bf16_d64")
        with self.assertRaises(ValueError) as e:
            ops.flash_attention_backward(q, kv, kv, out, out, None)
        self.assertIn("lse: null", str(e.exception))
        # lse is read as dense float32: another dtype or a strided view
        # (whose elements are not the kernels' consecutive ones) is refused.
        with self.assertRaises(ValueError) as e:
            ops.flash_attention_backward(
                q, kv, kv, out, out,
                kaio.DeviceArray.empty((2, 8, 100), "float16"))
        self.assertIn("lse: dtype float16 is not float32", str(e.exception))
        with self.assertRaises(ValueError) as e:
            ops.flash_attention_backward(
                q, kv, kv, out, out, kaio.DeviceArray.empty((2, 800)).T)
        self.assertIn("lse: shape [800, 2] with strides [1, 800] is not "
                      "contiguous", str(e.exception))
        self.assertEqual(fake().launches, self.launches + 9)

    def test_flash_decode(self):
        q = kaio.DeviceArray.empty((3, 1, 8, 128), "float16")
        pool = kaio.DeviceArray.empty((12, 64, 2, 128), "float16")
        table = kaio.DeviceArray.from_numpy(
            np.arange(12, dtype=np.int32).reshape(3, 4))
        lens = kaio.DeviceArray.from_numpy(np.array([5, 200, 256], np.int32))
        out = ops.flash_decode(q, pool, pool, lens, block_table=table)
        self.assertEqual((out.shape, out.dtype), ((3, 1, 8, 128), "float16"))
        self.assertLaunched(2, "flash_decode_combine_f16_d128")
        cache = kaio.DeviceArray.empty((3, 300, 2, 128), "float16")
        ops.flash_decode(q, cache, cache, lens)
        self.assertLaunched(4, "flash_decode_combine_f16_d128")
        # vLLM's 16-key pages (a longer table).
        pages16 = kaio.DeviceArray.empty((48, 16, 2, 128), "float16")
        table16 = kaio.DeviceArray.from_numpy(
            np.arange(48, dtype=np.int32).reshape(3, 16))
        ops.flash_decode(q, pages16, pages16, lens, block_table=table16)
        self.assertLaunched(6, "flash_decode_combine_f16_d128")
        with self.assertRaises(kaio.KaioUnsupportedError) as e:
            small = kaio.DeviceArray.empty((12, 24, 2, 128), "float16")
            ops.flash_decode(q, small, small, lens, block_table=table)
        self.assertIn("page_size: 24 (a multiple of 16)", str(e.exception))
        self.assertEqual(fake().launches, self.launches + 6)

    def test_every_argument_path_builds_the_same_matrix(self):
        # matrix_of (an op's arguments after the first: no View) against
        # view() + matrix() (the first), byte for byte, on kaio arrays of
        # each rank, a transposed view, and torch tensors where torch is.
        from kaio import _arrays
        cases = [kaio.DeviceArray.empty((7,)), self.x,
                 kaio.DeviceArray.empty((2, 3, 8), "float16"),
                 kaio.DeviceArray.empty((1, 9)),
                 kaio.DeviceArray.empty((4, 6)).T]
        for a in cases:
            general = _arrays.matrix("f", "a", _arrays.view("f", "a", a))
            self.assertEqual(bytes(_arrays.matrix_of("f", "a", a)),
                             bytes(general), a)
        with self.assertRaises(kaio.KaioValueError) as e:
            _arrays.matrix_of("f", "b", kaio.DeviceArray.empty((3,), "float64"))
        self.assertIn("b: dtype float64 is not supported", str(e.exception))

    def test_arrays_on_another_device_are_named(self):
        # The call runs on its first array's device (the fake driver has
        # two): any other array argument elsewhere -- an input, out=, a
        # bias, an attention tensor, of any kind -- is a KaioValueError
        # naming the op, the argument and both devices; nothing launches.
        def refused(call, where):
            with self.assertRaises(kaio.KaioValueError) as e:
                call()
            self.assertIn(where, str(e.exception))
            self.assertEqual(e.exception.status_name,
                             "KAIO_ERROR_INVALID_VALUE")

        a0 = kaio.DeviceArray.empty((64, 32), "float16")
        b0 = kaio.DeviceArray.empty((32, 48), "float16")
        b1 = kaio.DeviceArray.empty((32, 48), "float16", device=1)
        refused(lambda: ops.gemm(a0, b1),
                "kaio.ops.gemm: b: on device 1; the call runs on device 0 "
                "(argument 'a')")
        refused(lambda: ops.gemm(b1.T, a0.T),  # a view, on device 1 first
                "kaio.ops.gemm: b: on device 0; the call runs on device 1 "
                "(argument 'a')")
        c1 = kaio.DeviceArray.empty((64, 48), "float32", device=1)
        refused(lambda: ops.gemm(a0, b0, out=c1),
                "kaio.ops.gemm: out: on device 1; the call runs on device 0 "
                "(argument 'a')")
        refused(lambda: ops.gemm(a0, b0, bias=kaio.DeviceArray.empty(
            (48,), device=1)), "kaio.ops.gemm: bias: on device 1;")
        refused(lambda: ops.gemm_backward(a0, b1, a0),
                "kaio.ops.gemm_backward: b: on device 1;")
        refused(lambda: ops.tune_gemm(a0, b0, c1),
                "kaio.ops.tune_gemm: out: on device 1;")
        x1 = kaio.DeviceArray.empty((5, 33), device=1)
        refused(lambda: ops.softmax(self.x, out=x1),
                "kaio.ops.softmax: out: on device 1; the call runs on "
                "device 0 (argument 'x')")
        refused(lambda: ops.softmax(x1, out=self.x),
                "kaio.ops.softmax: out: on device 0; the call runs on "
                "device 1 (argument 'x')")
        # Other array kinds: DLPack and __cuda_array_interface__ (an int
        # .device, or CuPy's Device object with .id) on either side.
        refused(lambda: ops.softmax(self.x, out=DLPackArray(x1,
                                                            device_id=1)),
                "kaio.ops.softmax: out: on device 1;")
        refused(lambda: ops.softmax(DLPackArray(x1, device_id=1),
                                    out=self.x),
                "kaio.ops.softmax: out: on device 0; the call runs on "
                "device 1 (argument 'x')")
        cai = CudaArrayInterface(x1)
        cai.device = 1
        refused(lambda: ops.add(self.x, cai, out=self.x),
                "kaio.ops.add: b: on device 1;")
        cupy_like = CudaArrayInterface(x1)
        cupy_like.device = type("Device", (), {"id": 1})()
        refused(lambda: ops.add(cupy_like, self.x, out=x1),
                "kaio.ops.add: b: on device 0; the call runs on device 1 "
                "(argument 'a')")
        ops.add(cupy_like, x1, out=cai)  # all on device 1: runs
        self.launches += 1
        refused(lambda: ops.rms_norm(self.x, weight=kaio.DeviceArray.empty(
            (33,), device=1)), "kaio.ops.rms_norm: weight: on device 1;")
        targets1 = kaio.DeviceArray.empty((5,), "int32", device=1)
        refused(lambda: ops.cross_entropy(self.x, targets1),
                "kaio.ops.cross_entropy: targets: on device 1;")
        # Attention: k, v, out and lse, each named.
        q = kaio.DeviceArray.empty((2, 100, 8, 64), "bfloat16")
        kv = kaio.DeviceArray.empty((2, 100, 2, 64), "bfloat16")
        kv1 = kaio.DeviceArray.empty((2, 100, 2, 64), "bfloat16", device=1)
        q1 = kaio.DeviceArray.empty((2, 100, 8, 64), "bfloat16", device=1)
        refused(lambda: ops.flash_attention(q, kv1, kv),
                "kaio.ops.flash_attention: k: on device 1; the call runs on "
                "device 0 (argument 'q')")
        refused(lambda: ops.flash_attention(q, kv, kv1),
                "kaio.ops.flash_attention: v: on device 1;")
        refused(lambda: ops.flash_attention(q, kv, kv, out=q1),
                "kaio.ops.flash_attention: out: on device 1;")
        refused(lambda: ops.flash_attention(q1, kv, kv),
                "kaio.ops.flash_attention: k: on device 0; the call runs on "
                "device 1 (argument 'q')")
        lse1 = kaio.DeviceArray.empty((2, 8, 100), device=1)
        refused(lambda: ops.flash_attention_backward(q, kv, kv, q, q, lse1),
                "kaio.ops.flash_attention_backward: lse: on device 1;")
        refused(lambda: ops.flash_attention_backward(q, kv, kv, q, q1, lse1),
                "kaio.ops.flash_attention_backward: dout: on device 1;")
        lens = kaio.DeviceArray.empty((2,), "int32", device=1)
        refused(lambda: ops.flash_decode(q, kv, kv, lens),
                "kaio.ops.flash_decode: seqlens: on device 1;")
        refused(lambda: ops.flash_decode(q, kv1, kv1, lens),
                "kaio.ops.flash_decode: k_cache: on device 1;")
        # torch tensors (the views' fast paths: get_device, no View for a
        # later argument), by a stand-in of torch.Tensor's accessors (an
        # explicit stream: no torch.cuda here).
        class Tensor:
            def __init__(self, base):
                self.base, self.shape = base, base.shape
                self.dtype, self.is_cuda = "torch.float32", True

            def data_ptr(self):
                return self.base.ptr

            def stride(self):
                return self.base.strides

            def get_device(self):
                return self.base.device

        Tensor.__module__ = "torch.kaio_test"
        refused(lambda: ops.softmax(Tensor(self.x), out=Tensor(x1),
                                    stream=0),
                "kaio.ops.softmax: out: on device 1; the call runs on "
                "device 0 (argument 'x')")
        refused(lambda: ops.add(Tensor(x1), Tensor(x1), out=self.x,
                                stream=0),
                "kaio.ops.add: out: on device 0; the call runs on device 1 "
                "(argument 'a')")
        self.assertNothingLaunched()
        ops.add(Tensor(x1), x1, out=Tensor(x1), stream=0)  # device 1: runs
        self.assertLaunched(1, "add")

    def test_third_party_arrays(self):
        out = kaio.DeviceArray.empty((5, 33))
        ops.softmax(CudaArrayInterface(self.x), out=out)
        ops.softmax(DLPackArray(self.x), out=out)
        batched = CudaArrayInterface(self.x, (5, 1, 33), None)
        ops.add(batched, batched, out=out)
        self.assertEqual(fake().launches, self.launches + 3)


@unittest.skipIf(np is None, "needs python3-numpy")
class CompileTest(unittest.TestCase):
    def setUp(self):
        self.source = os.path.join(EXAMPLES, "vector_add.mlir")

    def test_compile_and_launch(self):
        add = kaio.compile(self.source)
        self.assertEqual(add.signature,
                         "vector_add(ptr<const f32>,ptr<const f32>,ptr<f32>,"
                         "u32) maxntid=256")
        self.assertEqual(add.chip, "sm_80")  # the fake device 0
        n = 1000
        a = kaio.DeviceArray.from_numpy(np.arange(n, dtype=np.float32))
        b = kaio.DeviceArray.from_numpy(np.ones(n, np.float32))
        c = kaio.DeviceArray.zeros((n,))
        add[(n + 255) // 256, 256](a, b, c, n)
        np.testing.assert_array_equal(c.numpy(),
                                      np.arange(n, dtype=np.float32) + 1)
        launches = fake().launches
        with self.assertRaises(kaio.KaioArgumentError) as e:
            add(a, b, c, grid=4, block=256)
        self.assertIn("vector_add", str(e.exception))
        with self.assertRaises(kaio.KaioArgumentError) as e:
            add(a, b, c, np.int32(n), grid=4, block=256)
        self.assertIn("u32", str(e.exception))
        with self.assertRaises(ValueError) as e:
            add(a, b, c, -1, grid=4, block=256)
        self.assertIn("-1 does not fit u32", str(e.exception))
        h = kaio.DeviceArray.empty((n,), "float16")
        with self.assertRaises(kaio.KaioArgumentError) as e:
            add(a, b, h, n, grid=4, block=256)
        self.assertIn("f16", str(e.exception))
        with self.assertRaises(ValueError) as e:
            add(a, b, c, n, grid=4, block=4096)
        self.assertIn("block", str(e.exception))
        # A block of more dimensions than the kernel's block_size (256).
        with self.assertRaises(kaio.KaioValueError) as e:
            add(a, b, c, n, grid=8, block=(128, 2))
        self.assertIn("block 128x2 has 2 dimensions, more than the kernel's "
                      "compiled block 256 (.maxntid)", str(e.exception))
        # An array on another device than the kernel's is named.
        c1 = kaio.DeviceArray.zeros((n,), device=1)
        with self.assertRaises(kaio.KaioValueError) as e:
            add(a, b, c1, n, grid=4, block=256)
        self.assertIn("vector_add): argument 2: on device 1; the kernel is "
                      "loaded on device 0", str(e.exception))
        self.assertEqual(fake().launches, launches)

    def test_ptx_cache(self):
        ptx = kaio.compile_ptx(self.source, "sm_90")
        self.assertIn(".target sm_90", ptx)
        cache = os.path.join(os.environ["KAIO_CACHE_DIR"], "ptx")
        entries = [f for f in os.listdir(cache) if f.endswith(".ptx")]
        self.assertTrue(entries)
        self.assertEqual(kaio.compile_ptx(self.source, "sm_90"), ptx)
        # A truncated or corrupt entry is recompiled, not used.
        for f in entries:
            with open(os.path.join(cache, f), "r+") as out:
                out.truncate(len(ptx) // 2)
        self.assertEqual(kaio.compile_ptx(self.source, "sm_90"), ptx)
        for f in entries:
            with open(os.path.join(cache, f), "w") as out:
                out.write("garbage")
        self.assertEqual(kaio.compile_ptx(self.source, "sm_90"), ptx)

    def test_compile_errors_are_located(self):
        with self.assertRaises(kaio.KaioCompileError) as e:
            kaio.compile_ptx("module {\n  kaio.bogus\n}\n")
        self.assertIn("<source>:2:", str(e.exception))
        with self.assertRaises(ValueError) as e:
            kaio.compile(self.source, kernel="nope")
        self.assertIn("'nope' is not one of ['vector_add']",
                      str(e.exception))


class TorchTest(unittest.TestCase):
    @unittest.skipIf(torch is None, "needs torch (python3-torch)")
    def test_cpu_tensors_are_rejected(self):
        with self.assertRaises(ValueError) as e:
            ops.softmax(torch.ones(2, 3))
        self.assertIn("x: a CPU tensor", str(e.exception))
        # A later argument takes the other path (no View): the same check.
        if np is not None:
            x = kaio.DeviceArray.from_numpy(np.ones((2, 3), np.float32))
            with self.assertRaises(ValueError) as e:
                ops.add(x, torch.ones(2, 3), out=x)
            self.assertIn("b: a CPU tensor", str(e.exception))

    @unittest.skipIf(torch is None or not hasattr(torch, "library") or
                     not hasattr(torch.library, "custom_op"),
                     "needs torch >= 2.4 (torch.library.custom_op); "
                     "Debian's python3-torch is 1.13")
    def test_custom_ops_register(self):
        from kaio import torch_ops
        self.assertTrue(hasattr(torch.ops.kaio, "rms_norm"))
        self.assertIsNotNone(torch_ops)


def _gpu_torch():
    return (torch is not None and hasattr(torch, "library") and
            hasattr(torch.library, "custom_op") and
            torch.cuda.is_available() and
            "Fake" not in torch.cuda.get_device_name(0))


@unittest.skipUnless(_gpu_torch(), "needs a GPU and torch >= 2.4")
class TorchGpuTest(unittest.TestCase):
    """On a GPU host: results and gradients against torch's own ops."""

    def setUp(self):
        from kaio import torch_ops
        self.kt = torch_ops
        torch.manual_seed(0)

    def close(self, got, want, tol):
        err = (got.float() - want.float()).abs().max().item()
        scale = want.float().abs().max().item() + 1e-6
        self.assertLess(err / scale, tol, "relative error %g" % (err / scale))

    def test_forward_matches_torch(self):
        F = torch.nn.functional
        x = torch.randn(77, 1000, device="cuda")
        w = torch.randn(1000, device="cuda")
        self.close(ops.softmax(x), torch.softmax(x, -1), 1e-5)
        self.close(self.kt.rms_norm(x, w, 1e-6),
                   x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
                   1e-5)
        self.close(self.kt.layer_norm(x, w, w), F.layer_norm(
            x, (1000,), w, w), 1e-5)
        a = torch.randn(130, 70, device="cuda", dtype=torch.float16)
        b = torch.randn(70, 90, device="cuda", dtype=torch.float16)
        self.close(self.kt.gemm(a, b), a.float() @ b.float(), 1e-3)

    def test_linear_matches_torch(self):
        F = torch.nn.functional
        for dtype in (torch.float16, torch.bfloat16):
            if (dtype == torch.bfloat16 and
                    torch.cuda.get_device_capability()[0] != 9):
                continue  # bf16 GEMMs need a 9.0 GPU
            x = torch.randn(3, 41, 64, device="cuda", dtype=dtype,
                            requires_grad=True)
            w = torch.randn(72, 64, device="cuda", dtype=dtype,
                            requires_grad=True)
            b = torch.randn(72, device="cuda", dtype=dtype,
                            requires_grad=True)
            for act, fn in [("none", lambda z: z), ("relu", F.relu),
                            ("gelu", F.gelu), ("silu", F.silu)]:
                ours = self.kt.linear(x, w, b, act)
                theirs = fn(F.linear(x.float(), w.float(), b.float()))
                self.close(ours, theirs, 2e-2)
                g = torch.randn_like(theirs)
                want = torch.autograd.grad(theirs, (x, w, b), g)
                got = torch.autograd.grad(ours, (x, w, b), g.to(dtype))
                for o, t in zip(got, want):
                    self.close(o, t, 3e-2)

    def test_gradients_match_torch(self):
        F = torch.nn.functional
        x = torch.randn(33, 257, device="cuda", requires_grad=True)
        w = torch.randn(257, device="cuda", requires_grad=True)
        for ours, theirs in [
                (lambda: self.kt.rms_norm(x, w, 1e-6),
                 lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) +
                                         1e-6) * w),
                (lambda: self.kt.layer_norm(x, w, None),
                 lambda: F.layer_norm(x, (257,), w, None)),
                (lambda: self.kt.softmax(x, 0.5),
                 lambda: torch.softmax(0.5 * x, -1))]:
            g = torch.randn(33, 257, device="cuda")
            want = torch.autograd.grad(theirs(), (x, w), g,
                                       allow_unused=True)
            got = torch.autograd.grad(ours(), (x, w), g, allow_unused=True)
            for a, b in zip(got, want):
                if b is not None:
                    self.close(a, b, 1e-4)

    def test_flash_attention_matches_sdpa(self):
        F = torch.nn.functional
        for dtype, causal, (sq, sk) in [(torch.float16, False, (300, 300)),
                                         (torch.bfloat16, True, (200, 333))]:
            q = torch.randn(2, sq, 8, 128, device="cuda", dtype=dtype,
                            requires_grad=True)
            k = torch.randn(2, sk, 2, 128, device="cuda", dtype=dtype,
                            requires_grad=True)
            v = torch.randn(2, sk, 2, 128, device="cuda", dtype=dtype,
                            requires_grad=True)
            g = torch.randn(2, sq, 8, 128, device="cuda", dtype=dtype)
            ours = self.kt.flash_attention(q, k, v, causal=causal)
            # SDPA: [b, h, s, d], kv heads repeated for GQA, bottom-right
            # causal as an explicit mask.
            qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
            kt = kt.repeat_interleave(4, dim=1)
            vt = vt.repeat_interleave(4, dim=1)
            mask = None
            if causal:
                i = torch.arange(sq, device="cuda")[:, None]
                j = torch.arange(sk, device="cuda")[None, :]
                mask = j <= i + (sk - sq)
            theirs = F.scaled_dot_product_attention(
                qt.float(), kt.float(), vt.float(),
                attn_mask=mask).transpose(1, 2)
            tol = 2e-2 if dtype == torch.bfloat16 else 4e-3
            self.close(ours, theirs, tol)
            want = torch.autograd.grad(theirs, (q, k, v), g.float())
            got = torch.autograd.grad(ours, (q, k, v), g)
            for a, b in zip(got, want):
                self.close(a, b, 4 * tol)

    def test_eager_calls_skip_the_dispatcher_only_when_it_would_do_nothing(self):
        """Without a gradient to record the wrappers call KAIO directly
        (the custom op's eager dispatch costs more than the kernel); the
        result is the op's, bit for bit. A dispatch mode (as FakeTensorMode
        and make_fx are) or a tensor needing a gradient still sees the
        op."""
        from torch.utils._python_dispatch import TorchDispatchMode

        class Record(TorchDispatchMode):
            def __init__(self):
                super().__init__()
                self.ops = []

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                self.ops.append(str(func))
                return func(*args, **(kwargs or {}))

        x = torch.randn(33, 257, device="cuda")
        w = torch.nn.Parameter(torch.randn(257, device="cuda"))
        with torch.no_grad():
            direct = self.kt.rms_norm(x, w, 1e-6)
            via_op = torch.ops.kaio.rms_norm(x, w, 1e-6)[0]
            self.assertTrue(torch.equal(direct, via_op))
            with Record() as rec:
                self.kt.rms_norm(x, w, 1e-6)
            self.assertTrue(any("kaio.rms_norm" in o for o in rec.ops),
                            rec.ops)
        y = self.kt.rms_norm(x, w, 1e-6)  # w needs a gradient: the op
        self.assertIsNotNone(y.grad_fn)
        self.assertTrue(torch.equal(y.detach(), direct))
        # Meta tensors take the op's fake; torch.jit.trace records the op.
        with torch.no_grad():
            meta = self.kt.rms_norm(torch.empty(5, 257, device="meta"), None)
            self.assertEqual((meta.device.type, tuple(meta.shape)),
                             ("meta", (5, 257)))
            traced = torch.jit.trace(lambda t: self.kt.softmax(t, 1.0), x)
            self.assertIn("kaio::softmax", str(traced.graph))
            self.assertTrue(torch.equal(traced(x), self.kt.softmax(x, 1.0)))

    def test_compile_fullgraph_and_graph_capture(self):
        w = torch.randn(512, device="cuda")

        def block(x):
            return self.kt.swiglu(self.kt.rms_norm(x, w), x)

        x = torch.randn(64, 512, device="cuda")
        compiled = torch.compile(block, fullgraph=True)
        self.close(compiled(x), block(x), 1e-6)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            block(x)  # warm-up outside the capture
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                y = block(x)
        graph.replay()
        torch.cuda.synchronize()
        self.close(y, block(x), 1e-6)


if __name__ == "__main__":
    unittest.main(verbosity=2)
