#!/bin/bash
# Session 9: ncu durations of every kernel of one auto call (new3), pool vs
# paged (prefix 1000, page 256), and SASS stall samples of the new transition.
set -u
RUN=build-rt/bin/gdn-run; A=artifacts-tiles/new3
dur() { # name, then gdn-run args
  local n=$1; shift
  timeout 120 ncu --metrics gpu__time_duration.sum --clock-control none $RUN --backend cuda --artifacts $A "$@" --no-check --warmup 0 --repeat 1 > /tmp/$n.txt 2>&1
  echo "== $n rc $?: $(grep -oE 'schedule: auto -> [^(]*' /tmp/$n.txt | head -1)"
  grep -E "^  [a-z_]+.*\(|gpu__time_duration" /tmp/$n.txt | sed -E 's/ +/ /g' | paste - - | awk '{print "   ", $1, $(NF)}'
}
H="--heads 16 --value-heads 32 --head-dim 128"
dur pool4096 $H --interface pool --seqlens 4096
dur paged4096 $H --interface paged --seqlens 4096 --prefixes 1000
dur pool16384 $H --interface pool --seqlens 16384
dur paged16384 $H --interface paged --seqlens 16384 --prefixes 1000
dur pool2x16384 $H --interface pool --seqlens 16384,16384
timeout 200 ncu --set full --import-source no --clock-control none -k regex:__transition -c 1 -o /tmp/trans6 $RUN --backend cuda --artifacts $A/k128_v128_bf16/split-seq $H --interface pool --seqlens 4096 --no-check --warmup 0 --repeat 1 > /tmp/trans6-run.txt 2>&1
echo "== trans6 rc $?"
ncu -i /tmp/trans6.ncu-rep --page source --csv --print-source sass > /tmp/trans6.csv 2>&1; gzip -c /tmp/trans6.csv > $OUT/trans6-sass.csv.gz
ncu -i /tmp/trans6.ncu-rep --page details --csv 2>/dev/null | python3 -c "import csv,sys; [print('  ',r['Metric Name'], r['Metric Value']) for r in csv.DictReader(sys.stdin) if r['Metric Name'] in ('Duration','Registers Per Thread')]"
