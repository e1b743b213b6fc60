#!/usr/bin/env bash
# Installs what is missing, builds KAIO, prints a ptx-dialect kernel as PTX
# and assembles it with ptxas.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KAIO_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
src="$root/examples/ptx/vector_add.mlir"
out="$build/demo"
mkdir -p "$out"
echo "== $src (ptx dialect) -> PTX"
"$build/bin/kaio-translate" --mlir-to-ptx "$src" -o "$out/vector_add.ptx"
cat "$out/vector_add.ptx"
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [ -x "$ptxas" ]; then
  for chip in sm_80 sm_90; do
    "$ptxas" -arch=$chip -v "$out/vector_add.ptx" -o "$out/vector_add.$chip.cubin" 2>&1 | sed 's/^/  /'
    echo "== ptxas -arch=$chip: ok ($out/vector_add.$chip.cubin)"
  done
else
  echo "== ptxas not found; skipping assembly"
fi
