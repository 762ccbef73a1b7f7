// skinny_odd family: n x k <-> k x n (AoS <-> SoA, batched or not) of units that are not powers of two: 3, 5,
// 6, 7, 10, 12 or 14 bytes (RGB8, 40-bit records, RGB16, 56-bit, RGB32F ...), any k, pointers and pitches of
// any alignment. Replaces skinny's (kernels/transpose2d.cuh) shared-memory gathers of one unit piece at a
// time (1-byte pieces for RGB8: 16 loads and ~40 instructions a 16-byte chunk, 0.47-0.66 of memcpy on H100).
//
// A period is lcm(U, 16) bytes: Q = 16 / gcd(U, 16) units in P = U / gcd(U, 16) 16-byte chunks (RGB8: 16
// units in 3 chunks). In shared memory each unit has a slot of G = 4, 8 or 16 bytes (the power of two >= U),
// so a unit is one aligned shared-memory access. The tile's units are kept in packed (AoS) order, unit
// m = n k + i (n along the long side from the tile's first, i < k), at byte G m + pad (m >> shift): the pads
// move units that a warp's lanes touch together off each other's banks. Lanes step ~16 / U units along an
// output row (~16 k / U slots) in AoS -> SoA's pack and k slots in SoA -> AoS's unpack, so the best spacing
// depends on U, k and the direction; the dispatcher picks it with a bank model (tuning/skinny_odd.hpp). H100,
// RGB8 2097152 x 8: 6.4 M shared-load wavefronts (8x the need) and 0.86 of memcpy with 16 bytes of pad every
// Q units, 0.96 with the model's layout.
//   1. unpack: a thread loads the P aligned chunks (P + 1 when the run is misaligned) holding Q consecutive
//      units of a contiguous input run (the packed range for AoS -> SoA, one of the k rows for SoA -> AoS),
//      realigns them by the run's byte phase (word selects and funnel shifts), spreads the units into slots
//      (compile-time `prmt`s) and stores the slots;
//   2. pack: a thread owns an aligned chunk of a contiguous output run (an output row for AoS -> SoA, the
//      packed range for SoA -> AoS) on the output's own 16-byte grid, consecutive lanes consecutive chunks (a
//      warp stores 512 contiguous bytes); it loads the slots of the units the chunk overlaps (6 for RGB8, 3-4
//      for wider units), packs their bytes back to back (compile-time `prmt`s), realigns them by the chunk's
//      unit phase and stores a 16-byte vector; only the chunks at a run's ends are written bytewise. (A
//      period a thread, P chunks, wrote 16-byte pieces 16 P bytes apart per store instruction: two to three
//      times the L2 write sectors, 0.35-0.65 of memcpy for 5- and 7-byte units.)
// Tiles (Tiled = true): a plain 2-D transpose whose input rows have any pitch, in tiles of K columns (a
// multiple of Q: each row's K units are whole periods, unpacked at the row's own phase) and `span` rows; the
// pack phase is AoS -> SoA's. Used for 5-, 7-, 10- and 14-byte units (dispatch/transpose2d.cu says why).
// Output runs follow gather16's window rule (a tile owns each output run from the 16-byte boundary at or after
// its first unit to the one at or after its last), so a tile stages a halo of units past its span.
// grid: 1-D over tiles (tiles along n, then batch), grid-stride loop; block: skinny_odd_policy::threads.
#pragma once

#include <cstdint>

#include "cuda/kernels/register_permute.cuh"
#include "cuda/kernels/transpose2d.cuh"
#include "cuda/tuning/skinny_odd.hpp"

