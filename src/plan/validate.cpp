// Validation: every field of a problem is checked here, once, at plan time. Messages name the field.
#include <algorithm>
#include <limits>
#include <sstream>
#include <string>

#include "plan/planner.hpp"

namespace xpose::detail {

bool checked_mul(std::int64_t a, std::int64_t b, std::int64_t& out) noexcept {
  return !__builtin_mul_overflow(a, b, &out);
}
bool checked_add(std::int64_t a, std::int64_t b, std::int64_t& out) noexcept {
  return !__builtin_add_overflow(a, b, &out);
}

namespace {

// Checks the offsets of a non-empty view against 64 bits and returns its span: the bytes from the base
// pointer to one past the last byte it touches, (max offset + 1) * elem_bytes.
//
// The bound is stricter than the span: sum(extent[i] * stride[i]) * elem_bytes must fit as well, i.e. one
// step past the end of every axis. The planner and the executors compute such offsets (fusing two axes
// compares extent x stride, a batch cursor steps past an axis's last index before it wraps), and they must
// not overflow either. Only views within a factor of two of 2^63 bytes are refused for it; no machine has
// that much memory.
//
// Returns -1 on success, else the axis whose term overflowed, or `rank` when only the product with
// elem_bytes does.
int checked_span(int rank, const std::int64_t* extent, const std::int64_t* stride, std::int64_t elem_bytes,
                 std::int64_t& span) {
  std::int64_t last = 0, past = 0;
  for (int i = 0; i < rank; ++i) {
    std::int64_t term = 0;
    if (!checked_mul(extent[i], stride[i], term) || !checked_add(past, term, past)) return i;
    last += term - stride[i];  // (extent - 1) x stride <= extent x stride: no overflow
  }
  std::int64_t past_bytes = 0;
  if (!checked_add(last, 1, last) || !checked_mul(last, elem_bytes, span) ||
      !checked_mul(past, elem_bytes, past_bytes))
    return rank;
  return -1;
}

}  // namespace

status validate(const problem& p, normalized_problem& n) {
  n = normalized_problem{};
  const auto rank_sz = p.shape.size();
  if (rank_sz > static_cast<std::size_t>(max_rank)) {
    return invalid("shape has ", rank_sz, " axes; xpose supports at most ", max_rank,
                   " (fuse adjacent axes that stay together first)");
  }
  const int rank = static_cast<int>(rank_sz);
  n.rank = rank;

  if (p.elem_bytes < 1) return invalid("elem_bytes = ", p.elem_bytes, " must be >= 1");
  n.elem_bytes = p.elem_bytes;

  n.elements = 1;
  bool overflow = false;
  for (int i = 0; i < rank; ++i) {
    if (p.shape[i] < 0) return invalid("shape[", i, "] = ", p.shape[i], " is negative");
    n.shape[i] = p.shape[i];
    if (!checked_mul(n.elements, p.shape[i], n.elements)) overflow = true;
  }
  std::int64_t total_bytes = 0;
  const bool empty = std::find(n.shape.begin(), n.shape.begin() + rank, 0) != n.shape.begin() + rank;
  // The bytes one execution reads plus writes (plan::bytes_moved, 2 x the array's bytes) must fit as well.
  if (!empty && (overflow || !checked_mul(n.elements, p.elem_bytes, total_bytes) ||
                 total_bytes > std::numeric_limits<std::int64_t>::max() / 2)) {
    return invalid("shape x elem_bytes overflows 64 bits (2 x the array's bytes, read plus written, must fit)");
  }
  if (empty) n.elements = 0;

  // Axes: empty = reversed (NumPy default); negative entries count from the end.
  if (p.axes.empty()) {
    for (int i = 0; i < rank; ++i) n.axes[i] = rank - 1 - i;
  } else {
    if (p.axes.size() != rank_sz) {
      return invalid("axes has ", p.axes.size(), " entries but shape has ", rank, " axes");
    }
    std::array<bool, max_rank> seen{};
    for (int i = 0; i < rank; ++i) {
      const std::int64_t a = p.axes[i];
      if (a < -rank || a >= rank) return invalid("axes[", i, "] = ", a, " is out of range for rank ", rank);
      const int ax = static_cast<int>(a < 0 ? a + rank : a);
      if (seen[ax]) return invalid("axes[", i, "] = ", a, " repeats input axis ", ax, "; axes must be a permutation");
      seen[ax] = true;
      n.axes[i] = ax;
    }
  }

  // Input strides (per input axis, elements): >= 0; 0 broadcasts.
  if (p.in_strides.empty()) {
    std::int64_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
      n.in_strides[i] = s;
      if (n.shape[i] > 0 && !checked_mul(s, n.shape[i], s)) s = 0;  // overflow only if the view is unusable
    }
  } else {
    if (p.in_strides.size() != rank_sz) {
      return invalid("in_strides has ", p.in_strides.size(), " entries but shape has ", rank, " axes");
    }
    for (int i = 0; i < rank; ++i) {
      if (p.in_strides[i] < 0 && p.shape[i] > 1) {  // an axis never stepped may have any stride (NumPy: x[::-1] of length 1)
        return invalid("in_strides[", i, "] = ", p.in_strides[i], " is negative (negative strides are not supported)");
      }
      n.in_strides[i] = p.in_strides[i];
    }
  }

