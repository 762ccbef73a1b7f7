// bulk8: 2-D (and batched) transposes of 1-byte units, b x r x c -> b x c x r, whose input the copy engine
// stages (sm_90's tensor copies): vec8 (kernels/transpose2d.cuh) with step 1 — each thread's 8 loads of 8 bytes
// from global memory into registers — replaced by one `cp.async.bulk.tensor` of the whole 256 x 128-byte tile
// into shared memory, issued by one thread and completed on an mbarrier. vec8 at 64 registers holds 64 KiB of
// loads in flight an SM and measured latency-bound on them (docs/perf-notes.md); here a resident block's whole
// tile is in flight from its first instruction, with no registers held for it.
//
// Steps: (1) tensor copy of rows [r0, r0 + 256) x bytes [c0, c0 + 128) into `stage` (outside the matrix the
// copy engine fills zeros and reads nothing); (2) each thread reads its 8 x 8-byte micro-tile from the stage
// (a half-warp reads one 128-byte staged row: no bank conflicts), transposes it in registers (vec8's
// transpose_micro), and writes it back over the stage in output orientation, swizzled as vec8's tile
// (swizzle8); (3) threads read along output rows and store 8-byte chunks, bounds-checked on edge tiles only.
// grid: 1-D over tiles (grid-stride loop), one tile a block at a time; block: bulk8_policy::threads.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "cuda/kernels/transpose2d.cuh"
#include "cuda/tuning/bulk8.hpp"

namespace xpose::detail {

struct bulk8_params {
  unsigned char* out;
  std::int64_t rows, cols;  // input rows r and columns c (bytes)
  std::int64_t out_ld;      // bytes between output rows
  std::int64_t batch_out_stride;
  // Tile order (bulk8_panel_rows, tuning/bulk8.hpp): a matrix's tiles in panels of P tile rows, tiles along r
  // fastest within a panel, then along c; then the next panel, then the next matrix. P = 1: columns fastest.
  fast_divmod matrix_tiles;  // by tiles_r * tiles_c
  fast_divmod panel_tiles;   // by P * tiles_c
  fast_divmod panel_rows;    // by P
  fast_divmod last_rows;     // by the last panel's tile rows (tiles_r - (panels - 1) P)
  std::uint64_t last_panel;
  std::int64_t tiles_total;
};

namespace bulk8_ptx {

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

}  // namespace bulk8_ptx

/// `map`: the input as a 3-D tensor of bytes (columns, rows, batch) with a 128 x 256 x 1 box (dispatch/bulk8.cu).
template <class Policy = bulk8_policy>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    transpose2d_bulk8_kernel(const __grid_constant__ CUtensorMap map, const bulk8_params p) {
  constexpr int V = 8, MR = Policy::mr, MC = Policy::mc, TR = Policy::tile_rows, TC = Policy::tile_bytes;
  constexpr int stage_bytes = TR * TC;
  static_assert(TC == 128 && MR >= 16 && MR <= 32, "a half-warp reads one staged row; swizzle8's 16-chunk key");
  __shared__ alignas(128) unsigned char stage[stage_bytes];
  __shared__ std::uint64_t bar;
  const unsigned mi = threadIdx.x / MC, mj = threadIdx.x % MC;  // this thread's micro-tile (step 2)

  // One tile a block, except when the grid is capped (more than 2^31 - 1 tiles): the barrier's phase then
  // alternates, and the stage is reused only after every thread's step 3 reads.
  unsigned phase = 0;
  if (threadIdx.x == 0) bulk8_ptx::barrier_init(&bar);
  __syncthreads();
  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    std::uint64_t in_matrix = 0, in_panel = 0, row_in_panel = 0;
    const std::uint64_t b = p.matrix_tiles.divmod(static_cast<std::uint64_t>(t), in_matrix);
    const std::uint64_t panel = p.panel_tiles.divmod(in_matrix, in_panel);
    const std::uint64_t tc = (panel == p.last_panel ? p.last_rows : p.panel_rows).divmod(in_panel, row_in_panel);
    const std::uint64_t tr = panel * p.panel_rows.divisor + row_in_panel;
    const std::int64_t r0 = static_cast<std::int64_t>(tr) * TR, c0 = static_cast<std::int64_t>(tc) * TC;
    if (threadIdx.x == 0)
      bulk8_ptx::load_box(stage, &map, static_cast<int>(c0), static_cast<int>(r0), static_cast<int>(b), &bar,
                          stage_bytes);
    bulk8_ptx::wait(&bar, phase);
    phase ^= 1;

    // 2. staged rows -> registers -> transposed micro-tile over the stage, in output orientation.
    std::uint32_t v[V][2];
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const uint2 x = *reinterpret_cast<const uint2*>(&stage[(mi * V + i) * TC + mj * 8]);
      v[i][0] = x.x;
      v[i][1] = x.y;
    }
    __syncthreads();  // every thread has read its rows before any overwrites them
    uint2* tile = reinterpret_cast<uint2*>(stage);
    {
      std::uint32_t w[V][2];
      transpose_micro<1, 2>(v, w);
#pragma unroll
      for (int k = 0; k < V; ++k) tile[swizzle8<V, MR>(mj * V + k, mi)] = make_uint2(w[k][0], w[k][1]);
    }
    __syncthreads();

    // 3. shared -> global along output rows: lane q holds chunk q (input rows r0 + 8q ..) of output rows c_j.
    const std::int64_t rows_left = p.rows - r0, cols_left = p.cols - c0;
    const bool full = rows_left >= TR && cols_left >= TC;
    const unsigned q = threadIdx.x % MR, c_0 = threadIdx.x / MR;
    constexpr unsigned c_step = Policy::threads / MR;
    unsigned char* const out_tile =
        p.out + static_cast<std::int64_t>(b) * p.batch_out_stride + c0 * p.out_ld + r0 + 8 * q;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const unsigned c = c_0 + j * c_step;
      const uint2 val = tile[swizzle8<V, MR>(static_cast<int>(c), static_cast<int>(q))];
      unsigned char* dst = out_tile + static_cast<std::int64_t>(c) * p.out_ld;
      if (full) {
        *reinterpret_cast<uint2*>(dst) = val;
      } else if (static_cast<std::int64_t>(c) < cols_left) {
        const std::int64_t n = rows_left - 8 * static_cast<std::int64_t>(q);  // bytes of this chunk in the matrix
        if (n >= 8) {
          *reinterpret_cast<uint2*>(dst) = val;
        } else if (n > 0) {
          const std::uint32_t w[4] = {val.x, val.y, 0, 0};
          store_units<1>(dst, static_cast<int>(n), w);
        }
      }
    }
    if (t + gridDim.x < p.tiles_total) {  // this tile's accesses to the stage before the next tile's copy
      bulk8_ptx::fence_async_shared();
      __syncthreads();
    }
  }
}

}  // namespace xpose::detail
