#!/usr/bin/env python3
"""Run kaio-translate --mlir-to-ptx and the kaio-opt --kaio-to-ptx pipeline
over every .mlir file under the given directories: valid or not, each must
exit 0 or 1 with diagnostics, never crash.

Usage: no_crash.py KAIO_TRANSLATE KAIO_OPT DIR...
"""
import os
import subprocess
import sys


def main():
    translate, opt, roots = sys.argv[1], sys.argv[2], sys.argv[3:]
    count, crashes = 0, []
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(".mlir"):
                    continue
                path = os.path.join(dirpath, name)
                commands = []
                for extra in ([], ["--split-input-file"]):
                    commands.append([translate, "--mlir-to-ptx",
                                     "--ptx-chip=sm_90", path, "-o",
                                     os.devnull] + extra)
                    commands.append([opt, "--kaio-to-ptx=chip=sm_80", path,
                                     "-o", os.devnull] + extra)
                for cmd in commands:
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
