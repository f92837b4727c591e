"""The Python entry on CUDA tensors (torch), against the float64 reference.

Needs torch with a GPU and kernels compiled ahead of time (GDN_ARTIFACTS:
an auto set or a root of artifacts per shape, e.g. `gdn-run --emit
artifact --schedule auto ...`; else those of an installed wheel). Skipped
where either is missing (CI has no GPU); run on the GPU host with `python3 -m pytest python/tests/test_gpu.py`
or `python3 python/tests/test_gpu.py`.
"""

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

import gdn  # noqa: E402
import gdn.fla  # noqa: E402
import gdn.flashinfer  # noqa: E402
import problems  # noqa: E402
import reference as R  # noqa: E402
from gdn import _kernel  # noqa: E402

# GDN_ARTIFACTS, else the artifacts an installed wheel carries.
ARTIFACTS = os.environ.get("GDN_ARTIFACTS") or _kernel._bundled("artifacts")
if not ARTIFACTS:
    pytest.skip("needs GDN_ARTIFACTS or a wheel with artifacts",
                allow_module_level=True)
ARTIFACTS = os.fspath(ARTIFACTS)

TOL = 5e-3
K = V = 128


def to_device(call, dtype=torch.bfloat16):
    """A problems.* call on the GPU: q / k / v in `dtype`, the rest as is."""
    out = {}
    for name, x in call.items():
        if not isinstance(x, np.ndarray):
            out[name] = x
        elif name in ("q", "k", "v"):
            out[name] = torch.from_numpy(x.astype(np.float32)).to("cuda", dtype)
        else:
            out[name] = torch.from_numpy(x).to("cuda")
    return out


def host(x):
    return x.float().cpu().numpy() if x.dtype == torch.bfloat16 else x.cpu().numpy()


def test_16bit_pool_runs_in_place():
    """A bf16 pool is handed to the kernels as it is: no fp32 copy and no
    torch kernel besides ours."""
    rng, _ = problems.seeded()
    d = to_device(problems.pool_call(rng, [100], H=2, HV=4, K=K, V=V))
    d["state_pool"] = d["state_pool"].to(torch.bfloat16)
    gdn.gdn_extend_chunkwise(**d)      # the layout's plan, made once
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        gdn.gdn_extend_chunkwise(**d)
        torch.cuda.synchronize()
    kernels = {e.name for e in prof.events() if e.device_type.name == "CUDA"}
    assert kernels and all(name.startswith("gdn_") for name in kernels), kernels


def kernel_for(member):
    """The default kernel (GDN_ARTIFACTS), or one member of its auto set."""
    if member is None:
        return gdn.default_kernel()
    path = os.path.join(ARTIFACTS, "k%d_v%d_bf16" % (K, V), member)
    if not os.path.isdir(path):
        pytest.skip("no artifact " + path)
    return gdn.compile(artifacts=path)


@pytest.mark.parametrize("member", [None, "fused", "fused-v-block-64", "split-seq"])
def test_pool_interface(member):
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [300, 0, 130, 64], H=2, HV=4, K=K, V=V)
    d = to_device(call)
    before = d["state_pool"].clone()
    o = kernel_for(member).gdn_extend_chunkwise(**d)
    torch.cuda.synchronize()
    ref_o, ref_pool = R.pool_reference(
        host(d["q"]), host(d["k"]), host(d["v"]), call["a"], call["b"],
        call["A_log"], call["dt_bias"], host(before), call["cache_indices"],
        call["cu_seqlens"])
    assert torch.isfinite(o.float()).all(), "seed %d" % seed
    assert R.rel_l2(host(o), ref_o) <= TOL, "seed %d: o %g" % (seed, R.rel_l2(host(o), ref_o))
    pool, cu = host(d["state_pool"]), call["cu_seqlens"]
    written = {int(r) for s, r in enumerate(call["cache_indices"]) if cu[s + 1] > cu[s]}
    for row in range(pool.shape[0]):
        if row in written:
            assert R.rel_l2(pool[row], ref_pool[row]) <= TOL, "seed %d row %d" % (seed, row)
        else:
            assert (pool[row] == host(before)[row]).all(), "seed %d: row %d changed" % (seed, row)


