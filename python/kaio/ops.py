"""KAIO's op library on device arrays (torch CUDA tensors, CuPy and other
__cuda_array_interface__ / DLPack arrays, kaio.DeviceArray).

Each op validates its arguments in the C API before anything is launched
and raises a KaioError subclass (ValueError for bad input) with its
message, naming the op and the argument. A call runs on its first array's
device: every other array (inputs, `out`, bias...) must be on it, else a
KaioValueError names the argument and both devices. Outputs are allocated
like the first input when `out` is not given. Work goes to `stream` (an int
CUstream, a torch.cuda.Stream, a CuPy stream), by default torch's current
stream for torch tensors, else the legacy default stream.

Arrays are seen as row-major matrices: the last dimension contiguous, the
leading dimensions folded into rows (batch x seq x hidden is rows of
hidden).
"""

import ctypes

from . import _capi
from . import _arrays
from .errors import invalid

__all__ = [
    "gemm", "gemm_backward", "tune_gemm", "gemv", "softmax", "log_softmax", "softmax_backward",
    "rms_norm", "layer_norm", "rms_norm_backward", "layer_norm_backward",
    "cross_entropy", "cross_entropy_backward", "sum_rows", "max_rows",
    "min_rows", "argmax_rows", "reduce_all", "reduce_cols",
    "argmax_all", "bias_activation", "relu",
    "silu", "gelu", "gated_activation", "swiglu", "geglu", "add", "rope",
    "flash_attention", "flash_attention_backward", "flash_decode",
]

_ACTIVATIONS = {"none": _capi.ACT_NONE, "relu": _capi.ACT_RELU,
                "silu": _capi.ACT_SILU, "gelu_tanh": _capi.ACT_GELU_TANH,
                "gelu": _capi.ACT_GELU_ERF, "gelu_erf": _capi.ACT_GELU_ERF}
_REDUCTIONS = {"sum": _capi.REDUCE_SUM, "max": _capi.REDUCE_MAX,
               "min": _capi.REDUCE_MIN}


class _Call:
    """One op call: its arguments' views and matrices, the context and the
    stream of the first array. Every other array argument must be on the
    first's device (m() and view() check it: one comparison)."""

    __slots__ = ("fn", "first", "first_name", "device", "ctx", "stream",
                 "_first_matrix")

    def __init__(self, fn, first_name, first, stream):
        self.fn = fn
        self.first = _arrays.view(fn, first_name, first)
        self.first_name = first_name
        self.device = self.first.device
        self.ctx = _capi.context(self.device)
        self.stream = _arrays.stream_handle(stream, self.first)
        self._first_matrix = None

    def m(self, name, obj):
        """A matrix argument, or None (NULL) for None. The kaio_matrix
        itself: ctypes passes it by reference to the C functions' `const
        kaio_matrix *` parameters, and the call's arguments keep it alive."""
        if obj is None:
            return None
        if obj is self.first.owner:
            mat = self._first_matrix
            if mat is None:
                mat = self._first_matrix = _arrays.matrix(self.fn, name,
                                                          self.first)
            return mat
        return _arrays.matrix_of(self.fn, name, obj, self.device,
                                 self.first_name)

    def view(self, name, obj):
        """The View of another array argument, on the first's device."""
        v = _arrays.view(self.fn, name, obj)
        if v.device != self.device:
            raise _arrays.other_device(self.fn, name, v.device, self.device,
                                       self.first_name)
        return v

    def rows(self):
        """The leading dimensions of the first argument (its rows)."""
        return tuple(self.first.shape[:-1])

    def new(self, name, shape, dtype=None):
        return _arrays.empty(self.first, shape, dtype or self.first.dtype,
                             self.fn, name)

    def run(self, cfn, *args):
        status = _capi.function(cfn)(self.ctx, *args, self.stream)
        if status:
            _capi.check(status)


def _enum(table, fn, name, value):
    if value not in table:
        raise invalid(fn, name, "%r is not one of %s" % (value,
                                                         sorted(table)))
    return table[value]


# --- GEMM and GEMV ----------------------------------------------------------

