// wide family: 2-D transposes (batched, plain or compound sides) of wide units -- at least
// wide_min_unit_bytes, each contiguous on both sides: a fastest axis the permutation keeps, fused into the unit
// (attention heads [B, S, H, D] -> [B, H, S, D], 3-D permutations with axes (1, 0, 2), pixels of many channels).
//
// A unit is K = U / G chunks of G bytes (G = 16 or 8: the alignment of every pointer, stride and U), and a
// chunk lands whole in one output chunk: no shared-memory stage, no register permute. A block takes a tile of
// tile_rows x tile_cols units (wide_tile, at most wide_policy::tile_bytes) and its threads its chunks in output
// order, each thread wide_policy::chunks(G) of them, all loads issued before the stores (8-byte chunks: the store
// addresses computed again rather than held, wide_policy::lean):
//
//   chunk i -> output row c = i / (tile_rows K), unit r = (i mod tile_rows K) / K, chunk k = i mod K
//   load  in  + in_row(r0 + r) + (c0 + c) U + k G        (a warp: K consecutive chunks a unit, whole units)
//   store out + out_col(c0 + c) + (r0 + r) U + k G       (a warp: consecutive chunks of the tile's output rows)
//
// so every store instruction writes contiguous runs of output rows (whole 32-byte sectors but at a run's two
// ends) and every load reads whole units of input rows whose other units the same tile reads: runs of
// tile_rows U and tile_cols U bytes (wide_tile keeps both near sqrt(tile_bytes U)). Output order because a
// unit that is not a whole number of sectors (40, 48, 80 bytes) costs far more as scattered stores than as
// scattered loads (H200, same binary, 80-byte units input order / output order: fp16 40x106x35x45x40 0.73 /
// 0.94, fp32 3000x2000x20 0.60 / 0.90; 128-256-byte units equal). Compound sides (mixed-radix rows or columns)
// tabulate the tile's row and column offsets in shared memory once a tile. grid: 1-D, grid-stride over tiles,
// column tiles fastest.
#pragma once

#include <cstdint>

#include "cuda/index_math.hpp"
#include "cuda/kernels/transpose2d.cuh"  // word_type, transpose2d_max_side_rank / batch rank
#include "cuda/kernels/wide_gather_chunk.hpp"
#include "cuda/tuning/wide.hpp"

