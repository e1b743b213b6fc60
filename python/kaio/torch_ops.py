"""KAIO ops as PyTorch custom ops (torch >= 2.4): torch.ops.kaio.*, with
fake implementations (shape functions, so torch.compile(fullgraph=True)
traces through them) and autograd.

    import kaio.torch_ops as kt
    y = kt.rms_norm(x, weight, 1e-6)        # differentiable in x and weight

Backward: GEMM by reusing the forward kernel (dA = dC Bᵀ, dB = Aᵀ dC; the
transposes read in place where their lines are 16-byte aligned, else
copied); linear's
activation by torch's autograd at the recomputed pre-activation;
RMSNorm, LayerNorm, softmax and cross-entropy by KAIO's backward kernels;
SwiGLU by its closed form in torch. Everything runs on torch's current
stream, so the ops can be captured in CUDA graphs.
"""

import functools
from typing import Optional, Tuple

import torch

from . import ops

if not hasattr(torch, "library") or not hasattr(torch.library, "custom_op"):
    raise ImportError("kaio.torch_ops needs torch >= 2.4 "
                      "(torch.library.custom_op); this is torch %s"
                      % torch.__version__)

def _tracing_check():
    """A function saying whether the call being made may be traced or
    transformed (torch.compile, torch.jit.trace, a TorchDispatchMode such
    as FakeTensorMode or make_fx, a TorchFunctionMode, a torch.func
    transform); without the C hooks this torch lacks, always yes."""
    try:
        hooks = (torch.compiler.is_compiling,
                 torch._C._get_tracing_state,
                 torch._C._len_torch_dispatch_stack,
                 torch._C._is_torch_function_mode_enabled,
                 torch._C._are_functorch_transforms_active)
    except AttributeError:
        return lambda: True
    compiling, jit_tracing, dispatch_stack, function_mode, functorch = hooks
    return lambda: (compiling() or jit_tracing() is not None
                    or dispatch_stack() > 0 or function_mode()
                    or functorch())


_tracing = _tracing_check()
_PLAIN = (torch.Tensor, torch.nn.Parameter)
_SCALARS = (type(None), bool, int, float, str)


def _direct(args):
    """Whether the dispatcher would only run the op's CUDA implementation
    on `args`: CUDA tensors of the plain types (no subclass, no meta or CPU
    tensor, which the op's fake or an error handles), none needing a
    gradient while autograd records, the rest plain scalars (an fx Proxy
    or anything else goes through the op)."""
    grad = torch.is_grad_enabled()
    for a in args:
        kind = type(a)
        if kind in _PLAIN:
            if not a.is_cuda or (grad and a.requires_grad):
                return False
        elif kind not in _SCALARS:
            return False
    return not _tracing()


class _Op:
    """A KAIO custom op (torch.ops.kaio.<name>, with its fake and autograd
    registrations) and the function behind it. A call runs the function
    itself where the dispatcher would do nothing else (_direct: eager, no
    tracer, mode or transform, plain CUDA tensors, none needing a gradient)
    and goes through the op otherwise: the custom op's own dispatch costs
    about 30 µs a call in eager mode (PyTorch 2.11, an H100; docs/perf.md),
    more than a small kernel takes."""

    def __init__(self, name, fn):
        self.fn = fn
        self.op = torch.library.custom_op(name, mutates_args=())(fn)

    def register_fake(self, fn):
        return self.op.register_fake(fn)

    def register_autograd(self, backward, setup_context=None):
        return self.op.register_autograd(backward,
                                         setup_context=setup_context)

    def __call__(self, *args):
        return self.fn(*args) if _direct(args) else self.op(*args)


def _custom_op(name, mutates_args):
    assert mutates_args == (), "KAIO's custom ops mutate nothing"
    return lambda fn: _Op(name, fn)


def _rows(x):
    return x.shape[:-1]


# --- GEMM -------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _reads_any_layout(device_index):
    """Whether the library's GEMM reads column-major (transposed) 16-bit
    operands with 16-byte aligned lines on this device: its tensor-core
    kernels do, sm_80 on (the sm_90 kernel and the portable one)."""
    return torch.cuda.get_device_capability(device_index) >= (8, 0)


