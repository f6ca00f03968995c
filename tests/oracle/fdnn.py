# SPDX-License-Identifier: Apache-2.0
"""FreeDNN from Python, for the oracle tests: ctypes bindings to the built
libcudnn.so.8 and helpers that turn numpy arrays into cuDNN descriptors.

The tests compare FreeDNN against PyTorch (python3-torch from Debian, run by
/usr/bin/python3) as an independent implementation of the same semantics.
FDNN_LIB names the library under test (CTest sets it).

Each test module declares the prototypes of the functions it calls with
`proto(name, argtypes)`; every cuDNN function returns cudnnStatus_t (int).
"""
import ctypes
import os
import sys

import numpy as np

LIB_PATH = os.environ.get("FDNN_LIB", "libcudnn.so.8")
lib = ctypes.CDLL(LIB_PATH)

c_int_p = ctypes.POINTER(ctypes.c_int)
vp = ctypes.c_void_p

STATUS = ["SUCCESS", "NOT_INITIALIZED", "ALLOC_FAILED", "BAD_PARAM", "INTERNAL_ERROR", "INVALID_VALUE",
          "ARCH_MISMATCH", "MAPPING_ERROR", "EXECUTION_FAILED", "NOT_SUPPORTED", "LICENSE_ERROR",
          "RUNTIME_PREREQUISITE_MISSING", "RUNTIME_IN_PROGRESS", "RUNTIME_FP_OVERFLOW", "VERSION_MISMATCH"]
SUCCESS, BAD_PARAM, NOT_SUPPORTED = 0, 3, 9

DTYPE = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.float16): 2}
NCHW, NHWC = 0, 1


class CudnnError(RuntimeError):
    pass


def proto(name, argtypes):
    fn = getattr(lib, name)
    fn.argtypes = argtypes
    fn.restype = ctypes.c_int
    return fn


def check(status, what=""):
    if status != SUCCESS:
        raise CudnnError(f"{what}: CUDNN_STATUS_{STATUS[status] if status < len(STATUS) else status}")


_create = proto("cudnnCreate", [ctypes.POINTER(vp)])
_destroy = proto("cudnnDestroy", [vp])
_create_tensor = proto("cudnnCreateTensorDescriptor", [ctypes.POINTER(vp)])
_destroy_tensor = proto("cudnnDestroyTensorDescriptor", [vp])
_set_nd = proto("cudnnSetTensorNdDescriptor", [vp, ctypes.c_int, ctypes.c_int, c_int_p, c_int_p])
_set_threads = proto("freednnSetNumThreads", [vp, ctypes.c_int])
_set_isa = proto("freednnSetIsa", [vp, ctypes.c_char_p])


class Handle:
    def __init__(self, threads=None, isa=None):
        self.ptr = vp()
        check(_create(ctypes.byref(self.ptr)), "cudnnCreate")
        if threads is not None:
            check(_set_threads(self.ptr, threads), "freednnSetNumThreads")
        if isa is not None:
            check(_set_isa(self.ptr, isa.encode()), "freednnSetIsa")

    def __del__(self):
        if getattr(self, "ptr", None):
            _destroy(self.ptr)


def int_array(values):
    return (ctypes.c_int * len(values))(*values)


class TensorDesc:
    """A descriptor for a numpy array, with its real strides (so transposed
    views give NHWC or arbitrary strided descriptors)."""

    def __init__(self, arr):
        self.ptr = vp()
        check(_create_tensor(ctypes.byref(self.ptr)), "cudnnCreateTensorDescriptor")
        dims = list(arr.shape)
        strides = [s // arr.itemsize for s in arr.strides]
        while len(dims) < 4:  # cuDNN wants at least 4 dims for most ops
            dims.append(1)
            strides.append(1)
        check(_set_nd(self.ptr, DTYPE[arr.dtype], len(dims), int_array(dims), int_array(strides)),
              "cudnnSetTensorNdDescriptor")

    def __del__(self):
        if getattr(self, "ptr", None):
            _destroy_tensor(self.ptr)


def ptr(arr):
    """Address of the first element of a numpy array (views included)."""
    return ctypes.c_void_p(arr.__array_interface__["data"][0])


def scalar(value, dtype=np.float32):
    """alpha/beta: float for float/half/bf16 tensors, double for double."""
    if np.dtype(dtype) == np.float64:
        return ctypes.byref(ctypes.c_double(value))
    return ctypes.byref(ctypes.c_float(value))


def nhwc_view(shape, dtype=np.float32, fill=None):
    """An array of NCHW shape whose memory is NHWC (channels last)."""
    n, c, h, w = shape
    view = np.empty((n, h, w, c), dtype=dtype).transpose(0, 3, 1, 2)
    if fill is not None:
        view[...] = fill  # a scalar or an array of the NCHW shape
    return view


def poisoned(shape, dtype=np.float32):
    a = np.empty(shape, dtype=dtype)
    a.fill(np.nan)
    return a


class Results:
    """Counts checks and prints the closing line 'N passed, N failed'."""

    def __init__(self, name):
        self.name, self.passed, self.failed = name, 0, 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAILED: {what}", file=sys.stderr)

    def close(self, tol=None, got=None, want=None, what=""):
        err = float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))) if got.size else 0.0
        self.check(np.isfinite(err) and err <= tol, f"{what}: max rel error {err:.3g} > {tol:.3g}")

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        sys.exit(0 if self.failed == 0 and self.passed > 0 else 1)
