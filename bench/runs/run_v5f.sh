#!/bin/bash
# Session 8: warp-scan cumsum (auto5) on top of mma inverse + 16-byte stores (auto4).
# Tile-lowering check, matrix + sanitizers, A/B events, then auto beside FLA (graph replay).
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
timeout 90 python3 scripts/check-tile-lowering.py run --dir build/tile-checks > $L/tile-checks.txt 2>&1; echo "== tile checks rc $?"; grep -E "n=|checks" $L/tile-checks.txt
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 150 bench/gpu-matrix.sh $RUN $A/auto5 $L/m-auto5 > $L/matrix-auto5.txt 2>&1
echo "== matrix auto5 rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases" $L/matrix-auto5.txt | tail -3
grep -E "^\|" $L/matrix-auto5.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "2 8 32768" "2 8 65536" "16 32 4096,4096,4096,4096,4096,4096,4096,4096"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in auto4 auto5; do
    echo -n "H$h HV$hv ${t:0:12} $d: "; timeout 30 $RUN --backend cuda --artifacts $A/$d $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms" ;
  done
done
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/auto5
timeout 170 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
timeout 100 python3 bench/bench_python.py --fla-path /tmp/fla-site --heads 2 --value-heads 8 --shape 1x32768 --shape 1x65536 > $L/bench_b.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_b.txt
