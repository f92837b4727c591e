#!/bin/bash
# Session 9: SASS stall samples of split-seq replay, pool vs paged (prefix 1000, page 256), 1 x 16384.
set -u
RUN=build-rt/bin/gdn-run; A=artifacts-tiles/new3/k128_v128_bf16/split-seq-64
H="--heads 16 --value-heads 32 --head-dim 128 --seqlens 16384 --no-check --warmup 0 --repeat 1"
prof() { # name, kernel regex, then gdn-run args
  local n=$1 k=$2; shift 2
  timeout 200 ncu --set full --import-source no --clock-control none -k regex:$k -c 1 -o /tmp/$n $RUN --backend cuda --artifacts $A $H "$@" > /tmp/$n-run.txt 2>&1
  echo "== $n rc $?"
  ncu -i /tmp/$n.ncu-rep --page source --csv --print-source sass > /tmp/$n.csv 2>&1; gzip -c /tmp/$n.csv > $OUT/$n-sass.csv.gz
  ncu -i /tmp/$n.ncu-rep --page details --csv 2>/dev/null | python3 -c "import csv,sys; [print('  ',r['Metric Name'], r['Metric Value']) for r in csv.DictReader(sys.stdin) if r['Metric Name'] in ('Duration','Registers Per Thread')]"
}
prof replay-pool __replay --interface pool
prof replay-paged __replay --interface paged --prefixes 1000
