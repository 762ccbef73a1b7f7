// skinny16 family: n x k <-> k x n (AoS <-> SoA, interleave / de-interleave of k planes), k in [2, 16],
// units of U in {1, 2, 4, 8, 16} bytes, any alignment of pointers and pitches.
//
// The two sides of a tile along n:
//   * the packed side, n x k with rows of k units back to back (in_ld = k U or out_ld = k U): one byte range
//     of S k U bytes for a tile of S columns;
//   * the strided side, k rows of n units (any pitch): k byte ranges of S U bytes.
// A tile moves S = `span` units along n (S U k ~ skinny16_policy::tile_bytes) in three phases, each on whole 16-byte vectors:
//   1. stage: the input's byte ranges are copied as the aligned 16-byte chunks that cover them (cp.async,
//      bytewise only for a chunk that leaves the input's bytes [in_lo, in_hi)) into shared
//      memory, unshifted ("raw": a range starting at address A lands at byte A mod 16 of its buffer);
//   2. register transpose: thread g reads micro-tile g — one 16-byte vector (V = 16 / U units) of each strided
//      row, or the k vectors of the packed side that hold the same V columns — realigning each vector from the
//      raw buffer by its range's misalignment (two aligned loads and funnel shifts, `read16`), permutes the
//      k x V units in registers (`skinny16_permute`: moves for U >= 4, `prmt` byte permutes for U = 1, 2) and
//      writes them to the output's buffer at logical offsets (aligned, 16 bytes of front pad);
//   3. store: each output range is written as the aligned 16-byte chunks of the *output address* grid, read
//      back from the logical buffer with the same realignment; a range's first and last chunk, shared with
//      the neighbouring tile or outside the output, are written bytewise (`store_byte_range`).
// So every global access is a 16-byte vector except two chunks per range, and no shared-memory access is
// narrower than 16 bytes, where `skinny` (kernels/transpose2d.cuh) gathers shared memory a unit piece at a
// time (1-byte pieces for uint8: instruction-bound at ~0.56 of memcpy on H100).
//
// The packed buffer is XOR-swizzled at 16-byte granularity (`skinny16_slot`): in phase 2 lanes step k
// vectors apart there, which would put 2-8 lanes of a quarter-warp on one bank group for even k.
// grid: 1-D over tiles (tiles along n, then batch), grid-stride loop; block: skinny16_shape::threads.
#pragma once

#include <cstdint>

#include "cuda/kernels/register_permute.cuh"
#include "cuda/kernels/transpose2d.cuh"
#include "cuda/tuning/skinny16.hpp"

namespace xpose::detail {

template <int UnitBytes, int K>
struct skinny16_shape {
  static_assert(K >= 2 && K <= skinny16_policy::max_k);
  /// Bytes of each strided row a micro-tile holds (and of the packed side: K pieces of P bytes).
  static constexpr int P = skinny16_policy::piece_bytes(UnitBytes, K);
  static constexpr int C = P / UnitBytes;                                      // columns a micro-tile
  static constexpr int row_bytes = skinny16_policy::row_bytes(K, UnitBytes);              // S U: a strided row's bytes
  static constexpr int span = row_bytes / UnitBytes;                         // S: units along n per tile
  static constexpr int micro_tiles = row_bytes / P;                          // K x C micro-tiles a tile
  static constexpr int row_chunks = row_bytes / 16 + 1;       // most 16-byte chunks a strided row's range covers
  static constexpr int packed_chunks = K * row_bytes / 16 + 1;  // and the packed range
  static constexpr int row_pitch = row_bytes + 32;       // raw (<= 15 bytes of shift) or logical (+16 pad)
  static constexpr int strided_bytes = K * row_pitch;
  static constexpr int packed_bytes = (K * row_bytes + 48 + 127) / 128 * 128;  // + pad, tail; whole swizzle groups
  static constexpr int threads_raw = (micro_tiles + 31) / 32 * 32;
  static constexpr int threads = threads_raw > skinny16_policy::max_threads   ? skinny16_policy::max_threads
                                 : threads_raw < skinny16_policy::min_threads ? skinny16_policy::min_threads
                                                                              : threads_raw;
};

/// Packed-buffer swizzle at 16-byte slots: the low 3 bits of slot s are XORed with bits [3, 6) ^ [6, 9).
/// Phase 2 lanes t = 0..7 touch slots t k + j: with bits [3, 6) alone, k = 16 put two lanes on each bank
/// group; the second term separates them. A bijection on every aligned group of 8 slots.
///   [ s_hi | s_5..3 | s_2..0 ]  ->  [ s_hi | s_5..3 | s_2..0 ^ s_5..3 ^ s_8..6 ]
__device__ __forceinline__ unsigned skinny16_slot(unsigned s) { return s ^ (((s >> 3) ^ (s >> 6)) & 7u); }

template <bool Swizzled>
__device__ __forceinline__ unsigned skinny16_byte(unsigned off) {
  return Swizzled ? 16 * skinny16_slot(off >> 4) + (off & 15u) : off;
}

__device__ __forceinline__ void lds128(unsigned addr, std::uint32_t (&w)[4]) {
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "r"(addr));
}

