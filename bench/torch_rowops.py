#!/usr/bin/env python3
"""PyTorch's times for the operations kaio-bench measures, on the GPU host.

Runs softmax, log_softmax, layer_norm, rms_norm, SwiGLU (F.silu(gate) *
up), GELU (tanh), the softmax and log-softmax backward, the norms'
backward (dx, dweight, dbias through autograd), row sums, maxima, minima
and argmax, column sums, cross-entropy and its backward (4096 x 128k and
8192 x 32k logits), torch.mv on A and on A^T (GEMV and GEMV^T) and a
device-to-device copy (every
row op kaio-bench measures but RoPE, which torch does not have built in) at
kaio-bench's sizes (32768 x 4096 and x 8192, and 4096 x 4096; f32 and
bf16), timed with CUDA events after warm-up, median of 20 runs, and prints
a Markdown table (or JSON with --json) with GB/s counted as kaio-bench
counts them (each input matrix read once, the output written once: three
matrices for SwiGLU and the backward passes, one for the reductions and
cross-entropy) and the ratio to the copy of the same bytes in the same
run.

    python3 bench/torch_rowops.py [--json FILE] [--device cuda]
"""

import argparse
import json
import statistics
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - the GPU host has torch
    sys.exit("torch_rowops.py: PyTorch is not installed")

SHAPES = [(4096, 4096), (32768, 4096), (32768, 8192)]
CROSS_ENTROPY_SHAPES = [(4096, 131072), (8192, 32768)]
GEMV_SHAPES = [(4096, 4096), (8192, 28672), (28672, 8192)]
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
WARMUP, REPS = 3, 20


def rms_norm(x, w, eps=1e-5):
    if hasattr(F, "rms_norm"):
        return F.rms_norm(x, (x.shape[-1],), w, eps)
    # torch < 2.4: the same formula, unfused.
    xf = x.float()
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (xf * r).to(x.dtype) * w


def norm_backward(x, dy, w, b):
    """dx, dweight (and dbias) of layer_norm (b given) or rms_norm through
    autograd, as the training step computes them."""
    leaves = [t.detach().requires_grad_() for t in (x, w)]
    if b is not None:
        leaves.append(b.detach().requires_grad_())
        y = F.layer_norm(leaves[0], (x.shape[-1],), leaves[1], leaves[2])
    else:
        y = rms_norm(leaves[0], leaves[1])
    return lambda: torch.autograd.grad(y, leaves, dy, retain_graph=True)


def record(results, op, name, rows, cols, matrices, element_size, ms,
           copy_ms):
    """A result, GB/s over `matrices` matrices of rows x cols; the copy
    (which reads and writes one matrix) scaled to the same bytes."""
    nbytes = matrices * rows * cols * element_size
    copy_same = copy_ms * matrices / 2
    results.append({
        "op": op, "dtype": name, "rows": rows, "cols": cols,
        "torch_ms": ms, "copy_ms": copy_same,
        "torch_GBps": nbytes / ms / 1e6,
        "copy_GBps": nbytes / copy_same / 1e6,
        "torch_vs_copy": copy_same / ms,
    })


