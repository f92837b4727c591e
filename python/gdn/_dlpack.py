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


_NUMPY_DTYPES = {"f2": (2, 16), "f4": (2, 32), "f8": (2, 64),
                 "i4": (0, 32), "i8": (0, 64)}   # kind + size -> DLPack
_DTYPES_EXPECTED = "bfloat16, float16, float32, float64, int32 or int64"


def _is_numpy(obj):
    return type(obj).__module__.split(".")[0] == "numpy" and hasattr(obj, "ctypes")


class Borrowed:
    """A tensor lent to the library for one call.

    numpy arrays are described to the library directly (their buffer,
    shape and strides, no copy), so read-only arrays can be lent for
    reading, which numpy's own __dlpack__ refuses; other libraries lend
    through __dlpack__."""

    def __init__(self, function, tensor, obj, stream=None, written=False):
        name = "%s: %s" % (function, tensor)
        self.name = name
        self.tensor = tensor
        self.obj = obj
        if _is_numpy(obj):
            self._host = _HostTensor(name, obj, _numpy_dtype(tensor, obj))
            if written and not obj.flags.writeable:
                raise _capi.GDNValueError(
                    "%s: the array is read-only and the call writes it" % name)
            self.capsule = None
            self.pointer = ctypes.addressof(self._host.managed)
            return
        if not hasattr(obj, "__dlpack__"):
            raise _capi.GDNTypeError(
                "%s: expected a tensor with __dlpack__ (torch, CuPy, JAX, "
                "numpy), got %s" % (name, type(obj).__name__))
        array = getattr(obj, "array", None)    # a bfloat16_view
        if written and _is_numpy(array) and not array.flags.writeable:
            raise _capi.GDNValueError(
                "%s: the array is read-only and the call writes it" % name)
        device_type, _ = obj.__dlpack_device__()
        try:
            if device_type == KDL_CPU:
                self.capsule = obj.__dlpack__()
            else:
                # The producer orders its pending work before the stream we
                # run on (DLPack: 1 names the legacy default stream, 0 is not
                # used).
                self.capsule = obj.__dlpack__(stream=stream or 1)
        except (BufferError, TypeError, ValueError) as e:
            raise _capi.GDNTypeError("%s: %s cannot be lent through DLPack: %s"
                                     % (name, type(obj).__name__, e)) from None
        if not _pythonapi.PyCapsule_IsValid(self.capsule, b"dltensor"):
            raise _capi.GDNTypeError("%s: __dlpack__ did not return a "
                                     "'dltensor' capsule" % name)
        # A DLManagedTensor starts with its DLTensor.
        self.pointer = _pythonapi.PyCapsule_GetPointer(self.capsule, b"dltensor")


def _numpy_dtype(tensor, array):
    """The DLPack dtype of a numpy array the library can use, or a refusal
    naming the tensor."""
    dt = array.dtype
    if dt.kind == "b":
        raise _capi.GDNTypeError("tensor '%s' has dtype bool; expected %s"
                                 % (tensor, _DTYPES_EXPECTED))
    if not dt.isnative:
        raise _capi.GDNTypeError(
            "tensor '%s' has dtype %s, not in the machine's byte order; "
            "expected native %s" % (tensor, dt.str, _DTYPES_EXPECTED))
    code = _NUMPY_DTYPES.get("%s%d" % (dt.kind, dt.itemsize))
    if code is None:
        raise _capi.GDNTypeError("tensor '%s' has dtype %s; expected %s"
                                 % (tensor, dt.name, _DTYPES_EXPECTED))
    return _capi.DLDataType(code[0], code[1], 1)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _capi.DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class _HostTensor:
    """A DLManagedTensor (no deleter) describing a numpy array's buffer as
    `dtype`; valid while this object and the array live."""

    def __init__(self, name, array, dtype):
        if any(s % array.itemsize for s in array.strides):
            raise _capi.GDNValueError("%s: strides %s (bytes) are not multiples "
                                      "of the element size %d"
                                      % (name, list(array.strides), array.itemsize))
        n = max(array.ndim, 1)
        self.array = array
        self._shape = (ctypes.c_int64 * n)(*array.shape)
        self._strides = (ctypes.c_int64 * n)(
            *[s // array.itemsize for s in array.strides])
        self.managed = _DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = array.ctypes.data
        t.device = _capi.DLDevice(KDL_CPU, 0)
        t.ndim = array.ndim
        t.dtype = dtype
        t.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = 0


# ---- bfloat16 for numpy, which has no such dtype ----

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
            raise _capi.GDNTypeError(
                "bfloat16_view: expected a numpy uint16 array, got %r"
                % (getattr(array, "dtype", type(array)),))
        self.array = array
        self.shape = array.shape
        self.ndim = array.ndim
        self.dtype = "bfloat16"
        self._host = _HostTensor("bfloat16_view", array,
                                 _capi.DLDataType(4, 16, 1))  # kDLBfloat

    @classmethod
    def empty(cls, shape):
        """A view over a new uninitialised uint16 array of `shape`."""
        import numpy as np
        return cls(np.empty(shape, np.uint16))

    def __dlpack_device__(self):
        return (KDL_CPU, 0)

    def __dlpack__(self, stream=None):
        return _pythonapi.PyCapsule_New(ctypes.addressof(self._host.managed),
                                        b"dltensor", None)
