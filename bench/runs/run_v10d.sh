#!/bin/bash
# Session 13: split-seq without its combine kernel (cr): each replay block
# applies the maps of the segments before its own to the initial state,
# and the last segment's block stores the final state. Matrix on the s13-cr
# auto set (memcheck + racecheck); two interleaved rounds of events s13-sp
# (three kernels) / s13-cr (two); s13-cr beside FLA through the Python entry.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 150 bench/gpu-matrix.sh $RUN $A/s13-cr $L/m-cr > $L/matrix-cr.txt 2>&1
echo "== matrix s13-cr rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|ERROR|FAIL" $L/matrix-cr.txt | tail -5
grep -E "^\|" $L/matrix-cr.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
ev() { echo -n "$1 $2: "; timeout 30 $RUN --backend cuda --artifacts $3 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|[0-9] kernel launch|error.*" | tr '\n' ' '; echo; }
for round in 1 2; do
  for shp in "pool 16 32 4096" "pool 16 32 16384" "pool 16 32 16384,16384" "pool 2 8 32768" "pool 2 8 65536" "paged 16 32 16384"; do
    read i h hv t <<< "$shp"
    P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface $i --seqlens $t"
    [ $i = paged ] && P="$P --prefixes 1000"
    ev "r$round $i H$h ${t:0:12}" sp $A/s13-sp
    ev "r$round $i H$h ${t:0:12}" cr $A/s13-cr
  done
done
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/s13-cr
timeout 150 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
