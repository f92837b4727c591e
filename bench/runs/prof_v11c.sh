#!/bin/bash
# Session 14: why bulk checkpoints (s14b) made the paged split-seq call
# slower than stores from registers (s14). One ncu launch of each paged
# replay at 1 x 16384 (prefix 1000, page 256): duration, L1 hit rate,
# shared-memory carve-out, warp stalls; and the same at page 4096.
set -u
source bench/runs/lib.sh
one() {
  timeout 150 ncu --clock-control none -k regex:gdn_paged_s0__replay -c 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats \
    --section Occupancy --section WarpStateStats --csv --page details \
    $RUN --backend cuda --artifacts $2 $P --warmup 0 --repeat 1 > "$L/$1.csv" 2> "$L/$1.err"
  echo "== $1 rc $?"
  grep -E '"(Duration|L1/TEX Hit Rate|L2 Hit Rate|Shared Memory Configuration Size|Dynamic Shared Memory Per Block|Registers Per Thread|Stall Long Scoreboard|Stall Barrier|Stall Membar|Warp Cycles Per Issued Instruction|Achieved Occupancy|Mem Busy|Max Bandwidth|DRAM Throughput)"' "$L/$1.csv" \
    | awk -F'","' '{printf "  %s = %s %s\n", $(NF-2), $NF, $(NF-1)}' | tr -d '"'
}
shape_opts "paged 16 32 16384"
one s14-p256 $A/s14
one s14b-p256 $A/s14b
P="$P --page-size 4096"
one s14-p4096 $A/s14
one s14b-p4096 $A/s14b
