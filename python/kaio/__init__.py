"""KAIO from Python: the op library and custom .mlir kernels on device
arrays, over KAIO's C API (libkaio.so) with ctypes; no build against any
framework.

    import kaio
    y = kaio.ops.rms_norm(x, weight)             # torch CUDA tensors, CuPy...
    k = kaio.compile("my_kernel.mlir")           # kaio-dialect source
    k[grid, block](x, y, n)

With PyTorch >= 2.4, kaio.torch_ops registers the ops as torch custom ops
(torch.ops.kaio.*) with fake implementations and autograd.
"""

from . import ops
from ._capi import context as _context
from .errors import (KaioArgumentError, KaioCompileError, KaioDriverError,
                     KaioError, KaioLibraryError, KaioUnsupportedError,
                     KaioValueError)
from .jit import Kernel, compile, compile_ptx
from .memory import DeviceArray

__version__ = "0.1.0"


def version():
    """The loaded libkaio.so's version, "0.1.0"."""
    from . import _capi
    return _capi.lib().kaio_version_string().decode()


def device_count():
    """CUDA devices (0 without a GPU; KaioDriverError without a driver)."""
    import ctypes
    from . import _capi
    n = ctypes.c_int32()
    _capi.check(_capi.lib().kaio_device_count(ctypes.byref(n)))
    return n.value


def synchronize(device=0):
    """Waits for all work on the device."""
    from . import _capi
    _capi.check(_capi.lib().kaio_context_synchronize(_context(device)))


__all__ = ["ops", "compile", "compile_ptx", "Kernel", "DeviceArray",
           "KaioError", "KaioValueError", "KaioArgumentError",
           "KaioUnsupportedError", "KaioCompileError", "KaioDriverError",
           "KaioLibraryError", "version", "device_count", "synchronize"]
