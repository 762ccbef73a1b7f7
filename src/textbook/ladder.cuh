// The one launcher every rung shares, and the rungs themselves as types (family + policy + edge handling).
// ladder.cu turns them into the kernel_info table of textbook.hpp; tests name them to check their policies.
//
// Grid: x covers column tiles, y row tiles: (ceil(cols / tile), ceil(rows / tile)). A shape whose grid would
// exceed CUDA's limits (y > 65535, x > 2^31 - 1) is not supported: `supports` says false and `launch`
// returns cudaErrorInvalidValue without launching, never a silently partial result. Empty matrices are
// supported and launch nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "textbook/direct.cuh"
#include "textbook/layouts.cuh"
#include "textbook/tiled.cuh"

namespace xpose::textbook {

/// How a rung treats tiles that stick out of the matrix.
enum class edges {
  full_tiles_only,  ///< no checks compiled in; only rows, cols multiples of 32 (the NVIDIA/Fortran article)
  checked,          ///< bounds checks on every access, any shape (ArrayFire's transposeNoSC)
  fast_path,        ///< checks compiled out when rows and cols are multiples of 32, else checked (transposeSC)
};

/// One rung: a kernel family (direct_family / tiled_family) and its edge handling, behind the uniform
/// supports/launch pair of kernel_info.
template <class Family, edges Edges>
struct rung {
  using family = Family;
  static constexpr bool transposes = Family::transposes;
  static_assert(Edges == edges::checked || Family::tile == 32, "full-tile instantiations are for 32 x 32 tiles");

  static constexpr std::int64_t tiles(std::int64_t n) { return n / Family::tile + (n % Family::tile != 0); }

  static bool supports(std::int64_t rows, std::int64_t cols) {
    if (rows < 0 || cols < 0) return false;
    if (tiles(rows) > 65535) return false;       // grid y limit
    if (tiles(cols) > 2147483647) return false;  // grid x limit
    if (rows % Family::vec != 0 || cols % Family::vec != 0) return false;  // whole vectors on every row
    if (Edges == edges::full_tiles_only && (rows % 32 != 0 || cols % 32 != 0)) return false;
    return true;
  }

  /// Enqueues on `stream`; returns cudaErrorInvalidValue (nothing launched) for an unsupported shape, null
  /// pointers, or pointers that are not aligned to a whole vector, else the launch's error.
  static cudaError_t launch(const float* d_in, float* d_out, std::int64_t rows, std::int64_t cols,
                            cudaStream_t stream) {
    if (!supports(rows, cols)) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    constexpr std::uintptr_t align = sizeof(float) * Family::vec;
    if (d_in == nullptr || d_out == nullptr || reinterpret_cast<std::uintptr_t>(d_in) % align != 0 ||
        reinterpret_cast<std::uintptr_t>(d_out) % align != 0)
      return cudaErrorInvalidValue;
    const dim3 grid(static_cast<unsigned>(tiles(cols)), static_cast<unsigned>(tiles(rows)));
    if constexpr (Edges == edges::full_tiles_only) {
      Family::template enqueue<true>(grid, stream, d_in, d_out, rows, cols);
    } else if constexpr (Edges == edges::checked) {
      Family::template enqueue<false>(grid, stream, d_in, d_out, rows, cols);
    } else if (rows % 32 == 0 && cols % 32 == 0) {  // edges::fast_path: the instantiation is picked here
      Family::template enqueue<true>(grid, stream, d_in, d_out, rows, cols);
    } else {
      Family::template enqueue<false>(grid, stream, d_in, d_out, rows, cols);
    }
    return cudaGetLastError();
  }
};

/// The rungs of DESIGN §4, in teaching order. Block 32 x 8 on a 32 x 32 tile unless said otherwise.
namespace rungs {
// 32 x 32 tile, 32 x 8 threads (the CUDA Fortran article's geometry), shared-memory tiles with policies:
template <class Layout, class Order = cartesian_order>
using tile_32x8 = tile_policy<32, 8, 1, Layout, Order>;

using copy = rung<direct_family<copy_access>, edges::fast_path>;
using copy_shared =
    rung<tiled_family<tile_policy<32, 8, 1, smem_identity<32>, cartesian_order, false>>, edges::fast_path>;
using naive_read_coalesced = rung<direct_family<read_coalesced_access>, edges::checked>;
using naive_write_coalesced = rung<direct_family<write_coalesced_access>, edges::checked>;
// The image article's kernels: 16 x 16 threads, one element each, bounds-checked like the article's.
using shared_16x16 =
    rung<tiled_family<tile_policy<16, 16, 1, smem_identity<16>, cartesian_order>>, edges::checked>;
using shared_16x16_padded =
    rung<tiled_family<tile_policy<16, 16, 1, smem_padded_per_warp<16>, cartesian_order>>, edges::checked>;
// The NVIDIA / CUDA Fortran article's kernels: full tiles only, as in the article.
using tiled_32x8 = rung<tiled_family<tile_32x8<smem_identity<32>>>, edges::full_tiles_only>;
using tiled_32x8_padded = rung<tiled_family<tile_32x8<smem_padded<32, 1>>>, edges::full_tiles_only>;
using tiled_swizzled = rung<tiled_family<tile_32x8<smem_xor_swizzle<32>>>, edges::full_tiles_only>;
// float4 on both global sides: 8 x 32 threads, one float4 in and one out per thread; any multiple of 4.
using tiled_vec4 =
    rung<tiled_family<tile_policy<32, 32, 4, smem_xor_swizzle<32>, cartesian_order>>, edges::checked>;
using tiled_diagonal = rung<tiled_family<tile_32x8<smem_padded<32, 1>, diagonal_order>>, edges::full_tiles_only>;
// The ArrayFire article's pair: tiled_32x8_padded made to work for any size, then made fast again.
using tiled_checked = rung<tiled_family<tile_32x8<smem_padded<32, 1>>>, edges::checked>;
using tiled_full_tile_fast_path = rung<tiled_family<tile_32x8<smem_padded<32, 1>>>, edges::fast_path>;
}  // namespace rungs

}  // namespace xpose::textbook
