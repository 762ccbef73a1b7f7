"""Array adapters: what xpose needs to know of an array, read from the array's own framework.

An array becomes a `View`: data pointer, shape, strides in bytes, element size and device (-1 = host memory,
else the CUDA device ordinal). Outputs and workspaces are allocated by the input's framework (its caching
allocator, its device), and GPU work runs on that framework's current stream.

Supported directly: PyTorch tensors, CuPy arrays, NumPy arrays (structured dtypes included: only the element
size matters). Other producers are imported without a copy into a framework that is installed:
`__cuda_array_interface__` objects (Numba, ...) into CuPy (else PyTorch), `__dlpack__` objects (JAX, ...) by
their device into NumPy (host) or PyTorch/CuPy (CUDA); the result is then an array of that framework.
Frameworks are imported only when an array of theirs is seen: `import xpose` needs none of them.
"""

import sys

# DLPack device types (dlpack.h, DLDeviceType) that xpose can move.
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13


class View:
    """One array as xpose sees it. `obj` is the framework object (kept alive while the view is used)."""

    __slots__ = ("obj", "kind", "ptr", "shape", "strides", "itemsize", "device", "dtype")

    def __init__(self, obj, kind, ptr, shape, strides, itemsize, device, dtype):
        self.obj = obj
        self.kind = kind  # "numpy", "torch" or "cupy"
        self.ptr = ptr
        self.shape = tuple(shape)  # every framework gives Python ints (torch.Size is a tuple of them)
        self.strides = tuple(strides)  # bytes
        self.itemsize = itemsize
        self.device = device  # -1 = host
        self.dtype = dtype

    def where(self):
        return "host memory" if self.device < 0 else f"CUDA device {self.device}"


def _root_module(a):
    return type(a).__module__.partition(".")[0]


def view(a, name, *, writable=False):
    """`a` as a View; TypeError naming `name` when xpose cannot take it."""
    v = _view(a, name, writable)
    if v.itemsize < 1:
        raise TypeError(f"{name} has elements of {v.itemsize} bytes; xpose moves elements of at least one byte")
    return v


def _view(a, name, writable):
    root = _root_module(a)
    if root == "torch":
        return _torch_view(a, name, writable)
    if root == "cupy":
        return _cupy_view(a, name)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(a, np.ndarray):
        return _numpy_view(a, name, writable)
    if hasattr(a, "__cuda_array_interface__"):
        v = view(_import_cuda_array_interface(a, name), name, writable=writable)
        _require_same_memory(v, a.__cuda_array_interface__["data"][0], name, writable)
        return v
    if hasattr(a, "__dlpack__") and hasattr(a, "__dlpack_device__"):
        return view(_import_dlpack(a, name), name, writable=writable)
    if hasattr(a, "__array_interface__") or hasattr(a, "__array__"):
        import numpy

        v = _numpy_view(numpy.asarray(a), name, writable)
        if writable:
            interface = getattr(a, "__array_interface__", None)
            _require_same_memory(v, interface["data"][0] if interface else None, name, writable)
        return v
    raise TypeError(
        f"{name}: xpose takes PyTorch tensors, CuPy and NumPy arrays, and objects with __dlpack__, "
        f"__cuda_array_interface__ or __array_interface__; got {type(a).__module__}.{type(a).__qualname__}"
    )


def _require_same_memory(v, ptr, name, writable):
    """An imported array that is a copy (another device, a conversion) would lose what xpose writes."""
    if writable and (ptr is None or v.ptr != ptr):
        raise TypeError(f"{name} could not be imported without a copy, so what xpose writes would be lost; pass a "
                        "PyTorch tensor, CuPy or NumPy array (or make the current CUDA device the array's own)")


def _numpy_view(a, name, writable):
    if a.dtype.hasobject:
        raise TypeError(
            f"{name} has dtype {a.dtype}, which holds Python object references: xpose moves raw bytes and "
            "cannot keep their reference counts"
        )
    if writable and not a.flags.writeable:
        raise ValueError(f"{name} is read-only")
    ptr = a.__array_interface__["data"][0]
    return View(a, "numpy", ptr, a.shape, a.strides, a.itemsize, -1, a.dtype)


def _torch_view(a, name, writable):
    import torch

    if not isinstance(a, torch.Tensor):
        raise TypeError(f"{name}: {type(a).__qualname__} is not a torch.Tensor")
    if a.layout != torch.strided:
        raise TypeError(f"{name} has layout {a.layout}; xpose moves strided (dense) tensors only")
    if a.is_quantized:
        raise TypeError(f"{name} is a quantized tensor; dequantize it first (its scales may follow an axis)")
    if a.device.type == "cuda":
        device = a.device.index if a.device.index is not None else torch.cuda.current_device()
    elif a.device.type == "cpu":
        device = -1
    else:
        raise TypeError(f"{name} is on device '{a.device}'; xpose moves CUDA and CPU tensors")
    if writable and (a.is_conj() or a.is_neg()):
        raise ValueError(f"{name} is a lazily conjugated or negated view; xpose cannot write through it")
    itemsize = a.element_size()
    return View(a, "torch", a.data_ptr(), a.shape, [s * itemsize for s in a.stride()], itemsize, device, a.dtype)


