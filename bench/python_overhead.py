#!/usr/bin/env python3
"""Per-call overhead of KAIO ops from Python against torch's own, on the GPU
host (issue: goal <= 1.5x torch's dispatch overhead).

Calls each op on tiny tensors (the launch, not the kernel, is the cost)
back to back, N calls per sample, the median of 15 samples after warm-up,
wall-clock per call with a synchronize at the end of each sample: kaio.ops
(a ctypes call into libkaio), kaio.torch_ops (through torch.library's
dispatcher) and the torch op doing the same work.

    PYTHONPATH=python python3 bench/python_overhead.py [--json FILE] [--profile]

With --host (no GPU, no torch needed) it times only KAIO's host side on
kaio.DeviceArray arguments: run it against the fake driver
(KAIO_CUDA_DRIVER=build/test/unittests/Runtime/libKaioFakeCudaDriver.so),
whose launch costs next to nothing, to see what the package and the C API
add per call. With --host-torch (no GPU; any torch) the same on torch CPU
tensors dressed as CUDA ones (is_cuda and get_device patched on
torch.Tensor, stream=0): the torch-tensor path's host side, beside torch's
own CPU add.
"""

import argparse
import json
import statistics
import sys
import time

try:
    import torch
except ImportError:  # pragma: no cover - the GPU host has torch
    torch = None

import kaio
from kaio import ops

N, SAMPLES = 2000, 15


def per_call_us(fn, sync=lambda: None):
    for _ in range(200):
        fn()
    sync()
    samples = []
    for _ in range(SAMPLES):
        t = time.perf_counter()
        for _ in range(N):
            fn()
        sync()
        samples.append((time.perf_counter() - t) / N * 1e6)
    return statistics.median(samples)


def host_only():
    """KAIO's host side alone, on kaio.DeviceArray arguments."""
    import numpy as np
    x = kaio.DeviceArray.from_numpy(np.ones((4, 64), dtype=np.float32))
    w = kaio.DeviceArray.from_numpy(np.ones((64,), dtype=np.float32))
    out = kaio.DeviceArray.from_numpy(np.ones((4, 64), dtype=np.float32))
    print("| op | kaio µs/call (host side) |")
    print("|---|---|")
    for name, fn in [("add", lambda: ops.add(x, x, out=out)),
                     ("softmax", lambda: ops.softmax(x, out=out)),
                     ("rms_norm", lambda: ops.rms_norm(x, w, out=out))]:
        print("| %s | %.2f |" % (name, per_call_us(fn)))


def host_torch():
    """KAIO's host side on torch tensors, without a GPU (see --host-torch)."""
    if torch is None:
        sys.exit("python_overhead.py: --host-torch needs torch")
    torch.Tensor.is_cuda = property(lambda self: True)
    torch.Tensor.get_device = lambda self: 0
    x, w, out = torch.ones(4, 64), torch.ones(64), torch.empty(4, 64)
    print("| op | kaio µs/call (host side, torch tensors) |")
    print("|---|---|")
    for name, fn in [("add", lambda: ops.add(x, x, out=out, stream=0)),
                     ("softmax", lambda: ops.softmax(x, out=out, stream=0)),
                     ("rms_norm",
                      lambda: ops.rms_norm(x, w, out=out, stream=0)),
                     ("torch.add (CPU)", lambda: torch.add(x, x, out=out))]:
        print("| %s | %.2f |" % (name, per_call_us(fn)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json")
    parser.add_argument("--host", action="store_true",
                        help="KAIO's host side only (no GPU or torch)")
    parser.add_argument("--profile", action="store_true",
                        help="also print where kaio.ops.add and "
                        "kaio.torch_ops.rms_norm spend their time "
                        "(cProfile, the functions of most own time)")
    parser.add_argument("--host-torch", action="store_true",
                        help="KAIO's host side on torch CPU tensors dressed "
                        "as CUDA ones (no GPU)")
    args = parser.parse_args()
    if args.host:
        return host_only()
    if args.host_torch:
        return host_torch()
    if torch is None:
        sys.exit("python_overhead.py: PyTorch is not installed")
    if not torch.cuda.is_available():
        sys.exit("python_overhead.py: no GPU")
    x = torch.randn(4, 64, device="cuda")
    w = torch.randn(64, device="cuda")
    out = torch.empty_like(x)
    F = torch.nn.functional
    cases = [
        ("add", lambda: ops.add(x, x, out=out),
         lambda: torch.add(x, x, out=out)),
        ("softmax", lambda: ops.softmax(x, out=out),
         lambda: torch.softmax(x, -1)),
        ("rms_norm", lambda: ops.rms_norm(x, w, out=out),
         lambda: F.rms_norm(x, (64,), w) if hasattr(F, "rms_norm")
         else x * w),
    ]
    try:
        from kaio import torch_ops as kt
        cases.append(("torch_ops.rms_norm", lambda: kt.rms_norm(x, w),
                      lambda: F.rms_norm(x, (64,), w)))
    except ImportError:
        pass
    rows = []
    print("| op | kaio µs/call | torch µs/call | ratio |")
    print("|---|---|---|---|")
    for name, ours, theirs in cases:
        k = per_call_us(ours, torch.cuda.synchronize)
        t = per_call_us(theirs, torch.cuda.synchronize)
        rows.append({"op": name, "kaio_us": k, "torch_us": t,
                     "ratio": k / t})
        print("| %s | %.2f | %.2f | %.2f |" % (name, k, t, k / t))
    if args.profile:
        import cProfile
        import pstats
        for name, ours, _ in cases:
            if name not in ("add", "torch_ops.rms_norm"):
                continue
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(N):
                ours()
            prof.disable()
            torch.cuda.synchronize()
            print("\n%s, %d calls:" % (name, N))
            pstats.Stats(prof).sort_stats("tottime").print_stats(14)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0),
                       "kaio": kaio.version(), "torch": torch.__version__,
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
