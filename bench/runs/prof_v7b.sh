#!/bin/bash
# Session 10: per-kernel ncu durations, DRAM reads and L2 hit rates of an
# auto call at 1 x 16384, pool and paged (prefix 1000), new3 vs pf.
set -u
RUN=build-rt/bin/gdn-run
H="--heads 16 --value-heads 32 --head-dim 128 --seqlens 16384 --no-check --warmup 0 --repeat 1"
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum
for set in new3 pf; do for itf in "pool" "paged --prefixes 1000"; do
  echo "== $set $itf"
  timeout 120 ncu --clock-control none --metrics $M $RUN --backend cuda --artifacts artifacts-tiles/$set $H --interface $itf 2>&1 | grep -E "gdn_|gpu__time|dram__|lts__|inst_exec" | sed 's/  */ /g'
done; done
