"""Plans: a call's layout validated once, then run on each layer's tensors.

A serving step calls the kernels once per layer with tensors of one layout
(the step's shapes) at different addresses. The first call of a layout
makes a plan (``gdn_plan_create``: the whole validation, the kernels, the
grid); later calls of the same layout only look it up by their tensors'
layout and hand the library their addresses (``gdn_plan_run``). For torch
and numpy tensors the layout and the address are read from attributes, so
such a call touches neither DLPack nor torch ops.
"""

import ctypes

from . import _capi, _dlpack

# Plans kept per Kernel; a step's layouts (one per distinct T and batch)
# repeat, so a few dozen cover a serving engine's steady state.
PLANS_KEPT = 64


def _torch_layout(t):
    # requires_grad: DLPack refuses such tensors, so their calls take
    # gdn_call's path and its refusal. layout_key inlines this.
    return (t.dtype, t.shape, t.stride(), t.device, t.requires_grad), t.data_ptr()


def _numpy_layout(a):
    return (a.dtype, a.shape, a.strides, a.flags.writeable), a.ctypes.data


def _bfloat16_layout(view):
    a = view.array
    return ("bfloat16", a.shape, a.strides, a.flags.writeable), a.ctypes.data


_LAYOUTS = {}   # exact type -> layout function; other types take gdn_call
_torch_tensor = None   # torch.Tensor once a torch tensor was seen


def _layout_of_type(cls):
    """The layout function for tensors of exactly `cls` (subclasses may
    change what attributes mean), or None."""
    if cls in _LAYOUTS:
        return _LAYOUTS[cls]
    module = cls.__module__.split(".")[0]
    function = None
    if module == "torch" and cls.__name__ == "Tensor":
        global _torch_tensor
        _torch_tensor = cls       # layout_key inlines _torch_layout
        function = _torch_layout
    elif module == "torch" and cls.__name__ == "Parameter":
        function = _torch_layout  # a Tensor whose attributes mean the same
    elif module == "numpy" and cls.__name__ == "ndarray":
        function = _numpy_layout
    elif cls is _dlpack.bfloat16_view:
        function = _bfloat16_layout
    _LAYOUTS[cls] = function
    return function


def layout_key(head, present):
    """(key, addresses) of a call's tensors: `head` (interface and flags)
    plus each tensor's name and layout; None when a tensor's type has no
    cheap layout."""
    key = [head]
    addresses = []
    layouts = _LAYOUTS
    for name, t in present.items():
        cls = type(t)
        if cls is _torch_tensor:   # inline: a layer call's common case
            key += (name, (t.dtype, t.shape, t.stride(), t.device,
                           t.requires_grad))
            addresses.append(t.data_ptr())
            continue
        function = layouts.get(cls) or _layout_of_type(cls)
        if function is None:
            return None
        layout, address = function(t)
        key += (name, layout)
        addresses.append(address)
    return tuple(key), addresses


class Plan:
    """A C plan (gdn_plan) and the order of its tensors' addresses."""

    __slots__ = ("_handle", "_lib", "_data", "checked", "device")

    def __init__(self, handle, count, checked, device):
        self._handle = handle
        self._lib = _capi.lib
        self._data = (ctypes.c_void_p * count)()
        self.checked = checked   # runs take gdn_call's whole path
        self.device = device     # CUDA ordinal of torch tensors, or None

    def stream(self):
        """The caller's current stream for the plan's device (torch)."""
        if self.device is None:
            return 0
        return _current_torch_stream(self.device)

    def run(self, addresses, stream):
        data = self._data
        data[:] = addresses
        _capi.check(self._lib.gdn_plan_run(self._handle, data, stream or None))

    def destroy(self):
        if self._handle:
            self._lib.gdn_plan_destroy(self._handle)
            self._handle = None


_stream_of_device = None


def _current_torch_stream(device):
    global _stream_of_device
    if _stream_of_device is None:
        import torch
        # A plain call, without a Stream object, where torch has it.
        _stream_of_device = getattr(
            torch._C, "_cuda_getCurrentRawStream",
            lambda d: torch.cuda.current_stream(d).cuda_stream)
    return _stream_of_device(device)


def create_plan(context, interface, borrowed, flags, stream, device):
    """A Plan for `borrowed` ([(name, _dlpack.Borrowed)]), validated as
    gdn_call validates a call (checked as flags.checked says); raises as
    gdn_call refuses. `device`: the CUDA ordinal, None on the host."""
    names = (ctypes.c_char_p * len(borrowed))(*[n.encode() for n, _ in borrowed])
    pointers = (ctypes.c_void_p * len(borrowed))(*[b.pointer for _, b in borrowed])
    handle = ctypes.c_void_p()
    _capi.check(_capi.lib.gdn_plan_create(
        context, interface, len(borrowed), names, pointers, ctypes.byref(flags),
        ctypes.c_void_p(stream or None), ctypes.byref(handle)))
    return Plan(handle, len(borrowed), bool(flags.checked), device)


class PlanCache:
    """Plans by layout key, the oldest dropped past PLANS_KEPT (first in,
    first out: a recency update would hash the key a second time on every
    call). Plans capture nothing of the tensors, so a graph captured
    through a dropped plan still replays."""

    def __init__(self):
        self._plans = {}

    def get(self, key):
        return self._plans.get(key)

    def put(self, key, plan):
        self._plans[key] = plan
        while len(self._plans) > PLANS_KEPT:
            oldest = next(iter(self._plans))
            self._plans.pop(oldest).destroy()

    def __len__(self):
        return len(self._plans)

    def clear(self):
        for plan in self._plans.values():
            plan.destroy()
        self._plans.clear()
