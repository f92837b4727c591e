#!/usr/bin/env bash
# Timings of ours (gdn-run, cuda backend, artifacts) under every schedule in
# ARTIFACTS/<schedule>/ and FLA's Triton kernel on SPEC.md's benchmark
# shapes, in one run on the same GPU, then a table of the ratios.
#   bench/bench-shapes.sh [GDN_RUN] [ARTIFACTS] [FLA]
# FLA is either a directory of wheels (default third_party/wheels, made with
#   pip download fla-core==0.6.0 einops packaging --no-deps -d third_party/wheels
# on a machine with network), which are installed offline into $FLA_SITE
# (default /tmp/fla-site) with
#   python3 -m pip install --target $FLA_SITE --no-index --find-links FLA \
#     fla-core einops packaging
# or a directory that already holds an installed fla/ package. FLA is timed by
# CUDA-graph replay (bench/bench_fla.py); FLA_PLAIN=1 also times its plain
# launches.
set -uo pipefail
RUN=${1:-build-rt/bin/gdn-run}
ART=${2:-artifacts}
FLA=${3:-third_party/wheels}
FLA_SITE=${FLA_SITE:-/tmp/fla-site}
LOG=$(mktemp /tmp/bench-shapes.XXXXXX)
ours() {
  local label=$1; shift
  local line
  line=$(timeout 300 "$RUN" --backend cuda --artifacts "$ARTDIR" --no-check \
           --warmup 1 --repeat 3 "$@" 2>&1 | grep -E "^time:|error")
  echo "ours $SCHED $label: $line"
}
lens() { python3 -c "print(','.join(['$2']*$1))"; }
# Sets FLA_PATH to a directory holding fla/, installing the wheels if needed.
fla_setup() {
  if [ -d "$FLA/fla" ]; then FLA_PATH=$FLA; return 0; fi
  ls "$FLA"/fla_core-*.whl >/dev/null 2>&1 || {
    echo "no FLA: neither $FLA/fla nor $FLA/fla_core-*.whl" >&2; return 1; }
  FLA_PATH=$FLA_SITE
  if python3 -m pip --version >/dev/null 2>&1; then
    python3 -m pip install -q --disable-pip-version-check --no-warn-script-location \
      --upgrade --target "$FLA_SITE" --no-index --find-links "$FLA" \
      fla-core einops packaging >&2 || return 1
  else
    # No pip: the wheels are pure Python (py3-none-any), so unpacking is an install.
    python3 - "$FLA" "$FLA_SITE" <<'EOF' >&2 || return 1
import glob, sys, zipfile
for w in sorted(glob.glob(sys.argv[1] + "/*.whl")):
    zipfile.ZipFile(w).extractall(sys.argv[2])
    print("unpacked", w)
EOF
  fi
  [ -f "$FLA_SITE/fla/__init__.py" ]
}
main() {
  for ARTDIR in "$ART"/*/; do
    ARTDIR=${ARTDIR%/}
    SCHED=$(basename "$ARTDIR")
    case " ${BENCH_SKIP:-split-seq-2} " in *" $SCHED "*) continue ;; esac
    ours "1x4096" --seqlens 4096
    ours "1x16384" --seqlens 16384
    ours "1x65536" --seqlens 65536
    ours "8x4096" --seqlens "$(lens 8 4096)"
    ours "16384+16384" --seqlens 16384,16384
    ours "H2-HV8-1x65536" --heads 2 --value-heads 8 --seqlens 65536
    ours "paged-256-prefix1000-1x16384" --seqlens 16384 --prefixes 1000 --page-size 256
  done
  if fla_setup; then
    local plain=()
    [ "${FLA_PLAIN:-0}" = 1 ] && plain=(--plain)
    PYTHONUNBUFFERED=1 timeout 420 python3 bench/bench_fla.py --fla-path "$FLA_PATH" \
      ${plain[@]+"${plain[@]}"} \
      --shape 1x4096 --shape 1x16384 --shape 1x65536 --shape 8x4096 --shape 2x16384
    PYTHONUNBUFFERED=1 timeout 180 python3 bench/bench_fla.py --fla-path "$FLA_PATH" \
      ${plain[@]+"${plain[@]}"} --heads 2 --value-heads 8 --shape 1x65536
  fi
}
main 2>&1 | tee "$LOG"
# Ratio table: the best schedule of ours (median ms) against FLA (graph replay).
python3 - "$LOG" <<'EOF'
import re, sys
ours, fla, plain = {}, {}, {}
def key_of_ours(label):
    m = re.fullmatch(r"(?:H(\d+)-HV(\d+)-)?(\d+x\d+|\d+(?:\+\d+)+)", label)
    if not m:
        return None
    shape = m.group(3)
    if "+" in shape:
        lens = shape.split("+")
        if len(set(lens)) != 1:
            return None
        shape = f"{len(lens)}x{lens[0]}"
    return (shape, int(m.group(1) or 16), int(m.group(2) or 32), 128)
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"ours (\S+) (\S+): time: .*?median ([\d.]+) ms", line)
    if m:
        sched, label, ms = m.group(1), m.group(2), float(m.group(3))
        if label not in ours:
            rows.append(label)
        if label not in ours or ms < ours[label][0]:
            ours[label] = (ms, sched)
        continue
    m = re.match(r"(fla|fla-plain) (\d+x\d+) H=(\d+) HV=(\d+) D=(\d+): ([\d.]+) ms", line)
    if m:
        k = (m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)))
        (fla if m.group(1) == "fla" else plain)[k] = float(m.group(6))
if not ours and not fla:
    sys.exit(0)
print()
print("ours (best schedule, median of gdn-run's CUDA-event timings) vs FLA "
      "(fla-core, CUDA-graph replay); ours/FLA < 1: ours faster")
print()
print("| shape | ours ms | schedule | FLA ms | ours / FLA |" + (" FLA plain ms |" if plain else ""))
print("|---|---|---|---|---|" + ("---|" if plain else ""))
for label in rows:
    ms, sched = ours[label]
    k = key_of_ours(label)
    f = fla.get(k) if k else None
    p = plain.get(k) if k else None
    cells = [label, f"{ms:.3f}", sched, f"{f:.3f}" if f else "-",
             f"{ms / f:.2f}" if f else "-"]
    if plain:
        cells.append(f"{p:.3f}" if p else "-")
    print("| " + " | ".join(cells) + " |")
for k, f in fla.items():
    if not any(key_of_ours(l) == k for l in rows):
        print(f"| fla only: {k[0]} H={k[1]} HV={k[2]} D={k[3]} | - | - | {f:.3f} | - |"
              + (" - |" if plain else ""))
EOF
rm -f "$LOG"
