#!/usr/bin/env python3
"""Times FLA's Triton chunk_gated_delta_rule on the benchmark shapes.

FLA (https://github.com/fla-org/flash-linear-attention) is pure Python on
Triton; this script imports it from a source tree given on the command line
and never vendors it:

    git clone https://github.com/fla-org/flash-linear-attention /path/fla-src
    python3 bench/bench_fla.py --fla /path/fla-src --shape 1x4096 ...

Only fla.ops.gated_delta_rule is imported: the package inits (which pull in
model code and `transformers`) are replaced by empty namespace modules.
Prints one line per shape: ms (median of CUDA-event timings after warm-up).
"""
import argparse
import os
import sys
import types


def import_fla(path):
    root = os.path.join(path, "fla") if os.path.isdir(os.path.join(path, "fla")) else path
    for name in ("fla", "fla.ops", "fla.modules", "fla.layers", "fla.models"):
        mod = types.ModuleType(name)
        mod.__path__ = [os.path.join(root, *name.split(".")[1:])]
        mod.__version__ = "source"  # fla.utils reads the package version
        sys.modules[name] = mod
    from fla.ops.gated_delta_rule.chunk import chunk_gated_delta_rule
    return chunk_gated_delta_rule


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fla", required=True, help="FLA source tree (holding fla/)")
    ap.add_argument("--shape", action="append", required=True,
                    help="BxT (B sequences of T tokens), e.g. 1x16384, 8x4096")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--value-heads", type=int, default=32)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    import torch
    gdr = import_fla(args.fla)
    H, HV, D = args.heads, args.value_heads, args.head_dim
    for shape in args.shape:
        B, T = (int(x) for x in shape.split("x"))
        N = B * T
        dev = "cuda"
        q = torch.randn(1, N, H, D, device=dev, dtype=torch.bfloat16)
        k = torch.randn(1, N, H, D, device=dev, dtype=torch.bfloat16)
        v = torch.randn(1, N, HV, D, device=dev, dtype=torch.bfloat16)
        a = torch.randn(1, N, HV, device=dev, dtype=torch.float32)
        A_log = torch.empty(HV, device=dev).uniform_(-1.5, 0.5)
        dt_bias = torch.empty(HV, device=dev).uniform_(-3, -1)
        beta = torch.randn(1, N, HV, device=dev).sigmoid()
        h0 = torch.zeros(B, HV, D, D, device=dev, dtype=torch.float32)
        cu = torch.arange(0, N + 1, T, device=dev, dtype=torch.int64)

        def call():
            return gdr(q, k, v, a, beta, initial_state=h0, output_final_state=True,
                       use_qk_l2norm_in_kernel=True, cu_seqlens=cu,
                       use_gate_in_kernel=True, A_log=A_log, dt_bias=dt_bias)

        for _ in range(3):
            call()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.repeat):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            call()
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
        times.sort()
        ms = times[len(times) // 2]
        flops = 180224 * N * HV * (D / 128) ** 2
        print(f"fla {shape} H={H} HV={HV} D={D}: {ms:.3f} ms, {flops / ms / 1e9:.1f} TFLOP/s", flush=True)


if __name__ == "__main__":
    main()
