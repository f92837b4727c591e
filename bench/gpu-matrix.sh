#!/usr/bin/env bash
# The integration matrix of the CPU tests, run on a GPU against the float64
# reference: every case draws fresh random inputs, poisons o and the pages
# it must write, checks every other page byte for byte, and checks guard
# bytes around every device buffer. Then compute-sanitizer on a small case.
#
#   bench/gpu-matrix.sh [GDN_RUN] [ARTIFACTS] [LOGDIR]
#
# GDN_RUN defaults to build-rt/bin/gdn-run (make runtime), ARTIFACTS to
# artifacts/ (make artifacts, on a machine with LLVM / MLIR). SANITIZE lists
# the compute-sanitizer tools to run (default: memcheck racecheck).
set -uo pipefail
RUN=${1:-build-rt/bin/gdn-run}
ART=${2:-artifacts}
LOG=${3:-gpu-matrix-logs}
mkdir -p "$LOG"
fails=0
table="| case | o rel err | max state rel err | pages written / untouched | verdict | median ms |"
table+=$'\n|---|---|---|---|---|---|'
case_() {
  local name=$1; shift
  local out="$LOG/$name.log"
  timeout 120 "$RUN" --backend cuda --artifacts "$ART" --warmup 1 --repeat 5 "$@" > "$out" 2>&1
  local rc=$?
  local oerr serr pages verdict ms
  oerr=$(grep -oE 'o: relative L2 error [^ ]+' "$out" | awk '{print $5}')
  serr=$(grep -oE 'max relative L2 error [^;]+' "$out" | awk '{print $5}')
  pages=$(grep -oE 'state: [0-9]+ pages written' "$out" | awk '{print $2}')/$(grep -oE '[0-9]+ other pages unchanged' "$out" | awk '{print $1}')
  verdict=$(grep -oE 'verdict: [A-Z]+' "$out" | awk '{print $2}')
  ms=$(grep -oE 'median [0-9.]+ ms' "$out" | awk '{print $2}')
  if [ "$rc" -ne 0 ] || [ "$verdict" != PASS ]; then
    fails=$((fails+1)); verdict="${verdict:-ERROR} (rc $rc)"; tail -3 "$out"
  fi
  table+=$'\n'"| $name | $oerr | $serr | $pages | $verdict | $ms |"
  echo "$name: $verdict"
}
S=(--heads 2 --value-heads 4 --head-dim 64)
case_ varlen-1-63-65-200-0-1000 "${S[@]}" --seqlens 1,63,65,200,0,1000 --prefixes 0,0,0,0,64,0
case_ gqa-1 --heads 4 --value-heads 4 --head-dim 64 --seqlens 70,130
case_ gqa-2 --heads 2 --value-heads 4 --head-dim 64 --seqlens 70,130
case_ gqa-4 --heads 1 --value-heads 4 --head-dim 64 --seqlens 70,130
case_ k128-v128 --heads 1 --value-heads 2 --head-dim 128 --seqlens 100,65
case_ k64-v128 --heads 1 --value-heads 2 --head-dim-k 64 --head-dim-v 128 --seqlens 100,65
case_ k128-v64 --heads 1 --value-heads 2 --head-dim-k 128 --head-dim-v 64 --seqlens 100,65
case_ bf16 "${S[@]}" --seqlens 90,33 --dtype bf16
case_ f16 "${S[@]}" --seqlens 90,33 --dtype f16
case_ f16-k128 --heads 1 --value-heads 2 --head-dim 128 --seqlens 200 --dtype f16
case_ gate-raw "${S[@]}" --seqlens 150 --gate raw
case_ gate-log "${S[@]}" --seqlens 150 --gate log
case_ gate-linear "${S[@]}" --seqlens 150 --gate linear
case_ beta-not-logit "${S[@]}" --seqlens 150 --gate log --no-beta-is-logit
case_ l2norm-off "${S[@]}" --seqlens 129 --no-qk-l2norm
case_ pool-shuffled "${S[@]}" --interface pool --seqlens 1,100,0,65
case_ pool-k128 --interface pool --heads 1 --value-heads 1 --head-dim 128 --seqlens 300
case_ paged-prefixes-0-77-256 "${S[@]}" --page-size 128 --seqlens 200,200,200 --prefixes 0,77,256
case_ page-size-64 "${S[@]}" --page-size 64 --seqlens 300,10 --prefixes 100,64
case_ page-size-128 "${S[@]}" --page-size 128 --seqlens 300,10 --prefixes 100,64
case_ page-size-256 "${S[@]}" --page-size 256 --seqlens 300,10 --prefixes 100,64
case_ pages-in-order "${S[@]}" --page-size 64 --seqlens 300,10 --prefixes 100,64 --no-shuffle-pages
case_ shared-prefix-page "${S[@]}" --seqlens 100,300,50 --prefixes 512,512,0 --shared-prefix
case_ long-4100-strong-decay --heads 1 --value-heads 1 --head-dim 64 --seqlens 4100 --gate log --max-decay 20
case_ long-4096-k128 --heads 1 --value-heads 1 --head-dim 128 --seqlens 4096 --gate raw
case_ hazard-g-1e4 "${S[@]}" --seqlens 300 --gate log --max-decay 1e4
case_ hazard-alpha-0 "${S[@]}" --seqlens 300 --gate linear --zero-alpha-every 7
case_ hazard-softplus-overflow "${S[@]}" --seqlens 300 --gate raw --gate-scale 1e4
case_ hazard-qk-1e4 "${S[@]}" --seqlens 200 --qk-scale 1e4
# K = V = 64 where auto's grid outnumbers the SMs: one warpgroup a block
# (its -wg1 candidates: fused, split-seq, first-segment=run).
case_ k64-one-warpgroup-fused --heads 4 --value-heads 136 --head-dim 64 --seqlens 130
case_ k64-one-warpgroup-split-seq --heads 16 --value-heads 32 --head-dim 64 --seqlens 8192
case_ k64-one-warpgroup-run-first --heads 1 --value-heads 66 --head-dim 64 --seqlens 4096
# K = 256 (FLA's layer default head size): auto's one WY solve per value
# head over V-blocks of 64 (staged-per-head), heads sharing a q / k head.
case_ k256-v256-pool --interface pool --heads 2 --value-heads 4 --head-dim 256 --seqlens 300,65,1
case_ k256-v256-paged --heads 2 --value-heads 4 --head-dim 256 --seqlens 300,65,1 --prefixes 0,77,300
case_ k256-v256-f16 --heads 1 --value-heads 2 --head-dim 256 --seqlens 200,70 --prefixes 0,64 --dtype f16
case_ k256-v512-paged --heads 1 --value-heads 2 --head-dim-k 256 --head-dim-v 512 --seqlens 130,1 --prefixes 256,0
case_ default-problem
echo
echo "$table" | tee "$LOG/table.md"
echo
if command -v compute-sanitizer > /dev/null; then
  for tool in ${SANITIZE-memcheck racecheck}; do
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$RUN" --backend cuda \
      --artifacts "$ART" --warmup 0 --repeat 0 "${S[@]}" --seqlens 70,20 \
      --prefixes 0,300 > "$LOG/sanitizer-$tool.log" 2>&1
    echo "compute-sanitizer $tool: rc $? ($(grep -E 'ERROR SUMMARY|verdict' "$LOG/sanitizer-$tool.log" | tr '\n' ' '))"
    # K = 256: the per-head prepare kernel and the serial kernel after it.
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$RUN" --backend cuda \
      --artifacts "$ART" --warmup 0 --repeat 0 --heads 1 --value-heads 2 \
      --head-dim 256 --seqlens 70,20 --prefixes 0,300 \
      > "$LOG/sanitizer-$tool-k256.log" 2>&1
    echo "compute-sanitizer $tool, K = 256: rc $? ($(grep -E 'ERROR SUMMARY|verdict' "$LOG/sanitizer-$tool-k256.log" | tr '\n' ' '))"
  done
fi
echo "failed cases: $fails"
exit $((fails > 0))
