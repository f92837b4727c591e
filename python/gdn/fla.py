"""FLA's call over gdn's kernels: ``from gdn.fla import chunk_gated_delta_rule``
in place of ``from fla.ops.gated_delta_rule import chunk_gated_delta_rule``.

fla-core 0.6.0's forward with its arguments, shapes and return: q, k
[B, T, H, K], v [B, T, HV, V] (HV a multiple of H), g [B, T, HV] log
decays, beta [B, T, HV], states [N, HV, K, V] fp32 (``state_v_first=True``:
[N, HV, V, K], gdn's own orientation, with no transposes), varlen through
``cu_seqlens`` with B = 1. Tensors are torch tensors (CUDA or CPU) or numpy
arrays; the forward only (no autograd). docs/Adapters.md.
"""

from ._adapters import check_shape, ops_for, refuse, run_in_place

__all__ = ["chunk_gated_delta_rule"]


def chunk_gated_delta_rule(q, k, v, g, beta, scale=None, initial_state=None,
                           output_final_state=False, cu_seqlens=None,
                           use_qk_l2norm_in_kernel=False, *,
                           state_v_first=False):
    """FLA's ``chunk_gated_delta_rule`` forward on gdn's kernels.

    Returns ``(o, final_state)``: o [B, T, HV, V] in v's dtype;
    final_state [N, HV, K, V] fp32 (N = B, or len(cu_seqlens) - 1) when
    ``output_final_state``, else None. ``initial_state`` is read, never
    written; None starts from zeros. ``scale`` defaults to K ** -0.5.
    """
    for name, x in (("q", q), ("k", k), ("v", v)):
        if len(x.shape) != 4:
            refuse("%s has shape %s; expected 4 dimensions [B, T, heads, "
                   "head size] (FLA's layout)" % (name, tuple(x.shape)))
    B, T, H, K = q.shape
    HV, V = v.shape[2], v.shape[3]
    check_shape("g", g, (B, T, HV), "[B, T, HV]")
    check_shape("beta", beta, (B, T, HV), "[B, T, HV]")
    ops = ops_for(q)
    if cu_seqlens is None:
        N, cu_seqlens = B, ops.arange(B, q, step=T)
    else:
        if B != 1:
            refuse("q has shape %s with cu_seqlens; expected the batch size 1 "
                   "(flatten variable-length inputs to [1, T, ...], as FLA "
                   "does)" % (tuple(q.shape),))
        if len(cu_seqlens.shape) != 1 or cu_seqlens.shape[0] < 2:
            refuse("cu_seqlens has shape %s; expected [N + 1] with N >= 1"
                   % (tuple(cu_seqlens.shape),))
        N = cu_seqlens.shape[0] - 1
    if initial_state is None:
        pool = ops.zeros((N, HV, V, K), q)
    else:
        check_shape("initial_state", initial_state,
                    (N, HV, V, K) if state_v_first else (N, HV, K, V),
                    "([N, HV, %s] for N = %d sequences)" %
                    ("V, K" if state_v_first else "K, V", N))
        # A copy in both orientations: FLA leaves initial_state as it was.
        pool = ops.fp32_copy(initial_state if state_v_first
                             else initial_state.swapaxes(-1, -2))
    o = run_in_place(ops, q.reshape(B * T, H, K), k.reshape(B * T, H, K),
                     v.reshape(B * T, HV, V), g.reshape(B * T, HV),
                     beta.reshape(B * T, HV), scale, cu_seqlens, pool,
                     use_qk_l2norm_in_kernel, "log")
    final = None
    if output_final_state:
        final = pool if state_v_first else ops.transposed(pool)
    return o.reshape(B, T, HV, V), final
