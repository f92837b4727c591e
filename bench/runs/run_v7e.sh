#!/bin/bash
# Session 10, landed set (v2: L2 prefetch of the next chunk's tiles except
# those the loop carries; barriers elided past scf.if without shared memory).
# Matrix + sanitizers on the auto set and under fused, staged, staged-bf16,
# split-seq built with the landed compiler; then the auto set beside FLA.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
for s in v2 m10-fused m10-staged m10-staged-bf16 m10-split-seq; do
  t0=$(date +%s)
  SANITIZE="memcheck racecheck" timeout 150 bench/gpu-matrix.sh $RUN $A/$s $L/m-$s > $L/matrix-$s.txt 2>&1
  echo "== $s rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases" $L/matrix-$s.txt | tail -3
  echo -n "   max o err: "; grep -E "^\|" $L/matrix-$s.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
done
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/v2
timeout 200 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
timeout 120 python3 bench/bench_python.py --fla-path /tmp/fla-site --heads 2 --value-heads 8 --shape 1x32768 --shape 1x65536 > $L/bench_b.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_b.txt
