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


def paged_step(rng, seqlens, prefixes, layers, **kwargs):
    """A serving step: one page table and cu_seqlens (paged_call's) shared
    by `layers` layers, each with its own q / k / v / g / beta and its own
    state pool. Returns (tables, [layer tensors])."""
    first = paged_call(rng, seqlens, prefixes, **kwargs)
    tables = {n: first[n] for n in ("cu_seqlens", "page_indices",
                                     "page_indptr", "last_page_len",
                                     "page_size")}
    per_layer = ("q", "k", "v", "g", "beta", "state_pool")
    steps = [{n: first[n] for n in per_layer}]
    for _ in range(layers - 1):
        other = paged_call(rng, seqlens, prefixes, **kwargs)
        steps.append({n: other[n] for n in per_layer})
    return tables, steps



def run_paged_layer(kernel, layer, tables, slots=None, output=None,
                    beta_is_logit=True):
    """One layer's chunk_gated_delta_rule_paged (log gates, l2norm in the
    kernel) on paged_step's tensors, on any array library."""
    return kernel.chunk_gated_delta_rule_paged(
        layer["q"], layer["k"], layer["v"], layer["g"], layer["beta"],
        cu_seqlens=tables["cu_seqlens"], state_pool=layer["state_pool"],
        page_indices=tables["page_indices"], page_indptr=tables["page_indptr"],
        page_size=tables["page_size"], last_page_len=tables["last_page_len"],
        use_qk_l2norm_in_kernel=True, gate_domain="log",
        beta_is_logit=beta_is_logit, slots=slots, output=output)


def assert_pages(pool, before, ref_pool, written, tol, context):
    """Every page (row) in `written` matches the reference within `tol`
    (relative L2); every other page is byte-identical to `before`."""
    import reference
    for page in range(pool.shape[0]):
        if page in written:
            err = reference.rel_l2(pool[page], ref_pool[page])
            assert err <= tol, "%s: page %d error %g" % (context, page, err)
        else:
            assert pool[page].tobytes() == before[page].tobytes(), \
                "%s: page %d changed but the call must not write it" % (context, page)
