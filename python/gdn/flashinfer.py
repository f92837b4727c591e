"""FlashInfer's call over gdn's kernels: ``from gdn.flashinfer import
chunk_gated_delta_rule`` in place of ``from flashinfer import
chunk_gated_delta_rule``.

flashinfer-python 0.7.2's GDN prefill with its arguments and semantics: q,
k [T, H, K], v [T, HV, V] (HV a multiple of H), ``g`` the decay alpha (not
its log) and ``beta`` [T, HV] float32 (None: ones), states [N, HV, V, K]
fp32, ``output`` / ``output_state`` written when given (``output_state``
may be ``initial_state`` itself: updated in place), and state checkpoints
every ``checkpoint_every_n_tokens`` tokens into ``state_checkpoints`` at
``checkpoint_cu_starts``. Tensors are torch tensors (CUDA or CPU) or numpy
arrays. docs/Adapters.md.
"""

from ._adapters import check_shape, ops_for, refuse, run_in_place
from . import _kernel

__all__ = ["chunk_gated_delta_rule"]


def chunk_gated_delta_rule(q, k, v, g=None, beta=None, scale=None,
                           initial_state=None, output_final_state=False,
                           cu_seqlens=None, use_qk_l2norm_in_kernel=False,
                           output=None, output_state=None,
                           state_checkpoints=None, checkpoint_cu_starts=None,
                           checkpoint_every_n_tokens=0):
    """FlashInfer's ``chunk_gated_delta_rule`` on gdn's kernels.

    Returns ``output`` ([T, HV, V], v's dtype), or ``(output,
    output_state)`` with ``output_final_state`` (the final states [N, HV,
    V, K] fp32). ``scale`` None or 0 means K ** -0.5.
    """
    n_every = int(checkpoint_every_n_tokens)
    if n_every < 0 or n_every % 64:
        refuse("checkpoint_every_n_tokens = %d; expected 0 (none) or a "
               "positive multiple of 64 (the chunk size)" % n_every)
    if (n_every > 0) != (state_checkpoints is not None) or \
            (n_every > 0) != (checkpoint_cu_starts is not None):
        refuse("state_checkpoints and checkpoint_cu_starts are given exactly "
               "when checkpoint_every_n_tokens > 0 (it is %d)" % n_every)
    if cu_seqlens is None:
        refuse("cu_seqlens is None; expected [N + 1] int64 offsets (FlashInfer's "
               "call is varlen only)")
    for name, x in (("q", q), ("k", k), ("v", v)):
        if len(x.shape) != 3:
            refuse("%s has shape %s; expected [T, heads, head size]"
                   % (name, tuple(x.shape)))
    T, H, K = q.shape
    HV, V = v.shape[1], v.shape[2]
    ops = ops_for(q)
    for name, x in (("g", g), ("beta", beta)):
        if x is not None:
            check_shape(name, x, (T, HV), "[T, HV]")
    # None means ones, as FlashInfer's: no decay, full-strength updates.
    g = ops.ones((T, HV), q) if g is None else g
    beta = ops.ones((T, HV), q) if beta is None else beta
    N = cu_seqlens.shape[0] - 1
    if initial_state is not None:
        check_shape("initial_state", initial_state, (N, HV, V, K),
                    "[N, HV, V, K] for N = %d sequences" % N)
    if output_state is not None:
        check_shape("output_state", output_state, (N, HV, V, K),
                    "[N, HV, V, K] for N = %d sequences" % N)
    scale = None if scale == 0 else scale
    if n_every:
        output, pool = _with_checkpoints(
            ops, q, k, v, g, beta, scale, cu_seqlens, initial_state,
            use_qk_l2norm_in_kernel, output, state_checkpoints,
            checkpoint_cu_starts, n_every)
        if output_state is None:
            output_state = pool
        else:
            ops.assign(output_state, pool)
    else:
        in_place = (output_state is not None and initial_state is not None
                    and ops.same(output_state, initial_state))
        if output_state is None:
            output_state = (ops.zeros((N, HV, V, K), q) if initial_state is None
                            else ops.fp32_copy(initial_state))
        elif not in_place:
            if initial_state is None:
                ops.zero(output_state)
            else:
                ops.assign(output_state, initial_state)
        output = run_in_place(ops, q, k, v, g, beta, scale, cu_seqlens,
                              output_state, use_qk_l2norm_in_kernel,
                              "linear", output=output)
    return (output, output_state) if output_final_state else output


def _with_checkpoints(ops, q, k, v, g, beta, scale, cu_seqlens, initial_state,
                      l2norm, output, checkpoints, cu_starts, every):
    """Runs the call with pages of `every` tokens: sequence s is a full
    prefix page holding its initial state, then one page per `every` new
    tokens, whose boundary states the kernel writes (FlashInfer's
    checkpoints), and a last page for the final state. The page table is
    built on the host from cu_seqlens (one host sync). Returns the final
    output and the final states; writes `checkpoints`."""
    T, HV, V, K = q.shape[0], v.shape[1], v.shape[2], q.shape[2]
    cu, starts = ops.host_ints(cu_seqlens), ops.host_ints(cu_starts)
    N, C = len(cu) - 1, checkpoints.shape[0]
    if len(starts) != N + 1:
        refuse("checkpoint_cu_starts has %d entries; expected N + 1 = %d"
               % (len(starts), N + 1))
    check_shape("state_checkpoints", checkpoints, (C, HV, V, K),
                "[total checkpoints, HV, V, K]")
    # Rows: N initial states, then the C checkpoints, then N final states.
    pool = ops.zeros((N + C + N, HV, V, K), q)
    if initial_state is not None:
        ops.assign(pool[:N], initial_state)
    pages, indptr, last, finals = [], [0], [], []
    for s in range(N):
        length = cu[s + 1] - cu[s]
        full, rest = divmod(length, every)
        if starts[s + 1] - starts[s] != full:
            refuse("checkpoint_cu_starts gives sequence %d %d checkpoints; "
                   "its %d tokens make %d (one every %d tokens)" %
                   (s, starts[s + 1] - starts[s], length, full, every))
        if starts[s + 1] > C:
            refuse("checkpoint_cu_starts[%d] = %d is past the %d rows of "
                   "state_checkpoints" % (s + 1, starts[s + 1], C))
        own = [s] + [N + starts[s] + j for j in range(full)]
        if rest:
            own.append(N + C + s)
        pages += own
        indptr.append(len(pages))
        last.append(rest or every)
        finals.append(own[-1])
    output = _kernel.default_kernel().chunk_gated_delta_rule_paged(
        q, k, v, ops.gate(g), ops.gate(beta), scale, cu_seqlens=cu_seqlens,
        state_pool=pool, page_indices=ops.from_host(pages, q),
        page_indptr=ops.from_host(indptr, q), page_size=every,
        last_page_len=ops.from_host(last, q), use_qk_l2norm_in_kernel=l2norm,
        gate_domain="linear", output=output)
    # pool[N:N + C] holds the checkpoints; a sequence whose length is a
    # multiple of `every` ends on its last checkpoint's page.
    ops.assign(checkpoints, pool[N:N + C])
    return output, pool[ops.from_host(finals, q)]
