// rows family: a batch of contiguous rows gathered from one strided view into another (the fastest axis is
// the same on both sides, so every access is already coalesced; no shared memory).
//
// Flattened over (row, chunk) with 64-bit indices and precomputed divisors (`fast_divmod`), chunks of
// VecBytes in {1, 2, 4, 8, 16} bytes: the dispatcher picks the widest size dividing the row length, both base
// pointers and every batch stride. grid: 1-D, grid-stride loop; block: 256 threads.
#pragma once

#include <cstdint>

#include "cuda/index_math.hpp"
#include "cuda/kernels/transpose2d.cuh"  // word_type

namespace xpose::detail {

inline constexpr int rows_max_batch_rank = 9;
inline constexpr int rows_threads = 256;

struct rows_params {
  const unsigned char* in;
  unsigned char* out;
  std::uint64_t total_chunks;  // rows x chunks_per_row
  fast_divmod chunks_per_row;
  batch_map<rows_max_batch_rank> batch;  // row index -> byte offsets
};

template <int VecBytes>
__global__ void __launch_bounds__(rows_threads) rows_kernel(const rows_params p) {
  using word = typename word_type<VecBytes>::type;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.total_chunks;
       i += stride) {
    std::uint64_t chunk = 0;
    const std::uint64_t row = p.chunks_per_row.divmod(i, chunk);
    std::int64_t in_off = 0, out_off = 0;
    p.batch.offsets(row, in_off, out_off);
    const word x = *reinterpret_cast<const word*>(p.in + in_off + chunk * VecBytes);
    *reinterpret_cast<word*>(p.out + out_off + chunk * VecBytes) = x;
  }
}

}  // namespace xpose::detail
