#!/usr/bin/env bash
# Do two builds (e.g. gcc's build/ and clang's build-asan-ubsan/) write the
# same kernels? Runs each build's builder generators, prints the modules
# without locations (kaio-opt) and compares them kernel by kernel. The
# builder orders every block by dataflow (kaio-order-by-dataflow), so the
# only differences left are ops with effects written in one C++ expression
# (their order is the host compiler's): make those separate statements.
# kaio-ops-hopper-gen's ptx text is put in operand order
# (ptx-order-operand-trees), with the same caveat.
#   scripts/compare-generator-output.sh build build-asan-ubsan
set -euo pipefail
a=${1:?first build directory}
b=${2:?second build directory}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
# One line per kernel: its name and a digest of its text.
kernelDigests() {
  awk '/^  (kaio\.kernel|ptx\.entry) @/ { if (name) print name, digest;
         name = $2; sub(/\(.*/, "", name); digest = 0 }
       { for (i = 1; i <= length($0); i++)
           digest = (digest * 31 + index(" abcdefghijklmnopqrstuvwxyz0123456789%@", substr($0, i, 1))) % 1000000007 }
       END { if (name) print name, digest }' "$1"
}
for gen in kaio-ops-kernels-gen kaio-ops-hopper-gen kaio-builder-examples-gen; do
  for dir in "$a" "$b"; do
    tag=$(basename "$dir")
    # Sanitizer builds: a generator's leaks are not this script's business.
    ASAN_OPTIONS=detect_leaks=0 "$dir/bin/$gen" "$tmp/$tag.$gen.mlir" ||
      { echo "$dir/bin/$gen failed"; exit 2; }
    "$a/bin/kaio-opt" "$tmp/$tag.$gen.mlir" -o "$tmp/$tag.$gen.noloc.mlir"
  done
  fa="$tmp/$(basename "$a").$gen.noloc.mlir"
  fb="$tmp/$(basename "$b").$gen.noloc.mlir"
  if cmp -s "$fa" "$fb"; then
    echo "$gen: same"
  else
    status=1
    echo "$gen: differs"
    # The kernels (kaio.kernel or ptx.entry) that differ, by name.
    diff <(kernelDigests "$fa") <(kernelDigests "$fb") |
      sed -n 's/^< \([^ ]*\) .*/\1/p' > "$tmp/differ" || true
    echo "  $(wc -l < "$tmp/differ") kernels, e.g. $(head -n 3 "$tmp/differ" | tr '\n' ' ')"
  fi
done
exit $status
