"""xpose on PyTorch tensors and CuPy arrays on a CUDA device (run through run_gpu.py, label `gpu`).

Results are compared byte for byte with the framework's own `permute(...).contiguous()` /
`ascontiguousarray(transpose(...))`. Stream tests park the framework's current stream behind a spinning
kernel: an xpose call that ran on another stream (or synchronized) would read the input before the stream
wrote it, or would not return while the stream is busy.
"""
import os

import pytest

import xpose

SEED = int(os.environ.get("XPOSE_TEST_SEED", "20261124"))
print(f"xpose python GPU tests: seed {SEED} (XPOSE_TEST_SEED overrides)")

try:
    import torch
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None

needs_torch = pytest.mark.skipif(torch is None or not torch.cuda.is_available(), reason="PyTorch with CUDA")
needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy")
SPIN_CYCLES = 200_000_000  # about 0.1 s on a ~2 GHz SM clock

if torch is not None:
    TORCH_DTYPES = [torch.bool, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.float16,
                    torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]
    TORCH_DTYPES += [getattr(torch, n) for n in ("uint16", "uint32", "uint64", "float8_e4m3fn") if hasattr(torch, n)]
else:
    TORCH_DTYPES = []


def torch_random(gen, shape, dtype, device="cuda"):
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen, device=device).bool()
    itemsize = torch.empty((), dtype=dtype).element_size()
    count = 1
    for n in shape:
        count *= n
    raw = torch.randint(0, 256, (count * itemsize,), generator=gen, dtype=torch.uint8, device=device)
    return raw.view(dtype).reshape(shape)


def torch_bytes(t):
    return t.contiguous().reshape(-1).view(torch.uint8)


def torch_same(x, y):
    return x.shape == y.shape and x.dtype == y.dtype and x.device == y.device and torch.equal(torch_bytes(x), torch_bytes(y))


@needs_torch
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_torch_random_permutations_of_every_dtype(dtype):
    gen = torch.Generator(device="cuda").manual_seed(SEED)
    cpu = torch.Generator().manual_seed(SEED)
    for _ in range(10):
        rank = int(torch.randint(1, 7, (1,), generator=cpu))
        shape = tuple(int(n) for n in torch.randint(1, 12, (rank,), generator=cpu))
        axes = tuple(int(x) for x in torch.randperm(rank, generator=cpu))
        x = torch_random(gen, shape, dtype)
        y = xpose.permute(x, axes)
        assert isinstance(y, torch.Tensor) and y.is_contiguous() and y.device == x.device
        assert torch_same(y, x.permute(axes).contiguous()), (shape, axes)


@needs_torch
def test_torch_layouts_and_strided_views():
    gen = torch.Generator(device="cuda").manual_seed(SEED + 1)
    x = torch_random(gen, (16, 96, 28, 28), torch.float32)
    for view, axes in [(x, (0, 2, 3, 1)), (x.permute(0, 2, 3, 1), (0, 3, 1, 2)), (x[:, ::2], (1, 0, 2, 3)),
                       (x[..., 3], (2, 0, 1)), (x[2:9, 5:80:3, 1:, :17], (3, 1, 2, 0)),
                       (x[0, 0, :1].expand(40, 28), (1, 0))]:
        assert torch_same(xpose.permute(view, axes), view.permute(axes).contiguous())
    assert torch_same(xpose.transpose(x), x.transpose(-1, -2).contiguous())


@needs_torch
def test_torch_out_view_is_written_and_nothing_else():
    gen = torch.Generator(device="cuda").manual_seed(SEED + 2)
    x = torch_random(gen, (300, 200), torch.float16)
    big = torch.full((250, 700), 7.0, dtype=torch.float16, device="cuda")
    before = big.clone()
    window = big[20:220, 50:650:2]
    assert xpose.transpose(x, out=window) is window
    assert torch_same(window, x.t().contiguous())
    big[20:220, 50:650:2] = before[20:220, 50:650:2]
    assert torch.equal(big, before)


