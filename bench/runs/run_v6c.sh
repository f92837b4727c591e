#!/bin/bash
# Session 9, final set: new3 = new2 with the staging chain moved as one run
# only when it holds a product (fused kernels as with store passing alone).
# A/B events new2 / new3, matrix + sanitizers on new3, then new3 beside FLA.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $A/$2 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|schedule [^,]*" | tr '\n' ' '; echo; }
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "16 32 4096,4096" "2 8 32768" "16 32 4096,4096,4096,4096,4096,4096,4096,4096"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in base new2 new3; do ev "H$h HV$hv ${t:0:12}" $d; done
done
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 200 bench/gpu-matrix.sh $RUN $A/new3 $L/m-new3 > $L/matrix-new3.txt 2>&1
echo "== matrix new3 rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|ERROR|FAIL" $L/matrix-new3.txt | tail -5
grep -E "^\|" $L/matrix-new3.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/new3
timeout 200 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
timeout 120 python3 bench/bench_python.py --fla-path /tmp/fla-site --heads 2 --value-heads 8 --shape 1x32768 --shape 1x65536 > $L/bench_b.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_b.txt
