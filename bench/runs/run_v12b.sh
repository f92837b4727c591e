#!/bin/bash
# Session 16: the auto set with the next-chunk L2 prefetch (p1, the
# default) and without (p0, --prefetch none), every benchmark shape: CUDA
# events through gdn-run (pool, and paged with prefix 1000), then the
# Python entry beside FLA (graph replay), both sets in one table.
set -u
source bench/runs/lib.sh
A=artifacts-tiles/v12b
fla_install
for shp in "pool 16 32 4096" "paged 16 32 4096" "pool 16 32 16384" "paged 16 32 16384" \
           "pool 16 32 4096,4096,4096,4096,4096,4096,4096,4096" "paged 16 32 4096,4096,4096,4096,4096,4096,4096,4096" \
           "pool 16 32 16384,16384" "paged 16 32 16384,16384" "pool 2 8 32768" "paged 2 8 32768" "pool 2 8 65536" "paged 2 8 65536"; do
  shape_opts "$shp"; for s in p1 p0; do ev "$shp $s" $A/$s; done
done
wait
BP_OPTS="--set p1=$A/p1 --set p0=$A/p0" bench_python p1 1x4096 1x16384 8x4096 2x16384
BP_TAG=-h2 BP_OPTS="--heads 2 --value-heads 8 --set p1=$A/p1 --set p0=$A/p0" bench_python p1 1x32768 1x65536