@needs_torch
def test_torch_cpu_tensors_run_on_the_cpu_executor():
    x = torch.arange(2 * 3 * 5, dtype=torch.int32).reshape(2, 3, 5)
    y = xpose.permute(x, (2, 0, 1))
    assert y.device.type == "cpu" and torch.equal(y, x.permute(2, 0, 1).contiguous())


@needs_torch
def test_torch_runs_on_the_current_stream_without_synchronizing():
    gen = torch.Generator(device="cuda").manual_seed(SEED + 3)
    src = torch_random(gen, (512, 1000, 3), torch.float32)
    x = torch.zeros_like(src)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(SPIN_CYCLES)
        x.copy_(src)  # ordered on `stream`, after the spin
        y = xpose.permute(x, (2, 0, 1))
        busy = not stream.query()
    assert busy, "xpose.permute waited for the stream instead of returning"
    stream.synchronize()
    assert torch_same(y, src.permute(2, 0, 1).contiguous())


@needs_torch
def test_torch_calls_are_captured_in_cuda_graphs():
    gen = torch.Generator(device="cuda").manual_seed(SEED + 4)
    x = torch_random(gen, (64, 33, 47), torch.float64)
    xpose.permute(x, (1, 2, 0))  # warm-up outside capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = xpose.permute(x, (1, 2, 0))
    for _ in range(3):
        x.copy_(torch_random(gen, x.shape, x.dtype))
        graph.replay()
        torch.cuda.synchronize()
        assert torch_same(y, x.permute(1, 2, 0).contiguous())


@needs_torch
def test_torch_in_place_changes_the_tensor():
    gen = torch.Generator(device="cuda").manual_seed(SEED + 5)
    for shape, dtype in [((1200, 700), torch.float32), ((513, 513), torch.uint8), ((3, 100, 37), torch.complex128),
                         ((4096, 3), torch.float16)]:
        x = torch_random(gen, shape, dtype)
        expected = x.transpose(-1, -2).contiguous()
        ptr = x.data_ptr()
        result = xpose.transpose_(x)
        assert result is x and x.data_ptr() == ptr and x.is_contiguous()
        assert torch_same(x, expected), shape


@needs_torch
def test_torch_in_place_pitched_square_window():
    gen = torch.Generator(device="cuda").manual_seed(SEED + 6)
    big = torch_random(gen, (300, 420), torch.int16)
    expected = big.clone()
    expected[:, 50:350] = big[:, 50:350].t()
    xpose.transpose_(big[:, 50:350])
    assert torch.equal(big, expected)


@needs_torch
def test_torch_more_than_2_to_the_31_elements():
    if torch.cuda.get_device_properties(0).total_memory < 12 * 2**30:
        pytest.skip("needs 12 GiB of device memory")
    gen = torch.Generator(device="cuda").manual_seed(SEED + 8)
    x = torch_random(gen, (46341, 46343), torch.uint8)  # 2^31 + 92684 elements
    y = xpose.transpose(x)
    assert torch.equal(y, x.t().contiguous())
    del y
    z = x.clone()
    xpose.transpose_(z)
    assert torch.equal(z, x.t().contiguous())


@needs_torch
def test_torch_errors_name_the_argument():
    x = torch.zeros((4, 5), device="cuda")
    with pytest.raises(xpose.InvalidArgumentError, match="out is in host memory but a is in CUDA device"):
        xpose.transpose(x, out=torch.zeros((5, 4)))
    with pytest.raises(xpose.InvalidArgumentError, match="out has dtype torch.float64"):
        xpose.transpose(x, out=torch.zeros((5, 4), dtype=torch.float64, device="cuda"))
    with pytest.raises(xpose.InvalidArgumentError, match=r"axes\[1\] = 0 repeats"):
        xpose.permute(x, (0, 0))
    with pytest.raises(TypeError, match="layout"):
        xpose.transpose(x.to_sparse())
    with pytest.raises(xpose.InvalidArgumentError, match="overlap"):
        buf = torch.zeros(100, device="cuda")
        xpose.transpose(buf[:50].view(5, 10), out=buf[40:90].view(10, 5))