def _aligned_lines(t):
    """Whether the lines of 2-D t as the GEMM reads them start 16-byte
    aligned: the leading dimension the package gives the library
    (_arrays.matrix: rows when the last dimension is unit-stride or of
    size 1 — a single row's is its length —, else a transposed view's
    columns)."""
    rows, cols = t.shape
    if t.stride(1) == 1 or cols <= 1:
        ld = t.stride(0) if rows > 1 else max(t.stride(0), cols, 1)
    else:
        ld = t.stride(1)
    return t.data_ptr() % 16 == 0 and ld * t.element_size() % 16 == 0


def _gemm_operand(t):
    """t itself when the GEMM reads its layout (row-major; or a transposed
    16-bit view with 16-byte aligned columns), else a dense copy."""
    if t.is_contiguous():
        return t
    if (t.dim() == 2 and t.stride(0) == 1 and t.size(0) > 1
            and t.element_size() == 2 and _aligned_lines(t) and t.is_cuda
            and _reads_any_layout(t.device.index or 0)):
        return t
    return t.contiguous()


@_custom_op("kaio::gemm", mutates_args=())
def _gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    a2, b2 = _gemm_operand(a), _gemm_operand(b)
    # A transposed operand is read in place only when both operands' lines
    # are 16-byte aligned (else dense copies: any leading dimension).
    if (not (a2.is_contiguous() and b2.is_contiguous())
            and not (_aligned_lines(a2) and _aligned_lines(b2))):
        a2, b2 = a2.contiguous(), b2.contiguous()
    return ops.gemm(a2, b2)


@_gemm.register_fake
def _(a, b):
    return a.new_empty((a.shape[0], b.shape[1]), dtype=torch.float32)


def _gemm_setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _gemm_backward(ctx, dc):
    a, b = ctx.saved_tensors
    d = dc.to(a.dtype)
    da = db = None
    if ctx.needs_input_grad[0]:
        da = _gemm(d, b.t()).to(a.dtype)
    if ctx.needs_input_grad[1]:
        db = _gemm(a.t(), d).to(b.dtype)
    return da, db


_gemm.register_autograd(_gemm_backward, setup_context=_gemm_setup)


def gemm(a, b):
    """a @ b for float16 or bfloat16 a (M, K), b (K, N) of one dtype (or
    float32: full precision): float32 (M, N)."""
    return _gemm(a, b)


# --- Linear (GEMM with a fused bias + activation epilogue) ----------------

_ACTIVATIONS = {
    "none": lambda z: z,
    "relu": torch.relu,
    "silu": torch.nn.functional.silu,
    "gelu": torch.nn.functional.gelu,
    "gelu_tanh": lambda z: torch.nn.functional.gelu(z, approximate="tanh"),
}


def _fused_linear_fits(x2, weight):
    """Whether the library takes x2 @ weight.T as they are: 16-bit x2 and
    weight of one dtype with 16-byte aligned rows (W^T read in place as a
    column-major operand, by the sm_90 kernel or the portable one)."""
    return (_reads_any_layout(x2.device.index or 0)
            and x2.dtype in (torch.float16, torch.bfloat16)
            and weight.dtype == x2.dtype
            and x2.stride(-1) == 1 and weight.stride(-1) == 1
            and x2.stride(0) % 8 == 0 and weight.stride(0) % 8 == 0
            and x2.data_ptr() % 16 == 0 and weight.data_ptr() % 16 == 0)


def _matmul_f32(a, b):
    """a @ b in f32 by the library's GEMM, the 16-bit inputs as given
    (transposed views read in place where their lines are aligned)."""
    return _gemm(a, b)


@_custom_op("kaio::linear", mutates_args=())
def _linear(x: torch.Tensor, weight: torch.Tensor,
            bias: Optional[torch.Tensor], activation: str) -> torch.Tensor:
    x2 = x.reshape(-1, x.shape[-1])
    if _fused_linear_fits(x2, weight):
        # W read in place (x W^T, W^T column-major), output in x's dtype,
        # bias and activation in the kernel's epilogue.
        # x2's rows are unit-stride and aligned as they are (padded rows
        # too): passed in place, not copied to another leading dimension.
        out = x2.new_empty((x2.shape[0], weight.shape[0]))
        ops.gemm(x2, weight.t(), out=out,
                 bias=None if bias is None else bias.to(out.dtype).contiguous(),
                 activation=activation)
    else:
        # Rows that are not 16-byte aligned (or other dtypes): dense
        # row-major copies in their own dtype (any leading dimension), an
        # f32 product, bias and activation fused.
        out = x2.new_empty((x2.shape[0], weight.shape[0]),
                           dtype=torch.float32)
        ops.gemm(x2.contiguous(), weight.to(x2.dtype).t().contiguous(), out=out,
                 bias=None if bias is None else bias.float(),
                 activation=activation)
        out = out.to(x.dtype)
    return out.reshape(*x.shape[:-1], weight.shape[0])


