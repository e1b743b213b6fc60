"""ctypes bindings of KAIO's C API (include/kaio/kaio.h).

libkaio.so is found, in order, in $KAIO_LIBRARY_DIR, in kaio/lib (a wheel's
layout), in the library directory of an install (this package at
<libdir>/kaio/python/kaio), in the build tree of this source tree
(build/lib), then by the dynamic loader's own search.
libkaio_compiler.so (which links MLIR) is loaded only by kaio.compile.
"""

import ctypes
import os
import threading

from . import errors

_here = os.path.dirname(os.path.abspath(__file__))


def _candidates(name):
    env = os.environ.get("KAIO_LIBRARY_DIR")
    dirs = [env] if env else []
    dirs += [os.path.join(_here, "lib"),
             # an install: <libdir>/kaio/python/kaio
             os.path.join(_here, "..", "..", ".."),
             # the build tree of this source tree
             os.path.join(_here, "..", "..", "build", "lib")]
    for d in dirs:
        path = os.path.join(d, name)
        if os.path.exists(path):
            yield os.path.abspath(path)
    yield name


def _load(name):
    tried = []
    for path in _candidates(name):
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise errors.KaioLibraryError(
        "cannot load %s; set KAIO_LIBRARY_DIR to the directory holding it "
        "(tried: %s)" % (name, "; ".join(tried)))


class Matrix(ctypes.Structure):
    """kaio_matrix."""
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int32),
                ("layout", ctypes.c_int32), ("rows", ctypes.c_int64),
                ("cols", ctypes.c_int64), ("ld", ctypes.c_int64),
                ("capacity_bytes", ctypes.c_uint64)]


class AttentionTensor(ctypes.Structure):
    """kaio_attention_tensor."""
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int32),
                ("reserved", ctypes.c_int32), ("batch", ctypes.c_int64),
                ("seq", ctypes.c_int64), ("heads", ctypes.c_int64),
                ("dim", ctypes.c_int64), ("batch_stride", ctypes.c_int64),
                ("seq_stride", ctypes.c_int64),
                ("head_stride", ctypes.c_int64),
                ("capacity_bytes", ctypes.c_uint64)]


class AttentionOptions(ctypes.Structure):
    """kaio_attention_options."""
    _fields_ = [("scale", ctypes.c_float), ("causal", ctypes.c_int32),
                ("bottom_right", ctypes.c_int32),
                ("flags", ctypes.c_int32),
                ("window_left", ctypes.c_int64),
                ("window_right", ctypes.c_int64),
                ("max_seqlen_q", ctypes.c_int64),
                ("max_seqlen_k", ctypes.c_int64)]


class Arg(ctypes.Structure):
    """kaio_arg."""
    _fields_ = [("kind", ctypes.c_int32), ("type", ctypes.c_int32),
                ("bits", ctypes.c_uint64)]


class Dim3(ctypes.Structure):
    """kaio_dim3."""
    _fields_ = [("x", ctypes.c_uint32), ("y", ctypes.c_uint32),
                ("z", ctypes.c_uint32)]


class DeviceInfo(ctypes.Structure):
    """kaio_device_info."""
    _fields_ = [("name", ctypes.c_char * 256), ("ordinal", ctypes.c_int32),
                ("cc_major", ctypes.c_int32), ("cc_minor", ctypes.c_int32),
                ("sm_count", ctypes.c_int32),
                ("total_memory", ctypes.c_uint64),
                ("driver_version", ctypes.c_int32),
                ("max_threads_per_block", ctypes.c_int32),
                ("shared_mem_per_block_optin", ctypes.c_int32),
                ("reserved", ctypes.c_int32 * 5)]


