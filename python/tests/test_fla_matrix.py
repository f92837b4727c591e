"""FLA's forward test matrix for this operator, through our paged call.

Follows the recipe and the pass rule of the forward half of FLA's own tests
of chunk_gated_delta_rule (test_chunk, test_chunk_varlen), written here from
their description: q standard normal and not normalised, k l2-normalised, v
standard normal, all fp16; per-head log gates g = logsigmoid(U) /
gate_logit_normalizer with a fraction mask_p of them set to 0; beta 1 (or
sigmoid(U) in varlen); random fp16 initial states. Pass: rms(ref - out) /
rms(ref) < 0.005 for the output and for every state page written, against
the float64 recurrence; every other page unchanged byte for byte.

Head sizes 32, 100 and 256 run in tiles padded to a multiple of 64 (the
padding loads as zero and is never stored), so this file is also the CPU
test of that padding.
"""

import itertools

import numpy as np
import pytest

import gdn
import problems
import reference as R

TOL = 5e-3  # FLA's bar: rms(ref - out) / rms(ref)
PAGE = 64


@pytest.fixture(scope="module")
def fused():
    return gdn.compile(schedule="fused")


def _logsigmoid(x):
    return -np.logaddexp(0.0, -x)


def fla_inputs(rng, seqlens, H, K, V, normalizer, mask_p, beta_sigmoid,
               dtype=np.float16):
    """q, k, v, g, beta of FLA's recipe for sequences of `seqlens` tokens."""
    T = int(sum(seqlens))
    q = rng.standard_normal((T, H, K))
    k = rng.standard_normal((T, H, K))
    k /= np.sqrt((k * k).sum(-1, keepdims=True))
    v = rng.standard_normal((T, H, V))
    g = _logsigmoid(rng.standard_normal((T, H))) / normalizer
    g *= rng.random((T, H)) >= mask_p
    beta = (1 / (1 + np.exp(-rng.standard_normal((T, H)))) if beta_sigmoid
            else np.ones((T, H)))
    return (q.astype(dtype), k.astype(dtype), v.astype(dtype),
            g.astype(np.float32), beta.astype(np.float32))


