#!/bin/bash
# Session 11: wgmma waits deferred to the result's first use (s11-dw), and
# matmuls also issued right after their last operand (s11-dw2), against v2
# (session 10's landed set); CUDA events, pool and paged.
set -u
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $A/$2 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|error.*" | tr '\n' ' '; echo; }
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "16 32 4096,4096,4096,4096,4096,4096,4096,4096" "2 8 32768"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in v2 s11-dw s11-dw2; do ev "pool H$h HV$hv ${t:0:12}" $d; done
done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface paged --prefixes 1000 --seqlens 16384"
for d in v2 s11-dw s11-dw2; do ev "paged 16384" $d; done
P="--heads 16 --value-heads 32 --head-dim 128 --interface pool --seqlens 4096"
for d in s11-dw s11-dw2; do echo -n "check $d: "; timeout 60 $RUN --backend cuda --artifacts $A/$d $P 2>&1 | grep -iE "verdict|error|rel" | tr '\n' ' '; echo; done
