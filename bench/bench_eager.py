#!/usr/bin/env python3
"""A serving step of eager layer calls: host time per call, eager against graph.

Serving engines run prefill eagerly: the step's metadata once, then one call
per GDN layer (Qwen3-Next has 36). For each shape (B sequences of T tokens;
H=16, HV=32, K=V=128, bf16 q / k / v by default) every layer has its own
q / k / v / gates (views of one buffer per tensor) and its own fp32 state
pool, and the step runs:

- gdn-slots:  gdn.chunk_gated_delta_rule_paged per layer, with one
              gdn_paged_prefill_slots() per step (made inside the step);
- gdn-plain:  the same calls without slots;
- gdn-pool-slots: gdn.gdn_extend_chunkwise per layer (raw gates a / b, one
              pool row per sequence) with one gdn_extend_chunkwise_slots();
- fla:        FLA's chunk_gated_delta_rule per layer the way engines call it
              (initial states gathered from the layer's pool, final states
              scattered back), on FLA's own kernels (FLA_FLASH_QLA=0);
- flashinfer: FlashInfer 0.7.2's chunk_gated_delta_rule the same way, with
              alpha = exp(g) precomputed per layer (--flashinfer-path).

For each: the host time of one layer call (wall time around the call, no
sync; median over `--steps` steps of every layer but the step's first,
which makes the step's plan, and the first layer's median apart), the eager
step (CUDA events around the whole step, median of `--steps`), the same
step captured once as a CUDA graph and replayed (median of `--steps`), and
eager / graph. `--profile` adds cProfile's top functions over a step and
torch.profiler's events inside one layer call (syncs, copies, allocations,
kernels). Lines starting with '#' are diagnostics.

  GDN_LIBRARY=build-rt/lib/libgdn.so GDN_ARTIFACTS=artifacts \\
  python3 bench/bench_eager.py --fla-path /tmp/fla-site --shape 1x4096 --profile
"""