@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_paged_interface(index_dtype):
    rng, seed = problems.seeded()
    call = problems.paged_call(rng, [200, 64, 90, 0], [30, 128, 0, 40],
                               page_size=64, H=2, HV=4, K=K, V=V)
    d = to_device(call)
    for name in ("page_indices", "page_indptr", "last_page_len", "cu_seqlens"):
        d[name] = d[name].to(index_dtype)
    before = d["state_pool"].clone()
    output = torch.full(d["v"].shape, float("nan"), device="cuda", dtype=d["v"].dtype)
    o = gdn.chunk_gated_delta_rule_paged(
        d["q"], d["k"], d["v"], d["g"], d["beta"], cu_seqlens=d["cu_seqlens"],
        state_pool=d["state_pool"], page_indices=d["page_indices"],
        page_indptr=d["page_indptr"], page_size=64,
        last_page_len=d["last_page_len"], use_qk_l2norm_in_kernel=True,
        output=output, gate_domain="log", beta_is_logit=True)
    torch.cuda.synchronize()
    assert o is output
    ref_o, ref_pool, written = R.paged_reference(
        host(d["q"]), host(d["k"]), host(d["v"]), call["g"], call["beta"], None,
        call["cu_seqlens"], host(before), call["page_indices"],
        call["page_indptr"], 64, call["last_page_len"], True, "log", True)
    assert torch.isfinite(o.float()).all(), "seed %d: o not all written" % seed
    assert R.rel_l2(host(o), ref_o) <= TOL, "seed %d" % seed
    pool = host(d["state_pool"])
    for page in range(pool.shape[0]):
        if page in written:
            assert R.rel_l2(pool[page], ref_pool[page]) <= TOL, "seed %d page %d" % (seed, page)
        else:
            assert (pool[page] == host(before)[page]).all(), "seed %d: page %d changed" % (seed, page)


@pytest.mark.parametrize("layout", ["bf16", "f16", "padded", "padded-bf16"])
def test_16bit_and_padded_pools_on_the_device(layout):
    """bf16 and fp16 pools and pools with padded rows (seed 004), read and
    written in place by the kernels, on the GPU."""
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [150, 0, 70], H=2, HV=4, K=K, V=V)
    d = to_device(call)
    dense = d["state_pool"]
    if layout in ("bf16", "f16"):
        pool = dense.to(torch.bfloat16 if layout == "bf16" else torch.float16)
        storage = pool
    else:
        dtype = torch.bfloat16 if layout == "padded-bf16" else torch.float32
        P, row = dense.shape[0], dense[0].numel()
        storage = torch.full((P, row + 32), 7.0, device="cuda", dtype=dtype)
        storage[:, :row] = dense.reshape(P, row)
        pool = storage[:, :row].view(dense.shape)
        assert not pool.is_contiguous()
    before = pool.clone()
    d["state_pool"] = pool
    o = gdn.gdn_extend_chunkwise(**d)
    torch.cuda.synchronize()
    ref_o, ref_pool = R.pool_reference(
        host(d["q"]), host(d["k"]), host(d["v"]), call["a"], call["b"],
        call["A_log"], call["dt_bias"], host(before), call["cache_indices"],
        call["cu_seqlens"])
    assert R.rel_l2(host(o), ref_o) <= TOL, "seed %d" % seed
    now, cu = host(pool), call["cu_seqlens"]
    written = {int(r) for s, r in enumerate(call["cache_indices"]) if cu[s + 1] > cu[s]}
    for row in range(now.shape[0]):
        if row in written:
            assert R.rel_l2(now[row], ref_pool[row]) <= TOL, "seed %d row %d" % (seed, row)
        else:
            assert torch.equal(pool[row], before[row]), "seed %d: row %d changed" % (seed, row)
    if layout.startswith("padded"):
        assert (storage[:, -32:] == 7.0).all(), "seed %d: padding written" % seed


