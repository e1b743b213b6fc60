#!/usr/bin/env python3
"""Run kaio-translate --mlir-to-ptx over every .mlir file under the given
directories: valid or not, it must exit 0 or 1 with diagnostics, never crash.
"""
import os
import subprocess
import sys


def main():
    translate, roots = sys.argv[1], sys.argv[2:]
    count, crashes = 0, []
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(".mlir"):
                    continue
                path = os.path.join(dirpath, name)
                for extra in ([], ["--split-input-file"]):
                    cmd = [translate, "--mlir-to-ptx", "--ptx-chip=sm_90",
                           path, "-o", os.devnull] + extra
                    res = subprocess.run(cmd, capture_output=True, text=True)
                    count += 1
                    if res.returncode not in (0, 1) or \
                            "PLEASE submit a bug report" in res.stderr:
                        crashes.append((" ".join(cmd), res.returncode,
                                        res.stderr[-2000:]))
    for cmd, rc, err in crashes:
        print("CRASH (exit %d): %s\n%s" % (rc, cmd, err))
    print("%d runs, %d crashes" % (count, len(crashes)))
    return 1 if crashes or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
