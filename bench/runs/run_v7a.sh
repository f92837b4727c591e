#!/bin/bash
# Session 10: L2 prefetch of the next chunk's tiles (gdn-gpu-prefetch-next-chunk)
# and barrier elision past scf.if without shared memory.
# A/B events base (new3 = session 9's landed set) / el (elision change alone) /
# pf (both), pool and paged; matrix + sanitizers on pf; pf beside FLA.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $A/$2 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|schedule [^,]*" | tr '\n' ' '; echo; }
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "16 32 4096,4096,4096,4096,4096,4096,4096,4096" "2 8 32768" "2 8 65536"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in new3 el pf; do ev "pool H$h HV$hv ${t:0:12}" $d; done
done
for shp in "16 32 4096 1000" "16 32 16384 1000" "16 32 16384,16384 1000,1000"; do
  read h hv t p <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface paged --prefixes $p --seqlens $t"
  for d in new3 pf; do ev "paged H$h HV$hv ${t:0:12}" $d; done
done
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 240 bench/gpu-matrix.sh $RUN $A/pf $L/m-pf > $L/matrix-pf.txt 2>&1
echo "== matrix pf rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|ERROR|FAIL" $L/matrix-pf.txt | tail -5
grep -E "^\|" $L/matrix-pf.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/pf
timeout 200 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
timeout 120 python3 bench/bench_python.py --fla-path /tmp/fla-site --heads 2 --value-heads 8 --shape 1x32768 --shape 1x65536 > $L/bench_b.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_b.txt
