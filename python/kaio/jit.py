"""kaio.compile: kaio-dialect .mlir kernels called on device arrays.

    add = kaio.compile("vector_add.mlir")           # or the source text
    add[(n + 255) // 256, 256](a, b, c, n)           # grid, block

The PTX is cached on disk by content hash ($KAIO_CACHE_DIR/ptx, else
$XDG_CACHE_HOME/kaio/ptx or ~/.cache/kaio/ptx; KAIO_CACHE=0 turns it off);
the runtime caches the driver's compiled code itself. Arguments are
converted to the kernel's signature (`// kaio.kernel` in the PTX): Python
ints and floats take the parameter's type (range-checked), NumPy scalars
must match it exactly, arrays pass their address as a pointer of their
element type; the C API checks the count and the types before launching.
"""

import ctypes
import hashlib
import os
import struct
import tempfile

from . import _capi
from . import _arrays
from .errors import KaioArgumentError, invalid

_INT_RANGES = {"u8": (0, 2**8), "s8": (-2**7, 2**7), "u16": (0, 2**16),
               "s16": (-2**15, 2**15), "u32": (0, 2**32),
               "s32": (-2**31, 2**31), "u64": (0, 2**64),
               "s64": (-2**63, 2**63)}
_NUMPY_TYPES = {"uint8": "u8", "int8": "s8", "uint16": "u16",
                "int16": "s16", "uint32": "u32", "int32": "s32",
                "uint64": "u64", "int64": "s64", "float16": "f16",
                "float32": "f32", "float64": "f64"}