/// 16 bytes at byte offset `off` of a buffer of 16-byte slots (swizzled or not): one aligned load, or two and a
/// realignment.
template <bool Swizzled>
__device__ __forceinline__ void read16(unsigned base, unsigned off, std::uint32_t (&w)[4]) {
  const unsigned s = off >> 4, r = off & 15u;
  const unsigned s0 = Swizzled ? skinny16_slot(s) : s;
  if (r == 0) {
    lds128(base + 16 * s0, w);
    return;
  }
  const unsigned s1 = Swizzled ? skinny16_slot(s + 1) : s + 1;
  std::uint32_t lo[4], hi[4];
  lds128(base + 16 * s0, lo);
  lds128(base + 16 * s1, hi);
  realign(lo, hi, r, w);
}

/// A micro-tile piece of P in {8, 16} bytes at byte offset `off` (any alignment) into w[P / 4].
template <int P, bool Swizzled>
__device__ __forceinline__ void read_piece(unsigned base, unsigned off, std::uint32_t (&w)[P / 4]) {
  if constexpr (P == 16) {
    read16<Swizzled>(base, off, w);
  } else {
    if ((off & 7u) == 0) {
      asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "r"(base + skinny16_byte<Swizzled>(off)));
      return;
    }
    std::uint32_t v[4];
    read16<Swizzled>(base, off, v);
    w[0] = v[0], w[1] = v[1];
  }
}

/// A piece at a P-aligned byte offset.
template <int P, bool Swizzled>
__device__ __forceinline__ void write_piece(unsigned base, unsigned off, const std::uint32_t (&w)[P / 4]) {
  if constexpr (P == 16) {
    sts128(base + skinny16_byte<Swizzled>(off), w);
  } else {
    asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(base + skinny16_byte<Swizzled>(off)), "r"(w[0]), "r"(w[1])
                 : "memory");
  }
}

/// Phase 1, chunk q of the aligned chunks covering bytes [addr, addr + len) of the input, to slot q of the
/// raw buffer at `base`: asynchronously when the chunk lies inside the input's bytes [lo, hi) (the range's end
/// chunks then bring neighbouring bytes of the input, staged and never stored), else bytewise, range bytes
/// only. Bytewise at every range end had cost misaligned RGB rows ~40 % (2026-11-25).
template <bool Swizzled>
__device__ __forceinline__ void skinny16_stage_chunk(std::uint64_t addr, unsigned len, unsigned base, unsigned q,
                                                     std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t a0 = addr & ~std::uint64_t{15};
  if (q >= static_cast<unsigned>((addr + len - a0 + 15) >> 4)) return;
  stage_chunk16(a0 + 16 * std::uint64_t{q}, base + 16 * (Swizzled ? skinny16_slot(q) : q), lo, hi, addr, addr + len);
}

/// Phase 3, chunk q of the output's aligned grid over bytes [addr, addr + len), read from the logical buffer at
/// `base` (byte i of the range at offset 16 + i); the range's partial first and last chunks bytewise.
template <bool Swizzled>
__device__ __forceinline__ void skinny16_store_chunk(std::uint64_t addr, unsigned len, unsigned base, unsigned q) {
  const std::uint64_t a0 = addr & ~std::uint64_t{15};
  const auto m = static_cast<unsigned>(addr - a0);
  if (q >= (m + len + 15) >> 4) return;
  std::uint32_t w[4];
  read16<Swizzled>(base, 16 * (q + 1) - m, w);  // range byte 16 q - m, at logical offset 16 + that
  const unsigned end = m + len - 16 * q;       // the range's end relative to the chunk
  store_byte_range(a0 + 16 * std::uint64_t{q}, q == 0 ? m : 0u, end < 16 ? end : 16u, w);
}

