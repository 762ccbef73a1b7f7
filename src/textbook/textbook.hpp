// The teaching ladder (DESIGN §4): the kernels of the articles xpose started from (../shared/seeds), one idea
// per kernel, all sharing one launcher signature so that xpose-bench and the tests treat them alike.
// fp32 only, like the articles. Not part of the installed library.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <span>

namespace xpose::textbook {

/// One rung of the ladder.
struct kernel_info {
  const char* name;  ///< e.g. "tiled_32x8_padded"
  const char* idea;  ///< one line: what this rung adds over the previous one
  bool transposes;   ///< false for the copy references (out has the input's layout)
  /// Whether the kernel handles a rows x cols input (e.g. full-tile-only kernels need multiples of 32).
  bool (*supports)(std::int64_t rows, std::int64_t cols);
  /// Launches on `stream`: out = in^T (cols x rows) if `transposes`, else out = in. Returns the launch error.
  cudaError_t (*launch)(const float* d_in, float* d_out, std::int64_t rows, std::int64_t cols,
                        cudaStream_t stream);
};

/// The ladder in teaching order: copy, copy_shared, naive_*, shared_16x16*, tiled_32x8*, tiled_swizzled,
/// tiled_vec4, tiled_diagonal, and the bounds-checked / full-tile variants.
std::span<const kernel_info> ladder();

}  // namespace xpose::textbook
