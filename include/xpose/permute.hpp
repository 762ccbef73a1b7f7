// xpose — one-shot conveniences: validate, plan and execute in one call.
//
//   xpose::transpose(d_in, d_out, rows, cols, sizeof(float), stream);      // 2-D, GPU
//   xpose::transpose<float>(d_in, d_out, rows, cols, stream);              // typed front-end, forwards
//   xpose::permute(d_in, d_out, {.shape = {2, 3, 4, 5}, .axes = {0, 2, 3, 1}, .elem_bytes = 4}, stream);
//   xpose::permute_host(in, out, problem);                                 // CPU, all threads
//
// Axes semantics: see problem.hpp. Each call plans anew (planning is pure host arithmetic, a few hundred
// nanoseconds); hold an `xpose::plan` to skip that when the same problem runs many times.
#pragma once

#include <cstdint>
#include <type_traits>

#include "xpose/plan.hpp"
#include "xpose/problem.hpp"
#include "xpose/status.hpp"

namespace xpose {

/// out = numpy.transpose(in, p.axes) on the GPU, ordered on `stream`. Errors as make_plan + plan::execute.
status permute(const void* d_in, void* d_out, const problem& p, stream_t stream = nullptr);

/// Same on host memory with `threads` threads (0 = all). Synchronous.
status permute_host(const void* in, void* out, const problem& p, int threads = 0);

/// `rows x cols` -> `cols x rows`, packed, on the GPU.
status transpose(const void* d_in, void* d_out, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                 stream_t stream = nullptr);

/// `batch x rows x cols` -> `batch x cols x rows`, packed, on the GPU.
status transpose_batched(const void* d_in, void* d_out, std::int64_t batch, std::int64_t rows, std::int64_t cols,
                         std::int64_t elem_bytes, stream_t stream = nullptr);

/// `rows x cols` -> `cols x rows`, packed, on host memory.
status transpose_host(const void* in, void* out, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                      int threads = 0);

/// Typed front-ends: forward with elem_bytes = sizeof(T).
template <class T>
  requires(!std::is_void_v<T>)  // void pointers mean the untyped overload, which needs elem_bytes
status transpose(const T* d_in, T* d_out, std::int64_t rows, std::int64_t cols, stream_t stream = nullptr) {
  return transpose(static_cast<const void*>(d_in), static_cast<void*>(d_out), rows, cols,
                   static_cast<std::int64_t>(sizeof(T)), stream);
}
/// Typed host front-end, all hardware threads. It takes no thread count on purpose: with one, a call such as
/// `transpose_host(u8_in, u8_out, rows, cols, 3)` meaning 3-byte pixels would bind to it as "3 threads".
template <class T>
  requires(!std::is_void_v<T>)
status transpose_host(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
  return transpose_host(static_cast<const void*>(in), static_cast<void*>(out), rows, cols,
                        static_cast<std::int64_t>(sizeof(T)), 0);
}

}  // namespace xpose
