#!/usr/bin/env python3
"""The state pool's dtype: fp32 against bf16 and fp16 pools, read and written
in place by their own kernels, against the float64 recurrence.

For each shape (B sequences of T tokens; H=16, HV=32, K=V=128, bf16 q / k /
v; raw gates in the kernel as the pool call takes them) the same call runs on
a pool of each dtype holding the same initial states (rounded to it), and
prints the relative L2 error of o and of the final states against the
float64 recurrence started from those (rounded) states:

  python3 bench/state_dtypes.py --shape 1x4096 --shape 8x4096
"""

import argparse
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", action="append", required=True, help="BxT")
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F
    import gdn
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_adapters import reference
    print("# gdn from", os.path.dirname(gdn.__file__), flush=True)
    H, HV, D, dev = 16, 32, 128, "cuda"
    kernel = gdn.compile(schedule="auto")
    print("shape | pool | o error | final state error (vs float64)")
    for shape in args.shape:
        B, T = (int(x) for x in shape.split("x"))
        N = B * T
        torch.manual_seed(0)
        with torch.no_grad():
            q = torch.randn(N, H, D, device=dev, dtype=torch.bfloat16)
            k = torch.randn(N, H, D, device=dev, dtype=torch.bfloat16)
            v = torch.randn(N, HV, D, device=dev, dtype=torch.bfloat16)
            a = torch.randn(N, HV, device=dev)
            b = torch.randn(N, HV, device=dev)
            A_log = torch.empty(HV, device=dev).uniform_(-1.5, 0.5)
            dt_bias = torch.empty(HV, device=dev).uniform_(-3, -1)
            alpha = (-A_log.exp() * F.softplus(a + dt_bias)).exp()
            beta = b.sigmoid()
            h0 = torch.randn(B, HV, D, D, device=dev) * 0.1
            cu = torch.arange(0, N + 1, T, device=dev, dtype=torch.int64)
            rows = torch.arange(B, device=dev, dtype=torch.int64)
            for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16),
                                ("f16", torch.float16)):
                pool = h0.to(dtype, copy=True)      # the call writes it
                start = pool.to(torch.float32, copy=True)
                o = kernel.gdn_extend_chunkwise(q, k, v, a, b, A_log, dt_bias,
                                                pool, rows, cu)
                torch.cuda.synchronize()
                ref_o, ref_h = reference(torch, q, k, v, alpha, beta, start, B, T)
                err = lambda x, r: ((x.double() - r).norm() / r.norm()).item()
                print(f"{shape} | {name} | {err(o, ref_o):.2e} | {err(pool, ref_h):.2e}",
                      flush=True)


if __name__ == "__main__":
    main()
