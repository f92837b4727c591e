#!/bin/bash
# Session 15: split-seq first-segment=run with its own segment-0 length
# (first-segment-chunks) and the last segment preparing its chunks in
# replay, against the auto picks (s16 at 1 x 4096, s64 at 1 x 16384).
# fA..fC: 1 x 4096 (segment-0 / others: 12/15, 13/14, 12/14), fD, fE:
# 1 x 16384 (52/60, 50/58). rm23: 3/2 on every shape, for the matrix.
set -u
source bench/runs/lib.sh
A=artifacts-tiles/v11g
matrix rm23 $A/rm23 100
for round in 1 2; do
  for shp in "pool 16 32 4096" "paged 16 32 4096" "pool 16 32 16384" "paged 16 32 16384"; do
    shape_opts "$shp"; read -r i h hv t <<< "$shp"
    if [ "$t" = 4096 ]; then sets="s16 fA fB fC"; else sets="s64 fD fE"; fi
    for s in $sets; do ev "r$round $i $t $s" $A/$s; done
  done
done
shape_opts "pool 16 32 4096"
for s in fA fB fC; do durations pool4096-$s $A/$s; done
shape_opts "pool 16 32 16384"
for s in s64 fD fE; do durations pool16384-$s $A/$s; done
