#!/usr/bin/env bash
# Timings of the kernel variants built by bench/make-variants.sh (variants/):
# block sizes, precisions, and kernels with one stage left out.
#   bench/stage-variants.sh [GDN_RUN]
set -uo pipefail
RUN=${1:-build-rt/bin/gdn-run}
for v in variants/*/; do
  v=${v%/}
  for t in 4096 16384; do
    line=$(timeout 200 "$RUN" --backend cuda --artifacts "$v" --no-check \
             --seqlens "$t" --warmup 1 --repeat 3 | grep -E "^time:")
    echo "variant $(basename "$v") 1x$t: $line"
  done
done
