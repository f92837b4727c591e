#!/usr/bin/env bash
# On the GPU machine (carry: build-rt/bin artifacts artifacts-bf16
# third_party, and variants/ for the stage timings). Logs go to $OUT.
# third_party/wheels holds FLA as wheels, made on a machine with network:
#   pip download fla-core==0.6.0 einops packaging --no-deps -d third_party/wheels
# PART=bench installs them offline into $FLA_SITE (default /tmp/fla-site):
#   python3 -m pip install --target $FLA_SITE --no-index \
#     --find-links third_party/wheels fla-core einops packaging
# and times FLA by CUDA-graph replay (bench/bench_fla.py; FLA_PLAIN=1 adds
# its plain launches), then prints the ours / FLA ratio table.
#   PART=matrix  the correctness matrix under every schedule in artifacts/
#                (and fused with bf16 mma when artifacts-bf16/ is there), the
#                schedules in parallel (timings in these tables are not
#                benchmarks); compute-sanitizer (SANITIZE tools) on each
#   PART=bench   timings of every schedule but those in BENCH_SKIP, and of
#                FLA, on the benchmark shapes, one run at a time, and the
#                ratios
#   PART=fla     FLA alone (install, then bench/bench_fla.py), into
#                $OUT/fla.txt
#   PART=all     both (default)
set -uo pipefail
OUT=${OUT:-out}
PART=${PART:-all}
export FLA_SITE=${FLA_SITE:-/tmp/fla-site}
mkdir -p "$OUT"
RUN=build-rt/bin/gdn-run
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"
if [ "$PART" = all ] || [ "$PART" = matrix ]; then
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
if [ "$PART" = fla ]; then
  PLAIN=
  [ "${FLA_PLAIN:-0}" = 1 ] && PLAIN=--plain
  {
    python3 -m pip install -q --disable-pip-version-check --upgrade \
      --target "$FLA_SITE" --no-index --find-links third_party/wheels \
      fla-core einops packaging &&
    PYTHONUNBUFFERED=1 timeout 420 python3 bench/bench_fla.py --fla-path "$FLA_SITE" \
      $PLAIN \
      --shape 1x4096 --shape 1x16384 --shape 1x65536 --shape 8x4096 --shape 2x16384 &&
    PYTHONUNBUFFERED=1 timeout 180 python3 bench/bench_fla.py --fla-path "$FLA_SITE" \
      $PLAIN --heads 2 --value-heads 8 --shape 1x65536
  } 2>&1 | tee "$OUT/fla.txt"
elif [ "$PART" != matrix ]; then
  {
    [ -d variants ] && bench/stage-variants.sh "$RUN"
    bench/bench-shapes.sh "$RUN" artifacts third_party/wheels
  } 2>&1 | tee "$OUT/bench.txt"
fi
