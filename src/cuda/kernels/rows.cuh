// rows family: a batch of contiguous rows gathered from one strided view into another (the fastest axis is
// the same on both sides, so every access is already coalesced; no shared memory).
//
// * rows_kernel<VecBytes>: flattened over (row, chunk) with 64-bit indices and precomputed divisors
//   (`fast_divmod`), chunks of VecBytes in {1, 2, 4, 8, 16} bytes: the dispatcher picks the widest size
//   dividing the row length, both base pointers and every batch stride. grid: 1-D, grid-stride loop.
// * rows_shift16_kernel: rows whose length, pointers or strides are not 16-byte multiples (1252-byte fp32
//   rows: 4-byte chunks reached 0.45 of memcpy on H100). A thread writes aligned 16-byte chunks of an output
//   row (in pieces at the row's two ends), each from the two aligned input chunks that cover its bytes (whole
//   chunks anywhere inside the input, bytewise only at its ends), realigned in registers (`realign`);
//   neighbouring threads load overlapping chunks, which the L1 serves.
//   Flattened over (row, chunk) up to rows_flat_max_chunks, a warp a row (or a segment of one, when rows are
//   few) above. grid: 1-D, grid-stride loop.
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
  std::uint64_t row_bytes;     // rows_shift16_kernel
  std::uint64_t rows;          // rows_shift16_kernel
  std::uint64_t total_chunks;  // rows x chunks_per_row
  std::uint64_t in_lo, in_hi;  // rows_shift16_kernel: the input's bytes, [first, past the last) of the view
  std::uint64_t segment_chunks;  // rows_shift16_kernel<true>: chunks a warp takes of a row
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

/// Output chunk q of a row copy: row bytes [16 q - m_out, 16 q - m_out + 16) (m_out = out_row mod 16) from the
/// two aligned input chunks that cover them, realigned; stores in pieces at the row's ends, none outside the
/// row. The loads are whole 16-byte chunks wherever they stay inside the input's bytes [lo, hi) (a row's end
/// chunks cover neighbouring rows' bytes, read and dropped), bytewise only at the ends of the input:
/// bytewise loads at every row end cost 200-byte fp16 rows 0.39 of memcpy on the H100 (2026-11-25).
__device__ __forceinline__ void rows_shift16_chunk(std::uint64_t in_row, std::uint64_t out_row, std::uint64_t len,
                                                   std::uint64_t q, std::uint64_t lo, std::uint64_t hi) {
  const auto m_out = static_cast<unsigned>(out_row & 15);
  const std::uint64_t src = in_row + 16 * q - m_out;  // below in_row for q = 0: bytes not stored
  const std::uint64_t a = src & ~std::uint64_t{15};
  const auto d = static_cast<unsigned>(src & 15);
  std::uint32_t w[4];
  const uint4 v0 = a >= lo && a + 16 <= hi ? __ldg(reinterpret_cast<const uint4*>(a)) : load_chunk(a, lo, hi);
  if (d == 0) {
    w[0] = v0.x, w[1] = v0.y, w[2] = v0.z, w[3] = v0.w;
  } else {
    const uint4 v1 = a + 16 >= lo && a + 32 <= hi ? __ldg(reinterpret_cast<const uint4*>(a + 16))
                                                   : load_chunk(a + 16, lo, hi);
    const std::uint32_t lo[4] = {v0.x, v0.y, v0.z, v0.w}, hi[4] = {v1.x, v1.y, v1.z, v1.w};
    realign(lo, hi, d, w);
  }
  const std::uint64_t end = m_out + len - 16 * q;  // the row's end relative to the chunk
  store_byte_range(out_row - m_out + 16 * q, q == 0 ? m_out : 0u, end < 16 ? static_cast<unsigned>(end) : 16u, w);
}

/// PerRow: a warp a segment of a row (lanes take chunks q, q + 32, ... of its p.segment_chunks), for rows of
/// more than rows_flat_max_chunks; otherwise flattened over (row, chunk) with the worst phase's chunk count a
/// row, so short rows leave no lanes idle. A segment is the whole row unless there are too few rows to give
/// every SM's warps work (H100, 380 rows of 176490 bytes: 0.24 of memcpy with a warp a row, 0.94 in
/// segments of 128 chunks). Flattened up to 64 chunks: 344-byte fp64 rows 0.56 -> 0.80 against a warp a row
/// (2026-11-25).
inline constexpr std::uint64_t rows_flat_max_chunks = 64;
inline constexpr std::uint64_t rows_segment_chunks = 128;

template <bool PerRow>
__global__ void __launch_bounds__(rows_threads) rows_shift16_kernel(const rows_params p) {
  const std::uint64_t len = p.row_bytes;
  const std::uint64_t thread = static_cast<std::uint64_t>(blockIdx.x) * rows_threads + threadIdx.x;
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * rows_threads;
  if constexpr (PerRow) {
    // total_chunks = rows x segments (chunks_per_row divides by the segments a row).
    for (std::uint64_t w = thread / 32; w < p.total_chunks; w += threads / 32) {
      std::uint64_t seg = 0;
      const std::uint64_t r = p.chunks_per_row.divmod(w, seg);
      std::int64_t in_off = 0, out_off = 0;
      p.batch.offsets(r, in_off, out_off);
      const std::uint64_t in_row = reinterpret_cast<std::uint64_t>(p.in) + in_off;
      const std::uint64_t out_row = reinterpret_cast<std::uint64_t>(p.out) + out_off;
      const std::uint64_t chunks = ((out_row & 15) + len + 15) / 16;
      const std::uint64_t q_end = std::min(chunks, (seg + 1) * p.segment_chunks);
      for (std::uint64_t q = seg * p.segment_chunks + threadIdx.x % 32; q < q_end; q += 32)
        rows_shift16_chunk(in_row, out_row, len, q, p.in_lo, p.in_hi);
    }
  } else {
    for (std::uint64_t i = thread; i < p.total_chunks; i += threads) {
      std::uint64_t q = 0;
      const std::uint64_t r = p.chunks_per_row.divmod(i, q);
      std::int64_t in_off = 0, out_off = 0;
      p.batch.offsets(r, in_off, out_off);
      const std::uint64_t out_row = reinterpret_cast<std::uint64_t>(p.out) + out_off;
      if (16 * q >= (out_row & 15) + len) continue;  // this row's phase needs one chunk fewer
      rows_shift16_chunk(reinterpret_cast<std::uint64_t>(p.in) + in_off, out_row, len, q, p.in_lo, p.in_hi);
    }
  }
}

}  // namespace xpose::detail
