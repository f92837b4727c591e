"""The Python entry on host (numpy) tensors, against the float64 reference.

Every test draws fresh random inputs (the seed is in each failure message),
poisons what the kernels must write, and checks that every output element
and every state row or page the call must write was written, and that
nothing else in the pool changed (byte for byte).
"""

import numpy as np
import pytest

import gdn
import problems
import reference as R

TOL = 5e-3  # SPEC.md's accuracy bar (relative L2)


@pytest.fixture(scope="module")
def fused():
    return gdn.compile(schedule="fused")


@pytest.fixture(autouse=True)
def poisoned_outputs(monkeypatch):
    """Outputs the package allocates start as NaN, so that an element the
    kernel does not write fails the finiteness checks."""
    from gdn import _kernel

    def poisoned(v, name):
        return np.full(v.shape, np.nan, v.dtype)
    monkeypatch.setattr(_kernel, "_empty_like", poisoned)


def run_pool(kernel, call):
    args = {k: v for k, v in call.items()}
    return kernel.gdn_extend_chunkwise(**args)


def check_pool(call, before, o, seed):
    ref_o, ref_pool = R.pool_reference(
        call["q"], call["k"], call["v"], call["a"], call["b"], call["A_log"],
        call["dt_bias"], before, call["cache_indices"], call["cu_seqlens"])
    assert np.isfinite(o.astype(np.float64)).all(), "seed %d: o not all written" % seed
    assert R.rel_l2(o, ref_o) <= TOL, "seed %d: o error %g" % (seed, R.rel_l2(o, ref_o))
    cu = call["cu_seqlens"]
    written = {int(r) for s, r in enumerate(call["cache_indices"]) if cu[s + 1] > cu[s]}
    problems.assert_pages(call["state_pool"], before, ref_pool, written, TOL,
                          "seed %d" % seed)


@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_pool_interface_matches_reference(fused, index_dtype):
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [100, 0, 37, 64], index_dtype=index_dtype)
    before = call["state_pool"].copy()
    o = run_pool(fused, call)
    assert o.shape == call["v"].shape and o.dtype == call["v"].dtype
    check_pool(call, before, o, seed)


def test_module_function_is_seed_000(fused):
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [70])
    before = call["state_pool"].copy()
    o = gdn.gdn_extend_chunkwise(**call, chunk_size=64)
    check_pool(call, before, o, seed)


def paged_check(call, before, o, seed, gate_domain="log", l2norm=True,
                beta_is_logit=True, scale=None, pool_f64=None):
    ref_o, ref_pool, written = R.paged_reference(
        call["q"], call["k"], call["v"], call["g"], call["beta"], scale,
        call["cu_seqlens"], before if pool_f64 is None else pool_f64,
        call["page_indices"], call["page_indptr"], call["page_size"],
        call["last_page_len"], l2norm, gate_domain, beta_is_logit)
    assert np.isfinite(o.astype(np.float64)).all(), "seed %d: o not all written" % seed
    assert R.rel_l2(o, ref_o) <= TOL, "seed %d: o error %g" % (seed, R.rel_l2(o, ref_o))
    return ref_pool, written


def paged_kwargs(call, **extra):
    kw = {k: v for k, v in call.items() if k not in ("q", "k", "v", "g", "beta")}
    kw.update(extra)
    return kw


@pytest.mark.parametrize("gate_domain", ["log", "linear"])
def test_paged_interface_matches_reference(fused, gate_domain):
    rng, seed = problems.seeded()
    # A mid-page prefix, a page-aligned prefix, no prefix, a zero-length
    # sequence with a prefix.
    call = problems.paged_call(rng, [150, 64, 90, 0], [30, 128, 0, 40],
                               page_size=64, gate_domain=gate_domain)
    before = call["state_pool"].copy()
    output = np.full(call["v"].shape, np.nan, call["v"].dtype)
    o = fused.chunk_gated_delta_rule_paged(
        call["q"], call["k"], call["v"], call["g"], call["beta"],
        **paged_kwargs(call, use_qk_l2norm_in_kernel=True, output=output,
                       gate_domain=gate_domain, beta_is_logit=True))
    assert o is output, "output= must be written and returned"
    ref_pool, written = paged_check(call, before, o, seed, gate_domain)
    problems.assert_pages(call["state_pool"], before, ref_pool, written, TOL,
                          "seed %d" % seed)