def gemm(a, b, out=None, alpha=1.0, beta=0.0, bias=None, activation="none",
         allow_tf32=False, stream=None):
    """out = activation(alpha * a @ b + beta * out + bias): a (M, K) and b
    (K, N) float16 or bfloat16, out (M, N) float32 (allocated when not
    given; beta then must be 0) or a's dtype. Row-major, padded rows, and
    transposed views (x.T: column-major) with 16-byte aligned lines of a
    and b; float32 (full precision, a and b row-major or transposed views
    with 16-byte aligned lines; with allow_tf32=True a row-major and b
    column-major with 16-byte aligned lines multiply as tf32, 10-bit
    mantissas; out float32) and int8 (a row-major, b column-major — e.g.
    w.T of a row-major (N, K) weight —, 16-byte aligned lines; out int32 —
    exact sums, alpha 1, beta 0 or 1 — or float32, float16, bfloat16
    scaled by alpha); on a 9.0 GPU also FP8 (float8_e4m3fn / float8_e5m2,
    a row-major, b column-major, out float32, float16 or bfloat16; alpha
    carries the scales). bias (optional): one per column of out, out's
    dtype; activation "none", "relu", "silu", "gelu" (erf) or "gelu_tanh".
    Bias and activation are fused into the GEMM's epilogue (one launch),
    or where the library splits K (decode-like M, a long K; a workspace is
    allocated like `out`) into the second kernel, which adds the splits."""
    c = _Call("kaio.ops.gemm", "a", a, stream)
    act = _enum(_ACTIVATIONS, c.fn, "activation", activation)
    if out is None:
        if beta != 0:
            raise invalid(c.fn, "beta", "%g needs out= (the C to scale)"
                          % beta)
        bv = c.view("b", b)
        out = c.new("out", (c.first.shape[0], bv.shape[-1]), "float32")
    flags = _capi.GEMM_ALLOW_TF32 if allow_tf32 else 0
    ma, mb, mo, mbias = (c.m("a", a), c.m("b", b), c.m("out", out),
                         c.m("bias", bias))
    # Bad arguments leave 0 here; the call below names them.
    elements = ctypes.c_int64(0)
    _capi.function("kaio_gemm_workspace_elements")(
        c.ctx, ma, mb, mo, float(alpha), float(beta), mbias, act, flags,
        ctypes.byref(elements))
    if elements.value:
        ws = c.new("workspace", (elements.value,), "float32")
        c.run("kaio_gemm_split", ma, mb, mo, float(alpha), float(beta), mbias,
              act, flags, c.m("workspace", ws))
    elif bias is None and act == _capi.ACT_NONE and not flags:
        c.run("kaio_gemm", ma, mb, mo, float(alpha), float(beta))
    else:
        c.run("kaio_gemm_ex", ma, mb, mo, float(alpha), float(beta), mbias,
              act, flags)
    return out


def gemm_backward(a, b, dc, da=None, db=None, alpha=1.0, beta=0.0,
                  need=(True, True), stream=None):
    """The gradients of c = alpha * a @ b by the forward's kernels: da =
    alpha * dc @ b.T and db = alpha * a.T @ dc (+ beta times the given
    da/db), the transposes read in place (column-major views with 16-byte aligned
    lines). Those
    not given are allocated as float32 where `need` asks for them (else
    None); returns (da, db)."""
    c = _Call("kaio.ops.gemm_backward", "a", a, stream)
    av = c.first
    bv = c.view("b", b)
    if da is None and need[0]:
        if beta != 0:
            raise invalid(c.fn, "beta", "%g needs da= and db=" % beta)
        da = c.new("da", av.shape, "float32")
    if db is None and need[1]:
        if beta != 0:
            raise invalid(c.fn, "beta", "%g needs da= and db=" % beta)
        db = c.new("db", bv.shape, "float32")
    c.run("kaio_gemm_backward", c.m("a", a), c.m("b", b), c.m("dc", dc),
          c.m("da", da), c.m("db", db), float(alpha), float(beta))
    return da, db


def tune_gemm(a, b, out, alpha=1.0, beta=0.0, bias=None, activation="none",
              allow_tf32=False, stream=None):
    """Times every configuration gemm could launch for these arguments and
    makes the fastest its choice for their problem class (saved under the
    runtime's cache directory); returns its name ("n128", "n256",
    "n128c2", "n256c2" on a 9.0 GPU, "b2", "b3" for the portable kernel with 16-byte aligned lines, or
    "portable" where there is one). out's contents afterwards are
    unspecified: pass scratch memory of the result's shape."""
    c = _Call("kaio.ops.tune_gemm", "a", a, stream)
    act = _enum(_ACTIVATIONS, c.fn, "activation", activation)
    choice = ctypes.create_string_buffer(32)
    c.run("kaio_gemm_tune", c.m("a", a), c.m("b", b), c.m("out", out),
          float(alpha), float(beta), c.m("bias", bias), act,
          _capi.GEMM_ALLOW_TF32 if allow_tf32 else 0, choice,
          ctypes.sizeof(choice))
    return choice.value.decode()


