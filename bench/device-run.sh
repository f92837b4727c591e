#!/usr/bin/env bash
# One call on the GPU machine: the correctness matrix, sanitizers, then
# timings of ours and FLA's on the benchmark shapes. Logs go to $OUT.
#   carry: build-rt artifacts third_party
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
bench/gpu-matrix.sh build-rt/bin/gdn-run artifacts "$OUT/matrix" 2>&1 | tee "$OUT/matrix.txt"
{
  for shape in "1:4096" "1:16384" "8:4096"; do
    IFS=: read b t <<< "$shape"
    lens=$(python3 -c "print(','.join(['$t']*$b))")
    timeout 300 build-rt/bin/gdn-run --backend cuda --artifacts artifacts --no-check \
      --seqlens "$lens" --warmup 1 --repeat 3 | grep -E "problem: paged|time:" ;
  done
  if [ -d third_party/fla ]; then
    PYTHONUNBUFFERED=1 timeout 300 python3 bench/bench_fla.py --fla third_party \
      --shape 1x4096 --shape 1x16384 --shape 8x4096 --shape 1x65536
  fi
} 2>&1 | tee "$OUT/bench.txt"
