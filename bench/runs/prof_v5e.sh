#!/bin/bash
# Session 8: SASS stall samples of split-seq (replay=load) transition and replay, fused, after the mma inverse.
set -u
RUN=build-rt/bin/gdn-run
P="--heads 16 --value-heads 32 --head-dim 128 --interface pool --seqlens 4096 --no-check"
prof() { # name artifacts kernel-regex
  timeout 200 ncu --set full --import-source no --clock-control none -k regex:$3 -c 1 -o /tmp/$1 $RUN --backend cuda --artifacts $2 $P --warmup 0 --repeat 1 > /tmp/$1-run.txt 2>&1
  echo "== $1 rc $?"
  ncu -i /tmp/$1.ncu-rep --page source --csv --print-source sass > /tmp/$1.csv 2>&1; gzip -c /tmp/$1.csv > $OUT/$1-sass.csv.gz
  ncu -i /tmp/$1.ncu-rep --page details --csv 2>/dev/null | python3 -c "import csv,sys; [print('  ',r['Metric Name'], r['Metric Value']) for r in csv.DictReader(sys.stdin) if r['Metric Name'] in ('Duration','Registers Per Thread')]"
}
prof trans4 artifacts-tiles/auto4/k128_v128_bf16/split-seq __transition
prof replay4 artifacts-tiles/auto4/k128_v128_bf16/split-seq __replay
prof fused4 artifacts-tiles/auto4/k128_v128_bf16/fused gdn_pool
timeout 60 python3 scripts/check-tile-lowering.py run --dir build/tile-checks --only chunk_prepare > /tmp/tc.txt 2>&1; echo "== chunk_prepare check rc $?"; tail -7 /tmp/tc.txt
timeout 60 compute-sanitizer --tool memcheck python3 scripts/check-tile-lowering.py run --dir build/tile-checks --only wy_tiles > /tmp/tc2.txt 2>&1; echo "== wy_tiles memcheck rc $?"; grep -E "Invalid|at 0x|Address|PASS|FAIL" /tmp/tc2.txt | head -8
