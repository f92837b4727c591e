#!/bin/bash
# Session 9: which stage-early change moved fused (A/B events: base = eighth
# session, vbchain / fchain = chain runs only, vbstore / sstore = store
# passing only, new2 = both + folding transition + auto's split-seq-128),
# then the auto set new2 beside FLA (graph replay) on every benchmark shape.
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
python3 -m pip install -q --target /tmp/fla-site --no-index --find-links third_party/wheels fla-core einops packaging > $L/pip.log 2>&1 &
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $A/$2 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|schedule [^,]*" | tr '\n' ' '; echo; }
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096,4096"
for d in base vbchain vbstore new2; do ev "2x4096" $d; done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 16384,16384"
for d in vbchain vbstore new2; do ev "2x16384" $d; done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096,4096,4096,4096,4096,4096,4096,4096"
for d in base fchain new2; do ev "8x4096" $d; done
P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096"
for d in base sstore new2; do ev "1x4096" $d; done
wait
export GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/artifacts-tiles/new2
timeout 200 python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096 --shape 8x4096 --shape 1x16384 --shape 2x16384 > $L/bench_a.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_a.txt
timeout 120 python3 bench/bench_python.py --fla-path /tmp/fla-site --heads 2 --value-heads 8 --shape 1x32768 --shape 1x65536 > $L/bench_b.txt 2>&1; echo "rc $?"; grep -v "^#" $L/bench_b.txt
