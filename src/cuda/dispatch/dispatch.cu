// CUDA executor entry: pointer checks, device facts, and the algorithm -> family launcher switch.
#include <cuda_runtime.h>

#include <array>
#include <mutex>
#include <string>

#include "cuda/dispatch/dispatch.hpp"
#include "cuda/dispatch/launch.hpp"

namespace xpose::detail {

status cuda_failure(cudaError_t err, const char* what) {
  return status(status_code::cuda_error, std::string(what) + ": " + cudaGetErrorName(err) + " (" +
                                             cudaGetErrorString(err) + ")");
}

status current_device(device_info& out) {
  constexpr int max_devices = 64;
  static std::array<device_info, max_devices> cache{};
  static std::array<bool, max_devices> known{};
  static std::mutex mutex;

  int dev = 0;
  if (cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return cuda_failure(e, "cudaGetDevice");
  if (dev < max_devices) {
    std::lock_guard<std::mutex> lock(mutex);
    if (known[dev]) {
      out = cache[dev];
      return status::ok();
    }
  }
  device_info info;
  info.ordinal = dev;
  if (cudaError_t e = cudaDeviceGetAttribute(&info.sm_count, cudaDevAttrMultiProcessorCount, dev);
      e != cudaSuccess)
    return cuda_failure(e, "cudaDeviceGetAttribute(MultiProcessorCount)");
  if (cudaError_t e = cudaDeviceGetAttribute(&info.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
      e != cudaSuccess)
    return cuda_failure(e, "cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin)");
  if (cudaError_t e = cudaDeviceGetAttribute(&info.cc_major, cudaDevAttrComputeCapabilityMajor, dev); e != cudaSuccess)
    return cuda_failure(e, "cudaDeviceGetAttribute(ComputeCapabilityMajor)");
  if (dev < max_devices) {
    std::lock_guard<std::mutex> lock(mutex);
    cache[dev] = info;
    known[dev] = true;
  }
  out = info;
  return status::ok();
}

namespace {

// Whether the CUDA runtime can answer pointer queries at all (false on machines without a driver/GPU).
bool runtime_usable() {
  static const bool usable = [] {
    int n = 0;
    const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    cudaGetLastError();  // a failed probe must not leave an error behind for the caller
    return ok;
  }();
  return usable;
}

}  // namespace

status require_device_accessible(const void* p, const char* name) {
  cudaPointerAttributes a{};
  if (cudaError_t e = cudaPointerGetAttributes(&a, p); e != cudaSuccess) {
    cudaGetLastError();
    return cuda_failure(e, (std::string("cudaPointerGetAttributes(") + name + ")").c_str());
  }
  if (a.type == cudaMemoryTypeUnregistered) {
    return status(status_code::invalid_argument,
                  std::string(name) + " is a host pointer unknown to CUDA; pass device, managed or pinned "
                                      "memory (or use execute_host for host memory)");
  }
  return status::ok();
}

status cuda_reject_device_pointer(const void* p, const char* name) {
  if (!runtime_usable()) return status::ok();
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return status::ok();  // not something CUDA knows: ordinary host memory
  }
  if (a.type == cudaMemoryTypeDevice) {
    return status(status_code::invalid_argument,
                  std::string(name) + " is device memory; execute_host needs host memory (use execute)");
  }
  return status::ok();
}

status cuda_launch(const plan_geometry& g, const void* d_in, void* d_out, cudaStream_t stream, const device_info& dev) {
  switch (g.algo) {
    case algorithm::copy:
      if (cudaError_t e = cudaMemcpyAsync(d_out, d_in, static_cast<std::size_t>(g.elem_words * g.word_bytes),
                                          cudaMemcpyDeviceToDevice, stream);
          e != cudaSuccess)
        return cuda_failure(e, "cudaMemcpyAsync (copy)");
      return status::ok();
    case algorithm::rows: return launch_rows(g, d_in, d_out, stream, dev);
    case algorithm::transpose2d: return launch_transpose2d(g, d_in, d_out, stream, dev);
  }
  return status(status_code::internal, "cuda_execute: unknown algorithm");
}

status cuda_execute(const plan_geometry& g, const void* d_in, void* d_out, stream_t stream_handle) {
  if (status s = require_device_accessible(d_in, "d_in"); !s) return s;
  if (status s = require_device_accessible(d_out, "d_out"); !s) return s;
  device_info dev;
  if (status s = current_device(dev); !s) return s;
  return cuda_launch(g, d_in, d_out, static_cast<cudaStream_t>(stream_handle), dev);
}

}  // namespace xpose::detail
