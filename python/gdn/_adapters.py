"""What the peers' calls (gdn.fla, gdn.flashinfer) share: the few array
operations they need on numpy arrays and torch tensors, and one way of
running N sequences over N state rows in place through the paged kernel."""

from . import _capi, _kernel


class _Numpy:
    def __init__(self):
        import numpy
        self.np = numpy

    def arange(self, n, like, step=1):
        return self.np.arange(n + 1, dtype=self.np.int64) * step

    def fp32_copy(self, x):
        return self.np.array(x, dtype=self.np.float32, order="C", copy=True)

    def zeros(self, shape, like):
        return self.np.zeros(shape, self.np.float32)

    def ones(self, shape, like):
        return self.np.ones(shape, self.np.float32)

    def transposed(self, x):
        """The last two axes swapped, as a new contiguous array."""
        return self.np.ascontiguousarray(self.np.swapaxes(x, -1, -2))

    def gate(self, x):
        return None if x is None else x.astype(self.np.float32, copy=False)

    def assign(self, dst, src):
        dst[...] = src

    def zero(self, dst):
        dst[...] = 0

    def host_ints(self, x):
        return [int(i) for i in x]

    def from_host(self, values, like):
        return self.np.asarray(values, dtype=self.np.int64)

    def same(self, a, b):
        return a is b or (self.np.shares_memory(a, b) and a.shape == b.shape
                          and a.strides == b.strides)


class _Torch:
    """Capturable device ops: no host sync, no host-to-device copy (but
    host_ints / from_host, which only the checkpoint path uses)."""

    def __init__(self):
        import torch
        self.torch = torch

    def arange(self, n, like, step=1):
        return self.torch.arange(n + 1, dtype=self.torch.int64,
                                 device=like.device) * step

    def fp32_copy(self, x):
        # One copy, contiguous whatever x's strides (a transposed view too).
        return x.to(self.torch.float32, memory_format=self.torch.contiguous_format,
                    copy=True)

    def zeros(self, shape, like):
        return self.torch.zeros(shape, dtype=self.torch.float32,
                                device=like.device)

    def ones(self, shape, like):
        return self.torch.ones(shape, dtype=self.torch.float32,
                               device=like.device)

    def transposed(self, x):
        return x.transpose(-1, -2).contiguous()

    def gate(self, x):
        return x      # gdn converts torch gates to float32 itself

    def assign(self, dst, src):
        dst.copy_(src)

    def zero(self, dst):
        dst.zero_()

    def host_ints(self, x):
        return [int(i) for i in x.tolist()]

    def from_host(self, values, like):
        return self.torch.tensor(values, dtype=self.torch.int64,
                                 device=like.device)

    def same(self, a, b):
        return a is b or (a.data_ptr() == b.data_ptr() and a.shape == b.shape
                          and a.stride() == b.stride())


def ops_for(x):
    """The operations for x's library: torch tensors or numpy arrays."""
    return _Torch() if type(x).__module__.split(".")[0] == "torch" else _Numpy()


def refuse(message):
    raise _capi.GDNValueError(message)


def check_shape(name, x, want, layout):
    if tuple(x.shape) != tuple(want):
        refuse("%s has shape %s; expected %s %s" %
               (name, tuple(x.shape), tuple(want), layout))


def run_in_place(ops, q, k, v, g, beta, scale, cu_seqlens, pool, l2norm,
                 gate_domain, output=None):
    """Runs sequence s (tokens cu_seqlens[s]..cu_seqlens[s+1] of q [T, H, K],
    k, v [T, HV, V]) from state row pool[s] ([N, HV, V, K] fp32) and leaves
    its final state there. Returns o [T, HV, V].

    Each sequence is one page holding its initial state after one prefix
    token; the new tokens fill the same page, so the paged kernel reads the
    row and writes the final state back to it. A page of T + 1 tokens
    (rounded up to 64) holds any sequence. No host sync."""
    N, T = pool.shape[0], q.shape[0]
    rows = ops.arange(N, q)
    lengths = cu_seqlens[1:] - cu_seqlens[:-1]
    return _kernel.default_kernel().chunk_gated_delta_rule_paged(
        q, k, v, ops.gate(g), ops.gate(beta), scale, cu_seqlens=cu_seqlens,
        state_pool=pool, page_indices=rows[:N], page_indptr=rows,
        page_size=-(-(T + 1) // 64) * 64, last_page_len=lengths + 1,
        use_qk_l2norm_in_kernel=l2norm, gate_domain=gate_domain,
        output=output)