# kaio.h's enums.
F16, BF16, F32, S8, S32, S64, E4M3, E5M2 = range(8)
ACT_NONE, ACT_RELU, ACT_SILU, ACT_GELU_TANH, ACT_GELU_ERF = range(5)
GEMM_ALLOW_TF32 = 1
ATTENTION_PORTABLE = 1  # KAIO_ATTENTION_PORTABLE
ATTENTION_PING_PONG = 2  # KAIO_ATTENTION_PING_PONG
ATTENTION_INDEPENDENT = 4  # KAIO_ATTENTION_INDEPENDENT
ATTENTION_ROWS_192 = 8  # KAIO_ATTENTION_ROWS_192
ATTENTION_ROWS_128 = 16  # KAIO_ATTENTION_ROWS_128
REDUCE_SUM, REDUCE_MAX, REDUCE_MIN = range(3)
ROPE_HALF_SPLIT, ROPE_INTERLEAVED = range(2)
ARG_SCALAR, ARG_POINTER, ARG_CONST_POINTER, ARG_ANY_POINTER = range(4)
SCALAR_TYPES = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f16",
                "bf16", "f32", "f64", "b8"]
COMPILE_LINE_INFO, COMPILE_FAST_MATH = 1, 2

_c = ctypes
_p = _c.POINTER
_M = _p(Matrix)
_ctx = _c.c_void_p
_stream = _c.c_void_p
_status = _c.c_int32

