// Tuning of the transpose2d family (kernels/transpose2d.cuh, dispatch/transpose2d.cu).
//
// vec16 path: a tile is (V*MR) input rows x (V*MC) input units, V = 16 / UnitBytes units per 16-byte
// vector; each thread moves `P` micro-tiles of V x V units (V 16-byte loads, a register transpose, V 16-byte
// shared-memory stores). Every tile is 16 KiB of shared memory: with <= 256 threads a block, an H100 SM keeps
// 6-8 tiles (96-128 KiB) in flight, which is what ~3 TB/s at ~1 us latency needs (HOPPER.md, METHOD.md).
// MR, MC >= 8 keep both the input row segment (16*MC bytes) and the output row segment (16*MR bytes) at
// >= 128 bytes (whole sectors) and make the XOR swizzle conflict-free (8 distinct 16-byte bank groups).
#pragma once

#include <algorithm>
#include <array>

#include "cuda/tuning/smem_banks.hpp"

namespace xpose::detail {

template <int UnitBytes>
struct transpose2d_vec16_policy;

// 128 x 128 bytes; 64 threads x 256 bytes in flight each (16 x 16 byte register transpose). H100, 8192^2
// uint8: 0.93 of memcpy; 128-thread shapes (8 x 16, 16 x 8 micro-tiles) measured the same.
template <>
struct transpose2d_vec16_policy<1> {
  static constexpr int mr = 8, mc = 8, per_thread = 1;
};
// 128 x 128 units (32 KiB); 256 threads. H100, 8192^2 fp16: 0.980 of memcpy vs 0.941 for 64 x 128 units
// with 128 threads and 0.948-0.956 for the other shapes tried (scratch policy sweep, 2026-11-22).
template <>
struct transpose2d_vec16_policy<2> {
  static constexpr int mr = 16, mc = 16, per_thread = 1;
};
// 64 x 64 units; 256 threads.
template <>
struct transpose2d_vec16_policy<4> {
  static constexpr int mr = 16, mc = 16, per_thread = 1;
};
// 32 x 64 units; 256 threads x 2 micro-tiles.
template <>
struct transpose2d_vec16_policy<8> {
  static constexpr int mr = 16, mc = 32, per_thread = 2;
};
// 32 x 32 units; 256 threads x 4 micro-tiles.
template <>
struct transpose2d_vec16_policy<16> {
  static constexpr int mr = 32, mc = 32, per_thread = 4;
};

/// shift16 path (vec16's tiles on misaligned data, kernels/transpose2d.cuh): a tile stages V MR rows x V MC
/// units but moves V (MR - 1) x V (MC - 1) (one micro-tile each way feeds the realignment), so wide shapes
/// waste less; the same 16 KiB-per-tile budget as vec16.
template <int UnitBytes>
struct transpose2d_shift16_policy : transpose2d_vec16_policy<UnitBytes> {};
// 32 x 32 units, 256 threads x 1 micro-tile. H100, fp64 8191 x 8193 / 4097 x 3001 / 7919 x 7907: 0.835 /
// 0.878 / 0.840 of memcpy vs 0.779 / 0.793 / 0.787 with vec16's 32 x 64 units x 2 micro-tiles (2026-11-23).
// Other unit sizes measured best with vec16's shapes (u8 8 x 16 and 16 x 8 micro-tiles, fp16 8 x 16,
// fp32 16 x 32 x 2: equal or worse; forcing 6 resident u8 blocks with __launch_bounds__ (168 registers
// instead of ~205, a little spilling): mixed, +0.05 on 8191 x 8193, -0.04 on 4097 x 3001).
/// shift16 for 2-byte units, always built for this many blocks an SM (<= 85 registers; 79, no spill): its
/// branch-free interior path took the default build from 72 to 116 registers (2 blocks an SM), and fp16
/// 8191 x 8193 from 0.910 to 0.893 of memcpy (H100, same call, 2026-11-26).
inline constexpr int shift16_u16_min_blocks = 3;
template <>
struct transpose2d_shift16_policy<8> {
  static constexpr int mr = 16, mc = 16, per_thread = 1;
};

/// Short tiles (vec16 / shift16 with MR = 8, MC = 32: half the rows, twice the columns, the same 256 threads
/// and shared memory) for matrices whose rows fill the default tiles' rows poorly: k x n -> n x k with k of a
/// few dozen to a few hundred units, where k rows take ceil(k / step) default tile rows (fp16 130 rows: two
/// tile rows of 120, 54 % filled). 2-byte units only (dispatch/transpose2d.cu decides by row fill and says why).
template <int UnitBytes>
struct transpose2d_short_policy {
  static constexpr int mr = 8, mc = 32, per_thread = 1;
};

/// vec8 / shift8 path (kernels/transpose2d.cuh): 8-byte chunks, MR x MC micro-tiles of V = 8 / UnitBytes rows,
/// one a thread: 256 threads, 128 x 128 bytes for 1-byte units, 64 x 64 units for 2-byte ones (dispatched only
/// for packed batches of 8-byte aligned rows: fp16 8192^2 measured 0.967 -> 0.935 against vec16 and worse on
/// misaligned shapes, where vec16 / shift16 already hold 37-50 % occupancy).
/// min_blocks 4 caps a thread at 64 registers (the 1-byte build takes 48-63, no spill): with no minimum, ptxas
/// took more and u8 8192^2 ran 0.839 instead of 0.941; 5 blocks (48 registers) gained on small batched
/// matrices (228 x 620 x 475: 0.747 -> 0.788) and lost on the rest (4097 x 6001 0.727 -> 0.715, N-d r4 n9
/// 0.647 -> 0.599), 6 (40 registers) spilled and lost everywhere.
template <int UnitBytes>
struct transpose2d_tile8_policy {
  static constexpr int mr = 16, mc = 16, min_blocks = 4;
};

/// vec8 with 512-thread tiles for 1-byte units (two blocks an SM, the same 64 registers a thread): 256 x 128
/// bytes, output runs of 256 bytes. H100, same call, vs the 256-thread tiles: u8 16384^2 0.924 -> 0.942,
/// 32768 x 4096 0.935 -> 0.947, 8192^2 0.940 -> 0.942, NCHW -> NHWC 64x1024x56x56 0.970 -> 0.981, NHWC -> NCHW
/// 0.966 -> 0.984, batched 256 x 624 x 480 0.791 -> 0.913, 64 x 1000 x 1000 0.740 -> 0.937; smaller problems
/// lose (4096^2 0.960 -> 0.933, 512 x 256 x 200 0.946 -> 0.886: half as many tiles), hence
/// vec8_wide_min_bytes. shift8 (misaligned bytes) takes them only for single matrices of that size with enough
/// rows (dispatch/transpose2d.cu); smaller ones and batches lose (4097 x 3001 0.883 -> 0.80, 228 x 620 x 475
/// 0.752 -> 0.64). 2-byte units (packed fp16 batches with 8-byte aligned rows) take 64 x 128-unit tiles only for
/// matrices of >= 20000 bytes: the measurements are in the dispatcher (dispatch/transpose2d.cu).
template <int UnitBytes>
struct transpose2d_tile8_wide_policy {
  // 1-byte units: 256 x 128 bytes (output runs of 256 bytes); 2-byte units (batches of >= 20000-byte matrices,
  // see the dispatcher): 64 x 128 units (input runs of 256 bytes).
  static constexpr int mr = UnitBytes == 1 ? 32 : 16, mc = UnitBytes == 1 ? 16 : 32, min_blocks = 2;
};
inline constexpr long long vec8_wide_min_bytes = 48ll << 20;

/// units path (kernels/transpose2d.cuh): 1-, 2-, 4- and 8-byte units on rows that are not 16-byte aligned, one
/// access a unit. 256 threads; tiles of 64 x 64 units (16 KiB of fp32), 64 input rows x 32 columns of fp64 (a
/// warp reads 256 bytes of an input row, writes 512-byte output row pieces in two passes), 16 or 8 loads in
/// flight a thread.
/// min_blocks 5 (<= 48 registers a thread; without a bound ptxas took 64 (fp32) and 53 (fp64): 4 blocks an SM).
/// H200, same call, 4 -> 5 blocks: fp32 2047 x 2049 0.936 -> 1.031, 100 x 50001 0.809 -> 1.003, batched 64 x 301
/// x 503 0.786 -> 0.879, fp64 100 x 50001 0.921 -> 0.997, 8191 x 8193 0.895 -> 0.905; 6 blocks (40 registers)
/// lost on every fp64 row (8191 x 8193 0.645), 8 spilled (0.26-0.38).
/// 1- and 2-byte units take fp32's shape (dispatched up to units_narrow_max_bytes, below).
template <int UnitBytes>
struct transpose2d_units_policy {
  static_assert(UnitBytes == 1 || UnitBytes == 2 || UnitBytes == 4, "8-byte units: the specialization below");
  static constexpr int rows = 64, cols = 64, threads = 256, min_blocks = 5;
};
template <>
struct transpose2d_units_policy<8> {
  static constexpr int rows = 64, cols = 32, threads = 256, min_blocks = 5;
};
/// 4-byte units take the units tiles on problems up to this many bytes, unit_pairs (8-byte pairs) above (H200,
/// same call, units -> unit_pairs: 2047 x 2049 (16 MiB) 1.037 -> 0.982, 64 x 301 x 503 (37 MiB) 0.879 -> 0.892,
/// 4097 x 3001 (47 MiB) 0.851 -> 0.899; dispatch/transpose2d.cu).
inline constexpr long long units_u4_max_bytes = 32ll << 20;
/// 1- and 2-byte units off the 16-byte grid take the units tiles (1 or 2 bytes a lane) on plain problems up to
/// this many bytes, where shift16's realignment and its checked edge tiles cost more than the narrow requests.
/// H200, same binary, switch off / on (benchmarks/results/h200-units-narrow-misaligned.txt), shift16 -> units<2>:
/// fp16 2047 x 2049 (8 MiB) 0.838 -> 0.974, 1919 x 1081 0.768 -> 1.179, 5003 x 777 0.778 -> 0.971, 300 x 7001
/// 0.744 -> 1.020, 519 x 1031 0.751 -> 1.288, 100 x 50001 (10 MB) 0.642 -> 0.794, 2895 x 2897 (16 MB) 0.832 ->
/// 0.879; 4097 x 3001 (25 MB) 0.861 -> 0.850, batched 64 x 301 x 503 (19 MB) 0.556 -> 0.550; larger ones lost
/// (8191 x 8193 0.874 -> 0.691, 1001 x 65537 0.805 -> 0.713), as did the N-d suite's compound fp16 rows (512 MiB:
/// r7 n12 0.684 -> 0.431), which keep shift16. shift16 / shift8 -> units<1>: u8 1000 x 999 0.384 -> 0.711, 519 x
/// 1031 0.362 -> 0.648, 300 x 7001 0.808 -> 0.827, 5003 x 777 0.818 -> 0.831, 50001 x 100 0.789 -> 0.802; 4097 x
/// 3001 0.881 -> 0.879, 4001 x 4001 0.849 -> 0.845.
inline constexpr long long units_narrow_max_bytes = 16ll << 20;
/// unit_pairs (kernels/transpose2d.cuh): 4-byte units over units_u4_max_bytes, moved as 8-byte pairs; the units
/// tiles' shape (64 x 64 units, 256 threads: 32 lanes a row, 8 rows a pass) and the same 5 blocks an SM.
struct transpose2d_unit_pairs_policy {
  static constexpr int rows = 64, cols = 64, threads = 256, min_blocks = 5;
};

/// words path (any alignment, any unit of K words): 256 threads; a tile holds at most 16 KiB of data
/// (smem_bytes), 8 loads in flight per thread. Tile shape per problem (`words_tile_shape`):
///   both sides long  -> square, side = 64 units while a unit is <= 4 bytes, 32 up to 16 bytes, 16 beyond
///   a side shorter than the square side -> that whole side, the other side as long as 16 KiB allows (<= 1024
///   rows), so n x 3 and 3 x n problems move 16 KiB per tile instead of 3/32 of a 32 x 32 tile.
struct transpose2d_words_policy {
  static constexpr int threads = 256;
  static constexpr int loads_in_flight = 8;
  static constexpr int smem_bytes = 16384;
  static constexpr int max_tile_rows = 1024;  // bounds the padding words (one per tile row)
};

struct words_tile {
  long long rows, cols;
};

/// Tile shape for a rows x cols problem of `unit_bytes` units (see transpose2d_words_policy).
inline words_tile words_tile_shape(long long rows, long long cols, long long unit_bytes) {
  const long long units = transpose2d_words_policy::smem_bytes / unit_bytes - 1;  // room for padding words
  // Units over 16 bytes reach words only with a side under 16 units: gather16 takes the rest (its 32- and
  // 64-chunk rows). The wide square words tiles that units of 20-44 bytes used before (24 x 24 units of 28 B
  // when >= 4096 of them filled the batch; 0.49-0.55 of memcpy, 40 B 0.86-0.91) lost to it everywhere.
  const long long side = unit_bytes <= 4 ? 64 : unit_bytes <= 16 ? 32 : 16;
  auto fit = [&](long long fixed) {  // the other side, given one side of `fixed` units (padding included)
    long long other = units / fixed;
    if (other > transpose2d_words_policy::max_tile_rows) other = transpose2d_words_policy::max_tile_rows;
    return other < 1 ? 1 : other;
  };
  if (cols < side && cols <= rows) {
    const long long r = fit(cols + 1);
    return {r < rows ? r : rows, cols};
  }
  if (rows < side) {
    long long c = units / (rows) - 1;
    if (c > transpose2d_words_policy::max_tile_rows) c = transpose2d_words_policy::max_tile_rows;
    return {rows, c < cols ? c : cols};
  }
  return {side, side};
}

/// gather16 path (any unit size up to 128 bytes, any alignment): square tiles of `side` units. A staged input
/// row or an output row is `row_chunks` lanes (16-byte chunk q of a row is lane q of its group), so a tile row
/// holds at most 16 * row_chunks - 30 bytes (row bytes plus up to 15 of misalignment at each end of an output
/// window); `halo` extra input rows cover the output windows' shift to 16-byte boundaries; rows have an odd
/// pitch (4 * row_chunks + 1 words) so the gathers' walks down a column spread over the banks. Units up to 16
/// bytes take half-warp rows (226 bytes: U = 1 side 140, 40.6 KB; U = 4 side 56, 15.6 KB); wider units take
/// whole-warp rows up to 30 bytes (482 bytes: 28 B side 17), two-warp rows up to 64 (994 bytes: 44 B side 22,
/// 64 B side 15) and four-warp rows beyond (2018 bytes; in 48 KiB, with staged rows only as long as a tile row
/// needs: 65 B side 26, 80 B side 24, 128 B side 15), so a tile keeps >= 15 units a side instead of 226 / U
/// (28 B: 8, 64 B: 3). Shared memory stays within the default 48 KiB of dynamic shared memory (side + halo <=
/// 156 rows, and <= 48 KiB). Units of 9-15 bytes other than 12 (run-time unit size, gathered a byte or a half at
/// a time) take whole-warp rows too: half-warp rows held only 15-25 of them (rows of 226 bytes). H100, same call
/// (benchmarks/results/h100-gather16-odd-rows-vs-382bdb9.txt), 16 -> 32 chunks: 8192^2 9-byte 0.574 -> 0.746,
/// 11-byte 0.537 -> 0.720, 13-byte 0.489 -> 0.679, 15-byte 0.482 -> 0.708; 4097 x 3001 0.50-0.59 -> 0.68-0.72;
/// batched 64 x 300 x 500 0.44-0.53 -> 0.57-0.61; 10- and 14-byte compound sides (35 x 80 matrices, fp16 x 5 and
/// x 7) 0.58 -> 0.74, 0.53 -> 0.71 (h100-gather16-even-rows-vs-d8d972e.txt; 2-D 10- and 14-byte squares take
/// skinny_odd tiles).
/// Most rows a gather16 tile stages (side + halo), and so most columns too.
inline constexpr int gather16_max_rows = 156;
/// Largest unit gather16 takes (four-warp rows hold >= 15 of them).
inline constexpr int gather16_max_unit = 128;
inline constexpr long long gather16_max_smem = 48 * 1024;

struct gather16_shape {
  long long side, halo, row_chunks, pitch_words, smem_bytes;
};

/// rows, cols: the problem's sides (units); 0 = unknown (9-15-byte units then take whole-warp rows).
inline gather16_shape gather16_tile(long long unit_bytes, long long rows = 0, long long cols = 0) {
  gather16_shape g{};
  // Units a tile row of `chunks` lanes holds (its bytes plus up to 15 of misalignment at each end).
  auto side_for = [&](long long chunks) { return (16 * chunks - 30) / (unit_bytes > 0 ? unit_bytes : 1); };
  // Whole-warp rows for 9-15-byte units (not 12) only where both sides fill a tile side of them (32-53 units): a
  // compound side of 21 units in 53-unit tiles lost 0.237 -> 0.158 (u8 3 x 2000 x 7 x 300 x 9, axes 1,3,0,2).
  const bool wide_rows = unit_bytes > 8 && unit_bytes < 16 && unit_bytes != 12 &&
                         (rows == 0 || rows >= side_for(32)) && (cols == 0 || cols >= side_for(32));
  g.row_chunks = unit_bytes <= 16 && !wide_rows ? 16 : unit_bytes <= 30 ? 32 : unit_bytes <= 64 ? 64 : 128;
  g.halo = (16 + unit_bytes - 1) / unit_bytes;
  g.pitch_words = 4 * g.row_chunks + 1;
  g.side = side_for(g.row_chunks);
  if (g.side + g.halo > gather16_max_rows) g.side = gather16_max_rows - g.halo;
  // Four-warp rows: 48 KiB bind before the row length does. Staged rows then get only the chunks a row of
  // `side` units can cover (misaligned by up to 15 bytes), not all 128 lanes' worth: 80-byte units take 24
  // a side instead of 22 (45 columns: 2 tiles instead of 3), 72-byte 25, 65-byte 26; from 96 bytes up the row
  // length binds (21 a side) and nothing changes.
  auto pitch_for = [&](long long side) { return 4 * ((side * unit_bytes + 15 + 15) / 16) + 1; };
  if (g.row_chunks == 128)
    while (g.side > 1 && (g.side + g.halo) * pitch_for(g.side) * 4 > gather16_max_smem) --g.side;
  if (g.row_chunks == 128) g.pitch_words = pitch_for(g.side);
  g.smem_bytes = (g.side + g.halo) * g.pitch_words * 4;
  return g;
}

/// Fraction of the tile slots along one side of `n` units that the side fills (tiles of `tile` units; 0 for
/// tile 0): the dispatcher's measure of how well a kernel's tiles fit a problem.
inline double tile_side_fill(long long n, long long tile) {
  return tile == 0 ? 0.0 : static_cast<double>(n) / static_cast<double>((n + tile - 1) / tile * tile);
}

/// Least fraction of the units tiles' slots a matrix must fill (sides of 16-63 units leave tiles part empty);
/// it implies sides of >= 32 rows and >= 16 (fp64) or 32 (fp32) columns.
inline constexpr double units_min_fill = 0.5;
/// The same for compound sides (N-d permutations), which otherwise run gather16's flat or square tiles: H200, fp32
/// 72[36*2] x 1334[29*46] (56 % full) lost 0.797 -> 0.618 as unit_pairs, 77[11*7] x 613 (58 %) gained 0.786 ->
/// 0.891; every measured compound side over 80 % full gained (dispatch/transpose2d.cu).
inline constexpr double units_compound_min_fill = 0.6;
/// Fraction of the units tiles' slots (transpose2d_units_policy<unit_bytes>: 1, 2 and 4 bytes share one shape)
/// a rows x cols matrix fills.
inline double units_tiles_fill(long long rows, long long cols, long long unit_bytes) {
  const long long tr = unit_bytes == 8 ? transpose2d_units_policy<8>::rows : transpose2d_units_policy<4>::rows;
  const long long tc = unit_bytes == 8 ? transpose2d_units_policy<8>::cols : transpose2d_units_policy<4>::cols;
  return tile_side_fill(rows, tr) * tile_side_fill(cols, tc);
}

/// gather16 with flat rows (the kernel's RowChunks = 0): rectangular tiles whose sides split the problem's sides
/// evenly, and the block's threads spread over (row, chunk) pairs instead of a fixed group of lanes a row, so a
/// row may span any number of chunks. For problems that square tiles fit badly: an N-d permutation whose side is
/// 63 fp32 units (7 x 3 x 3) took two 56-unit tiles, the second 7 / 56 full, and ran 0.54 of memcpy.
/// Each side takes the fewest tiles its limit allows, evenly sized: the rows side (output rows) up to
/// gather16_flat_row_bytes, the columns side (staged input rows) up to gather16_flat_tile_bytes of tile or 256
/// bytes a row, whichever is more; both within the kernel's row limit and 48 KiB of shared memory. H100, same
/// call (benchmarks/suites/gather16_fill.txt), rows 256 -> 512 bytes (35 fp64 rows in one tile instead of two
/// of 18): fp64 35 x 1200 compound 0.515 -> 0.745, 33 x 1500 0.490 -> 0.816; tiles of 16 -> 24 KiB: fp32 65 x
/// 1100 0.730 -> 0.841, 69 x 700 0.759 -> 0.857, fp64 r8 n13 0.788 -> 0.878, but 400-column sides of 63 rows
/// 0.824 -> 0.772; 32 KiB lost more there and on 700 columns (0.615 -> 0.582).
inline constexpr long long gather16_flat_row_bytes = 512;
inline constexpr long long gather16_flat_tile_bytes = 24 * 1024;
inline constexpr long long gather16_flat_min_col_bytes = 256;

struct gather16_flat_shape {
  long long tile_rows, tile_cols, halo, in_chunks, out_chunks, pitch_words, smem_bytes;
};

/// Shared memory of a flat tile: (rows + halo) staged rows of `pitch_words` words.
inline long long gather16_flat_pitch_words(long long in_chunks) {
  // Odd pitch (bank spread down a column); the row's words rounded up to 16 so that the kernel's word swizzle
  // (an XOR of the word index with up to 15) stays inside the row.
  return 16 * ((in_chunks + 3) / 4) + 1;
}

/// Units of 1-16 bytes; rows, cols >= 1.
inline gather16_flat_shape gather16_flat_tile(long long unit_bytes, long long rows, long long cols) {
  gather16_flat_shape g{};
  const long long u = unit_bytes > 0 ? unit_bytes : 1;
  rows = rows > 0 ? rows : 1;
  cols = cols > 0 ? cols : 1;
  g.halo = (16 + u - 1) / u;
  auto even_split = [](long long side, long long max_tile) {
    const long long m = max_tile > 1 ? max_tile : 1;
    const long long tiles = (side + m - 1) / m;
    return (side + tiles - 1) / tiles;
  };
  // A staged input row (tile_cols units) and an output row's window (tile_rows units) start up to 15 bytes into
  // their first chunk and end up to 15 bytes into their last: (bytes + 30) / 16 chunks (gather16_tile's rule).
  auto chunks = [&](long long units) { return (units * u + 30) / 16; };
  auto smem = [&](long long tile_cols) { return (g.tile_rows + g.halo) * gather16_flat_pitch_words(chunks(tile_cols)) * 4; };
  g.tile_rows = even_split(rows, std::min(gather16_flat_row_bytes / u, gather16_max_rows - g.halo));
  const long long min_cols = gather16_flat_min_col_bytes / u;
  long long most_cols = std::min(std::max(min_cols, gather16_flat_tile_bytes / (g.tile_rows * u)),
                                 static_cast<long long>(gather16_max_rows));
  g.tile_cols = even_split(cols, most_cols);
  while (g.tile_cols > 1 && smem(g.tile_cols) > gather16_max_smem) g.tile_cols = even_split(cols, --most_cols);
  g.in_chunks = chunks(g.tile_cols);
  g.out_chunks = chunks(g.tile_rows);
  g.pitch_words = gather16_flat_pitch_words(g.in_chunks);
  g.smem_bytes = smem(g.tile_cols);
  return g;
}


/// Flat rows where square tiles fill under 80 % of what the flat tiles fill (both sides together): a side just
/// past a square tile (63 units of 56) or a fraction of one. Other problems keep the square tiles, measured on
/// every suite.
inline bool gather16_prefers_flat(long long unit_bytes, long long rows, long long cols) {
  if (unit_bytes < 1 || unit_bytes > 16) return false;
  const gather16_shape sq = gather16_tile(unit_bytes, rows, cols);
  const gather16_flat_shape fl = gather16_flat_tile(unit_bytes, rows, cols);
  const double square = tile_side_fill(rows, sq.side) * tile_side_fill(cols, sq.side);
  const double flat = tile_side_fill(rows, fl.tile_rows) * tile_side_fill(cols, fl.tile_cols);
  return square < 0.8 * flat;
}

// ---- batched_flat: the stage's bank swizzle ----------------------------------------------------------------
//
// batched_flat stages whole matrices as raw input bytes and each lane gathers one 16-byte output chunk: the
// lanes of a warp read input rows 16 / U apart, i.e. addresses 16 / U * C * U bytes apart, which for many
// shapes meet in a few banks (u8 56 x 32: 7-way; rgb8 110 x 64: 13-way; ncu). A permutation of the 16-byte
// chunks within each aligned 128-byte group by a hash of higher address bits spreads them, but every fixed
// hash measured turns some other shape's conflict-free layout into a conflicted one (H100, same call, hash
// (7, 10) on 63 batched cases: fp64 1969 x 71 x 120 0.70 -> 0.96, u8 74898 x 56 x 32 0.67 -> 0.81, rgb8 6355
// x 110 x 64 0.39 -> 0.65, but rgb8 5266 x 144 x 59 0.82 -> 0.66, u8 10901 x 38 x 324 0.84 -> 0.72). So the
// dispatcher models the gathers of a few warps for each candidate hash, and the identity, and takes the
// cheapest.

/// The kernel's slot of staged byte `at`: at ^ (((at >> s1) ^ (at >> s2)) & 0x70) when `on`, i.e. bits 4-6 (the
/// chunk within its 128-byte group) XORed with bits s1 + 4.. and s2 + 4..: a bijection for s1, s2 >= 1 that
/// keeps every byte in its group and its offset within its chunk.
struct flat_swizzle {
  bool on = false;
  int s1 = 0, s2 = 0;
  constexpr unsigned slot(unsigned at) const { return on ? at ^ (((at >> s1) ^ (at >> s2)) & 0x70u) : at; }
};

/// Warp-wide piece loads batched_flat_wavefronts samples: two in each of six warps spread over a tile.
inline constexpr int batched_flat_sampled_loads = 12;

/// The staged byte offsets batched_flat's whole-chunk gathers read on sample warps of a tile of M matrices of
/// R x C units of U bytes (pieces of `piece` bytes), the stage starting `stage0` bytes into its first chunk and
/// the output window `out_phase` bytes past a 16-byte boundary: per sampled warp-wide load, each lane's offset
/// (edge chunks are not modelled: fewer lanes).
struct flat_gather_sample {
  std::array<std::array<unsigned, 32>, batched_flat_sampled_loads> at{};
  std::array<int, batched_flat_sampled_loads> lanes{};
};

inline flat_gather_sample batched_flat_sample(long long R, long long C, long long U, int piece, long long M,
                                              unsigned stage0, unsigned out_phase) {
  const long long S = R * C * U, RU = R * U, CU = C * U, tile = M * S;
  const long long out_chunks = (tile + out_phase + 15) / 16;
  const long long warps = (out_chunks + 31) / 32;
  const int pieces = 16 / piece;
  constexpr int samples = batched_flat_sampled_loads / 2;
  flat_gather_sample g;
  int load = 0;
  for (int k = 0; k < samples; ++k) {
    const long long w = warps * k / samples;
    for (int tp : {0, pieces / 2 + 1 < pieces ? pieces / 2 + 1 : 0}) {
      int& n = g.lanes[load];
      for (int lane = 0; lane < 32; ++lane) {
        const long long rel = 16 * (32 * w + lane) - out_phase;  // the chunk's first byte in the window
        if (rel < 0 || rel + 16 > tile) continue;
        const long long y = rel + tp * piece, mm = y / S, r = y % S, cc = r / RU, rem = r % RU;
        g.at[load][n++] = static_cast<unsigned>(stage0 + mm * S + (rem / U) * CU + cc * U + rem % U);
      }
      ++load;
    }
  }
  return g;
}

/// Shared-memory wavefronts of the sampled loads with the stage permuted by `sw`: each warp-wide load costs the
/// largest number of distinct 4-byte words one bank serves.
inline long long batched_flat_wavefronts(const flat_gather_sample& g, flat_swizzle sw) {
  long long total = 0;
  for (int load = 0; load < batched_flat_sampled_loads; ++load) {
    std::array<unsigned, 32> words{};
    const int n = g.lanes[load];
    for (int i = 0; i < n; ++i) words[i] = sw.slot(g.at[load][i]) >> 2;
    total += smem_wavefronts(words.data(), n);
  }
  return total;
}

inline long long batched_flat_wavefronts(long long R, long long C, long long U, int piece, long long M,
                                         unsigned stage0, unsigned out_phase, flat_swizzle sw) {
  return batched_flat_wavefronts(batched_flat_sample(R, C, U, piece, M, stage0, out_phase), sw);
}

/// The stage swizzle for batched_flat (see above). The hash costs ~4 instructions a piece, and conflicts only
/// matter where the shared-memory pipe binds: at ~1 wavefront a cycle an SM against ~0.44 output chunks a
/// cycle at the H100's bandwidth, from ~1.5 wavefronts a chunk (measured, same call: fp64 71 x 120 at 3.3 and
/// fp32 61 x 136 at 1.9 gained 0.65 -> 0.95 and 0.90 -> 0.97 swizzled; fp32 306 x 50 at 0.9 and rgb32f 43 x 124
/// at 0.6 lost 6 % although the model halved their conflicts). Saving under a tenth of a wavefront a piece did
/// not pay for the hash either (u8 65 x 194: 2.0 -> 1.4 a chunk, 0.71 -> 0.66).
inline flat_swizzle choose_batched_flat_swizzle(long long R, long long C, long long U, int piece, long long M,
                                                unsigned stage0, unsigned out_phase) {
  // Sampled once: the candidates only permute the same offsets.
  const flat_gather_sample sample = batched_flat_sample(R, C, U, piece, M, stage0, out_phase);
  const long long plain = batched_flat_wavefronts(sample, flat_swizzle{});
  flat_swizzle best{};
  long long best_cost = plain;
  // (s1, 24): one field, at >> 24 is 0 in any stage. The set: the winners of an exhaustive search (s1 in 2..10,
  // s2 - s1 in 2..5 or 24) over 600 random shapes, which kept 95 % of its modelled saving.
  static constexpr int candidates[][2] = {{2, 24}, {3, 24}, {4, 24}, {5, 24}, {2, 4}, {3, 6}, {4, 7},
                                          {6, 10}, {7, 11}, {8, 10}, {8, 12}, {9, 11}, {9, 13}, {10, 12}};
  for (const auto& c : candidates) {
    const flat_swizzle sw{true, c[0], c[1]};
    const long long cost = batched_flat_wavefronts(sample, sw);
    if (cost < best_cost) best_cost = cost, best = sw;
  }
  // The model's cost is a sum over batched_flat_sampled_loads warp-wide loads of one piece each; a chunk takes
  // 16 / piece of them, each shared by 32 chunks: wavefronts a chunk = cost * (16 / piece) / (32 * loads).
  const double per_chunk = 16.0 / piece / (32.0 * batched_flat_sampled_loads);
  const bool binding = plain * per_chunk >= 1.5;
  const bool pays = (plain - best_cost) * per_chunk >= 0.1 * (16.0 / piece);
  return binding && pays ? best : flat_swizzle{};
}

}  // namespace xpose::detail
