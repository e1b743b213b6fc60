#!/usr/bin/env bash
# Gathers what a GPU host needs into build-gpu/ (stripped copies; the GPU
# host has no LLVM/MLIR), packs it as build-pack/build-gpu.tar.gz (the
# embedded PTX compresses well: the device tool carries 64 MiB at most,
# which build-gpu/ itself outgrew), and copies libbenchmark into
# shared/libbenchmark:
#
#   scripts/gpu-carry.sh [BUILD_DIR]
#   then run, with carry ["build-pack"]:
#   tar xzf build-pack/build-gpu.tar.gz; ln -sf libkaio.so.0 build-gpu/lib/libkaio.so
#   PATH=/usr/local/cuda/bin:$PATH KAIO_BUILD_DIR=$PWD/build-gpu scripts/gpu-session.sh quick
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
dst=$root/build-gpu
rm -rf "$dst"
mkdir -p "$dst/bin" "$dst/lib" "$dst/test/unittests/KaioOpsTests" \
  "$dst/test/unittests/Runtime" "$dst/test/unittests/KaioEmbedTests" \
  "$root/shared/libbenchmark"
cp "$build/bin/kaio-bench" "$dst/bin/"
cp "$build/test/unittests/KaioOpsTests/KaioOpsTests" "$dst/test/unittests/KaioOpsTests/"
# The embedded examples, the kaio-dialect Hopper GEMM and attention among them.
cp "$build/test/unittests/KaioEmbedTests/KaioEmbedTests" "$dst/test/unittests/KaioEmbedTests/"
cp "$build/test/unittests/Runtime/KaioRuntimeTests" \
  "$build/test/unittests/Runtime/libKaioFakeCudaDriver.so" "$dst/test/unittests/Runtime/"
# The soname only (links do not travel); gpu-session.sh's caller links
# libkaio.so to it for the Python package.
cp -L "$build/lib/libkaio.so.0" "$dst/lib/libkaio.so.0"
strip "$dst/bin/"* "$dst/test/unittests/"*/* "$dst/lib/"*
for f in /usr/lib/x86_64-linux-gnu/libbenchmark.so.1*; do
  cp -L "$f" "$root/shared/libbenchmark/$(basename "$f")"
done
mkdir -p "$root/build-pack"
tar czf "$root/build-pack/build-gpu.tar.gz" -C "$root" build-gpu
du -sh "$dst" "$root/build-pack/build-gpu.tar.gz"
