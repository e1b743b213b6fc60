#!/usr/bin/env bash
# Installs what is missing, builds KAIO and runs every test (lit + GoogleTest),
# ending in one line: "N passed, N failed".
#
#   scripts/test.sh                              the suite (what CI runs)
#   scripts/test.sh --sanitize=address,undefined the suite built with ASan and
#                                                UBSan in build-asan-ubsan/
#                                                (leaks and any UB are errors)
#   scripts/test.sh --sanitize=thread            the suite under TSan
# The plain run (CI) also runs the suite (all but three slow lit runs) and
# the fuzz targets under ASan+UBSan, and the runtime alone under TSan
# (KAIO_SANITIZER_LEGS=0 skips both).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KAIO_BUILD_DIR:-$root/build}
sanitize=""
for arg in "$@"; do
  case "$arg" in
    --sanitize=*) sanitize=${arg#--sanitize=} ;;
    *) echo "usage: scripts/test.sh [--sanitize=address,undefined|thread]" >&2; exit 2 ;;
  esac
done

"$root/scripts/install-deps.sh" || exit 1
configure=()
if [ -n "$sanitize" ]; then
  flags="-fsanitize=$sanitize -fno-omit-frame-pointer -fno-sanitize-recover=all -O1 -g1"
  build=${KAIO_BUILD_DIR:-$root/build-$(echo "$sanitize" | tr ',' '-' | sed 's/address/asan/;s/undefined/ubsan/;s/thread/tsan/')}
  # Build type "Sanitize": only these flags (no -O2 -g on top of them).
  flags="$flags -DNDEBUG"
  compilers=()
  # The ASan build is also the fuzz build: with clang, everything carries
  # libFuzzer's coverage instrumentation and the five fuzz targets link
  # against the same libraries (one instrumented build, not three).
  clangxx=$(command -v clang++-22 || true)
  if [[ "$sanitize" == *address* ]] && [ -n "$clangxx" ]; then
    flags="${flags/-fsanitize=$sanitize/-fsanitize=$sanitize,fuzzer-no-link}"
    compilers=(-DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_C_COMPILER="${clangxx/++/}"
               -DKAIO_FUZZ=ON)
  fi
  configure=("${compilers[@]}" -DCMAKE_BUILD_TYPE=Sanitize "-DCMAKE_C_FLAGS=$flags"
             "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=$sanitize"
             "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=$sanitize"
             "-DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=$sanitize" -DKAIO_SANITIZE="$sanitize")
  # Leaks are errors; halt on the first report of any kind.
  # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons and unpoisons
  # slabs in its header code when compiled with ASan — our instrumented
  # inline copies do, the uninstrumented libLLVM/libMLIR copies carving the
  # same slabs do not — so a type MLIR allocates lands in memory our code
  # poisoned and reads of it are false "use-after-poison" reports
  # (docs/reliability.md). Real heap errors are still caught.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_odr_violation=0:allow_user_poisoning=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  # ignore_noninstrumented_modules: libLLVM/libMLIR are not instrumented,
  # so TSan cannot see the happens-before of their own lazy initialisation
  # (e.g. a lock created by one pass-manager worker and taken by another
  # reads as a race inside libMLIR); accesses their interceptor calls make
  # are ignored, KAIO's own code is still checked.
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp}
fi
# The tests of the build just made (set here, after a sanitizer run has
# picked its own build directory: until session 26 the ASan+UBSan leg ran
# lit over build/, the plain build's tests). Under the sanitizers: every
# GoogleTest suite (the interpreter running every library kernel against
# its f64 reference included: about 9 minutes of one core under ASan+UBSan
# here) and the lit suite (tools, C API, kaio-run, embedding, the fuzz
# targets' replays, the examples through the compiler, the C API's fault
# sweep — seconds since the library looks its kernels up on first use)
# but kaio-run's fault sweep (minutes instrumented). The library's PTX
# tests, which pin ptxas's registers and spills, run here too: the builder
# orders each block by dataflow (kaio-order-by-dataflow) and the sm_90a
# module's ptx text is put in operand order (ptx-order-operand-trees), so
# clang's generators write the kernels gcc's do.
lit_args=("$build/test" "$build/test/Unit")
if [ -n "$sanitize" ]; then
  lit_args=(--filter-out 'kaio-run-faults' "$build/test" "$build/test/Unit")
fi
KAIO_BUILD_DIR=$build "$root/scripts/build.sh" "${configure[@]}" ||
  { echo "0 passed, 1 failed (build failed)"; exit 1; }

lit=/usr/lib/llvm-22/bin/lit
log=$(mktemp)
"$lit" -sv --show-unsupported "${lit_args[@]}" 2>&1 | tee "$log" | \
  grep -E '^(FAIL|XPASS|UNRESOLVED|TIMEOUT|UNSUPPORTED):|^\*\*\*\*\*' || true

