#!/usr/bin/env python3
"""Print a ptx-dialect file for each chip and assemble it with ptxas.

Usage: ptx_check.py --translate=T --ptxas=P FILE CHIP [CHIP...] [-- ARGS]
Each chip's PTX goes through `ptxas -arch=CHIP`; any failure prints the PTX
and ptxas' message and exits 1.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--translate", required=True)
    parser.add_argument("--ptxas", required=True)
    parser.add_argument("file")
    parser.add_argument("chips", nargs="+")
    args, extra = parser.parse_known_args()
    with tempfile.TemporaryDirectory() as tmp:
        for chip in args.chips:
            ptx = os.path.join(tmp, chip + ".ptx")
            cmd = [args.translate, "--mlir-to-ptx", "--ptx-chip=" + chip,
                   args.file, "-o", ptx] + extra
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                sys.stderr.write("kaio-translate failed for %s:\n%s" %
                                 (chip, res.stderr))
                return 1
            res = subprocess.run(
                [args.ptxas, "-arch=" + chip, ptx, "-o",
                 os.path.join(tmp, chip + ".cubin")],
                capture_output=True, text=True)
            if res.returncode != 0:
                sys.stderr.write("ptxas -arch=%s rejected the PTX:\n%s\n" %
                                 (chip, res.stderr))
                sys.stderr.write(open(ptx).read())
                return 1
            print("ptxas %s: ok" % chip)
    return 0


if __name__ == "__main__":
    sys.exit(main())