namespace xpose::detail {

struct wide_params {
  const unsigned char* in;
  unsigned char* out;
  std::int64_t rows, cols;      // input rows / columns (units)
  std::int64_t in_ld, out_ld;   // bytes between input rows / output rows (plain sides)
  std::int64_t unit_bytes;      // U
  unsigned unit_chunks;         // K = U / G
  unsigned tile_rows, tile_cols;  // units; tile_rows * tile_cols * K <= threads * chunks(G)
  div32 line_div;               // by the chunks of a tile's output row: tile_rows * K
  div32 unit_div;               // by K
  fast_divmod tiles_c, tiles_r;  // tiles along c (fastest) and r
  std::int64_t tiles_total;
  batch_map<transpose2d_max_batch_rank> batch;
  mixed_radix_map<transpose2d_max_side_rank> row_map, col_map;  // Compound: input row / output column offsets
};

template <int G, bool Compound>
__global__ void __launch_bounds__(wide_policy::threads) transpose2d_wide_kernel(const wide_params p) {
  using word = typename word_type<G>::type;
  constexpr int threads = wide_policy::threads, P = wide_policy::chunks(G);
  constexpr bool Lean = wide_policy::lean(G);
  constexpr int max_side = wide_policy::max_side;
  __shared__ std::int64_t side_off[Compound ? 2 * max_side : 1];  // rows' input offsets, then columns' output
  const unsigned K = p.unit_chunks;
  const unsigned line_chunks = p.tile_rows * K;
  const std::int64_t U = p.unit_bytes;
  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    std::uint64_t tc = 0, tr = 0;
    const std::uint64_t b = p.tiles_r.divmod(p.tiles_c.divmod(static_cast<std::uint64_t>(t), tc), tr);
    std::int64_t in_off = 0, out_off = 0;
    p.batch.offsets(b, in_off, out_off);
    const std::int64_t r0 = static_cast<std::int64_t>(tr) * p.tile_rows;
    const std::int64_t c0 = static_cast<std::int64_t>(tc) * p.tile_cols;
    const unsigned nr = static_cast<unsigned>(p.rows - r0 < p.tile_rows ? p.rows - r0 : p.tile_rows);
    const unsigned nc = static_cast<unsigned>(p.cols - c0 < p.tile_cols ? p.cols - c0 : p.tile_cols);
    const unsigned char* src = p.in + in_off + c0 * U;
    unsigned char* dst = p.out + out_off + r0 * U;
    if constexpr (Compound) {
      __syncthreads();  // the previous tile's readers of side_off are done
      for (unsigned i = threadIdx.x; i < nr; i += threads)
        side_off[i] = p.row_map.offset(static_cast<std::uint64_t>(r0 + i));
      for (unsigned i = threadIdx.x; i < nc; i += threads)
        side_off[max_side + i] = p.col_map.offset(static_cast<std::uint64_t>(c0 + i));
      __syncthreads();
    } else {
      src += r0 * p.in_ld;
      dst += c0 * p.out_ld;
    }
    const unsigned n = nc * line_chunks;
    word v[P];
    unsigned char* o[P];
    // Chunk i's output row, unit and chunk (Lean: computed again for the stores instead of holding P pointers).
    const auto where = [&](unsigned i, unsigned& c, unsigned& r, unsigned& k) {
      c = p.line_div.div(i);
      const unsigned rem = i - c * line_chunks;
      r = p.unit_div.div(rem);
      k = rem - r * K;
    };
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const unsigned i = threadIdx.x + j * threads;
      if (!Lean) o[j] = nullptr;
      if (i < n) {
        unsigned c, r, k;
        where(i, c, r, k);
        if (r < nr) {
          const std::int64_t in_row = Compound ? side_off[r] : static_cast<std::int64_t>(r) * p.in_ld;
          v[j] = __ldg(reinterpret_cast<const word*>(src + in_row + c * U + k * G));
          if (!Lean) {
            const std::int64_t out_col = Compound ? side_off[max_side + c] : static_cast<std::int64_t>(c) * p.out_ld;
            o[j] = dst + out_col + r * U + k * G;
          }
        }
      }
    }
#pragma unroll
    for (int j = 0; j < P; ++j) {
      if (Lean) {
        const unsigned i = threadIdx.x + j * threads;
        if (i < n) {
          unsigned c, r, k;
          where(i, c, r, k);
          if (r < nr) {
            const std::int64_t out_col = Compound ? side_off[max_side + c] : static_cast<std::int64_t>(c) * p.out_ld;
            *reinterpret_cast<word*>(dst + out_col + r * U + k * G) = v[j];
          }
        }
      } else if (o[j] != nullptr) {
        *reinterpret_cast<word*>(o[j]) = v[j];
      }
    }
  }
}

