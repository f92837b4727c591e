"""Kernels compiled for a schedule, and the two seed functions on them."""

import ctypes
import math
import numbers
import operator
import os
import threading

from . import _capi, _dlpack, _plan
from ._capi import GDNTypeError, GDNValueError
from ._dlpack import Borrowed, bfloat16_view

_WRITTEN = ("o", "state_pool")


def _int_argument(function, name, value, expected):
    """An int argument as a Python int that fits the C flags' int64; bools,
    floats and strings are refused (so 64.9 is not read as 64, nor 2**64 +
    64 as 64). `expected` says what the value must be."""
    if type(value) is int and -2**63 <= value < 2**63:
        return value          # the common case, checked first
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
    if type(scale) is float and math.isfinite(scale):
        return scale          # the common case, checked first
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


def _bundled(name):
    """A file or directory an installed wheel carries beside the package
    (setup.py), or None in the repo, where the library's defaults serve."""
    path = _capi.PACKAGE / name
    return path if path.exists() else None


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
    artifact``; an installed wheel's runtime-only library, where LLVM is
    missing, runs the artifacts the wheel carries), or, without them and
    where the library was built with MLIR, compiled on first use into the
    kernel cache ``cache_dir`` (default: $GDN_CACHE_DIR, else
    ~/.cache/gdn). An artifact directory holding an ``auto`` set picks per
    call by ``auto``'s rule, whatever ``schedule`` says.

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
        kernel = kernel or _bundled("kernels/gdn_chunked.mlir")
        options.kernel_path = os.fspath(kernel).encode() if kernel else None
        options.cpu_threads = int(cpu_threads)
        artifacts = artifacts or os.environ.get("GDN_ARTIFACTS")
        if not artifacts and not _capi.lib.gdn_can_compile():
            # An installed wheel's runtime-only library runs the package's
            # artifacts: it cannot compile a schedule of its own.
            artifacts = _bundled("artifacts")
        options.artifacts_dir = os.fspath(artifacts).encode() if artifacts else None
        options.cache_dir = os.fspath(cache_dir).encode() if cache_dir else None
        handle = ctypes.c_void_p()
        _capi.check(_capi.lib.gdn_context_create(ctypes.byref(options),
                                                 ctypes.byref(handle)))
        self._handle = handle
        self._lib = _capi.lib
        self._plans = _plan.PlanCache()
        self._lock = threading.Lock()
        self.schedule = schedule
        self.checked = checked

    def __del__(self):
        # At interpreter exit module globals may already be gone: keep our
        # own reference to the library. Plans go before their context.
        plans = getattr(self, "_plans", None)
        if plans is not None:
            plans.clear()
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

    def _call(self, function, interface, present, head, slots):
        """Runs a call: `present` the given tensors by name (a dict the
        call may change), `head` the interface and flag values (_flags
        builds the C flags from it), `slots` a step's index tensors or
        None.

        A call whose tensors have the layout of an earlier call runs that
        call's plan on its own addresses (gdn/_plan.py); the first call of
        a layout makes the plan. Checked device calls and pools that must
        be staged take gdn_call's path every time."""
        if slots is None:
            keyed = _plan.layout_key(head, present)
        else:
            # The slots' tables go last, their layouts read once (_bind).
            keyed = slots._bind(function, present, head)
        if keyed is not None:
            # One thread at a time runs or replaces a Kernel's plans.
            with self._lock:
                plan = self._plans.get(keyed[0])
                if plan is not None:
                    stream = plan.stream()
                    if slots is not None:
                        if plan.checked:
                            slots._check_contents(function)
                        slots._order_before(stream)
                    plan.run(keyed[1], stream)
                    return keyed
        self._call_unplanned(function, interface, present, head, slots)
        return keyed

    def _run_remembered(self, function, slots, scalars, tensors, output, v):
        """A layer call with slots, the short way: when an earlier call
        with these slots had the same scalar arguments and tensor layouts
        (`tensors`: the call's tensors in the order its plan takes them, an
        absent one as None; `output` or None), this runs that call's plan
        on the new addresses and returns o. Otherwise it returns (None,
        key), and the full call remembers its plan under `key`
        (_remember). Only unchecked plans are remembered: checked runs
        read the tables on the host every time."""
        key = [self, self.checked, scalars]
        addresses = []
        torch_tensor = _plan._torch_tensor
        layouts = _plan._LAYOUTS
        for t in tensors + (output,):
            if t is None:
                key.append(None)
            elif type(t) is torch_tensor:   # inline: the common case
                key.append((t.dtype, t.shape, t.stride(), t.device,
                            t.requires_grad))
                addresses.append(t.data_ptr())
            else:
                layout_of = layouts.get(type(t))
                if layout_of is None:
                    return None, None
                layout, address = layout_of(t)
                key.append(layout)
                addresses.append(address)
        key = tuple(key)
        remembered = slots._remembered.get(key)
        if remembered is None:
            return None, key
        plan, tables = remembered
        o = output
        if o is None:
            # The plan's o was allocated so too: its layout follows v's.
            o = _empty_like(v, function)
            if type(o) is torch_tensor:
                addresses.append(o.data_ptr())
            else:
                keyed = _plan.layout_key(None, {"": o})
                if keyed is None:
                    return None, None
                addresses.append(keyed[1][0])
        with self._lock:
            if not plan._handle:      # dropped from the Kernel's plans
                slots._remembered.pop(key, None)
                return None, key
            stream = plan.stream()
            slots._order_before(stream)
            plan.run(addresses + tables, stream)
        return o, None

    def _remember(self, slots, key, keyed):
        """After a full call with slots: its plan, found by the layout key
        of its tensors as given (`keyed`, from _call), under `key`. A call
        whose tensors were converted ran a plan of other layouts, which
        that key does not find: such calls keep the full path."""
        if keyed is None:
            return
        with self._lock:
            plan = self._plans.get(keyed[0])
        if plan is not None and not plan.checked:
            slots._remembered[key] = (plan, slots._keyed[1])

    def _call_unplanned(self, function, interface, present, head, slots):
        device = _dlpack.device_of(present["v"])
        on_device = device is not None and device[0] != _dlpack.KDL_CPU
        checked = not on_device if self.checked is None else self.checked
        if slots is not None and checked:
            slots._check_contents(function)
        flags = _flags(head)
        stream = 0
        if on_device:
            present = {n: _as_device_operand(n, t) for n, t in present.items()}
            stream = _dlpack.current_stream(present["v"])
            if slots is not None:
                slots._order_before(stream)
        if not (on_device and checked):
            keyed = _plan.layout_key(head, present)
            if keyed is not None:
                with self._lock:
                    plan = self._plans.get(keyed[0])
                    if plan is None:
                        flags.checked = int(bool(checked))
                        borrowed = [(n, Borrowed(function, n, t, stream,
                                                 written=n in _WRITTEN))
                                    for n, t in present.items()]
                        plan = _plan.create_plan(
                            self._handle, interface, borrowed, flags, stream,
                            device[1] if on_device else None)
                        del borrowed  # the capsules may go now
                        self._plans.put(keyed[0], plan)
                    plan.run(keyed[1], stream)
                return
        self._run(function, interface, present, flags, stream, checked=checked)

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
                             output=None, slots=None, cp_group=None):
        """Seed 000 (pymllm): see gdn.gdn_extend_chunkwise."""
        fn = "gdn_extend_chunkwise"
        if cp_group is not None:
            if slots is not None:
                raise GDNValueError("%s: slots and cp_group together are not "
                                    "supported; pass one of them" % fn)
            from . import cp
            return cp.extend_chunkwise(self, cp_group, q, k, v, a, b, A_log,
                                       dt_bias, state_pool, cache_indices,
                                       cu_seqlens, chunk_size, output)
        key = None
        if (type(slots) is GDNExtendSlots and type(chunk_size) is int
                and cache_indices is slots._tables[0]
                and cu_seqlens is slots._tables[1]):
            out, key = self._run_remembered(
                fn, slots, (chunk_size,),
                (q, k, v, a, b, A_log, dt_bias, state_pool), output, v)
            if out is not None:
                return out
        if slots is not None and not isinstance(slots, GDNExtendSlots):
            raise GDNTypeError("%s: slots is %s; expected what "
                               "gdn_extend_chunkwise_slots() returns or None"
                               % (fn, type(slots).__name__))
        if (q is None or k is None or v is None or a is None or b is None
                or A_log is None or dt_bias is None or state_pool is None
                or cache_indices is None or cu_seqlens is None):
            _require(fn, {"q": q, "k": k, "v": v, "a": a, "b": b,
                          "A_log": A_log, "dt_bias": dt_bias,
                          "state_pool": state_pool,
                          "cache_indices": cache_indices,
                          "cu_seqlens": cu_seqlens})
        chunk_size = _int_argument(fn, "chunk_size", chunk_size,
                                   "32, 64 or 128")
        out = output if output is not None else _empty_like(v, fn)
        # The C flags' defaults for what the pool interface does not take.
        head = (_capi.INTERFACE_POOL, chunk_size, 256, None, _capi.GATE_LINEAR,
                0, 0, 0, self.checked)
        keyed = self._call(fn, _capi.INTERFACE_POOL, {
            "q": q, "k": k, "v": v, "a": a, "b": b, "A_log": A_log,
            "dt_bias": dt_bias, "state_pool": state_pool,
            "cache_indices": cache_indices, "cu_seqlens": cu_seqlens,
            "o": out}, head, slots)  # every one required
        if key is not None:
            self._remember(slots, key, keyed)
        return out

    def chunk_gated_delta_rule_paged(
            self, q, k, v, g=None, beta=None, scale=None, *, cu_seqlens,
            state_pool, page_indices, page_indptr, page_size, last_page_len,
            use_qk_l2norm_in_kernel=False, output=None, gate_domain="linear",
            use_gate_in_kernel=False, A_log=None, dt_bias=None,
            beta_is_logit=False, slots=None, cp_group=None):
        """Seed 004 (FlashInfer): see gdn.chunk_gated_delta_rule_paged."""
        fn = "chunk_gated_delta_rule_paged"
        if cp_group is not None:
            if slots is not None:
                raise GDNValueError("%s: slots and cp_group together are not "
                                    "supported; pass one of them" % fn)
            if gate_domain not in ("linear", "log"):
                raise GDNValueError("%s: gate_domain is %r; expected 'linear' "
                                    "or 'log'" % (fn, gate_domain))
            from . import cp
            return cp.paged_prefill(
                self, cp_group, q, k, v, g, beta, scale, cu_seqlens,
                state_pool, page_indices, page_indptr, page_size,
                last_page_len, use_qk_l2norm_in_kernel, output, gate_domain,
                use_gate_in_kernel, A_log, dt_bias, beta_is_logit)
        key = None
        if (type(slots) is GDNPagedPrefillSlots and type(page_size) is int
                and (scale is None or type(scale) is float)
                and cu_seqlens is slots._tables[0]
                and page_indices is slots._tables[1]
                and page_indptr is slots._tables[2]
                and last_page_len is slots._tables[3]):
            out, key = self._run_remembered(
                fn, slots, (page_size, scale, gate_domain, use_gate_in_kernel,
                            beta_is_logit, use_qk_l2norm_in_kernel),
                (q, k, v, g, beta, A_log, dt_bias, state_pool), output, v)
            if out is not None:
                return out
        if gate_domain not in ("linear", "log"):
            raise GDNValueError("%s: gate_domain is %r; expected 'linear' or "
                                "'log'" % (fn, gate_domain))
        if slots is not None and not isinstance(slots, GDNPagedPrefillSlots):
            raise GDNTypeError("%s: slots is %s; expected what "
                               "gdn_paged_prefill_slots() returns or None"
                               % (fn, type(slots).__name__))
        if (q is None or k is None or v is None or cu_seqlens is None
                or state_pool is None or page_indices is None
                or page_indptr is None or last_page_len is None):
            _require(fn, {"q": q, "k": k, "v": v, "cu_seqlens": cu_seqlens,
                          "state_pool": state_pool,
                          "page_indices": page_indices,
                          "page_indptr": page_indptr,
                          "last_page_len": last_page_len})
        page_size = _int_argument(fn, "page_size", page_size,
                                  "a multiple of 64 in [64, 2^30]")
        if slots is not None and page_size != slots.page_size:
            raise GDNValueError(
                "%s: page_size = %d, but %r were made for page_size = %d; "
                "make slots for the step's page table" % (fn, page_size, slots,
                                                          slots.page_size))
        if scale is not None:
            scale = _scale_argument(fn, scale)
        out = output if output is not None else _empty_like(v, fn)
        # chunk_size 0: the schedule's chunk=, else 64 (the paged call takes
        # no chunk_size).
        head = (_capi.INTERFACE_PAGED, 0, page_size, scale,
                _capi.GATE_LOG if gate_domain == "log" else _capi.GATE_LINEAR,
                int(bool(use_gate_in_kernel)), int(bool(beta_is_logit)),
                int(bool(use_qk_l2norm_in_kernel)), self.checked)
        tensors = {"q": q, "k": k, "v": v}
        for name, t in (("g", g), ("beta", beta), ("A_log", A_log),
                        ("dt_bias", dt_bias)):
            if t is not None:
                tensors[name] = t
        tensors.update(state_pool=state_pool, page_indices=page_indices,
                       page_indptr=page_indptr, last_page_len=last_page_len,
                       cu_seqlens=cu_seqlens, o=out)
        keyed = self._call(fn, _capi.INTERFACE_PAGED, tensors, head, slots)
        if key is not None:
            self._remember(slots, key, keyed)
        return out


