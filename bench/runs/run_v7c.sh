#!/bin/bash
# Session 10: which prefetches pay. new3 = session 9's set; pf = every
# chunk-loop tile; v2 = not the tiles the loop already carries a chunk ahead
# (landed rule); v4 = v2 issued after the loads instead of at the top of
# the chunk; v5 = v2 without the rank-1 (gate) tiles. gdn-run events.
set -u
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $A/$2 $P --warmup 3 --repeat 20 2>&1 | grep -oE "median [0-9.]+ ms" | tr '\n' ' '; echo; }
for itf in pool "paged --prefixes 1000"; do
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "2 8 32768"; do
  read h hv t <<< "$shp"
  pre=""; [ "$itf" != pool ] && pre=$(echo $t | sed 's/[0-9][0-9]*/1000/g')
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface ${itf%% *} ${pre:+--prefixes $pre} --seqlens $t"
  for d in new3 pf v2 v4 v5; do ev "${itf%% *} H$h HV$hv ${t:0:12}" $d; done
done; done
