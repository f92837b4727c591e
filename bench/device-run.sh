#!/usr/bin/env bash
# One call on the GPU machine (carry: build-rt/bin artifacts artifacts-bf16
# third_party, and variants/ for the stage timings): the correctness matrix for both tensor-core
# precisions with compute-sanitizer, then timings of ours (variants) and
# FLA's on the benchmark shapes. Logs go to $OUT.
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
RUN=build-rt/bin/gdn-run
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"
bench/gpu-matrix.sh "$RUN" artifacts "$OUT/matrix-tf32" > "$OUT/matrix-tf32.txt" 2>&1
tail -4 "$OUT/matrix-tf32.txt"
bench/gpu-matrix.sh "$RUN" artifacts-bf16 "$OUT/matrix-bf16" > "$OUT/matrix-bf16.txt" 2>&1
tail -4 "$OUT/matrix-bf16.txt"
{
  [ -d variants ] && bench/stage-variants.sh "$RUN"
  bench/bench-shapes.sh "$RUN" artifacts third_party
} 2>&1 | tee "$OUT/bench.txt"
