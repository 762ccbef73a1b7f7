// The self-checking device oracle shared by the GPU tests and xpose-bench (cuTT's idea, by bytes): fill the
// input with a pattern that is a pure function of (byte offset, seed), run the permutation, and check on the
// device that every output byte equals the pattern byte of the input byte it must come from. No host copy,
// no reference output, 64-bit grid-stride loops: works for > 2^31 elements and any rank <= 8, axes, element
// size and strides (xpose/problem.hpp). The pattern and the per-element check live in oracle.hpp and are the
// same functions the host twins (fill_pattern_host, count_mismatches_host) run.
//
//   fill_pattern(d_in, in_bytes, seed, stream);
//   poison(d_out, out_bytes, stream);                          // pattern bytes never equal poison_byte
//   plan->execute(d_in, d_out, stream);
//   count_mismatches(d_in, d_out, p, seed, d_count, stream);   // *d_count = number of wrong elements
//
// Launch geometry: 1-D grids of 256 threads, at most 16 blocks per SM, grid-stride over 64-bit indices.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/oracle.hpp"
#include "xpose/problem.hpp"

namespace xpose::test {

namespace oracle_detail {

inline constexpr int block_threads = 256;

// Enough blocks to fill the device (16 per SM), no more: the loops are grid-stride.
inline unsigned grid_for(std::int64_t work) {
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) == cudaSuccess) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device) == cudaSuccess && v > 0) sms = v;
  }
  const std::int64_t want = (work + block_threads - 1) / block_threads;
  const std::int64_t cap = static_cast<std::int64_t>(sms) * 16;
  return static_cast<unsigned>(want < 1 ? 1 : (want < cap ? want : cap));
}

// Kernels are templates only so that this header can be included by several translation units (templates
// have vague linkage; a plain __global__ function defined here would be defined once per .cu file).

// 8-byte-aligned buffers: thread-per-group, one hash and one 8-byte store per group of 8 pattern bytes.
// `groups` full groups; the last `tail` (< 8) bytes are written by the thread that owns group `groups`.
template <int Unused = 0>
__global__ void fill_pattern_aligned_kernel(std::uint64_t* buf, std::int64_t groups, int tail,
                                            std::uint64_t seed) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g <= groups;
       g += stride) {
    const std::uint64_t h = pattern_hash(static_cast<std::uint64_t>(g), seed);
    const auto base = static_cast<std::uint64_t>(g) * 8u;
    if (g < groups) {
      std::uint64_t word = 0;
#pragma unroll
      for (unsigned k = 0; k < 8; ++k)
        word |= static_cast<std::uint64_t>(pattern_byte_from_hash(h, base + k)) << (8u * k);  // little endian
      buf[g] = word;
    } else {
      auto* bytes = reinterpret_cast<unsigned char*>(buf + g);
      for (int k = 0; k < tail; ++k) bytes[k] = pattern_byte_from_hash(h, base + static_cast<unsigned>(k));
    }
  }
}

// Any alignment: thread-per-byte.
template <int Unused = 0>
__global__ void fill_pattern_bytes_kernel(unsigned char* buf, std::int64_t bytes, std::uint64_t seed) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < bytes; b += stride)
    buf[b] = pattern_byte(static_cast<std::uint64_t>(b), seed);
}

// Thread e checks output element e (output order, so a warp reads contiguous output bytes); per-warp sums
// go to *count with one atomic per warp.
template <int Unused = 0>
__global__ void count_mismatches_kernel(const unsigned char* out, oracle_geometry g, std::uint64_t seed,
                                        unsigned long long* count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < g.elements;
       e += stride)
    local += element_mismatch(g, out, e, seed) ? 1u : 0u;
  // Every thread of the (full-warp) block reaches this point, so the full mask is valid.
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) local += __shfl_down_sync(0xFFFFFFFFu, local, offset);
  if ((threadIdx.x & 31u) == 0 && local != 0) atomicAdd(count, local);
}

}  // namespace oracle_detail

/// Writes `pattern_byte(b, seed)` at every byte b < `bytes` of `d_buf` (offsets from `d_buf`), on `stream`.
/// Returns the launch error. Asynchronous.
inline cudaError_t fill_pattern(void* d_buf, std::int64_t bytes, std::uint64_t seed, cudaStream_t stream) {
  if (bytes <= 0) return cudaSuccess;
  if (d_buf == nullptr) return cudaErrorInvalidValue;
  if (reinterpret_cast<std::uintptr_t>(d_buf) % 8 == 0) {
    const std::int64_t groups = bytes / 8;
    const int tail = static_cast<int>(bytes % 8);
    oracle_detail::fill_pattern_aligned_kernel<><<<oracle_detail::grid_for(groups + 1), oracle_detail::block_threads,
                                                 0, stream>>>(static_cast<std::uint64_t*>(d_buf), groups, tail, seed);
  } else {
    oracle_detail::fill_pattern_bytes_kernel<><<<oracle_detail::grid_for(bytes), oracle_detail::block_threads, 0,
                                               stream>>>(static_cast<unsigned char*>(d_buf), bytes, seed);
  }
  return cudaGetLastError();
}

/// Fills `bytes` bytes of `d_buf` with `poison_byte`, on `stream`. Asynchronous.
inline cudaError_t poison(void* d_buf, std::int64_t bytes, cudaStream_t stream) {
  if (bytes <= 0) return cudaSuccess;
  return cudaMemsetAsync(d_buf, poison_byte, static_cast<std::size_t>(bytes), stream);
}

/// Sets `*d_count` (device memory) to the number of output elements of `p` that differ in any byte from the
/// input element they must come from, the input having been filled by `fill_pattern(d_in, ..., seed)`.
/// `d_in` is not read (the pattern is recomputed); it may be null. Errors: cudaErrorInvalidValue when `p`
/// is not a problem the oracle understands (see make_oracle_geometry) or a pointer is null; else the launch
/// error. Asynchronous: read *d_count after synchronizing `stream`.
inline cudaError_t count_mismatches(const void* d_in_unused_ok, const void* d_out, const xpose::problem& p,
                                    std::uint64_t seed, unsigned long long* d_count, cudaStream_t stream) {
  (void)d_in_unused_ok;
  oracle_geometry g;
  if (d_count == nullptr || !make_oracle_geometry(p, g).empty()) return cudaErrorInvalidValue;
  if (cudaError_t err = cudaMemsetAsync(d_count, 0, sizeof(unsigned long long), stream); err != cudaSuccess)
    return err;
  if (g.elements == 0) return cudaSuccess;
  if (d_out == nullptr) return cudaErrorInvalidValue;
  oracle_detail::count_mismatches_kernel<><<<oracle_detail::grid_for(g.elements), oracle_detail::block_threads, 0,
                                           stream>>>(static_cast<const unsigned char*>(d_out), g, seed, d_count);
  return cudaGetLastError();
}

}  // namespace xpose::test
