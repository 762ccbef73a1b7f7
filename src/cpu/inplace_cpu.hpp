// The CPU executor of in-place transposes. Defined in src/cpu/inplace_cpu.cpp.
#pragma once

#include "xpose/inplace.hpp"
#include "xpose/status.hpp"

namespace xpose::detail {

/// Runs `g` on host memory with `threads` threads (0 = all). The pointer is already checked.
status cpu_execute_inplace(const inplace_geometry& g, void* data, int threads);

}  // namespace xpose::detail
