// xpose — plans: validate and canonicalize a problem once, execute it many times.
//
//   xpose::problem p{.shape = {4096, 8192}, .axes = {1, 0}, .elem_bytes = sizeof(float)};
//   auto plan = xpose::make_plan(p);        // validates, fuses axes, chooses the algorithm; pure host code
//   if (!plan) { std::cerr << plan.error() << '\n'; return; }
//   std::cout << *plan;                     // what was chosen and why
//   xpose::status s = plan->execute(d_in, d_out, stream);   // GPU, stream-ordered
//   xpose::status h = plan->execute_host(in, out);          // CPU, all hardware threads
//
// Plans are immutable and move-only, hold no data pointers and no device state, and may be executed from
// several host threads at once, on any device.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>

#include "xpose/problem.hpp"
#include "xpose/status.hpp"

struct CUstream_st;  // so that this header needs no CUDA headers; `cudaStream_t` is `CUstream_st*`

namespace xpose {

/// A CUDA stream (`cudaStream_t`); nullptr is the legacy default stream.
using stream_t = CUstream_st*;

/// The canonical forms a problem reduces to (DESIGN §2).
enum class algorithm {
  copy,         ///< identity: one contiguous run of words
  rows,         ///< the fastest axis is unchanged: a batched gather of contiguous rows (runs of one word
                ///< for strided views that have no unit-stride axis on a side)
  transpose2d,  ///< (batched) b x r x c -> b x c x r of `elem_words`-word units
};

constexpr const char* to_string(algorithm a) noexcept {
  switch (a) {
    case algorithm::copy: return "copy";
    case algorithm::rows: return "rows";
    case algorithm::transpose2d: return "transpose2d";
  }
  return "unknown";
}

/// Canonical rank bound: the problem's axes plus the element-factoring axis.
inline constexpr int max_canonical_rank = max_rank + 1;

/// The problem after canonicalization: size-1 axes dropped, axes adjacent in both input and output fused,
/// the element factored into `word_bytes`-byte words (DESIGN §1). Axes are in *output* order, slowest
/// first; extents and strides count words.
struct canonical_form {
  std::int64_t word_bytes = 1;  ///< 1, 2, 4, 8 or 16
  int rank = 0;
  std::array<std::int64_t, max_canonical_rank> extent{};
  std::array<std::int64_t, max_canonical_rank> in_stride{};
  std::array<std::int64_t, max_canonical_rank> out_stride{};

  /// Number of words (product of extents; 1 for rank 0).
  std::int64_t words() const noexcept;
};

/// What the executors run: a batch of moves of `elem_words`-word units. For each batch index b (row-major
/// over `batch_extent`), for r < rows, c < cols, k < elem_words (all offsets in words):
///
///   out[out_b + c * out_ld + r * elem_words + k] = in[in_b + r * in_ld + c * elem_words + k]
///
/// with in_b = sum(b_i * batch_in_stride[i]), out_b likewise. `copy` and `rows` have rows == cols == 1.
///
/// Compound tile sides (N-d permutations whose fastest axes are short, e.g. extents 2, 3, 5): the row index
/// r is a mixed-radix number over `row_extent[0 .. row_rank)` (slowest first, product == rows), and
/// `r * in_ld` above becomes sum(digit_i * row_in_stride[i]); likewise `c * out_ld` becomes
/// sum(digit_i * col_out_stride[i]) over `col_extent`. The row axes are nested contiguously in the output and
/// the column axes in the input, so `r * elem_words` and `c * elem_words` stay as they are: a tile still reads
/// contiguous input runs and writes contiguous output runs, however short each axis is. With one axis a side
/// (row_rank == col_rank == 1) this is the plain 2-D form (row_in_stride[0] == in_ld).
struct plan_geometry {
  algorithm algo = algorithm::copy;
  std::int64_t word_bytes = 1;
  std::int64_t elem_words = 0;  ///< words per unit (the row length for copy/rows)
  std::int64_t rows = 1;        ///< transpose2d: input rows (output columns)
  std::int64_t cols = 1;        ///< transpose2d: input columns (output rows)
  std::int64_t in_ld = 0;       ///< words between consecutive input rows (row_in_stride of the fastest row axis)
  std::int64_t out_ld = 0;      ///< words between consecutive output rows (col_out_stride of the fastest column axis)
  int row_rank = 0;             ///< transpose2d: axes of the row side (1 = plain 2-D)
  std::array<std::int64_t, max_canonical_rank> row_extent{};
  std::array<std::int64_t, max_canonical_rank> row_in_stride{};
  int col_rank = 0;             ///< transpose2d: axes of the column side (1 = plain 2-D)
  std::array<std::int64_t, max_canonical_rank> col_extent{};
  std::array<std::int64_t, max_canonical_rank> col_out_stride{};
  int batch_rank = 0;
  std::array<std::int64_t, max_canonical_rank> batch_extent{};
  std::array<std::int64_t, max_canonical_rank> batch_in_stride{};
  std::array<std::int64_t, max_canonical_rank> batch_out_stride{};