namespace xpose::detail {

/// Compile-time view of skinny_odd_geometry (tuning/skinny_odd.hpp, which the host side and its tests use).
template <int UnitBytes>
struct skinny_odd_shape {
  static constexpr int U = UnitBytes;
  static constexpr skinny_odd_geometry geo{UnitBytes};
  static constexpr int Q = geo.q;  // units a period
  static constexpr int P = geo.p;  // 16-byte chunks a period
  static constexpr int G = geo.g;  // slot bytes
  static constexpr int GW = G / 4;
  static constexpr int log2_q = geo.log2_q;
  /// Phase 2 (one output chunk a thread): slots a chunk overlaps at most (its bytes [phi, phi + 16) of the
  /// units from its first, phi < U), and the packed words built from them before the shift by phi.
  static constexpr int chunk_slots = geo.chunk_slots();
  static constexpr int chunk_stream_words = (16 + U - 1 + 3) / 4;
  static constexpr int threads = skinny_odd_policy::threads;
  static_assert(U == 3 || U == 5 || U == 6 || U == 7 || U == 10 || U == 12 || U == 14, "skinny_odd_applies' units");
  static_assert(Q * GW <= 32 && P <= 7, "registers: at most 32 slot words and 8 chunks a thread");
};

/// Slot byte o (slot o / G, its byte o % G) <- byte of the Q units back to back (Bytes of them). A slot's
/// bytes past U take the next unit's, so that aligned runs stay plain word moves.
template <int U, int G, int Bytes>
struct skinny_odd_unpack_map {
  static constexpr int source(int o) {
    const int s = (o / G) * U + o % G;
    return s < Bytes ? s : Bytes - 1;
  }
};

/// Packed byte o (unit o / U, its byte o % U) <- byte of the slots (Slots of G bytes).
template <int U, int G, int Slots>
struct skinny_odd_pack_map {
  static constexpr int source(int o) {
    const int s = o / U;
    return s < Slots ? s * G + o % U : (Slots - 1) * G;
  }
};

/// out[i] = bytes [s + 4 i, s + 4 i + 4) of `in` (its bytes in order, zeros past its end), s < 4
/// (MaxWordShift + 1): word selects on the run-time word shift, then funnel shifts by the byte shift. No
/// indexed register arrays (no local memory).
template <int MaxWordShift, int NIn, int NOut>
__device__ __forceinline__ void skinny_odd_shift(const std::uint32_t (&in)[NIn], unsigned s, std::uint32_t (&out)[NOut]) {
  constexpr int X = NOut + 1 + MaxWordShift;
  std::uint32_t x[X];
#pragma unroll
  for (int j = 0; j < X; ++j) x[j] = j < NIn ? in[j] : 0u;
  const unsigned ws = s >> 2;
  if constexpr (MaxWordShift >= 2) {
#pragma unroll
    for (int j = 0; j + 2 < X; ++j) x[j] = (ws & 2u) != 0 ? x[j + 2] : x[j];
  }
  if constexpr (MaxWordShift >= 1) {
#pragma unroll
    for (int j = 0; j + 1 < X; ++j) x[j] = (ws & 1u) != 0 ? x[j + 1] : x[j];
  }
  const unsigned sh = 8 * (s & 3u);
#pragma unroll
  for (int i = 0; i < NOut; ++i) out[i] = __funnelshift_r(x[i], x[i + 1], sh);
}

template <int GW>
__device__ __forceinline__ void skinny_odd_sts(unsigned addr, const std::uint32_t* w) {
  if constexpr (GW == 1) {
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(w[0]) : "memory");
  } else if constexpr (GW == 2) {
    asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(addr), "r"(w[0]), "r"(w[1]) : "memory");
  } else {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
                 : "memory");
  }
}

template <int GW>
__device__ __forceinline__ void skinny_odd_lds(unsigned addr, std::uint32_t* w) {
  if constexpr (GW == 1) {
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(w[0]) : "r"(addr));
  } else if constexpr (GW == 2) {
    asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "r"(addr));
  } else {
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "r"(addr));
  }
}

/// Slot byte address of tile unit m (packed order): skinny_odd_layout's G m + pad_bytes (m >> pad_shift).
template <int UnitBytes>
struct skinny_odd_slots {
  unsigned base, pad_shift, pad_bytes;
  __device__ __forceinline__ unsigned operator()(unsigned m) const {
    return base + skinny_odd_shape<UnitBytes>::G * m + pad_bytes * (m >> pad_shift);
  }
};

