#!/usr/bin/env bash
# Installs what is missing, builds KAIO, then shows the whole path of a kernel:
# kaio dialect -> kaio-to-ptx pipeline -> PTX text -> ptxas, and a run of the
# same kernel on the CPU interpreter.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KAIO_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
out="$build/demo"
mkdir -p "$out"
src="$root/examples/fused_silu_gate.mlir"

echo "== $src: lowered with kaio-opt --kaio-to-ptx, printed with kaio-translate"
"$build/bin/kaio-opt" --kaio-to-ptx="chip=sm_80" "$src" |
  "$build/bin/kaio-translate" --mlir-to-ptx -o "$out/fused_silu_gate.ptx"
cat "$out/fused_silu_gate.ptx"

ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [ -x "$ptxas" ]; then
  "$ptxas" -arch=sm_80 -v "$out/fused_silu_gate.ptx" -o "$out/fused_silu_gate.cubin" 2>&1 | sed 's/^/  /'
  echo "== ptxas -arch=sm_80: ok"
else
  echo "== ptxas not found; skipping assembly"
fi

echo "== the same kernel on the CPU interpreter: out = x * sigmoid(x) * gate"
"$build/bin/kaio-run" "$src" --interpret --kernel fused_silu_gate \
  --grid 4 --block 256 --arg x=f32[1000]:rand --arg gate=f32[1000]:ones \
  --arg out=f32[1000]:zeros --arg n=u32:1000 --print out
