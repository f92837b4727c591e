"""Chunk sizes 32, 64 and 128 on the CPU back end (SPEC.md: a schedule
choice that never changes the result beyond rounding; the pool call's
chunk_size selects it, a schedule's chunk= may name it).

Every schedule kind runs the pool call at each size against the float64
reference, on fresh random inputs with poisoned outputs; the rows the call
must write are checked and every other row must be unchanged byte for byte.
Refusals leave the pool untouched.
"""

import numpy as np
import pytest

import gdn
import problems
import reference as R

TOL = 5e-3  # SPEC.md's accuracy bar (relative L2)

# Every kind and the values split-seq passes between its kernels, with
# segments short enough that the sequences below span several of them at
# every chunk size. (Chunks of 64 run in every other test file.)
SCHEDULES = [
    "fused",
    "staged output=with-state intermediates=bf16",
    "split-seq segment-chunks=2",
    "split-seq segment-chunks=2 replay=load first-segment=run "
    "first-segment-chunks=3 intermediates=bf16",
    "fused v-block=64",
]


@pytest.fixture(autouse=True)
def poisoned_outputs(monkeypatch):
    """Outputs the package allocates start as NaN, so that an element the
    kernel does not write fails the finiteness checks."""
    from gdn import _kernel
    monkeypatch.setattr(_kernel, "_empty_like",
                        lambda v, name: np.full(v.shape, np.nan, v.dtype))


def check_pool(call, before, o, what):
    ref_o, ref_pool = R.pool_reference(
        call["q"], call["k"], call["v"], call["a"], call["b"], call["A_log"],
        call["dt_bias"], before, call["cache_indices"], call["cu_seqlens"])
    assert np.isfinite(o.astype(np.float64)).all(), what + ": o not all written"
    err = R.rel_l2(o, ref_o)
    assert err <= TOL, "%s: o error %g" % (what, err)
    cu = call["cu_seqlens"]
    written = {int(r) for s, r in enumerate(call["cache_indices"])
               if cu[s + 1] > cu[s]}
    problems.assert_pages(call["state_pool"], before, ref_pool, written, TOL,
                          what)


@pytest.mark.parametrize("chunk", [32, 128])
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_pool_call_at_each_chunk_size(schedule, chunk):
    rng, seed = problems.seeded()
    # Lengths around the chunk sizes: short, one token past 128, several
    # chunks of every size, and an empty sequence.
    call = problems.pool_call(rng, [300, 0, 33, 129], K=64, V=128)
    before = call["state_pool"].copy()
    o = gdn.compile(schedule=schedule).gdn_extend_chunkwise(
        **call, chunk_size=chunk)
    check_pool(call, before, o, "seed %d, %s, chunk_size %d"
               % (seed, schedule, chunk))


def test_the_chunk_size_is_the_kernels():
    """The same call at each size: each within the bar, and no two final
    states bit-equal (the sums are grouped by chunk), so the size reached
    the kernel."""
    rng, seed = problems.seeded()
    call = problems.pool_call(rng, [300, 129])
    before = call["state_pool"].copy()
    kernel = gdn.compile(schedule="fused")
    states = {}
    for chunk in (32, 64, 128):
        call["state_pool"] = before.copy()
        o = kernel.gdn_extend_chunkwise(**call, chunk_size=chunk)
        check_pool(call, before, o, "seed %d, chunk_size %d" % (seed, chunk))
        states[chunk] = call["state_pool"]
    for a, b in ((32, 64), (64, 128), (32, 128)):
        assert not np.array_equal(states[a], states[b]), \
            "seed %d: chunk_size %d and %d gave the same state" % (seed, a, b)


def test_schedule_names_the_chunk():
    """chunk= in the schedule agrees with chunk_size; auto takes it too."""
    for schedule in ("fused chunk=128", "auto"):
        rng, seed = problems.seeded()
        call = problems.pool_call(rng, [200, 70])
        before = call["state_pool"].copy()
        o = gdn.compile(schedule=schedule).gdn_extend_chunkwise(
            **call, chunk_size=128)
        check_pool(call, before, o, "seed %d, %s" % (seed, schedule))


def test_paged_call_takes_the_schedules_chunk():
    rng, seed = problems.seeded()
    # Mid-page and page-aligned prefixes on 128-token pages.
    call = problems.paged_call(rng, [150, 128, 90], [30, 128, 0],
                               page_size=128, gate_domain="log")
    before = call["state_pool"].copy()
    kw = {k: v for k, v in call.items() if k not in ("q", "k", "v", "g", "beta")}
    o = gdn.compile(schedule="split-seq segment-chunks=1 chunk=128") \
        .chunk_gated_delta_rule_paged(
            call["q"], call["k"], call["v"], call["g"], call["beta"],
            use_qk_l2norm_in_kernel=True, gate_domain="log",
            beta_is_logit=True, **kw)
    ref_o, ref_pool, written = R.paged_reference(
        call["q"], call["k"], call["v"], call["g"], call["beta"], None,
        call["cu_seqlens"], before, call["page_indices"], call["page_indptr"],
        call["page_size"], call["last_page_len"], True, "log", True)
    assert np.isfinite(o.astype(np.float64)).all(), "seed %d" % seed
    assert R.rel_l2(o, ref_o) <= TOL, "seed %d: o error %g" % (
        seed, R.rel_l2(o, ref_o))
    problems.assert_pages(call["state_pool"], before, ref_pool, written, TOL,
                          "seed %d" % seed)


def refused_untouched(fn, call, match):
    before = call["state_pool"].copy()
    with pytest.raises(gdn.GDNValueError, match=match):
        fn()
    assert call["state_pool"].tobytes() == before.tobytes(), \
        "a refused call changed the pool"


def test_chunk_size_and_schedule_disagree():
    rng, _ = problems.seeded()
    call = problems.pool_call(rng, [40])
    kernel = gdn.compile(schedule="fused chunk=128")
    refused_untouched(
        lambda: kernel.gdn_extend_chunkwise(**call, chunk_size=64), call,
        r"chunk size \(--chunk-size, chunk_size\) 64 disagrees with the "
        r"schedule's chunk=128 \(schedule 'fused chunk=128'\)")


def test_page_size_not_a_multiple_of_the_chunk():
    rng, _ = problems.seeded()
    call = problems.paged_call(rng, [100], [10], page_size=64)
    kw = {k: v for k, v in call.items() if k not in ("q", "k", "v", "g", "beta")}
    kernel = gdn.compile(schedule="fused chunk=128")
    refused_untouched(
        lambda: kernel.chunk_gated_delta_rule_paged(
            call["q"], call["k"], call["v"], call["g"], call["beta"], **kw),
        call, r"page_size = 64 is not a multiple of the chunk size 128")


def test_unknown_chunk_in_a_schedule():
    with pytest.raises(gdn.GDNValueError, match=r"chunk=96 \(expected 32, 64 "
                       r"or 128: tokens per chunk\)"):
        gdn.compile(schedule="fused chunk=96")
