// CPU executor entry point: picks the macro-kernel for the plan's algorithm.
#include "cpu/cpu_executor.hpp"

#include "cpu/macrokernels.hpp"
#include "plan/planner.hpp"

namespace xpose::detail {

status cpu_execute(const plan_geometry& g, const void* in, void* out, int threads) {
  if (threads < 0) return status(status_code::invalid_argument, "threads must be >= 0");
  switch (g.algo) {
    case algorithm::copy:
    case algorithm::rows: cpu_rows(g, in, out, threads); return status::ok();
    // Compound tile sides are a GPU tiling device. The CPU moves problems whose plane runs would stay short
    // as boxes of several axes (macrokernel_box.cpp); it merges a compound column side whose fastest axis is
    // short into one contiguous input side; otherwise it blocks the fastest axis of each side and walks the
    // others as batch axes (same byte map).
    case algorithm::transpose2d:
      if (cpu_box(g, in, out, threads)) return status::ok();
      if (!cpu_transpose2d_merged_cols(g, in, out, threads)) cpu_transpose2d(flatten_sides(g), in, out, threads);
      return status::ok();
  }
  return status(status_code::internal, "cpu_execute: unknown algorithm");
}

}  // namespace xpose::detail
