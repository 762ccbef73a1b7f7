// The direct family: every thread moves elements straight from global memory to global memory, no shared
// memory. Rungs `copy` (the bandwidth reference), `naive_read_coalesced` and `naive_write_coalesced`.
//
// Applies to: any rows x cols fp32 matrix, row-major, out of place (in and out must not overlap).
// Launch geometry (CUDA Fortran article): grid (ceil(cols / 32), ceil(rows / 32)), block (32, 8); each block
// covers one 32 x 32 tile and each thread 4 of its elements, in 4 passes 8 rows apart, which amortizes the
// index arithmetic over 4 elements.
// Preconditions: ceil(rows / 32) <= 65535 (grid y limit); IsMultipleOf32 only when rows and cols both are.
//
// What the rungs show (CUDA Fortran article, RightNow article "both achieve only ~20% of peak"):
//  - copy: lanes of a warp walk along a row on both sides: 128 contiguous bytes read and written per warp
//    access. Nothing a transpose does can beat it; every other rung is reported as a ratio to it.
//  - naive_read_coalesced: the same thread mapping, output indices swapped. Reads stay coalesced, but the
//    32 lanes of a warp write 32 different rows of the output, `rows * 4` bytes apart: 32 sectors of 32 bytes
//    to store 128 useful bytes.
//  - naive_write_coalesced: lanes walk down an input column (= along an output row): the writes are
//    coalesced and the reads are strided. The rest of each 32-byte sector a lane reads is read by the other
//    warps of the same block, so strided reads can be served again from L1; strided writes are merged only
//    in L2. Which naive kernel wins is a property of the GPU: the results table shows it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "textbook/layouts.cuh"

namespace xpose::textbook {

/// Maps a thread's (lane x, row y) in the 32 x 8 block, on one pass, to the tile element it moves.
struct copy_access {
  static constexpr bool transposes = false;
  __host__ __device__ static constexpr tile_index element(unsigned x, unsigned y) { return {y, x}; }
};

/// Lanes walk along an input row: coalesced loads, stores strided by `rows`.
struct read_coalesced_access {
  static constexpr bool transposes = true;
  __host__ __device__ static constexpr tile_index element(unsigned x, unsigned y) { return {y, x}; }
};

/// Lanes walk down an input column, i.e. along an output row: coalesced stores, loads strided by `cols`.
struct write_coalesced_access {
  static constexpr bool transposes = true;
  __host__ __device__ static constexpr tile_index element(unsigned x, unsigned y) { return {x, y}; }
};

/// out = in (Access::transposes == false) or out = in^T, tile by tile. IsMultipleOf32: every tile is full,
/// the bounds checks are compiled out (the ArrayFire article's short circuit).
template <class Access, bool IsMultipleOf32>
__global__ void __launch_bounds__(256)
    direct_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  constexpr int tile = 32;
  constexpr int block_rows = 8;
  const std::int64_t r0 = std::int64_t{blockIdx.y} * tile;  // first input row of this block's tile
  const std::int64_t c0 = std::int64_t{blockIdx.x} * tile;  // first input column
#pragma unroll
  for (int y = 0; y < tile; y += block_rows) {
    const tile_index e = Access::element(threadIdx.x, threadIdx.y + y);
    const std::int64_t r = r0 + e.row;
    const std::int64_t c = c0 + e.col;
    if (IsMultipleOf32 || (r < rows && c < cols)) {
      // Input (r, c) goes to output (c, r) of the cols x rows result, or stays at (r, c) for the copy.
      out[Access::transposes ? c * rows + r : r * cols + c] = in[r * cols + c];
    }
  }
}

/// The launch facts of one direct rung, for the shared launcher (ladder.cuh).
template <class Access>
struct direct_family {
  static constexpr bool transposes = Access::transposes;
  static constexpr int tile = 32;  // elements per tile edge: grid = ceil(cols / tile) x ceil(rows / tile)
  static constexpr int vec = 1;    // rows and cols must be multiples of vec
  template <bool IsMultipleOf32>
  static void enqueue(dim3 grid, cudaStream_t stream, const float* in, float* out, std::int64_t rows,
                      std::int64_t cols) {
    direct_kernel<Access, IsMultipleOf32><<<grid, dim3(32, 8), 0, stream>>>(in, out, rows, cols);
  }
};

}  // namespace xpose::textbook
