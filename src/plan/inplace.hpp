// In-place planner internals: validation and the choice of algorithm, direction and staging. Pure host C++,
// tested in tests/host/test_inplace.cpp.
#pragma once

#include <cstdint>

#include "xpose/inplace.hpp"

namespace xpose::detail {

/// Checks `p` (messages name the field) and fills `g` with explicit strides, the algorithm, the shuffle
/// parameters and the workspace size; `span_bytes` = bytes from the base pointer to the end of the data.
/// Which algorithms make_inplace_geometry may choose for rectangles: tests pin each one down (`staged` would
/// otherwise take every rectangle of at most 32 MiB).
enum class inplace_choice { any, no_staged, shuffle_only };
status make_inplace_geometry(const inplace_problem& p, inplace_geometry& g, std::int64_t& span_bytes,
                             inplace_choice choice = inplace_choice::any);

/// How `shuffle` stages one pass, given the shared memory a block may use (`smem_capacity` bytes).
struct shuffle_staging {
  bool rows_in_smem = false;       ///< else: waves of rows copied to the workspace and gathered back
  std::int64_t wave_rows = 0;      ///< rows per wave (workspace mode)
  std::int64_t strip = 0;          ///< units per column strip
  bool strips_in_smem = false;     ///< else: strips staged in workspace slots, one per block
  std::int64_t strip_slots = 0;    ///< workspace slots (blocks) for strips
  std::int64_t workspace_bytes = 0;
};
shuffle_staging shuffle_staging_for(const inplace_geometry& g, std::int64_t smem_capacity);

}  // namespace xpose::detail
