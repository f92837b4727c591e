"""Hostile arguments on host (numpy) tensors: every call is either refused
with a GDNArgumentError naming the argument, the pool byte-identical, or
runs and matches the float64 reference (docs/BadInputs.md lists the
limits). Fresh random inputs per test; outputs start as NaN."""

import numpy as np
import pytest

import gdn
import problems
import reference as R

TOL = 5e-3
T, H, HV, D = 10, 1, 2, 64


@pytest.fixture(scope="module")
def fused():
    return gdn.compile(schedule="fused")


def small_paged(rng, pages=1, page_size=64, last=T, gate_domain="log"):
    """The issue's reproducer shape: T = 10 tokens of one sequence, K = V =
    64, fp16, log gates, one page per `pages` (ids 0..pages-1 of a pool of
    pages + 2)."""
    P = pages + 2
    return dict(
        q=rng.standard_normal((T, H, D)).astype(np.float16),
        k=rng.standard_normal((T, H, D)).astype(np.float16),
        v=rng.standard_normal((T, HV, D)).astype(np.float16),
        g=-rng.uniform(0, 0.5, (T, HV)).astype(np.float32),
        beta=rng.uniform(0, 1, (T, HV)).astype(np.float32),
        state_pool=(rng.standard_normal((P, HV, D, D)) * 0.1).astype(np.float32),
        cu_seqlens=np.array([0, T], np.int64),
        page_indices=rng.permutation(P)[:pages].astype(np.int64),
        page_indptr=np.array([0, pages], np.int64),
        last_page_len=np.array([last], np.int64),
        page_size=page_size)


def run_paged(kernel, call, **flags):
    kw = {n: x for n, x in call.items() if n not in ("q", "k", "v", "g", "beta")}
    if call["v"] is not None:
        kw.setdefault("output", np.full(call["v"].shape, np.nan, call["v"].dtype))
    kw.update(flags)
    return kernel.chunk_gated_delta_rule_paged(
        call["q"], call["k"], call["v"], call["g"], call["beta"],
        use_qk_l2norm_in_kernel=True, gate_domain=kw.pop("gate_domain", "log"),
        **kw)


def check_paged(call, before, o, seed, gate_domain="log", scale=None):
    """o and every page the call writes match the reference; no other page
    changed."""
    ref_o, ref_pool, written = R.paged_reference(
        call["q"], call["k"], call["v"], call["g"], call["beta"], scale,
        call["cu_seqlens"], before, call["page_indices"], call["page_indptr"],
        call["page_size"], call["last_page_len"], True, gate_domain, False)
    assert np.isfinite(ref_o).all() and np.isfinite(ref_pool).all()
    assert np.isfinite(o.astype(np.float64)).all(), "seed %d: o not finite" % seed
    assert R.rel_l2(o, ref_o) <= TOL, "seed %d: o error %g" % (seed, R.rel_l2(o, ref_o))
    problems.assert_pages(call["state_pool"], before, ref_pool, written, TOL,
                          "seed %d" % seed)


def refused(call_fn, pool, exception, match):
    """The call raises `exception` (a GDNArgumentError) matching `match` and
    leaves `pool` byte-identical."""
    before = np.array(pool, copy=True)
    with pytest.raises(exception, match=match) as info:
        call_fn()
    assert isinstance(info.value, gdn.GDNArgumentError), type(info.value)
    assert np.array(pool).tobytes() == before.tobytes(), "the pool changed"


# ---- 1, 2, 3: integers ------------------------------------------------------

@pytest.mark.parametrize("pages", [2, 5])
def test_page_size_that_overflowed_the_page_arithmetic(fused, pages):
    rng, _ = problems.seeded()
    call = small_paged(rng, pages=pages, page_size=2**62)
    refused(lambda: run_paged(fused, call), call["state_pool"], gdn.GDNValueError,
            r"page_size = 4611686018427387904 is not a multiple of 64 in \[64, 2\^30\]")


def test_largest_page_size_matches_the_exact_reference(fused):
    """2^30-token pages: the prefix is 2^30 tokens, so the initial state is
    read from the first page and the final one written to the second."""
    rng, seed = problems.seeded()
    call = small_paged(rng, pages=2, page_size=2**30)
    before = call["state_pool"].copy()
    check_paged(call, before, run_paged(fused, call), seed)


def test_sequence_longer_than_2_to_the_31_tokens(fused):
    rng, _ = problems.seeded()
    call = small_paged(rng, pages=3, page_size=2**30)
    refused(lambda: run_paged(fused, call), call["state_pool"], gdn.GDNValueError,
            r"sequence 0 has 3 pages .*more than 2\^31 - 1 tokens in one sequence")


