// bulk family: 2-D (and singly batched) transposes b x r x c -> b x c x r whose input tiles the copy engine
// stages (sm_90's tensor copies), one `cp.async.bulk.tensor` a tile, issued by one thread and completed on an
// mbarrier, instead of each thread's loads from global memory into registers:
//
// * bulk8 (1-byte units): vec8 (kernels/transpose2d.cuh) with that step replaced. vec8 at 64 registers holds
//   64 KiB of loads in flight an SM and measured latency-bound on them (docs/perf-notes.md); here a resident
//   block's whole 256 x 128-byte tile is in flight from its first instruction, with no registers held for it.
// * bulk16<U> (2-, 4-, 8-byte units): vec16's tiles (vec16_shape<U>: 16-byte chunks, V = 16 / U rows a
//   micro-tile) the same way.
//
// Steps: (1) tensor copy of the tile's rows x columns into `stage` (outside the matrix the copy engine fills
// zeros and reads nothing); (2) each thread reads its micro-tiles from the stage (the lanes of one shared-memory
// wavefront read consecutive chunks of one staged row: no bank conflicts), transposes them in registers
// (transpose_micro), and writes them back over the stage in output orientation, swizzled as vec8's / vec16's
// tile; (3) threads read along output rows and store 8- or 16-byte chunks, bounds-checked on edge tiles only.
// Tiles run in panel order (bulk_panel_rows, tuning/bulk.hpp), which mattered more than the loads.
// grid: 1-D over tiles (grid-stride loop), one tile a block at a time.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "cuda/kernels/transpose2d.cuh"
#include "cuda/tuning/bulk.hpp"

namespace xpose::detail {

struct bulk_params {
  unsigned char* out;
  std::int64_t rows, cols;  // input rows r and columns c (units)
  std::int64_t out_ld;      // bytes between output rows
  std::int64_t batch_out_stride;
  // Tile order (bulk_panel_rows, tuning/bulk.hpp): a matrix's tiles in panels of P tile rows, tiles along r
  // fastest within a panel, then along c; then the next panel, then the next matrix. P = 1: columns fastest.
  fast_divmod matrix_tiles;  // by tiles_r * tiles_c
  fast_divmod panel_tiles;   // by P * tiles_c
  fast_divmod panel_rows;    // by P
  fast_divmod last_rows;     // by the last panel's tile rows (tiles_r - (panels - 1) P)
  std::uint64_t last_panel;
  std::int64_t tiles_total;
};

namespace bulk_ptx {

__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void barrier_init(std::uint64_t* bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(bar)));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/// Tensor copy of the box at (c, r, b) into `dst`, completing `bytes` on `bar` (arrive with the byte count).
__device__ __forceinline__ void load_box(void* dst, const CUtensorMap* map, int c, int r, int b, std::uint64_t* bar,
                                         unsigned bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes) : "memory");
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];" ::"r"(smem(dst)),
      "l"(map), "r"(c), "r"(r), "r"(b), "r"(smem(bar))
      : "memory");
#endif
}

/// Waits until `bar` completes phase `parity`.
__device__ __forceinline__ void wait(std::uint64_t* bar, unsigned parity) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n .reg .pred done;\n wait%=:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra "
      "wait%=;\n}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
#endif
}

/// Orders this thread's earlier ordinary shared-memory accesses before later tensor copies into it.
__device__ __forceinline__ void fence_async_shared() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

}  // namespace bulk_ptx

/// Tile t in panel order -> its matrix b, tile row tr and tile column tc.
struct bulk_tile {
  std::uint64_t b, tr, tc;
  __device__ bulk_tile(const bulk_params& p, std::int64_t t) {
    std::uint64_t in_matrix = 0, in_panel = 0, row_in_panel = 0;
    b = p.matrix_tiles.divmod(static_cast<std::uint64_t>(t), in_matrix);
    const std::uint64_t panel = p.panel_tiles.divmod(in_matrix, in_panel);
    tc = (panel == p.last_panel ? p.last_rows : p.panel_rows).divmod(in_panel, row_in_panel);
    tr = panel * p.panel_rows.divisor + row_in_panel;
  }
};