/// Units off the 8-byte grid (on a W-byte grid; dispatched for W = 4 only, tuning/wide.hpp): each thread a 16-byte chunk of a
/// tile's output row on the output's own 16-byte grid (p.unit_chunks = chunk slots a row), gathered word by
/// word from the units it overlaps (wide_gather_chunk), stored whole inside the row and word by word at its
/// two ends (the neighbouring tiles own the chunk's other bytes). p.line_div divides by the slots a row,
/// p.unit_div by U.
template <int W, bool Compound>
__global__ void __launch_bounds__(wide_policy::threads) transpose2d_wide_gather_kernel(const wide_params p) {
  using word = typename word_type<W>::type;
  constexpr int threads = wide_policy::threads, P = wide_policy::gather_chunks;
  constexpr int max_side = wide_policy::max_side;
  constexpr unsigned full = (1u << (16 / W)) - 1u;
  __shared__ std::int64_t side_off[Compound ? 2 * max_side : 1];
  const unsigned Q = p.unit_chunks;
  const auto U = static_cast<unsigned>(p.unit_bytes);
  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    std::uint64_t tc = 0, tr = 0;
    const std::uint64_t b = p.tiles_r.divmod(p.tiles_c.divmod(static_cast<std::uint64_t>(t), tc), tr);
    std::int64_t in_off = 0, out_off = 0;
    p.batch.offsets(b, in_off, out_off);
    const std::int64_t r0 = static_cast<std::int64_t>(tr) * p.tile_rows;
    const std::int64_t c0 = static_cast<std::int64_t>(tc) * p.tile_cols;
    const unsigned nr = static_cast<unsigned>(p.rows - r0 < p.tile_rows ? p.rows - r0 : p.tile_rows);
    const unsigned nc = static_cast<unsigned>(p.cols - c0 < p.tile_cols ? p.cols - c0 : p.tile_cols);
    const unsigned char* src = p.in + in_off + c0 * p.unit_bytes;
    unsigned char* dst = p.out + out_off + r0 * p.unit_bytes;
    if constexpr (Compound) {
      __syncthreads();  // the previous tile's readers of side_off are done
      for (unsigned i = threadIdx.x; i < nr; i += threads)
        side_off[i] = p.row_map.offset(static_cast<std::uint64_t>(r0 + i));
      for (unsigned i = threadIdx.x; i < nc; i += threads)
        side_off[max_side + i] = p.col_map.offset(static_cast<std::uint64_t>(c0 + i));
      __syncthreads();
    } else {
      src += r0 * p.in_ld;
      dst += c0 * p.out_ld;
    }
    // (The tile setup above is transpose2d_wide_kernel's. A shared __forceinline__ helper returning the tile's
    // bases and extents changed that kernel's code and cost it 0.5-1 % on every 8- and 16-byte-chunk row of
    // wide_units / wide_heads, H200, same call; kept as two copies.)
    const unsigned len = nr * U, n = nc * Q;
    wide_chunk ch[P];
    unsigned char* at[P];
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const unsigned i = threadIdx.x + j * threads;
      ch[j].valid = 0;
      at[j] = nullptr;
      if (i < n) {
        const unsigned c = p.line_div.div(i);
        const unsigned q = i - c * Q;
        unsigned char* seg = dst + (Compound ? side_off[max_side + c] : static_cast<std::int64_t>(c) * p.out_ld);
        const auto phase = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(seg) & 15);
        const unsigned char* s = src + static_cast<std::int64_t>(c) * p.unit_bytes;
        ch[j] = wide_gather_chunk<W>(phase, len, q, U, p.unit_div, [&](unsigned r, unsigned byte) -> std::uint32_t {
          const std::int64_t in_row = Compound ? side_off[r] : static_cast<std::int64_t>(r) * p.in_ld;
          return __ldg(reinterpret_cast<const word*>(s + in_row + byte));
        });
        at[j] = seg - phase + 16 * q;
      }
    }
#pragma unroll
    for (int j = 0; j < P; ++j) {
      if (ch[j].valid == full) {
        *reinterpret_cast<uint4*>(at[j]) = make_uint4(ch[j].w[0], ch[j].w[1], ch[j].w[2], ch[j].w[3]);
      } else if (ch[j].valid != 0) {
#pragma unroll
        for (unsigned k = 0; k < 16 / W; ++k)
          if (ch[j].valid >> k & 1u)
            *reinterpret_cast<word*>(at[j] + k * W) = static_cast<word>(ch[j].w[k * W / 4] >> (8 * ((k * W) % 4)));
      }
    }
  }
}

}  // namespace xpose::detail
