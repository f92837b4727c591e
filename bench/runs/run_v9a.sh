#!/bin/bash
# Session 12: (f) the wgmma accumulator's registers fenced before
# wgmma.fence and after wgmma.wait_group, so that ptxas no longer
# serialises every wgmma of split-seq's transition (C7514); (fs) f plus
# accumulator stagings in bf16 by stmatrix. Matrix on the fs auto set
# (memcheck + racecheck) and its staged-bf16 set; A/B events s11-mn / f /
# fs; fs beside FLA through the Python entry, H=16 HV=32 and H=2 HV=8.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 230 bench/gpu-matrix.sh $RUN $A/s12-fs $L/m-fs > $L/matrix-fs.txt 2>&1
echo "== matrix s12-fs rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|ERROR|FAIL" $L/matrix-fs.txt | tail -5
grep -E "^\|" $L/matrix-fs.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
t0=$(date +%s)
timeout 100 bench/gpu-matrix.sh $RUN $A/s12-fsst $L/m-fsst > $L/matrix-fsst.txt 2>&1
echo "== matrix s12-fsst rc $? in $(( $(date +%s) - t0 )) s"; grep -E "failed cases|ERROR|FAIL" $L/matrix-fsst.txt | tail -4
grep -E "^\|" $L/matrix-fsst.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $3 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|error.*" | tr '\n' ' '; echo; }
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "16 32 4096,4096,4096,4096,4096,4096,4096,4096" "2 8 32768" "2 8 65536"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  ev "pool H$h HV$hv ${t:0:12}" s11-mn $A/ab/s11-mn; ev "pool H$h HV$hv ${t:0:12}" s12-f $A/ab/s12-f; ev "pool H$h HV$hv ${t:0:12}" s12-fs $A/s12-fs
done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface paged --prefixes 1000 --seqlens 16384"
ev "paged 16384" s11-mn $A/ab/s11-mn; ev "paged 16384" s12-f $A/ab/s12-f; ev "paged 16384" s12-fs $A/s12-fs
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/s12-fs
timeout 150 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
timeout 100 python3 bench/bench_python.py --fla-path /tmp/fla-site --heads 2 --value-heads 8 --shape 1x32768 --shape 1x65536 > $L/bench_h2.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_h2.txt
