// Device-side oracle of in-place transposes (tests/cuda/test_inplace.cu, xpose-bench --suite inplace).
//
// The allocation (guard bytes, every matrix, the gaps between pitched rows and between matrices) is filled
// with a hash of each byte's index; after a transpose, byte p must hold the hash of the byte it came from:
// its own index outside the matrices, (b, r, c) -> (b, c, r) inside them. One pass over every byte, so the
// check covers "nothing outside the output changed" as well as the values. 64-bit throughout (> 4 GiB).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/inplace_oracle.hpp"

namespace xpose::test {

__global__ void inplace_fill_kernel(unsigned char* buf, std::uint64_t bytes) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < bytes;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    buf[i] = inplace_byte(i);
}

__global__ void inplace_check_kernel(const unsigned char* buf, std::uint64_t bytes, inplace_expect x,
                                     unsigned long long* wrong) {
  unsigned long long local = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < bytes;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    local += buf[i] != inplace_byte(x.source(i));
  if (local) atomicAdd(wrong, local);
}

/// Fills `bytes` of `buf` with the pattern (stream-ordered).
inline cudaError_t inplace_fill(void* buf, std::uint64_t bytes, cudaStream_t stream = nullptr) {
  inplace_fill_kernel<<<4096, 256, 0, stream>>>(static_cast<unsigned char*>(buf), bytes);
  return cudaGetLastError();
}

/// Counts the wrong bytes of `bytes` of `buf` after one transpose of `g` whose data starts at `offset`.
/// Synchronizes `stream`; `d_wrong` is a device counter of the caller's.
inline cudaError_t inplace_count_wrong(const void* buf, std::uint64_t bytes, const inplace_geometry& g,
                                       std::int64_t offset, unsigned long long* d_wrong, unsigned long long& wrong,
                                       cudaStream_t stream = nullptr) {
  if (cudaError_t e = cudaMemsetAsync(d_wrong, 0, sizeof(unsigned long long), stream); e != cudaSuccess) return e;
  inplace_check_kernel<<<4096, 256, 0, stream>>>(static_cast<const unsigned char*>(buf), bytes,
                                                 make_inplace_expect(g, offset), d_wrong);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  if (cudaError_t e = cudaMemcpyAsync(&wrong, d_wrong, sizeof(wrong), cudaMemcpyDeviceToHost, stream); e != cudaSuccess)
    return e;
  return cudaStreamSynchronize(stream);
}

}  // namespace xpose::test