  /// Product of batch extents (1 for batch_rank 0).
  std::int64_t batch_count() const noexcept;
  /// Whether a tile side spans several axes (see above).
  bool compound() const noexcept { return row_rank > 1 || col_rank > 1; }
};

class plan;

/// Validates `p`, canonicalizes it and chooses an algorithm. Pure host code: no CUDA call, no allocation on
/// any device. Errors: `invalid_argument` (the message names the field: shape, axes, elem_bytes,
/// in_strides, out_strides), `unsupported` (a valid problem no executor handles yet, with the reason).
result<plan> make_plan(const problem& p);

class plan {
 public:
  plan(plan&&) noexcept = default;
  plan& operator=(plan&&) noexcept = default;
  plan(const plan&) = delete;
  plan& operator=(const plan&) = delete;

  const problem& source() const noexcept { return problem_; }
  const canonical_form& canonical() const noexcept { return canonical_; }
  const plan_geometry& geometry() const noexcept { return geometry_; }
  algorithm algo() const noexcept { return geometry_.algo; }

  /// Bytes one execution reads plus writes (the numerator of effective bandwidth).
  std::int64_t bytes_moved() const noexcept { return 2 * payload_bytes_; }
  /// Bytes of array data (elements x elem_bytes).
  std::int64_t payload_bytes() const noexcept { return payload_bytes_; }
  /// Extent in bytes of the memory the input / output views touch, from their base pointers.
  std::int64_t in_span_bytes() const noexcept { return in_span_bytes_; }
  std::int64_t out_span_bytes() const noexcept { return out_span_bytes_; }

  /// Runs the plan on the current CUDA device, ordered on `stream`. Never synchronizes, never allocates.
  /// Errors: `invalid_argument` (null `d_in`/`d_out` with a non-empty problem, a host pointer, overlapping
  /// buffers, a view running past the end of the address space), `unsupported` (built without CUDA), `cuda_error` (a launch failed; the message says which).
  /// @note Asynchronous: errors of the kernel itself surface at the next synchronizing call.
  status execute(const void* d_in, void* d_out, stream_t stream = nullptr) const;

  /// Runs the plan on host memory with `threads` threads (0 = all hardware threads; more than the hardware
  /// has are not started). Synchronous.
  /// Errors: `invalid_argument` (null or overlapping buffers, a view running past the end of the address
  /// space, a negative `threads`, a device pointer when CUDA can tell). Checked before any memory is touched.
  status execute_host(const void* in, void* out, int threads = 0) const;

  friend std::ostream& operator<<(std::ostream& os, const plan& p);

 private:
  friend result<plan> make_plan(const problem& p);
  plan() = default;

  problem problem_;
  canonical_form canonical_;
  plan_geometry geometry_;
  std::int64_t payload_bytes_ = 0;
  std::int64_t in_span_bytes_ = 0;
  std::int64_t out_span_bytes_ = 0;
};

std::ostream& operator<<(std::ostream& os, const canonical_form& c);
std::ostream& operator<<(std::ostream& os, const plan_geometry& g);

}  // namespace xpose
