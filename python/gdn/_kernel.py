"""Kernels compiled for a schedule, and the two seed functions on them."""

import ctypes
import math
import numbers
import operator
import os
import threading

from . import _capi, _dlpack
from ._capi import GDNTypeError, GDNValueError
from ._dlpack import Borrowed, bfloat16_view

_WRITTEN = ("o", "state_pool")


def _int_argument(function, name, value, expected):
    """An int argument as a Python int that fits the C flags' int64; bools,
    floats and strings are refused (so 64.9 is not read as 64, nor 2**64 +
    64 as 64). `expected` says what the value must be."""
    if isinstance(value, bool):
        raise GDNTypeError("%s: %s is %r; expected an int (%s)"
                           % (function, name, value, expected))
    try:
        value = operator.index(value)   # int, numpy integers
    except TypeError:
        raise GDNTypeError("%s: %s is %r (%s); expected an int (%s)"
                           % (function, name, value, type(value).__name__,
                              expected)) from None
    if not -2**63 <= value < 2**63:
        raise GDNValueError("%s: %s = %d is out of range; expected %s"
                            % (function, name, value, expected))
    return value


def _scale_argument(function, scale):
    """scale as a finite float; bools and strings are refused."""
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise GDNTypeError("%s: scale is %r (%s); expected a real number or "
                           "None (1/sqrt(K))" % (function, scale,
                                                 type(scale).__name__))
    try:
        scale = float(scale)
    except OverflowError:
        raise GDNTypeError("%s: scale is %r (%s), which does not fit a float"
                           % (function, scale, type(scale).__name__)) from None
    if not math.isfinite(scale):
        raise GDNValueError("%s: scale = %r; expected a finite number"
                            % (function, scale))
    return scale


def _require(function, tensors):
    """Refuses a required tensor given as None, by name."""
    for name, t in tensors.items():
        if t is None:
            raise GDNTypeError("%s: %s is None; expected a tensor"
                               % (function, name))


def _check_no_aliasing(function, borrowed):
    """The library's aliasing rule (lib/CAPI/Aliasing.h) on the caller's own
    tensors, for calls whose pool is staged before the library sees it: o
    and state_pool share no byte with any other tensor."""
    ranges = {b.tensor: b.byte_range() for b in borrowed}
    for written in _WRITTEN:
        w = ranges.get(written)
        if w is None:
            continue
        for name, r in ranges.items():
            if (name == written or r is None or r[0] != w[0]
                    or (name == "o" and written == "state_pool")):
                continue
            if r[1] < w[2] and w[1] < r[2]:
                raise GDNValueError(
                    "%s: tensor '%s' (bytes %#x to %#x) overlaps '%s' (bytes "
                    "%#x to %#x), which the call writes; inputs must not "
                    "share memory with the output o or the state pool"
                    % (function, name, r[1], r[2], written, w[1], w[2]))


def _empty_like(v, name):
    """An uninitialised tensor of v's shape, dtype and device."""
    if isinstance(v, bfloat16_view):          # numpy bf16
        return bfloat16_view.empty(v.shape)
    if hasattr(v, "new_empty"):               # torch
        return v.new_empty(v.shape)
    try:
        import numpy as np
        if isinstance(v, np.ndarray):
            return np.empty_like(v)
    except ImportError:
        pass
    if hasattr(v, "__array_namespace__"):     # the array API (CuPy, JAX, ...)
        xp = v.__array_namespace__()
        return xp.empty(v.shape, dtype=v.dtype, device=getattr(v, "device", None))
    raise GDNTypeError("%s: cannot allocate the output like v (%s); pass "
                       "output=" % (name, type(v).__name__))


_GATES = ("a", "b", "g", "beta", "A_log", "dt_bias")
_INDICES = ("cu_seqlens", "cache_indices", "page_indices", "page_indptr",
            "last_page_len")


