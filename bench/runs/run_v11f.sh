#!/bin/bash
# Session 15: split-seq first-segment=run (segment 0 runs its chunks in the
# transition kernel, replay skips it) against first-segment=map, same
# segment lengths; and the per-chunk costs behind a rebalancing: fused
# (t_F), split-seq replay=recompute (t_RR). Matrix on r16 first, CUDA events
# interleaved, then one ncu launch per kernel at 1 x 4096.
set -u
source bench/runs/lib.sh
for s in rm2 r16; do matrix $s $A/$s 100; done
for round in 1 2; do
  for shp in "pool 16 32 4096" "paged 16 32 4096" "pool 16 32 16384" "paged 16 32 16384"; do
    shape_opts "$shp"; read -r i h hv t <<< "$shp"
    if [ "$t" = 4096 ]; then sets="s16 r16"; else sets="s64 r64"; fi
    for s in $sets; do ev "r$round $i $t $s" $A/$s; done
    [ $round = 1 ] && [ "$i" = pool ] && [ "$t" = 4096 ] && { ev "r1 pool 4096 fused" $A/fu; ev "r1 pool 4096 rc16" $A/rc16; }
  done
done
shape_opts "pool 16 32 4096"
for s in s16 r16 rc16 fu; do durations pool4096-$s $A/$s; done
shape_opts "paged 16 32 4096"
for s in s16 r16; do durations paged4096-$s $A/$s; done
