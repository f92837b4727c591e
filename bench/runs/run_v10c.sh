#!/bin/bash
# Session 13: the paged entry specialised on its flags (gdn-specialize-
# entries: gdn_paged_s0 = gate in kernel, beta logit, l2norm; s1 = log
# gates, beta given, l2norm; other flag sets run gdn_paged). Matrix on the
# s13-sp auto set (memcheck + racecheck); two interleaved rounds of events
# s13-l / s13-sp, pool and paged (prefix 1000, page 256); s13-sp beside FLA
# through the Python entry.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 150 bench/gpu-matrix.sh $RUN $A/s13-sp $L/m-sp > $L/matrix-sp.txt 2>&1
echo "== matrix s13-sp rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|ERROR|FAIL" $L/matrix-sp.txt | tail -5
grep -E "^\|" $L/matrix-sp.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
grep -h "entry gdn_paged" $L/m-sp/*.log | grep -oE "entry gdn_paged_s[0-9]" | sort | uniq -c
ev() { echo -n "$1 $2: "; timeout 30 $RUN --backend cuda --artifacts $3 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|entry [a-z_0-9]+|error.*" | tr '\n' ' '; echo; }
for round in 1 2; do
  for shp in "pool 4096" "paged 4096" "pool 16384" "paged 16384" "pool 16384,16384" "paged 16384,16384"; do
    read i t <<< "$shp"
    P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface $i --seqlens $t"
    [ $i = paged ] && P="$P --prefixes 1000"
    ev "r$round $i ${t:0:12}" l $A/s13-l
    ev "r$round $i ${t:0:12}" sp $A/s13-sp
  done
done
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/s13-sp
timeout 150 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
