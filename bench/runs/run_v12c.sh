#!/bin/bash
# Session 16: the auto set of this compiler (a16: run-first candidates with
# prefetch=none), the matrix on the CPU matrix's run-first schedule with
# prefetch=none (rm23p0: 3 / 2-chunk segments, every K:V:dtype), checked
# runs of auto's 1 x 4096 pick, then every benchmark shape beside FLA
# through the Python entry (graph replay) and the paged bound in events.
set -u
source bench/runs/lib.sh
A=artifacts-tiles/v12c
fla_install
matrix rm23p0 $A/rm23p0 150
for shp in "pool 16 32 4096" "paged 16 32 4096"; do
  shape_opts "$shp"; P=${P/--no-check/}
  timeout 120 $RUN --backend cuda --artifacts $A/a16 $P --warmup 1 --repeat 5 2>&1 | grep -E "schedule: auto|error|o:|state:|verdict|median" | cut -c1-150 | tr '\n' ' '; echo
done
wait
bench_python a16 1x4096 1x16384 8x4096 2x16384 1x8192 2x4096
BP_TAG=-h2 BP_OPTS="--heads 2 --value-heads 8" bench_python a16 1x32768 1x65536
for shp in "pool 16 32 4096" "paged 16 32 4096" "pool 16 32 16384" "paged 16 32 16384" "pool 16 32 16384,16384" "paged 16 32 16384,16384"; do
  shape_opts "$shp"; ev "$shp a16" $A/a16
done
