# Helpers the device scripts of bench/runs source (from the repository
# root, with $OUT set by the device tool). Before the fourteenth session
# each script carried its own copy of these.
L=$OUT/log; mkdir -p "$L"
RUN=build-rt/bin/gdn-run; A=artifacts-tiles

# FLA from the wheels in third_party/wheels into /tmp/fla-site, in the
# background (call `wait` before the Python benchmark).
fla_install() {
  python3 -m pip install -q --target /tmp/fla-site --no-index \
    --find-links third_party/wheels fla-core einops packaging > "$L/pip.log" 2>&1 &
}

# matrix NAME DIR [SECONDS]: the 30-case GPU matrix on artifact set DIR under
# memcheck and racecheck; prints rc, failures, the largest o error and which
# paged entries ran.
matrix() {
  local t0; t0=$(date +%s)
  SANITIZE="memcheck racecheck" timeout "${3:-150}" bench/gpu-matrix.sh $RUN "$2" "$L/m-$1" > "$L/matrix-$1.txt" 2>&1
  echo "== matrix $1 rc $? in $(( $(date +%s) - t0 )) s"
  grep -E "compute-sanitizer|failed cases|ERROR|FAIL" "$L/matrix-$1.txt" | tail -5
  echo -n "largest o error: "; grep -E "^\|" "$L/matrix-$1.txt" | awk -F'|' 'NR>2{print $3}' | sort -g | tail -1
  grep -h "entry gdn_paged" "$L/m-$1"/*.log 2>/dev/null | grep -oE "entry gdn_paged(_s[0-9])?" | sort | uniq -c | tr '\n' ' '; echo
}

# ev LABEL DIR: CUDA-event median of one gdn-run call with the options in $P.
ev() {
  echo -n "$1: "
  timeout 30 $RUN --backend cuda --artifacts "$2" $P --warmup 2 --repeat 10 2>&1 \
    | grep -oE "median [0-9.]+ ms|[0-9] kernel launch|error.*" | tr '\n' ' '; echo
}

# shape_opts "pool|paged H HV T[,T...]": sets $P for ev.
shape_opts() {
  local i h hv t; read -r i h hv t <<< "$1"
  P="--heads $h --value-heads $hv --head-dim 128 --no-check --interface $i --seqlens $t"
  # One prefix per sequence (run_v11b.sh ran before this loop: its
  # two-sequence paged rows stopped at gdn-run's count check).
  if [ "$i" = paged ]; then
    local n; n=$(tr ',' '\n' <<< "$t" | wc -l)
    P="$P --prefixes$(printf " ${PREFIX:-1000}%.0s" $(seq "$n"))"
  fi
}

# bench_python SET [shapes...]: the Python entry beside FLA (graph-timed);
# $BP_OPTS adds options (e.g. --heads 2 --value-heads 8) and $BP_TAG names
# the log.
bench_python() {
  local set=$1; shift
  local args=(); for s in "$@"; do args+=(--shape "$s"); done
  GDN_LIBRARY=$PWD/build-rt/lib/libgdn.so GDN_ARTIFACTS=$PWD/$A/$set timeout 200 \
    python3 bench/bench_python.py --fla-path /tmp/fla-site ${BP_OPTS:-} "${args[@]}" > "$L/bench-$set${BP_TAG:-}.txt" 2>&1
  echo "== bench $set ${BP_OPTS:-} rc $?"; grep -v "^#" "$L/bench-$set${BP_TAG:-}.txt"
}

# durations LABEL DIR: ncu's duration of every kernel of one gdn-run call
# with the options in $P (two launches: warm-up and the timed one).
durations() {
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
    $RUN --backend cuda --artifacts $2 $P --warmup 0 --repeat 1 > "$L/ncu-$1.csv" 2> "$L/ncu-$1.err"
  echo "== ncu $1 rc $?"
  grep gpu__time_duration "$L/ncu-$1.csv" | awk -F'","' '{printf "  %s %s\n", $5, $NF}' | tr -d '"'
}