  // Output strides (per output axis, elements): >= 1 on axes of extent > 1, and no self-overlap.
  std::array<std::int64_t, max_rank> out_shape{};
  for (int i = 0; i < rank; ++i) out_shape[i] = n.shape[n.axes[i]];
  if (p.out_strides.empty()) {
    std::int64_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
      n.out_strides[i] = s;
      if (out_shape[i] > 0) checked_mul(s, out_shape[i], s);
    }
  } else {
    if (p.out_strides.size() != rank_sz) {
      return invalid("out_strides has ", p.out_strides.size(), " entries but shape has ", rank, " axes");
    }
    for (int i = 0; i < rank; ++i) {
      if (p.out_strides[i] < 1 && out_shape[i] > 1) {
        return invalid("out_strides[", i, "] = ", p.out_strides[i], " must be >= 1 (output axis ", i,
                       " has extent ", out_shape[i], ")");
      }
      n.out_strides[i] = p.out_strides[i];
    }
    if (!empty) {
      // Sufficient non-overlap test: sorted by stride, each axis must step over the whole previous block.
      std::array<int, max_rank> order{};
      int m = 0;
      for (int i = 0; i < rank; ++i)
        if (out_shape[i] > 1) order[m++] = i;
      for (int k = 1; k < m; ++k)  // insertion sort by stride (m <= 8)
        for (int j = k; j > 0 && n.out_strides[order[j]] < n.out_strides[order[j - 1]]; --j)
          std::swap(order[j], order[j - 1]);
      for (int k = 1; k < m; ++k) {
        const int prev = order[k - 1], cur = order[k];
        std::int64_t block = 0;
        if (checked_mul(n.out_strides[prev], out_shape[prev], block) && n.out_strides[cur] < block) {
          return invalid("out_strides may make the output overlap itself (each axis must step over the whole block "
                       "of the axes with smaller strides): output axis ", cur, " has stride ",
                         n.out_strides[cur], " < ", out_shape[prev], " x ", n.out_strides[prev],
                         " spanned by output axis ", prev);
        }
      }
    }
  }

  // An axis of extent 1 is never stepped, so its stride is meaningless (NumPy gives such axes any stride):
  // zero it, so that no later product with it (element factoring scales strides) can overflow.
  for (int i = 0; i < rank; ++i) {
    if (n.shape[i] <= 1) n.in_strides[i] = 0;
    if (out_shape[i] <= 1) n.out_strides[i] = 0;
  }

  if (!empty) {
    const int bad_in = checked_span(rank, n.shape.data(), n.in_strides.data(), n.elem_bytes, n.in_span_bytes);
    if (bad_in == rank) return invalid("in_strides x shape x elem_bytes overflow 64-bit byte offsets");
    if (bad_in >= 0) {
      return invalid("in_strides[", bad_in, "] = ", n.in_strides[bad_in], " x shape[", bad_in, "] = ",
                     n.shape[bad_in], " overflows 64-bit offsets (the byte span of a view must fit in 64 bits)");
    }
    const int bad_out = checked_span(rank, out_shape.data(), n.out_strides.data(), n.elem_bytes, n.out_span_bytes);
    if (bad_out == rank) return invalid("out_strides x shape x elem_bytes overflow 64-bit byte offsets");
    if (bad_out >= 0) {
      return invalid("out_strides[", bad_out, "] = ", n.out_strides[bad_out], " x output extent ",
                     out_shape[bad_out], " overflows 64-bit offsets (the byte span of a view must fit in 64 bits)");
    }
  }
  return status::ok();
}

}  // namespace xpose::detail