def test_module_function_is_seed_004_with_slots():
    rng, seed = problems.seeded()
    call = problems.paged_call(rng, [100], [10], page_size=128)
    # Without l2norm and logits, keep the recurrence contracting.
    for name in ("q", "k"):
        call[name] = (call[name] / 8).astype(call[name].dtype)
    call["beta"] = rng.uniform(0, 1, call["beta"].shape).astype(np.float32)
    before = call["state_pool"].copy()
    slots = gdn.gdn_paged_prefill_slots(
        call["cu_seqlens"], call["page_indices"], call["page_indptr"],
        call["page_size"], call["last_page_len"])
    o = gdn.chunk_gated_delta_rule_paged(
        call["q"], call["k"], call["v"], call["g"], call["beta"], 0.2,
        **paged_kwargs(call, gate_domain="log", slots=slots))
    paged_check(call, before, o, seed, l2norm=False, beta_is_logit=False,
                scale=0.2)


def test_pool_rows_padded_apart(fused):
    """Seed 004: 'the row stride may be padded'."""
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [80, 50])
    dense = call["state_pool"]
    P, row = dense.shape[0], dense[0].size
    storage = np.full((P, row + 40), 7.0, np.float32)
    storage[:, :row] = dense.reshape(P, row)
    padded = storage[:, :row].reshape(dense.shape)
    assert np.shares_memory(padded, storage) and not padded.flags.c_contiguous
    call["state_pool"] = padded
    before = padded.copy()
    o = run_pool(fused, call)
    check_pool(call, before, o, seed)
    assert (storage[:, row:] == 7.0).all(), "seed %d: the padding was written" % seed


def to_bf16_bits(x):
    bits = np.asarray(x, np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def test_bf16_state_pool(fused):
    """Seed 004: the pool's dtype is the state dtype; bf16 pools round the
    states they write once, to nearest even."""
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [90, 40])
    bits = to_bf16_bits(call["state_pool"])
    before = bits.copy()
    call["state_pool"] = gdn.bfloat16_view(bits)
    o = run_pool(fused, call)
    view_before = gdn.bfloat16_view(before)
    ref_o, ref_pool = R.pool_reference(
        call["q"], call["k"], call["v"], call["a"], call["b"], call["A_log"],
        call["dt_bias"], view_before, call["cache_indices"], call["cu_seqlens"])
    assert R.rel_l2(o, ref_o) <= TOL, "seed %d" % seed
    now = R._f64(gdn.bfloat16_view(bits))
    for row in range(bits.shape[0]):
        if row in {int(r) for r in call["cache_indices"]}:
            err = R.rel_l2(now[row], ref_pool[row])
            assert err <= TOL, "seed %d: row %d error %g" % (seed, row, err)
        else:
            assert (bits[row] == before[row]).all(), "seed %d: row %d changed" % (seed, row)


def padded_rows(pool, pad, fill):
    """`pool`'s rows `pad` elements apart in a larger buffer filled with
    `fill`: (the strided view, the buffer)."""
    P, row = pool.shape[0], pool[0].size
    storage = np.full((P, row + pad), fill, pool.dtype)
    storage[:, :row] = pool.reshape(P, row)
    view = storage[:, :row].reshape(pool.shape)
    assert np.shares_memory(view, storage) and not view.flags.c_contiguous
    return view, storage


@pytest.mark.parametrize("schedule", ["fused", "split-seq", "fused v-block=64"])
@pytest.mark.parametrize("pool_dtype", ["bf16", "f16", "f16-padded"])
def test_16bit_state_pool_read_and_written_in_place(schedule, pool_dtype):
    """bf16 and fp16 pools are the kernels' own (no fp32 copy), rows padded
    apart too: read widened, every checkpoint and final page written
    rounded to nearest even, every other page's bits and the padding
    untouched; a poisoned output fully written."""
    rng, seed = problems.seeded()
    call = problems.paged_call(rng, [150, 64, 90, 0], [30, 128, 0, 40],
                               page_size=64, K=64, V=128)
    storage = None
    if pool_dtype == "bf16":
        bits = to_bf16_bits(call["state_pool"])
        call["state_pool"] = gdn.bfloat16_view(bits)
        pool, before = bits, bits.copy()
        now = lambda: R._f64(gdn.bfloat16_view(bits))
        pool_f64 = R._f64(gdn.bfloat16_view(before))
    else:
        call["state_pool"] = call["state_pool"].astype(np.float16)
        if pool_dtype == "f16-padded":
            call["state_pool"], storage = padded_rows(call["state_pool"], 24, 7.0)
        pool, before = call["state_pool"], call["state_pool"].copy()
        now = lambda: pool.astype(np.float64)
        pool_f64 = before.astype(np.float64)
    output = np.full(call["v"].shape, np.nan, call["v"].dtype)
    o = gdn.compile(schedule=schedule).chunk_gated_delta_rule_paged(
        call["q"], call["k"], call["v"], call["g"], call["beta"], output=output,
        **paged_kwargs(call, gate_domain="log", use_qk_l2norm_in_kernel=True,
                       beta_is_logit=True))
    ref_pool, written = paged_check(call, None, o, seed, pool_f64=pool_f64)
    assert written, "the call writes pages"
    current = now()
    for page in range(pool.shape[0]):
        if page in written:
            err = R.rel_l2(current[page], ref_pool[page])
            # One rounding of a state: bf16 keeps 8 bits, fp16 11.
            assert err <= (4e-3 if pool_dtype == "bf16" else 1e-3), \
                "seed %d: page %d error %g" % (seed, page, err)
        else:
            assert pool[page].tobytes() == before[page].tobytes(), \
                "seed %d: page %d changed" % (seed, page)
    if storage is not None:
        assert (storage[:, -24:] == 7.0).all(), "seed %d: padding written" % seed


