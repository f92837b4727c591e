#!/bin/bash
# Session 8: where a staged prepare / state block and a fused chunk spend their time (SASS stall samples).
set -u
RUN=build-rt/bin/gdn-run
P="--heads 16 --value-heads 32 --head-dim 128 --interface pool --seqlens 4096 --no-check"
prof() { # name artifacts kernel-regex
  timeout 200 ncu --set full --import-source no --clock-control none -k regex:$3 -c 1 -o /tmp/$1 $RUN --backend cuda --artifacts $2 $P --warmup 0 --repeat 1 > $OUT/$1-run.txt 2>&1
  echo "== $1 rc $?"
  ncu -i /tmp/$1.ncu-rep --page source --csv --print-source sass > /tmp/$1.csv 2>&1; gzip -c /tmp/$1.csv > $OUT/$1-sass.csv.gz
  ncu -i /tmp/$1.ncu-rep --page details --csv > $OUT/$1-details.csv 2>&1
}
prof prep artifacts-tiles/stagedE/k128_v128_bf16 prepare
prof state artifacts-tiles/stagedE/k128_v128_bf16 __state
prof fused artifacts-tiles/auto2/k128_v128_bf16/fused gdn_pool
for d in stagedE/k128_v128_bf16 auto2/k128_v128_bf16/fused; do
  echo -n "$d: "; $RUN --backend cuda --artifacts artifacts-tiles/$d $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms"
done
