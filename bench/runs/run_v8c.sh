#!/bin/bash
# Session 11: why are async copies slower? events for v2 / s11-as (every
# tile and gate vector that fits landed by cp.async) / s11-cap (shared
# memory capped at 200000 bytes: the gate vectors only); ncu of the replay
# and the fused kernel, v2 against s11-as: instructions, L1 hit rate, stalls.
set -u
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $A/$2 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|error.*" | tr '\n' ' '; echo; }
for t in 4096 16384 4096,4096,4096,4096,4096,4096,4096,4096; do
  P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in v2 s11-as s11-cap; do ev "pool ${t:0:12}" $d; done
done
S=smsp__average_warps_issue_stalled
M=gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,${S}_long_scoreboard_per_issue_active.ratio,${S}_short_scoreboard_per_issue_active.ratio,${S}_barrier_per_issue_active.ratio,${S}_mio_throttle_per_issue_active.ratio,${S}_lg_throttle_per_issue_active.ratio,${S}_wait_per_issue_active.ratio,${S}_math_pipe_throttle_per_issue_active.ratio,${S}_membar_per_issue_active.ratio,${S}_drain_per_issue_active.ratio,${S}_dispatch_stall_per_issue_active.ratio,${S}_no_instruction_per_issue_active.ratio
for d in v2 s11-as; do
  echo "== ncu $d replay 1x16384"
  timeout 100 ncu --clock-control none -k regex:replay --metrics $M $RUN --backend cuda --artifacts $A/$d --heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 16384 --warmup 0 --repeat 1 2>&1 | grep -E "^ +(gpu__|smsp__|l1tex|lts)" | sed 's/  */ /g'
  echo "== ncu $d fused 8x4096"
  timeout 100 ncu --clock-control none -k regex:gdn_pool --metrics $M $RUN --backend cuda --artifacts $A/$d --heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096,4096,4096,4096,4096,4096,4096,4096 --warmup 0 --repeat 1 2>&1 | grep -E "^ +(gpu__|smsp__|l1tex|lts)" | sed 's/  */ /g'
done
