#!/bin/bash
# Session 9: folding split-seq transition + stage-early chain/store moves ("new")
# against the eighth session's auto set rebuilt ("base") and the folding kernel
# alone ("kfold"). Matrix + sanitizers on new, matrix on 8-chunk segments,
# then A/B events per shape and split-seq segment lengths.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
t0=$(date +%s)
SANITIZE="memcheck racecheck" timeout 200 bench/gpu-matrix.sh $RUN $A/new $L/m-new > $L/matrix-new.txt 2>&1
echo "== matrix new rc $? in $(( $(date +%s) - t0 )) s"; grep -E "compute-sanitizer|failed cases|ERROR|FAIL" $L/matrix-new.txt | tail -5
grep -E "^\|" $L/matrix-new.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
SANITIZE="" timeout 100 bench/gpu-matrix.sh $RUN $A/ss8 $L/m-ss8 > $L/matrix-ss8.txt 2>&1
echo "== matrix ss8 rc $?"; grep -E "failed cases|ERROR|FAIL" $L/matrix-ss8.txt | tail -3
grep -E "^\|" $L/matrix-ss8.txt | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $A/$2 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|schedule [^,]*" | tr '\n' ' '; echo; }
for shp in "16 32 4096" "16 32 16384" "16 32 16384,16384" "2 8 32768" "2 8 65536" "16 32 4096,4096,4096,4096,4096,4096,4096,4096"; do
  read h hv t <<< "$shp"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface pool --seqlens $t"
  for d in base kfold new; do ev "H$h HV$hv ${t:0:12}" $d; done
done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096"; ev "1x4096" ss8
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 16384"; ev "1x16384" ss128; ev "1x16384" ss32
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 16384,16384"; for d in ss32 ss128; do ev "2x16384" $d; done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface paged --seqlens 16384"; for d in base new; do ev "paged 1x16384" $d; done
echo "total $(( $(date +%s) - t0 )) s"