@_linear.register_fake
def _(x, weight, bias, activation):
    return x.new_empty((*x.shape[:-1], weight.shape[0]))


def _linear_setup(ctx, inputs, output):
    x, weight, bias, activation = inputs
    ctx.activation = activation
    ctx.save_for_backward(x, weight, bias)


def _linear_backward(ctx, dy):
    x, weight, bias = ctx.saved_tensors
    dy2 = dy.reshape(-1, dy.shape[-1])
    x2 = x.reshape(-1, x.shape[-1])
    if ctx.activation == "none":
        dz = dy2
    else:
        # The activation's derivative at the pre-activation (recomputed
        # by the same GEMM without its activation), by torch's autograd.
        z = _linear(x, weight, bias, "none").reshape(-1, weight.shape[0])
        with torch.enable_grad():
            zz = z.detach().float().requires_grad_()
            (dz,) = torch.autograd.grad(_ACTIVATIONS[ctx.activation](zz), zz,
                                        dy2.float())
    d = dz.to(x.dtype)
    dx = dw = db = None
    if ctx.needs_input_grad[0]:
        dx = _matmul_f32(d, weight).to(x.dtype).reshape(x.shape)
    if ctx.needs_input_grad[1]:
        dw = _matmul_f32(d.t(), x2).to(weight.dtype)
    if bias is not None and ctx.needs_input_grad[2]:
        db = dz.float().sum(0).to(bias.dtype)
    return dx, dw, db, None


_linear.register_autograd(_linear_backward, setup_context=_linear_setup)


def linear(x, weight, bias=None, activation="none"):
    """activation(x @ weight.T + bias), as torch.nn.functional.linear then
    the activation ("none", "relu", "silu", "gelu", "gelu_tanh"): x (...,
    K) and weight (N, K) float16 or bfloat16, bias (N,) of x's dtype. One
    kernel (W read in place, bias and activation in its epilogue) when
    both have 16-byte aligned rows; else an f32 product of dense copies in
    their dtype, bias and activation fused, rounded to x's dtype.
    Differentiable in x, weight and bias."""
    if activation not in _ACTIVATIONS:
        raise ValueError("kaio.torch_ops.linear: activation: %r is not one "
                         "of %s" % (activation, sorted(_ACTIVATIONS)))
    return _linear(x, weight, bias, activation)


# --- RMSNorm ----------------------------------------------------------------

@_custom_op("kaio::rms_norm", mutates_args=())
def _rms_norm(x: torch.Tensor, weight: Optional[torch.Tensor],
              eps: float) -> Tuple[torch.Tensor, torch.Tensor]:
    return ops.rms_norm(x.contiguous(), weight, eps, return_rstd=True)


@_rms_norm.register_fake
def _(x, weight, eps):
    return torch.empty_like(x), x.new_empty(_rows(x), dtype=torch.float32)


@_custom_op("kaio::rms_norm_backward", mutates_args=())
def _rms_norm_backward(x: torch.Tensor, dy: torch.Tensor, rstd: torch.Tensor,
                       weight: Optional[torch.Tensor]
                       ) -> Tuple[torch.Tensor, torch.Tensor]:
    dx, dw = ops.rms_norm_backward(x, dy.contiguous(), rstd, weight)
    return dx, dw if dw is not None else x.new_empty((0,))


@_rms_norm_backward.register_fake
def _(x, dy, rstd, weight):
    return torch.empty_like(x), x.new_empty(
        (x.shape[-1],) if weight is not None else (0,))


def _rms_setup(ctx, inputs, output):
    x, weight, _ = inputs
    ctx.save_for_backward(x.contiguous(), weight, output[1])


def _rms_backward(ctx, dy, _drstd):
    x, weight, rstd = ctx.saved_tensors
    dx, dw = _rms_norm_backward(x, dy, rstd, weight)
    return dx, (dw if weight is not None else None), None


_rms_norm.register_autograd(_rms_backward, setup_context=_rms_setup)


def rms_norm(x, weight=None, eps=1e-5):
    return _rms_norm(x, weight, eps)[0]


# --- LayerNorm --------------------------------------------------------------

