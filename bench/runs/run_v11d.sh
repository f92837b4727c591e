#!/bin/bash
# Session 14: the paged checkpoint's page looked up before the step's
# matmuls (s14d) instead of after them (s14): the lookup's two dependent
# loads had stood between the state and its store. Matrix (memcheck +
# racecheck) on the s14d auto set; two interleaved rounds of events s14 /
# s14d, pool (same kernels) and paged (prefix 1000; page 256 and 4096);
# s14d beside FLA through the Python entry.
set -u
source bench/runs/lib.sh
fla_install
matrix s14d $A/s14d
for round in 1 2; do
  for shp in "pool 16 32 4096" "paged 16 32 4096" "pool 16 32 16384" "paged 16 32 16384" "paged 16 32 16384,16384"; do
    shape_opts "$shp"; read -r i h hv t <<< "$shp"
    ev "r$round $i ${t:0:12} s14" $A/s14
    ev "r$round $i ${t:0:12} s14d" $A/s14d
  done
  shape_opts "paged 16 32 16384"; P="$P --page-size 4096"
  ev "r$round paged 16384 page 4096 s14" $A/s14
  ev "r$round paged 16384 page 4096 s14d" $A/s14d
done
wait
bench_python s14d 1x4096 8x4096 1x16384 2x16384
