"""ctypes bindings of libgdn.so (include/gdn-c/gdn.h)."""

import ctypes
import os
import pathlib

API_VERSION = 2

GDN_OK, GDN_ERROR_VALUE, GDN_ERROR_TYPE, GDN_ERROR_RUNTIME = 0, 1, 2, 3
INTERFACE_POOL, INTERFACE_PAGED = 0, 1
GATE_LINEAR, GATE_LOG = 0, 1


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class ContextOptions(ctypes.Structure):
    _fields_ = [("kernel_path", ctypes.c_char_p), ("schedule", ctypes.c_char_p),
                ("cpu_threads", ctypes.c_int32),
                ("artifacts_dir", ctypes.c_char_p),
                ("cache_dir", ctypes.c_char_p)]


class CallFlags(ctypes.Structure):
    _fields_ = [("page_size", ctypes.c_int64), ("chunk_size", ctypes.c_int64),
                ("has_scale", ctypes.c_int32), ("scale", ctypes.c_double),
                ("gate_domain", ctypes.c_int32),
                ("use_gate_in_kernel", ctypes.c_int32),
                ("beta_is_logit", ctypes.c_int32), ("qk_l2norm", ctypes.c_int32),
                ("checked", ctypes.c_int32), ("validate_only", ctypes.c_int32)]


PACKAGE = pathlib.Path(__file__).resolve().parent


def _candidates():
    env = os.environ.get("GDN_LIBRARY")
    if env:
        return [pathlib.Path(env)]
    return [PACKAGE / "lib" / "libgdn.so",          # installed, built with MLIR
            PACKAGE / "lib" / "libgdn-runtime.so",  # installed, MLIR-free
            PACKAGE.parent.parent / "build" / "lib" / "libgdn.so"]  # the repo


def _load(candidates):
    # An installed wheel carries both libraries: where LLVM / MLIR 22 is
    # missing the first does not load, and the runtime-only one serves
    # device tensors from the package's artifacts.
    tried = []
    for path in candidates:
        if not path.is_file():
            tried.append("%s (missing)" % path)
            continue
        try:
            return ctypes.CDLL(str(path)), path
        except OSError as error:
            tried.append("%s (%s)" % (path, error))
    raise ImportError(
        "gdn: no loadable libgdn.so; tried " + "; ".join(tried) +
        ". Build it with `make build`, install the package with "
        "`pip install .`, or point GDN_LIBRARY at it")


lib, LIBRARY = _load(_candidates())   # LIBRARY: the path of the one loaded
lib.gdn_last_error.restype = ctypes.c_char_p
lib.gdn_api_version.restype = ctypes.c_int32
lib.gdn_can_compile.restype = ctypes.c_int32
lib.gdn_context_options_init.argtypes = [ctypes.POINTER(ContextOptions)]
lib.gdn_context_create.argtypes = [ctypes.POINTER(ContextOptions),
                                   ctypes.POINTER(ctypes.c_void_p)]
lib.gdn_context_create.restype = ctypes.c_int
lib.gdn_context_destroy.argtypes = [ctypes.c_void_p]
lib.gdn_cached_artifact.argtypes = [ctypes.c_void_p, ctypes.c_int64,
                                    ctypes.c_int64, ctypes.c_char_p,
                                    ctypes.c_char_p, ctypes.c_int64]
lib.gdn_cached_artifact.restype = ctypes.c_int
lib.gdn_call_flags_init.argtypes = [ctypes.POINTER(CallFlags)]
lib.gdn_call.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32,
                         ctypes.POINTER(ctypes.c_char_p),
                         ctypes.POINTER(ctypes.c_void_p),
                         ctypes.POINTER(CallFlags), ctypes.c_void_p]
lib.gdn_call.restype = ctypes.c_int
lib.gdn_plan_create.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32,
                                ctypes.POINTER(ctypes.c_char_p),
                                ctypes.POINTER(ctypes.c_void_p),
                                ctypes.POINTER(CallFlags), ctypes.c_void_p,
                                ctypes.POINTER(ctypes.c_void_p)]
lib.gdn_plan_create.restype = ctypes.c_int
lib.gdn_plan_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                             ctypes.c_void_p]
lib.gdn_plan_run.restype = ctypes.c_int
lib.gdn_plan_destroy.argtypes = [ctypes.c_void_p]

if lib.gdn_api_version() != API_VERSION:
    raise ImportError("gdn: libgdn.so speaks C API version %d, this package %d"
                      % (lib.gdn_api_version(), API_VERSION))


class GDNError(RuntimeError):
    """A kernel could not be compiled or run."""


class GDNArgumentError(Exception):
    """A call refused for its arguments before anything ran: the message
    names the argument and what was expected; no tensor was written."""


class GDNValueError(GDNArgumentError, ValueError):
    """A refused argument value, shape, page table or aliasing."""


class GDNTypeError(GDNArgumentError, TypeError):
    """A refused argument type or dtype."""


def check(status):
    """Raises what a gdn_status means, with the library's message."""
    if status == GDN_OK:
        return
    message = lib.gdn_last_error().decode()
    if status == GDN_ERROR_TYPE:
        raise GDNTypeError(message)
    if status == GDN_ERROR_VALUE:
        raise GDNValueError(message)
    raise GDNError(message)

