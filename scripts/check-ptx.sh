#!/usr/bin/env bash
# Every kernel in kernels/, under every fusion schedule of SCHEDULES,
# reaches PTX for sm_90a with tensor-core instructions, ptxas accepts it,
# and no function spills more than SPILL_BOUND bytes. Prints ptxas's
# register / spill report.
#
#   scripts/check-ptx.sh GDN_RUN PTXAS KERNELS_DIR [REPORT]
#
# SPILL_BOUND (bytes of spill stores per function, default 0): no kernel
# spills at these shapes (2026-12-03). At K = V = 128, where split-seq's
# transition kernels spill, the static SASS report holds each kernel to its
# own bound.
set -euo pipefail
run=$1 ptxas=$2 kernels=$3 report=${4:-/dev/null}
bound=${SPILL_BOUND:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
: > "$report"
schedules=${SCHEDULES:-"fused staged staged-bf16 split-seq"}
for kernel in "$kernels"/*.mlir; do
 for schedule in $schedules; do
  # K = V = 128 bf16 is the static SASS report's shape (scripts/static-report.py),
  # which holds each kernel's registers and spills there to its own bound.
  for shape in "64 64 f16" "64 128 bf16" "128 64 bf16"; do
    read -r k v dt <<< "$shape"
    name="$(basename "$kernel" .mlir) $schedule K=$k V=$v $dt"
    ptx="$tmp/kernel.ptx"
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
      continue
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
  done
 done
done
exit $status