@needs_torch
def test_torch_conjugate_views_are_resolved():
    gen = torch.Generator(device="cuda").manual_seed(SEED + 7)
    x = torch_random(gen, (30, 40), torch.complex64).conj()
    assert x.is_conj()
    y = xpose.transpose(x)
    assert torch.equal(torch_bytes(y), torch_bytes(x.resolve_conj().t().contiguous()))


@needs_cupy
def test_cupy_random_permutations():
    rng = cupy.random.default_rng(SEED)
    import numpy

    host = numpy.random.default_rng(SEED)
    for dtype in (cupy.bool_, cupy.int8, cupy.uint16, cupy.float32, cupy.float64, cupy.complex128):
        for _ in range(6):
            rank = int(host.integers(1, 7))
            shape = tuple(int(n) for n in host.integers(1, 12, size=rank))
            axes = tuple(int(x) for x in host.permutation(rank))
            raw = rng.integers(0, 256, size=int(numpy.prod(shape)) * numpy.dtype(dtype).itemsize, dtype=cupy.uint8)
            x = raw.view(dtype).reshape(shape) if dtype != cupy.bool_ else (raw[: int(numpy.prod(shape))] & 1).astype(bool).reshape(shape)
            y = xpose.permute(x, axes)
            assert isinstance(y, cupy.ndarray) and y.flags.c_contiguous and y.device == x.device
            expected = cupy.ascontiguousarray(cupy.transpose(x, axes))
            assert y.dtype == x.dtype and cupy.array_equal(y.view(cupy.uint8), expected.view(cupy.uint8))


@needs_cupy
def test_cupy_strided_views_and_cuda_array_interface_objects():
    x = cupy.arange(40 * 50 * 6, dtype=cupy.float32).reshape(40, 50, 6)
    for view, axes in [(x[:, ::2], (1, 0, 2)), (x[..., 1], (1, 0)), (x.transpose(2, 0, 1), (2, 1, 0))]:
        assert cupy.array_equal(xpose.permute(view, axes), cupy.transpose(view, axes))

    class Foreign:  # a Numba-like device array: only __cuda_array_interface__
        def __init__(self, array):
            self.__cuda_array_interface__ = array.__cuda_array_interface__

    y = xpose.permute(Foreign(x), (2, 0, 1))
    assert isinstance(y, cupy.ndarray) and cupy.array_equal(y, cupy.transpose(x, (2, 0, 1)))


@needs_cupy
def test_cupy_runs_on_the_current_stream_without_synchronizing():
    spin = cupy.RawKernel(r'''
    extern "C" __global__ void spin(long long cycles) {
      long long start = clock64();
      while (clock64() - start < cycles) {}
    }''', "spin")
    src = cupy.arange(600 * 1000, dtype=cupy.int32).reshape(600, 1000)
    x = cupy.zeros_like(src)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        spin((1,), (1,), (cupy.int64(SPIN_CYCLES),))
        x[...] = src
        y = xpose.transpose(x)
        busy = not stream.done
    assert busy, "xpose.transpose waited for the stream instead of returning"
    stream.synchronize()
    assert cupy.array_equal(y, src.T)


@needs_cupy
def test_cupy_in_place_returns_the_transposed_view():
    x = cupy.arange(700 * 1200, dtype=cupy.float32).reshape(700, 1200)
    expected = cupy.ascontiguousarray(x.T)
    y = xpose.transpose_(x)
    assert y.shape == (1200, 700) and y.data.ptr == x.data.ptr and cupy.array_equal(y, expected)
