#!/bin/bash
# Session 12: why the paged call gained nothing from the wgmma fences and
# stmatrix: per-kernel ncu metrics (time, instructions, registers, local
# memory) of the fs auto set, pool against paged, 1 x 16384 and 1 x 4096;
# and three interleaved rounds of events f / fs where run_v9a.sh's one
# sample moved the other way (fused 8 x 4096, paged 1 x 16384).
set -u
L=$OUT/log; mkdir -p $L
RUN=build-rt/bin/gdn-run; A=artifacts-tiles
M=gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
prof() { # name set args...
  local n=$1 s=$2; shift 2
  timeout 120 ncu --clock-control none --metrics $M -k regex:gdn_ --csv $RUN --backend cuda --artifacts $s --heads 16 --value-heads 32 --head-dim 128 --no-check --warmup 0 --repeat 1 "$@" > $L/$n.csv 2>&1
  echo "== $n rc $?"
  python3 - $L/$n.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; k = hdr.index("Kernel Name"); mn = hdr.index("Metric Name"); mv = hdr.index("Metric Value"); i = hdr.index("ID")
d = collections.OrderedDict()
for r in rows[1:]:
    d.setdefault((r[i], r[k]), {})[r[mn]] = r[mv]
for (id_, name), m in d.items():
    print(f"  {name:28s}", "  ".join(f"{key.split('__')[1][:28]}={val}" for key, val in m.items()))
PY
}
prof pool16k-fs $A/s12-fs --interface pool --seqlens 16384
prof paged16k-p1000-fs $A/s12-fs --interface paged --prefixes 1000 --seqlens 16384
prof paged16k-fs $A/s12-fs --interface paged --seqlens 16384
prof pool16k-f $A/ab/s12-f --interface pool --seqlens 16384
prof paged16k-p1000-f $A/ab/s12-f --interface paged --prefixes 1000 --seqlens 16384
prof pool4k-fs $A/s12-fs --interface pool --seqlens 4096
prof paged4k-fs $A/s12-fs --interface paged --seqlens 4096
ev() { echo -n "$1 $2: "; timeout 40 $RUN --backend cuda --artifacts $3 $P --warmup 2 --repeat 10 2>&1 | grep -oE "median [0-9.]+ ms|error.*" | tr '\n' ' '; echo; }
for round in 1 2 3; do
  P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 4096,4096,4096,4096,4096,4096,4096,4096"
  ev "r$round pool 8x4096" s12-f $A/ab/s12-f; ev "r$round pool 8x4096" s12-fs $A/s12-fs
  P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface paged --prefixes 1000 --seqlens 16384"
  ev "r$round paged 16384 p1000" s12-f $A/ab/s12-f; ev "r$round paged 16384 p1000" s12-fs $A/s12-fs
  P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface paged --seqlens 16384"
  ev "r$round paged 16384" s12-f $A/ab/s12-f; ev "r$round paged 16384" s12-fs $A/s12-fs
  P="--heads 16 --value-heads 32 --head-dim 128 --no-check --interface pool --seqlens 16384"
  ev "r$round pool 16384" s12-f $A/ab/s12-f; ev "r$round pool 16384" s12-fs $A/s12-fs
done