@pytest.mark.parametrize("page_size,exception,match", [
    (2**64 + 64, gdn.GDNValueError, r"page_size = 18446744073709551680 is out of range"),
    (2**63, gdn.GDNValueError, r"page_size = 9223372036854775808 is out of range"),
    (-2**63, gdn.GDNValueError, r"page_size = -9223372036854775808 is not a multiple of 64"),
    (2**30 + 64, gdn.GDNValueError, r"page_size = 1073741888 is not a multiple of 64 in"),
    (64.0, gdn.GDNTypeError, r"page_size is 64.0 \(float\); expected an int"),
    ("64", gdn.GDNTypeError, r"page_size is '64' \(str\); expected an int"),
    (True, gdn.GDNTypeError, r"page_size is True; expected an int"),
    (None, gdn.GDNTypeError, r"page_size is None"),
])
def test_page_size_is_an_int_in_range(fused, page_size, exception, match):
    rng, _ = problems.seeded()
    call = small_paged(rng)
    call["page_size"] = page_size
    refused(lambda: run_paged(fused, call), call["state_pool"], exception, match)


def pool_call(rng, T=90, A_log=None):
    call = problems.pool_call(rng, [T], HV=2, K=D, V=D)
    if A_log is not None:
        call["A_log"] = np.full(2, A_log, np.float32)
    return call


@pytest.mark.parametrize("chunk_size,exception,match", [
    (2**64 + 64, gdn.GDNValueError, r"chunk_size = 18446744073709551680 is out of range"),
    (64.9, gdn.GDNTypeError, r"chunk_size is 64.9 \(float\); expected an int"),
    ("64", gdn.GDNTypeError, r"chunk_size is '64' \(str\)"),
    ("x", gdn.GDNTypeError, r"chunk_size is 'x' \(str\)"),
    (True, gdn.GDNTypeError, r"chunk_size is True"),
    (96, gdn.GDNValueError, r"chunk size \(--chunk-size, chunk_size\) 96 is not supported: expected 32, 64 or 128"),
    (-2**63, gdn.GDNValueError, r"chunk size .* -9223372036854775808 is not supported"),
])
def test_chunk_size_is_an_int(fused, chunk_size, exception, match):
    rng, _ = problems.seeded()
    call = pool_call(rng)
    refused(lambda: fused.gdn_extend_chunkwise(**call, chunk_size=chunk_size),
            call["state_pool"], exception, match)


def test_numpy_integer_chunk_size(fused):
    rng, _ = problems.seeded()
    call = pool_call(rng)
    fused.gdn_extend_chunkwise(**call, chunk_size=np.int32(64))


@pytest.mark.parametrize("scale,exception,match", [
    ("x", gdn.GDNTypeError, r"scale is 'x' \(str\); expected a real number"),
    (True, gdn.GDNTypeError, r"scale is True"),
    (float("nan"), gdn.GDNValueError, r"scale = nan; expected a finite number"),
    (float("inf"), gdn.GDNValueError, r"scale = inf"),
    (10**400, gdn.GDNTypeError, r"scale is 1000.* does not fit a float"),
])
def test_scale_is_a_finite_real(fused, scale, exception, match):
    rng, _ = problems.seeded()
    call = small_paged(rng)
    refused(lambda: run_paged(fused, call, scale=scale), call["state_pool"],
            exception, match)


@pytest.mark.parametrize("entry,value,match", [
    ("cu_seqlens", 2**63 - 1, r"cu_seqlens"),
    ("page_indptr", 2**63 - 1, r"page_indptr"),
    ("page_indptr", -2**63, r"page_indptr"),
    ("page_indices", 2**63 - 1, r"page_indices\[0\] = 9223372036854775807 is outside"),
    ("page_indices", -2**63, r"page_indices\[0\] = -9223372036854775808 is outside"),
    ("last_page_len", 2**63 - 1, r"last_page_len\[0\] = 9223372036854775807 is outside"),
    ("last_page_len", -2**63, r"last_page_len\[0\] = -9223372036854775808 is outside"),
])
def test_extreme_index_entries(fused, entry, value, match):
    rng, _ = problems.seeded()
    call = small_paged(rng, pages=2)
    call[entry] = call[entry].copy()
    call[entry][-1 if entry != "page_indices" else 0] = value
    refused(lambda: run_paged(fused, call), call["state_pool"], gdn.GDNValueError, match)


# ---- 4: finite gates, finite results -----------------------------------------

