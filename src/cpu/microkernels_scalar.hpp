// Portable micro-kernels of the CPU transpose: plain loops over blocks whose sides are compile-time
// constants, so that the compiler unrolls them completely and keeps the block in registers. No intrinsics:
// this is the `scalar` level, and the kernel of every level for unit sizes other than 1, 2, 4, 8, 16 bytes
// (microkernels_scalar.cpp wraps them as tile functions; the SIMD levels are simd_tile.hpp).
//
// Conventions shared by all kernels here: `in` points at unit (r, c) = (0, 0) of the input block, whose
// rows are `in_rs` bytes apart and whose units are contiguous along a row; `out` points at unit (0, 0) of
// the output block, whose rows (input columns) are `out_rs` bytes apart. A unit is a trivially copyable
// type W of the unit's size. Pointers may be misaligned (a user's buffer can start anywhere), so every
// access goes through memcpy, which compiles to plain unaligned loads and stores of sizeof(W) bytes and
// keeps the accesses free of aliasing UB.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>

#include "cpu/copy_bytes.hpp"

namespace xpose::detail {

/// A unit of N bytes for the sizes without a matching integer type (3-byte RGB pixels, 12-byte xyz
/// floats, 16-byte complex doubles...). Copying it copies N bytes with the fewest moves the compiler knows.
template <int N>
struct unit_bytes {
  unsigned char b[N];
};

/// Mask of the low `shift` bits of every 2 * `shift`-bit group: 32 -> 0x00000000FFFFFFFF,
/// 16 -> 0x0000FFFF0000FFFF, 8 -> 0x00FF00FF00FF00FF.
constexpr std::uint64_t low_fields(int shift) {
  std::uint64_t m = 0;
  for (int b = 0; b < 64; b += 2 * shift) m |= ((std::uint64_t{1} << shift) - 1) << b;
  return m;
}

/// One butterfly step of a transpose held in 64-bit words: swaps the `Shift`-bit fields of `a` at odd
/// field positions with the fields of `b` at even positions.
template <int Shift>
inline void swap_fields(std::uint64_t& a, std::uint64_t& b) {
  constexpr std::uint64_t mask = low_fields(Shift);
  const std::uint64_t t = ((a >> Shift) ^ b) & mask;
  a ^= t << Shift;
  b ^= t;
}

/// Transposes a K x K block of (64 / K)-bit units held in K 64-bit words (word r = row r, unit c in bits
/// [c * 64 / K, (c + 1) * 64 / K), i.e. little-endian memory order), in log2(K) butterfly stages: first
/// the off-diagonal K/2 x K/2 quadrants swap, then the quadrants' quadrants (H = K/4), down to single
/// units (H = 1). All compile-time, so that the words stay in registers:
///
///   K = 4, 16-bit units:  a b c d      a b i j      a e i m
///                         e f g h  ->  e f m n  ->  b f j n
///                         i j k l      c d k l      c g k o
///                         m n o p      g h o p      d h l p
template <int K, int H = K / 2>
inline void transpose_in_words(std::uint64_t* x) {
  if constexpr (H >= 1) {
    [x]<int... R>(std::integer_sequence<int, R...>) {
      (
          [x] {
            if constexpr ((R & H) == 0) swap_fields<H * (64 / K)>(x[R], x[R + H]);
          }(),
          ...);
    }(std::make_integer_sequence<int, K>{});
    transpose_in_words<K, H / 2>(x);
  }
}

/// Transposes an R x C block: R input rows of C units are loaded (contiguous along c), then C output rows
/// of R units stored (contiguous along r). Both dimensions are compile-time constants so that the whole
/// block lives in registers and each side's accesses are as wide as the block allows.
///
/// 8 x 8 blocks of 1- and 2-byte units on little-endian hosts move 8-byte words instead of units: the
/// block is a grid of K x K sub-blocks (K = 8 / unit bytes) that each fit K words; each sub-block is
/// transposed inside its words (transpose_in_words) and stored at the mirrored grid position. For bytes
/// that is 8 loads, 24 shift/mask steps and 8 stores instead of 64 + 64 byte accesses: 1.6x (u8) and 1.4x
/// (u16) on an L1-resident 64 x 64 tile, EPYC dev box, GCC 12 -O3. 4-byte units lose 10 % this way (one
/// stage saves less than the extra ALU work), so they keep the unit-by-unit block.
template <class W, int R, int C>
inline void transpose_block(const unsigned char* __restrict in, std::int64_t in_rs, unsigned char* __restrict out,
                            std::int64_t out_rs) {
  constexpr std::int64_t u = sizeof(W);
  if constexpr (R == 8 && C == 8 && (u == 1 || u == 2) && std::endian::native == std::endian::little) {
    constexpr int k = static_cast<int>(8 / u);  // units per word
    for (int gi = 0; gi < static_cast<int>(u); ++gi)      // sub-block row: input rows gi*k ..
      for (int gj = 0; gj < static_cast<int>(u); ++gj) {  // sub-block column: input word gj of those rows
        std::uint64_t x[k];
        for (int i = 0; i < k; ++i) std::memcpy(&x[i], in + (gi * k + i) * in_rs + gj * 8, 8);
        transpose_in_words<k>(x);
        for (int i = 0; i < k; ++i) std::memcpy(out + (gj * k + i) * out_rs + gi * 8, &x[i], 8);
      }
  } else {
    W v[R][C];
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) std::memcpy(&v[r][c], in + r * in_rs + c * u, sizeof(W));
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < R; ++r) std::memcpy(out + c * out_rs + r * u, &v[r][c], sizeof(W));
  }
}