# name: (restype, argtypes)
_PROTOTYPES = {
    "kaio_version": (_c.c_uint32, []),
    "kaio_abi_version": (_c.c_uint32, []),
    "kaio_version_string": (_c.c_char_p, []),
    "kaio_status_name": (_c.c_char_p, [_status]),
    "kaio_last_error_message": (_c.c_char_p, []),
    "kaio_last_cuda_error": (_c.c_int32, []),
    "kaio_device_count": (_status, [_p(_c.c_int32)]),
    "kaio_driver_version": (_status, [_p(_c.c_int32)]),
    "kaio_context_create": (_status, [_c.c_int32, _p(_ctx)]),
    "kaio_context_destroy": (None, [_ctx]),
    "kaio_context_synchronize": (_status, [_ctx]),
    "kaio_context_device_info": (_status, [_ctx, _p(DeviceInfo)]),
    "kaio_stream_create": (_status, [_ctx, _p(_stream)]),
    "kaio_stream_destroy": (_status, [_ctx, _stream]),
    "kaio_stream_synchronize": (_status, [_ctx, _stream]),
    "kaio_malloc": (_status, [_ctx, _c.c_size_t, _p(_c.c_uint64)]),
    "kaio_free": (_status, [_ctx, _c.c_uint64]),
    "kaio_memcpy_htod": (_status, [_ctx, _c.c_uint64, _c.c_void_p,
                                   _c.c_size_t]),
    "kaio_memcpy_dtoh": (_status, [_ctx, _c.c_void_p, _c.c_uint64,
                                   _c.c_size_t]),
    "kaio_memcpy_dtod": (_status, [_ctx, _c.c_uint64, _c.c_uint64,
                                   _c.c_size_t]),
    "kaio_memset": (_status, [_ctx, _c.c_uint64, _c.c_uint8, _c.c_size_t]),
    "kaio_gemm": (_status, [_ctx, _M, _M, _M, _c.c_float, _c.c_float,
                            _stream]),
    "kaio_gemm_ex": (_status, [_ctx, _M, _M, _M, _c.c_float, _c.c_float,
                               _M, _c.c_int32, _c.c_uint32, _stream]),
    "kaio_gemm_workspace_elements": (_status, [_ctx, _M, _M, _M, _c.c_float,
                                               _c.c_float, _M, _c.c_int32,
                                               _c.c_uint32,
                                               _c.POINTER(_c.c_int64)]),
    "kaio_gemm_split": (_status, [_ctx, _M, _M, _M, _c.c_float, _c.c_float,
                                  _M, _c.c_int32, _c.c_uint32, _M, _stream]),
    "kaio_gemm_backward": (_status, [_ctx, _M, _M, _M, _M, _M, _c.c_float,
                                     _c.c_float, _stream]),
    "kaio_gemm_tune": (_status, [_ctx, _M, _M, _M, _c.c_float, _c.c_float,
                                 _M, _c.c_int32, _c.c_uint32, _c.c_char_p,
                                 _c.c_size_t, _stream]),
    "kaio_gemv": (_status, [_ctx, _M, _M, _M, _M, _stream]),
    "kaio_gemv_transposed": (_status, [_ctx, _M, _M, _M, _M, _M, _stream]),
    "kaio_gemv_transposed_workspace_elements": (_c.c_int64, [_c.c_int64,
                                                             _c.c_int64]),
    "kaio_softmax": (_status, [_ctx, _M, _M, _c.c_float, _c.c_int64,
                               _c.c_int64, _stream]),
    "kaio_log_softmax": (_status, [_ctx, _M, _M, _c.c_float, _c.c_int64,
                                   _c.c_int64, _stream]),
    "kaio_softmax_backward": (_status, [_ctx, _M, _M, _M, _c.c_float,
                                        _stream]),
    "kaio_log_softmax_backward": (_status, [_ctx, _M, _M, _M, _c.c_float,
                                            _stream]),
    "kaio_rms_norm": (_status, [_ctx, _M, _M, _M, _M, _M, _M, _c.c_float,
                                _stream]),
    "kaio_layer_norm": (_status, [_ctx, _M, _M, _M, _M, _M, _M, _M, _M,
                                  _c.c_float, _stream]),
    "kaio_rms_norm_backward": (_status, [_ctx, _M, _M, _M, _M, _M, _M, _M,
                                         _stream]),
    "kaio_layer_norm_backward": (_status, [_ctx, _M, _M, _M, _M, _M, _M, _M,
                                           _M, _M, _stream]),
    "kaio_norm_backward_workspace_elements": (_c.c_int64, [_c.c_int64,
                                                           _c.c_int64]),
    "kaio_cross_entropy": (_status, [_ctx, _M, _M, _M, _M, _c.c_int32,
                                     _stream]),
    "kaio_cross_entropy_backward": (_status, [_ctx, _M, _M, _M, _M, _M,
                                              _c.c_int32, _stream]),
    "kaio_reduce_rows": (_status, [_ctx, _M, _M, _c.c_int32, _stream]),
    "kaio_argmax_rows": (_status, [_ctx, _M, _M, _stream]),
    "kaio_reduce_all": (_status, [_ctx, _M, _M, _c.c_int32, _M, _stream]),
    "kaio_reduce_cols": (_status, [_ctx, _M, _M, _c.c_int32, _M, _stream]),
    "kaio_argmax_all": (_status, [_ctx, _M, _M, _M, _stream]),
    "kaio_argmax_all_workspace_elements": (_c.c_int64, [_c.c_int64]),
    "kaio_reduce_cols_workspace_elements": (_c.c_int64, [_c.c_int64,
                                                         _c.c_int64]),
    "kaio_bias_activation": (_status, [_ctx, _M, _M, _M, _c.c_int32,
                                       _stream]),
    "kaio_gated_activation": (_status, [_ctx, _M, _M, _M, _c.c_int32,
                                        _stream]),
    "kaio_add": (_status, [_ctx, _M, _M, _M, _stream]),
    "kaio_flash_attention": (_status, [_ctx, _p(AttentionTensor),
                                       _p(AttentionTensor),
                                       _p(AttentionTensor),
                                       _p(AttentionTensor), _M, _M, _M,
                                       _p(AttentionOptions), _stream]),
    "kaio_flash_attention_backward": (
        _status, [_ctx] + [_p(AttentionTensor)] * 8 + [_M, _M, _M, _M,
                                                       _p(AttentionOptions),
                                                       _stream]),
    "kaio_flash_attention_backward_workspace_elements": (
        _c.c_int64, [_p(AttentionTensor)]),
    "kaio_flash_decode": (
        _status, [_ctx, _p(AttentionTensor), _p(AttentionTensor),
                  _p(AttentionTensor), _M, _c.c_int64, _M,
                  _p(AttentionTensor), _c.c_float, _c.c_int32, _M, _stream]),
    "kaio_flash_decode_workspace_elements": (
        _c.c_int64, [_p(AttentionTensor), _p(AttentionTensor), _M,
                     _c.c_int64]),
    "kaio_rope": (_status, [_ctx, _M, _M, _M, _M, _M, _c.c_int64,
                            _c.c_int32, _stream]),
    "kaio_module_load_ptx": (_status, [_ctx, _c.c_char_p, _c.c_size_t,
                                       _c.c_char_p, _p(_c.c_void_p)]),
    "kaio_module_load_file": (_status, [_ctx, _c.c_char_p,
                                        _p(_c.c_void_p)]),
    "kaio_module_destroy": (None, [_c.c_void_p]),
    "kaio_module_kernel_count": (_c.c_size_t, [_c.c_void_p]),
    "kaio_module_kernel_name": (_c.c_char_p, [_c.c_void_p, _c.c_size_t]),
    "kaio_module_kernel_signature": (_status, [_c.c_void_p, _c.c_char_p,
                                               _p(_c.c_char_p)]),
    "kaio_launch": (_status, [_c.c_void_p, _c.c_char_p, Dim3, Dim3,
                              _c.c_uint32, _stream, _p(Arg), _c.c_size_t]),
}

