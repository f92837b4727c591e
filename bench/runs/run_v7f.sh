#!/bin/bash
# Session 10, after review: the prefetch now also covers loads indexed by the
# induction variable itself (split-seq's combine, staged's pool state kernel).
# v3 = this state (the landed rule later narrowed it back). Matrix + sanitizers on v3 and on staged / staged-bf16 /
# split-seq built with it; A/B events v2 / v3; v3 beside FLA.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
for s in v3 m11-staged m11-staged-bf16 m11-split-seq; do
  t0=$(date +%s)
  SANITIZE="memcheck racecheck" timeout 100 bench/gpu-matrix.sh $RUN $A/$s $L/m-$s > $L/matrix-$s.txt 2>&1
  echo "== $s rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases" $L/matrix-$s.txt | tail -3
  echo -n "   max o err: "; grep -E "^\|" $L/matrix-$s.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
done
ev() { echo -n "$1 $2: "; timeout 30 $RUN --backend cuda --artifacts $A/$2 $P --warmup 3 --repeat 20 2>&1 | grep -oE "median [0-9.]+ ms" | tr '\n' ' '; echo; }
for itf in pool "paged --prefixes 1000"; do
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "2 8 32768"; do
  read h hv t <<< "$shp"
  pre=""; [ "$itf" != pool ] && pre=$(echo $t | sed 's/[0-9][0-9]*/1000/g')
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface ${itf%% *} ${pre:+--prefixes $pre} --seqlens $t"
  for d in v2 v3; do ev "${itf%% *} H$h HV$hv ${t:0:12}" $d; done
done; done
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/v3
timeout 150 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
timeout 90 python3 bench/bench_python.py --fla-path /tmp/fla-site --heads 2 --value-heads 8 --shape 1x32768 --shape 1x65536 > $L/bench_b.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_b.txt
