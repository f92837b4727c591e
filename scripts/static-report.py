#!/usr/bin/env python3
"""The GPU back end's static report: no GPU needed.

For every kernel file in KERNELS_DIR, every built-in schedule (and the
V-split `fused v-block=64` that --schedule auto may pick) and each GPU
operand precision of the register-tile back end (tiles: bf16 operands,
as benchmarked; tiles-tf32), compiles
the kernels for sm_90a at the benchmark shape (K = V = 128, bf16), assembles
them with ptxas and disassembles the cubin with cuobjdump. For each GPU
kernel it records:

  registers, spill bytes (stores + loads), stack frame, shared memory
    (dynamic, from the artifact manifest) -- from ptxas -v and the manifest;
  ptxas's wgmma notes: C7514 (every wgmma serialised) and C7519 (warpgroup
    arrives injected), counted per kernel;
  SASS instruction counts: HGMMA, HMMA, BAR, LDG, STG, LDS, STS, STSM, LDL,
    STL; the asynchronous machinery: UTMALDG / UTMASTG (TMA loads and
    stores), SYNCS (mbarrier operations), USETMAXREG (register moves between
    warpgroups); and `instructions`, the kernel's SASS instructions in all.

Each row is compared with BOUNDS (JSON, committed): `max` bounds fail when
exceeded, `min` bounds when undershot, so a regression of the lowering (more
barriers, more global traffic, spills, tensor-core instructions lost) fails
`make check`. A kernel missing from BOUNDS fails too. After an improvement,
`--update` rewrites BOUNDS from the current counts (review the diff).

    scripts/static-report.py --gdn-run B/bin/gdn-run --ptxas PTXAS \
        --cuobjdump CUOBJDUMP --kernels kernels --bounds test/GPU/static-bounds.json \
        [--report OUT.txt] [--update]

Counts are static (instructions in the code, not executed instructions).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# "fused v-block=64", split-seq with replay=load and with first-segment=run
# (without the next-chunk prefetch, as auto builds it) are what --schedule
# auto may pick beside the built-in names; "fused v-block=64 stages=2" loads
# its token tiles by TMA. The first-segment=run schedule again with
# prepare=separate: its kernels hold no WY solve beside a map or the state,
# and spill nothing (bounds 0). staged prepare-per=head under a V-split.
SCHEDULES = ["fused", "staged", "staged-bf16", "split-seq", "fused v-block=64",
             "split-seq replay=load intermediates=bf16",
             "split-seq segment-chunks=14 replay=load intermediates=bf16 "
             "first-segment=run first-segment-chunks=13 prefetch=none",
             "split-seq segment-chunks=14 replay=load intermediates=bf16 "
             "prepare=separate first-segment=run first-segment-chunks=13 "
             "prefetch=none",
             # The TMA load ring (two slots fit beside the V-split's
             # shared memory in every entry): its UTMALDG / SYNCS must stay.
             "fused v-block=64 stages=2",
             # One WY solve per value head for a V-split's programs.
             "staged intermediates=bf16 output=with-state store=solve "
             "prepare-per=head v-block=64"]
# The back end with its default operands (bf16, what the benchmarks run),
# and with tf32 operands.
BACKENDS = ["tiles", "tiles-tf32"]
SHAPE = {"K": 128, "V": 128, "dtype": "bf16"}
OPCODES = ["HGMMA", "HMMA", "BAR", "LDG", "STG", "LDS", "STS", "STSM", "LDL", "STL",
           "UTMALDG", "UTMASTG", "SYNCS", "USETMAXREG"]
# Bounds written by --update: counts that must not grow, counts that must
# not shrink (tensor-core instructions, TMA loads and mbarrier operations).
# ptxas's notes per function: wgmma serialised (C7514: a non-wgmma
# instruction reads an accumulator before its wait) and warpgroup arrives it
# had to add (C7519: an accumulator written after the wgmma fence).
PTXAS_NOTES = {"C7514": "wgmma_serialized", "C7519": "arrives_injected"}
GROW_BOUNDED = ["registers", "spill_bytes", "stack_bytes", "shared_bytes",
                "wgmma_serialized", "arrives_injected", "BAR", "LDG", "STG", "LDS", "STS", "STSM", "LDL", "STL", "HMMA",
                "instructions"]
SHRINK_BOUNDED = ["HGMMA", "UTMALDG", "SYNCS"]
COLUMNS = (["registers", "spill_bytes", "stack_bytes", "shared_bytes"]
           + list(PTXAS_NOTES.values()) + OPCODES + ["instructions"])


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit(f"static-report: `{' '.join(cmd)}` failed:\n{r.stdout}")
    return r.stdout


def ptxas_info(log):
    """ptxas -v output -> {function: {registers, spill_bytes, stack_bytes}}."""
    funcs, fn = {}, None
    notes = {}
    for line in log.splitlines():
        m = re.search(r"\((C75\d\d)\).* function '([^']+)'", line)
        if m and m.group(1) in PTXAS_NOTES:
            key = (m.group(2), PTXAS_NOTES[m.group(1)])
            notes[key] = notes.get(key, 0) + 1
            continue
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            fn = m.group(1)
            funcs[fn] = {"registers": 0, "spill_bytes": 0, "stack_bytes": 0}
            funcs[fn].update({col: 0 for col in PTXAS_NOTES.values()})
            continue
        if fn is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            funcs[fn]["stack_bytes"] = int(m.group(1))
            funcs[fn]["spill_bytes"] = int(m.group(2)) + int(m.group(3))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            funcs[fn]["registers"] = int(m.group(1))
    for (name, col), count in notes.items():
        if name in funcs:
            funcs[name][col] = count
    return funcs


def sass_counts(sass):
    """cuobjdump -sass output -> {function: {opcode: count}}."""
    counts, fn = {}, None
    for line in sass.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            fn = m.group(1)
            counts[fn] = {op: 0 for op in OPCODES + ["instructions"]}
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9]*)", line)
        if fn and m:
            counts[fn]["instructions"] += 1
            if m.group(1) in counts[fn]:
                counts[fn][m.group(1)] += 1
    return counts


def measure(args, kernel_file, schedule, backend, tmp):
    art = os.path.join(tmp, f"{os.path.basename(kernel_file)}-{schedule}-{backend}")
    run([args.gdn_run, "--kernel", kernel_file, "--emit", "artifact", "-o", art,
         "--head-dim-k", str(SHAPE["K"]), "--head-dim-v", str(SHAPE["V"]),
         "--dtype", SHAPE["dtype"], "--seqlens", "1", "--schedule", schedule]
        + (["--mma", backend.split("-")[1]] if "-" in backend else []))
    rows = {}
    for root, _, files in os.walk(art):
        manifest = {}
        if "manifest.json" in files:
            with open(os.path.join(root, "manifest.json")) as f:
                manifest = json.load(f).get("kernels", {})
        for ptx in sorted(p for p in files if p.endswith(".ptx")):
            cubin = os.path.join(tmp, "kernel.cubin")
            info = ptxas_info(run([args.ptxas, "-arch=sm_90a", "-v",
                                   os.path.join(root, ptx), "-o", cubin]))
            sass = sass_counts(run([args.cuobjdump, "-sass", cubin]))
            for fn, row in info.items():
                row.update(sass.get(fn, {op: 0 for op in OPCODES + ["instructions"]}))
                row["shared_bytes"] = manifest.get(fn, {}).get("shared_bytes_per_block", 0)
                rows[fn] = row
    if not rows:
        sys.exit(f"static-report: no PTX in the artifact of {kernel_file} under {schedule}")
    return rows


def check(key, row, bounds):
    b = bounds.get(key)
    if b is None:
        return [f"{key}: no bounds (run with --update and commit the bounds)"]
    errors = []
    for col, limit in b.get("max", {}).items():
        if row.get(col, 0) > limit:
            errors.append(f"{key}: {col} = {row.get(col, 0)} > bound {limit}")
    for col, limit in b.get("min", {}).items():
        if row.get(col, 0) < limit:
            errors.append(f"{key}: {col} = {row.get(col, 0)} < bound {limit}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gdn-run", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--cuobjdump", required=True)
    ap.add_argument("--kernels", required=True, help="directory of kernel .mlir files")
    ap.add_argument("--bounds", required=True, help="committed bounds (JSON)")
    ap.add_argument("--report", help="also write the table here")
    ap.add_argument("--schedules", default=",".join(SCHEDULES),
                    help="comma-separated schedules (default: every built-in one)")
    ap.add_argument("--backends", default=",".join(BACKENDS),
                    help="comma-separated back end variants (default: tiles,tiles-tf32)")
    ap.add_argument("--update", action="store_true",
                    help="rewrite BOUNDS from the current counts instead of checking")
    args = ap.parse_args()
    nvdisasm = os.path.join(os.path.dirname(args.cuobjdump), "nvdisasm")
    if not (os.access(args.cuobjdump, os.X_OK) and os.access(nvdisasm, os.X_OK)):
        sys.exit(f"static-report: no cuobjdump / nvdisasm in {os.path.dirname(args.cuobjdump)}; "
                 "`make cutools` installs them from PyPI (nvidia-cuda-cuobjdump, "
                 "nvidia-cuda-nvdisasm)")
    # cuobjdump runs nvdisasm, found through PATH.
    os.environ["PATH"] = os.path.dirname(args.cuobjdump) + os.pathsep + os.environ.get("PATH", "")

    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kernel_file in sorted(os.listdir(args.kernels)):
            if not kernel_file.endswith(".mlir"):
                continue
            for schedule in args.schedules.split(","):
                for backend in args.backends.split(","):
                    got = measure(args, os.path.join(args.kernels, kernel_file),
                                  schedule, backend, tmp)
                    label = f"{schedule}/{backend}"
                    for fn, row in got.items():
                        rows[f"{kernel_file[:-5]} {label} {fn}"] = row

    width = {c: max(12, len(c)) for c in COLUMNS}
    header = f"{'kernel schedule[/back end] function':<52}" + "".join(
        f" {c:>{width[c]}}" for c in COLUMNS)
    lines = [f"SASS / ptxas report, sm_90a, K=V={SHAPE['K']} {SHAPE['dtype']} "
             "(static instruction counts)", header]
    lines += [f"{k:<52}" + "".join(
        f" {r.get(c, 0):>{width[c]}}" for c in COLUMNS)
              for k, r in sorted(rows.items())]

    if args.update:
        bounds = {"_comment": "Written by scripts/static-report.py --update; "
                              "max: must not grow, min: must not shrink.",
                  "kernels": {k: {"max": {c: r[c] for c in GROW_BOUNDED},
                                  "min": {c: r[c] for c in SHRINK_BOUNDED}}
                              for k, r in sorted(rows.items())}}
        with open(args.bounds, "w") as f:
            json.dump(bounds, f, indent=1, sort_keys=False)
            f.write("\n")
        lines.append(f"bounds rewritten: {args.bounds}")
        errors = []
    else:
        with open(args.bounds) as f:
            bounds = json.load(f)["kernels"]
        errors = [e for k, r in sorted(rows.items()) for e in check(k, r, bounds)]
        stale = sorted(set(bounds) - set(rows))
        errors += [f"{k}: in the bounds but no longer compiled (run --update)" for k in stale]
        lines += [f"FAIL {e}" for e in errors] or ["all kernels within bounds"]

    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