/// Flat unit o of the output micro-tile <- flat unit of the input micro-tile. A micro-tile is K pieces of
/// C units; strided form: piece i = row i, C consecutive columns; packed form: the K C units of the packed
/// range, column c's K units back to back.
template <int K, int C, bool Interleave>
__host__ __device__ constexpr int skinny16_source(int o) {
  return Interleave ? (o % K) * C + o / K   // packed unit o = (column o / K, row o % K)
                    : (o % C) * K + o / C;  // row o / C, column o % C = packed unit c K + i
}

template <int K, int C, bool Interleave>
struct skinny16_byte_map {  // 1-byte units: the unit map is the byte map
  static constexpr int source(int o) { return skinny16_source<K, C, Interleave>(o); }
};

/// 4 x 4 byte transpose: o_e = (a_e, b_e, c_e, d_e) (byte e of each input, in order).
__device__ __forceinline__ void transpose4x4_bytes(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d,
                                                   std::uint32_t& o0, std::uint32_t& o1, std::uint32_t& o2,
                                                   std::uint32_t& o3) {
  const std::uint32_t ab_lo = __byte_perm(a, b, 0x5140), ab_hi = __byte_perm(a, b, 0x7362);  // a0 b0 a1 b1, a2 b2 a3 b3
  const std::uint32_t cd_lo = __byte_perm(c, d, 0x5140), cd_hi = __byte_perm(c, d, 0x7362);
  o0 = __byte_perm(ab_lo, cd_lo, 0x5410);
  o1 = __byte_perm(ab_lo, cd_lo, 0x7632);
  o2 = __byte_perm(ab_hi, cd_hi, 0x5410);
  o3 = __byte_perm(ab_hi, cd_hi, 0x7632);
}

/// The K x C micro-tile permutation in registers (every index is a compile-time constant once unrolled, so
/// the arrays stay in registers): word moves for U >= 4, one `prmt` per word for U = 2; for U = 1, 4 x 4
/// byte transposes of row quadruples when 4 divides K (2 `prmt` a word), else one `prmt` per distinct source
/// word after the first (1-3 a word).
template <int UnitBytes, int K, int P, bool Interleave>
__device__ __forceinline__ void skinny16_permute(const std::uint32_t (&in)[K * P / 4], std::uint32_t (&out)[K * P / 4]) {
  constexpr int C = P / UnitBytes, W = P / 4;  // columns, words per piece
  if constexpr (UnitBytes >= 4) {
    constexpr int UW = UnitBytes / 4;
#pragma unroll
    for (int o = 0; o < K * C; ++o)
#pragma unroll
      for (int w = 0; w < UW; ++w) out[o * UW + w] = in[skinny16_source<K, C, Interleave>(o) * UW + w];
  } else if constexpr (UnitBytes == 2) {
#pragma unroll
    for (int q = 0; q < K * W; ++q) {
      const int s0 = skinny16_source<K, C, Interleave>(2 * q), s1 = skinny16_source<K, C, Interleave>(2 * q + 1);
      const unsigned sel = (s0 % 2 ? 0x32u : 0x10u) | (s1 % 2 ? 0x7600u : 0x5400u);
      out[q] = __byte_perm(in[s0 / 2], in[s1 / 2], sel);
    }
  } else if constexpr (K % 4 == 0) {
    // Interleave: rows 4h..4h+3, word w (columns 4w..4w+3) -> packed words (4w + e) K / 4 + h.
    // De-interleave: the same four packed words -> rows 4h..4h+3, word w.
#pragma unroll
    for (int h = 0; h < K / 4; ++h)
#pragma unroll
      for (int w = 0; w < W; ++w) {
        if constexpr (Interleave) {
          transpose4x4_bytes(in[(4 * h) * W + w], in[(4 * h + 1) * W + w], in[(4 * h + 2) * W + w],
                             in[(4 * h + 3) * W + w], out[(4 * w) * K / 4 + h], out[(4 * w + 1) * K / 4 + h],
                             out[(4 * w + 2) * K / 4 + h], out[(4 * w + 3) * K / 4 + h]);
        } else {
          transpose4x4_bytes(in[(4 * w) * K / 4 + h], in[(4 * w + 1) * K / 4 + h], in[(4 * w + 2) * K / 4 + h],
                             in[(4 * w + 3) * K / 4 + h], out[(4 * h) * W + w], out[(4 * h + 1) * W + w],
                             out[(4 * h + 2) * W + w], out[(4 * h + 3) * W + w]);
        }
      }
  } else {
    static_assert(UnitBytes == 1);
    permute_bytes<skinny16_byte_map<K, C, Interleave>>(in, out);
  }
}

