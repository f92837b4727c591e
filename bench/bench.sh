#!/usr/bin/env bash
# The bench, in two halves: build the artifacts on a machine with LLVM / MLIR,
# then run the correctness matrix and the timings beside FLA on a GPU host.
#
#   bench/bench.sh build  [--out DIR] [--no-make]
#   bench/bench.sh device [--artifacts DIR] [--out DIR] [--parts LIST]
#                         [--shapes LIST] [--no-sanitize]
#   bench/bench.sh table  [--artifacts DIR] [--out DIR] [--shapes LIST]
#
# build (the development machine: LLVM / MLIR 22; no GPU needed)
#   `make build runtime` (skipped with --no-make): build/bin/gdn-run, the
#   compiler, and build-rt/ (gdn-run and libgdn.so without LLVM / MLIR, for
#   the GPU host). Then the `--schedule auto` artifact set of every K:V:dtype
#   in the Makefile's ARTIFACT_SHAPES (the shapes `make artifacts` builds)
#   into DIR/k<K>_v<V>_<dtype>/ (default DIR: artifacts), and
#   DIR/BUILD-INFO.txt (commit, date). FLA's wheels go to third_party/wheels
#   if none are there (pip download; needs network, never fatal). Prints what
#   to carry to the GPU host.
#
# device (the GPU host: CUDA driver, python3 with torch and numpy; no LLVM)
#   Runs the PARTS (comma-separated; default matrix,events,python):
#     matrix  bench/gpu-matrix.sh: 37 cases against the float64 reference,
#             then compute-sanitizer memcheck and racecheck on two small
#             cases (K = 64 and K = 256)
#             (none with --no-sanitize)
#     events  gdn-run, CUDA events (median of 10 after 2 warm-ups), each
#             shape as a pool call and as a paged call (page 256, a
#             1000-token prefix a sequence), with auto's pick
#     python  bench/bench_python.py: FLA's own kernels and our Python entry
#             (pool and paged calls) in one process, CUDA-graph replay
#     fla     bench/bench_fla.py: FLA alone, graph replay and plain launches
#   FLA comes from the wheels in third_party/wheels, installed offline into
#   $FLA_SITE (default /tmp/fla-site); FLA_FLASH_QLA=0 keeps fla-core 0.6.0
#   on its own Triton kernels (it routes to FlashQLA when that is importable).
#   Writes DIR (default $OUT, else bench-out): results.csv, results.md and the
#   logs. Exit status 1 when a matrix case failed or a part did not finish.
#
# table: results.csv and results.md again from the logs in DIR (for example
#   after copying the logs of several device calls into one folder).
#
# Shapes are H:HV:BxT (B sequences of T tokens, K = V = 128, bf16); the
# default is SPEC.md's benchmark shapes that the Python entry and FLA take
# as B x T: 16:32:1x4096 16:32:1x16384 16:32:1x65536 16:32:8x4096
# 16:32:2x16384 2:8:1x32768 2:8:1x65536 16:64:4x8192.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
DEFAULT_SHAPES="16:32:1x4096 16:32:1x16384 16:32:1x65536 16:32:8x4096 16:32:2x16384 2:8:1x32768 2:8:1x65536 16:64:4x8192"
FLA_SITE=${FLA_SITE:-/tmp/fla-site}
WHEELS=third_party/wheels

# The comment at the top of this file.
usage() { awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit "${1:-2}"; }

mode=${1:-}
[ -n "$mode" ] || usage
shift
COMMAND="bench/bench.sh $mode${*:+ $*}"
out=
art=artifacts
parts=matrix,events,python
shapes=$DEFAULT_SHAPES
make_it=1
sanitize=1
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --artifacts) art=${2:?--artifacts needs a folder}; shift 2 ;;
    --parts) parts=${2:?--parts needs a list}; shift 2 ;;
    --shapes) shapes=${2:?--shapes needs a list}; shift 2 ;;
    --no-make) make_it=0; shift ;;
    --no-sanitize) sanitize=0; shift ;;
    -h|--help) usage 0 ;;
    *) echo "bench.sh: unknown option '$1'" >&2; usage ;;
  esac
done

# The K:V:dtype list of `make artifacts`, read from the Makefile.
artifact_shapes() {
  # shellcheck disable=SC2016 # $(ARTIFACT_SHAPES) is make's, not the shell's
  make -s --no-print-directory \
    --eval 'bench-print-shapes: ; @echo $(ARTIFACT_SHAPES)' bench-print-shapes
}

