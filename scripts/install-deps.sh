#!/usr/bin/env bash
# Installs what KAIO needs to build and test on Debian 12, skipping what is there.
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in cmake ninja-build g++ ccache python3 python3-numpy libgtest-dev libgmock-dev libbenchmark-dev \
         libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools \
         clang-22 libclang-rt-22-dev; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-deps: installing ${need[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi
if ! command -v ptxas >/dev/null && [ ! -x /usr/local/cuda/bin/ptxas ]; then
  echo "install-deps: note: ptxas not found; tests that assemble PTX will be reported unsupported"
fi
