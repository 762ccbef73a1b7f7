// xpose._xpose — the native half of the Python package (nanobind).
//
// This module speaks integers only: data pointers, shapes, element strides, a device ordinal and a stream
// handle. Turning PyTorch tensors, CuPy and NumPy arrays, `__cuda_array_interface__` and DLPack producers
// into those integers, allocating outputs in the caller's framework and choosing its current stream is the
// pure-Python half's job (python/xpose/_arrays.py): each framework already knows how to describe its arrays,
// and doing it there keeps structured NumPy dtypes (which DLPack cannot describe) and every framework's
// allocator and stream semantics in one readable place.
//
// Every function returns `(code, message, ...)`: code is xpose::status_code as an int (0 = success) and the
// message is the library's, naming the argument at fault. python/xpose/__init__.py raises the matching
// exception class. The GIL is released while data moves.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "xpose/xpose.hpp"

#if XPOSE_PY_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace nb = nanobind;
using i64 = std::int64_t;
using reply = std::tuple<int, std::string>;

namespace {

reply to_reply(const xpose::status& s) { return {static_cast<int>(s.code()), s.message()}; }

xpose::stream_t as_stream(std::uintptr_t handle) { return reinterpret_cast<xpose::stream_t>(handle); }

// Runs `fn` with CUDA device `device` current (restoring the caller's afterwards): the executors launch on
// the current device, and a tensor on cuda:1 must be moved there even when the framework's current device
// is cuda:0. `device` < 0 means host memory: nothing to switch.
template <class Fn>
xpose::status on_device(int device, Fn&& fn) {
#if XPOSE_PY_HAS_CUDA
  if (device >= 0) {
    int previous = 0;
    if (cudaError_t e = cudaGetDevice(&previous); e != cudaSuccess) {
      return {xpose::status_code::cuda_error, std::string("cudaGetDevice: ") + cudaGetErrorString(e)};
    }
    if (previous != device) {
      if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
        return {xpose::status_code::cuda_error,
                "cudaSetDevice(" + std::to_string(device) + "): " + cudaGetErrorString(e)};
      }
    }
    xpose::status s = fn();
    if (previous != device) cudaSetDevice(previous);  // best effort: the work itself already has its status
    return s;
  }
#else
  if (device >= 0) {
    return {xpose::status_code::unsupported,
            "this xpose module was built without CUDA (no nvcc at build time): GPU arrays cannot be moved; "
            "rebuild with the CUDA toolkit on PATH"};
  }
#endif
  return fn();
}

xpose::problem make_problem(std::vector<i64> shape, std::vector<i64> axes, i64 elem_bytes,
                            std::vector<i64> in_strides, std::vector<i64> out_strides) {
  return xpose::problem{std::move(shape), std::move(axes), elem_bytes, std::move(in_strides), std::move(out_strides)};
}

}  // namespace

NB_MODULE(_xpose, m) {
  m.doc() = "Native half of xpose (integers in, status out); use the functions of the `xpose` package.";
  m.attr("version") = xpose::version();
  m.attr("has_cuda") = bool(XPOSE_PY_HAS_CUDA);

  // Plans the problem (validation included) without moving data: the Python side validates axes through the
  // library before it computes the output shape, so that every axes error carries the library's message.
  m.def(
      "describe",
      [](std::vector<i64> shape, std::vector<i64> axes, i64 elem_bytes, std::vector<i64> in_strides,
         std::vector<i64> out_strides) -> reply {
        auto plan = xpose::make_plan(
            make_problem(std::move(shape), std::move(axes), elem_bytes, std::move(in_strides), std::move(out_strides)));
        if (!plan) return to_reply(plan.error());
        std::ostringstream os;
        os << *plan;
        return {0, os.str()};
      },
      nb::arg("shape"), nb::arg("axes"), nb::arg("elem_bytes"), nb::arg("in_strides"), nb::arg("out_strides"));

  m.def(
      "permute",
      [](std::uintptr_t in, std::uintptr_t out, std::vector<i64> shape, std::vector<i64> axes, i64 elem_bytes,
         std::vector<i64> in_strides, std::vector<i64> out_strides, int device, std::uintptr_t stream,
         int threads) -> reply {
        const xpose::problem p =
            make_problem(std::move(shape), std::move(axes), elem_bytes, std::move(in_strides), std::move(out_strides));
        nb::gil_scoped_release unlocked;
        const auto* src = reinterpret_cast<const void*>(in);
        auto* dst = reinterpret_cast<void*>(out);
        return to_reply(on_device(device, [&] {
          return device >= 0 ? xpose::permute(src, dst, p, as_stream(stream)) : xpose::permute_host(src, dst, p, threads);
        }));
      },
      nb::arg("in_ptr"), nb::arg("out_ptr"), nb::arg("shape"), nb::arg("axes"), nb::arg("elem_bytes"),
      nb::arg("in_strides"), nb::arg("out_strides"), nb::arg("device"), nb::arg("stream"), nb::arg("threads"));

  m.def(
      "inplace_workspace_bytes",
      [](i64 rows, i64 cols, i64 elem_bytes, i64 batch, i64 ld, i64 batch_stride) -> std::tuple<int, std::string, i64> {
        auto plan = xpose::make_inplace_plan({rows, cols, elem_bytes, batch, ld, batch_stride});
        if (!plan) {
          const xpose::status s = plan.error();
          return {static_cast<int>(s.code()), s.message(), 0};
        }
        return {0, std::string(), plan->workspace_bytes()};
      },
      nb::arg("rows"), nb::arg("cols"), nb::arg("elem_bytes"), nb::arg("batch"), nb::arg("ld"), nb::arg("batch_stride"));

  m.def(
      "transpose_inplace",
      [](std::uintptr_t data, i64 rows, i64 cols, i64 elem_bytes, i64 batch, i64 ld, i64 batch_stride, int device,
         std::uintptr_t workspace, i64 workspace_bytes, std::uintptr_t stream, int threads) -> reply {
        auto plan = xpose::make_inplace_plan({rows, cols, elem_bytes, batch, ld, batch_stride});
        if (!plan) return to_reply(plan.error());
        nb::gil_scoped_release unlocked;
        auto* ptr = reinterpret_cast<void*>(data);
        return to_reply(on_device(device, [&] {
          return device >= 0
                     ? plan->execute(ptr, reinterpret_cast<void*>(workspace), workspace_bytes, as_stream(stream))
                     : plan->execute_host(ptr, threads);
        }));
      },
      nb::arg("data_ptr"), nb::arg("rows"), nb::arg("cols"), nb::arg("elem_bytes"), nb::arg("batch"), nb::arg("ld"),
      nb::arg("batch_stride"), nb::arg("device"), nb::arg("workspace_ptr"), nb::arg("workspace_bytes"),
      nb::arg("stream"), nb::arg("threads"));
}
