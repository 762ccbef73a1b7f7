// Walks the batch axes of a plan_geometry in row-major order, keeping the input and output offsets of the
// current batch item. Positioned once per thread with 64-bit division, then advanced by increments, so
// the per-item cost is an add and a compare instead of rank divisions.
#pragma once

#include <array>
#include <cstdint>

#include "xpose/plan.hpp"

namespace xpose::detail {

/// Bytes of the whole batch when item i lies at i x item_bytes on the output side (and on the input side too
/// when `input_too`), i.e. the batch axes nest, fastest last; 0 when they do not.
inline std::int64_t nested_batch_bytes(const plan_geometry& g, std::int64_t item_bytes, bool input_too) {
  std::int64_t nested = item_bytes;
  for (int i = g.batch_rank - 1; i >= 0; --i) {
    if (g.batch_out_stride[i] * g.word_bytes != nested || (input_too && g.batch_in_stride[i] * g.word_bytes != nested))
      return 0;
    nested *= g.batch_extent[i];
  }
  return nested;
}

class batch_cursor {
 public:
  /// Positions the cursor at flat batch index `flat` (0 <= flat < g.batch_count()).
  batch_cursor(const plan_geometry& g, std::int64_t flat) : g_(g) {
    for (int i = g.batch_rank - 1; i >= 0; --i) {
      const std::int64_t e = g.batch_extent[i];
      idx_[i] = flat % e;
      flat /= e;
      in_ += idx_[i] * g.batch_in_stride[i];
      out_ += idx_[i] * g.batch_out_stride[i];
    }
  }

  /// Offsets of the current batch item, in words.
  std::int64_t in_offset() const noexcept { return in_; }
  std::int64_t out_offset() const noexcept { return out_; }

  /// Moves to the next batch item (wraps to item 0 after the last one).
  void next() noexcept {
    for (int i = g_.batch_rank - 1; i >= 0; --i) {
      in_ += g_.batch_in_stride[i];
      out_ += g_.batch_out_stride[i];
      if (++idx_[i] < g_.batch_extent[i]) return;
      // carry: rewind this axis, step the next slower one
      in_ -= g_.batch_extent[i] * g_.batch_in_stride[i];
      out_ -= g_.batch_extent[i] * g_.batch_out_stride[i];
      idx_[i] = 0;
    }
  }

 private:
  const plan_geometry& g_;
  std::array<std::int64_t, max_canonical_rank> idx_{};
  std::int64_t in_ = 0;
  std::int64_t out_ = 0;
};

}  // namespace xpose::detail