/// Steps 1 and the loop around them, shared by both kernels: stage tile t (TR rows x TCu units from (r0, c0)),
/// wait for it, then run `body(tile)`. One tile a block, except when the grid is capped (more than 2^31 - 1
/// tiles): the barrier's phase then alternates, and the stage is reused only after every thread's step 3.
template <int TR, int TCu, int StageBytes, class Body>
__device__ __forceinline__ void bulk_tiles(const CUtensorMap& map, const bulk_params& p, unsigned char* stage,
                                           std::uint64_t* bar, Body&& body) {
  unsigned phase = 0;
  if (threadIdx.x == 0) bulk_ptx::barrier_init(bar);
  __syncthreads();
  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const bulk_tile tile(p, t);
    if (threadIdx.x == 0)
      bulk_ptx::load_box(stage, &map, static_cast<int>(tile.tc * TCu), static_cast<int>(tile.tr * TR),
                         static_cast<int>(tile.b), bar, StageBytes);
    bulk_ptx::wait(bar, phase);
    phase ^= 1;
    body(tile);
    if (t + gridDim.x < p.tiles_total) {  // this tile's accesses to the stage before the next tile's copy
      bulk_ptx::fence_async_shared();
      __syncthreads();
    }
  }
}

/// Step 2's reads, shared by both kernels: this thread's P micro-tiles (micro = threadIdx.x + m Threads: staged
/// rows mi V .. mi V + V - 1 at chunk mj of W words, row_bytes apart) into v[m]. The lanes of one shared-memory
/// wavefront read consecutive chunks of one staged row: no bank conflicts.
template <int W, int V, int MC, int P, int Threads>
__device__ __forceinline__ void read_stage(const unsigned char* stage, int row_bytes, std::uint32_t (&v)[P][V][W]) {
  static_assert(W == 2 || W == 4, "8- or 16-byte chunks");
#pragma unroll
  for (int m = 0; m < P; ++m) {
    const int micro = static_cast<int>(threadIdx.x) + m * Threads, mi = micro / MC, mj = micro % MC;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const unsigned char* chunk = stage + (mi * V + i) * row_bytes + mj * 4 * W;
      if constexpr (W == 2) {
        const uint2 x = *reinterpret_cast<const uint2*>(chunk);
        v[m][i][0] = x.x, v[m][i][1] = x.y;
      } else {
        const uint4 x = *reinterpret_cast<const uint4*>(chunk);
        v[m][i][0] = x.x, v[m][i][1] = x.y, v[m][i][2] = x.z, v[m][i][3] = x.w;
      }
    }
  }
}

__device__ __forceinline__ void chunk_words(const uint2& c, std::uint32_t (&w)[4]) {
  w[0] = c.x, w[1] = c.y, w[2] = 0, w[3] = 0;
}
__device__ __forceinline__ void chunk_words(const uint4& c, std::uint32_t (&w)[4]) {
  w[0] = c.x, w[1] = c.y, w[2] = c.z, w[3] = c.w;
}

/// Step 3, shared by both kernels: shared -> global along output rows. The tile holds TCu output rows of MR
/// chunks (8 or 16 bytes, V units each) at swz(row, chunk); lane q stores chunk q (input rows r0 + V q ..) of
/// output rows c_0, c_0 + c_step, ... Edge tiles check each chunk and store a last partial one unit by unit.
template <int UnitBytes, int V, int MR, int Threads, int TR, int TCu, class Chunk, class Swizzle>
__device__ __forceinline__ void store_tile(const bulk_params& p, const bulk_tile& t, const Chunk* tile, Swizzle swz) {
  const std::int64_t r0 = static_cast<std::int64_t>(t.tr) * TR, c0 = static_cast<std::int64_t>(t.tc) * TCu;
  const std::int64_t rows_left = p.rows - r0, cols_left = p.cols - c0;
  const bool full = rows_left >= TR && cols_left >= TCu;
  const unsigned q = threadIdx.x % MR, c_0 = threadIdx.x / MR;
  constexpr unsigned c_step = Threads / MR;
  static_assert(TCu % c_step == 0, "every output row of the tile is stored");
  unsigned char* const out_tile = p.out + static_cast<std::int64_t>(t.b) * p.batch_out_stride + c0 * p.out_ld +
                                  (r0 + static_cast<std::int64_t>(V) * q) * UnitBytes;
#pragma unroll
  for (int j = 0; j < TCu / static_cast<int>(c_step); ++j) {
    const unsigned c = c_0 + j * c_step;
    const Chunk val = tile[swz(static_cast<int>(c), static_cast<int>(q))];
    unsigned char* dst = out_tile + static_cast<std::int64_t>(c) * p.out_ld;
    if (full) {
      *reinterpret_cast<Chunk*>(dst) = val;
    } else if (static_cast<std::int64_t>(c) < cols_left) {
      const std::int64_t n = rows_left - static_cast<std::int64_t>(V) * q;  // units of this chunk in the matrix
      if (n >= V) {
        *reinterpret_cast<Chunk*>(dst) = val;
      } else if (n > 0) {
        std::uint32_t w[4];
        chunk_words(val, w);
        store_units<UnitBytes>(dst, static_cast<int>(n), w);
      }
    }
  }
}

