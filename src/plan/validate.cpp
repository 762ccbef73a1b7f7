// Validation: every field of a problem is checked here, once, at plan time. Messages name the field.
#include <algorithm>
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

template <class... Args>
status invalid(Args&&... args) {
  std::ostringstream os;
  (os << ... << args);
  return status(status_code::invalid_argument, os.str());
}

// Bytes from the base pointer to one past the last byte the view touches: (max offset + 1) * elem_bytes.
// Returns false on overflow.
bool span_bytes(int rank, const std::int64_t* extent, const std::int64_t* stride, std::int64_t elem_bytes,
                std::int64_t& out) {
  std::int64_t last = 0;
  for (int i = 0; i < rank; ++i) {
    if (extent[i] == 0) {
      out = 0;
      return true;
    }
  }
  for (int i = 0; i < rank; ++i) {
    std::int64_t term = 0;
    if (!checked_mul(extent[i] - 1, stride[i], term) || !checked_add(last, term, last)) return false;
  }
  std::int64_t count = 0;
  return checked_add(last, 1, count) && checked_mul(count, elem_bytes, out);
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
  if (!empty && (overflow || !checked_mul(n.elements, p.elem_bytes, total_bytes))) {
    return invalid("shape x elem_bytes overflows 64 bits");
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
      if (p.in_strides[i] < 0) {
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

  if (!empty) {
    if (!span_bytes(rank, n.shape.data(), n.in_strides.data(), n.elem_bytes, n.in_span_bytes)) {
      return invalid("in_strides x shape overflow 64-bit byte offsets");
    }
    if (!span_bytes(rank, out_shape.data(), n.out_strides.data(), n.elem_bytes, n.out_span_bytes)) {
      return invalid("out_strides x shape overflow 64-bit byte offsets");
    }
  }
  return status::ok();
}

}  // namespace xpose::detail
