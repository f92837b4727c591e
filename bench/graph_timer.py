"""The one CUDA-graph timer of the benchmarks (DESIGN.md: time everything by
graph replay in one process on the same tensors)."""

import statistics


def capture(torch, call, warmup=3):
    """Runs `call` `warmup` times eagerly on a side stream (allocations made
    there are the graph pool's to reuse), then captures one call in a CUDA
    graph. Returns (graph, the eager result, the captured result)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    eager = None
    with torch.cuda.stream(side):
        for _ in range(warmup):
            eager = call()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = call()
    return graph, eager, captured


def replay_ms(torch, graph, batches=10, replays=20):
    """Median over `batches` of the mean time of `replays` back-to-back
    replays of `graph`, in ms (CUDA events)."""
    times = []
    for _ in range(batches):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(replays):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / replays)
    return statistics.median(times)


def graph_ms(torch, call, batches=10, replays=20, warmup=3):
    """(median ms per replay, the captured call's result) of `call`."""
    graph, _, captured = capture(torch, call, warmup)
    return replay_ms(torch, graph, batches, replays), captured
