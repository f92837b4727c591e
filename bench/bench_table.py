#!/usr/bin/env python3
"""results.csv and results.md from the logs bench/bench.sh device writes.

  python3 bench/bench_table.py --out DIR [--artifacts DIR] [--shapes LIST]

Reads DIR/env.txt, DIR/matrix.txt, DIR/events.tsv, DIR/python-*.log and
DIR/fla-*.log (whichever are there) and writes DIR/results.csv (one row per
measurement) and DIR/results.md (the matrix's verdict and one table row per
shape). Auto's picks are named by the artifact set's auto.json. Standard
library only.
"""

import argparse
import csv
import glob
import json
import os
import re

LINE = re.compile(r"^(\S+) (\d+x\d+) H=(\d+) HV=(\d+) D=(\d+): ([\d.]+) ms")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def candidate_names(artifacts):
    names = {}
    for index in glob.glob(os.path.join(artifacts, "*", "auto.json")):
        try:
            with open(index) as f:
                for name, text in json.load(f).get("candidates", {}).items():
                    names[text.strip()] = name
        except (OSError, ValueError):
            pass
    return names


def versus(ours, fla):
    if ours is None or fla is None:
        return ""
    if ours <= fla:
        return f"**{fla / ours:.2f}x faster**"
    return f"{ours / fla:.2f}x slower"


def ms(x):
    return "" if x is None else f"{x:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--artifacts", default="artifacts")
    ap.add_argument("--shapes", default="")
    args = ap.parse_args()
    out = args.out
    names = candidate_names(args.artifacts)

    rows = []  # source, heads, value_heads, shape, call, ms, schedule
    events_path = os.path.join(out, "events.tsv")
    if os.path.exists(events_path):
        with open(events_path) as f:
            for r in csv.DictReader(f, delimiter="\t"):
                sched = r.get("schedule") or ""
                rows.append(("gdn-run events", r["heads"], r["value_heads"], r["shape"],
                             "pool" if r["call"] == "pool" else "paged, page 256, prefix 1000",
                             r["median_ms"], names.get(sched.strip(), sched)))
    for log, source in ([(p, "python graph replay") for p in sorted(glob.glob(os.path.join(out, "python-*.log")))] +
                        [(p, "bench_fla") for p in sorted(glob.glob(os.path.join(out, "fla-*.log")))]):
        for line in read(log).splitlines():
            m = LINE.match(line)
            if not m:
                continue
            call = {"fla": "fla", "fla-plain": "fla plain launches", "gdn-pool": "pool",
                    "gdn-paged": "paged, one page a sequence"}.get(m.group(1), m.group(1))
            if source == "bench_fla":
                call = "bench_fla " + call
            rows.append((source, m.group(3), m.group(4), m.group(2), call, m.group(6), ""))

    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["source", "heads", "value_heads", "shape", "call", "ms", "schedule"])
        w.writerows(rows)

    # One table row per shape, in the order asked (else as measured).
    order = []
    for s in args.shapes.split():
        h, hv, shape = s.split(":")
        order.append((h, hv, shape))
    for r in rows:
        if (r[1], r[2], r[3]) not in order:
            order.append((r[1], r[2], r[3]))
    cell = {}
    for source, h, hv, shape, call, value, sched in rows:
        try:
            cell[(h, hv, shape, source, call)] = float(value)
        except ValueError:
            pass
        if source == "gdn-run events" and call == "pool" and sched:
            cell[(h, hv, shape, "pick")] = sched

    lines = ["# Bench results", ""]
    env = read(os.path.join(out, "env.txt")).strip()
    lines += [f"- {e}" for e in env.splitlines()] + [""]
    matrix = read(os.path.join(out, "matrix.txt"))
    if matrix:
        passed = len(re.findall(r"^\S+: PASS$", matrix, re.M))
        failed = re.search(r"^failed cases: (\d+)", matrix, re.M)
        verdict = (f"{passed}/{passed + int(failed.group(1))} cases passed" if failed
                   else f"did not finish ({passed} cases passed)")
        lines.append(f"GPU matrix (`bench/gpu-matrix.sh`, float64 reference, tolerance 5e-3): {verdict}.")
        for m in re.finditer(r"^compute-sanitizer (\w+): rc (\d+) \((.*)\)$", matrix, re.M):
            summary = re.sub(r"\s*=+\s*", " ", m.group(3)).strip()
            lines.append(f"compute-sanitizer {m.group(1)}: rc {m.group(2)} ({summary}).")
        lines.append("")
    lines += [
        "Median ms. FLA: fla-core's own Triton kernels (`FLA_FLASH_QLA=0`), CUDA-graph "
        "replay in the same process as ours (`bench/bench_python.py`); pool / paged: our "
        "Python entry, graph replay (the paged call has one page a sequence, no prefix); "
        "events: `gdn-run` CUDA events, the paged call with page 256 and a 1000-token "
        "prefix a sequence. K = V = 128, bf16.",
        "",
        "| H / HV | shape | auto picks | FLA | pool | vs FLA | paged | vs FLA | "
        "pool (events) | paged, prefix 1000 (events) | paged / pool (events) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    py = "python graph replay"
    ev = "gdn-run events"
    for h, hv, shape in order:
        fla = cell.get((h, hv, shape, py, "fla"))
        pool = cell.get((h, hv, shape, py, "pool"))
        paged = cell.get((h, hv, shape, py, "paged, one page a sequence"))
        epool = cell.get((h, hv, shape, ev, "pool"))
        epaged = cell.get((h, hv, shape, ev, "paged, page 256, prefix 1000"))
        bound = f"{epaged / epool:.3f}" if epool and epaged else ""
        pick = cell.get((h, hv, shape, "pick"), "")
        if all(x is None for x in (fla, pool, paged, epool, epaged)):
            continue
        lines.append(f"| {h} / {hv} | {shape.replace('x', ' x ')} | {f'`{pick}`' if pick else ''} | "
                     f"{ms(fla)} | {ms(pool)} | {versus(pool, fla)} | {ms(paged)} | "
                     f"{versus(paged, fla)} | {ms(epool)} | {ms(epaged)} | {bound} |")
    lines.append("")
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
