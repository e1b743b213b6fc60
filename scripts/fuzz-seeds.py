#!/usr/bin/env python3
"""Seeds for the fuzz targets harvested from the test inputs.

    scripts/fuzz-seeds.py TARGET OUT_DIR

mlir-to-ptx / interpreter: every .mlir input of the lit tests (dialects,
conversions, pipelines, the PTX target, tool inputs), split at `// -----`
(one seed per case of a split-input-file test), comment lines dropped (the
RUN and CHECK lines are noise to a mutator). signature: each `// kaio.kernel`
signature the tests spell, as a one-line PTX comment. run-args: each
kaio-run command line of the tests, one argument a line (the target's
format), %s and pipes dropped. Other targets: none (their seeds are kept
in test/fuzz/corpus). Prints how many seeds it wrote.
"""
import hashlib
import os
import re
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MLIR_DIRS = ["test/Dialect", "test/Conversion", "test/Pipeline",
             "test/Target/PTX", "test/Tools/Inputs"]


def test_files(suffixes):
    for top in ["test"]:
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            if "fuzz" in dirpath.split(os.sep):
                continue
            for name in sorted(names):
                if name.endswith(suffixes):
                    yield os.path.join(dirpath, name)


def mlir_seeds():
    for d in MLIR_DIRS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            for name in sorted(names):
                if not name.endswith(".mlir"):
                    continue
                with open(os.path.join(dirpath, name), errors="replace") as f:
                    text = f.read()
                cases = re.split(r"^// -----\s*$", text, flags=re.M)
                # Type and attribute aliases the first case defines serve
                # the cases after it too (unless one defines its own).
                alias = re.compile(r"([!#][\w.$-]+) = ")
                shared = {m.group(1): l for l in cases[0].splitlines()
                          if (m := alias.match(l))}
                for i, case in enumerate(cases):
                    lines = [l for l in case.splitlines()
                             if not l.lstrip().startswith("//")]
                    body = "\n".join(lines).strip()
                    if not body:
                        continue
                    own = {m.group(1) for l in lines if (m := alias.match(l))}
                    extra = [] if i == 0 else [
                        l for name, l in shared.items() if name not in own]
                    yield "\n".join(extra + [body]) + "\n"


def signature_seeds():
    pattern = re.compile(r"// kaio\.kernel [A-Za-z_][\w$]*\([^)\n]*\)[^\n]*")
    for path in test_files((".mlir", ".test", ".c", ".cpp")):
        with open(path, errors="replace") as f:
            for m in pattern.finditer(f.read()):
                yield m.group(0) + "\n"


def run_args_seeds():
    for path in test_files((".mlir", ".test")):
        with open(path, errors="replace") as f:
            for line in f:
                m = re.search(r"RUN:.*?\bkaio-run(?![\w-])(.*)", line)
                if not m:
                    continue
                command = m.group(1).split("|")[0]
                try:
                    words = shlex.split(command)
                except ValueError:
                    continue
                words = [w for w in words if "%" not in w]
                if words:
                    yield "\n".join(words)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fuzz-seeds.py TARGET OUT_DIR")
    target, out = sys.argv[1], sys.argv[2]
    source = {"mlir-to-ptx": mlir_seeds, "interpreter": mlir_seeds,
              "signature": signature_seeds,
              "run-args": run_args_seeds}.get(target)
    os.makedirs(out, exist_ok=True)
    count = 0
    if source:
        for seed in source():
            data = seed.encode()
            name = hashlib.sha1(data).hexdigest()[:16]
            path = os.path.join(out, name)
            if not os.path.exists(path):
                with open(path, "wb") as f:
                    f.write(data)
                count += 1
    print(f"fuzz-seeds: {count} seeds for {target} in {out}")


if __name__ == "__main__":
    main()
