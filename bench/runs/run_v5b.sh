#!/bin/bash
# Session 8: inverse merges on mma.sync (3xTF32), 8x8 diagonal blocks. Correctness then A/B.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 150 bench/gpu-matrix.sh $RUN $A/auto3 $L/m-auto3 > $L/matrix-auto3.txt 2>&1
echo "== matrix auto3 rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|passed" $L/matrix-auto3.txt | tail -3
grep -E "^\|" $L/matrix-auto3.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -2
for d in fused split-seq; do
  timeout 60 compute-sanitizer --tool racecheck $RUN --backend cuda --artifacts $A/auto3/k128_v128_bf16/$d --interface paged --heads 2 --value-heads 4 --head-dim 128 --seqlens 300,1500 --prefixes 0,100 2>&1 | grep -E "verdict|RACECHECK SUMMARY|hazard" | head -3
done
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "2 8 32768" "2 8 65536" "16 32 4096,4096,4096,4096,4096,4096,4096,4096"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in auto2 auto3; do
    echo -n "H$h HV$hv $t $d: "; timeout 30 $RUN --backend cuda --artifacts $A/$d $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|schedule: [^,]*" | tr '\n' ' '; echo
  done
done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096"
for d in stagedE/k128_v128_bf16 staged3/k128_v128_bf16; do echo -n "$d: "; $RUN --backend cuda --artifacts $A/$d $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms"; done
