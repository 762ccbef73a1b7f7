"""xpose on NumPy arrays (the CPU executor), checked against numpy.transpose(...).copy().

Runs everywhere (CI included). The seed is fixed and printed; XPOSE_TEST_SEED overrides it.
"""
import itertools
import os

import numpy as np
import pytest

import xpose

SEED = int(os.environ.get("XPOSE_TEST_SEED", "20261124"))
print(f"xpose python tests: seed {SEED} (XPOSE_TEST_SEED overrides)")

# Every fixed-size dtype NumPy has, and structured ones of odd sizes (3, 7, 12, 24 bytes).
DTYPES = [
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, np.longdouble,
    np.dtype("S3"), np.dtype("V5"),
    np.dtype([("r", "u1"), ("g", "u1"), ("b", "u1")]),
    np.dtype([("x", "<f4"), ("y", "<i2"), ("z", "u1")]),
    np.dtype([("p", "<f4", (3,))]),
    np.dtype([("a", "<f8"), ("b", "<c16")]),
]


def random_array(rng, shape, dtype):
    """Random bytes viewed as `dtype` (every byte pattern is a valid value for the comparison: we compare bytes)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    raw = rng.integers(0, 256, size=count * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def poisoned(shape, dtype):
    out = np.empty(shape, dtype=dtype)
    out.view(np.uint8).reshape(-1)[:] = 0xA5
    return out


def same_bytes(x, y):
    return x.shape == y.shape and x.dtype == y.dtype and np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes()


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(np.dtype(d)))
def test_random_permutations_of_every_dtype(dtype):
    rng = np.random.default_rng(SEED)
    for trial in range(12):
        rank = int(rng.integers(1, 6))
        shape = tuple(int(n) for n in rng.integers(1, 9, size=rank))
        axes = tuple(int(x) for x in rng.permutation(rank))
        a = random_array(rng, shape, dtype)
        b = xpose.permute(a, axes)
        assert b.flags.c_contiguous and b.dtype == a.dtype
        assert same_bytes(b, np.transpose(a, axes).copy()), (shape, axes)


def test_every_axes_order_up_to_rank_5():
    rng = np.random.default_rng(SEED + 1)
    for rank in range(0, 6):
        shape = (2, 3, 1, 5, 4)[:rank]
        a = random_array(rng, shape, np.float32)
        for axes in itertools.permutations(range(rank)):
            assert same_bytes(xpose.permute(a, axes), np.transpose(a, axes).copy()), axes


def test_default_axes_reverse_and_negative_axes_count_from_the_end():
    a = random_array(np.random.default_rng(SEED + 2), (3, 4, 5), np.int16)
    assert same_bytes(xpose.permute(a), np.transpose(a).copy())
    assert same_bytes(xpose.permute(a, (-1, 0, -2)), np.transpose(a, (2, 0, 1)).copy())


def test_large_random_ranks_6_to_8():
    rng = np.random.default_rng(SEED + 3)
    for rank in (6, 7, 8):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=rank))
        axes = tuple(int(x) for x in rng.permutation(rank))
        a = random_array(rng, shape, np.float64)
        assert same_bytes(xpose.permute(a, axes), np.transpose(a, axes).copy())


def test_strided_views_are_read_in_place():
    rng = np.random.default_rng(SEED + 4)
    base = random_array(rng, (40, 50, 6), np.float32)
    for view, axes in [(base[:, ::2], (1, 0, 2)), (base[3:31:3, 1:], (2, 0, 1)), (base.transpose(1, 0, 2), (2, 1, 0)),
                       (base[..., 1], (1, 0)), (base[::5, ::7, ::2], (0, 2, 1))]:
        assert same_bytes(xpose.permute(view, axes), np.transpose(view, axes).copy())


def test_fields_of_structured_arrays_and_broadcast_views():
    rng = np.random.default_rng(SEED + 5)
    rec = random_array(rng, (17, 13), np.dtype([("x", "<f4"), ("y", "<i2"), ("z", "u1")]))
    for field in ("x", "y", "z"):
        assert same_bytes(xpose.transpose(rec[field]), rec[field].T.copy())
    row = random_array(rng, (1, 9), np.float64)
    broadcast = np.broadcast_to(row, (6, 9))
    assert same_bytes(xpose.transpose(broadcast), broadcast.T.copy())


def test_out_may_be_a_strided_view_and_nothing_else_is_written():
    rng = np.random.default_rng(SEED + 6)
    a = random_array(rng, (30, 20), np.uint8)
    big = poisoned((25, 70), np.uint8)
    before = big.copy()
    window = big[2:22, 5:65:2]
    result = xpose.transpose(a, out=window)
    assert result is window
    assert same_bytes(window, a.T.copy())
    mask = np.ones(big.shape, bool)
    mask[2:22, 5:65:2] = False
    assert np.array_equal(big[mask], before[mask])


def test_transpose_swaps_the_last_two_axes_of_batches():
    rng = np.random.default_rng(SEED + 7)
    for shape in [(7, 9), (4, 7, 9), (2, 3, 5, 1), (1, 1, 8)]:
        a = random_array(rng, shape, np.complex64)
        assert same_bytes(xpose.transpose(a), np.swapaxes(a, -1, -2).copy())


def test_thread_counts():
    a = random_array(np.random.default_rng(SEED + 8), (300, 257), np.float32)
    for threads in (1, 2, 64):
        assert same_bytes(xpose.transpose(a, threads=threads), a.T.copy())


def test_empty_arrays_and_scalars():
    for shape, axes in [((0, 5), (1, 0)), ((3, 0, 2), (2, 0, 1)), ((), ())]:
        a = np.ones(shape, np.float32)
        b = xpose.permute(a, axes)
        assert same_bytes(b, np.transpose(a, axes).copy())


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.complex128, np.dtype("V3")],
                         ids=lambda d: str(np.dtype(d)))
def test_in_place_every_small_shape(dtype):
    rng = np.random.default_rng(SEED + 9)
    for rows in range(1, 18):
        for cols in range(1, 18):
            a = random_array(rng, (rows, cols), dtype)
            expected = a.T.copy()
            work = a.copy()
            result = xpose.transpose_(work)
            assert result.shape == (cols, rows) and np.shares_memory(result, work)
            assert same_bytes(result, expected), (rows, cols)


def test_in_place_batches_and_pitched_squares():
    rng = np.random.default_rng(SEED + 10)
    a = random_array(rng, (3, 2, 40, 24), np.float32)
    result = xpose.transpose_(a.copy())
    assert same_bytes(result, np.swapaxes(a, -1, -2).copy())
    # A square window of a wider array: rows keep their pitch, the rest of the array is untouched.
    big = random_array(rng, (33, 50), np.int64)
    expected = big.copy()
    expected[:, 4:37] = big[:, 4:37].T
    xpose.transpose_(big[:, 4:37])
    assert np.array_equal(big, expected)


def test_in_place_vectors_and_empty_arrays_swap_their_strides():
    # A pitched n x 1 column (and a batch of them) or a 1 x n row moves nothing: the result is the same memory
    # with the last two axes swapped, whatever the row pitch.
    big = np.arange(20.0).reshape(4, 5)
    column = xpose.transpose_(big[:, 3:4])
    assert column.shape == (1, 4) and np.array_equal(column, [[3, 8, 13, 18]]) and np.shares_memory(column, big)
    big3 = np.arange(60.0).reshape(3, 4, 5)
    assert np.array_equal(xpose.transpose_(big3[:, :, 1:2]), np.swapaxes(big3[:, :, 1:2], -1, -2))
    assert np.array_equal(xpose.transpose_(big[1:2, :]), big[1:2, :].T)
    for shape in [(0, 3), (2, 0, 3), (0, 3, 4), (3, 0)]:
        assert xpose.transpose_(np.empty(shape, np.float32)).shape == shape[:-2] + (shape[-1], shape[-2])


def test_in_place_refuses_batches_that_repeat_a_matrix():
    buf = np.arange(60, dtype=np.float32)
    before = buf.copy()
    repeated = np.lib.stride_tricks.as_strided(buf[:20].reshape(4, 5), (3, 4, 5), (0, 20, 4))
    with pytest.raises(xpose.InvalidArgumentError, match="step forward"):
        xpose.transpose_(repeated)
    assert np.array_equal(buf, before)


def test_axes_must_name_every_axis_and_size_one_axes_take_any_stride():
    a = np.ones((20, 20), np.float32)
    with pytest.raises(xpose.InvalidArgumentError, match="axes has 0 entries but a has 2 axes"):
        xpose.permute(a, ())
    assert xpose.permute(np.float32(2.0), ()).shape == ()
    row = np.arange(5.0).reshape(1, 5)[::-1]  # one row: its stride (negative) is never stepped
    assert same_bytes(xpose.permute(row, (1, 0)), row.T.copy())
    with pytest.raises(TypeError, match="0 bytes"):
        xpose.transpose(np.empty((2, 3), "V0"))


def test_dlpack_producers_are_imported_without_a_copy():
    class Producer:  # any __dlpack__ object (JAX, TensorFlow, ...) on the CPU
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    a = random_array(np.random.default_rng(SEED + 11), (6, 5, 4), np.float32)
    assert same_bytes(xpose.permute(Producer(a), (1, 2, 0)), np.transpose(a, (1, 2, 0)).copy())


def test_errors_name_the_argument():
    a = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(xpose.InvalidArgumentError, match=r"axes\[1\] = 0 repeats"):
        xpose.permute(a, (0, 0, 1))
    with pytest.raises(xpose.InvalidArgumentError, match=r"axes\[2\] = 3 is out of range"):
        xpose.permute(a, (0, 1, 3))
    with pytest.raises(xpose.InvalidArgumentError, match=r"axes has 2 entries"):
        xpose.permute(a, (0, 1))
    with pytest.raises(xpose.InvalidArgumentError, match=r"axes = 1 must be a sequence"):
        xpose.permute(a, 1)
    with pytest.raises(xpose.InvalidArgumentError, match=r"in_strides\[0\] = .* is negative"):
        xpose.permute(a[::-1], (1, 0, 2))
    with pytest.raises(xpose.InvalidArgumentError, match=r"out has shape \(3, 3\) but"):
        xpose.permute(a[0], (1, 0), out=np.empty((3, 3), np.float32))
    with pytest.raises(xpose.InvalidArgumentError, match="out has dtype float64 but a has dtype float32"):
        xpose.permute(a, (0, 2, 1), out=np.empty((2, 4, 3)))
    with pytest.raises(xpose.InvalidArgumentError, match="overlap"):
        buf = np.zeros(100, np.float32)
        xpose.transpose(buf[:50].reshape(5, 10), out=buf[40:90].reshape(10, 5))
    with pytest.raises(ValueError, match="out is read-only"):
        ro = np.empty((2, 4, 3), np.float32)
        ro.flags.writeable = False
        xpose.permute(a, (0, 2, 1), out=ro)
    with pytest.raises(TypeError, match="object"):
        xpose.transpose(np.empty((2, 2), object))
    with pytest.raises(TypeError, match="xpose takes"):
        xpose.transpose(42)
    with pytest.raises(xpose.InvalidArgumentError, match="shape has 9 axes"):
        xpose.permute(np.zeros((1,) * 9, np.uint8))
    with pytest.raises(xpose.InvalidArgumentError, match="needs a matrix"):
        xpose.transpose(np.zeros(5))
    with pytest.raises(xpose.InvalidArgumentError, match="unit-stride rows"):
        xpose.transpose_(np.zeros((6, 8))[:, ::2])
    with pytest.raises(xpose.InvalidArgumentError, match="threads"):
        xpose.transpose(np.zeros((3, 4)), threads=-1)


def test_error_classes_carry_the_status_name():
    assert issubclass(xpose.InvalidArgumentError, ValueError)
    assert xpose.InvalidArgumentError.code == "invalid_argument"
    try:
        xpose.permute(np.zeros((2, 2)), (0, 0))
    except xpose.XposeError as e:
        assert e.code == "invalid_argument" and "axes[1]" in e.message


def test_explain_names_the_algorithm():
    text = xpose.explain(np.zeros((64, 256, 56, 56), np.float32), (0, 2, 3, 1))
    assert "transpose2d" in text and "shape [64, 256, 56, 56]" in text
    assert "copy" in xpose.explain(np.zeros((3, 4), np.float32), (0, 1))
