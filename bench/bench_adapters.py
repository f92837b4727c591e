#!/usr/bin/env python3
"""gdn.fla beside FLA's own chunk_gated_delta_rule, same tensors, one process.

For each shape (B sequences of T tokens as varlen; H=16, HV=32, K=V=128,
bf16; log gates, sigmoid beta, l2norm in the kernel, random initial
states) it runs FLA (its Triton kernels: FLA_FLASH_QLA=0) and our adapter
with the same arguments, prints the relative L2 difference of o and of the
final state between them, then times each by CUDA-graph replay (median of
batches). Run it against the installed wheel (no GDN_* variable):

  python3 bench/bench_adapters.py --fla-path /tmp/fla-site --shape 1x4096
"""

import argparse
import os
import statistics
import sys


def rel(a, b):
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm()).item()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fla-path", required=True)
    ap.add_argument("--shape", action="append", required=True, help="BxT")
    ap.add_argument("--replays", type=int, default=20)
    ap.add_argument("--batches", type=int, default=10)
    args = ap.parse_args()
    os.environ.setdefault("FLA_FLASH_QLA", "0")
    sys.path.insert(0, args.fla_path)
    import torch
    import torch.nn.functional as F
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule as fla
    import gdn.fla
    print("# gdn from", os.path.dirname(gdn.__file__), "library",
          gdn._capi.LIBRARY, flush=True)

    def timed(call):
        for _ in range(3):
            call()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            call()
        batches = []
        for _ in range(args.batches):
            s, e = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            s.record()
            for _ in range(args.replays):
                graph.replay()
            e.record()
            torch.cuda.synchronize()
            batches.append(s.elapsed_time(e) / args.replays)
        return statistics.median(batches)

    H, HV, D, dev = 16, 32, 128, "cuda"
    print("shape | FLA ms | gdn.fla ms | FLA / gdn.fla | o rel diff | state rel diff")
    for shape in args.shape:
        B, T = (int(x) for x in shape.split("x"))
        N = B * T
        torch.manual_seed(0)
        with torch.no_grad():
            q = torch.randn(1, N, H, D, device=dev, dtype=torch.bfloat16)
            k = torch.randn(1, N, H, D, device=dev, dtype=torch.bfloat16)
            v = torch.randn(1, N, HV, D, device=dev, dtype=torch.bfloat16)
            g = F.logsigmoid(torch.randn(1, N, HV, device=dev)) / 8
            beta = torch.rand(1, N, HV, device=dev).sigmoid()
            h0 = torch.randn(B, HV, D, D, device=dev) * 0.1
            cu = torch.arange(0, N + 1, T, device=dev, dtype=torch.int64)
            kw = dict(initial_state=h0, output_final_state=True, cu_seqlens=cu,
                      use_qk_l2norm_in_kernel=True)
            o_f, h_f = fla(q, k, v, g, beta, **kw)
            o_g, h_g = gdn.fla.chunk_gated_delta_rule(q, k, v, g, beta, **kw)
            torch.cuda.synchronize()
            d_o, d_h = rel(o_g, o_f), rel(h_g, h_f)
            t_f = timed(lambda: fla(q, k, v, g, beta, **kw))
            t_g = timed(lambda: gdn.fla.chunk_gated_delta_rule(q, k, v, g, beta, **kw))
        print(f"{shape} | {t_f:.3f} | {t_g:.3f} | {t_f / t_g:.2f} | {d_o:.2e} | {d_h:.2e}",
              flush=True)


if __name__ == "__main__":
    main()
