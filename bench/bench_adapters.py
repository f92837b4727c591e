#!/usr/bin/env python3
"""gdn.fla / gdn.flashinfer beside the peers' own calls, same tensors, one process.

For each shape (B sequences of T tokens as varlen; H=16, HV=32, K=V=128,
bf16; log gates, sigmoid beta, l2norm in the kernel, random initial
states) it runs FLA (its Triton kernels: FLA_FLASH_QLA=0) and our adapter
with the same arguments, prints the relative L2 difference of o and of the
final state between them, then times each by CUDA-graph replay (median of
batches). With --flashinfer-path, FlashInfer 0.7.2 (alpha = exp(g), states
[N, HV, V, K]) and gdn.flashinfer the same way. Run it against the
installed wheel (no GDN_* variable):

  python3 bench/bench_adapters.py --fla-path /tmp/fla-site --shape 1x4096
  python3 bench/bench_adapters.py --flashinfer-path /tmp/fi-site --shape 1x4096
"""

import argparse
import os
import sys


def rel(a, b):
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm()).item()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fla-path")
    ap.add_argument("--flashinfer-path",
                    help="pip install --target DIR of flashinfer-python 0.7.2 "
                         "and its nvidia-cutlass-dsl wheels")
    ap.add_argument("--shape", action="append", required=True, help="BxT")
    ap.add_argument("--reference", action="store_true",
                    help="also each call's error against the float64 "
                         "recurrence, and the peers' difference to each other")
    ap.add_argument("--replays", type=int, default=20)
    ap.add_argument("--batches", type=int, default=10)
    args = ap.parse_args()
    os.environ.setdefault("FLA_FLASH_QLA", "0")
    import torch
    import torch.nn.functional as F
    import gdn.fla
    import gdn.flashinfer
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from graph_timer import graph_ms
    print("# gdn from", os.path.dirname(gdn.__file__), "library",
          gdn._capi.LIBRARY, flush=True)
    peers = []
    if args.fla_path:
        sys.path.insert(0, args.fla_path)
        from fla.ops.gated_delta_rule import chunk_gated_delta_rule as fla
        peers.append(("FLA", fla, gdn.fla.chunk_gated_delta_rule, fla_args))
    if args.flashinfer_path:
        from peers import import_flashinfer
        fi = import_flashinfer(args.flashinfer_path)
        peers.append(("FlashInfer", fi, gdn.flashinfer.chunk_gated_delta_rule,
                      flashinfer_args))

    def timed(call):
        return graph_ms(torch, call, args.batches, args.replays)[0]

    H, HV, D, dev = 16, 32, 128, "cuda"
    print("peer | shape | peer ms | ours ms | peer / ours | o rel diff | state rel diff")
    for shape in args.shape:
        B, T = (int(x) for x in shape.split("x"))
        N = B * T
        torch.manual_seed(0)
        with torch.no_grad():
            q = torch.randn(N, H, D, device=dev, dtype=torch.bfloat16)
            k = torch.randn(N, H, D, device=dev, dtype=torch.bfloat16)
            v = torch.randn(N, HV, D, device=dev, dtype=torch.bfloat16)
            g = F.logsigmoid(torch.randn(N, HV, device=dev)) / 8
            beta = torch.rand(N, HV, device=dev).sigmoid()
            h0 = torch.randn(B, HV, D, D, device=dev) * 0.1   # [N, HV, V, K]
            cu = torch.arange(0, N + 1, T, device=dev, dtype=torch.int64)
            results = {}   # name: (o [tokens, HV, V], states [N, HV, V, K])
            for name, peer, ours, make in peers:
                call_args, kw, state_of = make(q, k, v, g, beta, h0, cu)
                o_p, h_p = peer(*call_args, **kw)
                o_g, h_g = ours(*call_args, **kw)
                torch.cuda.synchronize()
                results[name] = (o_p.reshape(N, HV, D), state_of(h_p))
                results["gdn-" + name] = (o_g.reshape(N, HV, D), state_of(h_g))
                d_o = rel(o_g, o_p)
                d_h = rel(state_of(h_g), state_of(h_p))
                t_p = timed(lambda: peer(*call_args, **kw))
                t_g = timed(lambda: ours(*call_args, **kw))
                print(f"{name} | {shape} | {t_p:.3f} | {t_g:.3f} | {t_p / t_g:.2f} | "
                      f"{d_o:.2e} | {d_h:.2e}", flush=True)
            if args.reference:
                ref_o, ref_h = reference(torch, q, k, v, g.exp(), beta, h0, B, T)
                for name, (o, h) in results.items():
                    print(f"# {shape} {name}: vs float64 o {rel(o, ref_o):.2e} "
                          f"state {rel(h, ref_h):.2e}", flush=True)
                names = [n for n in results if not n.startswith("gdn-")]
                for i, a in enumerate(names):
                    for b in names[i + 1:]:
                        print(f"# {shape} {a} vs {b}: o {rel(results[a][0], results[b][0]):.2e} "
                              f"state {rel(results[a][1], results[b][1]):.2e}", flush=True)


def reference(torch, q, k, v, alpha, beta, h0, B, T):
    """The float64 recurrence (l2-normalised q / k, scale K ** -0.5), all
    sequences at once: o [B T, HV, V] and final states [B, HV, V, K]."""
    HV, D = v.shape[1], v.shape[2]
    G = HV // q.shape[1]
    f = lambda x: x.double().reshape((B, T) + x.shape[1:])
    qn = torch.nn.functional.normalize(f(q), dim=-1).repeat_interleave(G, dim=2)
    kn = torch.nn.functional.normalize(f(k), dim=-1).repeat_interleave(G, dim=2)
    vv, a, b = f(v), f(alpha), f(beta)
    M = h0.double().clone()                                  # [B, HV, V, K]
    o = torch.empty(B, T, HV, D, dtype=torch.float64, device=q.device)
    for t in range(T):
        M *= a[:, t, :, None, None]
        kt = kn[:, t]
        err = vv[:, t] - torch.einsum("bhvk,bhk->bhv", M, kt)
        M += b[:, t, :, None, None] * err[..., None] * kt[..., None, :]
        o[:, t] = torch.einsum("bhvk,bhk->bhv", M, qn[:, t]) * D ** -0.5
    return o.reshape(B * T, HV, D), M


def fla_args(q, k, v, g, beta, h0, cu):
    """FLA: [1, T, H, K] tensors, log gates, states [N, HV, K, V]."""
    kw = dict(initial_state=h0.transpose(-1, -2).contiguous(),
              output_final_state=True, cu_seqlens=cu,
              use_qk_l2norm_in_kernel=True)
    return ((q[None], k[None], v[None], g[None], beta[None]), kw,
            lambda h: h.transpose(-1, -2))


def flashinfer_args(q, k, v, g, beta, h0, cu):
    """FlashInfer: [T, H, K] tensors, alpha = exp(g), states [N, HV, V, K]
    (h0 itself: neither call writes initial_state without output_state)."""
    kw = dict(initial_state=h0, output_final_state=True, cu_seqlens=cu,
              use_qk_l2norm_in_kernel=True)
    return (q, k, v, g.exp(), beta), kw, lambda h: h


if __name__ == "__main__":
    main()