def gemv(a, x, bias=None, out=None, transposed=False, stream=None):
    """y = a @ x (+ bias), or y = x @ a with transposed=True (deterministic,
    split along a's rows); a row-major (M, K) of float32, float16 or
    bfloat16, f32 accumulation, y of a's dtype."""
    c = _Call("kaio.ops.gemv", "a", a, stream)
    m, k = c.first.shape[0], c.first.shape[-1]
    if out is None:
        out = c.new("out", (k if transposed else m,))
    if not transposed:
        c.run("kaio_gemv", c.m("a", a), c.m("x", x), c.m("out", out),
              c.m("bias", bias))
        return out
    lib = _capi.lib()
    ws = c.new("workspace",
               (max(lib.kaio_gemv_transposed_workspace_elements(m, k), 1),),
               "float32")
    c.run("kaio_gemv_transposed", c.m("a", a), c.m("x", x),
          c.m("out", out), c.m("bias", bias), c.m("workspace", ws))
    return out


# --- softmax ----------------------------------------------------------------

def _softmax(cfn, fn, x, scale, causal_rows, causal_offset, out, stream):
    c = _Call(fn, "x", x, stream)
    if out is None:
        out = c.new("out", c.first.shape)
    c.run(cfn, c.m("x", x), c.m("out", out), float(scale),
          int(causal_rows), int(causal_offset))
    return out


def softmax(x, scale=1.0, causal_rows=0, causal_offset=0, out=None,
            stream=None):
    """softmax(scale * x) along the last dimension. causal_rows > 0 masks
    causally: rows come in groups of causal_rows queries, row r keeping
    columns up to (r % causal_rows) + causal_offset."""
    return _softmax("kaio_softmax", "kaio.ops.softmax", x, scale,
                    causal_rows, causal_offset, out, stream)


def log_softmax(x, scale=1.0, causal_rows=0, causal_offset=0, out=None,
                stream=None):
    return _softmax("kaio_log_softmax", "kaio.ops.log_softmax", x, scale,
                    causal_rows, causal_offset, out, stream)


def softmax_backward(y, dy, scale=1.0, log=False, out=None, stream=None):
    """dx of softmax(scale * x) (log_softmax with log=True) from its output
    y and the gradient dy."""
    c = _Call("kaio.ops.softmax_backward", "y", y, stream)
    if out is None:
        out = c.new("out", c.first.shape)
    c.run("kaio_log_softmax_backward" if log else "kaio_softmax_backward",
          c.m("y", y), c.m("dy", dy), c.m("out", out), float(scale))
    return out


# --- norms ------------------------------------------------------------------

def rms_norm(x, weight=None, eps=1e-5, residual=None, residual_out=None,
             return_rstd=False, out=None, stream=None):
    """x / sqrt(mean(x^2) + eps) * weight over the last dimension. With
    residual: normalises h = x + residual and also returns h (residual_out,
    allocated when not given; it may be x). With return_rstd: also the
    float32 1/rms per row, for rms_norm_backward. Returns out, or the tuple
    (out, [h], [rstd])."""
    c = _Call("kaio.ops.rms_norm", "x", x, stream)
    if out is None:
        out = c.new("out", c.first.shape)
    if residual is not None and residual_out is None:
        residual_out = c.new("residual_out", c.first.shape)
    rstd = c.new("rstd", c.rows(), "float32") if return_rstd else None
    c.run("kaio_rms_norm", c.m("x", x), c.m("out", out),
          c.m("weight", weight), c.m("residual", residual),
          c.m("residual_out", residual_out), c.m("rstd", rstd), float(eps))
    extra = ([residual_out] if residual is not None else []) + (
        [rstd] if return_rstd else [])
    return tuple([out] + extra) if extra else out


