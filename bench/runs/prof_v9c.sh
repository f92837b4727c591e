#!/bin/bash
# Session 12: the paged replay kernel got 5% slower with stmatrix stagings
# (prof_v9b.sh: 479 -> 505 us at 1 x 16384, long-scoreboard stalls 14.8% ->
# 20.8%) while the pool replay got 3% faster. One ncu --set full launch of
# gdn_paged__replay at 1 x 4096, f against fs, with per-instruction SASS
# stall samples.
set -u
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --seqlens 4096"
one() {
  timeout 200 ncu --set full --import-source no --clock-control none -k regex:$3 -c 1 -o /tmp/$1 $RUN --backend cuda --artifacts $2 $P --interface $4 --warmup 0 --repeat 1 > $OUT/$1-run.txt 2>&1
  echo "== $1 rc $?"
  ncu -i /tmp/$1.ncu-rep --page source --csv --print-source sass > /tmp/$1.csv 2>&1; gzip -c /tmp/$1.csv > $OUT/$1-sass.csv.gz
  ncu -i /tmp/$1.ncu-rep --page details --csv > $OUT/$1-details.csv 2>&1
}
one replay-f $A/ab/s12-f gdn_paged__replay paged
one replay-fs $A/s12-fs gdn_paged__replay paged
one poolreplay-fs $A/s12-fs gdn_pool__replay pool