/// Phase 2 of one micro-tile: K pieces of P bytes read (realigned) at byte offsets in_off(j) of the buffer at
/// `src`, permuted in registers (Interleave: strided rows -> packed; else packed -> strided rows), written
/// as K pieces at the P-aligned offsets out_off(j) of the buffer at `dst`.
template <int UnitBytes, int K, int P, bool Interleave, bool SrcSwizzled, bool DstSwizzled, class InOff, class OutOff>
__device__ __forceinline__ void skinny16_micro_tile(unsigned src, InOff in_off, unsigned dst, OutOff out_off) {
  constexpr int W = P / 4;
  if constexpr (UnitBytes == 1 && K % 8 == 0 && W == 2) {
    // Bytes, k a multiple of 8, 8-byte pieces: eight rows at a time (rows 8 i .. 8 i + 7 <-> the packed words
    // of h = 2 i, 2 i + 1, which fill whole packed pieces), so a thread holds 16 words in and 16 out instead
    // of 4 k: the shared-memory accesses are asm volatile and keep their order, so loading every piece before
    // the first store kept all of them live. k = 16: 80 -> 63 registers (interleave), 58 -> 42 (deinterleave).
    // skinny16_permute's 4 x 4 transposes map packed word (4 w + e) K / 4 + h to row 4 h + e's word w; with
    // h = 2 i + hh that word is word hh of packed piece (4 w + e) K / 8 + i.
#pragma unroll
    for (int i = 0; i < K / 8; ++i) {
      std::uint32_t a[8][2], b[8][2];
#pragma unroll
      for (int r = 0; r < 8; ++r) {
        // Interleave: a[r] = strided row 8 i + r; else a[4 w + e] = packed piece (4 w + e) K / 8 + i.
        std::uint32_t w2[2];
        read_piece<P, SrcSwizzled>(src, in_off(Interleave ? 8 * i + r : r * (K / 8) + i), w2);
        a[r][0] = w2[0], a[r][1] = w2[1];
      }
#pragma unroll
      for (int hh = 0; hh < 2; ++hh)
#pragma unroll
        for (int w = 0; w < 2; ++w) {
          if constexpr (Interleave) {  // rows 4 hh .. 4 hh + 3 of the octet, word w -> packed (4 w + e), word hh
            transpose4x4_bytes(a[4 * hh][w], a[4 * hh + 1][w], a[4 * hh + 2][w], a[4 * hh + 3][w], b[4 * w][hh],
                               b[4 * w + 1][hh], b[4 * w + 2][hh], b[4 * w + 3][hh]);
          } else {  // packed (4 w + e), word hh -> rows 4 hh + e of the octet, word w
            transpose4x4_bytes(a[4 * w][hh], a[4 * w + 1][hh], a[4 * w + 2][hh], a[4 * w + 3][hh], b[4 * hh][w],
                               b[4 * hh + 1][w], b[4 * hh + 2][w], b[4 * hh + 3][w]);
          }
        }
#pragma unroll
      for (int r = 0; r < 8; ++r)
        write_piece<P, DstSwizzled>(dst, out_off(Interleave ? r * (K / 8) + i : 8 * i + r), b[r]);
    }
    return;
  }
  std::uint32_t a[K * W], b[K * W];
#pragma unroll
  for (int j = 0; j < K; ++j) {
    std::uint32_t w[W];
    read_piece<P, SrcSwizzled>(src, in_off(j), w);
#pragma unroll
    for (int h = 0; h < W; ++h) a[W * j + h] = w[h];
  }
  skinny16_permute<UnitBytes, K, P, Interleave>(a, b);
#pragma unroll
  for (int j = 0; j < K; ++j) {
    std::uint32_t w[W];
#pragma unroll
    for (int h = 0; h < W; ++h) w[h] = b[W * j + h];
    write_piece<P, DstSwizzled>(dst, out_off(j), w);
  }
}

