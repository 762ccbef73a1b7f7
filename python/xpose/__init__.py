"""xpose: transposes and axis permutations at the memory-bandwidth limit, for PyTorch, CuPy and NumPy arrays.

    import torch, xpose
    x = torch.randn(32, 64, 112, 112, device="cuda")
    y = xpose.permute(x, (0, 2, 3, 1))        # NCHW -> NHWC: y equals x.permute(0, 2, 3, 1).contiguous()
    t = xpose.transpose(torch.randn(4096, 1000, device="cuda"))   # 2-D, or batched over leading axes
    m = xpose.transpose_(torch.randn(12000, 7000, device="cuda"))  # in place: same memory, now 7000 x 12000

Semantics are NumPy's: `permute(a, axes)` returns `numpy.transpose(a, axes)` as a new packed (C-order) array
of the same framework, dtype and device as `a`. GPU arrays run on the current stream of their framework
(`torch.cuda.current_stream()`, `cupy.cuda.get_current_stream()`) without synchronizing; NumPy arrays (and
PyTorch CPU tensors) run on the CPU executor with all cores unless `threads` says otherwise. Strided views
(`x[:, ::2]`, `x.T`, a field of a structured NumPy array) are read in place, without a hidden contiguous copy;
`out=` may be a strided view too. Negative strides (`x[::-1]`) are refused with InvalidArgumentError.

Every dtype of a fixed size works (bool, int8..int64, uint8..uint64, float16, bfloat16, float32, float64,
complex64, complex128, structured NumPy dtypes): xpose moves elements as bytes. Errors raise XposeError
subclasses that carry the library's message, which names the argument at fault.
"""

import math
import operator

from . import _arrays
from . import _xpose

__version__ = _xpose.version
has_cuda = bool(_xpose.has_cuda)  # whether this build carries the CUDA executor

__all__ = [
    "permute", "transpose", "transpose_", "explain", "has_cuda", "XposeError", "InvalidArgumentError",
    "UnsupportedError", "MisalignedError", "OutOfMemoryError", "CudaError", "InternalError",
]


class XposeError(RuntimeError):
    """An error reported by xpose. `code` is the library's status name ("invalid_argument", ...)."""

    code = "internal"

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class InvalidArgumentError(XposeError, ValueError):
    """A bad argument (axes, shapes, strides, overlapping buffers, wrong device ...); the message names it."""

    code = "invalid_argument"


class UnsupportedError(XposeError):
    """A valid request this build cannot execute (e.g. a GPU array with a module built without CUDA)."""

    code = "unsupported"


class MisalignedError(XposeError, ValueError):
    code = "misaligned"


class OutOfMemoryError(XposeError, MemoryError):
    code = "out_of_memory"


class CudaError(XposeError):
    """The CUDA runtime reported an error; the message carries its text."""

    code = "cuda_error"


class InternalError(XposeError):
    code = "internal"


# Index = xpose::status_code (include/xpose/status.hpp; the values never change).
_ERRORS = [None, InvalidArgumentError, UnsupportedError, MisalignedError, OutOfMemoryError, CudaError, InternalError]


def _check(reply):
    code, message = reply[0], reply[1]
    if code != 0:
        cls = _ERRORS[code] if 0 < code < len(_ERRORS) else InternalError
        raise cls(message)
    return reply


def _axes_list(axes, rank):
    if axes is None:
        return list(range(rank - 1, -1, -1))
    if isinstance(axes, int):
        raise InvalidArgumentError(f"axes = {axes} must be a sequence of {rank} integers")
    try:
        axes = [operator.index(x) for x in axes]
    except TypeError:
        raise InvalidArgumentError(f"axes = {axes!r} must be a sequence of integers") from None
    # The library reads an empty axes list as "reversed" (its problem.hpp default); from Python, None says
    # that, and a list must name every axis, as in NumPy.
    if len(axes) != rank:
        raise InvalidArgumentError(f"axes has {len(axes)} entries but a has {rank} axes")
    return axes


def _same_place(src, dst, name):
    if dst.device != src.device:
        raise InvalidArgumentError(f"{name} is in {dst.where()} but a is in {src.where()}")
    if dst.itemsize != src.itemsize or _dtype_name(dst) != _dtype_name(src):
        raise InvalidArgumentError(f"{name} has dtype {dst.dtype} but a has dtype {src.dtype}")