/// A strip of `n` R x C blocks, stepping `in_step` / `out_step` bytes from one block to the next.
template <class W, int R, int C>
inline void transpose_strip(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs,
                            std::int64_t n, std::int64_t in_step, std::int64_t out_step) {
  for (std::int64_t i = 0; i < n; ++i) transpose_block<W, R, C>(in + i * in_step, in_rs, out + i * out_step, out_rs);
}

/// Calls transpose_strip<W, R, C> with R = `rows` or C = `cols` chosen at run time (the one left 0 takes
/// M): a tile's ragged bottom and right edges still get fully unrolled blocks. One switch per strip.
template <class W, int M, int... I>
inline void transpose_edge_strip(std::integer_sequence<int, I...>, int rows, int cols, const unsigned char* in,
                                 std::int64_t in_rs, unsigned char* out, std::int64_t out_rs, std::int64_t n,
                                 std::int64_t in_step, std::int64_t out_step) {
  if (rows != 0) {
    ((rows == I + 1 ? transpose_strip<W, I + 1, M>(in, in_rs, out, out_rs, n, in_step, out_step) : void()), ...);
  } else {
    ((cols == I + 1 ? transpose_strip<W, M, I + 1>(in, in_rs, out, out_rs, n, in_step, out_step) : void()), ...);
  }
}

/// Transposes an nr x nc tile of W units in M x M blocks. The bottom rows (nr % M) and right columns
/// (nc % M) run as strips of narrower compile-time blocks; only the corner where both are ragged is copied
/// unit by unit.
template <class W, int M>
inline void transpose_tile(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs,
                           std::int64_t nr, std::int64_t nc) {
  constexpr std::int64_t u = sizeof(W);
  constexpr auto edges = std::make_integer_sequence<int, M - 1>{};
  const std::int64_t full_r = nr / M * M, full_c = nc / M * M;
  const int rag_r = static_cast<int>(nr - full_r), rag_c = static_cast<int>(nc - full_c);
  // Strips run down the columns: M output rows are written from start to end of the tile before the next
  // M, so every output line is complete before it can be evicted. Row-strip order instead leaves each
  // output line half-written while the tile's other output lines pass through L1, and with power-of-two
  // strides (all lines in one cache set) it is evicted in between: 2x slower on 2048^2 fp32.
  for (std::int64_t c = 0; c < full_c; c += M)
    transpose_strip<W, M, M>(in + c * u, in_rs, out + c * out_rs, out_rs, full_r / M, M * in_rs, M * u);
  if (rag_c != 0) {  // right edge: M x rag_c blocks down the full rows
    transpose_edge_strip<W, M>(edges, 0, rag_c, in + full_c * u, in_rs, out + full_c * out_rs, out_rs, full_r / M,
                               M * in_rs, M * u);
  }
  if (rag_r == 0) return;
  // bottom edge: rag_r x M blocks along the full columns, then the rag_r x rag_c corner
  transpose_edge_strip<W, M>(edges, rag_r, 0, in + full_r * in_rs, in_rs, out + full_r * u, out_rs, full_c / M,
                             M * u, M * out_rs);
  for (std::int64_t c = full_c; c < nc; ++c)
    for (std::int64_t r = full_r; r < nr; ++r) std::memcpy(out + c * out_rs + r * u, in + r * in_rs + c * u, sizeof(W));
}

/// Rows transpose_units_by_rows prefetches ahead. Dev VM (2-core AMD EPYC), same call, 2 rounds, 1 thread vs the
/// non-temporal copy, none / 4 rows / 8 rows ahead (benchmarks/results/cpu-units-prefetch-epyc.txt): u8
/// [40,26,35,45,40] axes 0,3,1,2,4 (40-byte units) 0.262 / 0.412 / 0.454, fp16 80-byte 0.299 / 0.467 / 0.407,
/// fp32 725 x 3305 x 7 (28 bytes) 0.316 / 0.407 / 0.425, fp32 80-byte 0.317 / 0.447 / 0.410, fp64 40-byte 0.249 /
/// 0.403 / 0.454, fp32 36-byte 0.242 / 0.389 / 0.449; 9-20-byte units 0.18-0.29 -> 0.22-0.33 (4 rows); 2 threads
/// as high or higher (the VM's 2-thread copy reference varies too much between rounds to say more).
inline constexpr std::int64_t units_prefetch_rows = 4;

