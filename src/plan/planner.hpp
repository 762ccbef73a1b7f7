// xpose planner internals: validate -> canonicalize -> select. Pure host C++, no CUDA, unit-tested in
// tests/host without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <sstream>

#include "xpose/plan.hpp"
#include "xpose/problem.hpp"
#include "xpose/status.hpp"

namespace xpose::detail {

/// A validated problem: axes normalized (non-negative, explicit), strides explicit (elements).
struct normalized_problem {
  int rank = 0;
  std::int64_t elem_bytes = 0;
  std::array<std::int64_t, max_rank> shape{};
  std::array<int, max_rank> axes{};                 // output axis i takes input axis axes[i]
  std::array<std::int64_t, max_rank> in_strides{};   // per input axis, elements
  std::array<std::int64_t, max_rank> out_strides{};  // per output axis, elements
  std::int64_t elements = 0;                         // product of shape
  std::int64_t in_span_bytes = 0;                    // bytes from the base pointer to the end of the view
  std::int64_t out_span_bytes = 0;
};

/// Checks every field of `p`; on success fills `out`. Messages name the field and the index at fault.
status validate(const problem& p, normalized_problem& out);

/// Drops size-1 axes, factors the element into words, fuses axes adjacent in both input and output, and
/// widens words where the fastest axis is unpermuted (DESIGN §1).
canonical_form canonicalize(const normalized_problem& n);

/// Chooses the algorithm and its geometry for a canonical form (DESIGN §2).
result<plan_geometry> select(const canonical_form& c);

/// A rows geometry whose rows are the units of a 2-D transpose of the other axes (a batch axis contiguous in
/// units on each side, different ones) as that transpose2d (tile sides grown as select grows them), or
/// algo == rows when there is none. Same byte map. select keeps rows of more than 128 bytes as rows (the CPU
/// moves them best that way); the GPU's wide tiles take them as units (dispatch/wide.cu).
plan_geometry rows_as_transpose(const plan_geometry& g);

/// The plain 2-D form of a transpose2d geometry with compound sides: every axis of a side but its fastest
/// becomes a batch axis. Same byte map; for executors (or tile shapes) that take one axis a side.
plan_geometry flatten_sides(const plan_geometry& g);

/// flatten_sides for the row side only (the column side stays compound): for executors that merge the
/// column axes themselves (the CPU's merged columns).
plan_geometry flatten_row_side(const plan_geometry& g);

/// For a geometry with a compound side: every batch axis nested right outside a side (its output stride the
/// row side's span, or its input stride the column side's while that spans < 1536 bytes) becomes that side's
/// slowest axis, repeatedly, while a side has fewer than max_side_rank axes. Same byte map; a batch of matrices whose sides are a few tiles
/// long (N-d 2164 x [250 2] x [248 2]) becomes one tall matrix of whole tiles. For the GPU's compound tiles.
/// A plain geometry is returned as it is, unless plain_rows_max_bytes > 0: then its row side takes the batch
/// axes nested outside it in the output while the rows span fewer bytes than that (the column side stays).
plan_geometry absorb_nested_batch(const plan_geometry& g, int max_side_rank, std::int64_t plain_rows_max_bytes = 0);

/// An invalid_argument status whose message is the arguments streamed in order (they name the field).
template <class... Args>
status invalid(Args&&... args) {
  std::ostringstream os;
  (os << ... << args);
  return status(status_code::invalid_argument, os.str());
}

/// Multiplication and addition of non-negative 64-bit values; false on overflow.
bool checked_mul(std::int64_t a, std::int64_t b, std::int64_t& out) noexcept;
bool checked_add(std::int64_t a, std::int64_t b, std::int64_t& out) noexcept;

}  // namespace xpose::detail