def layer_norm(x, weight=None, bias=None, eps=1e-5, residual=None,
               residual_out=None, return_stats=False, out=None, stream=None):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last dimension
    (biased variance, as torch). Returns out, or (out, [h], [mean, rstd])
    as rms_norm does."""
    c = _Call("kaio.ops.layer_norm", "x", x, stream)
    if out is None:
        out = c.new("out", c.first.shape)
    if residual is not None and residual_out is None:
        residual_out = c.new("residual_out", c.first.shape)
    mean = rstd = None
    if return_stats:
        mean = c.new("mean", c.rows(), "float32")
        rstd = c.new("rstd", c.rows(), "float32")
    c.run("kaio_layer_norm", c.m("x", x), c.m("out", out),
          c.m("weight", weight), c.m("bias", bias),
          c.m("residual", residual), c.m("residual_out", residual_out),
          c.m("mean", mean), c.m("rstd", rstd), float(eps))
    extra = ([residual_out] if residual is not None else []) + (
        [mean, rstd] if return_stats else [])
    return tuple([out] + extra) if extra else out


def _norm_workspace(c):
    rows = 1
    for n in c.rows():
        rows *= n
    n = _capi.lib().kaio_norm_backward_workspace_elements(
        rows, c.first.shape[-1])
    return c.new("workspace", (max(n, 1),), "float32")


def rms_norm_backward(x, dy, rstd, weight=None, weight_grad=True,
                      stream=None):
    """(dx, dweight) of rms_norm from its input x (h for the residual
    variant), dy and rstd; dweight (None without weight or weight_grad) is
    summed over rows deterministically."""
    c = _Call("kaio.ops.rms_norm_backward", "x", x, stream)
    dx = c.new("dx", c.first.shape)
    dweight = ws = None
    if weight is not None and weight_grad:
        dweight = c.new("dweight", (c.first.shape[-1],))
        ws = _norm_workspace(c)
    c.run("kaio_rms_norm_backward", c.m("x", x), c.m("dy", dy),
          c.m("dx", dx), c.m("weight", weight), c.m("rstd", rstd),
          c.m("dweight", dweight), c.m("workspace", ws))
    return dx, dweight


def layer_norm_backward(x, dy, mean, rstd, weight=None, weight_grad=True,
                        bias_grad=True, stream=None):
    """(dx, dweight, dbias) of layer_norm (None for what is not asked)."""
    c = _Call("kaio.ops.layer_norm_backward", "x", x, stream)
    dx = c.new("dx", c.first.shape)
    cols = c.first.shape[-1]
    dweight = c.new("dweight", (cols,)) if (
        weight is not None and weight_grad) else None
    dbias = c.new("dbias", (cols,)) if bias_grad else None
    ws = _norm_workspace(c) if (dweight is not None or
                                dbias is not None) else None
    c.run("kaio_layer_norm_backward", c.m("x", x), c.m("dy", dy),
          c.m("dx", dx), c.m("weight", weight), c.m("mean", mean),
          c.m("rstd", rstd), c.m("dweight", dweight), c.m("dbias", dbias),
          c.m("workspace", ws))
    return dx, dweight, dbias


# --- cross-entropy and reductions -------------------------------------------

def cross_entropy(logits, targets, ignore_index=-100, return_lse=False,
                  stream=None):
    """Per-row loss logsumexp(logits[r]) - logits[r, targets[r]] (float32;
    no mean: weigh the rows yourself); targets int32. With return_lse: also
    the rows' logsumexp, for cross_entropy_backward."""
    c = _Call("kaio.ops.cross_entropy", "logits", logits, stream)
    loss = c.new("loss", c.rows(), "float32")
    lse = c.new("lse", c.rows(), "float32") if return_lse else None
    c.run("kaio_cross_entropy", c.m("logits", logits),
          c.m("targets", targets), c.m("loss", loss), c.m("lse", lse),
          int(ignore_index))
    return (loss, lse) if return_lse else loss


def cross_entropy_backward(logits, targets, lse, dloss, ignore_index=-100,
                           stream=None):
    """dlogits = dloss[r] * (softmax(logits[r]) - onehot(targets[r]))."""
    c = _Call("kaio.ops.cross_entropy_backward", "logits", logits, stream)
    dlogits = c.new("dlogits", c.first.shape)
    c.run("kaio_cross_entropy_backward", c.m("logits", logits),
          c.m("targets", targets), c.m("lse", lse), c.m("dloss", dloss),
          c.m("dlogits", dlogits), int(ignore_index))
    return dlogits


