"""gdn: chunked Gated DeltaNet prefill kernels from the gdn tile compiler.

Drop-in functions with the signatures of the two interfaces the project
implements (SPEC.md):

- ``gdn_extend_chunkwise`` (pymllm, the pool interface), and
- ``chunk_gated_delta_rule_paged`` (FlashInfer, the paged interface),

on any tensors that speak DLPack. A refused call raises GDNValueError or
GDNTypeError (GDNArgumentError; also ValueError / TypeError) naming the
argument, with no tensor written; a kernel that cannot run raises GDNError. Host tensors run on the CPU back end
(JIT-compiled with MLIR). ``compile(schedule=...)`` gives a ``Kernel`` whose
methods are the same functions under another fusion schedule.
"""

from ._capi import GDNArgumentError, GDNError, GDNTypeError, GDNValueError
from ._dlpack import bfloat16_view
from ._kernel import (GDNExtendSlots, GDNPagedPrefillSlots, Kernel,
                      default_kernel, gdn_extend_chunkwise_slots,
                      gdn_paged_prefill_slots)

__all__ = ["gdn_extend_chunkwise", "chunk_gated_delta_rule_paged",
           "gdn_paged_prefill_slots", "GDNPagedPrefillSlots",
           "gdn_extend_chunkwise_slots", "GDNExtendSlots", "compile",
           "Kernel", "GDNError", "GDNArgumentError", "GDNValueError",
           "GDNTypeError", "bfloat16_view"]


def compile(schedule="fused", kernel=None, cpu_threads=0, checked=None,
            artifacts=None, cache_dir=None):
    """A Kernel for `schedule` (a name, a .sched file or inline schedule
    text) and `kernel` (a kernel file; default the project's). Device
    tensors use the artifacts under `artifacts`, or kernels compiled into
    the cache `cache_dir` (see Kernel)."""
    return Kernel(schedule=schedule, kernel=kernel, cpu_threads=cpu_threads,
                  checked=checked, artifacts=artifacts, cache_dir=cache_dir)


def gdn_extend_chunkwise(q, k, v, a, b, A_log, dt_bias, state_pool,
                         cache_indices, cu_seqlens, chunk_size=64, *,
                         output=None, slots=None, cp_group=None):
    """Chunkwise GDN extend (prefill), pool interface (seed 000).

    q, k [T, H, K] and v [T, HV, V] in bf16 / fp16 (q and k are
    l2-normalised in the kernel); a, b [T, HV] raw gates; A_log, dt_bias
    [HV] fp32; state_pool [P, HV, V, K] fp32 or bf16, updated in place
    (rows may be padded apart); cache_indices [B] and cu_seqlens [B + 1]
    int32 / int64. Returns the output [T, HV, V] in v's dtype, written into
    ``output`` when given (and returned). ``slots`` from
    ``gdn_extend_chunkwise_slots(cache_indices, cu_seqlens)``, made once
    per step, spare every layer's call the index tensors' conversion.
    ``cp_group`` (an mpi4py communicator, a torch.distributed process group
    or a ``gdn.cp.Communicator``) splits the step's tokens across
    processes: each rank passes its own contiguous slice of the tokens and
    the step's whole tables (see ``gdn.cp``).
    """
    return default_kernel().gdn_extend_chunkwise(
        q, k, v, a, b, A_log, dt_bias, state_pool, cache_indices, cu_seqlens,
        chunk_size=chunk_size, output=output, slots=slots, cp_group=cp_group)


def chunk_gated_delta_rule_paged(q, k, v, g=None, beta=None, scale=None, *,
                                 cu_seqlens, state_pool, page_indices,
                                 page_indptr, page_size, last_page_len,
                                 use_qk_l2norm_in_kernel=False, output=None,
                                 gate_domain="linear", use_gate_in_kernel=False,
                                 A_log=None, dt_bias=None, beta_is_logit=False,
                                 slots=None, cp_group=None):
    """Chunked GDN prefill on a paged state pool (seed 004, SPEC.md).

    Reads each sequence's initial state from the page holding its last
    prefix token, writes the state at every page boundary it crosses and
    the final state to its last page. ``output`` is written when given
    (and returned). ``slots`` from ``gdn_paged_prefill_slots(cu_seqlens,
    page_indices, page_indptr, page_size, last_page_len)``, made once per
    step and shared by every layer's call, spare each call the tables'
    conversion (see GDNPagedPrefillSlots). ``cp_group`` splits the step's
    tokens across processes: each rank passes its own contiguous slice and
    the step's whole page table; each page boundary's state lands in the
    pool of the rank holding that token (see ``gdn.cp``).
    """
    return default_kernel().chunk_gated_delta_rule_paged(
        q, k, v, g, beta, scale, cu_seqlens=cu_seqlens, state_pool=state_pool,
        page_indices=page_indices, page_indptr=page_indptr,
        page_size=page_size, last_page_len=last_page_len,
        use_qk_l2norm_in_kernel=use_qk_l2norm_in_kernel, output=output,
        gate_domain=gate_domain, use_gate_in_kernel=use_gate_in_kernel,
        A_log=A_log, dt_bias=dt_bias, beta_is_logit=beta_is_logit,
        slots=slots, cp_group=cp_group)