def test_padded_rows_must_keep_16_byte_rows():
    """Rows padded apart by a stride that is not a multiple of 16 bytes are
    refused by name, with nothing written."""
    rng, _ = problems.seeded()
    d = to_device(problems.pool_call(rng, [50], H=2, HV=4, K=K, V=V))
    dense = d["state_pool"]
    P, row = dense.shape[0], dense[0].numel()
    storage = torch.zeros((P, row + 1), device="cuda")
    d["state_pool"] = storage[:, :row].view(dense.shape)
    before = storage.clone()
    with pytest.raises(ValueError, match=r"row stride of 65537 elements "
                       r"\(262148 bytes\).*16-byte boundaries"):
        gdn.gdn_extend_chunkwise(**d)
    torch.cuda.synchronize()
    assert torch.equal(storage, before)


def test_bf16_pool_with_shared_rows_and_a_long_table():
    """A bf16 pool on the device: a zero-length sequence naming a written
    row, and a page table longer than its pages (garbage past
    page_indptr[B])."""
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [120, 0, 50], H=2, HV=4, K=K, V=V)
    call["cache_indices"][1] = call["cache_indices"][0]
    d = to_device(call)
    pool = d["state_pool"].to(torch.bfloat16)
    before = pool.clone()
    d["state_pool"] = pool
    o = gdn.compile(checked=True).gdn_extend_chunkwise(**d)
    torch.cuda.synchronize()
    ref_o, ref_pool = R.pool_reference(
        host(d["q"]), host(d["k"]), host(d["v"]), call["a"], call["b"],
        call["A_log"], call["dt_bias"], host(before), call["cache_indices"],
        call["cu_seqlens"])
    assert R.rel_l2(host(o), ref_o) <= TOL, "seed %d" % seed
    for row in {int(call["cache_indices"][0]), int(call["cache_indices"][2])}:
        assert R.rel_l2(host(pool)[row], ref_pool[row]) <= TOL, "seed %d row %d" % (seed, row)

    call = problems.paged_call(rng, [100, 30], [20, 0], page_size=64,
                               H=2, HV=4, K=K, V=V)
    d = to_device(call)
    d["page_indices"] = torch.cat([d["page_indices"],
                                   torch.tensor([-1, 10**9], device="cuda")])
    pool = d["state_pool"].to(torch.bfloat16)
    before = pool.clone()
    o = gdn.chunk_gated_delta_rule_paged(
        d["q"], d["k"], d["v"], d["g"], d["beta"], cu_seqlens=d["cu_seqlens"],
        state_pool=pool, page_indices=d["page_indices"],
        page_indptr=d["page_indptr"], page_size=64,
        last_page_len=d["last_page_len"], use_qk_l2norm_in_kernel=True,
        gate_domain="log", beta_is_logit=True)
    torch.cuda.synchronize()
    ref_o, ref_pool, written = R.paged_reference(
        host(d["q"]), host(d["k"]), host(d["v"]), call["g"], call["beta"], None,
        call["cu_seqlens"], host(before), call["page_indices"],
        call["page_indptr"], 64, call["last_page_len"], True, "log", True)
    assert R.rel_l2(host(o), ref_o) <= TOL, "seed %d" % seed
    for page in range(pool.shape[0]):
        if page in written:
            assert R.rel_l2(host(pool)[page], ref_pool[page]) <= TOL, "seed %d" % seed
        else:
            assert torch.equal(pool[page], before[page]), "seed %d: page %d" % (seed, page)