def _reduce_rows(fn, x, op, stream):
    c = _Call(fn, "x", x, stream)
    out = c.new("out", c.rows(), "float32")
    c.run("kaio_reduce_rows", c.m("x", x), c.m("out", out),
          _REDUCTIONS[op])
    return out


def sum_rows(x, stream=None):
    """The float32 sum of each row, in a fixed order (bitwise
    reproducible)."""
    return _reduce_rows("kaio.ops.sum_rows", x, "sum", stream)


def max_rows(x, stream=None):
    return _reduce_rows("kaio.ops.max_rows", x, "max", stream)


def min_rows(x, stream=None):
    return _reduce_rows("kaio.ops.min_rows", x, "min", stream)


def argmax_rows(x, stream=None):
    """The int32 index of each row's first maximum (first NaN, if any)."""
    c = _Call("kaio.ops.argmax_rows", "x", x, stream)
    out = c.new("out", c.rows(), "int32")
    c.run("kaio_argmax_rows", c.m("x", x), c.m("out", out))
    return out


def reduce_all(x, op="sum", stream=None):
    """The sum, max or min of every element (float32, shape (1,)),
    deterministic."""
    fn = "kaio.ops.reduce_all"
    reduction = _enum(_REDUCTIONS, fn, "op", op)
    c = _Call(fn, "x", x, stream)
    rows = 1
    for n in c.rows():
        rows *= n
    out = c.new("out", (1,), "float32")
    ws = c.new("workspace", (max(rows, 1),), "float32")
    c.run("kaio_reduce_all", c.m("x", x), c.m("out", out), reduction,
          c.m("workspace", ws))
    return out


def argmax_all(x, stream=None):
    """The row-major index (shape (1,); int32, int64 from 2^31 elements)
    of the first maximum of all of x (of its first NaN), deterministic."""
    c = _Call("kaio.ops.argmax_all", "x", x, stream)
    rows = 1
    for n in c.rows():
        rows *= n
    elements = rows * (c.first.shape[-1] if c.first.shape else 1)
    out = c.new("out", (1,), "int64" if elements >= 2 ** 31 else "int32")
    ws = c.new("workspace",
               (_capi.lib().kaio_argmax_all_workspace_elements(rows),),
               "float32")
    c.run("kaio_argmax_all", c.m("x", x), c.m("out", out),
          c.m("workspace", ws))
    return out


def reduce_cols(x, op="sum", stream=None):
    """The float32 sum, max or min of each column (over the rows, the
    leading dimensions folded in; e.g. a bias gradient), deterministic."""
    fn = "kaio.ops.reduce_cols"
    reduction = _enum(_REDUCTIONS, fn, "op", op)
    c = _Call(fn, "x", x, stream)
    rows = 1
    for n in c.rows():
        rows *= n
    cols = c.first.shape[-1] if c.first.shape else 1
    out = c.new("out", (cols,), "float32")
    n = _capi.lib().kaio_reduce_cols_workspace_elements(rows, cols)
    ws = c.new("workspace", (max(n, 1),), "float32")
    c.run("kaio_reduce_cols", c.m("x", x), c.m("out", out), reduction,
          c.m("workspace", ws))
    return out


# --- element-wise -----------------------------------------------------------

def bias_activation(x, bias=None, activation="none", out=None,
                    stream=None):
    """activation(x + bias): "none", "relu", "silu", "gelu" (erf),
    "gelu_tanh"; bias one per column (optional)."""
    fn = "kaio.ops.bias_activation"
    act = _enum(_ACTIVATIONS, fn, "activation", activation)
    c = _Call(fn, "x", x, stream)
    if out is None:
        out = c.new("out", c.first.shape)
    c.run("kaio_bias_activation", c.m("x", x), c.m("out", out),
          c.m("bias", bias), act)
    return out


def relu(x, out=None, stream=None):
    return bias_activation(x, None, "relu", out, stream)


def silu(x, out=None, stream=None):
    return bias_activation(x, None, "silu", out, stream)


