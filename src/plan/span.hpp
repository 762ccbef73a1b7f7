// Bytes of the input a plan_geometry reads: from the base pointer to past its last byte. Pure host code; the
// GPU dispatch uses it to bound 16-byte loads that may cover bytes outside a row or tile but never outside the
// input.
#pragma once

#include <cstdint>

#include "xpose/plan.hpp"

namespace xpose::detail {

/// Strides are >= 0 (validate.cpp), so the span is one run of `cols` units (the column side is contiguous in
/// the input; the whole row for copy and rows) plus the farthest offset of every row and batch axis.
inline std::uint64_t input_span_bytes(const plan_geometry& g) {
  const auto wb = static_cast<std::uint64_t>(g.word_bytes);
  std::uint64_t span = static_cast<std::uint64_t>(g.cols * g.elem_words) * wb;
  for (int k = 0; k < g.row_rank; ++k)
    span += static_cast<std::uint64_t>(g.row_extent[k] - 1) * static_cast<std::uint64_t>(g.row_in_stride[k]) * wb;
  for (int i = 0; i < g.batch_rank; ++i)
    span += static_cast<std::uint64_t>(g.batch_extent[i] - 1) * static_cast<std::uint64_t>(g.batch_in_stride[i]) * wb;
  return span;
}

}  // namespace xpose::detail