def _cache_dir():
    if os.environ.get("KAIO_CACHE", "1").lower() in ("0", "off", "false",
                                                      "no"):
        return None
    base = os.environ.get("KAIO_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "kaio")
    return os.path.join(base, "ptx")


def _read_source(source_or_path):
    if "\n" not in source_or_path and os.path.exists(source_or_path):
        with open(source_or_path) as f:
            return f.read(), os.path.basename(source_or_path)
    return source_or_path, "<source>"


# A cache entry: this line, then the PTX whose SHA-256 it gives. A file
# that does not check out (truncated, edited) is recompiled, not used.
_HEADER = "// kaio-ptx-cache sha256=%s\n"


def _read_entry(path):
    try:
        with open(path) as f:
            header = f.readline()
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    if header != _HEADER % hashlib.sha256(text.encode()).hexdigest():
        return None
    return text


def compile_ptx(source_or_path, chip="sm_80", fast_math=False,
                line_info=False, cache=True):
    """PTX text for `chip` (needs no GPU). Raises KaioCompileError with the
    located diagnostics."""
    source, name = _read_source(source_or_path)
    flags = (_capi.COMPILE_FAST_MATH if fast_math else 0) | (
        _capi.COMPILE_LINE_INFO if line_info else 0)
    key = hashlib.sha256(("%s\0%s\0%d\0%s" % (
        _capi.lib().kaio_version_string().decode(), chip, flags,
        source)).encode()).hexdigest()
    directory = _cache_dir() if cache else None
    path = os.path.join(directory, key + ".ptx") if directory else None
    if path and os.path.exists(path):
        text = _read_entry(path)
        if text is not None:
            return text
    lib = _capi.compiler()
    handle = ctypes.c_void_p()
    data = source.encode()
    _capi.check(lib.kaio_compile(data, len(data), chip.encode(),
                                 name.encode(), flags,
                                 ctypes.byref(handle)))
    try:
        text = lib.kaio_ptx_text(handle).decode()
    finally:
        lib.kaio_ptx_destroy(handle)
    if path:
        try:  # Atomically: a concurrent reader sees all or nothing.
            os.makedirs(directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(_HEADER % hashlib.sha256(text.encode()).hexdigest())
                f.write(text)
            os.replace(tmp, path)
        except OSError:
            pass  # A read-only cache only costs a recompile.
    return text


def _parse_signature(sig):
    """["ptr<const f32>", "u32"] from "name(ptr<const f32>,u32) smem=N"."""
    inner = sig[sig.index("(") + 1:sig.rindex(")")]
    return [p.strip() for p in inner.split(",") if p.strip()]


def _dims(fn, name, value):
    if isinstance(value, int):
        value = (value,)
    value = tuple(int(v) for v in value) + (1,) * (3 - len(value))
    if len(value) != 3 or any(v < 1 for v in value):
        raise invalid(fn, name, "%s is not 1 to 3 positive extents"
                      % (value,))
    return _capi.Dim3(*value)


def _scalar_bits(ty, value):
    if ty in _INT_RANGES:
        lo, hi = _INT_RANGES[ty]
        if not lo <= value < hi:
            return None
        return value & 0xFFFFFFFFFFFFFFFF
    if ty == "f32":
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if ty == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if ty == "f16":
        return struct.unpack("<H", struct.pack("<e", value))[0]
    if ty == "bf16":  # round to nearest even from f32
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
    return None


class Kernel:
    """One compiled kernel, loaded on a device: kernel[grid, block](*args)
    or kernel(*args, grid=..., block=...)."""

    def __init__(self, module, name, signature, ptx, chip, device):
        self._module = module  # keeps the kaio_module alive
        self.name = name
        self.signature = signature
        self.params = _parse_signature(signature) if signature else None
        self.ptx = ptx
        self.chip = chip
        self.device = device

    def __getitem__(self, launch):
        if not isinstance(launch, tuple) or len(launch) not in (2, 3, 4):
            raise invalid("kaio.Kernel", "launch", "expected kernel[grid, "
                          "block] or kernel[grid, block, shared, stream]")
        grid, block = launch[0], launch[1]
        shared = launch[2] if len(launch) > 2 else 0
        stream = launch[3] if len(launch) > 3 else None
        return lambda *args: self(*args, grid=grid, block=block,
                                  shared=shared, stream=stream)

    def _arg(self, i, param, value, views):
        fn = "kaio.Kernel(%s)" % self.name
        arg = _capi.Arg()
        is_ptr = param is not None and param.startswith("ptr<")
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, int) and not is_ptr:
            ty = param if param in _INT_RANGES else "s32"
            bits = _scalar_bits(ty, value)
            if bits is None:
                raise invalid(fn, "argument %d" % i, "%d does not fit %s"
                              % (value, ty))
            arg.kind, arg.type, arg.bits = (
                _capi.ARG_SCALAR, _capi.SCALAR_TYPES.index(ty), bits)
        elif isinstance(value, float):
            ty = param if param in ("f16", "bf16", "f32", "f64") else "f32"
            arg.kind, arg.type, arg.bits = (
                _capi.ARG_SCALAR, _capi.SCALAR_TYPES.index(ty),
                _scalar_bits(ty, value))
        elif isinstance(value, int):  # a raw device address
            arg.kind, arg.type, arg.bits = _capi.ARG_ANY_POINTER, 12, value
        elif type(value).__module__ == "numpy" and hasattr(value, "dtype"):
            ty = _NUMPY_TYPES.get(str(value.dtype))
            if ty is None:
                raise invalid(fn, "argument %d" % i, "NumPy %s is not a "
                              "kernel scalar type" % value.dtype)
            arg.kind, arg.type = _capi.ARG_SCALAR, _capi.SCALAR_TYPES.index(
                ty)
            arg.bits = _scalar_bits(ty, value.item())
        else:
            v = _arrays.view(fn, "argument %d" % i, value)
            if v.device != self.device:
                raise invalid(fn, "argument %d" % i, "on device %d; the "
                              "kernel is loaded on device %d"
                              % (v.device, self.device))
            views.append(v)
            arg.kind, arg.type = _capi.ARG_POINTER, _arrays.SCALAR_TYPE.get(
                v.dtype, 12)
            arg.bits = v.ptr
        return arg

    def __call__(self, *args, grid, block, shared=0, stream=None):
        fn = "kaio.Kernel(%s)" % self.name
        params = self.params or []
        views = []
        argv = (_capi.Arg * max(len(args), 1))()
        for i, value in enumerate(args):
            argv[i] = self._arg(i, params[i] if i < len(params) else None,
                                value, views)
        like = next((v for v in views if v.kind == "torch"), None)
        _capi.check(_capi.lib().kaio_launch(
            self._module.handle, self.name.encode(), _dims(fn, "grid", grid),
            _dims(fn, "block", block), int(shared),
            _arrays.stream_handle(stream, like), argv, len(args)))

    def __repr__(self):
        return "kaio.Kernel(%s, %s)" % (self.signature or self.name,
                                        self.chip)


class _Module:
    def __init__(self, handle):
        self.handle = handle

    def __del__(self):
        if self.handle and _capi._lib is not None:
            _capi.lib().kaio_module_destroy(self.handle)
            self.handle = None


def _device_chip(ctx):
    info = _capi.DeviceInfo()
    _capi.check(_capi.lib().kaio_context_device_info(ctx,
                                                     ctypes.byref(info)))
    return "sm_%d%d" % (info.cc_major, info.cc_minor)


def compile(source_or_path, chip=None, kernel=None, device=0,
            fast_math=False, line_info=False, cache=True):
    """Compiles a kaio-dialect module (a path or the text) for `chip` (by
    default the device's) and loads it on `device`. Returns its kernel (the
    one named `kernel` when the module has several)."""
    ctx = _capi.context(device)
    chip = chip or _device_chip(ctx)
    ptx = compile_ptx(source_or_path, chip, fast_math, line_info, cache)
    handle = ctypes.c_void_p()
    data = ptx.encode()
    _capi.check(_capi.lib().kaio_module_load_ptx(
        ctx, data, len(data), b"kaio.compile", ctypes.byref(handle)))
    module = _Module(handle.value)
    lib = _capi.lib()
    names = [lib.kaio_module_kernel_name(module.handle, i).decode()
             for i in range(lib.kaio_module_kernel_count(module.handle))]
    if kernel is None:
        if len(names) != 1:
            raise invalid("kaio.compile", "kernel", "the module has kernels "
                          "%s; name one" % names)
        kernel = names[0]
    if kernel not in names:
        raise invalid("kaio.compile", "kernel", "%r is not one of %s"
                      % (kernel, names))
    sig = ctypes.c_char_p()
    _capi.check(lib.kaio_module_kernel_signature(
        module.handle, kernel.encode(), ctypes.byref(sig)))
    return Kernel(module, kernel, sig.value.decode(), ptx, chip, device)


__all__ = ["compile", "compile_ptx", "Kernel", "KaioArgumentError"]
