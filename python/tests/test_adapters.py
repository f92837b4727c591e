"""The peers' calls (gdn.fla, gdn.flashinfer) against the float64 recurrence
on fresh random inputs (CPU back end), with their peers' shapes, state
orientations and in-place rules, and their refusals."""

import numpy as np
import pytest

import gdn
import gdn.fla
import gdn.flashinfer
import reference as R
from problems import seeded

TOL = 5e-3


def _inputs(rng, T, H, HV, K, V, batch=None):
    lead = (T,) if batch is None else (batch, T)
    q = rng.standard_normal(lead + (H, K)).astype(np.float16)
    k = rng.standard_normal(lead + (H, K))
    k = (k / np.sqrt((k * k).sum(-1, keepdims=True))).astype(np.float16)
    v = rng.standard_normal(lead + (HV, V)).astype(np.float16)
    g = -rng.random(lead + (HV,)).astype(np.float32) * 0.5     # log decays
    beta = rng.random(lead + (HV,)).astype(np.float32)
    return q, k, v, g, beta


def _reference(q, k, v, alpha, beta, scale, cu, h0, l2norm=False):
    """o [T, HV, V] and final states [N, HV, V, K] in float64 from initial
    states h0 [N, HV, V, K]; q, k, v flat over tokens."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    if l2norm:
        q, k = R._l2norm(q), R._l2norm(k)
    o, finals = np.zeros(v.shape), np.array(h0, np.float64)
    for s in range(len(cu) - 1):
        a, b = cu[s], cu[s + 1]
        o[a:b] = R.recur(finals[s], q[a:b], k[a:b], v[a:b], alpha[a:b],
                         beta[a:b], scale)
    return o, finals


def test_fla_batch_with_initial_state():
    rng, seed = seeded()
    B, T, H, HV, K, V = 2, 37, 1, 2, 64, 64
    q, k, v, g, beta = _inputs(rng, T, H, HV, K, V, batch=B)
    h0 = rng.standard_normal((B, HV, K, V)).astype(np.float32)
    kept = h0.copy()
    o, ht = gdn.fla.chunk_gated_delta_rule(q, k, v, g, beta, initial_state=h0,
                                           output_final_state=True)
    assert o.shape == (B, T, HV, V) and o.dtype == np.float16
    assert ht.shape == (B, HV, K, V) and ht.dtype == np.float32
    assert (h0 == kept).all(), "initial_state was written (seed %d)" % seed
    flat = lambda x: x.reshape((B * T,) + x.shape[2:])
    ref_o, ref_h = _reference(flat(q), flat(k), flat(v), np.exp(flat(g)),
                              flat(beta), K ** -0.5, [0, T, 2 * T],
                              h0.swapaxes(-1, -2))
    assert R.rel_l2(flat(o), ref_o) < TOL, seed
    assert R.rel_l2(ht, ref_h.swapaxes(-1, -2)) < TOL, seed


def test_fla_varlen_state_v_first_l2norm_and_empty_sequence():
    rng, seed = seeded()
    cu = np.array([0, 5, 5, 70, 130])
    H, HV, K, V = 1, 2, 64, 64
    q, k, v, g, beta = _inputs(rng, int(cu[-1]), H, HV, K, V, batch=1)
    h0 = rng.standard_normal((4, HV, V, K)).astype(np.float32)
    o, ht = gdn.fla.chunk_gated_delta_rule(
        q, k, v, g, beta, scale=0.3, initial_state=h0,
        output_final_state=True, cu_seqlens=cu, use_qk_l2norm_in_kernel=True,
        state_v_first=True)
    ref_o, ref_h = _reference(q[0], k[0], v[0], np.exp(g[0]), beta[0], 0.3,
                              cu, h0, l2norm=True)
    assert R.rel_l2(o[0], ref_o) < TOL, seed
    assert R.rel_l2(ht, ref_h) < TOL, seed
    assert (ht[1] == h0[1]).all(), "an empty sequence keeps its state exactly"


def test_fla_without_states_returns_none():
    rng, seed = seeded()
    q, k, v, g, beta = _inputs(rng, 20, 1, 2, 64, 64, batch=1)
    o, ht = gdn.fla.chunk_gated_delta_rule(q, k, v, g, beta)
    assert ht is None
    ref_o, _ = _reference(q[0], k[0], v[0], np.exp(g[0]), beta[0], 64 ** -0.5,
                          [0, 20], np.zeros((1, 2, 64, 64)))
    assert R.rel_l2(o[0], ref_o) < TOL, seed


@pytest.mark.parametrize("call, message", [
    (lambda x: gdn.fla.chunk_gated_delta_rule(*x, cu_seqlens=np.array([0, 3, 6])),
     "with cu_seqlens; expected the batch size 1"),
    (lambda x: gdn.fla.chunk_gated_delta_rule(
        *x, initial_state=np.zeros((2, 2, 64, 32), np.float32)),
     "initial_state has shape (2, 2, 64, 32); expected (2, 2, 64, 64)"),
    (lambda x: gdn.fla.chunk_gated_delta_rule(x[0][0], *x[1:]),
     "q has shape (3, 1, 64); expected 4 dimensions"),
    (lambda x: gdn.fla.chunk_gated_delta_rule(*x[:3], x[3][:, :2], x[4]),
     "g has shape (2, 2, 2); expected (2, 3, 2)"),
])
def test_fla_refusals_name_the_argument(call, message):
    rng, _ = seeded()
    with pytest.raises(gdn.GDNValueError) as refused:
        call(_inputs(rng, 3, 1, 2, 64, 64, batch=2))
    assert message in str(refused.value)


def test_flashinfer_in_place_state_and_output():
    rng, seed = seeded()
    cu = np.array([0, 40, 41, 141])
    H, HV, K, V = 1, 2, 64, 64
    q, k, v, g, beta = _inputs(rng, int(cu[-1]), H, HV, K, V)
    alpha = np.exp(g)
    state = rng.standard_normal((3, HV, V, K)).astype(np.float32)
    h0 = state.copy()
    out = np.full(v.shape, np.nan, np.float16)       # poisoned
    got, final = gdn.flashinfer.chunk_gated_delta_rule(
        q, k, v, alpha, beta, initial_state=state, output_final_state=True,
        cu_seqlens=cu, output=out, output_state=state)
    assert got is out and final is state
    ref_o, ref_h = _reference(q, k, v, alpha, beta, K ** -0.5, cu, h0)
    assert np.isfinite(out).all(), seed
    assert R.rel_l2(out, ref_o) < TOL, seed
    assert R.rel_l2(state, ref_h) < TOL, seed


def test_flashinfer_separate_output_state_and_default_gates():
    rng, seed = seeded()
    cu = np.array([0, 70])
    q, k, v, _, _ = _inputs(rng, 70, 1, 2, 64, 64)
    h0 = rng.standard_normal((1, 2, 64, 64)).astype(np.float32)
    kept = h0.copy()
    final = np.full_like(h0, np.nan)
    o = gdn.flashinfer.chunk_gated_delta_rule(
        q, k, v, initial_state=h0, cu_seqlens=cu, output_state=final,
        use_qk_l2norm_in_kernel=True, scale=0)
    ones = np.ones((70, 2))
    ref_o, ref_h = _reference(q, k, v, ones, ones, 64 ** -0.5, cu, h0,
                              l2norm=True)
    assert (h0 == kept).all()
    assert R.rel_l2(o, ref_o) < TOL, seed
    assert R.rel_l2(final, ref_h) < TOL, seed


def test_flashinfer_checkpoints():
    rng, seed = seeded()
    every = 64
    lengths = [130, 64, 0, 63]         # 2, 1, 0, 0 checkpoints
    cu = np.concatenate([[0], np.cumsum(lengths)])
    starts = np.concatenate([[0], np.cumsum([n // every for n in lengths])])
    H, HV, K, V = 1, 2, 64, 64
    q, k, v, g, beta = _inputs(rng, int(cu[-1]), H, HV, K, V)
    alpha = np.exp(g)
    h0 = rng.standard_normal((4, HV, V, K)).astype(np.float32)
    checkpoints = np.full((int(starts[-1]), HV, V, K), np.nan, np.float32)
    o, final = gdn.flashinfer.chunk_gated_delta_rule(
        q, k, v, alpha, beta, initial_state=h0, output_final_state=True,
        cu_seqlens=cu, state_checkpoints=checkpoints,
        checkpoint_cu_starts=starts, checkpoint_every_n_tokens=every)
    ref_o, ref_h = _reference(q, k, v, alpha, beta, K ** -0.5, cu, h0)
    assert R.rel_l2(o, ref_o) < TOL, seed
    assert R.rel_l2(final, ref_h) < TOL, seed
    # The state after every `every` tokens of each sequence.
    for s, n in enumerate(lengths):
        for j in range(n // every):
            end = cu[s] + (j + 1) * every
            _, ref_c = _reference(q, k, v, alpha, beta, K ** -0.5,
                                  [cu[s], end], h0[s:s + 1])
            assert R.rel_l2(checkpoints[starts[s] + j], ref_c[0]) < TOL, (s, j, seed)


@pytest.mark.parametrize("kwargs, message", [
    (dict(checkpoint_every_n_tokens=100), "checkpoint_every_n_tokens = 100"),
    (dict(checkpoint_every_n_tokens=64), "state_checkpoints and checkpoint_cu_starts"),
    (dict(cu_seqlens=None), "cu_seqlens is None"),
    (dict(output_state=np.zeros((2, 2, 64, 64), np.float32)),
     "output_state has shape (2, 2, 64, 64); expected (1, 2, 64, 64)"),
])
def test_flashinfer_refusals_name_the_argument(kwargs, message):
    rng, _ = seeded()
    q, k, v, g, beta = _inputs(rng, 8, 1, 2, 64, 64)
    call = dict(cu_seqlens=np.array([0, 8]))
    call.update(kwargs)
    with pytest.raises(gdn.GDNValueError) as refused:
        gdn.flashinfer.chunk_gated_delta_rule(q, k, v, np.exp(g), beta, **call)
    assert message in str(refused.value)


def test_the_docs_examples_run_and_are_right():
    """docs/Adapters.md's examples, as written, against the reference."""
    import os
    import re
    text = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                             "Adapters.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 2, "one example per adapter"
    fla_scope, fi_scope = {}, {}
    exec(blocks[0], fla_scope)
    s = fla_scope
    B, T = s["B"], s["T"]
    flat = lambda x: x.reshape((B * T,) + x.shape[2:])
    ref_o, ref_h = _reference(flat(s["q"]), flat(s["k"]), flat(s["v"]),
                              np.exp(flat(s["g"])), flat(s["beta"]),
                              s["K"] ** -0.5, [0, T, 2 * T],
                              s["h0"].swapaxes(-1, -2), l2norm=True)
    assert R.rel_l2(flat(s["o"]), ref_o) < TOL
    assert R.rel_l2(s["ht"], ref_h.swapaxes(-1, -2)) < TOL
    exec(blocks[1], fi_scope)
    s = fi_scope
    ref_o, ref_h = _reference(s["q"], s["k"], s["v"], s["alpha"], s["beta"],
                              s["D"] ** -0.5, s["cu"],
                              np.zeros_like(s["state"]), l2norm=True)
    assert R.rel_l2(s["o"], ref_o) < TOL
    assert R.rel_l2(s["state"], ref_h) < TOL
    for row, (a, end) in enumerate([(0, 64), (0, 128), (130, 194)]):
        _, ref_c = _reference(s["q"], s["k"], s["v"], s["alpha"], s["beta"],
                              s["D"] ** -0.5, [a, end],
                              np.zeros_like(s["state"][:1]), l2norm=True)
        assert R.rel_l2(s["checkpoints"][row], ref_c[0]) < TOL, row
