#!/bin/bash
# Session 10: SASS stall samples under v2 (prefetch, landed rule), to set
# beside session 9's new3 samples (prof_v6d.sh transition 1 x 4096,
# prof_v6e.sh replay 1 x 16384 pool and paged).
set -u
RUN=build-rt/bin/gdn-run; A=artifacts-tiles/v2/k128_v128_bf16
H="--heads 16 --value-heads 32 --head-dim 128 --no-check --warmup 0 --repeat 1"
prof() { # name, kernel regex, schedule dir, then gdn-run args
  local n=$1 k=$2 s=$3; shift 3
  timeout 200 ncu --set full --import-source no --clock-control none -k regex:$k -c 1 -o /tmp/$n $RUN --backend cuda --artifacts $A/$s $H "$@" > /tmp/$n-run.txt 2>&1
  echo "== $n rc $?"
  ncu -i /tmp/$n.ncu-rep --page source --csv --print-source sass > /tmp/$n.csv 2>&1; gzip -c /tmp/$n.csv > $OUT/$n-sass.csv.gz
  ncu -i /tmp/$n.ncu-rep --page details --csv 2>/dev/null | python3 -c "import csv,sys; [print('  ',r['Metric Name'], r['Metric Value']) for r in csv.DictReader(sys.stdin) if r['Metric Name'] in ('Duration','Registers Per Thread')]"
}
prof trans-pool __transition split-seq --interface pool --seqlens 4096
prof replay-pool __replay split-seq-64 --interface pool --seqlens 16384
prof replay-paged __replay split-seq-64 --interface paged --prefixes 1000 --seqlens 16384