@pytest.mark.parametrize("A_log", [84.0, 86.0, 88.0, -3.4e38])
def test_huge_A_log_decays_to_zero_not_nan(fused, A_log):
    rng, seed = problems.seeded()
    call = pool_call(rng, A_log=A_log)
    before = call["state_pool"].copy()
    o = fused.gdn_extend_chunkwise(**call, output=np.full(call["v"].shape, np.nan,
                                                          call["v"].dtype))
    ref_o, ref_pool = R.pool_reference(
        call["q"], call["k"], call["v"], call["a"], call["b"], call["A_log"],
        call["dt_bias"], before, call["cache_indices"], call["cu_seqlens"])
    pool = call["state_pool"]
    assert np.isfinite(o.astype(np.float64)).all() and np.isfinite(pool).all()
    assert R.rel_l2(o, ref_o) <= TOL, "seed %d: o error %g" % (seed, R.rel_l2(o, ref_o))
    assert R.rel_l2(pool, ref_pool) <= TOL, "seed %d" % seed


@pytest.mark.parametrize("A_log", [88.01, 89.0, 1e30, 3.4e38])
def test_A_log_whose_rate_overflows_f32_is_refused(fused, A_log):
    rng, _ = problems.seeded()
    call = pool_call(rng, A_log=A_log)
    refused(lambda: fused.gdn_extend_chunkwise(**call), call["state_pool"],
            gdn.GDNValueError, r"gate tensor 'A_log' F32\[2\] holds .* at element 0; "
            r"exp\(A_log\), the decay rate, must be a finite f32 with room: A_log <= 88")


@pytest.mark.parametrize("a", [-3.4e38, -1e4, 3.4e38])
def test_extreme_raw_gate_inputs(fused, a):
    """softplus(a + dt_bias) that underflows to 0 or overflows exp, with
    the largest A_log checked mode accepts (exp(88) = 1.7e38)."""
    rng, seed = problems.seeded()
    call = pool_call(rng, A_log=88.0)
    call["a"][::3] = a
    before = call["state_pool"].copy()
    o = fused.gdn_extend_chunkwise(**call)
    ref_o, ref_pool = R.pool_reference(
        call["q"], call["k"], call["v"], call["a"], call["b"], call["A_log"],
        call["dt_bias"], before, call["cache_indices"], call["cu_seqlens"])
    assert np.isfinite(o.astype(np.float64)).all()
    assert np.isfinite(call["state_pool"]).all()
    assert R.rel_l2(o, ref_o) <= TOL, "seed %d: o error %g" % (seed, R.rel_l2(o, ref_o))
    assert R.rel_l2(call["state_pool"], ref_pool) <= TOL, "seed %d" % seed


@pytest.mark.parametrize("g", [-3e38, -3.4028235e38, -1e30, -201.0, -1e-45])
def test_extreme_log_gates(fused, g):
    rng, seed = problems.seeded()
    call = small_paged(rng, pages=1)
    call["g"][:] = g
    before = call["state_pool"].copy()
    check_paged(call, before, run_paged(fused, call), seed)


def test_extreme_log_gates_mixed_with_mild_ones(fused):
    """A few -3e38 tokens between mild decays: the cumulative sums after them
    must keep the mild decays' differences."""
    rng, seed = problems.seeded()
    call = problems.paged_call(rng, [200], [30], page_size=64)
    call["g"][::7] = -3e38
    before = call["state_pool"].copy()
    kw = {n: x for n, x in call.items() if n not in ("q", "k", "v", "g", "beta")}
    o = fused.chunk_gated_delta_rule_paged(
        call["q"], call["k"], call["v"], call["g"], call["beta"],
        use_qk_l2norm_in_kernel=True, gate_domain="log", **kw)
    ref_o, ref_pool, written = R.paged_reference(
        call["q"], call["k"], call["v"], call["g"], call["beta"], None,
        call["cu_seqlens"], before, call["page_indices"], call["page_indptr"],
        call["page_size"], call["last_page_len"], True, "log", False)
    assert R.rel_l2(o, ref_o) <= TOL, "seed %d: o error %g" % (seed, R.rel_l2(o, ref_o))
    for page in written:
        assert R.rel_l2(call["state_pool"][page], ref_pool[page]) <= TOL, seed


def test_denormal_linear_gates(fused):
    rng, seed = problems.seeded()
    call = small_paged(rng, gate_domain="linear")
    call["g"] = np.full((T, HV), 1e-45, np.float32)
    before = call["state_pool"].copy()
    check_paged(call, before, run_paged(fused, call, gate_domain="linear"), seed,
                gate_domain="linear")