_COMPILER_PROTOTYPES = {
    "kaio_compile": (_status, [_c.c_char_p, _c.c_size_t, _c.c_char_p,
                               _c.c_char_p, _c.c_uint32, _p(_c.c_void_p)]),
    "kaio_ptx_destroy": (None, [_c.c_void_p]),
    "kaio_ptx_text": (_c.c_char_p, [_c.c_void_p]),
    "kaio_ptx_chip": (_c.c_char_p, [_c.c_void_p]),
    "kaio_ptx_diagnostics": (_c.c_char_p, [_c.c_void_p]),
}

_lock = threading.Lock()
_lib = None
_compiler = None
_contexts = {}


def _declare(lib, prototypes):
    for name, (restype, argtypes) in prototypes.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def lib():
    """libkaio.so with its prototypes declared."""
    global _lib
    if _lib is not None:  # every op call comes here: no lock once loaded
        return _lib
    with _lock:
        if _lib is None:
            loaded = _load("libkaio.so")
            _declare(loaded, _PROTOTYPES)
            if loaded.kaio_abi_version() != 1:
                raise errors.KaioLibraryError(
                    "libkaio.so has ABI version %d; this package speaks 1"
                    % loaded.kaio_abi_version())
            _lib = loaded
    return _lib


def compiler():
    """libkaio_compiler.so (loaded on first use: it links MLIR)."""
    global _compiler
    lib()
    with _lock:
        if _compiler is None:
            loaded = _load("libkaio_compiler.so")
            _declare(loaded, _COMPILER_PROTOTYPES)
            _compiler = loaded
    return _compiler


def check(status):
    """Raises the typed KaioError of a failed call."""
    if status != 0:
        l = lib()
        raise errors.from_status(
            status, l.kaio_status_name(status).decode(),
            l.kaio_last_error_message().decode(errors="replace"),
            l.kaio_last_cuda_error())


def function(name):
    """A libkaio.so function by name (looked up once)."""
    fn = _functions.get(name)
    if fn is None:
        fn = _functions.setdefault(name, getattr(lib(), name))
    return fn


_functions = {}


def context(device=0):
    """The process-wide context of a device (created on first use)."""
    ctx = _contexts.get(device)  # a dict read: atomic, no lock needed
    if ctx is not None:
        return ctx
    with _lock:
        ctx = _contexts.get(device)
    if ctx is None:
        handle = ctypes.c_void_p()
        check(lib().kaio_context_create(device, ctypes.byref(handle)))
        with _lock:
            ctx = _contexts.setdefault(device, handle.value)
            if ctx != handle.value:  # another thread won
                lib().kaio_context_destroy(handle.value)
    return ctx
