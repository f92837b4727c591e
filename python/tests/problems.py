"""Fresh random calls of both interfaces for the package's tests."""

import numpy as np


def seeded():
    """A generator with a fresh seed, and the seed (for failure messages)."""
    seed = int.from_bytes(np.random.bytes(4), "little")
    return np.random.default_rng(seed), seed


def pool_call(rng, seqlens, H=1, HV=2, K=64, V=64, dtype=np.float16,
              spare=3, index_dtype=np.int64):
    """Seed 000's arguments: one pool row per sequence, in random order."""
    T = int(sum(seqlens))
    B = len(seqlens)
    P = B + spare
    rows = rng.permutation(P)[:B]
    return dict(
        q=rng.standard_normal((T, H, K)).astype(dtype),
        k=rng.standard_normal((T, H, K)).astype(dtype),
        v=rng.standard_normal((T, HV, V)).astype(dtype),
        a=rng.standard_normal((T, HV)).astype(np.float32),
        b=rng.standard_normal((T, HV)).astype(np.float32),
        A_log=(rng.standard_normal(HV) * 0.5).astype(np.float32),
        dt_bias=rng.standard_normal(HV).astype(np.float32),
        state_pool=(rng.standard_normal((P, HV, V, K)) * 0.1).astype(np.float32),
        cache_indices=rows.astype(index_dtype),
        cu_seqlens=np.concatenate([[0], np.cumsum(seqlens)]).astype(index_dtype))


def paged_call(rng, seqlens, prefixes, page_size=64, H=1, HV=2, K=64, V=64,
               dtype=np.float16, gate_domain="log", spare=2):
    """Seed 004's arguments: each sequence owns the pages its prefix and new
    tokens fill, ids shuffled over a pool with spare pages."""
    T = int(sum(seqlens))
    counts = [max(1, -(-(p + n) // page_size)) for n, p in zip(seqlens, prefixes)]
    P = sum(counts) + spare
    ids = rng.permutation(P)
    page_indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    last = [(p + n) - (c - 1) * page_size for n, p, c in zip(seqlens, prefixes, counts)]
    g = -rng.uniform(0, 0.5, (T, HV))
    return dict(
        q=rng.standard_normal((T, H, K)).astype(dtype),
        k=rng.standard_normal((T, H, K)).astype(dtype),
        v=rng.standard_normal((T, HV, V)).astype(dtype),
        g=(np.exp(g) if gate_domain == "linear" else g).astype(np.float32),
        beta=rng.standard_normal((T, HV)).astype(np.float32),
        state_pool=(rng.standard_normal((P, HV, V, K)) * 0.1).astype(np.float32),
        page_indices=ids[:sum(counts)].astype(np.int64),
        page_indptr=page_indptr,
        last_page_len=np.array(last, np.int64),
        cu_seqlens=np.concatenate([[0], np.cumsum(seqlens)]).astype(np.int64),
        page_size=page_size)
