#!/usr/bin/env bash
# Timings of ours (gdn-run, cuda backend, artifacts) under every schedule in
# ARTIFACTS/<schedule>/ and FLA's Triton kernel on SPEC.md's benchmark
# shapes, in one run on the same GPU.
#   bench/bench-shapes.sh [GDN_RUN] [ARTIFACTS] [FLA_SOURCE]
set -uo pipefail
RUN=${1:-build-rt/bin/gdn-run}
ART=${2:-artifacts}
FLA=${3:-third_party}
ours() {
  local label=$1; shift
  local line
  line=$(timeout 300 "$RUN" --backend cuda --artifacts "$ARTDIR" --no-check \
           --warmup 1 --repeat 3 "$@" 2>&1 | grep -E "^time:|error")
  echo "ours $SCHED $label: $line"
}
lens() { python3 -c "print(','.join(['$2']*$1))"; }
for ARTDIR in "$ART"/*/; do
  ARTDIR=${ARTDIR%/}
  SCHED=$(basename "$ARTDIR")
  case " ${BENCH_SKIP:-split-seq-2} " in *" $SCHED "*) continue ;; esac
  ours "1x4096" --seqlens 4096
  ours "1x16384" --seqlens 16384
  ours "1x65536" --seqlens 65536
  ours "8x4096" --seqlens "$(lens 8 4096)"
  ours "16384+16384" --seqlens 16384,16384
  ours "H2-HV8-1x65536" --heads 2 --value-heads 8 --seqlens 65536
  ours "paged-256-prefix1000-1x16384" --seqlens 16384 --prefixes 1000 --page-size 256
done
if [ -d "$FLA/fla" ]; then
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/bench_fla.py --fla "$FLA" \
    --shape 1x4096 --shape 1x16384 --shape 1x65536 --shape 8x4096 --shape 2x16384
  PYTHONUNBUFFERED=1 timeout 120 python3 bench/bench_fla.py --fla "$FLA" \
    --heads 2 --value-heads 8 --shape 1x65536
fi
