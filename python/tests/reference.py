"""The float64 recurrence of SPEC.md, literally, for the package's tests."""

import numpy as np


def _f64(x):
    """A float64 copy of a numpy array or a gdn.bfloat16_view."""
    if getattr(x, "dtype", None) == "bfloat16":
        return (x.array.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return np.asarray(x, dtype=np.float64)


def _l2norm(x):
    return x / np.sqrt((x * x).sum(-1, keepdims=True) + 1e-6)


def _softplus(x):
    return np.where(x <= 20, np.log1p(np.exp(np.minimum(x, 20))), x)


def _log_softplus(x):
    """log softplus(x), finite for every finite x (x itself below -30)."""
    with np.errstate(divide="ignore"):
        return np.where(x < -30, x, np.log(_softplus(np.maximum(x, -30))))


def raw_gates(a, b, A_log, dt_bias):
    """alpha = exp(g), g = -exp(A_log) softplus(a + dt_bias), computed as
    -exp(A_log + log softplus(.)): the same value, and no inf * 0 for huge
    A_log and a vanishing softplus."""
    a, b = _f64(a), _f64(b)
    with np.errstate(over="ignore"):
        g = -np.exp(_f64(A_log)[None, :] + _log_softplus(a + _f64(dt_bias)[None, :]))
        return np.exp(g), 1 / (1 + np.exp(-b))


def recur(M, q, k, v, alpha, beta, scale, on_token=None):
    """Runs tokens t of q [n, H, K], k, v [n, HV, V], alpha / beta [n, HV]
    from M [HV, V, K] (updated in place); o_t = scale M_t q_t. `on_token(t,
    M)` is called after each token."""
    n, H, _ = q.shape
    HV = v.shape[1]
    G = HV // H
    o = np.zeros(v.shape)
    for t in range(n):
        for hv in range(HV):
            kt, qt = k[t, hv // G], q[t, hv // G]
            m = alpha[t, hv] * M[hv]
            M[hv] = m + beta[t, hv] * np.outer(v[t, hv] - m @ kt, kt)
            o[t, hv] = scale * (M[hv] @ qt)
        if on_token:
            on_token(t, M)
    return o


def pool_reference(q, k, v, a, b, A_log, dt_bias, pool, cache_indices,
                   cu_seqlens):
    """Seed 000: returns (o, new pool) in float64."""
    q, k, v = _l2norm(_f64(q)), _l2norm(_f64(k)), _f64(v)
    alpha, beta = raw_gates(a, b, A_log, dt_bias)
    pool = _f64(pool).copy()
    o = np.zeros(v.shape)
    scale = q.shape[-1] ** -0.5
    for s in range(len(cu_seqlens) - 1):
        lo, hi = int(cu_seqlens[s]), int(cu_seqlens[s + 1])
        if hi == lo:
            continue
        row = int(cache_indices[s])
        M = pool[row].copy()
        o[lo:hi] = recur(M, q[lo:hi], k[lo:hi], v[lo:hi], alpha[lo:hi],
                         beta[lo:hi], scale)
        pool[row] = M
    return o, pool


def paged_reference(q, k, v, g, beta, scale, cu_seqlens, pool, page_indices,
                    page_indptr, page_size, last_page_len, l2norm,
                    gate_domain, beta_is_logit):
    """Seed 004 (log / linear gates): returns (o, new pool, pages written)."""
    q, k, v = _f64(q), _f64(k), _f64(v)
    if l2norm:
        q, k = _l2norm(q), _l2norm(k)
    g = _f64(g)
    alpha = g if gate_domain == "linear" else np.exp(g)
    beta = _f64(beta)
    if beta_is_logit:
        beta = 1 / (1 + np.exp(-beta))
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    pool = _f64(pool).copy()
    o = np.zeros(v.shape)
    written = set()
    for s in range(len(cu_seqlens) - 1):
        lo, hi = int(cu_seqlens[s]), int(cu_seqlens[s + 1])
        if hi == lo:
            continue
        pages = [int(p) for p in page_indices[page_indptr[s]:page_indptr[s + 1]]]
        total = (len(pages) - 1) * page_size + int(last_page_len[s])
        prefix = total - (hi - lo)
        M = (pool[pages[(prefix - 1) // page_size]].copy() if prefix > 0
             else np.zeros(pool.shape[1:]))

        def checkpoint(t, M, prefix=prefix, pages=pages):
            x = prefix + t
            if (x + 1) % page_size == 0:
                page = pages[(x + 1) // page_size - 1]
                pool[page] = M
                written.add(page)

        o[lo:hi] = recur(M, q[lo:hi], k[lo:hi], v[lo:hi], alpha[lo:hi],
                         beta[lo:hi], scale, checkpoint)
        pool[pages[-1]] = M
        written.add(pages[-1])
    return o, pool, written


def rel_l2(x, ref):
    x, ref = np.asarray(x, np.float64), np.asarray(ref, np.float64)
    return np.linalg.norm(x - ref) / max(np.linalg.norm(ref), 1e-30)
