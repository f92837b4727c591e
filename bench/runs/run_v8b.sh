#!/bin/bash
# Session 11: the next chunk's tiles landed in shared memory by cp.async
# (gdn-gpu-prefetch-next-chunk, async copies where the kernel has room, L2
# prefetch elsewhere). A/B events v2 (session 10's landed set) / s11-as
# (async), pool and paged; staged-bf16 v-block=64 without / with (s11-sb64,
# s11-sb64a); matrix + sanitizers on s11-as; s11-as beside FLA.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $A/$2 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|schedule [^,]*|error.*" | tr '\n' ' '; echo; }
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "16 32 4096,4096,4096,4096,4096,4096,4096,4096" "2 8 32768" "2 8 65536"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in v2 s11-as; do ev "pool H$h HV$hv ${t:0:12}" $d; done
done
for shp in "16 32 4096 1000" "16 32 16384 1000" "16 32 16384,16384 1000,1000"; do
  read h hv t p <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface paged --prefixes $p --seqlens $t"
  for d in v2 s11-as; do ev "paged H$h HV$hv ${t:0:12}" $d; done
done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096"
for d in s11-sb64 s11-sb64a; do ev "pool staged-bf16 vb64 4096" $d; done
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 240 bench/gpu-matrix.sh $RUN $A/s11-as $L/m-as > $L/matrix-as.txt 2>&1
echo "== matrix s11-as rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|ERROR|FAIL" $L/matrix-as.txt | tail -5
grep -E "^\|" $L/matrix-as.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/s11-as
timeout 200 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
timeout 120 python3 bench/bench_python.py --fla-path /tmp/fla-site --heads 2 --value-heads 8 --shape 1x32768 --shape 1x65536 > $L/bench_b.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_b.txt
