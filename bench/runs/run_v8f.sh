#!/bin/bash
# Session 11: bf16 operands used transposed staged MN-major (wgmma's
# transpose bit) instead of transposed element by element. Matrix on the
# auto set (memcheck + racecheck) and staged-bf16; A/B events v2 / s11-mn;
# the staged-bf16 v-block=64 state kernel; s11-mn beside FLA.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
t0=$(date +%s)
timeout 100 bench/gpu-matrix.sh $RUN $A/s11-mnst $L/m-st > $L/matrix-st.txt 2>&1
echo "== matrix s11-mnst rc $? in $(( $(date +%s) - t0 )) s"; grep -E "failed cases|ERROR|FAIL" $L/matrix-st.txt | tail -4
grep -E "^\|" $L/matrix-st.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 200 bench/gpu-matrix.sh $RUN $A/s11-mn $L/m-mn > $L/matrix-mn.txt 2>&1
echo "== matrix s11-mn rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|ERROR|FAIL" $L/matrix-mn.txt | tail -5
grep -E "^\|" $L/matrix-mn.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $A/$2 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|error.*" | tr '\n' ' '; echo; }
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "16 32 4096,4096,4096,4096,4096,4096,4096,4096" "2 8 32768" "2 8 65536"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in v2 s11-mn; do ev "pool H$h HV$hv ${t:0:12}" $d; done
done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface paged --prefixes 1000 --seqlens 16384"
for d in v2 s11-mn; do ev "paged 16384" $d; done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096"
for d in s11-sb64 s11-mnsb64; do ev "staged-bf16 vb64 4096" $d; done
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/s11-mn
timeout 150 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