/// bulk8. `map`: the input as a 3-D tensor of bytes (columns, rows, batch), box 128 x 256 x 1 (dispatch/bulk.cu).
template <class Policy = bulk8_policy>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    transpose2d_bulk8_kernel(const __grid_constant__ CUtensorMap map, const bulk_params p) {
  constexpr int V = 8, MR = Policy::mr, MC = Policy::mc, TR = Policy::tile_rows, TC = Policy::tile_bytes;
  constexpr int stage_bytes = TR * TC;
  static_assert(TC == 128 && MR >= 16 && MR <= 32, "a half-warp reads one staged row; swizzle8's 16-chunk key");
  __shared__ alignas(128) unsigned char stage[stage_bytes];
  __shared__ std::uint64_t bar;
  const unsigned mi = threadIdx.x / MC, mj = threadIdx.x % MC;  // this thread's micro-tile (step 2's writes)

  bulk_tiles<TR, TC, stage_bytes>(map, p, stage, &bar, [&](const bulk_tile& t) {
    // 2. staged rows -> registers -> transposed micro-tile over the stage, in output orientation.
    std::uint32_t v[1][V][2];
    read_stage<2, V, MC, 1, Policy::threads>(stage, TC, v);
    __syncthreads();  // every thread has read its rows before any overwrites them
    uint2* tile = reinterpret_cast<uint2*>(stage);
    write_micro_tile8<1, MR>(v[0], tile, mi, mj);
    __syncthreads();

    // 3. shared -> global along output rows.
    store_tile<1, V, MR, Policy::threads, TR, TC>(p, t, tile,
                                                  [](int c, int q) { return swizzle8<V, MR>(c, q); });
  });
}

/// bulk16<U>. `map`: the input as a 3-D tensor of U-byte elements (columns, rows, batch), box tile_cols x
/// tile_rows x 1 of vec16_shape<U> (dispatch/bulk.cu).
template <int UnitBytes>
__global__ void __launch_bounds__(vec16_shape<UnitBytes>::threads, bulk16_policy<UnitBytes>::min_blocks)
    transpose2d_bulk16_kernel(const __grid_constant__ CUtensorMap map, const bulk_params p) {
  using S = vec16_shape<UnitBytes>;
  constexpr int V = S::V, MR = S::MR, MC = S::MC, TR = S::tile_rows, TCu = S::tile_cols;
  constexpr int row_bytes = TCu * UnitBytes, stage_bytes = TR * row_bytes;
  static_assert(TCu <= 256 && stage_bytes <= 32 * 1024, "a tensor-copy box side is <= 256 elements");
  __shared__ alignas(128) unsigned char stage[stage_bytes];
  __shared__ std::uint64_t bar;

  bulk_tiles<TR, TCu, stage_bytes>(map, p, stage, &bar, [&](const bulk_tile& t) {
    // 2. staged rows -> registers -> transposed micro-tiles over the stage (store_micro_tiles: vec16's
    //    swizzled tile).
    std::uint32_t v[S::P][V][4];
    read_stage<4, V, MC, S::P, S::threads>(stage, row_bytes, v);
    __syncthreads();  // every thread has read its rows before any overwrites them
    uint4* tile = reinterpret_cast<uint4*>(stage);
    store_micro_tiles<UnitBytes, S>(v, tile);
    __syncthreads();

    // 3. shared -> global along output rows.
    store_tile<UnitBytes, V, MR, S::threads, TR, TCu>(p, t, tile,
                                                      [](int c, int q) { return swizzle<V, MR>(c, q); });
  });
}

}  // namespace xpose::detail
