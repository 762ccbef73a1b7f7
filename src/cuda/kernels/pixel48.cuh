// pixel48 family: b x r x c -> b x c x r of units of U in {3, 6, 12, 24} bytes (RGB8, RGB16, RGB32F, RGB64F
// pixels), any alignment of pointers and pitches. Replaces gather16's shared-memory gathers one byte (RGB8)
// or one half (RGB16) at a time, which left it instruction-bound at 0.63-0.80 of memcpy on H100.
//
// A tile is T = tile_rows input rows x Tc = 192 / U columns. Three phases, as in skinny16:
//   1. stage the tile's input rows, plus a halo of ceil(16 / U) rows below it, as the aligned 16-byte chunks
//      that cover them (cp.async; bytewise only at the input's ends), unshifted: row r's byte 0 is at offset m_r (its
//      address mod 16) of its shared-memory row; outputs on the 16-byte grid meanwhile prefetch into L2 the input
//      of the tile p.prefetch_ahead on (pixel48_policy::prefetch_waves);
//   2. register permute: a micro-tile is 4 staged rows x 48 bytes (C = 48 / U columns). A thread reads its
//      12 words per row realigned by m_r (`read16`), permutes the bytes in registers (`permute_bytes`:
//      C output rows x 4 U bytes) and writes them into the output rows' buffer at logical offsets;
//   3. store: output row c owns the bytes of this tile from the 16-byte boundary of the output address at
//      or after unit r0 to the one at or after unit r0 + T (gather16's window rule: consecutive tiles
//      partition each output row at the output's 16-byte grid, hence the halo), written as aligned 16-byte
//      chunks read back from the logical buffer with the same realignment; only a row's own ends bytewise.
// grid: 1-D over tiles (column tiles fastest, then row tiles, then batch); block: pixel48_policy::threads.
#pragma once

#include <cstdint>

#include "cuda/kernels/register_permute.cuh"
#include "cuda/kernels/skinny16.cuh"
#include "cuda/kernels/transpose2d.cuh"
#include "cuda/tuning/pixel48.hpp"

namespace xpose::detail {

template <int UnitBytes>
struct pixel48_shape {
  static_assert(48 % UnitBytes == 0 && UnitBytes % 3 == 0, "units of 3, 6, 12, 24 bytes");
  static constexpr int U = UnitBytes;
  static constexpr int C = 48 / U;                                      // columns a micro-tile
  static constexpr int T = pixel48_policy::tile_rows;                    // input rows a tile owns
  static constexpr int Tc = pixel48_policy::row_bytes / U;               // input columns a tile
  static constexpr int halo = (16 + U - 1) / U;                          // rows past T the windows reach
  static constexpr int staged_rows = (T + halo + 3) / 4 * 4;             // whole micro-tiles
  static constexpr int row_chunks = pixel48_policy::row_bytes / 16 + 1;  // most chunks a staged row covers
  // Staged row pitch: 192 bytes + a chunk of shift, made an odd number of 16-byte slots so that the 8 lanes of
  // a quarter-warp (4 column pieces x 2 micro-tile rows) fall on 8 distinct bank groups.
  static constexpr int in_pitch = (pixel48_policy::row_bytes + 16) / 16 % 2 == 1 ? pixel48_policy::row_bytes + 16
                                                                                : pixel48_policy::row_bytes + 32;
  // Output row pitch: 16 bytes of front pad + the staged rows' bytes + 48 of read-ahead (phase 3 reads up to
  // 63 bytes past T U), whole groups of 4 slots (`out_slot`'s XOR stays inside the row).
  static constexpr int out_pitch = (16 + staged_rows * U + 48 + 63) / 64 * 64;
  static constexpr int store_bytes = U % 4 == 0 ? 16 : U % 2 == 0 ? 8 : 4;  // phase 2: 4 U bytes, aligned to it
  static constexpr int out_chunks = (T * U + 15) / 16 + 2;  // most chunks an output window covers
  static constexpr int micro_rows = staged_rows / 4;
  static constexpr int micro_cols = Tc / C;  // 4
  static constexpr int smem_bytes = staged_rows * in_pitch + Tc * out_pitch;
  static constexpr int threads = pixel48_policy::threads(U);
};

/// Output rows' buffer: row c's 16-byte slot s lives at slot s ^ ((c / C) & 3) of the row. Phase 2 lanes
/// take column pieces j = c / C = 0..3 fastest, rows C apart, whose stores would otherwise share bank groups
/// (the row pitch is a multiple of 64 bytes); the XOR gives each j its own slots (RGB8: 4 j x 8 micro-rows =
/// 32 lanes on 32 distinct banks).
///   [ s_hi | s_1..0 ]  ->  [ s_hi | s_1..0 ^ j_1..0 ]
template <int C>
__device__ __forceinline__ unsigned pixel48_out_byte(unsigned c, unsigned off) {
  return 16 * ((off >> 4) ^ ((c / C) & 3u)) + (off & 15u);
}

/// Phase 2's stores (also square_permute's): a permuted micro-tile `out` (output rows j C .. j C + C - 1 of 4 U
/// bytes each) into the output rows' buffer at `buf` (row c at buf + c Pitch, slots swizzled by
/// pixel48_out_byte), from byte `off` of each row, by the widest store 4 U bytes at `off` allow.
template <int U, int Pitch>
__device__ __forceinline__ void pixel48_store_micro(const std::uint32_t (&out)[48], unsigned buf, unsigned j,
                                                    unsigned off) {
  constexpr unsigned C = 48 / U;
#pragma unroll
  for (unsigned e = 0; e < C; ++e) {
    const unsigned c = j * C + e, row = buf + c * Pitch;
    if constexpr (U % 4 == 0) {  // 4 U bytes at a 16-byte aligned offset
#pragma unroll
      for (int v = 0; v < U / 4; ++v) {
        const std::uint32_t w[4] = {out[e * U + 4 * v], out[e * U + 4 * v + 1], out[e * U + 4 * v + 2],
                                    out[e * U + 4 * v + 3]};
        sts128(row + pixel48_out_byte<C>(c, off + 16 * v), w);
      }
    } else if constexpr (U % 2 == 0) {
#pragma unroll
      for (int v = 0; v < U / 2; ++v)
        asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(row + pixel48_out_byte<C>(c, off + 8 * v)),
                     "r"(out[e * U + 2 * v]), "r"(out[e * U + 2 * v + 1])
                     : "memory");
    } else {
#pragma unroll
      for (int v = 0; v < U; ++v)
        asm volatile("st.shared.b32 [%0], %1;" ::"r"(row + pixel48_out_byte<C>(c, off + 4 * v)), "r"(out[e * U + v])
                     : "memory");
    }
  }
}