build() {
  local dir=${out:-artifacts} run=build/bin/gdn-run list k v d
  if [ "$make_it" = 1 ]; then
    make build runtime || { echo "bench.sh: make build runtime failed" >&2; return 1; }
  fi
  [ -x "$run" ] || { echo "bench.sh: no $run (run without --no-make)" >&2; return 1; }
  list=$(artifact_shapes) || { echo "bench.sh: cannot read ARTIFACT_SHAPES from the Makefile" >&2; return 1; }
  mkdir -p "$dir"
  for s in $list; do
    IFS=: read -r k v d <<< "$s"
    rm -rf "${dir:?}/k${k}_v${v}_$d"
    # --schedule auto spelled out: $GDN_SCHEDULE must not change the set.
    "$run" --emit artifact --schedule auto --head-dim-k "$k" --head-dim-v "$v" \
      --dtype "$d" --seqlens 1 -o "$dir/k${k}_v${v}_$d" || return 1
    echo "$dir/k${k}_v${v}_$d"
  done
  {
    echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$( [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && echo ' (with uncommitted changes)')"
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
    echo "command: $COMMAND"
    echo "artifacts: $run --emit artifact --schedule auto, K:V:dtype in $list"
  } > "$dir/BUILD-INFO.txt"
  if ! ls "$WHEELS"/fla_core-*.whl > /dev/null 2>&1; then
    echo "FLA's wheels: python3 -m pip download fla-core==0.6.0 einops packaging --no-deps -d $WHEELS"
    python3 -m pip download -q fla-core==0.6.0 einops packaging --no-deps -d "$WHEELS" ||
      echo "bench.sh: no FLA wheels (no network?); the device half then times ours alone" >&2
  fi
  echo
  echo "Carry to the GPU host, beside the source tree (sizes):"
  du -sh build-rt/bin build-rt/lib "$dir" "$WHEELS" 2>/dev/null
  echo "There: bench/bench.sh device --artifacts $dir"
}

# Installs FLA's wheels into $FLA_SITE; true when fla/ is importable from there.
fla_setup() {
  [ -f "$FLA_SITE/fla/__init__.py" ] && return 0
  ls "$WHEELS"/fla_core-*.whl > /dev/null 2>&1 || {
    echo "no FLA wheels in $WHEELS: timing ours alone" >&2; return 1; }
  if python3 -m pip --version > /dev/null 2>&1; then
    python3 -m pip install -q --disable-pip-version-check --no-warn-script-location \
      --upgrade --target "$FLA_SITE" --no-index --find-links "$WHEELS" \
      fla-core einops packaging || return 1
  else
    # No pip: the wheels are pure Python (py3-none-any), so unpacking installs.
    python3 - "$WHEELS" "$FLA_SITE" <<'EOF' || return 1
import glob, sys, zipfile
for w in sorted(glob.glob(sys.argv[1] + "/*.whl")):
    zipfile.ZipFile(w).extractall(sys.argv[2])
EOF
  fi
  [ -f "$FLA_SITE/fla/__init__.py" ]
}

# repeat N X: X,X,... (N times).
repeat() { local i s=$2; for ((i = 1; i < $1; i++)); do s+=",$2"; done; echo "$s"; }

# events H HV BxT: one pool and one paged gdn-run call, a TSV line each.
events() {
  local h=$1 hv=$2 shape=$3 b t lens prefixes call log ms sched
  b=${shape%x*}; t=${shape#*x}
  lens=$(repeat "$b" "$t")
  prefixes=$(repeat "$b" 1000)
  for call in pool paged; do
    local extra=(--interface "$call")
    [ "$call" = paged ] && extra+=(--page-size 256 --prefixes "$prefixes")
    log="$OUTDIR/events/$h-$hv-$shape-$call.log"
    timeout 120 "$RUN" --backend cuda --artifacts "$ART" --heads "$h" --value-heads "$hv" \
      --head-dim 128 --seqlens "$lens" --no-check --warmup 2 --repeat 10 "${extra[@]}" > "$log" 2>&1
    ms=$(grep -oE 'median [0-9.]+ ms' "$log" | head -1 | awk '{print $2}')
    sched=$(sed -n 's/^schedule: auto -> \([^(]*\) (.*/\1/p' "$log" | head -1 | sed 's/ *$//')
    [ -n "$sched" ] || sched=$(grep -oE 'schedule [^,;]*, [0-9]+ kernel launch' "$log" | head -1 | sed 's/^schedule //; s/, [0-9]* kernel launch$//')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$h" "$hv" "$shape" "$call" "${ms:-}" "$sched" >> "$OUTDIR/events.tsv"
    echo "events H=$h HV=$hv $shape $call: ${ms:-FAILED (see $log)} ms, $sched"
    [ -n "$ms" ] || status=1
  done
}

# The shapes grouped by H:HV, for one Python process per group.
groups() { tr ' ' '\n' <<< "$shapes" | grep -v '^$' | cut -d: -f1,2 | awk '!seen[$0]++'; }
shapes_of() { tr ' ' '\n' <<< "$shapes" | awk -F: -v g="$1" '$1 ":" $2 == g {print $3}'; }

device() {
  OUTDIR=${out:-${OUT:-bench-out}}
  RUN=build-rt/bin/gdn-run
  ART=$art
  status=0
  mkdir -p "$OUTDIR"
  [ -x "$RUN" ] || { echo "bench.sh: no $RUN (carry build-rt/bin from bench.sh build)" >&2; return 1; }
  [ -d "$ART" ] || { echo "bench.sh: no artifact folder $ART (carry it from bench.sh build)" >&2; return 1; }
  export FLA_FLASH_QLA=0
  {
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "command: $COMMAND"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    [ -f "$ART/BUILD-INFO.txt" ] && sed 's/^/build /' "$ART/BUILD-INFO.txt"
  } > "$OUTDIR/env.txt"
  cat "$OUTDIR/env.txt"
  local have_fla=0
  case ",$parts," in *,python,*|*,fla,*) fla_setup > "$OUTDIR/fla-install.log" 2>&1 && have_fla=1 ;; esac
  case ",$parts," in *,matrix,*)
    echo "== matrix (bench/gpu-matrix.sh)"
    local san="memcheck racecheck"; [ "$sanitize" = 1 ] || san=
    SANITIZE=$san timeout 400 bench/gpu-matrix.sh "$RUN" "$ART" "$OUTDIR/matrix" > "$OUTDIR/matrix.txt" 2>&1 || status=1
    grep -E '^compute-sanitizer|^failed cases' "$OUTDIR/matrix.txt"
    grep -qE '^failed cases' "$OUTDIR/matrix.txt" || echo "the matrix did not finish (see $OUTDIR/matrix.txt)"
    ;;
  esac
  case ",$parts," in *,events,*)
    echo "== events (gdn-run, CUDA events)"
    mkdir -p "$OUTDIR/events"
    printf 'heads\tvalue_heads\tshape\tcall\tmedian_ms\tschedule\n' > "$OUTDIR/events.tsv"
    for s in $shapes; do
      IFS=: read -r h hv shape <<< "$s"
      events "$h" "$hv" "$shape"
    done
    ;;
  esac
  case ",$parts," in *,python,*)
    local g h hv args
    for g in $(groups); do
      h=${g%:*}; hv=${g#*:}
      args=()
      for s in $(shapes_of "$g"); do args+=(--shape "$s"); done
      echo "== python H=$h HV=$hv (bench/bench_python.py, graph replay)"
      GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/$ART PYTHONUNBUFFERED=1 \
        timeout 500 python3 bench/bench_python.py --fla-path "$FLA_SITE" \
        --heads "$h" --value-heads "$hv" "${args[@]}" > "$OUTDIR/python-$h-$hv.log" 2>&1 || status=1
      grep -v '^#' "$OUTDIR/python-$h-$hv.log"
    done
    ;;
  esac
  case ",$parts," in *,fla,*)
    if [ "$have_fla" = 1 ]; then
      local g h hv args
      for g in $(groups); do
        h=${g%:*}; hv=${g#*:}
        args=()
        for s in $(shapes_of "$g"); do args+=(--shape "$s"); done
        echo "== fla H=$h HV=$hv (bench/bench_fla.py)"
        PYTHONUNBUFFERED=1 timeout 420 python3 bench/bench_fla.py --fla-path "$FLA_SITE" --plain \
          --heads "$h" --value-heads "$hv" "${args[@]}" > "$OUTDIR/fla-$h-$hv.log" 2>&1 || status=1
        grep -v '^#' "$OUTDIR/fla-$h-$hv.log"
      done
    else
      echo "bench.sh: part fla skipped: FLA is not installed (see $OUTDIR/fla-install.log)"
      status=1
    fi
    ;;
  esac
  table || status=1
  return $status
}

table() {
  OUTDIR=${OUTDIR:-${out:-${OUT:-bench-out}}}
  python3 bench/bench_table.py --out "$OUTDIR" --artifacts "${ART:-$art}" --shapes "$shapes" &&
    cat "$OUTDIR/results.md"
}

case $mode in
  build) build ;;
  device) device ;;
  table) table ;;
  -h|--help|help) usage 0 ;;
  *) echo "bench.sh: unknown mode '$mode' (build, device or table)" >&2; usage ;;
esac
