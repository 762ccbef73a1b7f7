// The CPU executor's macro-kernels, one per algorithm family; cpu_executor.cpp dispatches to them.
// Each takes a geometry already checked by the planner and pointers already checked by plan::execute_host,
// and a thread count (0 = all hardware threads) that it lowers for small problems (see threads.hpp).
#pragma once

#include "plan/box.hpp"
#include "xpose/plan.hpp"

namespace xpose::detail {

struct isa_kernels;  // cpu/kernel_table.hpp

/// algorithm::copy and algorithm::rows: one contiguous run of elem_words words per batch item.
void cpu_rows(const plan_geometry& g, const void* in, void* out, int threads);

/// algorithm::transpose2d: a batch of rows x cols -> cols x rows transposes of elem_words-word units.
void cpu_transpose2d(const plan_geometry& g, const void* in, void* out, int threads);

/// algorithm::transpose2d with a compound column side whose fastest axis is shorter than 4 cache lines: the
/// column axes merged into one contiguous input side, each output row at its own address. Returns false
/// (nothing done) where that does not apply; then cpu_transpose2d runs on the flattened geometry.
bool cpu_transpose2d_merged_cols(const plan_geometry& g, const void* in, void* out, int threads);

/// algorithm::transpose2d whose tile sides stay short: boxes of several axes (macrokernel_box.cpp, boxes from
/// make_cpu_box). Returns false (nothing done) where no box beats the plane paths.
bool cpu_box(const plan_geometry& g, const void* in, void* out, int threads);

/// The box cpu_box moves `g` in: true and `b` filled where it takes boxes (never under box_mode::never).
bool cpu_box_plan(const plan_geometry& g, box_plan& b);

/// Whether cpu_box moves the boxes of `b` through the permute path of level `isa` rather than the element
/// gather (the rule of macrokernel_box.cpp; for tests).
bool cpu_box_permutes(const box_plan& b, const isa_kernels& isa);

/// Whether cpu_box moves the boxes of `b` as batches of 2-D tiles through the level's tile kernel (the rule of
/// macrokernel_box.cpp; for tests).
bool cpu_box_tiles(const box_plan& b);

/// algorithm::transpose2d on a packed batch of small planes (plane geometry, no compound side): the whole
/// batch as one periodic byte permutation (macrokernel_periodic.cpp). Returns false (nothing done) where the
/// level has no permute kernel or the problem is not such a batch; cpu_transpose2d calls it first.
bool cpu_transpose2d_periodic(const plan_geometry& g, const void* in, void* out, int threads);

}  // namespace xpose::detail
