#!/usr/bin/env bash
# Everything a session lent a GPU should measure, in one command on the GPU
# host (which has the driver, nvcc, torch and compute-sanitizer but no
# LLVM/MLIR): run it from the repository root with the runtime-side
# binaries carried from the build machine:
#
#   carry: build/bin/kaio-bench build/test/unittests/KaioOpsTests
#          build/test/unittests/Runtime build/lib shared/libbenchmark
#   (mkdir -p shared/libbenchmark; cp /usr/lib/x86_64-linux-gnu/libbenchmark.so.1* shared/libbenchmark)
#
#   scripts/gpu-session.sh [STEP...]   STEP: info tests python bench torch
#                                      sanitize (default: all, in that order)
#
# Logs and JSON go to $OUT (the device tool's folder) or ./gpu-session/.
# Each step has a time limit so the whole fits one 10-minute call; the last
# line of each step's log says pass/fail.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-session}
build=${KAIO_BUILD_DIR:-$root/build}
mkdir -p "$out"
export LD_LIBRARY_PATH=$root/shared/libbenchmark:$build/lib:${LD_LIBRARY_PATH:-}
export KAIO_CACHE_DIR=$out/kaio-cache
unset KAIO_CUDA_DRIVER  # the real driver
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(info tests python bench torch sanitize)
py=$(command -v python3)

step() { # NAME SECONDS COMMAND...
  local name=$1 secs=$2
  shift 2
  echo "== $name ($(date -u +%H:%M:%S))"
  if timeout "$secs" "$@" > "$out/$name.log" 2>&1; then
    echo "$name: ok" | tee -a "$out/$name.log"
  else
    echo "$name: FAILED (exit $?, see $name.log)" | tee -a "$out/$name.log"
    tail -n 15 "$out/$name.log"
  fi
}

for s in "${steps[@]}"; do
  case "$s" in
  info)
    { nvidia-smi || echo "no nvidia-smi"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; date -u; git -C "$root" log --oneline -1; } > "$out/device.txt" 2>&1
    echo "== info: $(head -n 1 "$out/device.txt")" ;;
  tests)
    step gpu-tests-runtime 120 "$build/test/unittests/Runtime/KaioRuntimeTests" --gtest_filter='*RealGpu*'
    step gpu-tests-ops 180 "$build/test/unittests/KaioOpsTests/KaioOpsTests" --gtest_filter='*RealGpu*' ;;
  python)
    step python 180 env PYTHONPATH="$root/python" KAIO_LIBRARY_DIR="$build/lib" \
      KAIO_EXAMPLES_DIR="$root/examples" "$py" "$root/test/Python/test_kaio.py" \
      TorchGpuTest -v ;;
  bench)
    step kaio-bench 420 "$build/bin/kaio-bench" --json "$out/kaio-bench.json"
    "$py" "$root/bench/plot.py" --table "$out/kaio-bench.json" > "$out/kaio-bench.md" 2>&1 || true ;;
  torch)
    step torch-rowops 240 "$py" "$root/bench/torch_rowops.py" --json "$out/torch-rowops.json"
    step python-overhead 120 env PYTHONPATH="$root/python" KAIO_LIBRARY_DIR="$build/lib" \
      "$py" "$root/bench/python_overhead.py" --json "$out/python-overhead.json"
    step torch-attention 300 env PYTHONPATH="$root/python" KAIO_LIBRARY_DIR="$build/lib" \
      "$py" "$root/bench/torch_attention.py" --json "$out/torch-attention.json" ;;
  sanitize)
    step gpu-sanitize 540 env OUT="$out/sanitize" "$root/scripts/gpu-sanitize.sh" "$build" ;;
  *)
    echo "gpu-session: unknown step '$s'" >&2; exit 2 ;;
  esac
done
