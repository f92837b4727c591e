#!/bin/bash
# Session 13: where the paged interface's extra time goes at 1 x 16384
# (pool vs paged with prefix 1000, page 256, on the s13-l auto set):
# checkpoints (page 4096 writes 4 instead of 64 a head), the prefix
# (none; 1024, chunk-aligned), and the runtime switches (s13-pc: the paged
# entry with gate raw, beta logit and l2norm as constants, an edited copy
# of the kernel, not landed). Two interleaved rounds of CUDA events.
set -u
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
ev() { echo -n "$1: "; timeout 30 $RUN --backend cuda --artifacts $2 --heads 16 --value-heads 32 --head-dim 128 --no-check --seqlens 16384 $3 --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|error.*" | tr '\n' ' '; echo; }
for round in 1 2; do
  ev "r$round pool" $A/s13-l "--interface pool"
  ev "r$round paged p1000 ps256" $A/s13-l "--interface paged --prefixes 1000"
  ev "r$round paged p1000 ps256 consts" $A/s13-pc "--interface paged --prefixes 1000"
  ev "r$round paged p1000 ps4096" $A/s13-l "--interface paged --prefixes 1000 --page-size 4096"
  ev "r$round paged p0 ps256" $A/s13-l "--interface paged --prefixes 0"
  ev "r$round paged p1024 ps256" $A/s13-l "--interface paged --prefixes 1024"
done
$RUN --backend cuda --artifacts $A/s13-l --heads 16 --value-heads 32 --head-dim 128 --no-check --seqlens 16384 --interface paged --prefixes 1000 --warmup 0 --repeat 1 2>&1 | grep -i "schedule\|problem"