def _cupy_view(a, name):
    import cupy

    if not isinstance(a, cupy.ndarray):
        raise TypeError(f"{name}: {type(a).__qualname__} is not a cupy.ndarray")
    return View(a, "cupy", a.data.ptr, a.shape, a.strides, a.itemsize, a.device.id, a.dtype)


def _import_cuda_array_interface(a, name):
    try:
        import cupy

        return cupy.asarray(a)  # zero-copy for __cuda_array_interface__ objects
    except ImportError:
        pass
    try:
        import torch

        return torch.as_tensor(a, device="cuda")  # zero-copy as well
    except ImportError:
        raise TypeError(
            f"{name} is a __cuda_array_interface__ object; xpose imports those through CuPy or PyTorch, and "
            "neither is installed"
        ) from None


def _import_dlpack(a, name):
    device_type, _ = a.__dlpack_device__()
    if device_type in (_DL_CPU, _DL_CUDA_HOST):
        import numpy

        return numpy.from_dlpack(a)
    if device_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        failures = []
        for module in ("torch", "cupy"):
            try:
                return __import__(module).from_dlpack(a)
            except ImportError:
                failures.append(f"{module} is not installed")
            except Exception as e:  # e.g. a CPU-only PyTorch, or managed memory it does not take
                failures.append(f"{module}.from_dlpack: {e}")
        raise TypeError(f"{name} is a CUDA DLPack array that neither PyTorch nor CuPy could import ("
                        + "; ".join(failures) + ")")
    raise TypeError(f"{name} lives on DLPack device type {device_type}; xpose moves CPU and CUDA memory")


def resolve_input(v):
    """A PyTorch input that is a lazily conjugated/negated view is materialized first (its raw bytes are not
    its values); every other input is used as it is, without a copy."""
    if v.kind == "torch" and (v.obj.is_conj() or v.obj.is_neg()):
        return view(v.obj.resolve_conj().resolve_neg(), "a")
    return v


def empty_view(like, shape):
    """A new packed array of `like`'s framework, dtype and device, as a View (strides known: packed)."""
    result = empty(like, shape)
    if like.kind == "numpy":
        ptr = result.__array_interface__["data"][0]
    elif like.kind == "torch":
        ptr = result.data_ptr()
    else:
        ptr = result.data.ptr
    return View(result, like.kind, ptr, shape, packed_strides(shape, like.itemsize), like.itemsize, like.device,
                like.dtype)


def packed_strides(shape, itemsize):
    """Byte strides of a packed row-major array."""
    strides, step = [0] * len(shape), itemsize
    for i in range(len(shape) - 1, -1, -1):
        strides[i], step = step, step * shape[i]
    return strides


def empty(like, shape, nbytes=None):
    """A new packed array in `like`'s framework and device: of `like`'s dtype and `shape`, or of `nbytes`
    uint8 (a workspace)."""
    if like.kind == "numpy":
        import numpy

        return numpy.empty(shape, dtype=like.dtype) if nbytes is None else numpy.empty(nbytes, dtype=numpy.uint8)
    if like.kind == "torch":
        import torch

        device = like.obj.device
        if nbytes is not None:
            return torch.empty(nbytes, dtype=torch.uint8, device=device)
        return torch.empty(shape, dtype=like.dtype, device=device)
    import cupy

    with cupy.cuda.Device(like.device):
        return cupy.empty(shape, dtype=like.dtype) if nbytes is None else cupy.empty(nbytes, dtype=cupy.uint8)


def current_stream(v):
    """The handle (cudaStream_t as an int) of the current stream of `v`'s framework on `v`'s device."""
    if v.device < 0:
        return 0
    if v.kind == "torch":
        import torch

        return torch.cuda.current_stream(v.obj.device).cuda_stream
    import cupy

    with cupy.cuda.Device(v.device):
        return cupy.cuda.get_current_stream().ptr


def restride(v, shape, strides):
    """A new array of `v`'s framework over `v`'s memory with `shape` and byte `strides` (same start)."""
    if v.kind == "torch":
        return v.obj.as_strided(shape, [s // v.itemsize for s in strides])
    if v.kind == "numpy":
        import numpy

        return numpy.lib.stride_tricks.as_strided(v.obj, shape=shape, strides=strides)
    import cupy

    return cupy.lib.stride_tricks.as_strided(v.obj, shape=shape, strides=strides)
