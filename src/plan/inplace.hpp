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

/// The group walk of `staged` and `staged_blocks`, the same on every executor: `count` matrices `stride`
/// elements apart from `first`, g.group at a time, each group gathered packed into `buf` by `run(g.staged_copy, group,
/// buf)`, then transposed back over it by `run(g.staged_back, buf, group)` (the `_last` plans for a short last
/// group). `run` executes one out-of-place plan and returns its status; the walk stops at the first failure.
template <class Run>
status staged_groups_walk(const inplace_geometry& g, unsigned char* first, std::int64_t count, std::int64_t stride,
                          unsigned char* buf, const Run& run) {
  for (std::int64_t k = 0; k < count; k += g.group) {
    const bool full = count - k >= g.group;
    // k * stride first: within the validated span (a single matrix's stride may be anything, even past it).
    unsigned char* group = first + k * stride * g.elem_bytes;
    if (status s = run(full ? g.staged_copy : g.staged_copy_last, group, buf); !s) return s;
    if (status s = run(full ? g.staged_back : g.staged_back_last, buf, group); !s) return s;
  }
  return status::ok();
}

/// `staged`'s walk: the batch's matrices in groups (staged_groups_walk).
template <class Run>
status staged_walk(const inplace_geometry& g, unsigned char* data, unsigned char* buf, const Run& run) {
  return staged_groups_walk(g, data, g.batch, g.batch_stride, buf, run);
}

/// Bytes of one of `staged_blocks`' blocks: `tile` rows, or `tile` columns once the unit pass ran first.
inline std::int64_t staged_block_bytes(const inplace_geometry& g) {
  return g.tile * (g.units_first ? g.rows : g.cols) * g.elem_bytes;
}

/// `staged_blocks`' walk: each matrix's blocks in groups (staged_groups_walk), with the executor's unit pass
/// `units()` before them when `g.units_first`, else after.
template <class Run, class Units>
status staged_blocks_walk(const inplace_geometry& g, unsigned char* data, unsigned char* buf, const Run& run,
                          const Units& units) {
  if (g.units_first)
    if (status s = units(); !s) return s;
  for (std::int64_t b = 0; b < g.batch; ++b)
    if (status s = staged_groups_walk(g, data + b * g.batch_stride * g.elem_bytes, g.blocks,
                                      g.tile * (g.units_first ? g.rows : g.cols), buf, run);
        !s)
      return s;
  return g.units_first ? status::ok() : units();
}

}  // namespace xpose::detail
