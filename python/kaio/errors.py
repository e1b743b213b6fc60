"""KAIO's exceptions: one per kaio_status, carrying the C API's message."""


class KaioError(RuntimeError):
    """A failed KAIO call: `status` (kaio_status), `status_name`
    ("KAIO_ERROR_INVALID_VALUE"), the message naming the argument or the CUDA
    error, and `cuda_error` (the CUresult of driver errors, else 0)."""

    def __init__(self, message, status=11,
                 status_name="KAIO_ERROR_INTERNAL", cuda_error=0):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = status_name
        self.cuda_error = cuda_error

    def __str__(self):
        return "%s: %s" % (self.status_name, self.message)


class KaioValueError(KaioError, ValueError):
    """Bad input: a shape, dtype, stride, pointer or enum (nothing ran)."""


class KaioArgumentError(KaioError, TypeError):
    """Custom-kernel arguments that do not match the kernel's signature."""


class KaioUnsupportedError(KaioError, NotImplementedError):
    """Something KAIO does not do (yet)."""


class KaioCompileError(KaioError):
    """kaio.compile: the source has errors (the located diagnostics)."""


class KaioDriverError(KaioError):
    """The CUDA driver failed, or there is none."""


class KaioLibraryError(KaioError, OSError):
    """libkaio.so (or libkaio_compiler.so) could not be loaded."""


_BY_STATUS = {
    1: KaioDriverError,       # KAIO_ERROR_DRIVER
    2: KaioDriverError,       # KAIO_ERROR_NO_DRIVER
    3: KaioValueError,        # KAIO_ERROR_INVALID_VALUE
    4: KaioValueError,        # KAIO_ERROR_INVALID_CONFIG
    5: KaioArgumentError,     # KAIO_ERROR_ARGUMENT_MISMATCH
    9: KaioUnsupportedError,  # KAIO_ERROR_UNSUPPORTED
    10: KaioCompileError,     # KAIO_ERROR_COMPILE
}


def from_status(status, name, message, cuda_error=0):
    return _BY_STATUS.get(status, KaioError)(message, status, name,
                                             cuda_error)


def invalid(fn, name, what):
    """The Python side's own argument errors, spelt as the C API's."""
    return KaioValueError("%s: %s: %s" % (fn, name, what), 3,
                          "KAIO_ERROR_INVALID_VALUE")