def _as_device_operand(name, t):
    """On the GPU, kernels read gates as float32 and index tensors as int64;
    torch tensors of other dtypes are converted on the current stream (a
    capturable op). Other libraries must pass those dtypes."""
    if type(t).__module__.split(".")[0] != "torch":
        return t
    import torch
    if name in _GATES and t.dtype != torch.float32:
        return t.float()
    if name in _INDICES and t.dtype != torch.int64:
        return t.long()
    return t


def _first_occurrence(rows):
    """For every entry of `rows`, the position of the first entry holding
    the same id, computed on the device without a host sync (a stable
    sort, the start of each run of equal ids, a running maximum)."""
    import torch
    n = rows.numel()
    ids, order = torch.sort(rows, stable=True)
    position = torch.arange(n, device=rows.device)
    starts = torch.ones(n, dtype=torch.bool, device=rows.device)
    starts[1:] = ids[1:] != ids[:-1]
    run_start = torch.cummax(torch.where(starts, position, 0), 0).values
    first = torch.empty_like(order)
    first[order] = order[run_start]
    return first


def _needs_staging(pool):
    """Whether a torch device pool must be staged (bf16, or padded rows)."""
    import torch
    if pool.dtype == torch.float32 and pool.is_contiguous():
        return False
    if pool.dtype not in (torch.float32, torch.bfloat16):
        raise GDNTypeError("tensor 'state_pool' is %s%s; expected dtype F32 "
                           "or BF16" % (pool.dtype, list(pool.shape)))
    return True


def _stage_device_pool(present, table):
    """A torch pool the device kernels cannot take as it is (bf16, or rows
    padded apart) is staged: the rows the call's table names are gathered
    into a dense float32 pool and the table renumbered, every entry of an
    id to the row of its first entry; the returned function scatters them
    back, rounded to the pool's dtype, after the call (rows the call only
    reads get their own values back). Entries of a page table past
    page_indptr[B] are never read and are not gathered. All torch ops on
    the current stream, so a graph can capture it."""
    import torch
    pool, rows = present["state_pool"], present[table]
    if table == "page_indices":
        used = torch.arange(rows.numel(), device=rows.device) < present["page_indptr"][-1]
        rows = torch.where(used, rows, rows[:1].expand_as(rows) if rows.numel() else rows)
    first = _first_occurrence(rows)
    dense = pool.index_select(0, rows).float()
    staged = dict(present)
    staged["state_pool"] = dense
    staged[table] = first
    # Duplicates read their first occurrence's row, so every copy of an id
    # carries the same values back.
    return staged, lambda: pool.index_copy_(0, rows, dense[first].to(pool.dtype))


