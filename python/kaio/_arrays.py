"""Device arrays as KAIO sees them: torch CUDA tensors, objects with
__cuda_array_interface__ (CuPy, Numba) or __dlpack__, and kaio.DeviceArray
(KAIO's own minimal buffer, for hosts without a framework). Each becomes a
View (address, dtype, shape, strides in elements, capacity), then a
kaio_matrix."""

import ctypes
import math
import struct

from . import _capi
from .errors import invalid

# dtype names (torch's spelling without the "torch." prefix) -> kaio_dtype.
DTYPES = {"float16": _capi.F16, "bfloat16": _capi.BF16,
          "float32": _capi.F32, "int8": _capi.S8, "int32": _capi.S32,
          "int64": _capi.S64, "float8_e4m3fn": _capi.E4M3,
          "float8_e5m2": _capi.E5M2}
ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "int8": 1,
            "int32": 4, "int64": 8, "float8_e4m3fn": 1, "float8_e5m2": 1}
# kaio.h's kaio_scalar_type of each dtype (custom-kernel pointers).
SCALAR_TYPE = {"float16": 8, "bfloat16": 9, "float32": 10, "int8": 1,
               "int32": 5, "float64": 11, "int64": 7, "uint8": 0,
               "int16": 3, "uint16": 2, "uint32": 4, "uint64": 6,
               "float8_e4m3fn": 0, "float8_e5m2": 0}
_TYPESTR = {"<f2": "float16", "<f4": "float32", "|i1": "int8",
            "<i1": "int8", "<i4": "int32", "<f8": "float64",
            "<i8": "int64", "|u1": "uint8", "<u2": "uint16",
            "<i2": "int16", "<u4": "uint32", "<u8": "uint64"}