def test_graph_keeps_its_workspace():
    """A captured call owns its workspace: eager calls of a larger shape
    on the same stream afterwards (which grow the stream's arena) do not
    disturb its replays, nor do replays disturb them."""
    rng, seed = problems.seeded()
    small = to_device(problems.pool_call(rng, [300], H=2, HV=4, K=K, V=V))
    kernel = gdn.compile(schedule="split-seq", artifacts=os.path.join(
        ARTIFACTS, "k%d_v%d_bf16" % (K, V), "split-seq"))
    start = small["state_pool"].clone()
    expected = kernel.gdn_extend_chunkwise(**small).clone()
    small["state_pool"].copy_(start)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = kernel.gdn_extend_chunkwise(**small)
    large = to_device(problems.pool_call(rng, [3000, 2000], H=2, HV=4, K=K, V=V))
    for _ in range(2):
        small["state_pool"].copy_(start)
        graph.replay()
        kernel.gdn_extend_chunkwise(**large)
        torch.cuda.synchronize()
        assert torch.equal(captured, expected), "seed %d" % seed


def test_checked_mode_refuses_on_the_device():
    rng, _ = problems.seeded()
    call = problems.paged_call(rng, [100], [0], gate_domain="linear",
                               H=2, HV=4, K=K, V=V)
    call["g"][3, 1] = -0.5
    d = to_device(call)
    before = d["state_pool"].clone()
    with pytest.raises(ValueError, match=r"gate 'g' .* holds -0.5"):
        gdn.compile(checked=True).chunk_gated_delta_rule_paged(
            d["q"], d["k"], d["v"], d["g"], d["beta"], cu_seqlens=d["cu_seqlens"],
            state_pool=d["state_pool"], page_indices=d["page_indices"],
            page_indptr=d["page_indptr"], page_size=64,
            last_page_len=d["last_page_len"], gate_domain="linear")
    assert torch.equal(before, d["state_pool"])


def test_misaligned_tensor_is_refused():
    """The kernels move rows as 16-byte vectors: a tensor starting 2 bytes
    into its storage is refused by name, and nothing is written."""
    rng, _ = problems.seeded()
    call = problems.pool_call(rng, [100], H=2, HV=4, K=K, V=V)
    d = to_device(call)
    q = d["q"]
    shifted = torch.empty(q.numel() + 1, dtype=q.dtype, device="cuda")[1:].view(q.shape)
    shifted.copy_(q)
    d["q"] = shifted
    before = d["state_pool"].clone()
    with pytest.raises(ValueError, match=r"tensor 'q': device address .* not 16-byte aligned"):
        gdn.default_kernel().gdn_extend_chunkwise(**d)
    torch.cuda.synchronize()
    assert torch.equal(before, d["state_pool"])


def paged_on_device(d, kernel=None, **flags):
    kw = dict(cu_seqlens=d["cu_seqlens"], state_pool=d["state_pool"],
              page_indices=d["page_indices"], page_indptr=d["page_indptr"],
              page_size=64, last_page_len=d["last_page_len"],
              use_qk_l2norm_in_kernel=True, gate_domain="log")
    kw.update(flags)
    return (kernel or gdn.default_kernel()).chunk_gated_delta_rule_paged(
        d["q"], d["k"], d["v"], d["g"], d["beta"], **kw)


@pytest.mark.parametrize("pool_dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("case", ["output over the pool", "q inside the pool",
                                  "output is v", "page_indices inside the output"])
