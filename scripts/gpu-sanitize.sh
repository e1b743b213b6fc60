#!/usr/bin/env bash
# On a GPU host: NVIDIA compute-sanitizer (memcheck with leak checking,
# racecheck, synccheck, initcheck) over KAIO's GPU tests: every library
# kernel at ragged shapes against f64 references (KaioOpsTests), every
# example embedded and run against its reference (KaioEmbedTests: the
# kaio-dialect GEMMs, attention, softmax, ... as users write them), the
# runtime's end-to-end tests (KaioRuntimeTests). Logs go
# to ${OUT:-sanitize-logs}/<tool>-<binary>.log; the last line says how many
# runs were clean. Needs only the runtime-side binaries (no LLVM/MLIR; the
# embedded examples' test is built where kaio-embed is, and skipped if absent):
#
#   scripts/gpu-sanitize.sh [BUILD_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${OUT:-sanitize-logs}
mkdir -p "$out"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "gpu-sanitize: compute-sanitizer not found"; exit 2; }
nvidia-smi -L >/dev/null 2>&1 || { echo "gpu-sanitize: no GPU"; exit 2; }

runs=(
  "ops:$build/test/unittests/KaioOpsTests/KaioOpsTests --gtest_filter=*RealGpu*"
  "examples:$build/test/unittests/KaioEmbedTests/KaioEmbedTests --gtest_filter=*OnTheGpu*"
  "runtime:$build/test/unittests/Runtime/KaioRuntimeTests --gtest_filter=*RealGpu*"
)
clean=0 total=0
for tool in memcheck racecheck synccheck initcheck; do
  extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  for run in "${runs[@]}"; do
    name=${run%%:*} cmd=${run#*:}
    bin=${cmd%% *}
    [ -x "$bin" ] || { echo "skip $name: $bin not built"; continue; }
    total=$((total + 1))
    log="$out/$tool-$name.log"
    # shellcheck disable=SC2086
    if "$cs" --tool "$tool" "${extra[@]}" --error-exitcode 99 $cmd > "$log" 2>&1; then
      clean=$((clean + 1)); status=clean
    else
      status="ERRORS (see $log)"
    fi
    echo "$tool $name: $status ($(grep -a -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$log" || echo 'no summary'))"
  done
done
echo "$clean of $total compute-sanitizer runs clean"
[ "$clean" -eq "$total" ]
