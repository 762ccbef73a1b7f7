// Tuning of the in-place family (kernels/inplace.cuh, dispatch/inplace.cu). Plain constexpr C++: the planner
// (src/plan/inplace.cpp) sizes the workspace from the same numbers, without CUDA.
#pragma once

#include <algorithm>
#include <cstdint>

namespace xpose::detail::inplace_tuning {

/// Shared memory the plan assumes a block can stage (the 48 KiB every CUDA GPU gives without opt-in), so a
/// plan's workspace suffices on any device; the executor stages up to the device's opt-in maximum.
inline constexpr std::int64_t portable_smem_bytes = std::int64_t{48} << 10;
/// Workspace the staging modes aim for (a single longer row still gets its slot).
inline constexpr std::int64_t workspace_budget = std::int64_t{32} << 20;
/// Alignment slack added to the workspace: the executor rounds the caller's pointer up to 256 bytes.
inline constexpr std::int64_t workspace_slack = 256;
/// Column strips: widest strip, in bytes of each row's segment (a 128-byte line per row and pass).
inline constexpr std::int64_t strip_bytes_smem = 128;
/// Column strips staged in the workspace (too long for shared memory): narrower, so more blocks share it.
inline constexpr std::int64_t strip_bytes_global = 64;
/// At most this many workspace slots for column strips (one per resident block).
inline constexpr std::int64_t max_strip_slots = 256;
/// Rows are staged per block in shared memory only when there are at least this many of them; fewer, longer
/// rows are moved by all blocks together through the workspace (a copy, then a gather).
inline constexpr std::int64_t min_rows_per_block_staging = 128;

/// tile_cycles: a unit (t contiguous elements, t a divisor of gcd(rows, cols)) must hold at least this many
/// bytes, or the shape takes `shuffle`; the plan takes the largest t whose unit is at most the target.
inline constexpr std::int64_t cycle_unit_min_bytes = 64;
inline constexpr std::int64_t cycle_unit_target_bytes = 8192;
/// skinny_cycles: chunks (h rows of the short side) staged whole in shared memory, at most this many bytes
/// (with the stage's padding, within the 48 KiB every GPU gives), and the unit (h elements) the plan aims for.
inline constexpr std::int64_t skinny_chunk_bytes = std::int64_t{40} << 10;
inline constexpr std::int64_t skinny_unit_target_bytes = 2048;
/// near_square: the extra part (s x d elements) at most this many bytes (with the repitch's flags, the
/// workspace stays within the 32 MiB of the other algorithms); 8 MiB for 4-, 8-, 16-byte units, whose shuffle
/// moves whole words: H100, fp32 3001 x 4097 (13 MB of extra part) shuffle 0.434, near_square 0.380 (4097 x
/// 3001: 0.427 / 0.468), where rgb8 3001 x 4097 went 0.088 (staged_blocks) -> 0.265.
inline constexpr std::int64_t near_square_part_bytes = std::int64_t{24} << 20;
inline constexpr std::int64_t near_square_part_bytes_words = std::int64_t{8} << 20;
/// near_square's repitch: bands of this many source bytes a block (a 16-byte multiple; 256 threads x 8 loads
/// of 16 bytes), staged in shared memory whatever the row length, and blocks an SM (64 registers a thread).
inline constexpr std::int64_t repitch_band_bytes = std::int64_t{32} << 10;
inline constexpr std::int64_t repitch_blocks_per_sm = 4;
/// Bands of the repitch of rows 1 .. rows-1 (row_bytes each, src_pitch apart).
constexpr std::int64_t repitch_bands(std::int64_t src_pitch, std::int64_t row_bytes, std::int64_t rows) {
  return rows < 2 ? 0 : ((rows - 2) * src_pitch + row_bytes + repitch_band_bytes - 1) / repitch_band_bytes;
}
/// Its flags (4 bytes each in the workspace, after a 4-byte ticket): one a band up to 4096, then reused.
inline constexpr std::int64_t repitch_max_flag_slots = 4096;
constexpr std::int64_t repitch_flag_slots(std::int64_t bands) {
  return std::clamp<std::int64_t>(bands, 1, repitch_max_flag_slots);
}
/// staged: matrices of at most this many bytes are copied to the workspace (as many at a time as fit) and
/// transposed back out of place.
inline constexpr std::int64_t staged_budget_bytes = workspace_budget;
/// staged_blocks: at most this many blocks (batch x blocks a matrix; two kernel launches each).
inline constexpr std::int64_t max_staged_blocks = 1024;
/// Units a matrix at most: the planner walks every cycle (O(units) host time), and the segments (at most
/// target_cycle_segments) must stay short: each is a chain of dependent moves.
inline constexpr std::int64_t max_cycle_units = std::int64_t{1} << 18;
/// Segments of long cycles at most: the (start, end) table travels in kernel parameters (8 bytes each;
/// the 32764-byte parameter space of CUDA 12.1+ on sm_70+).
inline constexpr std::int64_t max_cycle_segments = 3840;
/// Segments the plan aims for (fewer when the cycles are short), and the workspace their saved first units
/// may take.
inline constexpr std::int64_t target_cycle_segments = 2048;
inline constexpr std::int64_t cycle_workspace_budget = std::int64_t{32} << 20;
/// Cycles of at most this many units (or more, when few segments are allowed) are found by the executors.
inline constexpr std::int64_t min_short_cycle = 16;
/// Segments hold at least this many units (the saved first units cost at most 1/8 more traffic).
inline constexpr std::int64_t min_segment_length = 8;
/// Bound on the executors' leader tests: batch x units x short_cycle index steps.
inline constexpr std::int64_t max_leader_test_steps = std::int64_t{1} << 32;

/// Largest power of two <= x (x >= 1).
constexpr std::int64_t floor_pow2(std::int64_t x) {
  std::int64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

/// Units per column strip staged in `capacity` bytes for columns of m units of `unit` bytes: the widest
/// power of two with width * unit <= strip_bytes (at least 1 unit) whose m x width strip fits; 0 when one
/// column does not fit.
constexpr std::int64_t strip_units(std::int64_t m, std::int64_t unit, std::int64_t capacity, std::int64_t strip_bytes) {
  if (m > capacity / unit) return 0;
  std::int64_t w = floor_pow2(std::max<std::int64_t>(1, strip_bytes / unit));
  while (w > 1 && m * w * unit > capacity) w /= 2;
  return w;
}

}  // namespace xpose::detail::inplace_tuning

namespace xpose::detail {

/// `square` with 16-byte vectors (1-, 4-, 8-, 16-byte units, 16-byte aligned rows; 2-byte: square_async): a square tile of
/// V * mr units a side (mr == mc), two tiles (the pair) in shared memory. Same micro-tiles as transpose2d's
/// vec16 (kernels/transpose2d.cuh).
/// prefetch: a block issues its next pair's loads before the current pair's stores (H100, 8192^2: fp16 0.925
/// -> 0.941, fp32 0.950 -> 0.952); not for 1-byte units, whose 2 x 64 registers of loads in flight then spill
/// (8192^2 0.892 -> 0.761).
template <int UnitBytes>
struct inplace_square_policy {
  static constexpr int mr = 16, mc = 16, per_thread = 1;  // 4: 64 x 64 units; 8: 32 x 32 (256 threads)
  static constexpr bool prefetch = true;
};
// 2-byte units: square_shift16's tiles (rows off the 16-byte grid); aligned rows take square_async.
template <>
struct inplace_square_policy<2> {  // 128 x 128 units, 256 threads (a pair: 64 KiB of dynamic shared memory)
  static constexpr int mr = 16, mc = 16, per_thread = 1;
  static constexpr bool prefetch = true;
};
// 256 x 256 bytes, 256 threads (16 x 16-byte register transposes; a pair: 128 KiB of dynamic shared memory,
// one block an SM). H100: 16384^2 0.896 -> 0.938, 8192^2 0.885 -> 0.890 (528 pairs: 4 a SM).
template <>
struct inplace_square_policy<1> {
  static constexpr int mr = 16, mc = 16, per_thread = 1;
  static constexpr bool prefetch = false;
};
template <>
struct inplace_square_policy<16> {  // 32 x 32 units, 256 threads x 4 micro-tiles
  static constexpr int mr = 32, mc = 32, per_thread = 4;
  static constexpr bool prefetch = true;
};

/// square_async (kernels/inplace.cuh), dispatched for 2-byte units on 16-byte aligned rows: tiles of row_chunks
/// 16-byte chunks a row (16: 128 x 128 halves, 256-byte rows), row_chunks^2 threads, min_blocks blocks an SM (a
/// pair stages 64 KiB; 128 registers). H200, same call, square_vec16 (prefetching, one block an SM at 184
/// registers: ncu DRAM 68 %) -> square_async: fp16 8192^2 0.854 -> 0.902, 16384^2 0.871 -> 0.914, 4096^2 0.869 ->
/// 0.932, 8200^2 (edge pairs) 0.695 -> 0.725, batched 64 x 1024^2 0.878 -> 0.884. Lost: tiles of 8 chunks a
/// row (64 threads, 6 or 12 blocks an SM: 8192^2 0.81 / 0.58), 3 blocks an SM (80 registers, spills: 0.81).
/// Not for 1-byte units: a 256 x 256-byte pair stages 128 KiB and takes 255 registers, one block an SM (8192^2
/// 0.816 -> 0.634); 128 x 128-byte tiles (64 threads, 4-8 blocks an SM) won at 4096^2 (0.78 -> 0.93) and lost
/// at 8192^2 and above (0.82 -> 0.37-0.61), as did a first version with two pairs in flight a block in
/// 128 x 128-byte tiles (16384^2 0.91 -> 0.80): square_vec16 keeps them.
template <int UnitBytes>
struct inplace_square_async_policy {
  static_assert(UnitBytes == 2, "2-byte units (1-byte ones measured slower; see above)");
  static constexpr int row_chunks = 16;
  static constexpr int min_blocks = 2;
};

/// square_vec8 and square_bulk8 (kernels/inplace.cuh): 1-byte units in tiles of 8 mr = 128 bytes a side, mr^2 =
/// 256 threads, one 8 x 8-byte micro-tile of each tile of a pair a thread (56-64 registers), min_blocks blocks an
/// SM. H200, same call, medians of 2 rounds (benchmarks/results/h200-u8-squares-vec8-bulk8.txt):
/// * square_bulk8 (16-byte aligned rows, tiles staged by tensor copies) against square_vec16 (256 x 256-byte
///   pairs, one block an SM): u8 8192^2 0.813 -> 0.854, 4096^2 0.78 -> 0.92, 6000^2 0.74 -> 0.89, 10000^2 0.72 ->
///   0.80, 8208^2 (edge pairs) 0.74 -> 0.83, batched 16 x 2048^2 0.86 -> 0.91, 12288^2 0.88 both; but 16384^2
///   0.906 -> 0.87: matrices of more than bulk8_max_matrix_bytes keep square_vec16. Not kept: a group order
///   (pairs of 4-16 x 4-16-tile groups, so that resident blocks share rows on both sides) and the next pair's
///   copies issued before the stores (64 KiB a block, 3 an SM): within +-0.02 of the plain one everywhere.
/// * square_vec8 (loads into registers) against square_shift16 on rows 8-byte but not 16-byte aligned: u8
///   8200^2 0.48 -> 0.74, tile_cycles' 12000 x 7000 0.22 -> 0.29. On 16-byte aligned rows it lost to square_vec16
///   where square_bulk8 does not apply (u8 16384^2 0.91 -> 0.86, 10000^2 0.73 -> 0.71, tile_cycles' 20000 x 30000
///   0.35 -> 0.32).
struct inplace_square_vec8_policy {
  static constexpr int mr = 16;
  static constexpr int min_blocks = 4;
};
/// Largest square (bytes) square_bulk8 takes; larger ones run square_vec16 (see above).
inline constexpr std::int64_t bulk8_max_matrix_bytes = std::int64_t{160} << 20;

/// square_units (kernels/inplace.cuh): 4- and 8-byte units on rows off the 16-byte grid but on their own (odd
/// sides, odd pitches), which square_words ran (one unit a lane through a padded tile). Words of two units a
/// lane (8 or 16 bytes), tiles of 64 units a side, a warp a row; 256 threads for 4-byte units (4 blocks an SM at
/// <= 64 registers), 512 for 8-byte ones (their 2 x 8 words a thread in flight at 58 registers). H200, same call
/// (benchmarks/suites/inplace_odd_squares.txt), square_words -> square_units: fp32 8191^2 0.607 -> 0.719-0.744,
/// 8190^2 (8-byte rows) 0.610 -> 0.814-0.819, 12345^2 0.616 -> 0.629-0.651, 16383^2 0.603 -> 0.655, batched
/// 64 x 1001^2 0.642 -> 0.711-0.771, 3001^2 0.75 both; tile_cycles' squares of fp32 8191 x 8193 and 7919 x 7907
/// 0.34 -> 0.37-0.38; fp64 8191^2 0.723 both, 12345^2 0.718 -> 0.756, 4097^2 0.874 -> 0.928 (fp64 tiles of 32
/// single units, 256 threads, lost: 0.72 -> 0.66). The same words for 1- and 2-byte units (4 units a lane, 128 x
/// 128-unit tiles, 512 threads) lost to square_shift16 (u8 8191^2 0.469 -> 0.241, fp16 0.572 -> 0.320: the
/// stage is written and read a unit at a time), as did fp16 in 64 x 64 tiles of 4-byte words (0.575 -> 0.310).
/// ncu (fp32 12345^2): DRAM 49 % (60 % at 8190^2), L2 hit rate 56-60 %, 4 blocks an SM (registers).
template <int UnitBytes>
struct inplace_square_units_policy {
  static_assert(UnitBytes == 4 || UnitBytes == 8, "dispatched for 4- and 8-byte units");
  static constexpr int units_a_word = 2;
  static constexpr int threads = UnitBytes == 4 ? 256 : 512, min_blocks = UnitBytes == 4 ? 4 : 2;
};
/// Dynamic shared memory of square_units: two tiles of T x (T + 1) units.
template <int UnitBytes, class Policy = inplace_square_units_policy<UnitBytes>>
constexpr std::int64_t square_units_smem() {
  constexpr std::int64_t T = 32 * Policy::units_a_word;
  return 2 * T * (T + 1) * UnitBytes;
}

/// square_shift16 (kernels/inplace.cuh): square_vec16's pairs on rows off the 16-byte grid, for the units that
/// square_words would move a byte or a half at a time. H100, 2026-11-26, same call, square_words ->
/// square_shift16: u8 8191^2 0.298 -> 0.553, u8 16383^2 0.267 -> 0.545, fp16 8191^2 0.513 -> 0.647 (with this
/// policy; 0.609 prefetching at one block an SM, 0.41-0.43 at three, which spill). Not dispatched for 4-16-byte
/// units, whose single-word square_words is as fast or faster (best bounds and prefetch per unit: fp32 8191^2
/// 0.700 -> 0.711, 12345^2 0.709 -> 0.698; fp64 8191^2 0.779 -> 0.715; c128 0.842 -> 0.846).
/// Square_vec16's 16 x 16 micro-tiles kept: 8 x 8 (64 threads, several blocks an SM) lost, u8 8191^2 0.554 ->
/// 0.478, fp16 0.647 -> 0.481 (same call).
template <int UnitBytes>
struct inplace_square_shift16_policy {
  static constexpr int min_blocks = 1;  // 1-byte: 256 threads x ~250 registers, one block an SM anyway
  static constexpr bool prefetch = false;
};
template <>
struct inplace_square_shift16_policy<2> {
  static constexpr int min_blocks = 2;  // <= 128 registers (no spill)
  static constexpr bool prefetch = false;
};

/// square_gather's tiles: T units a side, a power of two with T x unit a whole number of 16-byte chunks, a
/// pair at most square_gather_max_loads x threads chunks (the loads in flight a thread holds) and ~100 KiB of
/// shared memory: 64 up to 12-byte units (rows of 192-768 bytes), 32 up to 24 bytes, 16 up to 64. 0 above.
/// (`wide`: the wide tiles below, 64 units for 13-15 bytes, 125 KiB at most.)
/// Tile rows shorter than ~384 bytes cost much: H100, same call, 8192^2, square_gather with T = 32 -> 64 (512
/// threads): 6-byte units 0.706 -> 0.896, 12-byte 0.882 -> 0.915; T = 64 -> 32: 3-byte 0.75 -> 0.56, 5-byte
/// 0.78 -> 0.66; 12-byte T = 32 -> 16: 0.88 -> 0.62. 3-byte T = 128 (512 threads): 8192^2 0.75 -> 0.79 but
/// 4096^2 0.86 -> 0.77 (528 pairs for 264 resident blocks), so 3-byte units keep 64.
inline constexpr int square_gather_max_unit = 64;
inline constexpr int square_gather_max_loads = 12;
/// Wide tiles: 13-15-byte units get 64-unit tiles (rows of 832-960 bytes instead of 416-480) in 1024-thread
/// blocks, one an SM (7-8 loads a thread, 64 registers, no spill), where a batch has at least
/// square_gather_wide_min_pairs_per_sm pairs an SM. H100 (benchmarks/results/h100-wide-tiles-vs-300da5e.txt),
/// 32-unit tiles -> wide: 8192^2 13-byte 0.79 -> 0.82, 14-byte 0.81 -> 0.88, 15-byte 0.80 -> 0.85; 16384^2 0.78 ->
/// 0.85, 0.82 -> 0.88, 0.79 -> 0.85; but at 4096^2 (16 pairs an SM, in a probe) 13- and 15-byte lost 0.81 -> 0.76
/// and 0.83 -> 0.76, so those keep 32-unit tiles. The same 1024-thread blocks for 3-, 5-, 6-, 7-, 9-, 10- and
/// 11-byte units (64-unit tiles already) lost everywhere (5-byte 8192^2 0.78 -> 0.64, 6-byte 0.89 -> 0.77).
inline constexpr int square_gather_wide_tile = 64;
inline constexpr int square_gather_wide_threads = 1024;
inline constexpr std::int64_t square_gather_wide_min_pairs_per_sm = 32;
constexpr bool square_gather_wide_unit(int unit) { return unit >= 13 && unit <= 15; }
constexpr int square_gather_tile(int unit, bool wide = false) {
  if (wide) return square_gather_wide_unit(unit) ? square_gather_wide_tile : 0;
  return unit < 1 ? 0 : unit <= 12 ? 64 : unit <= 24 ? 32 : unit <= square_gather_max_unit ? 16 : 0;
}
/// Threads a block: 512 where a pair's chunks would need more than square_gather_max_loads a thread at 256
/// (6-12-byte units with T = 64; 6-byte: 0.886 at 256 threads, 0.892 at 512); 1024 for wide tiles.
constexpr int square_gather_threads(int unit, bool wide = false) {
  return wide ? square_gather_wide_threads : unit >= 6 && unit <= 12 ? 512 : 256;
}
/// Shared-memory row pitch of square_gather: the tile row's bytes + one 16-byte chunk.
constexpr int square_gather_pitch(int unit, bool wide = false) { return square_gather_tile(unit, wide) * unit + 16; }
/// 16-byte chunk loads a thread holds for one pair (the kernel's L: this rounded up to 4, 8 or 12).
constexpr int square_gather_loads(int unit, bool wide = false) {
  const int T = square_gather_tile(unit, wide), threads = square_gather_threads(unit, wide);
  return (2 * T * T * unit / 16 + threads - 1) / threads;
}
/// Dynamic shared memory of a square_gather block: the pair's two staged tiles (at most ~125 KiB: 15-byte
/// units in wide tiles; sm_90 lets a block opt in to 227 KiB).
constexpr std::int64_t square_gather_smem(int unit, bool wide = false) {
  return 2 * std::int64_t{square_gather_tile(unit, wide)} * square_gather_pitch(unit, wide);
}

/// square_permute (kernels/inplace.cuh), dispatched for 3-byte units (RGB8): 128-unit tiles (384-byte rows; a
/// pair stages 196 KiB, one block an SM), 512 threads (one micro-tile a thread). H100, same calls, square_gather
/// (64-unit tiles) -> square_permute: rgb8 8192^2 0.75 -> 0.87, 12288^2 0.73 -> 0.88, 6144^2 0.81 -> 0.87, but
/// 4096^2 0.85 -> 0.80 (528 pairs: 4 a block), hence min_pairs_per_sm. With 64-unit tiles (192-byte rows) it ran
/// no faster than square_gather (0.72-0.75, perf-notes). 6- and 12-byte units take square_gather's 64-unit tiles
/// (0.89 / 0.91): this kernel with 64-unit 6-byte tiles (384-byte rows, two blocks an SM) ran 0.81-0.84 there
/// (8192^2, 6144^2, 4096^2; same call).
/// Odd units of 5-15 bytes take the same pairs in 4-unit pieces (kernels/inplace.cuh): 64-unit tiles (48 for
/// 15-byte units, whose 64-unit pair would need 240 KiB), two blocks an SM where two pairs' buffers fit (5-byte
/// units). H200, same call, square_gather -> square_permute, 8192^2 / 16384^2
/// (benchmarks/results/h200-square-pieces-vs-gather.txt): 5-byte 0.676 / 0.706 -> 0.724 / 0.709, 7-byte 0.704 /
/// 0.706 -> 0.709 / 0.720, 9-byte 0.624 / 0.643 -> 0.761 / 0.774, 11-byte 0.669 / 0.696 -> 0.793 / 0.791, 13-byte
/// 0.637 / 0.661 -> 0.805 / 0.798, 15-byte 0.674 / 0.702 -> 0.737 / 0.735. Even units lost there (6-byte 0.868 /
/// 0.845 -> 0.816 / 0.803, 14-byte 0.824 / 0.850 -> 0.734 / 0.737, 10-byte 0.790 / 0.835 -> 0.823 / 0.827:
/// square_gather moves their 2-byte granules), so they keep square_gather.
struct inplace_square_permute_policy {
  static constexpr int tile(int unit) { return unit == 3 ? 128 : unit <= 13 ? 64 : 48; }
  static constexpr int threads = 512;
  static constexpr int min_blocks(int unit) { return unit == 5 ? 2 : 1; }
  static constexpr std::int64_t min_pairs_per_sm = 8;
  /// The units it runs: RGB8 and odd units of 5-15 bytes.
  static constexpr bool runs(int unit) { return unit % 2 == 1 && unit >= 3 && unit <= 15; }
};

}  // namespace xpose::detail
