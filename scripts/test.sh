#!/usr/bin/env bash
# Installs what is missing, builds KAIO and runs every test (lit + GoogleTest),
# ending in one line: "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KAIO_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh" || exit 1
"$root/scripts/build.sh" || { echo "0 passed, 1 failed (build failed)"; exit 1; }

lit=/usr/lib/llvm-22/bin/lit
log=$(mktemp)
"$lit" -sv --show-unsupported "$build/test" "$build/test/Unit" 2>&1 | tee "$log" | \
  grep -E '^(FAIL|XPASS|UNRESOLVED|TIMEOUT|UNSUPPORTED):|^\*\*\*\*\*' || true

count() {
  local n; n=$(sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | head -n1)
  echo "${n:-0}"
}
passed=$(( $(count Passed) + $(count 'Expectedly Failed') ))
failed=$(( $(count Failed) + $(count 'Unexpectedly Passed') + $(count Unresolved) + $(count 'Timed Out') ))
skipped=$(( $(count Unsupported) + $(count Skipped) ))

# With ptxas on the machine, no compiler test may be skipped. GoogleTest cases
# that need a GPU skip themselves when there is none.
if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
  skipped_lit=$(grep -c '^UNSUPPORTED: KAIO ::' "$log" || true)
  if [ "$skipped_lit" -gt 0 ]; then
    echo "error: $skipped_lit lit tests were skipped although ptxas is installed"
    failed=$((failed + skipped_lit))
  fi
fi
if ! grep -q '^Total Discovered Tests' "$log"; then
  echo "error: lit produced no summary"; failed=$((failed + 1))
fi
[ "$skipped" -gt 0 ] && echo "($skipped skipped: GPU tests on a machine without a GPU)"
echo "$passed passed, $failed failed"
rm -f "$log"
[ "$failed" -eq 0 ]
