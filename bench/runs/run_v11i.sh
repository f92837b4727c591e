#!/bin/bash
# Session 15: run_v11h.sh's Python benchmark again with the runtime rebuilt
# for the new rule (v11h's build-rt still held the old rule, so its Python
# rows and auto picks are the old ones): the a15 auto set beside FLA.
set -u
source bench/runs/lib.sh
A=artifacts-tiles/v11h
fla_install
for shp in "pool 16 32 4096" "pool 16 32 16384" "pool 16 32 16384,16384" "pool 16 32 8192" "pool 16 32 4096,4096"; do
  shape_opts "$shp"; $RUN --backend cuda --artifacts $A/a15 $P --warmup 0 --repeat 1 2>&1 | grep "schedule: auto" | cut -c1-140
done
wait
bench_python a15 1x4096 1x16384 2x16384 1x8192 2x4096