import argparse
import cProfile
import io
import math
import os
import pstats
import random
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", action="append", required=True,
                    help="BxT, or varlenCOUNT: COUNT sequences of 64 to 8192 "
                         "tokens (log-uniform, seed 0)")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--value-heads", type=int, default=32)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--layers", type=int, default=36)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--fla-path", default=None,
                    help="directory holding fla/ (pip install --target DIR)")
    ap.add_argument("--no-fla", action="store_true")
    ap.add_argument("--flashinfer-path", default=None,
                    help="directory holding flashinfer/ and its cutlass DSL "
                         "(pip install --target DIR); adds the flashinfer variant")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--variants",
                    default="gdn-slots,gdn-plain,gdn-pool-slots,fla,flashinfer",
                    help="comma-separated subset of the variants to run")
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import gdn

    fla = None
    if not args.no_fla:
        os.environ.setdefault("FLA_FLASH_QLA", "0")
        try:
            if args.fla_path:
                sys.path.insert(0, args.fla_path)
            from fla.ops.gated_delta_rule import chunk_gated_delta_rule as fla
            import fla as fla_module
            print(f"# fla-core {getattr(fla_module, '__version__', '?')}", flush=True)
        except ImportError as e:
            print(f"# FLA not importable ({e}); timing gdn only", flush=True)
    fi = None
    if args.flashinfer_path:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peers import import_flashinfer
        fi = import_flashinfer(args.flashinfer_path)
        print("# flashinfer from", args.flashinfer_path, flush=True)
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)

    kernel = gdn.compile(schedule="auto")
    H, HV, D, L = args.heads, args.value_heads, args.head_dim, args.layers
    dev = "cuda"
    torch.manual_seed(0)

    for shape in args.shape:
        if shape.startswith("varlen"):
            # COUNT sequences of 64 to 8192 tokens, log-uniform, fixed seed.
            draw = random.Random(0)
            lengths = [int(round(math.exp(draw.uniform(math.log(64), math.log(8192)))))
                       for _ in range(int(shape[len("varlen"):]))]
        else:
            B, T = (int(x) for x in shape.split("x"))
            lengths = [T] * B
        B, N, T = len(lengths), sum(lengths), max(lengths)
        label = f"{shape} H={H} HV={HV} D={D} layers={L}" + (
            f" ({N} tokens)" if shape.startswith("varlen") else "")
        with torch.no_grad():
            q_all = torch.randn(L, N, H, D, device=dev, dtype=torch.bfloat16)
            k_all = torch.randn(L, N, H, D, device=dev, dtype=torch.bfloat16)
            v_all = torch.randn(L, N, HV, D, device=dev, dtype=torch.bfloat16)
            a_all = torch.randn(L, N, HV, device=dev)
            b_all = torch.randn(L, N, HV, device=dev)
            A_log = torch.empty(HV, device=dev).uniform_(-1.5, 0.5)
            dt_bias = torch.empty(HV, device=dev).uniform_(-3, -1)
            g_all = -A_log.exp() * F.softplus(a_all + dt_bias)
            beta_all = b_all.sigmoid()
            pools = torch.zeros(L, B, HV, D, D, device=dev)
            offsets = [0]
            for n in lengths:
                offsets.append(offsets[-1] + n)
            cu = torch.tensor(offsets, device=dev, dtype=torch.int32)
            page = (T + 63) // 64 * 64          # one page per sequence
            rows = torch.arange(B, device=dev, dtype=torch.int32)
            indptr = torch.arange(B + 1, device=dev, dtype=torch.int32)
            last = torch.tensor(lengths, device=dev, dtype=torch.int32)
            cu64 = cu.long()
            layers = [(q_all[i], k_all[i], v_all[i], g_all[i], beta_all[i], pools[i])
                      for i in range(L)]
            scale = D ** -0.5

            def gdn_layer(i, slots):
                q, k, v, g, beta, pool = layers[i]
                return kernel.chunk_gated_delta_rule_paged(
                    q, k, v, g, beta, scale, cu_seqlens=cu, state_pool=pool,
                    page_indices=rows, page_indptr=indptr, page_size=page,
                    last_page_len=last, use_qk_l2norm_in_kernel=True,
                    gate_domain="log", slots=slots)

            # Each layer's raw gates as views made here, as its q / k / v
            # are: indexing a tensor inside the timed call costs microseconds.
            raw_gates = [(a_all[i], b_all[i]) for i in range(L)]

            def pool_step(host_times, _):
                slots = gdn.gdn_extend_chunkwise_slots(rows, cu)
                o = None
                for i in range(L):
                    q, k, v, _, _, pool = layers[i]
                    a, b = raw_gates[i]
                    t0 = time.perf_counter()
                    o = kernel.gdn_extend_chunkwise(q, k, v, a, b, A_log,
                                                    dt_bias, pool, rows, cu, slots=slots)
                    host_times.append((i, time.perf_counter() - t0))
                return o

            def gdn_step(host_times, use_slots):
                slots = (gdn.gdn_paged_prefill_slots(cu, rows, indptr, page, last)
                         if use_slots else None)
                o = None
                for i in range(L):
                    t0 = time.perf_counter()
                    o = gdn_layer(i, slots)
                    host_times.append((i, time.perf_counter() - t0))
                return o

            def fla_step(host_times, _):
                o = None
                for i in range(L):
                    q, k, v, g, beta, pool = layers[i]
                    t0 = time.perf_counter()
                    o, ht = fla(q[None], k[None], v[None], g[None], beta[None], scale,
                                initial_state=pool[rows.long()], output_final_state=True,
                                use_qk_l2norm_in_kernel=True, cu_seqlens=cu64)
                    pool[rows.long()] = ht
                    host_times.append((i, time.perf_counter() - t0))
                return o

            alphas = ([layer[3].exp() for layer in layers]
                      if fi is not None and "flashinfer" in args.variants else None)

            def flashinfer_step(host_times, _):
                o = None
                for i in range(L):
                    q, k, v, g, beta, pool = layers[i]
                    t0 = time.perf_counter()
                    o, ht = fi(q, k, v, alphas[i], beta, scale,
                               initial_state=pool[rows.long()], output_final_state=True,
                               cu_seqlens=cu64, use_qk_l2norm_in_kernel=True)
                    pool[rows.long()] = ht
                    host_times.append((i, time.perf_counter() - t0))
                return o

            variants = [("gdn-slots", gdn_step, True), ("gdn-plain", gdn_step, False),
                        ("gdn-pool-slots", pool_step, None)]
            if fla is not None:
                variants.append(("fla", fla_step, None))
            if alphas is not None:
                variants.append(("flashinfer", flashinfer_step, None))
            chosen = args.variants.split(",")
            variants = [v for v in variants if v[0] in chosen]
            for name, step, option in variants:
                for _ in range(2):                     # load kernels, make plans
                    step([], option)
                torch.cuda.synchronize()
                host, eager = [], []
                for _ in range(args.steps):
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    torch.cuda.synchronize()
                    start.record()
                    step(host, option)
                    end.record()
                    torch.cuda.synchronize()
                    eager.append(start.elapsed_time(end))
                first = [t for i, t in host if i == 0]
                rest = [t for i, t in host if i > 0]

                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    step([], option)
                torch.cuda.current_stream().wait_stream(side)
                torch.cuda.synchronize()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    step([], option)
                replays = []
                for _ in range(args.steps):
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    start.record()
                    graph.replay()
                    end.record()
                    torch.cuda.synchronize()
                    replays.append(start.elapsed_time(end))
                del graph
                e, g = statistics.median(eager), statistics.median(replays)
                print(f"{name} {label}: host per layer call "
                      f"{statistics.median(rest) * 1e6:.1f} us (first layer "
                      f"{statistics.median(first) * 1e6:.1f} us); eager step "
                      f"{e:.3f} ms, graph step {g:.3f} ms, eager/graph {e / g:.3f}",
                      flush=True)

                if args.profile:
                    profiler = cProfile.Profile()
                    torch.cuda.synchronize()
                    profiler.enable()
                    step([], option)
                    profiler.disable()
                    torch.cuda.synchronize()
                    text = io.StringIO()
                    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(14)
                    for line in text.getvalue().splitlines():
                        if line.strip():
                            print(f"# cprofile {name} {shape}: {line}")
                    if name in ("fla", "flashinfer", "gdn-pool-slots"):
                        continue
                    # The library's share: Plan.run is the C call (gdn_plan_run)
                    # and the filling of its address array.
                    from gdn import _plan
                    plain_run, inside = _plan.Plan.run, []

                    def timed_run(plan, addresses, stream):
                        t0 = time.perf_counter()
                        plain_run(plan, addresses, stream)
                        inside.append(time.perf_counter() - t0)
                    _plan.Plan.run = timed_run
                    try:
                        for _ in range(3):
                            step([], option)
                    finally:
                        _plan.Plan.run = plain_run
                    torch.cuda.synchronize()
                    print(f"# {name} {shape}: Plan.run (gdn_plan_run and its "
                          f"address array) median {statistics.median(inside) * 1e6:.1f} us "
                          f"of {len(inside)} calls", flush=True)
                    slots = (gdn.gdn_paged_prefill_slots(cu, rows, indptr, page, last)
                             if option else None)
                    gdn_layer(1, slots)
                    torch.cuda.synchronize()
                    from torch.profiler import (ProfilerActivity, profile,
                                                record_function)
                    with profile(activities=[ProfilerActivity.CPU,
                                             ProfilerActivity.CUDA]) as prof:
                        with record_function("layer call"):
                            gdn_layer(2, slots)
                        torch.cuda.synchronize()      # outside the call's range
                    events = prof.events()
                    counts = {}
                    try:
                        call = [e for e in events
                                if e.name == "layer call"][0].time_range
                        for event in events:
                            on_device = event.device_type.name == "CUDA"
                            inside = (call.start <= event.time_range.start
                                      and event.time_range.end <= call.end)
                            if event.name != "layer call" and (inside or on_device):
                                where = ("device: " if on_device else "host: ") + event.name
                                counts[where] = counts.get(where, 0) + 1
                    except (AttributeError, IndexError) as e:   # another torch
                        print(f"# torch.profiler: cannot split events ({e}); all:")
                        for event in events:
                            counts[event.name] = counts.get(event.name, 0) + 1
                    for event_name, count in sorted(counts.items()):
                        print(f"# torch.profiler {name} {shape} one layer call: "
                              f"{count} x {event_name}")
        # Free this shape's tensors before the next shape's.
        q_all = k_all = v_all = a_all = b_all = g_all = beta_all = pools = layers = raw_gates = None
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
