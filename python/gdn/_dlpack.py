"""Borrowing tensors through DLPack (``__dlpack__`` / ``__dlpack_device__``).

The capsules are not consumed: each keeps its producer's memory alive for as
long as we hold it, and its producer frees it when the capsule dies.
"""

import ctypes

from . import _capi

_pythonapi = ctypes.pythonapi
_pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pythonapi.PyCapsule_IsValid.restype = ctypes.c_int
_pythonapi.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pythonapi.PyCapsule_New.restype = ctypes.py_object
_pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                     ctypes.c_void_p]

KDL_CPU, KDL_CUDA = 1, 2


def device_of(obj):
    """(DLPack device type, id) of a tensor, or None for non-tensors."""
    try:
        return tuple(obj.__dlpack_device__())
    except AttributeError:
        return None


def current_stream(obj):
    """The caller's current CUDA stream for a device tensor's library, as a
    handle (0: the legacy default stream)."""
    module = type(obj).__module__.split(".")[0]
    if module == "torch":
        import torch
        return torch.cuda.current_stream(obj.device).cuda_stream
    if module == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    return 0


class Borrowed:
    """A tensor lent to the library for one call."""

    def __init__(self, name, obj, stream=None):
        if not hasattr(obj, "__dlpack__"):
            raise TypeError("%s: expected a tensor with __dlpack__ (torch, "
                            "CuPy, JAX, numpy), got %s" % (name, type(obj).__name__))
        device_type, _ = obj.__dlpack_device__()
        if device_type == KDL_CPU:
            self.capsule = obj.__dlpack__()
        else:
            # The producer orders its pending work before the stream we run
            # on (DLPack: 1 names the legacy default stream, 0 is not used).
            self.capsule = obj.__dlpack__(stream=stream or 1)
        if not _pythonapi.PyCapsule_IsValid(self.capsule, b"dltensor"):
            raise TypeError("%s: __dlpack__ did not return a 'dltensor' capsule"
                            % name)
        # A DLManagedTensor starts with its DLTensor.
        self.pointer = _pythonapi.PyCapsule_GetPointer(self.capsule, b"dltensor")
        self.name = name
        self.obj = obj


# ---- bfloat16 for numpy, which has no such dtype ----

class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _capi.DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class bfloat16_view:
    """A host array of uint16 bit patterns seen through DLPack as bfloat16.

    numpy has no bfloat16; a bf16 state pool or bf16 q / k / v from numpy
    code is kept as uint16 and lent as ``gdn.bfloat16_view(array)``. The
    view borrows the array's memory (no copy), strides included. It is
    meant for gdn's calls: the capsules it hands out carry no deleter and
    stay valid only while the view (and its array) lives, so do not keep a
    tensor another library imports from it.
    """

    def __init__(self, array):
        import numpy as np
        if not isinstance(array, np.ndarray) or array.dtype != np.uint16:
            raise TypeError("bfloat16_view: expected a numpy uint16 array, got "
                            "%r" % (getattr(array, "dtype", type(array)),))
        self.array = array
        self.shape = array.shape
        self.ndim = array.ndim
        self.dtype = "bfloat16"
        n = max(array.ndim, 1)
        self._shape = (ctypes.c_int64 * n)(*array.shape)
        self._strides = (ctypes.c_int64 * n)(
            *[s // array.itemsize for s in array.strides])
        self._managed = _DLManagedTensor()
        t = self._managed.dl_tensor
        t.data = array.ctypes.data
        t.device = _capi.DLDevice(KDL_CPU, 0)
        t.ndim = array.ndim
        t.dtype = _capi.DLDataType(4, 16, 1)  # kDLBfloat, 16 bits
        t.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = 0

    def __dlpack_device__(self):
        return (KDL_CPU, 0)

    def __dlpack__(self, stream=None):
        return _pythonapi.PyCapsule_New(ctypes.addressof(self._managed),
                                        b"dltensor", None)