template <int UnitBytes>
struct pixel48_map {
  // Output byte o of a micro-tile: output row e = o / (4 U), its byte t = o % (4 U): staged row i = t / U of
  // the micro-tile, byte b = t % U of its unit e; input rows are 48 bytes apart in the register array.
  static constexpr int source(int o) {
    return (o % (4 * UnitBytes)) / UnitBytes * 48 + (o / (4 * UnitBytes)) * UnitBytes + o % UnitBytes;
  }
};

/// OutAligned: the output's base, pitch and batch strides are 16-byte multiples. Then every output window
/// starts on the grid at the tile's first row (T U is a multiple of 16) and ends at its last: no halo rows are
/// staged, and phase 3 reads its chunks unshifted.
template <int UnitBytes, bool OutAligned>
__global__ void __launch_bounds__(pixel48_policy::threads(UnitBytes)) transpose2d_pixel48_kernel(const transpose2d_params p) {
  using S = pixel48_shape<UnitBytes>;
  constexpr int U = UnitBytes, threads = S::threads;
  static_assert(!OutAligned || S::T * U % 16 == 0, "aligned windows need tiles of whole 16-byte chunks");
  constexpr int stage_max = OutAligned ? S::T : S::T + S::halo;
  constexpr int out_chunks = OutAligned ? S::T * U / 16 : S::out_chunks;
  extern __shared__ __align__(16) unsigned char pixel48_smem[];
  const auto staged = static_cast<unsigned>(__cvta_generic_to_shared(pixel48_smem));
  const unsigned outbuf = staged + S::staged_rows * S::in_pitch;

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const tile_coords tc(p, t, S::T, S::Tc);
    const std::uint64_t in_tile = reinterpret_cast<std::uint64_t>(p.in) + tc.in_off + tc.r0 * p.in_ld + tc.c0 * U;
    const std::uint64_t out_tile = reinterpret_cast<std::uint64_t>(p.out) + tc.out_off + tc.c0 * p.out_ld;
    const std::int64_t rows_left = p.rows - tc.r0, cols_left = p.cols - tc.c0;
    const unsigned staged_rows = static_cast<unsigned>(rows_left < stage_max ? rows_left : stage_max);
    const unsigned cols = static_cast<unsigned>(cols_left < S::Tc ? cols_left : S::Tc);
    const unsigned row_len = cols * U;
    __syncthreads();  // the previous tile's phase 3 is done with both buffers

    // 1. Stage rows [r0, r0 + staged_rows), chunk q of row i at slot q of staged row i.
    for (unsigned x = threadIdx.x; x < staged_rows * S::row_chunks; x += threads) {
      const unsigned i = x / S::row_chunks, q = x - i * S::row_chunks;
      skinny16_stage_chunk<false>(in_tile + i * static_cast<std::uint64_t>(p.in_ld), row_len, staged + i * S::in_pitch, q,
                                  p.in_lo, p.in_hi);
    }
    // The input of the tile p.prefetch_ahead on (half a wave of resident blocks: a block that starts soon)
    // into L2 while this block waits for its own: its lines (at most 3 a row) spread over the threads.
    if (OutAligned && p.prefetch_ahead > 0 && t + p.prefetch_ahead < p.tiles_total) {
      const tile_coords tn(p, t + p.prefetch_ahead, S::T, S::Tc);
      const std::uint64_t in_next = reinterpret_cast<std::uint64_t>(p.in) + tn.in_off + tn.r0 * p.in_ld + tn.c0 * U;
      const std::int64_t rl = p.rows - tn.r0, cl = p.cols - tn.c0;
      const unsigned rows_n = static_cast<unsigned>(rl < stage_max ? rl : stage_max);
      const unsigned len_n = static_cast<unsigned>(cl < S::Tc ? cl : S::Tc) * U;
      for (unsigned x = threadIdx.x; x < rows_n * 3; x += threads) {
        const unsigned i = x / 3, k = x - 3 * i;
        const std::uint64_t a = in_next + i * static_cast<std::uint64_t>(p.in_ld);
        const std::uint64_t line = (a & ~std::uint64_t{127}) + 128 * k;
        if (line < a + len_n) asm volatile("prefetch.global.L2 [%0];" ::"l"(line));
      }
    }
    cp_async_wait_all();
    __syncthreads();  // staged rows visible to every thread

    // 2. Micro-tile (h, j): staged rows 4h .. 4h + 3, bytes [48 j, 48 j + 48) -> output rows j C .. j C + C - 1,
    //    bytes [4 h U, 4 h U + 4 U) of their logical buffers. Column pieces vary fastest across lanes.
    const unsigned micro_rows = (staged_rows + 3) / 4, micro_cols = (cols + S::C - 1) / S::C;
    for (unsigned x = threadIdx.x; x < micro_rows * S::micro_cols; x += threads) {
      const unsigned h = x / S::micro_cols, j = x - h * S::micro_cols;
      if (j >= micro_cols) continue;
      std::uint32_t in[48], out[4 * U * S::C / 4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const unsigned r = 4 * h + i;
        const auto m = static_cast<unsigned>((in_tile + r * static_cast<std::uint64_t>(p.in_ld)) & 15);
#pragma unroll
        for (int v = 0; v < 3; ++v) {
          std::uint32_t w[4];
          read16<false>(staged + r * S::in_pitch, 48 * j + 16 * v + m, w);
#pragma unroll
          for (int k = 0; k < 4; ++k) in[12 * i + 4 * v + k] = w[k];
        }
      }
      permute_bytes<pixel48_map<U>>(in, out);
      pixel48_store_micro<U, S::out_pitch>(out, outbuf, j, 16 + 4 * h * U);
    }
    __syncthreads();  // the output rows' buffer is complete

    // 3. Output row c's window [b0, b1), in bytes from base - phase (a 16-byte boundary), base = output row c
    //    at unit r0 (gather16's rule: b(r) = min(align16(o + r U), row end), so consecutive tiles partition it).
    const bool first_tile = tc.r0 == 0, last_tile = rows_left <= S::T;
    const unsigned span = static_cast<unsigned>(rows_left < S::T ? rows_left : S::T) * U;
    const unsigned row_rem = static_cast<unsigned>(rows_left < S::T + 16 ? rows_left : S::T + 16) * U;
    for (unsigned x = threadIdx.x; x < cols * out_chunks; x += threads) {
      const unsigned c = x / out_chunks, q = x - c * out_chunks;
      const std::uint64_t base = out_tile + c * static_cast<std::uint64_t>(p.out_ld) + static_cast<std::uint64_t>(tc.r0) * U;
      const unsigned phase = static_cast<unsigned>(base) & 15;
      const unsigned b0 = first_tile ? phase : min((phase + 15) & ~15u, phase + row_rem);
      const unsigned b1 = last_tile ? phase + span : min((phase + span + 15) & ~15u, phase + row_rem);
      const unsigned q16 = (b0 & ~15u) + 16 * q;
      const unsigned lo = q16 > b0 ? q16 : b0, hi = q16 + 16 < b1 ? q16 + 16 : b1;
      if (lo >= hi) continue;
      // Logical byte q16 - phase (>= -15) of the row: two slots and a realignment unless phase is 0.
      const unsigned off = 16 + q16 - phase, row = outbuf + c * S::out_pitch;
      std::uint32_t w[4];
      lds128(row + pixel48_out_byte<S::C>(c, off & ~15u), w);
      if (!OutAligned && (off & 15u) != 0) {
        std::uint32_t hi[4];
        lds128(row + pixel48_out_byte<S::C>(c, (off & ~15u) + 16), hi);
        const std::uint32_t lo[4] = {w[0], w[1], w[2], w[3]};
        realign(lo, hi, off & 15u, w);
      }
      store_byte_range(base - phase + q16, lo - q16, hi - q16, w);
    }
  }
}

}  // namespace xpose::detail