/// Phase 1 for one period: the Q units of an input run that begin `psi` (< 16) bytes into the aligned chunk
/// at chunk0, loaded as aligned chunks (bytewise where they leave [lo, hi)), realigned and spread into slots.
/// Slot s goes to dst(s); when `vectors` (a uniform choice; only where Vectors allows it), the Q slots are
/// one 16-byte aligned run from dst(0), stored as 16-byte vectors.
template <int UnitBytes, bool Vectors, class Dst>
__device__ __forceinline__ void skinny_odd_unpack(std::uint64_t chunk0, unsigned psi, std::uint64_t lo, std::uint64_t hi,
                                                  bool vectors, Dst dst) {
  using S = skinny_odd_shape<UnitBytes>;
  constexpr int P = S::P, GW = S::GW;
  std::uint32_t run[4 * P];
  if (psi == 0) {  // an aligned run (a packed range at an aligned base): no realignment, no extra chunk
#pragma unroll
    for (int c = 0; c < P; ++c) {
      const uint4 v = load_chunk(chunk0 + 16 * c, lo, hi);
      run[4 * c] = v.x, run[4 * c + 1] = v.y, run[4 * c + 2] = v.z, run[4 * c + 3] = v.w;
    }
  } else {
    std::uint32_t raw[4 * (P + 1)];
#pragma unroll
    for (int c = 0; c <= P; ++c) {
      const uint4 v = load_chunk(chunk0 + 16 * c, lo, hi);
      raw[4 * c] = v.x, raw[4 * c + 1] = v.y, raw[4 * c + 2] = v.z, raw[4 * c + 3] = v.w;
    }
    skinny_odd_shift<3>(raw, psi, run);
  }
  std::uint32_t slots[S::Q * GW];
  permute_bytes<skinny_odd_unpack_map<UnitBytes, S::G, 16 * P>>(run, slots);
  if (Vectors && vectors) {
    static_assert(S::Q * GW % 4 == 0, "whole 16-byte vectors");
    const unsigned a = dst(0);
#pragma unroll
    for (int v = 0; v < S::Q * GW / 4; ++v) skinny_odd_sts<4>(a + 16 * v, slots + 4 * v);
  } else {
#pragma unroll
    for (int s = 0; s < S::Q; ++s) skinny_odd_sts<GW>(dst(s), slots + s * GW);
  }
}

/// Phase 2 for one 16-byte output chunk (the address `chunk`) whose first byte is byte `phi` of unit u0 (u0 may
/// be -1: bytes before a run's first unit are never stored): the NS slots of units u0 .. u0 + NS - 1, unit u
/// at tile unit m0 + (u - u0) step (its slot from skinny_odd_slot; units outside [0, staged) read as zeros and
/// are never stored), packed back to back, realigned by phi, written where the chunk lies in [lo, hi): one
/// 16-byte store inside the run.
template <int UnitBytes>
__device__ __forceinline__ void skinny_odd_pack(const skinny_odd_slots<UnitBytes>& slot, std::uint64_t chunk, int u0, unsigned phi,
                                                unsigned staged, int m0, int step, std::uint64_t lo, std::uint64_t hi) {
  using S = skinny_odd_shape<UnitBytes>;
  constexpr int GW = S::GW, U = UnitBytes, NS = S::chunk_slots;
  std::uint32_t slots[NS * GW];
  if (u0 >= 0 && u0 + NS <= static_cast<int>(staged)) {
#pragma unroll
    for (int s = 0; s < NS; ++s) skinny_odd_lds<GW>(slot(m0 + s * step), slots + s * GW);
  } else {
#pragma unroll
    for (int s = 0; s < NS; ++s) {
      const int u = u0 + s;
      if (u >= 0 && u < static_cast<int>(staged)) {
        skinny_odd_lds<GW>(slot(m0 + s * step), slots + s * GW);
      } else {
#pragma unroll
        for (int h = 0; h < GW; ++h) slots[s * GW + h] = 0;
      }
    }
  }
  std::uint32_t packed[S::chunk_stream_words];
  permute_bytes<skinny_odd_pack_map<U, S::G, NS>>(slots, packed);
  std::uint32_t w[4];
  skinny_odd_shift<(U - 1) / 4>(packed, phi, w);
  if (chunk >= lo && chunk + 16 <= hi) {
    *reinterpret_cast<uint4*>(chunk) = make_uint4(w[0], w[1], w[2], w[3]);
  } else if (chunk + 16 > lo && chunk < hi) {
    const std::uint64_t b = chunk > lo ? chunk : lo, e = chunk + 16 < hi ? chunk + 16 : hi;
    store_byte_range(chunk, static_cast<unsigned>(b - chunk), static_cast<unsigned>(e - chunk), w);
  }
}

