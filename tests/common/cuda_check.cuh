// Small helpers of the GPU tests: a gtest assertion on CUDA calls and an owning device allocation.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>

/// Asserts that a CUDA runtime call returned cudaSuccess, printing the call and the runtime's message.
#define CUDA_OK(expr)                                                      \
  do {                                                                     \
    const cudaError_t e_ = (expr);                                         \
    ASSERT_EQ(e_, cudaSuccess) << #expr << ": " << cudaGetErrorString(e_); \
  } while (0)

namespace xpose::test {

/// cudaMalloc'd bytes, freed on scope exit; ptr is null when the allocation failed (tests assert on it).
struct device_buffer {
  void* ptr = nullptr;
  explicit device_buffer(std::size_t bytes) {
    if (cudaMalloc(&ptr, bytes == 0 ? 1 : bytes) != cudaSuccess) ptr = nullptr;
  }
  ~device_buffer() { cudaFree(ptr); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  unsigned char* bytes() const { return static_cast<unsigned char*>(ptr); }
};

}  // namespace xpose::test
