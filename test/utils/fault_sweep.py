#!/usr/bin/env python3
"""Runs a command once per CUDA driver call it makes, with the fake driver
(KAIO_CUDA_DRIVER) failing exactly that call (FAKE_CUDA_FAIL_AT=n), and
checks each run: a failed call is an error exit (status 1, never a signal)
whose stderr names the CUDA error, unless the failure hit a release or a
step with a documented fallback (e.g. the chip of a .mlir input defaults to
sm_80 when the device cannot be queried): then the run must still print
exactly what the healthy run prints. The first
run past the last call is the healthy run; it must succeed.

    fault_sweep.py [--code N --name CUDA_ERROR_X] -- COMMAND...
"""

import argparse
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", type=int, default=999)
    ap.add_argument("--name", default="CUDA_ERROR_UNKNOWN")
    ap.add_argument("--max-calls", type=int, default=2000)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    healthy = subprocess.run(cmd, capture_output=True, text=True)
    if healthy.returncode != 0:
        sys.exit("fault_sweep: the command fails without faults:\n" +
                 healthy.stderr)
    failures, reported, released = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "faults")
        for n in range(1, args.max_calls + 1):
            if os.path.exists(log):
                os.remove(log)
            env = dict(os.environ, FAKE_CUDA_FAIL_AT=str(n),
                       FAKE_CUDA_FAIL_CODE=str(args.code),
                       FAKE_CUDA_FAULT_LOG=log)
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            call = open(log).read().strip() if os.path.exists(log) else None
            if call is None:  # past the last call
                if r.returncode != 0 or r.stdout != healthy.stdout:
                    failures.append("healthy run %d differs" % n)
                break
            if r.returncode == 0 and r.stdout == healthy.stdout:
                released += 1  # a release, or recovered: same output
            elif r.returncode == 1 and args.name in r.stderr:
                reported += 1
            else:
                failures.append("call %d (%s): exit %d, stderr: %s" %
                                (n, call, r.returncode, r.stderr.strip()))
        else:
            failures.append("more than %d calls" % args.max_calls)
    print("%d driver calls failed one at a time: %d reported, %d "
          "recovered or in releases" % (n - 1, reported, released))
    for f in failures:
        print("FAILURE: " + f)
    print("%d failures" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