template <int UnitBytes, int K, bool AosToSoa>
__global__ void __launch_bounds__(skinny16_shape<UnitBytes, K>::threads)
    transpose2d_skinny16_kernel(const transpose2d_params p) {
  using S = skinny16_shape<UnitBytes, K>;
  constexpr int threads = S::threads;
  __shared__ __align__(128) unsigned char strided_buf[S::strided_bytes];
  __shared__ __align__(128) unsigned char packed_buf[S::packed_bytes];
  const auto strided = static_cast<unsigned>(__cvta_generic_to_shared(strided_buf));
  const auto packed = static_cast<unsigned>(__cvta_generic_to_shared(packed_buf));
  const std::int64_t n = AosToSoa ? p.rows : p.cols;
  const std::int64_t strided_ld = AosToSoa ? p.out_ld : p.in_ld;  // bytes between the strided side's rows

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const skinny_tile st(p, t);
    const std::uint64_t in_b = st.in_b, out_b = st.out_b;
    const std::int64_t c0 = static_cast<std::int64_t>(st.tile) * S::span;
    const auto cols = static_cast<unsigned>(n - c0 < S::span ? n - c0 : S::span);
    const std::uint64_t packed_addr = (AosToSoa ? in_b : out_b) + static_cast<std::uint64_t>(c0) * K * UnitBytes;
    const std::uint64_t strided_addr = (AosToSoa ? out_b : in_b) + static_cast<std::uint64_t>(c0) * UnitBytes;
    const unsigned packed_len = cols * K * UnitBytes, row_len = cols * UnitBytes;
    __syncthreads();  // the previous tile's phase 3 is done with both buffers

    // Phase 1: stage the input raw.
    if constexpr (AosToSoa) {
      constexpr unsigned chunks = S::packed_chunks;
      for (unsigned q = threadIdx.x; q < chunks; q += threads) skinny16_stage_chunk<true>(packed_addr, packed_len, packed, q, p.in_lo, p.in_hi);
    } else {
      constexpr unsigned per_row = S::row_chunks;
      for (unsigned x = threadIdx.x; x < K * per_row; x += threads) {
        const unsigned i = x / per_row, q = x - i * per_row;
        skinny16_stage_chunk<false>(strided_addr + i * static_cast<std::uint64_t>(strided_ld), row_len,
                                    strided + i * S::row_pitch, q, p.in_lo, p.in_hi);
      }
    }
    cp_async_wait_all();
    __syncthreads();  // staged chunks visible to every thread

    // Phase 2: micro-tile g = C columns x K rows, realigned from the raw buffer, permuted, stored logically.
    constexpr int P = S::P;
    const unsigned micro = (cols + S::C - 1) / S::C;
    for (unsigned g = threadIdx.x; g < micro; g += threads) {
      if constexpr (AosToSoa) {
        const auto m = static_cast<unsigned>(packed_addr & 15);
        skinny16_micro_tile<UnitBytes, K, P, false, true, false>(
            packed, [&](int j) { return P * (g * K + j) + m; },
            strided, [&](int i) { return i * S::row_pitch + 16 + P * g; });
      } else {
        skinny16_micro_tile<UnitBytes, K, P, true, false, true>(
            strided,
            [&](int i) {
              const auto m = static_cast<unsigned>((strided_addr + i * static_cast<std::uint64_t>(strided_ld)) & 15);
              return i * S::row_pitch + P * g + m;
            },
            packed, [&](int j) { return 16 + P * (g * K + j); });
      }
    }
    __syncthreads();  // the logical output buffer is complete

    // Phase 3: write the output on its own 16-byte grid.
    if constexpr (AosToSoa) {
      constexpr unsigned per_row = S::row_chunks;
      for (unsigned x = threadIdx.x; x < K * per_row; x += threads) {
        const unsigned i = x / per_row, q = x - i * per_row;
        skinny16_store_chunk<false>(strided_addr + i * static_cast<std::uint64_t>(strided_ld), row_len,
                                    strided + i * S::row_pitch, q);
      }
    } else {
      constexpr unsigned chunks = S::packed_chunks;
      for (unsigned q = threadIdx.x; q < chunks; q += threads) skinny16_store_chunk<true>(packed_addr, packed_len, packed, q);
    }
  }
}

}  // namespace xpose::detail