def _flags(head):
    """The C flags of a call's `head` (see the Kernel methods): interface,
    chunk_size, page_size, scale or None, gate domain, use_gate_in_kernel,
    beta_is_logit, qk_l2norm, the Kernel's checked setting."""
    (_, chunk_size, page_size, scale, gate_domain, use_gate, beta_is_logit,
     qk_l2norm, _) = head
    flags = _capi.CallFlags()
    _capi.lib.gdn_call_flags_init(ctypes.byref(flags))
    flags.chunk_size = chunk_size
    flags.page_size = page_size
    if scale is not None:
        flags.has_scale = 1
        flags.scale = scale
    flags.gate_domain = gate_domain
    flags.use_gate_in_kernel = use_gate
    flags.beta_is_logit = beta_is_logit
    flags.qk_l2norm = qk_l2norm
    return flags


def _same_tensor(a, b):
    """Whether a and b are the same memory with the same layout (two
    torch views of one tensor, say)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    keyed_a = _plan.layout_key(None, {"": a})
    keyed_b = _plan.layout_key(None, {"": b})
    return keyed_a is not None and keyed_a == keyed_b


def _host_copy(t):
    """The values of an index tensor, on the host (waits for the device)."""
    import numpy as np
    if type(t).__module__.split(".")[0] == "torch":
        return t.detach().cpu().numpy().copy()
    return np.array(t, copy=True)


class _StepSlots:
    """The index tensors of one serving step, made once and passed to every
    layer's call with ``slots=``.

    The slots copy each table as it is when they are made (torch device
    tables as int64, on the current stream, with no host sync; numpy
    arrays on the host; tensors of other libraries are kept as given), and
    the calls read those copies: the tables are converted once per step
    rather than on every call. A call refuses slots made for other tables
    (not the same memory and layout); in checked mode it also refuses
    tables whose values changed since the slots were made (read on the
    host, as checked mode does). A call on another stream than the one
    the slots were made on waits for their copies. Our kernels read the
    tables directly, so nothing else is precomputed: the per-layer saving
    is the plan each call layout gets (see Kernel).
    """

    _FUNCTION = None

    def __init__(self, tensors, page_size=None):
        _require(self._FUNCTION, tensors)
        self._given = dict(tensors)
        self._tables = tuple(tensors.values())   # the objects, in order
        # Layer calls' plans by their arguments (Kernel._run_remembered).
        self._remembered = {}
        self._made_on = None     # the torch stream of the device copies
        self._tensors = {n: self._copy(t) for n, t in tensors.items()}
        self._made_stream = (self._made_on.cuda_stream
                             if self._made_on is not None else None)
        # The tables' part of a call's layout key, read once.
        keyed = _plan.layout_key(None, self._tensors)
        self._keyed = (keyed[0][1:], keyed[1]) if keyed is not None else None
        self.page_size = page_size

    def _copy(self, t):
        module = type(t).__module__.split(".")[0]
        if module == "torch":
            import torch
            if t.is_cuda:
                if self._made_on is None:
                    self._made_on = torch.cuda.current_stream(t.device)
                return t.to(torch.int64, copy=True)
            return t.clone()
        if module == "numpy":
            import numpy as np
            return np.array(t, copy=True)
        return t

    def __repr__(self):
        shapes = ", ".join("%s%s" % (n, list(getattr(t, "shape", ())))
                           for n, t in self._given.items())
        return "%s(%s)" % (type(self).__name__, shapes)

    def _bind(self, function, present, head):
        """Puts the slots' index tensors last into the call's `present`,
        after checking the call passes the tensors the slots were made
        for, and returns the call's layout key and addresses
        (_plan.layout_key) or None."""
        for name, made in self._given.items():
            given = present.pop(name)
            if given is not made and not _same_tensor(given, made):
                raise GDNValueError(
                    "%s: %s were made for another %s (%s at %s), the call "
                    "passes %s at %s; make slots once per step from that "
                    "step's tensors"
                    % (function, self, name, _describe(made), _address(made),
                       _describe(given), _address(given)))
        keyed = _plan.layout_key(head, present)
        present.update(self._tensors)
        if keyed is None or self._keyed is None:
            return None
        return keyed[0] + self._keyed[0], keyed[1] + self._keyed[1]

    def _order_before(self, stream):
        """A call on `stream` (a handle) reads the device copies: if the
        slots were made on another stream it waits for them, and the
        caching allocator keeps them until the call ran."""
        if self._made_on is None or stream == self._made_stream:
            return
        import torch
        current = torch.cuda.current_stream(self._made_on.device)
        current.wait_stream(self._made_on)
        for t in self._tensors.values():
            t.record_stream(current)

    def _check_contents(self, function):
        """Checked mode: refuses tables whose values changed since the
        slots were made."""
        for name, given in self._given.items():
            then, now = _host_copy(self._tensors[name]), _host_copy(given)
            if then.shape != now.shape or (then != now).any():
                raise GDNValueError(
                    "%s: the values of %s changed since %s were made (%s "
                    "then, %s now); make new slots after changing a table"
                    % (function, name, self, _preview(then), _preview(now)))


def _describe(t):
    return "%s%s" % (getattr(t, "dtype", type(t).__name__),
                     list(getattr(t, "shape", ())))


def _address(t):
    keyed = _plan.layout_key(None, {"": t})
    return hex(keyed[1][0]) if keyed else "?"


def _preview(values, count=8):
    flat = list(values.reshape(-1)[:count])
    return "[%s%s]" % (", ".join(str(int(x)) for x in flat),
                       ", ..." if values.size > count else "")


class GDNPagedPrefillSlots(_StepSlots):
    """What gdn_paged_prefill_slots() returns: a step's cu_seqlens and page
    table (see _StepSlots), for every layer's chunk_gated_delta_rule_paged.

    FlashInfer precomputes, per step, the pool rows each boundary state
    goes to. Our kernels find each page from the chunk's absolute position
    in the CSR table, so no rows are computed; what the slots save is the
    per-call conversion of the tables and, with the plans every Kernel
    keeps, all per-call validation but the addresses'.
    """

    _FUNCTION = "gdn_paged_prefill_slots"


class GDNExtendSlots(_StepSlots):
    """What gdn_extend_chunkwise_slots() returns: a step's cache_indices
    and cu_seqlens (see _StepSlots), for every layer's
    gdn_extend_chunkwise."""

    _FUNCTION = "gdn_extend_chunkwise_slots"


def gdn_paged_prefill_slots(cu_seqlens, page_indices, page_indptr, page_size,
                            last_page_len):
    """Seed 004's per-step slots: made once per step from its cu_seqlens
    and page table, shared by every layer's call (``slots=``). No host
    sync; on the device at most one int64 conversion per table."""
    page_size = _int_argument("gdn_paged_prefill_slots", "page_size",
                              page_size, "a multiple of 64 in [64, 2^30]")
    return GDNPagedPrefillSlots(
        {"cu_seqlens": cu_seqlens, "page_indices": page_indices,
         "page_indptr": page_indptr, "last_page_len": last_page_len},
        page_size)


def gdn_extend_chunkwise_slots(cache_indices, cu_seqlens):
    """The pool call's twin of gdn_paged_prefill_slots: a step's
    cache_indices and cu_seqlens, shared by every layer's
    gdn_extend_chunkwise (``slots=``)."""
    return GDNExtendSlots({"cache_indices": cache_indices,
                           "cu_seqlens": cu_seqlens})


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
