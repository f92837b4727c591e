#!/usr/bin/env python3
"""A pool call on a pool whose rows are padded apart (64 floats between
rows) against the same call on a dense pool: graph-replay medians, and
whether o, the states and the padding agree (H=16, HV=32, K=V=128, bf16).
Run on the GPU host with the installed package:

  python3 bench/padded_pools.py
"""
import os, sys
import torch, gdn
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_timer import graph_ms
H, HV, D = 16, 32, 128
for B, T in ((8, 4096), (1, 16384)):
    N = B * T
    torch.manual_seed(0)
    q, k = (torch.randn(N, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    v = torch.randn(N, HV, D, device="cuda", dtype=torch.bfloat16)
    a, b = torch.randn(N, HV, device="cuda"), torch.randn(N, HV, device="cuda")
    A_log, dt_bias = torch.zeros(HV, device="cuda"), torch.zeros(HV, device="cuda")
    cu = torch.arange(0, N + 1, T, device="cuda", dtype=torch.int64)
    rows = torch.arange(B, device="cuda", dtype=torch.int64)
    h0 = torch.randn(B, HV, D, D, device="cuda") * 0.1
    row = HV * D * D
    storage = torch.zeros(B, row + 64, device="cuda")
    padded = storage[:, :row].view(B, HV, D, D)
    outs = {}
    for name, pool in (("dense", h0.clone()), ("padded", padded)):
        start = h0.clone()
        def call():
            pool.copy_(start)
            return gdn.gdn_extend_chunkwise(q, k, v, a, b, A_log, dt_bias, pool, rows, cu)
        ms, o = graph_ms(torch, call)
        outs[name] = (o.clone(), pool.clone())
        print(f"{B}x{T} {name} pool: {ms:.3f} ms", flush=True)
    print(f"{B}x{T} padded == dense: o {torch.equal(outs['dense'][0], outs['padded'][0])}, "
          f"state {torch.equal(outs['dense'][1], outs['padded'][1])}, padding untouched "
          f"{bool((storage[:, row:] == 0).all())}", flush=True)
