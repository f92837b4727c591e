#!/usr/bin/env python3
"""FLA and the gdn Python package, timed in one process by CUDA-graph replay.

For each shape (B sequences of T tokens; H=16, HV=32, K=V=128, bf16 q / k / v
by default) the same inputs go to:

- fla:        FLA's fast call (precomputed log gates g, sigmoid beta, l2norm in
              its kernel, one cached cu_seqlens tensor, initial and final
              states), as bench_fla.py calls it, on FLA's own Triton kernels
              (FLA_FLASH_QLA=0 unless the environment says otherwise:
              fla-core 0.6.0 routes to FlashQLA when that is importable);
- gdn-paged:  gdn.chunk_gated_delta_rule_paged with the same g / beta and one
              page per sequence (the pool rows hold the initial states and
              receive the final ones);
- gdn-pool:   gdn.gdn_extend_chunkwise (seed 000: raw gates, gates computed
              in the kernel), with a, b, A_log, dt_bias behind the same g.

Each is warmed up eagerly, captured in a CUDA graph, checked (graph replay
equals the eager call; ours against FLA's output), then timed as the median
of batches of replays. Our calls reset the pool from the initial states
first (one copy FLA does not make, counted against us) so that every
replay computes the same thing. Prints one line per (call, shape); lines starting
with '#' are diagnostics.

  GDN_LIBRARY=build-rt/lib/libgdn.so GDN_ARTIFACTS=artifacts \\
  python3 bench/bench_python.py --fla-path /tmp/fla-site --shape 1x4096

(bench/bench.sh device runs it so, once per H / HV group of shapes.)

With `--set NAME=DIR` (repeatable) each artifact set DIR is timed instead of
$GDN_ARTIFACTS, as gdn-pool/NAME and gdn-paged/NAME, beside the same FLA
call: one table of every schedule in one run.
"""