class Kernel:
    """The GDN prefill kernels compiled for one schedule.

    ``schedule`` is what ``gdn-run --schedule`` takes: a built-in name
    (``fused``, ``staged``, ``split-seq``, ``auto``...), a ``.sched`` file or
    inline text such as ``"fused v-block=64"``. ``kernel`` is a kernel file
    (default: the project's ``kernels/gdn_chunked.mlir``). Kernels are
    compiled on first use for each head size and dtype and kept for the
    life of the object.

    Device tensors run on the caller's current stream, with kernels
    compiled ahead of time from ``artifacts`` (default: the GDN_ARTIFACTS
    environment variable; ``make artifacts`` or ``gdn-run --emit
    artifact``), or, without them and where the library was built with
    MLIR, compiled on first use into the kernel cache ``cache_dir``
    (default: $GDN_CACHE_DIR, else ~/.cache/gdn).

    ``checked`` refuses non-finite gates and gates outside their domain
    and, for device tensors, validates the index tensors on the host (which
    waits for the device, so not inside a graph capture). None (the
    default): checked for host tensors, not for device tensors, where seed
    004 makes the page table a caller precondition.
    """

    def __init__(self, schedule="fused", kernel=None, cpu_threads=0,
                 checked=None, artifacts=None, cache_dir=None):
        options = _capi.ContextOptions()
        _capi.lib.gdn_context_options_init(ctypes.byref(options))
        options.schedule = schedule.encode() if schedule else None
        options.kernel_path = os.fspath(kernel).encode() if kernel else None
        options.cpu_threads = int(cpu_threads)
        artifacts = artifacts or os.environ.get("GDN_ARTIFACTS")
        options.artifacts_dir = os.fspath(artifacts).encode() if artifacts else None
        options.cache_dir = os.fspath(cache_dir).encode() if cache_dir else None
        handle = ctypes.c_void_p()
        _capi.check(_capi.lib.gdn_context_create(ctypes.byref(options),
                                                 ctypes.byref(handle)))
        self._handle = handle
        self._lib = _capi.lib
        self.schedule = schedule
        self.checked = checked

    def __del__(self):
        # At interpreter exit module globals may already be gone: keep our
        # own reference to the library.
        handle = getattr(self, "_handle", None)
        if handle:
            self._lib.gdn_context_destroy(handle)
            self._handle = None

    def cached_artifact(self, K=128, V=128, dtype="bf16"):
        """The kernel cache's directory for this schedule's GPU artifact of
        head sizes K, V and q / k / v dtype ("bf16" or "f16"), compiled
        first if missing (a library built with MLIR). Fills a cache ahead
        of time; device calls do the same on first use."""
        path = ctypes.create_string_buffer(4096)
        _capi.check(self._lib.gdn_cached_artifact(
            self._handle, int(K), int(V), str(dtype).encode(), path, len(path)))
        return path.value.decode()

    def _call(self, function, interface, tensors, flags):
        present = {n: t for n, t in tensors.items() if t is not None}
        device = _dlpack.device_of(present["v"])
        on_device = device is not None and device[0] != _dlpack.KDL_CPU
        stream = 0
        write_back = None
        if on_device:
            present = {n: _as_device_operand(n, t) for n, t in present.items()}
            stream = _dlpack.current_stream(present["v"])
            pool = present["state_pool"]
            if (type(pool).__module__.split(".")[0] == "torch"
                    and _needs_staging(pool) and present["q"].shape[0] > 0):
                if self.checked:
                    # Validate the caller's tables before gathering with them.
                    self._run(function, interface, present, flags, stream,
                              validate_only=True)
                # The library sees the staged copy, not the caller's pool.
                _check_no_aliasing(function, [
                    Borrowed(function, n, t, stream) for n, t in present.items()])
                table = ("cache_indices" if interface == _capi.INTERFACE_POOL
                         else "page_indices")
                present, write_back = _stage_device_pool(present, table)
        checked = not on_device if self.checked is None else self.checked
        if write_back is not None:
            checked = False   # the caller's tables were validated above
        self._run(function, interface, present, flags, stream, checked=checked)
        if write_back is not None:
            write_back()

    def _run(self, function, interface, present, flags, stream, checked=True,
             validate_only=False):
        named = [(n, Borrowed(function, n, t, stream, written=n in _WRITTEN))
                 for n, t in present.items()]
        names = (ctypes.c_char_p * len(named))(*[n.encode() for n, _ in named])
        pointers = (ctypes.c_void_p * len(named))(*[b.pointer for _, b in named])
        flags.checked = int(bool(checked))
        flags.validate_only = int(validate_only)
        status = self._lib.gdn_call(self._handle, interface, len(named), names,
                                    pointers, ctypes.byref(flags),
                                    ctypes.c_void_p(stream or None))
        del named  # the capsules may go now
        _capi.check(status)

    def gdn_extend_chunkwise(self, q, k, v, a, b, A_log, dt_bias, state_pool,
                             cache_indices, cu_seqlens, chunk_size=64, *,
                             output=None):
        """Seed 000 (pymllm): see gdn.gdn_extend_chunkwise."""
        fn = "gdn_extend_chunkwise"
        _require(fn, {"q": q, "k": k, "v": v, "a": a, "b": b, "A_log": A_log,
                      "dt_bias": dt_bias, "state_pool": state_pool,
                      "cache_indices": cache_indices, "cu_seqlens": cu_seqlens})
        chunk_size = _int_argument(fn, "chunk_size", chunk_size, "64")
        out = output if output is not None else _empty_like(v, fn)
        flags = _capi.CallFlags()
        _capi.lib.gdn_call_flags_init(ctypes.byref(flags))
        flags.chunk_size = chunk_size
        self._call(fn, _capi.INTERFACE_POOL, {
            "q": q, "k": k, "v": v, "a": a, "b": b, "A_log": A_log,
            "dt_bias": dt_bias, "state_pool": state_pool,
            "cache_indices": cache_indices, "cu_seqlens": cu_seqlens,
            "o": out}, flags)
        return out

    def chunk_gated_delta_rule_paged(
            self, q, k, v, g=None, beta=None, scale=None, *, cu_seqlens,
            state_pool, page_indices, page_indptr, page_size, last_page_len,
            use_qk_l2norm_in_kernel=False, output=None, gate_domain="linear",
            use_gate_in_kernel=False, A_log=None, dt_bias=None,
            beta_is_logit=False, slots=None):
        """Seed 004 (FlashInfer): see gdn.chunk_gated_delta_rule_paged."""
        fn = "chunk_gated_delta_rule_paged"
        if gate_domain not in ("linear", "log"):
            raise GDNValueError("%s: gate_domain is %r; expected 'linear' or "
                                "'log'" % (fn, gate_domain))
        if slots is not None and not isinstance(slots, GDNPagedPrefillSlots):
            raise GDNTypeError("%s: slots is %s; expected what "
                               "gdn_paged_prefill_slots() returns or None"
                               % (fn, type(slots).__name__))
        _require(fn, {"q": q, "k": k, "v": v, "cu_seqlens": cu_seqlens,
                      "state_pool": state_pool, "page_indices": page_indices,
                      "page_indptr": page_indptr,
                      "last_page_len": last_page_len})
        page_size = _int_argument(fn, "page_size", page_size,
                                  "a multiple of 64 in [64, 2^30]")
        if scale is not None:
            scale = _scale_argument(fn, scale)
        out = output if output is not None else _empty_like(v, fn)
        flags = _capi.CallFlags()
        _capi.lib.gdn_call_flags_init(ctypes.byref(flags))
        flags.page_size = page_size
        if scale is not None:
            flags.has_scale = 1
            flags.scale = scale
        flags.gate_domain = (_capi.GATE_LOG if gate_domain == "log"
                             else _capi.GATE_LINEAR)
        flags.use_gate_in_kernel = int(bool(use_gate_in_kernel))
        flags.beta_is_logit = int(bool(beta_is_logit))
        flags.qk_l2norm = int(bool(use_qk_l2norm_in_kernel))
        self._call(fn, _capi.INTERFACE_PAGED, {
            "q": q, "k": k, "v": v, "g": g, "beta": beta, "A_log": A_log,
            "dt_bias": dt_bias, "state_pool": state_pool,
            "page_indices": page_indices, "page_indptr": page_indptr,
            "last_page_len": last_page_len, "cu_seqlens": cu_seqlens,
            "o": out}, flags)
        return out


class GDNPagedPrefillSlots:
    """What gdn_paged_prefill_slots() returns: nothing to carry.

    FlashInfer precomputes, per call, the pool rows each boundary state goes
    to (one extra launch, shared by a step's layers). Our kernels read the
    CSR page table directly and find each page from the chunk's absolute
    position, so there are no slots to compute; the object exists so that
    code written for FlashInfer runs unchanged.
    """

    __slots__ = ()


def gdn_paged_prefill_slots(*args, **kwargs):
    """Seed 004's slot precomputation; our kernels need none (see
    GDNPagedPrefillSlots). Accepts and ignores FlashInfer's arguments."""
    return GDNPagedPrefillSlots()


_default = None
_default_lock = threading.Lock()


def default_kernel():
    """The Kernel the module-level functions use: schedule from the
    GDN_SCHEDULE environment variable (default ``fused``)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Kernel(schedule=os.environ.get("GDN_SCHEDULE", "fused"))
        return _default