@_custom_op("kaio::layer_norm", mutates_args=())
def _layer_norm(x: torch.Tensor, weight: Optional[torch.Tensor],
                bias: Optional[torch.Tensor], eps: float
                ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return ops.layer_norm(x.contiguous(), weight, bias, eps,
                          return_stats=True)


@_layer_norm.register_fake
def _(x, weight, bias, eps):
    stats = x.new_empty(_rows(x), dtype=torch.float32)
    return torch.empty_like(x), stats, torch.empty_like(stats)


@_custom_op("kaio::layer_norm_backward", mutates_args=())
def _layer_norm_backward(x: torch.Tensor, dy: torch.Tensor,
                         mean: torch.Tensor, rstd: torch.Tensor,
                         weight: Optional[torch.Tensor]
                         ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    dx, dw, db = ops.layer_norm_backward(x, dy.contiguous(), mean, rstd,
                                         weight)
    return dx, dw if dw is not None else x.new_empty((0,)), db


@_layer_norm_backward.register_fake
def _(x, dy, mean, rstd, weight):
    cols = (x.shape[-1],)
    return (torch.empty_like(x),
            x.new_empty(cols if weight is not None else (0,)),
            x.new_empty(cols))


def _ln_setup(ctx, inputs, output):
    x, weight, bias, _ = inputs
    ctx.has_bias = bias is not None
    ctx.save_for_backward(x.contiguous(), weight, output[1], output[2])


def _ln_backward(ctx, dy, _dmean, _drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    dx, dw, db = _layer_norm_backward(x, dy, mean, rstd, weight)
    return (dx, dw if weight is not None else None,
            db if ctx.has_bias else None, None)


_layer_norm.register_autograd(_ln_backward, setup_context=_ln_setup)


def layer_norm(x, weight=None, bias=None, eps=1e-5):
    return _layer_norm(x, weight, bias, eps)[0]


# --- softmax ----------------------------------------------------------------

@_custom_op("kaio::softmax", mutates_args=())
def _softmax(x: torch.Tensor, scale: float, log: bool) -> torch.Tensor:
    f = ops.log_softmax if log else ops.softmax
    return f(x.contiguous(), scale)


@_softmax.register_fake
def _(x, scale, log):
    return torch.empty_like(x)


@_custom_op("kaio::softmax_backward", mutates_args=())
def _softmax_backward(y: torch.Tensor, dy: torch.Tensor, scale: float,
                      log: bool) -> torch.Tensor:
    return ops.softmax_backward(y, dy.contiguous(), scale, log)


@_softmax_backward.register_fake
def _(y, dy, scale, log):
    return torch.empty_like(y)


def _softmax_setup(ctx, inputs, output):
    ctx.scale, ctx.log = inputs[1], inputs[2]
    ctx.save_for_backward(output)


def _softmax_bwd(ctx, dy):
    (y,) = ctx.saved_tensors
    return _softmax_backward(y, dy, ctx.scale, ctx.log), None, None


_softmax.register_autograd(_softmax_bwd, setup_context=_softmax_setup)


def softmax(x, scale=1.0):
    return _softmax(x, scale, False)


def log_softmax(x, scale=1.0):
    return _softmax(x, scale, True)


# --- SwiGLU -----------------------------------------------------------------

@_custom_op("kaio::swiglu", mutates_args=())
def _swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return ops.swiglu(gate.contiguous(), up.contiguous())


@_swiglu.register_fake
def _(gate, up):
    return torch.empty_like(gate)


def _swiglu_setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _swiglu_backward(ctx, dout):
    gate, up = ctx.saved_tensors
    g = gate.float()
    sig = torch.sigmoid(g)
    silu = g * sig
    d = dout.float()
    dgate = d * up.float() * (sig + silu * (1 - sig))
    return dgate.to(gate.dtype), (d * silu).to(up.dtype)


_swiglu.register_autograd(_swiglu_backward, setup_context=_swiglu_setup)


def swiglu(gate, up):
    """silu(gate) * up."""
    return _swiglu(gate, up)


# --- cross-entropy ----------------------------------------------------------

def _class_indices(targets):
    """int64 (torch's default) and int32 targets go as they are."""
    if targets.dtype not in (torch.int64, torch.int32):
        targets = targets.to(torch.int64)
    return targets.contiguous()


@_custom_op("kaio::cross_entropy", mutates_args=())
def _cross_entropy(logits: torch.Tensor, targets: torch.Tensor,
                   ignore_index: int) -> Tuple[torch.Tensor, torch.Tensor]:
    return ops.cross_entropy(logits.contiguous(),
                             _class_indices(targets),
                             ignore_index, return_lse=True)


@_cross_entropy.register_fake
def _(logits, targets, ignore_index):
    rows = logits.new_empty(_rows(logits), dtype=torch.float32)
    return rows, torch.empty_like(rows)


@_custom_op("kaio::cross_entropy_backward", mutates_args=())
def _cross_entropy_backward(logits: torch.Tensor, targets: torch.Tensor,
                            lse: torch.Tensor, dloss: torch.Tensor,
                            ignore_index: int) -> torch.Tensor:
    return ops.cross_entropy_backward(logits, targets, lse,
                                      dloss.float().contiguous(),
                                      ignore_index)


@_cross_entropy_backward.register_fake
def _(logits, targets, lse, dloss, ignore_index):
    return torch.empty_like(logits)


def _ce_setup(ctx, inputs, output):
    logits, targets, ignore_index = inputs
    ctx.ignore_index = ignore_index
    ctx.save_for_backward(logits.contiguous(),
                          _class_indices(targets), output[1])


def _ce_backward(ctx, dloss, _dlse):
    logits, targets, lse = ctx.saved_tensors
    return (_cross_entropy_backward(logits, targets, lse, dloss,
                                    ctx.ignore_index), None, None)


_cross_entropy.register_autograd(_ce_backward, setup_context=_ce_setup)


def cross_entropy(logits, targets, ignore_index=-100, reduction="mean"):
    """As torch.nn.functional.cross_entropy over rows of logits ("none",
    "sum", or "mean" over the rows not ignored)."""
    loss = _cross_entropy(logits, targets, ignore_index)[0]
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    kept = (targets != ignore_index).sum().clamp(min=1)
    return loss.sum() / kept


# --- attention --------------------------------------------------------------

@_custom_op("kaio::flash_attention", mutates_args=())
def _flash_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                     scale: float, causal: bool, window_left: int,
                     window_right: int) -> Tuple[torch.Tensor, torch.Tensor]:
    return ops.flash_attention(q, k, v, scale=scale, causal=causal,
                               bottom_right=True,
                               window=(window_left, window_right),
                               return_lse=True)


@_flash_attention.register_fake
def _(q, k, v, scale, causal, window_left, window_right):
    b, s, h, _ = q.shape
    return torch.empty_like(q), q.new_empty((b, h, s), dtype=torch.float32)


@_custom_op("kaio::flash_attention_backward", mutates_args=())
def _flash_attention_backward(
        q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, out: torch.Tensor,
        dout: torch.Tensor, lse: torch.Tensor, scale: float, causal: bool,
        window_left: int, window_right: int
) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return ops.flash_attention_backward(
        q, k, v, out, dout.contiguous(), lse, scale=scale, causal=causal,
        bottom_right=True, window=(window_left, window_right))


@_flash_attention_backward.register_fake
def _(q, k, v, out, dout, lse, scale, causal, window_left, window_right):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _attention_setup(ctx, inputs, output):
    q, k, v, scale, causal, left, right = inputs
    ctx.args = (scale, causal, left, right)
    ctx.save_for_backward(q, k, v, output[0], output[1])


def _attention_backward(ctx, dout, _dlse):
    q, k, v, out, lse = ctx.saved_tensors
    dq, dk, dv = _flash_attention_backward(q, k, v, out, dout, lse,
                                           *ctx.args)
    return dq, dk, dv, None, None, None, None


_flash_attention.register_autograd(_attention_backward,
                                   setup_context=_attention_setup)


def flash_attention(q, k, v, scale=None, causal=False, window=(-1, -1)):
    """softmax(scale q k^T) v for [batch, seq, heads, dim] float16/bfloat16
    tensors (head dims 64, 128, 256; k/v heads dividing q's), differentiable in
    q, k and v (FlashAttention-2 backward, deterministic). A causal mask
    aligns bottom-right when seq_q != seq_k, as FlashAttention >= 2.1."""
    if scale is None:
        scale = q.shape[-1] ** -0.5
    return _flash_attention(q, k, v, float(scale), bool(causal),
                            int(window[0]), int(window[1]))[0]


__all__ = ["gemm", "rms_norm", "layer_norm", "softmax", "log_softmax",
           "swiglu", "cross_entropy", "flash_attention"]