def gelu(x, approximate="none", out=None, stream=None):
    """GELU as torch.nn.functional.gelu (approximate "none" or "tanh")."""
    if approximate not in ("none", "tanh"):
        raise invalid("kaio.ops.gelu", "approximate", "%r is not 'none' or "
                      "'tanh'" % (approximate,))
    return bias_activation(x, None, "gelu_tanh" if approximate == "tanh"
                           else "gelu", out, stream)


def gated_activation(gate, up, activation="silu", out=None, stream=None):
    """activation(gate) * up: SwiGLU with "silu", GeGLU with "gelu" or
    "gelu_tanh"."""
    fn = "kaio.ops.gated_activation"
    act = _enum(_ACTIVATIONS, fn, "activation", activation)
    c = _Call(fn, "gate", gate, stream)
    if out is None:
        out = c.new("out", c.first.shape)
    c.run("kaio_gated_activation", c.m("gate", gate), c.m("up", up),
          c.m("out", out), act)
    return out


def swiglu(gate, up, out=None, stream=None):
    return gated_activation(gate, up, "silu", out, stream)


def geglu(gate, up, approximate="none", out=None, stream=None):
    return gated_activation(gate, up, "gelu_tanh" if approximate == "tanh"
                            else "gelu", out, stream)


def add(a, b, out=None, stream=None):
    """a + b (e.g. a residual add); out may be a or b."""
    c = _Call("kaio.ops.add", "a", a, stream)
    if out is None:
        out = c.new("out", c.first.shape)
    c.run("kaio_add", c.m("a", a), c.m("b", b), c.m("out", out))
    return out


def rope(x, positions, cos, sin, heads, interleaved=False, out=None,
         stream=None):
    """Rotary position embedding of x (tokens x heads*head_dim): positions
    int32 per token, cos/sin float32 [max_pos, head_dim/2]; pairs (i,
    i + head_dim/2), or (2i, 2i+1) with interleaved. out may be x."""
    c = _Call("kaio.ops.rope", "x", x, stream)
    if out is None:
        out = c.new("out", c.first.shape)
    c.run("kaio_rope", c.m("x", x), c.m("out", out),
          c.m("positions", positions), c.m("cos", cos), c.m("sin", sin),
          int(heads),
          _capi.ROPE_INTERLEAVED if interleaved else _capi.ROPE_HALF_SPLIT)
    return out


# --- attention --------------------------------------------------------------

def _attention_tensor(fn, name, v, layout):
    """The kaio_attention_tensor of a 4-D View in `layout` ("bshd":
    [batch, seq, heads, dim], "bhsd": [batch, heads, seq, dim]), or of a
    3-D [total, heads, dim] one (packed sequences)."""
    if v.dtype not in ("float16", "bfloat16"):
        raise invalid(fn, name, "dtype %s is not supported (float16 or "
                      "bfloat16)" % v.dtype)
    shape, strides = list(v.shape), list(v.strides)
    if len(shape) == 3:
        shape, strides = [1] + shape, [0] + strides
        layout = "bshd"
    if len(shape) != 4:
        raise invalid(fn, name, "shape %s is not [batch, seq, heads, dim] "
                      "(or [total, heads, dim] when packed)" % list(v.shape))
    if shape[3] > 1 and strides[3] != 1:
        raise invalid(fn, name, "the head dimension is not contiguous "
                      "(strides %s)" % list(v.strides))
    if layout == "bhsd":
        b, h, s, d = shape
        sb, sh, ss = strides[0], strides[1], strides[2]
    else:
        b, s, h, d = shape
        sb, ss, sh = strides[0], strides[1], strides[2]
    return _capi.AttentionTensor(v.ptr, _arrays.DTYPES[v.dtype], 0, b, s, h,
                                 d, sb, ss, sh, max(v.capacity, 0))


