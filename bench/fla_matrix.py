"""FLA's forward test matrix on the GPU: ours beside FLA's own kernels.

Runs the cases of python/tests/test_fla_matrix.py (FLA's recipe and pass
rule for chunk_gated_delta_rule, written from their description) on CUDA
tensors through our paged call, in fp16 and in bf16, and, where FLA is
importable, FLA's chunk_gated_delta_rule on the same inputs (FLA_FLASH_QLA=0:
its own Triton kernels). Each case is checked against the float64
recurrence: rms(ref - out) / rms(ref) < 0.005 for the output and for the
final state (ours: every state page written; pages not written must be
unchanged). Prints one line per failing case and a summary: passes and
median errors per implementation and dtype.

    GDN_ARTIFACTS=artifacts python3 bench/fla_matrix.py [--fla-path DIR]
"""

import argparse
import itertools
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests"))

os.environ.setdefault("FLA_FLASH_QLA", "0")

import reference as R  # noqa: E402
from test_fla_matrix import PAGE, TOL, fla_inputs, paged_tables  # noqa: E402


def cases():
    """(name, seqlens, prefixes, D, scale, normalizer, mask_p, beta_sigmoid)"""
    for T, D, scale, normalizer, mask_p in itertools.product(
            [1, 15, 63, 300], [32, 64, 100, 128, 256], [1, 0.1], [1, 0.1, 10],
            [0, 0.5]):
        yield ("chunk", [T, T], [0, PAGE], D, scale, normalizer, mask_p, False)
    yield ("varlen", [122, 107, 171, 600], [PAGE] * 4, 128, 128 ** -0.5, 1, 0,
           True)


def run_ours(torch, gdn_kernel, q, k, v, g, beta, scale, tables):
    dev = q.device
    t = {n: torch.from_numpy(np.ascontiguousarray(x)).to(dev)
         for n, x in tables.items() if n != "page_size"}
    output = torch.full(v.shape, float("nan"), dtype=q.dtype, device=dev)
    gdn_kernel.chunk_gated_delta_rule_paged(
        q, k, v, g, beta, scale, output=output, gate_domain="log",
        use_qk_l2norm_in_kernel=False, page_size=tables["page_size"],
        cu_seqlens=t["cu_seqlens"], state_pool=t["state_pool"],
        page_indices=t["page_indices"], page_indptr=t["page_indptr"],
        last_page_len=t["last_page_len"])
    if dev.type == "cuda":
        torch.cuda.synchronize()
    return output.float().cpu().numpy(), t["state_pool"].cpu().numpy()