def test_aliasing_is_refused_on_the_device(case, pool_dtype):
    """Address ranges only, no sync: refused unchecked, fp32 pools (the
    library's check) and bf16 pools (checked before staging)."""
    rng, _ = problems.seeded()
    call = problems.paged_call(rng, [100], [0], H=2, HV=4, K=K, V=V)
    d = to_device(call)
    d["state_pool"] = d["state_pool"].to(pool_dtype)
    flat = d["state_pool"].view(-1).view(torch.uint8)
    output = torch.empty_like(d["v"])
    if case == "output over the pool":
        output = flat[:output.numel() * 2].view(torch.bfloat16).view(d["v"].shape)
    elif case == "q inside the pool":
        q = flat[:d["q"].numel() * 2].view(torch.bfloat16).view(d["q"].shape)
        q.copy_(d["q"])
        d["q"] = q
    elif case == "output is v":
        output = d["v"]
    else:
        view = output.view(-1).view(torch.uint8)[:8 * d["page_indices"].numel()]
        view = view.view(torch.int64)
        view.copy_(d["page_indices"])
        d["page_indices"] = view
    before = d["state_pool"].clone()
    with pytest.raises(gdn.GDNValueError, match=r"overlaps .* which the call writes"):
        paged_on_device(d, output=output)
    torch.cuda.synchronize()
    assert torch.equal(before, d["state_pool"])


@pytest.mark.parametrize("flags,exception,match", [
    ({"page_size": 2**62}, gdn.GDNValueError, r"page_size = 4611686018427387904 is not a multiple of 64 in \[64, 2\^30\]"),
    ({"page_size": 100}, gdn.GDNValueError, r"page_size = 100 is not a multiple of 64"),
    ({"page_size": 2**64 + 64}, gdn.GDNValueError, r"page_size = 18446744073709551680 is out of range"),
    ({"page_size": 64.0}, gdn.GDNTypeError, r"page_size is 64.0 \(float\)"),
    ({"scale": float("nan")}, gdn.GDNValueError, r"scale = nan"),
])
def test_integer_and_scale_checks_on_the_device(flags, exception, match):
    """Scalars are checked on every device call, checked mode or not."""
    rng, _ = problems.seeded()
    call = problems.paged_call(rng, [100], [0], H=2, HV=4, K=K, V=V)
    d = to_device(call)
    before = d["state_pool"].clone()
    with pytest.raises(exception, match=match):
        paged_on_device(d, **flags)
    torch.cuda.synchronize()
    assert torch.equal(before, d["state_pool"])


@pytest.mark.parametrize("A_log", [86.0, 89.0, 3.4e38])
def test_huge_A_log_is_finite_on_the_device(A_log):
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [300], H=2, HV=4, K=K, V=V)
    call["A_log"][:] = A_log
    d = to_device(call)
    before = d["state_pool"].clone()
    o = gdn.default_kernel().gdn_extend_chunkwise(**d)
    torch.cuda.synchronize()
    ref_o, ref_pool = R.pool_reference(
        host(d["q"]), host(d["k"]), host(d["v"]), call["a"], call["b"],
        call["A_log"], call["dt_bias"], host(before), call["cache_indices"],
        call["cu_seqlens"])
    assert torch.isfinite(o.float()).all() and torch.isfinite(d["state_pool"]).all()
    assert R.rel_l2(host(o), ref_o) <= TOL, "seed %d" % seed
    assert R.rel_l2(host(d["state_pool"]), ref_pool) <= TOL, "seed %d" % seed


def test_log_gates_of_minus_3e38_on_the_device():
    rng, seed = problems.seeded()
    call = problems.paged_call(rng, [200], [30], H=2, HV=4, K=K, V=V)
    call["g"][::5] = -3e38
    d = to_device(call)
    before = d["state_pool"].clone()
    o = paged_on_device(d)
    torch.cuda.synchronize()
    ref_o, ref_pool, written = R.paged_reference(
        host(d["q"]), host(d["k"]), host(d["v"]), call["g"], call["beta"], None,
        call["cu_seqlens"], host(before), call["page_indices"],
        call["page_indptr"], 64, call["last_page_len"], True, "log", False)
    assert R.rel_l2(host(o), ref_o) <= TOL, "seed %d" % seed
    pool = host(d["state_pool"])
    for page in written:
        assert R.rel_l2(pool[page], ref_pool[page]) <= TOL, "seed %d page %d" % (seed, page)


