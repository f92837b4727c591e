#!/usr/bin/env bash
# On the GPU machine (carry: build-rt/bin artifacts artifacts-bf16
# third_party, and variants/ for the stage timings). Logs go to $OUT.
#   PART=matrix  the correctness matrix under every schedule in artifacts/
#                (and fused with bf16 mma when artifacts-bf16/ is there), the
#                schedules in parallel (timings in these tables are not
#                benchmarks); compute-sanitizer (SANITIZE tools) on each
#   PART=bench   timings of every schedule but those in BENCH_SKIP, and of
#                FLA, on the benchmark shapes, one run at a time
#   PART=all     both (default)
set -uo pipefail
OUT=${OUT:-out}
PART=${PART:-all}
mkdir -p "$OUT"
RUN=build-rt/bin/gdn-run
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"
if [ "$PART" != bench ]; then
  for dir in artifacts/*/ artifacts-bf16/; do
    [ -d "$dir" ] || continue
    dir=${dir%/}
    name=$(basename "$dir")
    [ "$dir" = artifacts-bf16 ] && name=fused-bf16-mma
    bench/gpu-matrix.sh "$RUN" "$dir" "$OUT/matrix-$name" > "$OUT/matrix-$name.txt" 2>&1 &
  done
  wait
  for f in "$OUT"/matrix-*.txt; do echo "== $f"; tail -4 "$f"; done
fi
if [ "$PART" != matrix ]; then
  {
    [ -d variants ] && bench/stage-variants.sh "$RUN"
    bench/bench-shapes.sh "$RUN" artifacts third_party
  } 2>&1 | tee "$OUT/bench.txt"
fi