/// p.skinny_span = units along n a tile owns, p.halo_rows = units along n staged past it, p.skinny_div = k,
/// p.skinny_chunks = output chunks a tile's run covers at most, p.skinny_k32 / skinny_run32: by k (Tiled: by
/// K / Q) / by skinny_chunks.
/// Tiled (AosToSoa only): a plain r x c transpose in tiles of `span` rows x K = k columns (K a multiple of Q,
/// input rows at any pitch): each input row's K units are K / Q whole periods, unpacked at the row's own phase;
/// the K output rows' runs as above. Tiles along n vary fastest, then along c (p.tiles_r), then the batch.
template <int UnitBytes, bool AosToSoa, bool Tiled = false>
__global__ void __launch_bounds__(skinny_odd_policy::threads) transpose2d_skinny_odd_kernel(const transpose2d_params p) {
  static_assert(AosToSoa || !Tiled, "tiles are transposed input rows -> output rows");
  using S = skinny_odd_shape<UnitBytes>;
  constexpr int U = UnitBytes, Q = S::Q, P = S::P, threads = S::threads;
  extern __shared__ __align__(16) unsigned char skinny_odd_smem[];
  // AoS -> SoA: the k output rows' runs, then the slots; SoA -> AoS: the slots.
  const auto k = static_cast<unsigned>(p.skinny_div.divisor);
  auto* runs = reinterpret_cast<ulonglong2*>(skinny_odd_smem);
  const skinny_odd_slots<U> slot{static_cast<unsigned>(__cvta_generic_to_shared(skinny_odd_smem)) + (AosToSoa ? 16 * k : 0),
                                 static_cast<unsigned>(p.skinny_pad_shift), static_cast<unsigned>(p.skinny_pad_bytes)};
  const bool vector_periods = p.skinny_pad_shift >= S::log2_q && p.skinny_pad_bytes % 16 == 0;
  const std::int64_t span = p.skinny_span;
  const std::int64_t n = AosToSoa ? p.rows : p.cols;
  const auto chunks_out = static_cast<unsigned>(p.skinny_chunks);
  const div32 run_div = p.skinny_run32, k_div = p.skinny_k32;

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    std::uint64_t in_b = 0, out_b = 0, tile = 0;
    unsigned k_out = k;  // output rows this tile writes
    if constexpr (Tiled) {
      std::uint64_t tc = 0;
      const std::uint64_t b = p.tiles_r.divmod(p.tiles_c.divmod(static_cast<std::uint64_t>(t), tile), tc);
      std::int64_t in_off = 0, out_off = 0;
      p.batch.offsets(b, in_off, out_off);
      const std::uint64_t c0 = tc * k;
      k_out = static_cast<unsigned>(std::min<std::int64_t>(k, p.cols - static_cast<std::int64_t>(c0)));
      in_b = reinterpret_cast<std::uint64_t>(p.in) + in_off + c0 * U;
      out_b = reinterpret_cast<std::uint64_t>(p.out) + out_off + c0 * p.out_ld;
    } else {
      const skinny_tile st(p, t);
      in_b = st.in_b, out_b = st.out_b, tile = st.tile;
    }
    const std::int64_t n0 = static_cast<std::int64_t>(tile) * span;
    const auto staged = static_cast<unsigned>(std::min<std::int64_t>(span + p.halo_rows, n - n0));  // along n
    const unsigned units = staged * k;  // tile units staged, packed order
    __syncthreads();  // the previous tile's packs are done with the slots

    if constexpr (Tiled) {
      // Phase 1: row r's K / Q periods (consecutive lanes, consecutive periods of a row), at the row's phase.
      const unsigned per_row = k / Q;
      for (unsigned x = threadIdx.x; x < staged * per_row; x += threads) {
        const unsigned r = k_div.div(x), j = x - r * per_row;
        const std::uint64_t a = in_b + (static_cast<std::uint64_t>(n0) + r) * p.in_ld;
        const auto psi = static_cast<unsigned>(a & 15);
        skinny_odd_unpack<U, true>(a - psi + 16 * P * std::uint64_t{j}, psi, p.in_lo, p.in_hi, vector_periods,
                                   [&](int s) { return slot(r * k + Q * j + s); });
      }
    } else if constexpr (AosToSoa) {
      // Phase 1: the packed input range of the tile, one period (Q units) a thread.
      const std::uint64_t a = in_b + static_cast<std::uint64_t>(n0) * k * U;
      const auto psi = static_cast<unsigned>(a & 15);
      const unsigned periods_in = (units + Q - 1) / Q;
      for (unsigned j = threadIdx.x; j < periods_in; j += threads)
        skinny_odd_unpack<U, true>(a - psi + 16 * P * std::uint64_t{j}, psi, p.in_lo, p.in_hi, vector_periods,
                                   [&](int s) { return slot(Q * j + s); });
    }
    if constexpr (AosToSoa) {
      // Each output row's run of this tile: [b0, b1) from gather16's window rule, as its first aligned chunk
      // and offsets from it (per row, so that the chunks below need no 64-bit arithmetic of their own).
      for (unsigned i = threadIdx.x; i < k_out; i += threads) {
        const std::uint64_t o = out_b + i * p.out_ld, start = o + static_cast<std::uint64_t>(n0) * U;
        const std::uint64_t row_end = o + static_cast<std::uint64_t>(n) * U;
        const std::uint64_t b0 = n0 == 0 ? o : std::min(row_end, (start + 15) & ~std::uint64_t{15});
        const std::uint64_t b1 = n0 + span >= n ? row_end : std::min(row_end, (start + span * U + 15) & ~std::uint64_t{15});
        const std::uint64_t first = b0 & ~std::uint64_t{15};
        runs[i] = make_ulonglong2(first, (b1 - first) << 32 | (b0 - first) << 16 | (first + 16 * U - start));
      }
      __syncthreads();
      // Phase 2: output row i, chunk q of its run; consecutive lanes take consecutive chunks (coalesced stores).
      for (unsigned x = threadIdx.x; x < k_out * chunks_out; x += threads) {
        const unsigned i = run_div.div(x), q = x - i * chunks_out;
        const ulonglong2 r = runs[i];
        const auto end = static_cast<unsigned>(r.y >> 32), begin = static_cast<unsigned>(r.y >> 16) & 0xffffu;
        if (16 * q >= end) continue;
        const std::uint64_t chunk = r.x + 16 * q;
        const unsigned d = (static_cast<unsigned>(r.y) & 0xffffu) + 16 * q;  // chunk - start + 16 U
        const int u0 = static_cast<int>(d / U) - 16;
        skinny_odd_pack<U>(slot, chunk, u0, d % U, staged, u0 * static_cast<int>(k) + static_cast<int>(i),
                           static_cast<int>(k), r.x + begin, r.x + end);
      }
    } else {
      // Phase 1: input row i, period j; consecutive lanes take consecutive rows (neighbouring slots).
      const unsigned periods_in = (staged + Q - 1) / Q;
      for (unsigned x = threadIdx.x; x < k * periods_in; x += threads) {
        const unsigned j = k_div.div(x), i = x - j * k;
        const std::uint64_t r = in_b + i * p.in_ld + static_cast<std::uint64_t>(n0) * U;
        const auto psi = static_cast<unsigned>(r & 15);
        skinny_odd_unpack<U, false>(r - psi + 16 * P * std::uint64_t{j}, psi, p.in_lo, p.in_hi, false,
                                    [&](int s) { return slot((Q * j + s) * k + i); });
      }
      __syncthreads();
      // Phase 2: the packed output range, one chunk a thread.
      const std::uint64_t total = static_cast<std::uint64_t>(n) * k * U;
      const std::uint64_t start = out_b + static_cast<std::uint64_t>(n0) * k * U;
      const std::uint64_t b0 = n0 == 0 ? out_b : std::min(out_b + total, (start + 15) & ~std::uint64_t{15});
      const std::uint64_t b1 = n0 + span >= n ? out_b + total
                                              : std::min(out_b + total, (start + span * k * U + 15) & ~std::uint64_t{15});
      const std::uint64_t first = b0 & ~std::uint64_t{15};
      const auto e0 = static_cast<unsigned>(first + 16 * U - start);
      for (unsigned q = threadIdx.x; q < chunks_out; q += threads) {
        const std::uint64_t chunk = first + 16 * std::uint64_t{q};
        if (chunk >= b1) break;
        const unsigned d = e0 + 16 * q;
        const int u0 = static_cast<int>(d / U) - 16;
        skinny_odd_pack<U>(slot, chunk, u0, d % U, units, u0, 1, b0, b1);
      }
    }
  }
}

}  // namespace xpose::detail