def _dtype_name(v):
    """A name comparable across frameworks: torch.float32 and numpy's float32 are both 'float32'."""
    return str(v.dtype).replace("torch.", "") if v.kind == "torch" else str(v.dtype)


def _lower(shape, itemsize, axes, in_strides, out_shape, out_strides):
    """The library problem (shape, axes, word bytes, in/out strides in words) for byte strides. Strides that
    are not multiples of the element size (a field of a structured array) split each element into the largest
    word that divides them all: a trailing, unpermuted axis of itemsize / word words."""
    # An axis of extent 1 is never stepped: its stride may be anything (negative in x[::-1] of one row).
    in_strides = [0 if n == 1 else st for n, st in zip(shape, in_strides)]
    out_strides = [0 if n == 1 else st for n, st in zip(out_shape, out_strides)]
    word = itemsize
    for extents, strides in ((shape, in_strides), (out_shape, out_strides)):
        for extent, stride in zip(extents, strides):
            if extent > 1:
                word = math.gcd(word, stride)
    shape, axes = list(shape), list(axes)
    in_words, out_words = [s // word for s in in_strides], [s // word for s in out_strides]
    if word != itemsize:
        shape.append(itemsize // word)
        axes.append(len(axes))
        in_words.append(1)
        out_words.append(1)
    return shape, axes, word, in_words, out_words


def _checked_axes(v, axes):
    """`axes` validated by the library (its message names axes[i]) and made non-negative. A permutation of
    range(rank) (the common case) is recognized here, without the library's planning pass."""
    rank = len(v.shape)
    axes = _axes_list(axes, rank)
    normalized = [x + rank if x < 0 else x for x in axes]  # _axes_list checked the length
    if sorted(normalized) == list(range(rank)):  # an entry out of [-rank, rank) never lands in range(rank)
        return normalized
    _check(_xpose.describe(list(v.shape), axes, v.itemsize, [], []))
    return normalized


def permute(a, axes=None, out=None, *, threads=0):
    """`numpy.transpose(a, axes)` as a new packed array (or written into `out`), returned.

    a:       PyTorch tensor, CuPy or NumPy array, or any __dlpack__ / __cuda_array_interface__ object
             (strided views welcome).
    axes:    output axis i takes input axis axes[i]; negative values count from the end; None reverses.
    out:     optional destination of shape `[a.shape[i] for i in axes]`, same dtype and device (may be strided).
    threads: CPU executor threads (0 = all cores); ignored for GPU arrays.
    GPU arrays: ordered on the framework's current stream, no synchronization. Raises XposeError subclasses.
    """
    src = _arrays.resolve_input(_arrays.view(a, "a"))
    axes = _checked_axes(src, axes)
    out_shape = tuple(src.shape[x] for x in axes)
    if out is None:
        dst = _arrays.empty_view(src, out_shape)
        result = dst.obj
    else:
        result = out
        dst = _arrays.view(out, "out", writable=True)
        _same_place(src, dst, "out")
        if dst.shape != out_shape:
            raise InvalidArgumentError(f"out has shape {dst.shape} but the permuted a has shape {out_shape}")
    if 0 in src.shape:
        return result  # nothing to move (an empty array's strides may be 0, which a non-empty output refuses)
    problem = _lower(src.shape, src.itemsize, axes, src.strides, dst.shape, dst.strides)
    stream = _arrays.current_stream(src)
    _check(_xpose.permute(src.ptr, dst.ptr, *problem, src.device, stream, threads))
    return result


def transpose(a, out=None, *, threads=0):
    """The transpose of a matrix (2-D) or of each matrix of a batch (the last two axes swapped), as a new packed
    array (or written into `out`). Same rules as `permute`."""
    shape = getattr(a, "shape", None)
    rank = len(shape) if isinstance(shape, tuple) else len(_arrays.view(a, "a").shape)
    if rank < 2:
        raise InvalidArgumentError(f"a has {rank} axes; transpose needs a matrix or a batch of matrices (>= 2 axes)")
    return permute(a, list(range(rank - 2)) + [rank - 1, rank - 2], out, threads=threads)


def transpose_(a, *, threads=0):
    """Transposes the matrix `a` (or each matrix of a batch: the last two axes) in place and returns its memory
    as the transposed array: shape (..., cols, rows). PyTorch tensors are also changed in place (like
    `Tensor.t_()`, but the data moves: the result is packed); for NumPy and CuPy use the returned array, since
    their arrays cannot change shape in place portably.

    `a` must hold each matrix packed (row stride = cols elements), or be a square matrix with any row pitch
    (a view into a wider array); batch axes must fuse into one batch stride. GPU: a workspace of at most
    max(max(rows, cols) x itemsize, 32 MiB) bytes is taken from the framework's allocator for rectangles
    (none for squares); ordered on the framework's current stream.
    """
    v = _arrays.view(a, "a", writable=True)
    rank = len(v.shape)
    if rank < 2:
        raise InvalidArgumentError(f"a has {rank} axes; transpose_ needs a matrix or a batch of matrices (>= 2 axes)")
    rows, cols = v.shape[-2:]
    item = v.itemsize
    row_stride, col_stride = v.strides[-2:]
    layout = f"a has shape {v.shape} and byte strides {v.strides}"
    if rows == 1 or cols == 1 or 0 in v.shape:
        # Vectors (and empty arrays): the transpose moves nothing; the last two axes swap with their strides.
        return _restrided(a, v, v.shape[:-2] + (cols, rows), v.strides[:-2] + (col_stride, row_stride))
    if col_stride != item:
        raise InvalidArgumentError(f"{layout}: an in-place transpose needs unit-stride rows (last stride {item} bytes)")
    ld = row_stride // item
    if row_stride % item or ld < cols:
        raise InvalidArgumentError(f"{layout}: the row stride must be a multiple of the element size and >= cols")
    # Batch axes (all but the last two) must form one arithmetic sequence of matrices.
    batch, batch_stride, inner = 1, 0, None
    for extent, stride in reversed(list(zip(v.shape[:-2], v.strides[:-2]))):
        if extent == 1:
            continue
        if stride <= 0:
            raise InvalidArgumentError(f"{layout}: batch axes must step forward through memory (a stride of 0 "
                                       "repeats a matrix, which an in-place transpose would move twice)")
        if inner is None:
            if stride % item:
                raise InvalidArgumentError(f"{layout}: the batch stride must be a multiple of the element size")
            batch_stride = stride // item
        elif stride != inner:
            raise InvalidArgumentError(f"{layout}: the batch axes must fuse into one batch stride")
        inner = stride * extent
        batch *= extent
    ws_bytes = 0
    if v.device >= 0:
        reply = _check(_xpose.inplace_workspace_bytes(rows, cols, item, batch, ld, batch_stride))
        ws_bytes = reply[2]
    workspace = _arrays.empty(v, None, nbytes=ws_bytes) if ws_bytes > 0 else None
    ws_ptr = _arrays.view(workspace, "workspace").ptr if workspace is not None else 0
    stream = _arrays.current_stream(v)
    _check(_xpose.transpose_inplace(v.ptr, rows, cols, item, batch, ld, batch_stride, v.device, ws_ptr, ws_bytes,
                                    stream, threads))
    if rows == cols:
        return a
    # A rectangle is now packed cols x rows matrices at the same batch stride.
    return _restrided(a, v, v.shape[:-2] + (cols, rows), v.strides[:-2] + (rows * item, item))


def _restrided(a, v, shape, strides):
    """`a`'s memory with a new shape and byte strides: a PyTorch tensor changes in place (and is returned),
    other arrays (and objects imported through a framework) get a new view of their framework."""
    if v.kind == "torch" and v.obj is a:
        import torch

        with torch.no_grad():
            a.as_strided_(shape, [st // v.itemsize for st in strides], a.storage_offset())
        return a
    return _arrays.restride(v, shape, strides)


def explain(a, axes=None):
    """The plan xpose runs for `permute(a, axes)` into a packed output: the problem, its canonical form and the
    algorithm chosen (a str)."""
    v = _arrays.view(a, "a")
    axes = _checked_axes(v, axes)
    out_shape = [v.shape[x] for x in axes]
    problem = _lower(v.shape, v.itemsize, axes, v.strides, out_shape, _arrays.packed_strides(out_shape, v.itemsize))
    return _check(_xpose.describe(*problem))[1]
