// The CPU executor's entry point. Defined in src/cpu/.
#pragma once

#include "xpose/plan.hpp"
#include "xpose/status.hpp"

namespace xpose::detail {

/// Runs `g` on host memory with `threads` threads (0 = std::thread::hardware_concurrency()). Synchronous.
/// Pointers are already checked (non-null, non-overlapping) by plan::execute_host.
status cpu_execute(const plan_geometry& g, const void* in, void* out, int threads);

}  // namespace xpose::detail