def test_cuda_graph_replay_matches_eager():
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [500, 200], H=2, HV=4, K=K, V=V)
    d = to_device(call)
    start = d["state_pool"].clone()
    o_eager = gdn.gdn_extend_chunkwise(**d)      # sizes the workspace
    pool_eager = d["state_pool"].clone()
    d["state_pool"].copy_(start)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        gdn.gdn_extend_chunkwise(**d)            # warm-up on the side stream
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        o_graph = gdn.gdn_extend_chunkwise(**d)
    d["state_pool"].copy_(start)
    o_graph.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(o_graph, o_eager), "seed %d: replay differs from eager" % seed
    assert torch.equal(d["state_pool"], pool_eager), "seed %d: pool differs" % seed


def paged_layer_reference(layer, tables, before):
    return R.paged_reference(
        host(layer["q"]), host(layer["k"]), host(layer["v"]), host(layer["g"]),
        host(layer["beta"]), None, host(tables["cu_seqlens"]), before,
        host(tables["page_indices"]), host(tables["page_indptr"]),
        tables["page_size"], host(tables["last_page_len"]), True, "log", False)


def device_step(rng, layers=4, H=2):
    """problems.paged_step on the GPU, with int32 tables as engines keep
    them."""
    tables, steps = problems.paged_step(rng, [200, 64, 90, 0], [30, 128, 0, 40],
                                        layers, H=H, HV=4, K=K, V=V)
    steps = [to_device(layer) for layer in steps]
    d = to_device(tables)
    for name in ("cu_seqlens", "page_indices", "page_indptr", "last_page_len"):
        d[name] = d[name].to(torch.int32)
    for layer in steps:
        layer["beta"] = layer["beta"].sigmoid()
    return d, steps


def run_layer(kernel, layer, tables, slots, output=None):
    # device_step's beta is a strength (sigmoid applied), not a logit.
    return problems.run_paged_layer(kernel, layer, tables, slots, output,
                                    beta_is_logit=False)


def test_a_step_of_layers_shares_one_plan_and_slots():
    """Every layer of a step (own tensors, own pool) through one slots
    object: each matches the reference, writes exactly its pages, and the
    kernel keeps one plan; the step captured in a graph replays the eager
    results bit for bit."""
    rng, seed = problems.seeded()
    tables, steps = device_step(rng)
    kernel = gdn.compile(schedule="auto")
    starts = [layer["state_pool"].clone() for layer in steps]
    slots = gdn.gdn_paged_prefill_slots(
        tables["cu_seqlens"], tables["page_indices"], tables["page_indptr"],
        tables["page_size"], tables["last_page_len"])
    outputs = []
    for layer in steps:
        poisoned = torch.full(layer["v"].shape, float("nan"), device="cuda",
                              dtype=layer["v"].dtype)
        outputs.append(run_layer(kernel, layer, tables, slots, poisoned))
    torch.cuda.synchronize()
    assert len(kernel._plans) == 1, "seed %d: %d plans" % (seed, len(kernel._plans))
    for i, (layer, o, before) in enumerate(zip(steps, outputs, starts)):
        ref_o, ref_pool, written = paged_layer_reference(layer, tables, host(before))
        assert torch.isfinite(o.float()).all(), "seed %d layer %d: o not all written" % (seed, i)
        assert R.rel_l2(host(o), ref_o) <= TOL, "seed %d layer %d" % (seed, i)
        pool = host(layer["state_pool"])
        for page in range(pool.shape[0]):
            if page in written:
                assert R.rel_l2(pool[page], ref_pool[page]) <= TOL, \
                    "seed %d layer %d page %d" % (seed, i, page)
            else:
                assert (pool[page] == host(before)[page]).all(), \
                    "seed %d layer %d: page %d changed" % (seed, i, page)
    eager = [(o.clone(), layer["state_pool"].clone()) for o, layer in zip(outputs, steps)]

    def step():
        s = gdn.gdn_paged_prefill_slots(
            tables["cu_seqlens"], tables["page_indices"], tables["page_indptr"],
            tables["page_size"], tables["last_page_len"])
        return [run_layer(kernel, layer, tables, s) for layer in steps]

    for layer, start in zip(steps, starts):
        layer["state_pool"].copy_(start)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = step()
    for layer, start in zip(steps, starts):
        layer["state_pool"].copy_(start)
    graph.replay()
    torch.cuda.synchronize()
    for i, (o, layer) in enumerate(zip(captured, steps)):
        assert torch.equal(o, eager[i][0]), "seed %d layer %d: replay differs" % (seed, i)
        assert torch.equal(layer["state_pool"], eager[i][1]), "seed %d layer %d" % (seed, i)