@pytest.mark.parametrize("schedule", ["staged", "split-seq", "auto"])
def test_schedules(schedule):
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [200, 30])
    before = call["state_pool"].copy()
    o = run_pool(gdn.compile(schedule=schedule), call)
    check_pool(call, before, o, seed)


def test_v_split_schedule():
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [100], K=128, V=128)
    before = call["state_pool"].copy()
    o = run_pool(gdn.compile(schedule="fused v-block=64"), call)
    check_pool(call, before, o, seed)


def test_no_new_tokens(fused):
    """Zero-length sequences (SPEC.md), down to a batch without tokens:
    nothing is computed and the pool is untouched."""
    rng, seed = problems.seeded()
    for seqlens in ([0, 0], []):
        call = problems.pool_call(rng, seqlens)
        before = call["state_pool"].copy()
        o = run_pool(fused, call)
        assert o.shape == (0, 2, 64)
        assert call["state_pool"].tobytes() == before.tobytes()


def test_numpy_integer_page_size(fused):
    rng, seed = problems.seeded()
    call = problems.paged_call(rng, [70], [0], page_size=64)
    before = call["state_pool"].copy()
    call["page_size"] = np.int64(64)
    o = fused.chunk_gated_delta_rule_paged(
        call["q"], call["k"], call["v"], call["g"], call["beta"],
        **paged_kwargs(call, gate_domain="log", use_qk_l2norm_in_kernel=True,
                       beta_is_logit=True))
    paged_check(call, before, o, seed)


@pytest.mark.parametrize("pool_dtype", ["f32", "bf16"])
def test_zero_length_sequence_sharing_a_row(fused, pool_dtype):
    """A zero-length sequence may name the row another sequence writes
    (validatePoolTable allows it); staging must not write the stale copy."""
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [90, 0, 40])
    call["cache_indices"][1] = call["cache_indices"][0]
    if pool_dtype == "bf16":
        bits = to_bf16_bits(call["state_pool"])
        call["state_pool"] = gdn.bfloat16_view(bits)
        before = R._f64(gdn.bfloat16_view(bits.copy()))
    else:
        before = call["state_pool"].copy()
    o = run_pool(fused, call)
    ref_o, ref_pool = R.pool_reference(
        call["q"], call["k"], call["v"], call["a"], call["b"], call["A_log"],
        call["dt_bias"], before, call["cache_indices"], call["cu_seqlens"])
    assert R.rel_l2(o, ref_o) <= TOL, "seed %d" % seed
    now = R._f64(call["state_pool"])
    for row in {int(call["cache_indices"][0]), int(call["cache_indices"][2])}:
        err = R.rel_l2(now[row], ref_pool[row])
        assert err <= TOL, "seed %d: row %d error %g" % (seed, row, err)


def test_page_table_longer_than_its_pages(fused):
    """Preallocated page tables: entries past page_indptr[B] are garbage
    and must be neither read nor written (here with a staged bf16 pool)."""
    rng, seed = problems.seeded()
    call = problems.paged_call(rng, [100, 30], [20, 0], page_size=64)
    call["page_indices"] = np.concatenate([call["page_indices"], [-1, 10**9]])
    bits = to_bf16_bits(call["state_pool"])
    before = bits.copy()
    call["state_pool"] = gdn.bfloat16_view(bits)
    o = fused.chunk_gated_delta_rule_paged(
        call["q"], call["k"], call["v"], call["g"], call["beta"],
        **paged_kwargs(call, gate_domain="log", use_qk_l2norm_in_kernel=True,
                       beta_is_logit=True))
    ref_pool, written = paged_check(call, None, o, seed,
                                    pool_f64=R._f64(gdn.bfloat16_view(before)))
    now = R._f64(gdn.bfloat16_view(bits))
    for page in range(bits.shape[0]):
        if page in written:
            assert R.rel_l2(now[page], ref_pool[page]) <= TOL, "seed %d" % seed
        else:
            assert (bits[page] == before[page]).all(), "seed %d: page %d" % (seed, page)
