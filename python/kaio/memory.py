"""kaio.DeviceArray: device memory from KAIO itself (kaio_malloc), for
hosts without PyTorch or CuPy. It speaks __cuda_array_interface__, so other
libraries can use it too."""

import ctypes
import math

from . import _capi
from ._arrays import ITEMSIZE, SCALAR_TYPE
from .errors import invalid

_NUMPY_NAMES = {"float16": "float16", "float32": "float32", "int8": "int8",
                "int32": "int32", "bfloat16": "uint16", "float64": "float64",
                "int64": "int64", "uint8": "uint8", "uint32": "uint32",
                "float8_e4m3fn": "uint8", "float8_e5m2": "uint8"}
_ITEMSIZE = dict(ITEMSIZE, float64=8, int64=8, uint8=1, uint32=4)
_TYPESTR = {"float16": "<f2", "float32": "<f4", "int8": "|i1",
            "int32": "<i4", "float64": "<f8", "int64": "<i8", "uint8": "|u1",
            "uint32": "<u4"}


class DeviceArray:
    """A dense row-major array in device memory, freed when collected."""

    def __init__(self, shape, dtype, device=0):
        if dtype not in _ITEMSIZE:
            raise invalid("kaio.DeviceArray", "dtype", "%r is not one of %s"
                          % (dtype, sorted(_ITEMSIZE)))
        self.shape = tuple(int(n) for n in shape)
        if any(n < 0 for n in self.shape):
            raise invalid("kaio.DeviceArray", "shape", "%s has a negative "
                          "extent" % (self.shape,))
        self.dtype = dtype
        self.device = device
        self.itemsize = _ITEMSIZE[dtype]
        self.size = math.prod(self.shape)
        self.nbytes = self.size * self.itemsize
        strides, acc = [], 1
        for n in reversed(self.shape):
            strides.insert(0, acc)
            acc *= n
        self.strides = tuple(strides)  # in elements
        self._ctx = _capi.context(device)
        self.ptr = 0
        out = ctypes.c_uint64()
        _capi.check(_capi.lib().kaio_malloc(self._ctx, max(self.nbytes, 1),
                                            ctypes.byref(out)))
        self.ptr = out.value

    def __del__(self):
        if getattr(self, "ptr", 0) and _capi._lib is not None:
            _capi.lib().kaio_free(self._ctx, self.ptr)
            self.ptr = 0

    @classmethod
    def empty(cls, shape, dtype="float32", device=0):
        if isinstance(shape, int):
            shape = (shape,)
        return cls(shape, dtype, device)

    @classmethod
    def zeros(cls, shape, dtype="float32", device=0):
        a = cls.empty(shape, dtype, device)
        _capi.check(_capi.lib().kaio_memset(a._ctx, a.ptr, 0, a.nbytes))
        return a

    @classmethod
    def from_numpy(cls, array, device=0, dtype=None):
        """A copy of a NumPy array (dtype "bfloat16" takes uint16 bits)."""
        import numpy as np
        array = np.ascontiguousarray(array)
        if dtype is None:
            dtype = str(array.dtype)
        a = cls(array.shape, dtype, device)
        if array.nbytes != a.nbytes:
            raise invalid("kaio.DeviceArray.from_numpy", "array",
                          "%d bytes for %d of %s" % (array.nbytes, a.size,
                                                     dtype))
        if a.nbytes:
            _capi.check(_capi.lib().kaio_memcpy_htod(
                a._ctx, a.ptr, array.ctypes.data, a.nbytes))
        return a

    @property
    def T(self):
        """The transpose of a 2-D array, a view of the same memory (a
        column-major matrix to the ops that take one, e.g. gemm's B)."""
        if len(self.shape) != 2:
            raise invalid("kaio.DeviceArray.T", "self", "shape %s is not 2-D"
                          % (self.shape,))
        return DeviceArrayView(self, self.shape[::-1], self.strides[::-1])

    def numpy(self):
        """A host copy (bfloat16 as its uint16 bits, 8-bit floats as their
        uint8 codes)."""
        import numpy as np
        out = np.empty(self.shape, dtype=_NUMPY_NAMES[self.dtype])
        if self.nbytes:
            _capi.check(_capi.lib().kaio_memcpy_dtoh(
                self._ctx, out.ctypes.data, self.ptr, self.nbytes))
        return out

    @property
    def scalar_type(self):
        return SCALAR_TYPE[self.dtype]

    @property
    def __cuda_array_interface__(self):
        if self.dtype not in _TYPESTR:
            raise AttributeError("%s has no __cuda_array_interface__ type "
                                 "string" % self.dtype)
        return {"shape": self.shape, "typestr": _TYPESTR[self.dtype],
                "data": (self.ptr, False), "strides": None, "version": 3}

    def __repr__(self):
        return "kaio.DeviceArray(shape=%s, dtype=%s, device=%d)" % (
            self.shape, self.dtype, self.device)


class DeviceArrayView:
    """Another shape and strides over a DeviceArray's memory (DeviceArray.T);
    it keeps the array alive."""

    def __init__(self, base, shape, strides):
        self.base = base
        self.ptr, self.dtype, self.device = base.ptr, base.dtype, base.device
        self.nbytes = base.nbytes
        self.shape, self.strides = tuple(shape), tuple(strides)

    def __repr__(self):
        return "kaio.DeviceArrayView(shape=%s, strides=%s, dtype=%s)" % (
            self.shape, self.strides, self.dtype)