def test_slots_of_another_step_are_refused():
    rng, _ = problems.seeded()
    tables, steps = device_step(rng, layers=1)
    slots = gdn.gdn_paged_prefill_slots(
        tables["cu_seqlens"].clone(), tables["page_indices"], tables["page_indptr"],
        tables["page_size"], tables["last_page_len"])
    before = steps[0]["state_pool"].clone()
    with pytest.raises(ValueError, match=r"GDNPagedPrefillSlots\(.*\) were made "
                       r"for another cu_seqlens"):
        run_layer(gdn.compile(schedule="auto"), steps[0], tables, slots)
    torch.cuda.synchronize()
    assert torch.equal(before, steps[0]["state_pool"])


def test_checked_slots_refuse_tables_changed_in_place():
    rng, _ = problems.seeded()
    tables, steps = device_step(rng, layers=2)
    kernel = gdn.compile(schedule="auto", checked=True)
    slots = gdn.gdn_paged_prefill_slots(
        tables["cu_seqlens"], tables["page_indices"], tables["page_indptr"],
        tables["page_size"], tables["last_page_len"])
    run_layer(kernel, steps[0], tables, slots)
    tables["last_page_len"][0] -= 1            # still a valid table
    before = steps[1]["state_pool"].clone()
    with pytest.raises(ValueError, match=r"the values of last_page_len changed "
                       r"since GDNPagedPrefillSlots"):
        run_layer(kernel, steps[1], tables, slots)
    torch.cuda.synchronize()
    assert torch.equal(before, steps[1]["state_pool"])


def test_slots_made_on_one_stream_serve_calls_on_another():
    """int32 tables are copied to int64 on the stream the slots are made
    on; layer calls on a side stream wait for the copies."""
    rng, seed = problems.seeded()
    tables, steps = device_step(rng, layers=2)
    kernel = gdn.compile(schedule="auto")
    starts = [layer["state_pool"].clone() for layer in steps]
    slots = gdn.gdn_paged_prefill_slots(
        tables["cu_seqlens"], tables["page_indices"], tables["page_indptr"],
        tables["page_size"], tables["last_page_len"])
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        outputs = [run_layer(kernel, layer, tables, slots) for layer in steps]
    torch.cuda.synchronize()
    for i, (layer, o, before) in enumerate(zip(steps, outputs, starts)):
        ref_o, ref_pool, written = paged_layer_reference(layer, tables, host(before))
        assert R.rel_l2(host(o), ref_o) <= TOL, "seed %d layer %d" % (seed, i)
        problems.assert_pages(host(layer["state_pool"]), host(before), ref_pool,
                              written, TOL, "seed %d layer %d" % (seed, i))


def test_a_planned_call_still_refuses_aliasing():
    """The second call of a layout runs its plan; an output laid over q
    (same layout as a fresh output) is refused there, nothing written."""
    rng, _ = problems.seeded()
    tables, steps = device_step(rng, layers=2, H=4)   # o and q alike
    kernel = gdn.compile(schedule="auto")
    run_layer(kernel, steps[0], tables, None)
    before = steps[1]["state_pool"].clone()
    q = steps[1]["q"].clone()
    with pytest.raises(ValueError, match=r"overlaps 'o'"):
        run_layer(kernel, steps[1], tables, None, output=steps[1]["q"])
    torch.cuda.synchronize()
    assert len(kernel._plans) == 1
    assert torch.equal(before, steps[1]["state_pool"])
    assert torch.equal(q, steps[1]["q"])