def median_ms(fn, device):
    for _ in range(WARMUP):
        fn()
    times = []
    if device == "cuda":
        for _ in range(REPS):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    else:  # a smoke run of the script itself, not a measurement
        import time
        for _ in range(REPS):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results as JSON here")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--shapes", default=None,
                        help="rows x cols list, e.g. 64x128,8x1000")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_rowops.py: no CUDA device; not measured")
    shapes = SHAPES
    if args.shapes:
        shapes = [tuple(int(v) for v in s.split("x"))
                  for s in args.shapes.split(",")]
    results = []
    for name, dtype in DTYPES.items():
        for rows, cols in shapes:
            x = torch.randn(rows, cols, device=args.device, dtype=dtype)
            out = torch.empty_like(x)
            up = torch.randn(rows, cols, device=args.device, dtype=dtype)
            w = torch.randn(cols, device=args.device, dtype=dtype)
            b = torch.randn(cols, device=args.device, dtype=dtype)
            y = torch.softmax(x, -1)
            ly = torch.log_softmax(x, -1)
            # op: (function, matrices moved)
            ops = {
                "softmax": (lambda: torch.softmax(x, -1), 2),
                "log_softmax": (lambda: torch.log_softmax(x, -1), 2),
                "rms_norm": (lambda: rms_norm(x, w), 2),
                "layer_norm": (lambda: F.layer_norm(x, (cols,), w, b), 2),
                "swiglu": (lambda: F.silu(x) * up, 3),
                "gelu_tanh": (lambda: F.gelu(x, approximate="tanh"), 2),
                "softmax_bwd": (lambda: torch._softmax_backward_data(
                    up, y, -1, dtype), 3),
                "log_softmax_bwd": (
                    lambda: torch._log_softmax_backward_data(
                        up, ly, -1, dtype), 3),
                "rms_norm_bwd": (norm_backward(x, up, w, None), 3),
                "layer_norm_bwd": (norm_backward(x, up, w, b), 3),
                "reduce_sum": (lambda: x.sum(-1), 1),
                "reduce_max": (lambda: x.amax(-1), 1),
                "reduce_min": (lambda: x.amin(-1), 1),
                "argmax": (lambda: x.argmax(-1), 1),
                "reduce_cols_sum": (lambda: x.sum(0), 1),
            }
            copy_ms = median_ms(lambda: out.copy_(x), args.device)
            for op, (fn, matrices) in ops.items():
                record(results, op, name, rows, cols, matrices,
                       x.element_size(), median_ms(fn, args.device), copy_ms)
            del x, out, up, y, ly
        # Cross-entropy in both dtypes.
        for rows, cols in ([] if args.shapes else CROSS_ENTROPY_SHAPES):
            logits = torch.randn(rows, cols, device=args.device,
                                 dtype=dtype)
            targets = torch.randint(0, cols, (rows,), device=args.device)
            out = torch.empty_like(logits)
            copy_ms = median_ms(lambda: out.copy_(logits), args.device)
            ms = median_ms(lambda: F.cross_entropy(
                logits, targets, reduction="none"), args.device)
            record(results, "cross_entropy", name, rows, cols, 1,
                   logits.element_size(), ms, copy_ms)
            # The backward: dlogits = dloss (softmax - onehot), as
            # autograd runs it (reads the logits, writes dlogits).
            leaf = logits.detach().requires_grad_()
            loss = F.cross_entropy(leaf, targets, reduction="none")
            dloss = torch.ones_like(loss)
            ms = median_ms(lambda: torch.autograd.grad(
                loss, leaf, dloss, retain_graph=True), args.device)
            record(results, "cross_entropy_bwd", name, rows, cols, 2,
                   logits.element_size(), ms, copy_ms)
            del logits, out, leaf, loss
        for m, k in ([] if args.shapes else GEMV_SHAPES):
            a = torch.randn(m, k, device=args.device, dtype=dtype)
            v = torch.randn(k, device=args.device, dtype=dtype)
            copy = torch.empty_like(a)
            copy_ms = median_ms(lambda: copy.copy_(a), args.device)
            vt = torch.randn(m, device=args.device, dtype=dtype)
            nbytes = a.numel() * a.element_size()
            for op, fn in (("gemv", lambda: torch.mv(a, v)),
                           ("gemv_t", lambda: torch.mv(a.t(), vt))):
                ms = median_ms(fn, args.device)
                results.append({
                    "op": op, "dtype": name, "rows": m, "cols": k,
                    "torch_ms": ms, "copy_ms": copy_ms / 2,
                    "torch_GBps": nbytes / ms / 1e6,
                    "copy_GBps": 2 * nbytes / copy_ms / 1e6,
                    "torch_vs_copy": copy_ms / 2 / ms,
                })
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": str(torch.cuda.get_device_name(0))
                       if args.device == "cuda" else args.device,
                       "torch": torch.__version__, "results": results}, f,
                      indent=1)
    print("| op | dtype | rows x cols | torch ms | torch GB/s | copy GB/s "
          "| torch / copy |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['op']} | {r['dtype']} | {r['rows']} x {r['cols']} | "
              f"{r['torch_ms']:.4f} | {r['torch_GBps']:.0f} | "
              f"{r['copy_GBps']:.0f} | {100 * r['torch_vs_copy']:.1f} % |")


if __name__ == "__main__":
    main()