_DLPACK_DTYPE = {(2, 16): "float16", (2, 32): "float32", (2, 64): "float64",
                 (4, 16): "bfloat16", (0, 8): "int8", (0, 32): "int32",
                 (0, 64): "int64", (0, 16): "int16", (1, 8): "uint8",
                 (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64"}


class View:
    """What KAIO needs to know of a device array."""

    __slots__ = ("ptr", "dtype", "shape", "strides", "capacity", "device",
                 "owner", "kind")

    def __init__(self, ptr, dtype, shape, strides, capacity, device, owner,
                 kind):
        self.ptr = ptr
        self.dtype = dtype
        self.shape = tuple(shape)
        self.strides = tuple(strides)  # in elements
        self.capacity = capacity  # bytes from ptr, 0 when unknown
        self.device = device
        self.owner = owner
        self.kind = kind  # "torch", "kaio", "cai", "dlpack"


_TORCH_TYPES = set()  # the tensor types seen (torch.Tensor, Parameter...)


def is_torch_tensor(obj):
    kind = type(obj)
    if kind in _TORCH_TYPES:
        return True
    if kind.__module__.startswith("torch") and hasattr(obj, "data_ptr"):
        _TORCH_TYPES.add(kind)
        return True
    return False


_TORCH_DTYPE_NAMES = {}  # torch.dtype -> its name without "torch."


def _torch_dtype(t):
    dtype = _TORCH_DTYPE_NAMES.get(t.dtype)
    if dtype is None:
        dtype = _TORCH_DTYPE_NAMES.setdefault(
            t.dtype, str(t.dtype).replace("torch.", ""))
    return dtype


def _torch_view(fn, name, t):
    # Every op call comes here for its first tensor: the cheap accessors
    # only (get_device rather than a torch.device object, the dtype's name
    # cached). The capacity stays unknown (0): a matrix or attention tensor
    # built from a tensor's own shape and strides spans only that tensor's
    # elements, so the C API's capacity check could not fail for it.
    if not t.is_cuda:
        raise invalid(fn, name, "a CPU tensor; KAIO ops take CUDA tensors")
    return View(t.data_ptr(), _torch_dtype(t), t.shape, t.stride(), 0,
                t.get_device(), t, "torch")


def _cai_view(fn, name, obj):
    cai = obj.__cuda_array_interface__
    typestr = cai["typestr"]
    dtype = _TYPESTR.get(typestr)
    if dtype is None:
        raise invalid(fn, name, "element type '%s' is not supported"
                      % typestr)
    item = int(typestr[2:])
    shape = tuple(cai["shape"])
    if cai.get("strides") is None:
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= n
    else:
        if any(s % item for s in cai["strides"]):
            raise invalid(fn, name, "strides %s are not multiples of the "
                          "element size" % (cai["strides"],))
        strides = [s // item for s in cai["strides"]]
    ptr = cai["data"][0]
    # The interface carries no device: an int .device (Numba-style
    # wrappers), CuPy's Device object's .id, else device 0.
    device = getattr(obj, "device", 0)
    if type(device) is not int:
        device = getattr(device, "id", 0)
        if type(device) is not int:
            device = 0
    return View(ptr, dtype, shape, strides, 0, device, obj, "cai")


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_K_DL_CUDA = 2


def _dlpack_view(fn, name, obj):
    if hasattr(obj, "__dlpack_device__"):
        dev_type, dev_id = obj.__dlpack_device__()
        if dev_type != _K_DL_CUDA:
            raise invalid(fn, name, "a DLPack array on device type %d; KAIO "
                          "takes CUDA arrays (type 2)" % dev_type)
    capsule = obj.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    # A DLManagedTensor starts with its DLTensor. The capsule is not
    # consumed: its destructor gives the tensor back when it is dropped.
    t = _DLTensor.from_address(get(capsule, b"dltensor"))
    if t.device.device_type != _K_DL_CUDA:
        raise invalid(fn, name, "a DLPack array on device type %d; KAIO "
                      "takes CUDA arrays (type 2)" % t.device.device_type)
    dtype = _DLPACK_DTYPE.get((t.dtype.code, t.dtype.bits))
    if dtype is None or t.dtype.lanes != 1:
        raise invalid(fn, name, "DLPack element type (code %d, %d bits) is "
                      "not supported" % (t.dtype.code, t.dtype.bits))
    shape = [t.shape[i] for i in range(t.ndim)]
    if t.strides:
        strides = [t.strides[i] for i in range(t.ndim)]
    else:
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= n
    ptr = (t.data or 0) + t.byte_offset
    return View(ptr, dtype, shape, strides, 0, t.device.device_id,
                (obj, capsule), "dlpack")


_DeviceArray = None  # kaio.memory.DeviceArray and its views (first use)


def view(fn, name, obj):
    """The View of a device array argument, or a KaioValueError naming it."""
    global _DeviceArray
    if type(obj) in _TORCH_TYPES:  # the common case first
        return _torch_view(fn, name, obj)
    if _DeviceArray is None:
        from .memory import DeviceArray, DeviceArrayView
        _DeviceArray = (DeviceArray, DeviceArrayView)
    if isinstance(obj, _DeviceArray):
        return View(obj.ptr, obj.dtype, obj.shape, obj.strides, obj.nbytes,
                    obj.device, obj, "kaio")
    if is_torch_tensor(obj):
        return _torch_view(fn, name, obj)
    if hasattr(obj, "__cuda_array_interface__"):
        return _cai_view(fn, name, obj)
    if hasattr(obj, "__array_interface__"):
        raise invalid(fn, name, "a host (NumPy) array; KAIO ops take device "
                      "arrays (kaio.DeviceArray.from_numpy copies one)")
    if hasattr(obj, "__dlpack__"):
        return _dlpack_view(fn, name, obj)
    raise invalid(fn, name, "a %s; expected a CUDA tensor, an object with "
                  "__cuda_array_interface__ or __dlpack__, or a "
                  "kaio.DeviceArray" % type(obj).__name__)


_MATRIX = struct.Struct("@QiiqqqQ")  # kaio_matrix's fields in order
assert _MATRIX.size == ctypes.sizeof(_capi.Matrix)
_from_bytes = _capi.Matrix.from_buffer_copy


def _new_matrix(ptr, dtype, layout, rows, cols, ld, capacity):
    # Half the time of Matrix(...) with seven arguments (a hot path).
    return _from_bytes(_MATRIX.pack(ptr, dtype, layout, rows, cols, ld,
                                    capacity))


def matrix(fn, name, v):
    """The kaio_matrix of a View: rows of its last dimension (contiguous),
    the leading dimensions folded into rows when they are dense."""
    dtype = DTYPES.get(v.dtype)
    if dtype is None:
        raise invalid(fn, name, "dtype %s is not supported (float16, "
                      "bfloat16, float32, int8, int32, int64, "
                      "float8_e4m3fn, float8_e5m2)" % v.dtype)
    return _matrix(fn, name, v.ptr, dtype, v.shape, v.strides,
                   v.capacity if v.capacity > 0 else 0)


def _matrix(fn, name, ptr, dtype, shape, strides, capacity):
    # The common cases first (every op call builds a few of these): a
    # contiguous vector, a matrix with contiguous rows.
    if len(shape) == 2 and (strides[1] == 1 or shape[1] <= 1):
        rows, cols, ld = shape[0], shape[1], strides[0]
        if rows <= 1:
            ld = max(ld, cols, 1)
        return _new_matrix(ptr, dtype, 0, rows, cols, ld, capacity)
    # A transposed view (x.t(), x.T): a column-major matrix, for the ops
    # that take one (gemm); the others name it in their error.
    if len(shape) == 2 and strides[0] == 1 and shape[0] > 1:
        rows, cols, ld = shape[0], shape[1], strides[1]
        return _new_matrix(ptr, dtype, 1, rows, cols, ld, capacity)
    if len(shape) == 1 and (strides[0] == 1 or shape[0] <= 1):
        cols = shape[0]
        return _new_matrix(ptr, dtype, 0, 1, cols, max(cols, 1), capacity)
    if len(shape) == 0:
        rows, cols, ld = 1, 1, 1
    else:
        cols = shape[-1]
        if cols > 1 and strides[-1] != 1:
            raise invalid(fn, name, "shape %s with strides %s is not "
                          "contiguous in its last dimension"
                          % (list(shape), list(strides)))
        rows = math.prod(shape[:-1]) if len(shape) > 1 else 1
        ld = strides[-2] if len(shape) > 1 else max(cols, 1)
        for i in range(len(shape) - 2):
            if shape[i] > 1 and strides[i] != strides[i + 1] * shape[i + 1]:
                raise invalid(fn, name, "shape %s with strides %s cannot be "
                              "seen as rows of a matrix"
                              % (list(shape), list(strides)))
        if rows <= 1:
            ld = max(ld, cols, 1)
    return _new_matrix(ptr, dtype, 0, rows, cols, ld, capacity)


def other_device(fn, name, device, call_device, first_name):
    """The error for an array argument on another device than the call's
    (its first array's)."""
    return invalid(fn, name, "on device %d; the call runs on device %d "
                   "(argument '%s')" % (device, call_device, first_name))


def matrix_of(fn, name, obj, device=None, first_name=None):
    """The kaio_matrix of a device array argument: view() then matrix(),
    without the View for torch tensors and kaio arrays (an op's every other
    argument comes here). With `device`, an array on another device is a
    KaioValueError naming it and the call's first array, `first_name`."""
    if type(obj) in _TORCH_TYPES:
        code = DTYPES.get(_torch_dtype(obj))
        if obj.is_cuda and code is not None:
            if device is not None and obj.get_device() != device:
                raise other_device(fn, name, obj.get_device(), device,
                                   first_name)
            return _matrix(fn, name, obj.data_ptr(), code, obj.shape,
                           obj.stride(), 0)
    elif _DeviceArray is not None and isinstance(obj, _DeviceArray):
        code = DTYPES.get(obj.dtype)
        if code is not None:
            if device is not None and obj.device != device:
                raise other_device(fn, name, obj.device, device, first_name)
            return _matrix(fn, name, obj.ptr, code, obj.shape, obj.strides,
                           obj.nbytes)
    v = view(fn, name, obj)
    if device is not None and v.device != device:
        raise other_device(fn, name, v.device, device, first_name)
    return matrix(fn, name, v)


def empty(like, shape, dtype, fn, name):
    """A new array of the family of `like` (a View)."""
    if like.kind == "torch":
        import torch
        # new_empty: like's device without building a torch.device.
        return like.owner.new_empty(shape, dtype=getattr(torch, dtype))
    if like.kind == "kaio":
        from .memory import DeviceArray
        return DeviceArray.empty(shape, dtype, device=like.device)
    owner = like.owner[0] if like.kind == "dlpack" else like.owner
    module = type(owner).__module__.split(".")[0]
    if module == "cupy" and dtype != "bfloat16":
        import cupy
        with cupy.cuda.Device(like.device):  # like's, not the current one
            return cupy.empty(shape, dtype=dtype)
    raise invalid(fn, name, "required (KAIO cannot allocate arrays of type "
                  "%s)" % type(owner).__name__)


_raw_stream = None  # torch._C._cuda_getCurrentRawStream, when torch has it


def _torch_current_stream(device):
    """torch's current stream on `device` as a CUstream value: its raw
    handle straight from torch's C++ side where torch offers it (what
    Triton's launcher reads; torch.cuda.current_stream builds a Stream
    object per call, several µs), else through torch.cuda."""
    global _raw_stream
    import torch
    if _raw_stream is None:
        _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", False)
    if _raw_stream:
        return _raw_stream(device)
    return torch.cuda.current_stream(device).cuda_stream


def stream_handle(stream, like=None):
    """A CUstream value: an int, an object with .cuda_stream (torch) or .ptr
    (CuPy); by default torch's current stream for torch tensors, else the
    legacy default stream."""
    if stream is None:
        if like is not None and like.kind == "torch":
            return _torch_current_stream(like.device)
        return 0
    if type(stream) is int:  # before the attribute probes (each a raise)
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)
