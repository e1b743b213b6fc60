#!/usr/bin/env bash
# Everything a session lent a GPU should measure, in one command on the GPU
# host (which has the driver, nvcc, torch and compute-sanitizer but no
# LLVM/MLIR): run it from the repository root with the runtime-side
# binaries carried from the build machine:
#
#   scripts/gpu-carry.sh    (here: stripped copies into build-gpu/, packed
#                            as build-pack/build-gpu.tar.gz, and
#                            shared/libbenchmark)
#   carry ["build-pack"]; on the GPU host:
#   tar xzf build-pack/build-gpu.tar.gz; ln -sf libkaio.so.0 build-gpu/lib/libkaio.so
#   PATH=/usr/local/cuda/bin:$PATH KAIO_BUILD_DIR=$PWD/build-gpu scripts/gpu-session.sh quick
#   (under the device tool only $OUT/logs.tgz comes back: it returns 8
#   files at most)
#
#   scripts/gpu-session.sh [STEP...]   STEP: info tests python bench torch
#                                      sanitize (default: all, in that order)
#   scripts/gpu-session.sh quick       the sm_90a kernels first, for a short
#                                      lease (about 7 minutes): info hopper
#                                      gemm-bench attention-bench ncu-gemm
#                                      (and ncu-kaio-gemm) sanitize-hopper
#                                      tests
#   KAIO_GPU_BUDGET=540 scripts/gpu-session.sh lease
#                                      the open checks and the current
#                                      measurements, most important
#                                      first, cut to fit
#   scripts/gpu-session.sh pending     what is written but not yet measured
#                                      on a GPU, in one call (its steps'
#                                      limits add up to 9 minutes): info,
#                                      the op library's GPU tests,
#                                      pending-bench
#
# Logs and JSON go to $OUT (the device tool's folder) or ./gpu-session/.
# Each step has a time limit so the whole fits one 10-minute call; the last
# line of each step's log says pass/fail.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Under the device tool ($OUT set) the logs go to a scratch folder and only
# their archive, logs.tgz, lands in $OUT (the tool returns 8 files at most).
final=${OUT:-}
if [ -n "$final" ]; then out=$(mktemp -d); else out=$root/gpu-session; fi
archive() { # also when a time limit ends the session early
  [ -n "$final" ] && tar czf "$final/logs.tgz" -C "$out" --exclude=kaio-cache . 2>/dev/null
  return 0
}
trap archive EXIT
trap 'exit 143' TERM INT
build=${KAIO_BUILD_DIR:-$root/build}
mkdir -p "$out"
export LD_LIBRARY_PATH=$root/shared/libbenchmark:$build/lib:${LD_LIBRARY_PATH:-}
export KAIO_CACHE_DIR=$out/kaio-cache
unset KAIO_CUDA_DRIVER  # the real driver
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(info tests python bench torch sanitize)
[ "${steps[*]}" = quick ] &&
  steps=(info hopper gemm-bench attention-bench ncu-gemm sanitize-hopper tests)
[ "${steps[*]}" = pending ] &&
  steps=(info ops-tests pending-bench)
[ "${steps[*]}" = lease ] &&
  steps=(info lease)
ops_tests=$build/test/unittests/KaioOpsTests/KaioOpsTests
py=$(command -v python3)

# KAIO_GPU_BUDGET=SECONDS caps the whole run: each step's limit shrinks to
# what is left, and a step with under 15 seconds left is skipped (so a
# lease's one call can list more than fits, most important first).
budget=${KAIO_GPU_BUDGET:-0}
step() { # NAME SECONDS COMMAND...
  local name=$1 secs=$2
  shift 2
  if [ "$budget" -gt 0 ]; then
    local left=$((budget - SECONDS))
    if [ "$left" -lt 15 ]; then
      echo "$name: skipped (KAIO_GPU_BUDGET spent)" | tee "$out/$name.log"
      return 0
    fi
    [ "$secs" -gt "$left" ] && secs=$left
  fi
  echo "== $name ($(date -u +%H:%M:%S))"
  if timeout "$secs" "$@" > "$out/$name.log" 2>&1; then
    echo "$name: ok" | tee -a "$out/$name.log"
  else
    echo "$name: FAILED (exit $?, see $name.log)" | tee -a "$out/$name.log"
    tail -n 15 "$out/$name.log"
  fi
}

# attention NAME SECONDS [ARGS...]: bench/torch_attention.py at seq 2048 and
# 8192 (KAIO beside SDPA) with ARGS, its JSON as NAME.json.
attention() {
  local name=$1 secs=$2
  shift 2
  step "$name" "$secs" env PYTHONPATH="$root/python" KAIO_LIBRARY_DIR="$build/lib" \
    "$py" "$root/bench/torch_attention.py" --seqs 2048,8192 "$@" \
    --json "$out/$name.json"
}

