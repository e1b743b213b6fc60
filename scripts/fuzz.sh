#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS on its seed corpus (and what earlier
# runs added to build-fuzz/corpus/TARGET); exits non-zero on a crash, a
# leak, a timeout or a failed property check, leaving the reproducer in
# build-fuzz/. Builds the targets first, with clang, ASan and UBSan.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   TARGET: signature (the PTX signature parser), cache-entry (the cubin
#   cache's reader), run-args (kaio-run's command line and --arg parser),
#   mlir-to-ptx (parse, verify, lower and print .mlir text; seeds: the
#   examples; builds the compiler half in build-fuzz-mlir/), interpreter
#   (what lowers runs in the interpreter, bounded; same seeds and build).
#   Every target is also seeded from the test inputs (scripts/fuzz-seeds.py).
# KAIO_FUZZ_BUILD_DIR / KAIO_FUZZ_MLIR_BUILD_DIR name another instrumented
# build to use instead: scripts/test.sh points both at its clang
# ASan+UBSan build (build-asan-ubsan/), which has every target.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: scripts/fuzz.sh TARGET SECONDS [options]" >&2; exit 2; }
target=$1 seconds=$2
shift 2
build=${KAIO_FUZZ_BUILD_DIR:-$root/build-fuzz}
compiler=OFF
seeds=$root/test/fuzz/corpus/$target
if [ "$target" = mlir-to-ptx ] || [ "$target" = interpreter ]; then
  # The compiler half, built with clang and instrumented (a second full
  # build of the compiler libraries; not run by scripts/test.sh).
  build=${KAIO_FUZZ_MLIR_BUILD_DIR:-$root/build-fuzz-mlir}
  compiler=ON
  seeds=$root/examples
fi
# Extra seeds kept in the tree (for mlir-to-ptx: inputs using the tile ops
# the examples do not).
extra=()
if [ "$target" = mlir-to-ptx ] || [ "$target" = interpreter ]; then
  [ -d "$root/test/fuzz/corpus/mlir-to-ptx" ] &&
    extra=("$root/test/fuzz/corpus/mlir-to-ptx")
fi
# And the seeds harvested from the test inputs (every case of the .mlir
# tests, the signatures and kaio-run lines they spell; none for
# cache-entry), as test/fuzz/replay.test replays them in every build.
harvest=$build/seeds/$target
rm -rf "$harvest"
python3 "$root/scripts/fuzz-seeds.py" "$target" "$harvest" >&2
extra+=("$harvest")
cxx=$(command -v clang++-22 || command -v clang++ || true)
[ -n "$cxx" ] || { echo "fuzz.sh: clang++ not found (apt install clang-22 libclang-rt-22-dev)" >&2; exit 2; }
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="${cxx%++*}${cxx##*++}" \
    -DKAIO_ENABLE_COMPILER=$compiler -DKAIO_ENABLE_TESTS=OFF -DKAIO_FUZZ=ON \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -O1 -g1" \
    > /tmp/kaio-fuzz-configure.log 2>&1 || { cat /tmp/kaio-fuzz-configure.log; exit 1; }
fi
cmake --build "$build" --target "kaio-fuzz-$target" > /dev/null
corpus=$build/corpus/$target
mkdir -p "$corpus"
dict=()
dictname=$target
[ "$target" = interpreter ] && dictname=mlir-to-ptx
[ -f "$root/test/fuzz/$dictname.dict" ] && dict=(-dict="$root/test/fuzz/$dictname.dict")
cd "$build"
# The compiler targets mix ASan-instrumented KAIO with uninstrumented
# libLLVM/libMLIR, whose allocators' header code poisons memory only on our
# side: ignore user poisoning (false use-after-poison; docs/reliability.md).
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0}
exec "$build/bin/kaio-fuzz-$target" -max_total_time="$seconds" \
  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" "$@" \
  "$corpus" "$seeds" "${extra[@]}" "$root/test/fuzz/regressions"
