// The tiled family: a block stages one Tile x Tile tile of the input in shared memory, then writes it out
// transposed, so that global memory is accessed along rows on both sides. One kernel body for the rungs
// copy_shared, shared_16x16(_padded), tiled_32x8(_padded), tiled_swizzled, tiled_vec4, tiled_diagonal,
// tiled_checked and tiled_full_tile_fast_path; they differ only by a tile_policy (below) and by whether the
// bounds checks are compiled in (IsMultipleOf32).
//
// Applies to: rows x cols fp32 row-major, out of place; out is cols x rows (or rows x cols for copy_shared).
// Launch geometry: grid (ceil(cols / Tile), ceil(rows / Tile)), block (Tile / Vec, BlockRows) — 32 x 8 for
// the CUDA Fortran article's kernels, 16 x 16 for the image article's, 8 x 32 for float4 — always 256
// threads. Each thread moves Vec consecutive elements per pass, in Tile / BlockRows passes BlockRows rows
// apart.
// Preconditions: ceil(rows / Tile) <= 65535; rows and cols multiples of Vec, and both pointers 16-byte
// aligned when Vec == 4 (the launcher checks); IsMultipleOf32 only when rows and cols are multiples of 32.
//
//           input tile (r0.., c0..)                      output tile (c0.., r0..)
//   load:   pass p, thread (x, y): input row y + p*R,    store: pass p, thread (x, y): output row y + p*R
//           columns Vec*x ... Vec*x + Vec-1  ->  smem          (= input column), output columns Vec*x ...
//           row-wise (coalesced global read)                   (= input rows), gathered from a smem column
//
// Ideas (articles in ../shared/seeds): the tile itself and the barrier (all), bank conflicts and the
// policies that remove them (layouts.cuh), float4 global accesses (the RightNow and occupancy/swizzle
// articles), diagonal block order (RightNow), the is32Multiple short circuit (ArrayFire).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "textbook/layouts.cuh"

namespace xpose::textbook {

/// Everything that tells one tiled rung from another, as compile-time facts.
/// Tile: tile edge; BlockRows: rows of threads; Vec: elements per global access (1, 2 or 4);
/// Layout: shared-memory layout (layouts.cuh); Order: block order; Transposes: false for copy_shared.
template <int Tile, int BlockRows, int Vec, class Layout, class Order, bool Transposes = true>
struct tile_policy {
  static_assert(Vec == 1 || Vec == 2 || Vec == 4, "global accesses of 4, 8 or 16 bytes");
  static_assert(Tile % Vec == 0 && Tile % BlockRows == 0, "the block must cover the tile exactly");
  static_assert(Layout::tile == Tile, "the layout is written for another tile size");
  static constexpr int tile = Tile;
  static constexpr int block_rows = BlockRows;
  static constexpr int vec = Vec;
  static constexpr int block_x = Tile / Vec;  // threads along a tile row
  static constexpr int threads = block_x * BlockRows;
  static constexpr int passes = Tile / BlockRows;
  static constexpr bool transposes = Transposes;
  using layout = Layout;
  using order = Order;

  /// Shared-memory word that thread (x, y) fills with element k of its vector in load pass p: the tile row
  /// it read, at its column.
  __host__ __device__ static constexpr int load_slot(int x, int y, int p, int k) {
    return Layout::offset(y + p * BlockRows, x * Vec + k);
  }
  /// Shared-memory word that thread (x, y) takes element k of its output vector from in store pass p. For
  /// a transpose the output row y + p*R is input column y + p*R, and the output columns x*Vec + k are input
  /// rows: a walk down a tile column, where the bank conflicts are.
  __host__ __device__ static constexpr int store_slot(int x, int y, int p, int k) {
    return Transposes ? Layout::offset(x * Vec + k, y + p * BlockRows)
                      : Layout::offset(y + p * BlockRows, x * Vec + k);
  }
};

namespace detail {

// Vector j of a row, i.e. elements j*Vec .. j*Vec + Vec-1, as one access of 4*Vec bytes. The row pointer is
// cast to a pointer to vectors and indexed by j: nvcc 13 splits a 16-byte store into four 4-byte ones when
// the address is formed as a float offset first and cast afterwards (seen in the PTX of this kernel).
template <int Vec>
__device__ __forceinline__ void load_vec(const float* row, std::int64_t j, float (&v)[Vec]) {
  if constexpr (Vec == 4) {
    const float4 q = reinterpret_cast<const float4*>(row)[j];
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else if constexpr (Vec == 2) {
    const float2 q = reinterpret_cast<const float2*>(row)[j];
    v[0] = q.x, v[1] = q.y;
  } else {
    v[0] = row[j];
  }
}

template <int Vec>
__device__ __forceinline__ void store_vec(float* row, std::int64_t j, const float (&v)[Vec]) {
  if constexpr (Vec == 4) {
    reinterpret_cast<float4*>(row)[j] = make_float4(v[0], v[1], v[2], v[3]);
  } else if constexpr (Vec == 2) {
    reinterpret_cast<float2*>(row)[j] = make_float2(v[0], v[1]);
  } else {
    row[j] = v[0];
  }
}

}  // namespace detail

/// out = in^T (or out = in when !Policy::transposes) through a shared-memory tile. IsMultipleOf32 (the
/// ArrayFire article's is32Multiple): every tile is full, so the bounds checks are compiled out.
template <class Policy, bool IsMultipleOf32>
__global__ void __launch_bounds__(Policy::threads)
    tiled_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  static_assert(!IsMultipleOf32 || Policy::tile == 32, "the short circuit is written for 32 x 32 tiles");
  constexpr int R = Policy::block_rows;
  constexpr int V = Policy::vec;
  __shared__ float smem[Policy::layout::size];

