#!/usr/bin/env bash
# Every kernel in kernels/, under every fusion schedule of SCHEDULES,
# reaches PTX for sm_90a with tensor-core instructions, ptxas accepts it,
# and no function spills more than SPILL_BOUND bytes. Prints ptxas's
# register / spill report.
#
#   scripts/check-ptx.sh GDN_RUN PTXAS KERNELS_DIR [REPORT]
#
# SPILL_BOUND (bytes of spill stores per function, default 0): no kernel
# spills at these shapes (2026-12-03), nor on one warpgroup at K = V = 64
# (2026-12-06). At K = V = 128, where split-seq's
# transition kernels spill, the static SASS report holds each kernel to its
# own bound. ONE_WARPGROUP_SCHEDULES (one a line) are checked at K = V = 64
# bf16 only.
set -euo pipefail
run=$1 ptxas=$2 kernels=$3 report=${4:-/dev/null}
bound=${SPILL_BOUND:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
: > "$report"
schedules=${SCHEDULES:-"fused staged staged-bf16 split-seq"}
# One warpgroup a block, as auto's -wg1 candidates at K = V = 64
# (docs/Schedules.md): their kinds at the one shape auto compiles them for.
one_warpgroup=${ONE_WARPGROUP_SCHEDULES-"fused warpgroups=1
split-seq segment-chunks=16 replay=load intermediates=bf16 warpgroups=1
split-seq segment-chunks=58 replay=load intermediates=bf16 first-segment=run first-segment-chunks=50 prefetch=none warpgroups=1"}

# check KERNEL SCHEDULE K V DTYPE: the PTX has wgmma, ptxas takes it, and
# no function spills more than the bound.
check() {
  local kernel=$1 schedule=$2 k=$3 v=$4 dt=$5
  local name ptx="$tmp/kernel.ptx"
  name="$(basename "$kernel" .mlir) $schedule K=$k V=$v $dt"
  "$run" --kernel "$kernel" --emit ptx --head-dim-k "$k" --head-dim-v "$v" \
    --dtype "$dt" --seqlens 1 --schedule "$schedule" -o "$ptx"
  if ! grep -q 'wgmma.mma_async' "$ptx"; then
    echo "FAIL $name: no tensor-core instruction (wgmma.mma_async) in the PTX" | tee -a "$report"
    status=1
  fi
  if ! "$ptxas" -arch=sm_90a -v "$ptx" -o "$tmp/kernel.cubin" > "$tmp/ptxas.log" 2>&1; then
    echo "FAIL $name: ptxas rejects the PTX" | tee -a "$report"
    cat "$tmp/ptxas.log"
    status=1
    return
  fi
  # ptxas -v: "Compiling entry function 'f'", then "N bytes spill stores", "Used R registers".
  awk -v name="$name" -v bound="$bound" '
    /Compiling entry function/ { fn = $0; sub(/.*function ./, "", fn); sub(/. for.*/, "", fn) }
    /spill stores/ { spills = $5 }
    /Used [0-9]+ registers/ {
      printf "%-50s %-24s %3d registers, %4d bytes spill stores%s\n", name, fn, $5, spills, (spills > bound ? "  FAIL > " bound : "")
    }' "$tmp/ptxas.log" | tee -a "$report"
  if awk -v bound="$bound" '/spill stores/ && $5 > bound { bad = 1 } END { exit !bad }' "$tmp/ptxas.log"; then
    status=1
  fi
}

for kernel in "$kernels"/*.mlir; do
  for schedule in $schedules; do
    # K = V = 128 bf16 is the static SASS report's shape (scripts/static-report.py),
    # which holds each kernel's registers and spills there to its own bound.
    for shape in "64 64 f16" "64 128 bf16" "128 64 bf16"; do
      read -r k v dt <<< "$shape"
      check "$kernel" "$schedule" "$k" "$v" "$dt"
    done
  done
  while IFS= read -r schedule; do
    [ -n "$schedule" ] && check "$kernel" "$schedule" 64 64 bf16
  done <<< "$one_warpgroup"
done
exit $status
