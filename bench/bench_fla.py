#!/usr/bin/env python3
"""Times FLA's chunk_gated_delta_rule (Triton) on the benchmark shapes.

FLA is never vendored. It comes from PyPI as wheels (fla-core 0.6.0, einops,
and packaging, which fla.utils imports but fla-core does not declare),
downloaded on a machine with network access and carried to the GPU host:

    pip download fla-core==0.6.0 einops packaging --no-deps -d third_party/wheels
    # on the GPU host (no network):
    python3 -m pip install --target /tmp/fla-site --no-index \\
        --find-links third_party/wheels fla-core einops packaging
    python3 bench/bench_fla.py --fla-path /tmp/fla-site --shape 1x4096 ...

(bench/bench.sh device does the install.) fla-core has no fla.layers /
fla.models, so `import fla` does not pull `transformers`.

fla-core 0.6.0 routes this call to FlashQLA whenever `flash_qla` is importable
and K = V = 128 (a registered backend). FLA_FLASH_QLA=0 before the first call
keeps FLA's own kernels; this script sets it unless the environment already
does.

The call is the one a serving stack makes on every step:

    chunk_gated_delta_rule(q, k, v, g, beta, scale, initial_state=h0,
                           output_final_state=True,
                           use_qk_l2norm_in_kernel=True, cu_seqlens=cu)

with q, k, v bf16 [1, N, H|HV, D], g the precomputed log decay
-exp(A_log) * softplus(a + dt_bias) (fp32 [1, N, HV], computed once, outside
the timed region), beta = sigmoid(b) (fp32 [1, N, HV]), h0 fp32
[B, HV, D, D] and cu int64 [B + 1]. All inputs, cu included, are created once
per shape and the same objects are passed on every call: FLA caches per-tensor
plans (chunk indices) by object identity, and a new cu inside a CUDA graph
capture would need a host sync, which capture refuses.

Timing (default): after warm-up (Triton compile and autotune) on a side
stream, the call is captured in a torch.cuda.CUDAGraph; the reported time is
the median over --batches batches of (CUDA-event time of --replays back-to-back
replays) / --replays. That is the GPU time of FLA's kernels, with none of the
Python dispatch of its ~10 launches, as in a serving stack that graphs its
decode/prefill step. With --plain, plain launches are also timed with CUDA
events around each Python call (median of --repeat), printed on a separate
`fla-plain` line; those include FLA's Python and launch overheads.

One machine-parsable line per shape (FLOPs = 180224 * N * HV * (D/128)^2):

    fla 1x4096 H=16 HV=32 D=128: 0.184 ms (graph replay), 129.0 TFLOP/s
    fla-plain 1x4096 H=16 HV=32 D=128: 0.400 ms (plain launches), 59.3 TFLOP/s

Lines starting with '#' are diagnostics (versions, graph-vs-eager check).
"""
import argparse
import importlib.util
import os
import sys