  const tile_index t = Policy::order::tile_of(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
  const std::int64_t r0 = std::int64_t{t.row} * Policy::tile;  // first input row of the tile
  const std::int64_t c0 = std::int64_t{t.col} * Policy::tile;  // first input column
  const std::int64_t cv0 = std::int64_t{t.col} * (Policy::tile / V);  // c0 / V: first input column, in vectors
  const int x = threadIdx.x;
  const int y = threadIdx.y;

  // Load: lanes walk along input rows (coalesced). rows and cols are multiples of V, so c < cols means all
  // V elements c .. c+V-1 are in range.
#pragma unroll
  for (int p = 0; p < Policy::passes; ++p) {
    const std::int64_t r = r0 + y + p * R;
    const std::int64_t c = c0 + x * V;
    if (IsMultipleOf32 || (r < rows && c < cols)) {
      float v[V];
      detail::load_vec<V>(in + r * cols, cv0 + x, v);  // vector cv0 + x of the row = elements c .. c+V-1
#pragma unroll
      for (int k = 0; k < V; ++k) smem[Policy::load_slot(x, y, p, k)] = v[k];
    }
  }
  // Each thread stores words other threads loaded (and, for copy_shared, the article keeps the barrier to
  // show that it is not the cost).
  __syncthreads();

  // Store: lanes walk along output rows (coalesced). The output is out_rows x out_cols; a slot read here was
  // filled above whenever the element it stands for is inside the matrix, which the same check guarantees.
  const std::int64_t out_rows = Policy::transposes ? cols : rows;
  const std::int64_t out_cols = Policy::transposes ? rows : cols;
  const std::int64_t or0 = Policy::transposes ? c0 : r0;  // first output row of the tile
  const std::int64_t oc0 = Policy::transposes ? r0 : c0;  // first output column
  const std::int64_t ocv0 = std::int64_t{Policy::transposes ? t.row : t.col} * (Policy::tile / V);  // in vectors
#pragma unroll
  for (int p = 0; p < Policy::passes; ++p) {
    const std::int64_t r = or0 + y + p * R;
    const std::int64_t c = oc0 + x * V;
    if (IsMultipleOf32 || (r < out_rows && c < out_cols)) {
      float v[V];
#pragma unroll
      for (int k = 0; k < V; ++k) v[k] = smem[Policy::store_slot(x, y, p, k)];
      detail::store_vec<V>(out + r * out_cols, ocv0 + x, v);
    }
  }
}

/// The launch facts of one tiled rung, for the shared launcher (ladder.cuh).
template <class Policy>
struct tiled_family {
  using policy = Policy;
  static constexpr bool transposes = Policy::transposes;
  static constexpr int tile = Policy::tile;
  static constexpr int vec = Policy::vec;
  template <bool IsMultipleOf32>
  static void enqueue(dim3 grid, cudaStream_t stream, const float* in, float* out, std::int64_t rows,
                      std::int64_t cols) {
    tiled_kernel<Policy, IsMultipleOf32>
        <<<grid, dim3(Policy::block_x, Policy::block_rows), 0, stream>>>(in, out, rows, cols);
  }
};

}  // namespace xpose::textbook