count() {
  local n; n=$(sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | head -n1)
  echo "${n:-0}"
}
passed=$(( $(count Passed) + $(count 'Expectedly Failed') ))
failed=$(( $(count Failed) + $(count 'Unexpectedly Passed') + $(count Unresolved) + $(count 'Timed Out') ))
skipped=$(( $(count Unsupported) + $(count Skipped) + $(count Excluded) ))

# With ptxas on the machine, no compiler test may be skipped (in sanitizer
# builds: none but those that cannot run instrumented, e.g. Python loading
# the instrumented libkaio). GoogleTest cases that need a GPU skip
# themselves when there is none.
if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
  skipped_lit=$(grep -c '^UNSUPPORTED: KAIO ::' "$log" || true)
  [ -z "$sanitize" ] || skipped_lit=0  # those marked UNSUPPORTED: sanitizer
  if [ "$skipped_lit" -gt 0 ]; then
    echo "error: $skipped_lit lit tests were skipped although ptxas is installed"
    failed=$((failed + skipped_lit))
  fi
fi
# The libFuzzer targets, briefly (scripts/fuzz.sh; longer runs are recorded
# in docs/reliability.md): in the ASan build, which clang built with
# libFuzzer's coverage instrumentation (above), all five on this build.
fuzz_seconds=${KAIO_FUZZ_SECONDS:-20}
if [[ "$sanitize" == *address* ]] && [ "$fuzz_seconds" -gt 0 ] &&
   [ -x "$build/bin/kaio-fuzz-signature" ]; then
  for target in signature cache-entry run-args mlir-to-ptx interpreter; do
    if KAIO_FUZZ_BUILD_DIR=$build KAIO_FUZZ_MLIR_BUILD_DIR=$build \
       "$root/scripts/fuzz.sh" "$target" "$fuzz_seconds" > "$log.fuzz" 2>&1; then
      passed=$((passed + 1))
      echo "fuzz $target: clean ($(grep -a -m1 -o 'Done [0-9]* runs' "$log.fuzz" || echo '?'))"
    else
      failed=$((failed + 1))
      echo "FAIL: fuzz $target:"; tail -n 30 "$log.fuzz"
    fi
  done
  rm -f "$log.fuzz"
fi
# The runtime alone (no LLVM/MLIR: what GPU hosts and embedders build) under
# TSan: driver plumbing, caches, threads, fault injection, kaio-run's parsers.
runtime_tsan_leg() {
  local dir=$root/build-rt-tsan flags="-fsanitize=thread -fno-omit-frame-pointer -O1 -g1"
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
      -DKAIO_ENABLE_COMPILER=OFF "-DCMAKE_CXX_FLAGS=$flags" \
      "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread" \
      "-DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=thread" > "$log.leg" 2>&1 || return 1
  fi
  cmake --build "$dir" --target KaioRuntimeTests KaioRunToolTests \
    KaioFakeCudaDriver > "$log.leg" 2>&1 || return 1
  local t
  for t in KaioRuntimeTests KaioRunToolTests; do
    TSAN_OPTIONS=halt_on_error=1 "$dir/test/unittests/Runtime/$t" > "$log.leg" 2>&1 || return 1
  done
}
# The plain run (what CI runs) adds two legs: the runtime alone under TSan,
# and the whole suite again under ASan+UBSan (compiler, interpreter, op
# library, C API, tools), which also runs the five fuzz targets.
if [ -z "$sanitize" ] && [ "${KAIO_SANITIZER_LEGS:-1}" != 0 ]; then
  if runtime_tsan_leg; then
    passed=$((passed + 1)); echo "runtime under tsan: clean"
  else
    failed=$((failed + 1)); echo "FAIL: runtime under tsan:"; tail -n 40 "$log.leg"
  fi
  rm -f "$log.leg"
  env -u KAIO_BUILD_DIR "$root/scripts/test.sh" --sanitize=address,undefined > "$log.leg" 2>&1
  leg_summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log.leg" | tail -n1)
  leg_passed=$(echo "$leg_summary" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
  leg_failed=$(echo "$leg_summary" | sed -n 's/.*passed, \([0-9]*\) failed.*/\1/p')
  if [ -z "$leg_summary" ]; then
    failed=$((failed + 1)); echo "FAIL: the ASan+UBSan leg gave no summary:"; tail -n 40 "$log.leg"
  else
    grep -E '^(FAIL|fuzz |error:)' "$log.leg" | sed 's/^/asan-ubsan: /'
    echo "the whole suite under ASan+UBSan: $leg_summary"
    passed=$((passed + leg_passed)); failed=$((failed + leg_failed))
  fi
  rm -f "$log.leg"
fi
if ! grep -q '^Total Discovered Tests' "$log"; then
  echo "error: lit produced no summary"; failed=$((failed + 1))
fi
[ "$skipped" -gt 0 ] && echo "($skipped skipped: GPU tests on a machine without a GPU${sanitize:+, and tests that cannot run under the sanitizers})"
echo "$passed passed, $failed failed"
rm -f "$log"
[ "$failed" -eq 0 ]
