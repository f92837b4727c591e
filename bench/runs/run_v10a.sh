#!/bin/bash
# Session 13: (l) tiles loaded only to be added to an accumulator are loaded
# in the accumulator layout (split-seq's combine R, the replay's carried U,
# the initial state), bf16 ones 16 bytes a lane through a quad transpose,
# and split-seq's B is stored as `intermediates` (bf16 in the auto set).
# Matrix on the s13-l auto set (memcheck + racecheck) and under the single
# schedules; two interleaved rounds of events s12-cf / s13-l; s13-l beside
# FLA through the Python entry.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 150 bench/gpu-matrix.sh $RUN $A/s13-l $L/m-l > $L/matrix-l.txt 2>&1
echo "== matrix s13-l rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|ERROR|FAIL" $L/matrix-l.txt | tail -5
grep -E "^\|" $L/matrix-l.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
ev() { echo -n "$1 $2: "; timeout 30 $RUN --backend cuda --artifacts $3 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|error.*" | tr '\n' ' '; echo; }
for round in 1 2; do
  for shp in "pool 16 32 4096" "pool 16 32 16384" "pool 16 32 16384,16384" "pool 16 32 4096,4096,4096,4096,4096,4096,4096,4096" "pool 2 8 32768" "paged 16 32 16384"; do
    read i h hv t <<< "$shp"
    P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface $i --seqlens $t"
    [ $i = paged ] && P="$P --prefixes 1000"
    ev "r$round $i H$h ${t:0:12}" cf $A/s12-cf
    ev "r$round $i H$h ${t:0:12}" l $A/s13-l
  done
done
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/s13-l
timeout 150 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
timeout 90 python3 bench/bench_python.py --fla-path /tmp/fla-site --heads 2 --value-heads 8 --shape 1x32768 --shape 1x65536 > $L/bench_h2.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_h2.txt
for s in fused split-seq staged staged-bf16; do
  t0=$(date +%s)
  timeout 60 bench/gpu-matrix.sh $RUN $A/m13/$s $L/m-$s > $L/matrix-$s.txt 2>&1
  echo "== matrix $s rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases" $L/matrix-$s.txt | tail -3
  grep -E "^\|" $L/matrix-$s.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
done