def flash_attention(q, k, v, out=None, scale=None, causal=False,
                    bottom_right=False, window=(-1, -1), layout="bshd",
                    cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=0,
                    return_lse=False, stream=None, portable=False,
                    schedule=None, query_rows=None):
    """softmax(scale * q @ k^T) @ v per batch and head (FlashAttention-2 on
    tensor cores): q, k, v float16 or bfloat16 in `layout` "bshd" ([batch,
    seq, heads, dim], FlashAttention's) or "bhsd" ([batch, heads, seq,
    dim], torch SDPA's), any strides with dim contiguous; head dims 64,
    128 and 256; k/v heads dividing q's (GQA, MQA). scale defaults to
    1/sqrt(dim); causal masks keys right of the diagonal (bottom-right
    aligned for seq_q != seq_k with bottom_right=True); window=(left,
    right) is a sliding window (-1: unbounded). Packed sequences: 3-D
    [total, heads, dim] tensors with int32 cu_seqlens_q/k of batch + 1
    offsets and max_seqlen_q. Returns out, or (out, lse) with return_lse
    (float32 [batch, heads, seq_q], or [heads, total_q] when packed).
    portable=True runs the mma.sync kernel even on a 9.0 GPU (every other
    GPU's path; for comparisons). schedule: how the 9.0 kernel's
    consumer warpgroups share the tensor cores, "ping_pong" (taking turns;
    head dims 64 and 128), "independent" or None (the library's choice).
    query_rows: the 9.0 kernel's query rows a block, 192 (three consumer
    warpgroups; head dim 64), 128 (two) or None (the library's choice)."""
    fn = "kaio.ops.flash_attention"
    if layout not in ("bshd", "bhsd"):
        raise invalid(fn, "layout", "%r is not 'bshd' or 'bhsd'" % (layout,))
    if not isinstance(schedule, (str, type(None))) or \
            schedule not in _SCHEDULES:
        raise invalid(fn, "schedule", "%r is not 'ping_pong', 'independent' "
                      "or None" % (schedule,))
    if query_rows not in _QUERY_ROWS or isinstance(query_rows, bool):
        raise invalid(fn, "query_rows", "%r is not 192, 128 or None"
                      % (query_rows,))
    c = _Call(fn, "q", q, stream)
    views = [c.first] + [c.view(n, t) for n, t in (("k", k), ("v", v))]
    if out is None:
        out = c.new("out", c.first.shape)
    views.append(c.view("out", out))
    tensors = [_attention_tensor(fn, n, t, layout)
               for n, t in zip(("q", "k", "v", "out"), views)]
    lse = None
    if return_lse:
        qt = tensors[0]
        packed = cu_seqlens_q is not None
        shape = ((qt.heads, qt.seq) if packed
                 else (qt.batch, qt.heads, qt.seq))
        lse = c.new("lse", shape, "float32")
    opts = _attention_options(scale, causal, bottom_right, window,
                              max_seqlen_q, 0, portable,
                              _SCHEDULES[schedule]
                              | _QUERY_ROWS[query_rows])
    c.run("kaio_flash_attention", *[ctypes.byref(t) for t in tensors],
          c.m("cu_seqlens_q", cu_seqlens_q), c.m("cu_seqlens_k", cu_seqlens_k),
          _flat_vector(c, "lse", lse), ctypes.byref(opts))
    return (out, lse) if return_lse else out


_SCHEDULES = {None: 0, "ping_pong": _capi.ATTENTION_PING_PONG,
              "independent": _capi.ATTENTION_INDEPENDENT}
_QUERY_ROWS = {None: 0, 192: _capi.ATTENTION_ROWS_192,
               128: _capi.ATTENTION_ROWS_128}


def _attention_options(scale, causal, bottom_right, window, max_seqlen_q,
                       max_seqlen_k, portable=False, schedule_flags=0):
    left, right = window
    return _capi.AttentionOptions(0.0 if scale is None else float(scale),
                                  int(bool(causal)), int(bool(bottom_right)),
                                  (_capi.ATTENTION_PORTABLE if portable else 0)
                                  | schedule_flags,
                                  int(left), int(right),
                                  int(max_seqlen_q), int(max_seqlen_k))


def _flat_vector(c, name, obj):
    """A contiguous float32 array as one kaio_matrix vector (by reference),
    or None."""
    if obj is None:
        return None
    fn = c.fn
    v = c.view(name, obj)
    if v.dtype != "float32":
        raise invalid(fn, name, "dtype %s is not float32" % v.dtype)
    # Dense row-major: the vector is every element, in order (a broadcast
    # or strided view would have the kernels read past it).
    n = 1
    for d, st in zip(reversed(v.shape), reversed(v.strides)):
        if d > 1 and st != n:
            raise invalid(fn, name, "shape %s with strides %s is not "
                          "contiguous" % (list(v.shape), list(v.strides)))
        n *= d
    return ctypes.byref(_capi.Matrix(v.ptr, _capi.F32, 0, 1, n, n,
                                     max(v.capacity, 0)))