def _adapter_inputs(rng, cu, H=2, HV=4):
    """bf16 q / k / v of FLA's recipe on the device, fp32 gates, and their
    host float copies for the reference."""
    from test_adapters import _inputs
    q, k, v, g, beta = _inputs(rng, int(cu[-1]), H, HV, K, V)
    dev = [torch.from_numpy(x.astype(np.float32)).to("cuda", torch.bfloat16)
           for x in (q, k, v)] + [torch.from_numpy(x).cuda() for x in (g, beta)]
    return dev, [host(x) for x in dev]


def test_fla_adapter():
    from test_adapters import _reference
    rng, seed = problems.seeded()
    cu = np.array([0, 300, 300, 430])
    (q, k, v, g, beta), (hq, hk, hv, hg, hb) = _adapter_inputs(rng, cu)
    h0 = torch.randn(3, 4, K, V, device="cuda")
    kept = h0.clone()
    o, ht = gdn.fla.chunk_gated_delta_rule(
        q[None], k[None], v[None], g[None], beta[None], initial_state=h0,
        output_final_state=True, cu_seqlens=torch.from_numpy(cu).cuda())
    torch.cuda.synchronize()
    ref_o, ref_h = _reference(hq, hk, hv, np.exp(hg), hb, K ** -0.5, cu,
                              host(h0).swapaxes(-1, -2))
    assert torch.equal(h0, kept)
    assert o.shape == (1, 430, 4, V) and o.dtype == torch.bfloat16
    assert R.rel_l2(host(o[0]), ref_o) <= TOL, seed
    assert R.rel_l2(host(ht), ref_h.swapaxes(-1, -2)) <= TOL, seed


def test_flashinfer_adapter_in_place_and_checkpoints():
    from test_adapters import _reference
    rng, seed = problems.seeded()
    cu = np.array([0, 300, 428, 430])
    (q, k, v, g, beta), (hq, hk, hv, hg, hb) = _adapter_inputs(rng, cu)
    alpha = g.exp()
    every, starts = 128, np.array([0, 2, 3, 3])
    state = torch.randn(3, 4, V, K, device="cuda")
    h0 = host(state).copy()
    checkpoints = torch.full((3, 4, V, K), float("nan"), device="cuda")
    cu_d = torch.from_numpy(cu).cuda()
    o = gdn.flashinfer.chunk_gated_delta_rule(
        q, k, v, alpha, beta, initial_state=state, cu_seqlens=cu_d,
        output_state=state)
    o2, final = gdn.flashinfer.chunk_gated_delta_rule(
        q, k, v, alpha, beta, initial_state=torch.from_numpy(h0).cuda(),
        output_final_state=True, cu_seqlens=cu_d, state_checkpoints=checkpoints,
        checkpoint_cu_starts=torch.from_numpy(starts).cuda(),
        checkpoint_every_n_tokens=every)
    torch.cuda.synchronize()
    halpha = np.exp(hg)
    ref_o, ref_h = _reference(hq, hk, hv, halpha, hb, K ** -0.5, cu, h0)
    for got in (o, o2):
        assert R.rel_l2(host(got), ref_o) <= TOL, seed
    for got in (state, final):
        assert R.rel_l2(host(got), ref_h) <= TOL, seed
    for s in range(3):
        for j in range(starts[s + 1] - starts[s]):
            end = cu[s] + (j + 1) * every
            _, ref_c = _reference(hq, hk, hv, halpha, hb, K ** -0.5,
                                  [cu[s], end], h0[s:s + 1])
            assert R.rel_l2(host(checkpoints[starts[s] + j]), ref_c[0]) <= TOL, seed


if __name__ == "__main__":
    import sys
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
