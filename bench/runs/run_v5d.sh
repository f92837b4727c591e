#!/bin/bash
# Session 8: 16-byte accumulator stores (quad transpose). Tile-lowering check, matrix + sanitizers, A/B events.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
timeout 60 python3 scripts/check-tile-lowering.py run --dir build/tile-checks > $L/tile-checks.txt 2>&1; echo "== tile checks rc $?"; tail -12 $L/tile-checks.txt
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 150 bench/gpu-matrix.sh $RUN $A/auto4 $L/m-auto4 > $L/matrix-auto4.txt 2>&1
echo "== matrix auto4 rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases" $L/matrix-auto4.txt | tail -3
grep -E "^\|" $L/matrix-auto4.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "2 8 32768" "2 8 65536" "16 32 4096,4096,4096,4096,4096,4096,4096,4096"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in auto3 auto4; do
    echo -n "H$h HV$hv ${t:0:12} $d: "; timeout 30 $RUN --backend cuda --artifacts $A/$d $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms" ; 
  done
done
