#!/bin/bash
# Session 8: SASS stall samples of split-seq (replay=load) transition and replay, fused, after the mma inverse.
set -u
RUN=build-rt/bin/gdn-run
P="--heads 16 --value-heads 32 --head-dim 128 --interface pool --seqlens 4096 --no-check"
prof() { # name artifacts kernel-regex
  timeout 200 ncu --set full --import-source no --clock-control none -k regex:$3 -c 1 -o /tmp/$1 $RUN --backend cuda --artifacts $2 $P --warmup 0 --repeat 1 > /tmp/$1-run.txt 2>&1
  echo "== $1 rc $?"
  ncu -i /tmp/$1.ncu-rep --page source --csv --print-source sass > /tmp/$1.csv 2>&1; gzip -c /tmp/$1.csv > $OUT/$1-sass.csv.gz
  ncu -i /tmp/$1.ncu-rep --page details --csv 2>&1 | grep -E '"(Duration|Registers Per Thread|Dynamic Shared Memory Per Block|Executed Ipc Active)"' | cut -d, -f5,13-15
}
prof trans artifacts-tiles/auto3/k128_v128_bf16/split-seq __transition
prof replay artifacts-tiles/auto3/k128_v128_bf16/split-seq __replay
prof fused3 artifacts-tiles/auto3/k128_v128_bf16/fused gdn_pool
for d in split-seq fused; do
  timeout 60 compute-sanitizer --tool racecheck $RUN --backend cuda --artifacts artifacts-tiles/auto3/k128_v128_bf16/$d --interface paged --heads 2 --value-heads 4 --seqlens 300,1500 --prefixes 0,100 > /tmp/rc-$d.txt 2>&1; echo "racecheck $d rc $?"; grep -E "verdict|RACECHECK SUMMARY|hazard|rror" /tmp/rc-$d.txt | head -3
done