def import_fla(path):
    os.environ.setdefault("FLA_FLASH_QLA", "0")
    if path:
        path = os.path.abspath(path)
        if not os.path.isdir(os.path.join(path, "fla")):
            sys.exit(f"bench_fla: no fla/ package under --fla-path {path}")
        sys.path.insert(0, path)
    import fla
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule
    where = os.path.dirname(os.path.abspath(fla.__file__))
    if path and not where.startswith(path + os.sep):
        sys.exit(f"bench_fla: fla imported from {where}, not from --fla-path {path}")
    return chunk_gated_delta_rule, getattr(fla, "__version__", "?"), where


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fla-path", default=None,
                    help="directory holding the installed fla/ package (a "
                         "`pip install --target DIR` of the carried wheels); "
                         "default: whatever `import fla` finds")
    ap.add_argument("--shape", action="append", required=True,
                    help="BxT (B sequences of T tokens), e.g. 1x16384, 8x4096")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--value-heads", type=int, default=32)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--warmup", type=int, default=3,
                    help="eager calls before capture (compile, autotune, plans)")
    ap.add_argument("--replays", type=int, default=20,
                    help="graph replays per timed batch")
    ap.add_argument("--batches", type=int, default=10,
                    help="timed batches of replays (the median batch is reported)")
    ap.add_argument("--plain", action="store_true",
                    help="also time plain launches (CUDA events around each call)")
    ap.add_argument("--repeat", type=int, default=20,
                    help="--plain: timed calls (the median is reported)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    import triton

    gdr, fla_version, fla_dir = import_fla(args.fla_path)
    qla = importlib.util.find_spec("flash_qla") is not None
    print(f"# fla-core {fla_version} ({fla_dir}), torch {torch.__version__}, "
          f"triton {triton.__version__}, {torch.cuda.get_device_name()}; "
          f"backend: {'FlashQLA may be dispatched (flash_qla installed, FLA_FLASH_QLA not 0)' if qla and os.environ.get('FLA_FLASH_QLA') != '0' else 'Triton'}",
          flush=True)
    if fla_version != "0.6.0":
        print(f"# warning: fla-core {fla_version}, the benchmark pins 0.6.0", flush=True)

    H, HV, D = args.heads, args.value_heads, args.head_dim
    torch.manual_seed(args.seed)
    dev = "cuda"
    for shape in args.shape:
        B, T = (int(x) for x in shape.split("x"))
        N = B * T
        label = f"{shape} H={H} HV={HV} D={D}"
        flops = 180224 * N * HV * (D / 128) ** 2
        with torch.no_grad():
            q = torch.randn(1, N, H, D, device=dev, dtype=torch.bfloat16)
            k = torch.randn(1, N, H, D, device=dev, dtype=torch.bfloat16)
            v = torch.randn(1, N, HV, D, device=dev, dtype=torch.bfloat16)
            # Gates as a Gated DeltaNet layer makes them, precomputed once.
            a = torch.randn(1, N, HV, device=dev, dtype=torch.float32)
            A_log = torch.empty(HV, device=dev, dtype=torch.float32).uniform_(-1.5, 0.5)
            dt_bias = torch.empty(HV, device=dev, dtype=torch.float32).uniform_(-3, -1)
            g = (-A_log.exp() * F.softplus(a + dt_bias)).contiguous()  # log decay, <= 0
            beta = torch.randn(1, N, HV, device=dev, dtype=torch.float32).sigmoid()
            h0 = 0.05 * torch.randn(B, HV, D, D, device=dev, dtype=torch.float32)
            cu = torch.arange(0, N + 1, T, device=dev, dtype=torch.int64)
            scale = D ** -0.5
            del a, A_log, dt_bias

            def call():
                return gdr(q, k, v, g, beta, scale, initial_state=h0,
                           output_final_state=True, use_qk_l2norm_in_kernel=True,
                           cu_seqlens=cu)

            # Warm-up on a side stream (torch.cuda.graphs docs).
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(max(1, args.warmup)):
                    o_eager, ht_eager = call()
            torch.cuda.current_stream().wait_stream(side)
            torch.cuda.synchronize()

            plain_ms = None
            if args.plain:
                times = []
                for _ in range(args.repeat):
                    s = torch.cuda.Event(enable_timing=True)
                    e = torch.cuda.Event(enable_timing=True)
                    s.record()
                    call()
                    e.record()
                    torch.cuda.synchronize()
                    times.append(s.elapsed_time(e))
                plain_ms = median(times)

            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                o_graph, ht_graph = call()
            for _ in range(3):
                graph.replay()
            torch.cuda.synchronize()
            # The graph computes what the eager call did (same inputs).
            do = (o_graph.float() - o_eager.float()).abs().max().item()
            dh = (ht_graph - ht_eager).abs().max().item()
            finite = bool(torch.isfinite(o_graph).all() and torch.isfinite(ht_graph).all())
            print(f"# {label}: graph vs eager max|diff| o {do:.3e}, state {dh:.3e}; "
                  f"{'finite' if finite else 'NON-FINITE OUTPUT'}", flush=True)

            batches = []
            for _ in range(args.batches):
                s = torch.cuda.Event(enable_timing=True)
                e = torch.cuda.Event(enable_timing=True)
                s.record()
                for _ in range(args.replays):
                    graph.replay()
                e.record()
                torch.cuda.synchronize()
                batches.append(s.elapsed_time(e) / args.replays)
            ms = median(batches)
            print(f"fla {label}: {ms:.3f} ms (graph replay), "
                  f"{flops / ms / 1e9:.1f} TFLOP/s", flush=True)
            if plain_ms is not None:
                print(f"fla-plain {label}: {plain_ms:.3f} ms (plain launches), "
                      f"{flops / plain_ms / 1e9:.1f} TFLOP/s", flush=True)

            del graph, o_graph, ht_graph, o_eager, ht_eager
            del q, k, v, g, beta, h0, cu
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
