#!/usr/bin/env python3
"""FLA's own kernels, one by one: device time per kernel of its chunked call.

Runs fla-core's `chunk_gated_delta_rule` (its Triton kernels:
FLA_FLASH_QLA=0) eagerly under torch.profiler and prints each kernel's
device time per call, to set beside ncu's per-kernel times of ours (which
kernel of the split does the serial state pass, which the chunk-parallel
prepare and output):

  python3 bench/fla_kernels.py --fla-path /tmp/fla-site --head-dim 256 --shape 1x16384
"""

import argparse
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
    ap.add_argument("--head-dim-v", type=int, default=None)
    ap.add_argument("--calls", type=int, default=5,
                    help="profiled calls (after three warm-ups)")
    args = ap.parse_args()
    os.environ.setdefault("FLA_FLASH_QLA", "0")
    if args.fla_path:
        sys.path.insert(0, args.fla_path)
    import torch
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule
    from torch.profiler import ProfilerActivity, profile

    K = args.head_dim
    V = args.head_dim_v or K
    HV = args.value_heads
    for shape in args.shape:
        B, T = (int(x) for x in shape.split("x"))
        torch.manual_seed(0)
        dev, bf16 = "cuda", torch.bfloat16
        # FLA's layout: the sequences packed along one token axis.
        q = torch.randn(1, B * T, HV, K, device=dev, dtype=bf16)
        k = torch.randn(1, B * T, HV, K, device=dev, dtype=bf16)
        v = torch.randn(1, B * T, HV, V, device=dev, dtype=bf16)
        g = torch.nn.functional.logsigmoid(
            torch.randn(1, B * T, HV, device=dev)).float()
        beta = torch.rand(1, B * T, HV, device=dev).to(bf16)
        h0 = torch.zeros(B, HV, K, V, device=dev)
        cu = torch.arange(0, B + 1, device=dev, dtype=torch.long) * T

        def call():
            return chunk_gated_delta_rule(
                q, k, v, g, beta, scale=K ** -0.5, initial_state=h0,
                output_final_state=True, use_qk_l2norm_in_kernel=True,
                cu_seqlens=cu)

        for _ in range(3):
            call()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(args.calls):
                call()
            torch.cuda.synchronize()
        rows = [e for e in prof.key_averages() if e.self_device_time_total > 0]
        rows.sort(key=lambda e: -e.self_device_time_total)
        total = sum(e.self_device_time_total for e in rows) / args.calls
        print(f"== FLA {shape} H={args.heads} HV={HV} K={K} V={V}: "
              f"{total / 1000:.3f} ms of kernels a call (eager)")
        for e in rows:
            per_call = e.self_device_time_total / args.calls
            print(f"  {per_call / 1000:8.3f} ms  {e.count // args.calls:3d} "
                  f"launch(es)  {e.key[:70]}")


if __name__ == "__main__":
    main()
