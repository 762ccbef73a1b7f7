// The CUDA executor's entry point, callable from plain C++ (plan.cpp). Defined in dispatch.cu.
#pragma once

#include "xpose/inplace.hpp"
#include "xpose/plan.hpp"
#include "xpose/status.hpp"

namespace xpose::detail {

/// Checks the pointers (device-accessible, alignment) and launches the kernel family the geometry names.
status cuda_execute(const plan_geometry& g, const void* d_in, void* d_out, stream_t stream);

/// In-place transposes (dispatch/inplace.cu): `d_workspace` holds at least g.workspace_bytes (or is null when 0).
status cuda_execute_inplace(const inplace_geometry& g, void* d_data, void* d_workspace, stream_t stream);

/// invalid_argument when `ptr` is known to the CUDA runtime as device memory (for the host executor).
status cuda_reject_device_pointer(const void* ptr, const char* name);

}  // namespace xpose::detail