# ---- 5: aliasing --------------------------------------------------------------

def pool_bytes_as(pool, shape, dtype, row=0):
    """A view of `shape` / `dtype` over the pool's bytes from pool row `row`."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return pool[row].reshape(-1).view(np.uint8)[:n].view(dtype).reshape(shape)


def alias_output_over_pool(c):
    return pool_bytes_as(c["state_pool"], c["v"].shape, c["v"].dtype)


def alias_q_inside_written_page(c):
    c["q"] = pool_bytes_as(c["state_pool"], c["q"].shape, np.float16,
                           int(c["page_indices"][0]))
    c["q"][...] = 0.5


def alias_k_inside_an_untouched_page(c):
    untouched = [r for r in range(c["state_pool"].shape[0])
                 if r not in c["page_indices"]][0]
    c["k"] = pool_bytes_as(c["state_pool"], c["k"].shape, np.float16, untouched)


def alias_g_inside_pool(c):
    c["g"] = pool_bytes_as(c["state_pool"], c["g"].shape, np.float32, 1)


def alias_page_indices_inside_output(c):
    out = np.zeros(c["v"].shape, c["v"].dtype)
    view = out.reshape(-1).view(np.uint8)[:8 * len(c["page_indices"])].view(np.int64)
    view[...] = c["page_indices"]
    c["page_indices"] = view
    return out


def alias_output_is_v(c):
    return c["v"]


def alias_output_overlaps_q_by_one_element(c):
    n_out, n_q = T * HV * D, T * H * D
    buf = np.zeros(n_out + n_q - 1, np.float16)
    buf[n_out - 1:] = c["q"].reshape(-1)[:n_q]
    c["q"] = buf[n_out - 1:].reshape(T, H, D)
    return buf[:n_out].reshape(T, HV, D)


ALIASES = [alias_output_over_pool, alias_q_inside_written_page,
           alias_k_inside_an_untouched_page, alias_g_inside_pool,
           alias_page_indices_inside_output, alias_output_is_v,
           alias_output_overlaps_q_by_one_element]


@pytest.mark.parametrize("alias", ALIASES, ids=lambda f: f.__name__)
def test_aliasing_is_refused(fused, alias):
    rng, _ = problems.seeded()
    call = small_paged(rng, pages=1)
    out = alias(call)
    kw = {"output": out} if out is not None else {}
    refused(lambda: run_paged(fused, call, **kw), call["state_pool"],
            gdn.GDNValueError, r"overlaps .* which the call writes")


def test_read_only_tensors_may_share_memory(fused):
    """q and k the same array, g and beta views of one buffer: only read."""
    rng, seed = problems.seeded()
    call = small_paged(rng, pages=1)
    call["k"] = call["q"]
    both = np.concatenate([call["g"], -call["g"]], 1)
    call["g"], call["beta"] = both[:, :HV], -both[:, :HV]
    before = call["state_pool"].copy()
    check_paged(call, before, run_paged(fused, call), seed)


def test_pool_call_aliasing(fused):
    rng, _ = problems.seeded()
    call = pool_call(rng, T=10)
    out = pool_bytes_as(call["state_pool"], call["v"].shape, call["v"].dtype)
    refused(lambda: fused.gdn_extend_chunkwise(**call, output=out),
            call["state_pool"], gdn.GDNValueError, r"overlaps .* which the call writes")
    rng, _ = problems.seeded()
    call = pool_call(rng, T=10)
    call["A_log"] = pool_bytes_as(call["state_pool"], (2,), np.float32, 1)
    refused(lambda: fused.gdn_extend_chunkwise(**call), call["state_pool"],
            gdn.GDNValueError, r"tensor 'A_log' .* overlaps 'state_pool'")


# ---- 6, 7: bf16 from numpy, read-only and odd arrays, named refusals ------------

def to_bf16(x):
    bits = np.asarray(x, np.float32).view(np.uint32)
    return gdn.bfloat16_view(((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16))


def test_bf16_numpy_pool_call_allocates_its_output(fused):
    rng, seed = problems.seeded()
    call = pool_call(rng, T=70)
    for n in ("q", "k", "v"):
        call[n] = to_bf16(call[n])
    before = call["state_pool"].copy()
    o = fused.gdn_extend_chunkwise(**call)
    assert isinstance(o, gdn.bfloat16_view) and o.shape == call["v"].shape
    ref_o, ref_pool = R.pool_reference(
        call["q"], call["k"], call["v"], call["a"], call["b"], call["A_log"],
        call["dt_bias"], before, call["cache_indices"], call["cu_seqlens"])
    assert R.rel_l2(R._f64(o), ref_o) <= TOL, seed
    assert R.rel_l2(call["state_pool"], ref_pool) <= TOL, seed


def test_pool_call_writes_output(fused):
    rng, seed = problems.seeded()
    call = pool_call(rng, T=70)
    out = np.full(call["v"].shape, np.nan, call["v"].dtype)
    assert gdn.gdn_extend_chunkwise(**call, output=out) is out
    assert np.isfinite(out.astype(np.float64)).all(), seed


def test_read_only_inputs_are_read(fused):
    rng, seed = problems.seeded()
    call = small_paged(rng, pages=1)
    for name in ("q", "k", "v", "g", "beta", "cu_seqlens", "page_indices",
                 "page_indptr", "last_page_len"):
        call[name].flags.writeable = False
    before = call["state_pool"].copy()
    check_paged(call, before, run_paged(fused, call), seed)


@pytest.mark.parametrize("name", ["state_pool", "output"])
def test_read_only_pool_or_output_is_refused(fused, name):
    rng, _ = problems.seeded()
    call = small_paged(rng)
    out = np.zeros(call["v"].shape, call["v"].dtype)
    (call["state_pool"] if name == "state_pool" else out).flags.writeable = False
    tensor = "state_pool" if name == "state_pool" else "o"
    refused(lambda: run_paged(fused, call, output=out), call["state_pool"],
            gdn.GDNValueError, r"%s: the array is read-only and the call writes it" % tensor)


@pytest.mark.parametrize("name,make,match", [
    ("g", lambda x: x.astype(">f4"), r"tensor 'g' has dtype >f4, not in the machine's byte order"),
    ("q", lambda x: x.astype(">f2"), r"tensor 'q' has dtype >f2"),
    ("g", lambda x: x < -0.2, r"tensor 'g' has dtype bool; expected"),
    ("beta", lambda x: x.astype(np.complex64), r"tensor 'beta' has dtype complex64"),
    ("page_indptr", lambda x: x.astype(np.uint64), r"tensor 'page_indptr' has dtype uint64"),
    ("q", lambda x: x[:, :, ::-1], r"tensor 'q' .* negative stride"),
    ("g", lambda x: [list(r) for r in x], r"g: expected a tensor with __dlpack__ .* got list"),
])
def test_odd_arrays_are_named(fused, name, make, match):
    rng, _ = problems.seeded()
    call = small_paged(rng)
    call[name] = make(call[name])
    refused(lambda: run_paged(fused, call), call["state_pool"], gdn.GDNArgumentError, match)


@pytest.mark.parametrize("name", ["q", "k", "v", "state_pool", "cu_seqlens",
                                  "page_indices", "page_indptr", "last_page_len"])
def test_missing_paged_tensor_is_named(fused, name):
    rng, _ = problems.seeded()
    call = small_paged(rng)
    pool = call["state_pool"]
    call[name] = None
    refused(lambda: run_paged(fused, call), pool, gdn.GDNTypeError,
            r"chunk_gated_delta_rule_paged: %s is None; expected a tensor" % name)


def test_missing_gates_are_named(fused):
    rng, _ = problems.seeded()
    call = small_paged(rng)
    call["g"] = None
    refused(lambda: run_paged(fused, call), call["state_pool"], gdn.GDNValueError,
            r"missing tensor 'g' for the paged interface$")
    call = small_paged(rng)
    refused(lambda: run_paged(fused, call, use_gate_in_kernel=True),
            call["state_pool"], gdn.GDNValueError,
            r"missing tensor 'A_log' for the paged interface with use_gate_in_kernel")


@pytest.mark.parametrize("name", ["A_log", "dt_bias", "a", "v", "cache_indices"])
def test_missing_pool_tensor_is_named(fused, name):
    rng, _ = problems.seeded()
    call = pool_call(rng, T=10)
    call[name] = None
    refused(lambda: fused.gdn_extend_chunkwise(**call), call["state_pool"],
            gdn.GDNTypeError, r"gdn_extend_chunkwise: %s is None; expected a tensor$" % name)


def test_non_finite_inputs_are_refused_in_checked_mode(fused):
    for name in ("q", "k", "v"):
        rng, _ = problems.seeded()
        call = small_paged(rng)
        call[name] = call[name].copy()
        call[name][3, 0, 5] = np.inf
        refused(lambda: run_paged(fused, call), call["state_pool"], gdn.GDNValueError,
                r"tensor '%s' F16\[10, \d, 64\] has a non-finite value \(inf\) at element %d"
                % (name, 3 * call[name].shape[1] * D + 5))
