#!/usr/bin/env python3
"""KAIO's FlashAttention forward or backward beside torch's
scaled_dot_product_attention, in one process on the same tensors (the kaio
Python package over the C API), on the GPU host.

Shapes follow FlashAttention's benchmark: 16k tokens (batch = 16384 / seq),
hidden 2048 (heads = 2048 / dim), seq 512 .. 16384, dim 64 and 128, causal
and not, f16 and bf16. Each side is timed with CUDA events after warm-up,
median of 20 runs; FLOP/s count 4 * batch * heads * seq^2 * dim (half of it
causal) for the forward and 2.5 times that for the backward, as kaio-bench's
BM_FlashAttention* do. --backward times dq, dk, dv from the forward's output
and logsumexp (KAIO's flash_attention_backward against torch.autograd.grad
through SDPA, its forward not timed); --portable runs KAIO's mma.sync
kernels (forward, or backward with --backward) even on a 9.0 GPU; --schedule ping_pong|independent picks how the
9.0 forward's consumer warpgroups share the tensor cores (default: the
library's choice); --query-rows 192 runs the 9.0 forward's 192-row blocks
(three consumer warpgroups; head dim 64 only). Prints a Markdown table (JSON too with --json)
with KAIO / SDPA as the ratio (> 1: KAIO faster) and the largest difference
of the outputs (of dq, dk and dv with --backward).

    PYTHONPATH=python KAIO_LIBRARY_DIR=build/lib \\
        python3 bench/torch_attention.py [--json FILE] [--seqs 512,2048] \\
        [--backward] [--portable] [--schedule independent] [--query-rows 192]
"""

import argparse
import json
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - the GPU host has torch
    sys.exit("torch_attention.py: PyTorch is not installed")

import kaio
from kaio import ops
from torch_rowops import median_ms  # CUDA events, warm-up, median of 20

SEQS = [512, 1024, 2048, 4096, 8192, 16384]
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


def measure(q, k, v, causal, backward, portable, schedule=None,
            query_rows=None):
    """(kaio_ms, sdpa_ms, max_abs_diff) on [batch, seq, heads, dim] q, k, v;
    SDPA takes the transposed views [batch, heads, seq, dim] of the same
    memory."""
    qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
    if not backward:
        out = torch.empty_like(q)
        kaio_ms = median_ms(lambda: ops.flash_attention(
            q, k, v, out=out, causal=causal, portable=portable,
            schedule=schedule, query_rows=query_rows), "cuda")
        torch_ms = median_ms(lambda: F.scaled_dot_product_attention(
            qt, kt, vt, is_causal=causal), "cuda")
        ref = F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
        ops.flash_attention(q, k, v, out=out, causal=causal,
                            portable=portable, schedule=schedule,
                            query_rows=query_rows)
        torch.cuda.synchronize()
        return (kaio_ms, torch_ms,
                float((out.transpose(1, 2).float() - ref.float()).abs().max()))
    dout = torch.randn_like(q)
    out, lse = ops.flash_attention(q, k, v, causal=causal, return_lse=True)
    grads = tuple(torch.empty_like(t) for t in (q, k, v))
    kaio_ms = median_ms(lambda: ops.flash_attention_backward(
        q, k, v, out, dout, lse, causal=causal, dq=grads[0], dk=grads[1],
        dv=grads[2], portable=portable), "cuda")
    leaves = tuple(t.detach().requires_grad_() for t in (qt, kt, vt))
    y = F.scaled_dot_product_attention(*leaves, is_causal=causal)
    g = dout.transpose(1, 2)
    torch_ms = median_ms(lambda: torch.autograd.grad(
        y, leaves, g, retain_graph=True), "cuda")
    want = torch.autograd.grad(y, leaves, g, retain_graph=True)
    torch.cuda.synchronize()
    err = max(float((a.transpose(1, 2).float() - b.float()).abs().max())
              for a, b in zip(grads, want))
    return kaio_ms, torch_ms, err


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results as JSON here")
    parser.add_argument("--seqs", default=None, help="e.g. 512,2048")
    parser.add_argument("--backward", action="store_true",
                        help="time the backward (dq, dk, dv)")
    parser.add_argument("--portable", action="store_true",
                        help="KAIO's mma.sync kernels even on a 9.0 GPU")
    parser.add_argument("--schedule", choices=("ping_pong", "independent"),
                        default=None,
                        help="the 9.0 forward's warpgroup schedule")
    parser.add_argument("--query-rows", type=int, choices=(192,),
                        default=None,
                        help="the 9.0 forward's query rows a block (head "
                        "dim 64 only)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_attention.py: no CUDA device; not measured")
    seqs = [int(s) for s in args.seqs.split(",")] if args.seqs else SEQS
    results = []
    for name, dtype in DTYPES.items():
        for dim in (64,) if args.query_rows else (64, 128):
            for causal in (False, True):
                for seq in seqs:
                    batch, heads = max(16384 // seq, 1), 2048 // dim
                    q, k, v = (torch.randn(batch, seq, heads, dim,
                                           device="cuda", dtype=dtype)
                               for _ in range(3))
                    kaio_ms, torch_ms, err = measure(
                        q, k, v, causal, args.backward, args.portable,
                        args.schedule, args.query_rows)
                    flops = 4 * batch * heads * seq * seq * dim
                    if causal:
                        flops //= 2
                    if args.backward:
                        flops = flops * 5 // 2
                    results.append({
                        "pass": "backward" if args.backward else "forward",
                        "portable": args.portable,
                        "schedule": args.schedule or "auto",
                        "query_rows": args.query_rows or "auto",
                        "dtype": name, "dim": dim, "causal": causal,
                        "seq": seq, "batch": batch, "heads": heads,
                        "kaio_ms": kaio_ms, "sdpa_ms": torch_ms,
                        "kaio_TFLOPs": flops / kaio_ms / 1e9,
                        "sdpa_TFLOPs": flops / torch_ms / 1e9,
                        "kaio_vs_sdpa": torch_ms / kaio_ms,
                        "max_abs_diff": err,
                    })
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0),
                       "torch": torch.__version__,
                       "kaio": kaio.__version__ if hasattr(kaio, "__version__")
                       else "", "results": results}, f, indent=1)
    print("| pass | dtype | dim | causal | seq | KAIO TFLOP/s | SDPA TFLOP/s | "
          "KAIO / SDPA | max abs diff |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        what = r["pass"] + (" (portable)" if r["portable"] else "")
        if r["schedule"] != "auto":
            what += " (%s)" % r["schedule"]
        if r["query_rows"] != "auto" and not args.backward:
            what += " (%s rows)" % r["query_rows"]
        print(f"| {what} | {r['dtype']} | {r['dim']} | {r['causal']} | "
              f"{r['seq']} | {r['kaio_TFLOPs']:.0f} | {r['sdpa_TFLOPs']:.0f} "
              f"| {100 * r['kaio_vs_sdpa']:.1f} % | "
              f"{r['max_abs_diff']:.2e} |")


if __name__ == "__main__":
    main()
