"""Runs test_gpu.py when PyTorch or CuPy sees a CUDA device; exits 77 (CTest's skip code) otherwise, so that
the GPU tests are reported as skipped on machines without a GPU, never as passed."""
import os
import sys


def has_gpu():
    try:
        import torch

        if torch.cuda.is_available():
            return True
    except ImportError:
        pass
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, or CuPy without a driver
        return False


if __name__ == "__main__":
    if not has_gpu():
        print("python_gpu: neither PyTorch nor CuPy sees a CUDA device: skipped")
        sys.exit(77)
    import pytest

    here = os.path.dirname(os.path.abspath(__file__))
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs", os.path.join(here, "test_gpu.py")] + sys.argv[1:]))