def paged_tables(rng, seqlens, prefixes, H, K, V, page=PAGE):
    """A page table of `page`-token pages, ids shuffled over a pool with two
    spare pages, and a pool of fp16-valued random states (the page holding a
    sequence's last prefix token is its initial state)."""
    counts = [max(1, -(-(p + n) // page)) for n, p in zip(seqlens, prefixes)]
    P = sum(counts) + 2
    ids = rng.permutation(P)
    last = [(p + n) - (c - 1) * page for n, p, c in zip(seqlens, prefixes, counts)]
    pool = rng.standard_normal((P, H, V, K)).astype(np.float16).astype(np.float32)
    return dict(
        cu_seqlens=np.concatenate([[0], np.cumsum(seqlens)]).astype(np.int64),
        state_pool=pool,
        page_indices=ids[:sum(counts)].astype(np.int64),
        page_indptr=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        page_size=page,
        last_page_len=np.array(last, np.int64))


def run_case(kernel, rng, seed, seqlens, prefixes, H, K, V, scale, normalizer,
             mask_p, beta_sigmoid, page=PAGE):
    q, k, v, g, beta = fla_inputs(rng, seqlens, H, K, V, normalizer, mask_p,
                                  beta_sigmoid)
    tables = paged_tables(rng, seqlens, prefixes, H, K, V, page)
    before = tables["state_pool"].copy()
    output = np.full(v.shape, np.nan, v.dtype)
    kernel.chunk_gated_delta_rule_paged(
        q, k, v, g, beta, scale, output=output, gate_domain="log",
        use_qk_l2norm_in_kernel=False, **tables)
    ref_o, ref_pool, written = R.paged_reference(
        q, k, v, g, beta, scale, tables["cu_seqlens"], before,
        tables["page_indices"], tables["page_indptr"], page,
        tables["last_page_len"], l2norm=False, gate_domain="log",
        beta_is_logit=False)
    what = ("seed %d, seqlens %s, K=%d V=%d, scale %g, normalizer %g, "
            "mask_p %g" % (seed, seqlens, K, V, scale, normalizer, mask_p))
    assert np.isfinite(output.astype(np.float64)).all(), what + ": o not all written"
    err = R.rel_l2(output, ref_o)
    assert err < TOL, "%s: o error %g" % (what, err)
    problems.assert_pages(tables["state_pool"], before, ref_pool, written, TOL,
                          what)


# FLA's test_chunk grid: B 2, H 2, T and head size below, scale, gate logit
# normaliser and mask_p; one sequence starts from zero, one from a random
# state (a prefix of one page).
@pytest.mark.parametrize("T", [1, 15, 63, 300])
@pytest.mark.parametrize("D", [32, 64, 100, 128, 256])
def test_chunk(fused, T, D):
    for scale, normalizer, mask_p in itertools.product([1, 0.1], [1, 0.1, 10],
                                                       [0, 0.5]):
        rng, seed = problems.seeded()
        run_case(fused, rng, seed, [T, T], [0, PAGE], H=2, K=D, V=D,
                 scale=scale, normalizer=normalizer, mask_p=mask_p,
                 beta_sigmoid=False)


# Chunks of 32 and 128 tokens (SPEC.md: a schedule choice; 64 above): FLA's
# test_chunk grid at a head size that fills its tiles and one that does not,
# on pages of 128 tokens (a chunk size must divide the page size), one
# sequence starting mid-page.
@pytest.fixture(scope="module", params=[32, 128])
def other_chunk(request):
    return gdn.compile(schedule="fused chunk=%d" % request.param)


@pytest.mark.parametrize("T", [1, 15, 63, 300])
@pytest.mark.parametrize("D", [64, 100])
def test_chunk_sizes(other_chunk, T, D):
    for scale, normalizer, mask_p in itertools.product([1, 0.1], [1, 0.1, 10],
                                                       [0, 0.5]):
        rng, seed = problems.seeded()
        run_case(other_chunk, rng, seed, [T, T], [0, 128 + 40], H=2, K=D, V=D,
                 scale=scale, normalizer=normalizer, mask_p=mask_p,
                 beta_sigmoid=False, page=128)


# FLA's test_chunk_varlen: four sequences of one long batch, random initial
# states, beta = sigmoid(U).
@pytest.mark.parametrize("mask_p", [0, 0.5])
def test_chunk_varlen(fused, mask_p):
    rng, seed = problems.seeded()
    cu = [0, 122, 229, 400, 1000]
    seqlens = list(np.diff(cu))
    run_case(fused, rng, seed, seqlens, [PAGE] * 4, H=2, K=128, V=128,
             scale=128 ** -0.5, normalizer=1, mask_p=mask_p, beta_sigmoid=True)


# Head sizes apart, as FLA's layer makes them (K = 256, V = 512 at expand_v
# 2), and sizes that are not a multiple of 16.
@pytest.mark.parametrize("K,V", [(256, 512), (100, 36), (1, 65), (200, 300)])
def test_uneven_head_sizes(fused, K, V):
    rng, seed = problems.seeded()
    run_case(fused, rng, seed, [70, 5], [PAGE + 3, 0], H=2, K=K, V=V,
             scale=K ** -0.5, normalizer=1, mask_p=0, beta_sigmoid=True)


@pytest.mark.parametrize("K,V", [(257, 64), (64, 513), (0, 64)])
def test_head_size_out_of_range_is_refused(fused, K, V):
    rng, _ = problems.seeded()
    q, k, v, g, beta = fla_inputs(rng, [4], 1, max(K, 1), V, 1, 0, False)
    if K == 0:
        q, k = q[:, :, :0], k[:, :, :0]
    tables = paged_tables(rng, [4], [0], 1, max(K, 1), V)
    tables["state_pool"] = np.zeros(tables["state_pool"].shape[:3] + (K,),
                                    np.float32)
    before = tables["state_pool"].copy()
    with pytest.raises(gdn.GDNValueError, match="head size %s = %d" %
                       ("K" if K != 64 else "V", K if K != 64 else V)):
        fused.chunk_gated_delta_rule_paged(q, k, v, g, beta, gate_domain="log",
                                           **tables)
    assert tables["state_pool"].tobytes() == before.tobytes()