import argparse
import itertools
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fla-path", default=None,
                    help="directory holding fla/ (pip install --target DIR)")
    ap.add_argument("--shape", action="append", required=True, help="BxT")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--value-heads", type=int, default=32)
    ap.add_argument("--head-dim", type=int, default=128,
                    help="K, and V unless --head-dim-v is given")
    ap.add_argument("--head-dim-v", type=int, default=None,
                    help="V where it differs from K (FLA's layer: K=256, V=512)")
    ap.add_argument("--replays", type=int, default=20)
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--schedule", default="auto",
                    help="gdn schedule the artifacts were built for (names the "
                         "Kernel; the artifacts decide)")
    ap.add_argument("--state-dtypes", default="f32",
                    type=lambda text: text.split(","),
                    help="comma-separated state pool dtypes to time ours with "
                         "(f32, bf16, f16; a 16-bit pool runs its own kernels "
                         "in place), e.g. f32,bf16")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=DIR",
                    help="an artifact set to time (repeatable); default: "
                         "$GDN_ARTIFACTS as one set")
    args = ap.parse_args()
    sets = []
    for item in args.set:
        name, sep, path = item.partition("=")
        if not sep or not name or not os.path.isdir(path):
            ap.error(f"--set {item!r}: expected NAME=DIR with DIR an artifact "
                     "directory")
        if any(name == known for known, _ in sets):
            ap.error(f"--set {item!r}: the name {name!r} is given twice")
        sets.append((name, path))

    import torch
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gdn
    from graph_timer import capture, replay_ms

    gdr = None
    os.environ.setdefault("FLA_FLASH_QLA", "0")
    try:
        if args.fla_path:
            sys.path.insert(0, args.fla_path)
        from fla.ops.gated_delta_rule import chunk_gated_delta_rule as gdr
        import fla
        print(f"# fla-core {getattr(fla, '__version__', '?')}", flush=True)
    except ImportError as e:
        print(f"# FLA not importable ({e}); timing gdn only", flush=True)
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)

    if sets:
        kernels = [(f"/{name}", gdn.compile(schedule=args.schedule, artifacts=path))
                   for name, path in sets]
    else:
        kernels = [("", gdn.compile(schedule=args.schedule))]
    H, HV, D = args.heads, args.value_heads, args.head_dim
    DV = args.head_dim_v or D
    torch.manual_seed(0)
    dev = "cuda"

    def timed(label, call, check):
        graph, eager, captured = capture(torch, call)
        eager = [t.clone() for t in eager]
        graph.replay()
        torch.cuda.synchronize()
        diff = max((a.float() - b.float()).abs().max().item()
                   for a, b in zip(captured, eager))
        ms = replay_ms(torch, graph, args.batches, args.replays)
        print(f"# {label}: graph replay vs eager max|diff| {diff:.3e}; {check(captured)}",
              flush=True)
        return ms, captured

    for shape in args.shape:
        B, T = (int(x) for x in shape.split("x"))
        N = B * T
        label = (f"{shape} H={H} HV={HV} D={D}" if DV == D
                 else f"{shape} H={H} HV={HV} K={D} V={DV}")
        with torch.no_grad():
            q = torch.randn(N, H, D, device=dev, dtype=torch.bfloat16)
            k = torch.randn(N, H, D, device=dev, dtype=torch.bfloat16)
            v = torch.randn(N, HV, DV, device=dev, dtype=torch.bfloat16)
            a = torch.randn(N, HV, device=dev, dtype=torch.float32)
            b = torch.randn(N, HV, device=dev, dtype=torch.float32)
            A_log = torch.empty(HV, device=dev).uniform_(-1.5, 0.5)
            dt_bias = torch.empty(HV, device=dev).uniform_(-3, -1)
            g = (-A_log.exp() * F.softplus(a + dt_bias)).contiguous()
            beta = b.sigmoid()
            # Zero initial states: the paged call with no prefix starts from
            # zero, so every call computes the same thing. FLA holds a state
            # as [K, V], our pools as [V, K].
            h0 = torch.zeros(B, HV, D, DV, device=dev)
            pool0 = torch.zeros(B, HV, DV, D, device=dev)
            cu = torch.arange(0, N + 1, T, device=dev, dtype=torch.int64)
            scale = D ** -0.5
            page = (T + 63) // 64 * 64
            page_indices = torch.arange(B, device=dev, dtype=torch.int64)
            page_indptr = torch.arange(B + 1, device=dev, dtype=torch.int64)
            # One page of `page` >= T tokens per sequence: no prefix.
            last = torch.full((B,), T, device=dev, dtype=torch.int64)

            results = {}
            fla_o = None
            if gdr is not None:
                def fla_call():
                    o, ht = gdr(q[None], k[None], v[None], g[None], beta[None], scale,
                                initial_state=h0, output_final_state=True,
                                use_qk_l2norm_in_kernel=True, cu_seqlens=cu)
                    return o[0], ht
                ms, (fla_o, _) = timed(f"fla {label}", fla_call,
                                       lambda r: "finite" if torch.isfinite(r[0]).all() else "NON-FINITE")
                results["fla"] = ms

            def against_fla(r):
                if fla_o is None:
                    return "no FLA to compare"
                err = ((r[0].float() - fla_o.float()).norm() / fla_o.float().norm()).item()
                return f"relative L2 vs FLA's o {err:.2e}"

            rows = torch.arange(B, device=dev, dtype=torch.int64)
            state_dtypes = {"f32": torch.float32, "bf16": torch.bfloat16,
                            "f16": torch.float16}
            for (suffix, kernel), sd in itertools.product(kernels, args.state_dtypes):
                # A 16-bit pool: its own kernels, in place (--state-dtypes).
                start = pool0.to(state_dtypes[sd])
                pool = start.clone()
                if sd != "f32":
                    suffix = f"{suffix}/state-{sd}"

                def paged_call():
                    pool.copy_(start)
                    o = kernel.chunk_gated_delta_rule_paged(
                        q, k, v, g, beta, scale, cu_seqlens=cu, state_pool=pool,
                        page_indices=page_indices, page_indptr=page_indptr,
                        page_size=page, last_page_len=last,
                        use_qk_l2norm_in_kernel=True, gate_domain="log")
                    return o, pool
                results[f"gdn-paged{suffix}"], _ = timed(
                    f"gdn-paged{suffix} {label}", paged_call, against_fla)

                def pool_call():
                    pool.copy_(start)
                    o = kernel.gdn_extend_chunkwise(q, k, v, a, b, A_log, dt_bias,
                                                    pool, rows, cu)
                    return o, pool
                results[f"gdn-pool{suffix}"], _ = timed(
                    f"gdn-pool{suffix} {label}", pool_call, against_fla)

            for name, ms in results.items():
                ratio = ("" if "fla" not in results or name == "fla"
                         else f", {ms / results['fla']:.2f}x FLA's time")
                print(f"{name} {label}: {ms:.3f} ms (graph replay{ratio})", flush=True)
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