def flash_attention_backward(q, k, v, out, dout, lse, scale=None,
                             causal=False, bottom_right=False,
                             window=(-1, -1), layout="bshd",
                             cu_seqlens_q=None, cu_seqlens_k=None,
                             max_seqlen_q=0, max_seqlen_k=0, dq=None, dk=None,
                             dv=None, stream=None, portable=False):
    """(dq, dk, dv) of flash_attention(q, k, v, ...) = out, from the
    gradient dout and the forward's lse (return_lse=True), with the same
    options (packed sequences also need max_seqlen_k). Deterministic: GQA
    heads are summed in order, no atomics. portable=True runs the mma.sync
    kernels even on a 9.0 GPU (which otherwise runs TMA + wgmma ones at
    head dims 64 and 128)."""
    fn = "kaio.ops.flash_attention_backward"
    if layout not in ("bshd", "bhsd"):
        raise invalid(fn, "layout", "%r is not 'bshd' or 'bhsd'" % (layout,))
    c = _Call(fn, "q", q, stream)
    names = ("q", "k", "v", "out", "dout", "dq", "dk", "dv")
    # The inputs' devices checked before anything is allocated.
    views = [c.first] + [c.view(n, t) for n, t in
                         zip(names[1:5], (k, v, out, dout))]
    kv = views[1]
    if dq is None:
        dq = c.new("dq", c.first.shape)
    if dk is None:
        dk = c.new("dk", kv.shape)
    if dv is None:
        dv = c.new("dv", kv.shape)
    views += [c.view(n, t) for n, t in zip(names[5:], (dq, dk, dv))]
    tensors = [_attention_tensor(fn, n, t, layout)
               for n, t in zip(names, views)]
    lib = _capi.lib()
    ws = c.new("workspace", (max(
        lib.kaio_flash_attention_backward_workspace_elements(
            ctypes.byref(tensors[0])), 1),), "float32")
    opts = _attention_options(scale, causal, bottom_right, window,
                              max_seqlen_q, max_seqlen_k, portable)
    c.run("kaio_flash_attention_backward",
          *[ctypes.byref(t) for t in tensors],
          c.m("cu_seqlens_q", cu_seqlens_q), c.m("cu_seqlens_k", cu_seqlens_k),
          _flat_vector(c, "lse", lse), _flat_vector(c, "workspace", ws),
          ctypes.byref(opts))
    return dq, dk, dv


def flash_decode(q, k_cache, v_cache, seqlens, block_table=None, out=None,
                 scale=None, causal=False, stream=None):
    """Attention of q's new tokens ([batch, q_len, heads, dim] float16 or
    bfloat16) over a KV cache: k_cache/v_cache [batch, capacity, kv_heads,
    dim], or with block_table (int32 [batch, max_pages], vLLM's layout) a
    pool of pages [pages, page_size, kv_heads, dim] (page_size a multiple
    of 16: vLLM's 16 too); seqlens int32 keys per sequence. The keys are split across
    blocks and the partials merged (flash decoding); GQA and MQA (any
    number of query heads per kv head, times q_len: 16-row blocks). causal:
    token i sees keys up to
    seqlen - q_len + i."""
    fn = "kaio.ops.flash_decode"
    c = _Call(fn, "q", q, stream)
    names = ("q", "k_cache", "v_cache", "out")
    views = [c.first, c.view("k_cache", k_cache), c.view("v_cache", v_cache)]
    if out is None:
        out = c.new("out", c.first.shape)
    views.append(c.view("out", out))
    q_t, k_t, v_t, o_t = [_attention_tensor(fn, n, t, "bshd")
                          for n, t in zip(names, views)]
    page_size = k_t.seq if block_table is not None else 0
    table = c.m("block_table", block_table)
    lib = _capi.lib()
    need = lib.kaio_flash_decode_workspace_elements(
        ctypes.byref(q_t), ctypes.byref(k_t), table, page_size)
    ws = c.new("workspace", (max(need, 1),), "float32")
    c.run("kaio_flash_decode", ctypes.byref(q_t), ctypes.byref(k_t),
          ctypes.byref(v_t), table, page_size, c.m("seqlens", seqlens),
          ctypes.byref(o_t), 0.0 if scale is None else float(scale),
          int(bool(causal)), c.m("workspace", ws))
    return out