/// Copies unit c of tile row r to output row c, rows in order (copy(dst, src) moves one unit).
template <class Copy>
inline void transpose_units_by_rows(const unsigned char* in, std::int64_t in_rs, unsigned char* out,
                                    std::int64_t out_rs, std::int64_t nr, std::int64_t nc, std::int64_t u,
                                    const Copy& copy) {
  // The tile's rows lie a pitch apart and each is a short run (a few hundred bytes), which the hardware
  // prefetchers pick up late: the row units_prefetch_rows ahead is prefetched into L1 while a row is copied.
  constexpr std::int64_t ahead = units_prefetch_rows;
  for (std::int64_t r = 0; r < std::min(ahead, nr); ++r) prefetch_run<3>(in + r * in_rs, nc * u);
  for (std::int64_t r = 0; r < nr; ++r) {
    if (r + ahead < nr) prefetch_run<3>(in + (r + ahead) * in_rs, nc * u);
    const unsigned char* src = in + r * in_rs;
    unsigned char* dst = out + r * u;
    for (std::int64_t c = 0; c < nc; ++c) copy(dst + c * out_rs, src + c * u);
  }
}

/// Transposes an nr x nc tile of units of `words` words of type W (any unit size without a compile-time
/// kernel). Units of 8 bytes and more go a few overlapping moves each whatever the word size (16-byte moves
/// by copy_short from 16 bytes on: 28-byte units in 2 moves instead of 7; two 8-byte moves below), shorter
/// ones word by word, which beats a memcpy call per unit for the short units the planner produces.
template <class W>
inline void transpose_tile_words(const unsigned char* in, std::int64_t in_rs, unsigned char* out,
                                 std::int64_t out_rs, std::int64_t nr, std::int64_t nc, std::int64_t words) {
  constexpr std::int64_t w = sizeof(W);
  const std::int64_t u = words * w;
  // Units of 8 bytes and more: row by row, so that the input is read in order (each row's units go to as
  // many output rows, which are the L1 staging buffer's on the streaming path), each unit in one to a few
  // overlapping moves (copy_short) whatever its word size. Column by column (the output in order) read each
  // input row a unit at a time, rows apart; 9-15-byte units of 1- or 2-byte words were copied a word at a time.
  // Dev VM (AMD EPYC), 3 rounds, 1 / 2 threads vs the non-temporal copy: fp16 [40,13,35,45,40] axes 0,3,1,2,4
  // (80-byte units) 0.124 / 0.200 -> 0.309 / 0.316, u8 [40,26,35,45,40] (40-byte) 0.138 / 0.235 -> 0.194 /
  // 0.203, u8 4097 x 3001 x 23 axes 1,0,2 0.214 / 0.329 -> 0.280 / 0.451, fp64 4000 x 3000 x 5 0.211 / 0.200 ->
  // 0.214 / 0.350; fp32 x 7 (28 bytes) 0.250 / 0.409 -> 0.229 / 0.377 (c0e3a72). With 256-byte runs for 9-15-byte
  // units (tuning_cpu.hpp): u8 x 13 0.098 / 0.160 -> 0.216 / 0.354, u8 x 11 0.107 / 0.173 -> 0.198 / 0.336, fp16
  // x 7 0.128 / 0.189 -> 0.218 / 0.357, fp16 x 5 0.131 / 0.221 -> 0.175 / 0.295, u8 300 x 40000 x 9 0.096 /
  // 0.169 -> 0.165 / 0.262; against 611536d in one call (benchmarks/results/cpu-wide-units-9to15-epyc.txt) fp16 x 7
  // 0.128 / 0.188 -> 0.225 / 0.376, u8 x 13 0.098 / 0.162 -> 0.245 / 0.400, 20-80-byte units unchanged.
  // (The two copies stay separate loops: one copy_short loop for 8-byte units and up ran 20-byte units 0.05
  // slower, from code layout alone; docs/perf-notes.md.)
  if (u >= 16) {
    transpose_units_by_rows(in, in_rs, out, out_rs, nr, nc, u,
                            [u](unsigned char* d, const unsigned char* s) { copy_short(d, s, u); });
    return;
  }
  if (u >= 8) {
    transpose_units_by_rows(in, in_rs, out, out_rs, nr, nc, u, [u](unsigned char* d, const unsigned char* s) {
      std::memcpy(d, s, 8);
      std::memcpy(d + u - 8, s + u - 8, 8);
    });
    return;
  }
  for (std::int64_t c = 0; c < nc; ++c) {
    const unsigned char* src = in + c * u;
    unsigned char* dst = out + c * out_rs;
    for (std::int64_t r = 0; r < nr; ++r)
      for (std::int64_t k = 0; k < words; ++k) std::memcpy(dst + r * u + k * w, src + r * in_rs + k * w, sizeof(W));
  }
}

}  // namespace xpose::detail