for s in "${steps[@]}"; do
  case "$s" in
  info)
    { nvidia-smi || echo "no nvidia-smi"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; date -u; git -C "$root" log --oneline -1; } > "$out/device.txt" 2>&1
    echo "== info: $(head -n 1 "$out/device.txt")" ;;
  lease) # for one call of a 15-minute lease under KAIO_GPU_BUDGET, most
          # important first: session 22's sm_90a dK/dV kernel (its GPU test,
          # memcheck and racecheck, the backward against the portable one
          # and SDPA), session 24's 192-row d64 forward, session 23's
          # norm backward pipeline and Python overhead, what session 21
          # could not run (the Python
          # GPU tests' meta-tensor and jit.trace checks, racecheck and
          # synccheck on the clustered GEMM), every op-library GPU test,
          # the Python overhead, then the measurements of session 21 again
          # (attention against SDPA with either schedule, the GEMMs against
          # cuBLAS, the backward, the portable forward, memcheck, ncu on
          # the d128 forward, the row kernels)
    step gpu-test-backward 60 "$ops_tests" --gtest_filter='*Backward*RealGpu*'
    for tool in memcheck racecheck; do
      step "sanitize-backward-$tool" 60 compute-sanitizer --tool "$tool" \
        --error-exitcode 99 "$ops_tests" --gtest_filter='*BackwardMatches*RealGpu*'
    done
    step bench-backward 90 "$build/bin/kaio-bench" --filter \
      'FlashAttention(Portable)?Bwd(F16|BF16)/seq:(2048|8192)/dim:(64|128)/' \
      --json "$out/bench-backward.json"
    attention torch-attention-backward 80 --backward
    # Session 24: the d64 forward's 192-row kernels (three consumers),
    # their GPU test, then against the 128-row ones in the same run.
    step gpu-test-rows192 40 "$ops_tests" \
      --gtest_filter='*FlashAttentionTest.MatchesAnF64ReferenceOnTheGpu/RealGpu*'
    step bench-rows192 60 "$build/bin/kaio-bench" --filter \
      'FlashAttention(Rows192)?(F16|BF16)/seq:(2048|8192)/dim:64/' \
      --json "$out/bench-rows192.json"
    # Session 23: the norm backward's cp.async row pipeline (its GPU test
    # under racecheck and synccheck, then against a copy), and the
    # Python package's leaner argument path.
    step gpu-test-norm-backward 40 "$ops_tests" --gtest_filter='*NormBackward*RealGpu*'
    for tool in racecheck synccheck; do
      step "sanitize-norm-backward-$tool" 45 compute-sanitizer --tool "$tool" \
        --error-exitcode 99 "$ops_tests" --gtest_filter='*NormBackwardMatches*RealGpu*'
    done
    step bench-norm-backward 60 "$build/bin/kaio-bench" --filter \
      'NormBwd(F32|BF16)VsCopy/rows:32768/cols:(4096|8192)' \
      --json "$out/bench-norm-backward.json"
    step python-overhead 40 env PYTHONPATH="$root/python" KAIO_LIBRARY_DIR="$build/lib" \
      "$py" "$root/bench/python_overhead.py" --json "$out/python-overhead.json"
    # Session 25: the portable GEMM's prefetched fragments (b2_ms), the
    # full-precision f32 GEMM with a column-major B, MQA decoding (16-row
    # blocks) and 16-key pages (in the decode GPU test).
    step gpu-test-decode 30 "$ops_tests" --gtest_filter='*Decode*RealGpu*'
    step bench-session25 80 "$build/bin/kaio-bench" --filter \
      'OpsGemmPortableVsCublas/M:(2048|4096|8192)/|OpsGemmF32VsCublas/.*/full:2|FlashDecodeBF16VsCopy/.*/kv_heads:1' \
      --json "$out/bench-session25.json"
    # Session 26: s8 and tf32 on the portable mma.sync kernel (the GPU
    # reference test on both kernels, then against cuBLAS(Lt)).
    step gpu-test-int8-tf32 40 "$ops_tests" --gtest_filter='*Int8AndTf32*RealGpu*'
    step bench-session26 60 "$build/bin/kaio-bench" --filter \
      'OpsGemmS8S32VsCublasLt/.*/portable:1|OpsGemmF32VsCublas/.*/full:3' \
      --json "$out/bench-session26.json"
    # Session 27: every launch checks its pointers (the runtime's GPU test
    # of the check: host, pinned, freed memory; then the Python overhead
    # with the checks off, beside python-overhead above with them on).
    step gpu-test-pointer-checks 20 "$build/test/unittests/Runtime/KaioRuntimeTests" \
      --gtest_filter='*LaunchRefusesPointers*RealGpu*'
    step python-overhead-unchecked 40 env KAIO_CHECK_POINTERS=0 PYTHONPATH="$root/python" \
      KAIO_LIBRARY_DIR="$build/lib" "$py" "$root/bench/python_overhead.py" \
      --json "$out/python-overhead-unchecked.json"
    # Session 28: the full-precision f32 GEMM with runs of 4 rows/columns
    # a thread (16-byte shared reads, 16-byte C stores): correctness, then
    # against SGEMM (row-major and column-major B).
    step gpu-test-sgemm 30 "$ops_tests" --gtest_filter='*F32MatchesAnF64*RealGpu*'
    step bench-session28 60 "$build/bin/kaio-bench" --filter \
      'OpsGemmF32VsCublas/.*/full:(1|2)' --json "$out/bench-session28.json"
    # Session 29: the op library's launch errors name the op's argument,
    # and the library loads with no kernel looked up (first use instead).
    step gpu-test-op-arg-names 30 "$ops_tests" \
      --gtest_filter='*APointerTheGpuCannotUseIsNamedAsTheOpsArgument*RealGpu*'
    step python 60 env PYTHONPATH="$root/python" KAIO_LIBRARY_DIR="$build/lib" \
      KAIO_EXAMPLES_DIR="$root/examples" "$py" "$root/test/Python/test_kaio.py" \
      TorchGpuTest -v
    for tool in racecheck synccheck; do
      step "sanitize-cluster-$tool" 45 compute-sanitizer --tool "$tool" \
        --error-exitcode 99 "$ops_tests" --gtest_filter='*ClusterKernels*RealGpu*'
    done
    step gpu-tests-ops 120 "$ops_tests" --gtest_filter='*RealGpu*'
    for sched in ping_pong independent; do
      attention "torch-attention-$sched" 70 --schedule "$sched"
    done
    step bench-gemm 120 "$build/bin/kaio-bench" --filter \
      'OpsGemm(F16F32|BF16F32)VsCublas|OpsGemmPortableVsCublas|OpsGemmFp8' \
      --json "$out/bench-gemm.json"
    attention torch-attention-portable 60 --portable
    step sanitize-attention-memcheck 60 compute-sanitizer --tool memcheck \
      --error-exitcode 99 "$ops_tests" --gtest_filter='*FlashAttentionTest.MatchesAnF64*RealGpu*'
    step ncu-attention 60 ncu --kernel-name regex:hopper_flash_fwd_f16_d128 --launch-skip 2 \
      --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section WarpStateStats --section Occupancy --section LaunchStats \
      "$build/bin/kaio-bench" --filter 'FlashAttentionF16/seq:8192/dim:128/causal:0/'
    # Where the sm_90a backward's time goes (tensor pipe, stalls).
    step ncu-backward 60 ncu --kernel-name regex:hopper_flash_bwd --launch-skip 2 \
      --launch-count 2 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section WarpStateStats --section Occupancy --section LaunchStats \
      "$build/bin/kaio-bench" --filter 'FlashAttentionBwdF16/seq:8192/dim:128/causal:0/'
    step bench-rows 90 "$build/bin/kaio-bench" --filter \
      '(Softmax|RmsNorm|LayerNorm)[A-Za-z0-9]*VsCopy/rows:32768/cols:8192|NormBwd.*cols:4096|GeluTanhBF16|SwiGluBF16|FlashDecode|GemvTransposedBF16VsCopy|ReduceColsSumBF16VsCopy' \
      --json "$out/bench-rows.json" ;;
  ops-tests)
    step gpu-tests-ops 120 "$ops_tests" --gtest_filter='*RealGpu*' ;;
  tests)
    step gpu-tests-runtime 120 "$build/test/unittests/Runtime/KaioRuntimeTests" --gtest_filter='*RealGpu*'
    step gpu-tests-ops 180 "$build/test/unittests/KaioOpsTests/KaioOpsTests" --gtest_filter='*RealGpu*' ;;
  hopper) # the TMA/wgmma kernels behind gemm and flashAttention, each in
          # its own process with a short limit (a hung kernel costs little)
    step hopper-gemm 60 "$ops_tests" --gtest_filter='*GemmTest*RealGpu*'
    step hopper-attention 60 "$ops_tests" \
      --gtest_filter='*FlashAttentionTest.MatchesAnF64*RealGpu*'
    # The same designs written in the kaio dialect (examples/hopper_*.mlir).
    step hopper-kaio-examples 60 \
      "$build/test/unittests/KaioEmbedTests/KaioEmbedTests" --gtest_filter='*OnTheGpu*' ;;
  gemm-bench)
    step gemm-bench-4096 40 "$build/bin/kaio-bench" --filter 'OpsGemm.*M:4096/N:4096/K:4096/'
    step gemm-bench 150 "$build/bin/kaio-bench" --filter 'OpsGemm' \
      --json "$out/gemm-bench.json"
    # examples/hopper_gemm.mlir against cuBLAS and the library's kernel.
    step gemm-bench-kaio-example 90 "$build/bin/kaio-bench" \
      --filter 'HopperGemmExample' --json "$out/gemm-bench-kaio-example.json" ;;
  attention-bench) # forward, the portable (mma.sync) forward and the
                   # backward beside SDPA; issue 13's targets
    attention torch-attention 150
    attention torch-attention-portable 120 --portable
    attention torch-attention-backward 180 --backward ;;
  pending-bench) # written since the last GPU run (sessions 14-19): the
                 # sm_90a GEMM in clusters of two multicasting B (counters
                 # n128c2_ms/n256c2_ms beside n128_ms/n256_ms), split K
                 # for decode-like GEMMs (both tensor-core kernels), the
                 # portable GEMM's 3-blocks-an-SM variant (b2_ms/b3_ms), the
                 # attention kernels' XOR-stepped ldmatrix addresses (fewer
                 # registers, no spills) and the backward at head dim 256,
                 # the norms' unmasked weight/bias path, the 16-bit
                 # activations' fast exp and division, the promoted FP8 GEMM,
                 # the norm backward read once (one barrier a row; rows of
                 # 8192 f32 fused too, the wide variant), the forward row
                 # kernels of 8192 f32 on 512 threads, the promoted FP8
                 # kaio-dialect example, the dK/dV kernel's double-buffered
                 # Q/dO steps, the 16-bit column kernels at 48 warps an SM,
                 # the sm_90a attention forward on 128-key blocks, its
                 # ping-pong schedule and separate K/V barriers (against
                 # FlashAttentionIndependent*)
    step bench-pending 240 "$build/bin/kaio-bench" --filter \
      'OpsGemm(F16F32|BF16F32)(Layouts)?VsCublas|OpsGemmPortableVsCublas|FlashAttention(Independent|Portable|Bwd)?(F16|BF16)/seq:(2048|8192)/|FlashDecode|(Softmax|RmsNorm|LayerNorm)[A-Za-z0-9]*VsCopy/rows:32768/cols:8192|NormBwd.*cols:4096|RmsNormBF|LayerNormBF|GeluTanhBF16|SwiGluBF16|OpsGemmFp8|HopperGemmFp8Example.*M:4096/|GemvTransposedBF16VsCopy|ReduceColsSumBF16VsCopy' \
      --json "$out/bench-pending.json"
    "$py" "$root/bench/plot.py" --table "$out/bench-pending.json" > "$out/bench-pending.md" 2>&1 || true
    attention torch-attention-portable 60 --portable
    # The sm_90a forward on 128-key blocks (session 19) against SDPA.
    attention torch-attention-hopper 60
    # Session 20: the same without ping-pong (what the schedule gains).
    attention torch-attention-independent 60 --schedule independent
    attention torch-attention-backward 80 --backward
    step torch-rowops 90 "$py" "$root/bench/torch_rowops.py" --json "$out/torch-rowops.json" ;;
  ncu-gemm) # the sm_90a GEMM at 4096^3: tensor pipe, stalls, memory
    step ncu-gemm 90 ncu --kernel-name regex:hopper_gemm --launch-skip 3 \
      --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy \
      "$build/bin/kaio-bench" --filter 'OpsGemm.*M:4096/N:4096/K:4096/'
    # The same counters for examples/hopper_gemm.mlir (kaio dialect).
    step ncu-kaio-gemm 90 ncu --kernel-name 'regex:^hopper_gemm$' --launch-skip 3 \
      --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy \
      "$build/bin/kaio-bench" --filter 'HopperGemmExample.*M:4096/' ;;
  sanitize-hopper)
    for tool in memcheck racecheck synccheck; do
      step "sanitize-hopper-$tool" 90 compute-sanitizer --tool "$tool" \
        --error-exitcode 99 "$ops_tests" \
        --gtest_filter='*GemmTest.Aligned*RealGpu*:*FlashAttentionTest.MatchesAnF64*RealGpu*'
      step "sanitize-kaio-examples-$tool" 90 compute-sanitizer --tool "$tool" \
        --error-exitcode 99 "$build/test/unittests/KaioEmbedTests/KaioEmbedTests" \
        --gtest_filter='*OnTheGpu*'
    done ;;
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