namespace xpose::detail {

/// Flat batches of small matrices (b x K x n -> b x n x K or back, batch packed on both sides, n U a multiple
/// of the piece size): a tile is M whole consecutive matrices, one contiguous byte range on each side, so a
/// 16 x 16 uint8 matrix (one micro-tile) no longer makes a 256-byte tile of its own. Same three phases; both
/// buffers are flat and swizzled (micro-tiles of consecutive matrices are a matrix apart on the strided side).
/// p.matrices_per_tile = M, p.skinny_div = micro-tiles a matrix (n U / P), p.batch = the one batch axis.
template <int UnitBytes, int K, bool AosToSoa>
__global__ void __launch_bounds__(skinny16_shape<UnitBytes, K>::threads)
    transpose2d_skinny16_flat_kernel(const transpose2d_params p) {
  using S = skinny16_shape<UnitBytes, K>;
  constexpr int threads = S::threads, P = S::P;
  __shared__ __align__(128) unsigned char in_buf[S::packed_bytes];
  __shared__ __align__(128) unsigned char out_buf[S::packed_bytes];
  const auto inb = static_cast<unsigned>(__cvta_generic_to_shared(in_buf));
  const auto outb = static_cast<unsigned>(__cvta_generic_to_shared(out_buf));
  const auto row_bytes = static_cast<unsigned>((AosToSoa ? p.rows : p.cols) * UnitBytes);  // strided side's rows
  const unsigned matrix_bytes = K * row_bytes;
  const std::int64_t batch = static_cast<std::int64_t>(p.batch.extent[0].divisor);
  const std::int64_t per_tile = p.matrices_per_tile;

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const std::int64_t b0 = t * per_tile;
    const auto mats = static_cast<unsigned>(batch - b0 < per_tile ? batch - b0 : per_tile);
    const std::uint64_t in_addr = reinterpret_cast<std::uint64_t>(p.in) + static_cast<std::uint64_t>(b0) * matrix_bytes;
    const std::uint64_t out_addr = reinterpret_cast<std::uint64_t>(p.out) + static_cast<std::uint64_t>(b0) * matrix_bytes;
    const unsigned len = mats * matrix_bytes;
    __syncthreads();  // the previous tile's phase 3 is done with both buffers
    for (unsigned q = threadIdx.x; q < S::packed_chunks; q += threads) skinny16_stage_chunk<true>(in_addr, len, inb, q, p.in_lo, p.in_hi);
    cp_async_wait_all();
    __syncthreads();  // staged chunks visible to every thread

    const auto m = static_cast<unsigned>(in_addr & 15);
    const unsigned micro = mats * static_cast<unsigned>(p.skinny_div.divisor);
    for (unsigned g = threadIdx.x; g < micro; g += threads) {
      std::uint64_t cb = 0;
      const auto b = static_cast<unsigned>(p.skinny_div.divmod(g, cb));
      const unsigned strided_off = b * matrix_bytes + static_cast<unsigned>(cb) * P;  // + i row_bytes
      const unsigned packed_off = g * K * P;                                           // + j P
      if constexpr (AosToSoa) {
        skinny16_micro_tile<UnitBytes, K, P, false, true, true>(
            inb, [&](int j) { return packed_off + P * j + m; },
            outb, [&](int i) { return 16 + strided_off + i * row_bytes; });
      } else {
        skinny16_micro_tile<UnitBytes, K, P, true, true, true>(
            inb, [&](int i) { return strided_off + i * row_bytes + m; },
            outb, [&](int j) { return 16 + packed_off + P * j; });
      }
    }
    __syncthreads();  // the logical output range is complete
    for (unsigned q = threadIdx.x; q < S::packed_chunks; q += threads) skinny16_store_chunk<true>(out_addr, len, outb, q);
  }
}

}  // namespace xpose::detail
