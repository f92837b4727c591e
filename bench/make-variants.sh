#!/usr/bin/env bash
# Artifacts for the GPU runs of bench/RESULTS.md, compiled on a machine with
# LLVM / MLIR (the GPU host has none):
#   artifacts/<schedule>/k<K>_v<V>_<dtype>/  every fusion schedule of
#       SCHEDULES (built-in names or files in schedules/), tf32 mma, every
#       shape of the test matrix
#   artifacts-bf16/     fused, bf16 ldmatrix + mma, every shape
#   artifacts-tiles/<schedule>-<mma>/  the register-tile back end (wgmma) for
#       every schedule of TILE_SCHEDULES (default fused) and precision of
#       TILE_MMA (default tf32 bf16), every shape
#   variants/<name>/    (VARIANTS=1) K = V = 128 bf16 only, for timing: block
#       size, tiles in global memory only, and kernels with one stage left
#       out (wrong results, timing only) to see where the time goes.
set -euo pipefail
RUN=${RUN:-build/bin/gdn-run}
SCHEDULES=${SCHEDULES:-"fused staged staged-bf16 split-seq schedules/split-seq-2.sched schedules/staged-two-kernels.sched"}
shapes="128:128:bf16 64:64:bf16 64:64:f16 64:128:bf16 128:64:bf16 128:128:f16"
emit() { # dir kernel extra-flags... (for every shape)
  local dir=$1 kernel=$2; shift 2
  for s in $shapes; do
    IFS=: read -r k v d <<< "$s"
    "$RUN" --kernel "$kernel" --emit artifact --head-dim-k "$k" --head-dim-v "$v" \
      --dtype "$d" --seqlens 1 "$@" -o "$dir/k${k}_v${v}_$d"
  done
}
one() { # dir kernel extra-flags... (K = V = 128 bf16)
  local dir=$1 kernel=$2; shift 2
  mkdir -p "$dir"
  "$RUN" --kernel "$kernel" --emit artifact --seqlens 1 --schedule fused --gpu-backend simt "$@" -o "$dir"
}
rm -rf artifacts artifacts-bf16
mkdir -p artifacts artifacts-bf16
for s in $SCHEDULES; do
  emit "artifacts/$(basename "$s" .sched)" kernels/gdn_chunked.mlir --schedule "$s" --gpu-backend simt
done
emit artifacts-bf16 kernels/gdn_chunked.mlir --schedule fused --gpu-backend simt --mma bf16
# The register-tile back end (--gpu-backend tiles): artifacts-tiles/<schedule>-<mma>/.
rm -rf artifacts-tiles
for sched in ${TILE_SCHEDULES:-fused}; do
  for mma in ${TILE_MMA:-tf32 bf16}; do
    emit "artifacts-tiles/$(basename "$sched" .sched)-$mma" kernels/gdn_chunked.mlir \
      --schedule "$sched" --gpu-backend tiles --mma "$mma"
  done
done
if [ "${VARIANTS:-0}" = 1 ]; then
  mkdir -p variants
  one variants/base kernels/gdn_chunked.mlir
  one variants/bf16 kernels/gdn_chunked.mlir --mma bf16
  one variants/threads128 kernels/gdn_chunked.mlir --block-size 128
  one variants/global-scratch-only kernels/gdn_chunked.mlir --shared-memory 0
  tmp=$(mktemp -d)
  sed 's/%tm = gdn.tri_inverse %a : tensor<64x64xf32>/%tm = gdn.mask_rows %a, %n : tensor<64x64xf32>/' \
    kernels/gdn_chunked.mlir > "$tmp/no-inverse.mlir"
  sed 's/%intra = gdn.matmul %qk, %vn mask none : tensor<64x64xf32>, !v_tile -> !v_tile/%intra = arith.addf %qm, %qm : !v_tile/' \
    kernels/gdn_chunked.mlir > "$tmp/no-intra-output.mlir"
  sed 's/%upd = gdn.matmul %vn, %kd transpose_a mask none : !v_tile, !qk_tile -> !state/%upd = arith.addf %m0, %m0 : !state/' \
    kernels/gdn_chunked.mlir > "$tmp/no-state-update.mlir"
  for v in no-inverse no-intra-output no-state-update; do
    cmp -s "$tmp/$v.mlir" kernels/gdn_chunked.mlir && { echo "sed for $v matched nothing"; exit 1; }
    one "variants/$v" "$tmp/$v.mlir"
  done
  rm -rf "$tmp"
fi
du -sh artifacts artifacts-bf16 artifacts-tiles