def run_fla(torch, fla_fn, q, k, v, g, beta, scale, tables, before):
    """FLA on the same tokens: [1, T, H, *] with cu_seqlens, initial states
    [N, H, K, V] (FLA's orientation: our pages transposed)."""
    cu = tables["cu_seqlens"]
    pages, indptr = tables["page_indices"], tables["page_indptr"]
    last = tables["last_page_len"]
    h0 = []
    for s in range(len(cu) - 1):
        own = pages[indptr[s]:indptr[s + 1]]
        total = (len(own) - 1) * PAGE + int(last[s])
        prefix = total - int(cu[s + 1] - cu[s])
        M = (before[own[(prefix - 1) // PAGE]] if prefix > 0
             else np.zeros(before.shape[1:], np.float32))
        h0.append(np.swapaxes(M, -1, -2))
    h0 = torch.from_numpy(np.stack(h0)).cuda()
    o, ht = fla_fn(q[None], k[None], v[None], g[None], beta[None], scale=scale,
                   initial_state=h0, output_final_state=True,
                   cu_seqlens=torch.from_numpy(cu).cuda())
    torch.cuda.synchronize()
    return o[0].float().cpu().numpy(), np.swapaxes(ht.float().cpu().numpy(), -1, -2)


def prepare(torch, rng, dname, case, device):
    """The case's inputs in `dname` on the device, its page table and pool,
    and the float64 reference on the inputs as rounded to the dtype."""
    name, seqlens, prefixes, D, scale, normalizer, mask_p, bs = case
    q, k, v, g, beta = fla_inputs(rng, seqlens, 2, D, D, normalizer, mask_p,
                                  bs, dtype=np.float32)
    tables = paged_tables(rng, seqlens, prefixes, 2, D, D)
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[dname]
    tq, tk, tv = (torch.from_numpy(x).to(device, dtype) for x in (q, k, v))
    tg, tb = (torch.from_numpy(x).to(device) for x in (g, beta))
    rq, rk, rv = (x.float().cpu().numpy() for x in (tq, tk, tv))
    ref = R.paged_reference(
        rq, rk, rv, g, beta, scale, tables["cu_seqlens"],
        tables["state_pool"], tables["page_indices"], tables["page_indptr"],
        PAGE, tables["last_page_len"], l2norm=False, gate_domain="log",
        beta_is_logit=False)
    what = "%s %s T=%s D=%d scale=%g norm=%g mask_p=%g" % (
        dname, name, seqlens[0] if name == "chunk" else "varlen", D, scale,
        normalizer, mask_p)
    return dict(what=what, dname=dname, scale=scale, inputs=(tq, tk, tv, tg, tb),
                tables=tables, before=tables["state_pool"].copy(), ref=ref,
                finals=[int(tables["page_indices"][tables["page_indptr"][s + 1] - 1])
                        for s in range(len(seqlens))])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fla-path", help="directory holding the fla package")
    ap.add_argument("--dtypes", default="f16,bf16")
    ap.add_argument("--device", default="cuda",
                    help="cuda, or cpu (ours only, on host tensors)")
    ap.add_argument("--fla-seconds", type=float, default=240,
                    help="stop running FLA after this long (its Triton "
                         "kernels autotune per shape) and compare on the "
                         "cases it ran")
    args = ap.parse_args()
    import time
    import torch
    import gdn
    fla_fn = None
    if args.fla_path and args.device == "cuda":
        sys.path.insert(0, args.fla_path)
        try:
            from fla.ops.gated_delta_rule import chunk_gated_delta_rule as fla_fn
        except ImportError as e:
            print("# FLA not importable (%s): ours only" % e)
    kernel = gdn.compile(schedule="auto")
    rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
    t0 = time.time()
    # Dtypes interleaved, so that a cut FLA run still covers both.
    prepared = [prepare(torch, rng, d, c, args.device) for c in cases()
                for d in args.dtypes.split(",")]
    print("# %d cases and their float64 references in %.0f s" % (
        len(prepared), time.time() - t0), flush=True)
    results = {}
    t0 = time.time()
    for c in prepared:
        ref_o, ref_pool, written = c["ref"]
        o, pool = run_ours(torch, kernel, *c["inputs"], c["scale"], c["tables"])
        o_err = R.rel_l2(o, ref_o) if np.isfinite(o).all() else np.inf
        s_err = max(R.rel_l2(pool[p], ref_pool[p]) for p in written)
        untouched = all(pool[p].tobytes() == c["before"][p].tobytes()
                        for p in range(pool.shape[0]) if p not in written)
        ok = o_err < TOL and s_err < TOL and untouched
        results.setdefault(("ours", c["dname"]), {})[c["what"]] = (ok, o_err, s_err)
        if not ok:
            print("FAIL ours %s: o %.3g state %.3g%s" % (
                c["what"], o_err, s_err,
                "" if untouched else " (other pages changed)"), flush=True)
    print("# ours: %d cases in %.0f s" % (len(prepared), time.time() - t0),
          flush=True)
    if fla_fn is not None:
        t0 = time.time()
        for c in prepared:
            if time.time() - t0 > args.fla_seconds:
                print("# FLA: stopped after %.0f s" % (time.time() - t0))
                break
            ref_o, ref_pool, _ = c["ref"]
            fo, fh = run_fla(torch, fla_fn, *c["inputs"], c["scale"],
                             c["tables"], c["before"])
            fo_err = R.rel_l2(fo, ref_o) if np.isfinite(fo).all() else np.inf
            fs_err = max(R.rel_l2(fh[s], ref_pool[p])
                         for s, p in enumerate(c["finals"]))
            fok = fo_err < TOL and fs_err < TOL
            results.setdefault(("FLA", c["dname"]), {})[c["what"]] = (fok, fo_err, fs_err)
            if not fok:
                print("FAIL FLA %s: o %.3g state %.3g" % (c["what"], fo_err, fs_err),
                      flush=True)
        print("# FLA: %d cases in %.0f s" % (
            sum(len(r) for (i, _), r in results.items() if i == "FLA"),
            time.time() - t0), flush=True)
    print("| implementation | dtype | cases | passed | median o error | "
          "median state error | max o error |")
    print("|---|---|---|---|---|---|---|")
    for (impl, dname), rows in results.items():
        vals = list(rows.values())
        print("| %s | %s | %d | %d | %.2e | %.2e | %.2e |" % (
            impl, dname, len(vals), sum(r[0] for r in vals),
            np.median([r[1] for r in vals]), np.median([r[2] for r in vals]),
            max(r[1] for r in vals)))
    # Ours on exactly the cases FLA ran: the like-for-like medians.
    for dname in args.dtypes.split(","):
        fla_rows = results.get(("FLA", dname))
        if not fla_rows or len(fla_rows) == len(results[("ours", dname)]):
            continue
        ours = [results[("ours", dname)][w] for w in fla_rows]
        print("| ours, FLA's cases | %s | %d | %d | %.2e | %.2e | %.2e |" % (
            dname, len(ours), sum(r[0] for r in ours),
            np.median([r[1] for r in ours]), np.median([r[2] for r in ours]),
            max(r[1] for r in ours)))


if __name__ == "__main__":
    main()
