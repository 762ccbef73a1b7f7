// The CPU transpose's tiling policy: a plain aggregate chosen by a closed-form heuristic from the plan, the
// micro-kernel's block and the host's cache sizes. No autotuning: every constant says where it came from.
//
// Measurements cited here: the project's 2-core dev VM (AMD EPYC Zen 5, AVX-512, 48 KiB L1d, 1 MiB L2 per
// core, 32 MiB L3, 4 KiB pages; a non-temporal copy moves ~48 GB/s (read + write) on 1 thread, the same on 2)
// with fp32 8192^2, fp32 8191x8193, fp64 4096^2 and uint8 8192^2 transposes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <ostream>

#include "cpu/cpu_features.hpp"

namespace xpose::detail {

/// v rounded up to a multiple of m (m >= 1).
constexpr std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

/// How cpu_transpose2d walks a plane.
///
/// Cached (`streaming == false`): square-ish tiles of `tile_r` x `tile_c` units that fit L1, visited row of
/// tiles by row of tiles, every unit stored straight to the output.
///
/// Streaming (`streaming == true`, output much larger than the last-level cache): tiles of `tile_r` input
/// rows x `tile_c` input columns, visited down each panel of `tile_c` columns (so every output row is written
/// front to back); inside a tile, strips of `strip` output rows are transposed into an L1 staging buffer and
/// copied out as whole, aligned 64-byte lines with non-temporal stores. Each output line is written once,
/// whole, by exactly one tile — no read-for-ownership, no partial lines — whatever the output's alignment.
/// The next tile's input is software-prefetched into L2 while the current one is transposed.
struct transpose_tuning {
  bool streaming = false;
  std::int64_t tile_r = 1;  ///< input rows per tile (units along an output row)
  std::int64_t tile_c = 1;  ///< input columns per tile (output rows per tile)
  std::int64_t strip = 1;   ///< streaming: output rows per staging strip (a multiple of the block's columns)
  std::int64_t stage_rs = 0;  ///< streaming: bytes per staging row (strip x stage_rs <= staging_bytes)

  friend bool operator==(const transpose_tuning&, const transpose_tuning&) = default;
  friend std::ostream& operator<<(std::ostream& os, const transpose_tuning& t) {
    return os << (t.streaming ? "streaming" : "cached") << " tiles " << t.tile_r << " x " << t.tile_c
              << " strip " << t.strip << " stage_rs " << t.stage_rs;
  }
};

/// Bytes of the per-thread staging buffer (streaming): a strip of output rows, each one tile row long plus one
/// line of slack. 32 KiB stays inside any L1d of the last decade (32-48 KiB) next to the input block.
inline constexpr std::int64_t staging_bytes = std::int64_t{32} << 10;

/// Streaming from outputs of one L2 on. It was "at least the last-level cache", so that plain stores would
/// keep smaller results cached for whoever reads them next; but data that is not already in cache makes the
/// cached path 2-3x slower than streaming (write-allocate reads and evictions through L3), and that is the
/// case xpose-bench measures (buffers rotated below 4x the last-level cache). AVX-512 EPYC (2 cores, 1 MiB
/// L2, 32 MiB L3), 2 threads vs the non-temporal copy: fp32 2500^2 0.32 -> 0.70, u8 4096^2 0.16 -> 0.57,
/// fp16 3536^2 0.17 -> 0.64, fp64 1768^2 0.45 -> 0.94, fp32 512^2 (1 MiB) 0.42 -> 0.68; rows larger than
/// the L3 unchanged.
inline bool use_streaming(std::int64_t out_bytes, std::int64_t out_row_bytes, const cpu_caches& caches) {
  switch (cpu_streaming_mode()) {
    case streaming_mode::never: return false;
    case streaming_mode::always: return true;
    case streaming_mode::automatic: break;
  }
  // Rows shorter than 4 lines leave most lines shared between two rows: nothing to stream whole.
  return out_bytes >= caches.l2 && out_row_bytes >= 256;
}

/// Row gathers (macrokernel_rows.cpp: a permutation that keeps its fastest axis, each batch index one run of
/// `run_bytes`) stream their runs' whole output lines with non-temporal stores, the partial lines at a run's
/// ends stored plainly, when the output streams (use_streaming) and the runs are at least rows_stream_min_bytes
/// long, or whole half-lines (a multiple of 32 bytes) from rows_stream_min_half_lines on. Plain stores read
/// every output line first (write-allocate). Dev VM (2-core AMD EPYC, AVX-512), same call, 2-3 rounds, 1 / 2
/// threads vs the non-temporal copy (benchmarks/results/cpu-rows-streamed-epyc.txt), plain -> streamed, fp32
/// rows: 2 KiB 0.643 / 0.696 -> 0.635 / 0.762, 1252 B 0.568 / 0.680 -> 0.710 / 0.784, 608 B 0.531 / 0.616 ->
/// 0.768 / 0.776, 1000 B 0.599 / 0.650 -> 0.752 / 0.787, 3000 B 0.549 / 0.639 -> 0.617 / 0.767, 256 B 0.528 /
/// 0.568 -> 0.561 / 0.783, 160 B 0.536 / 0.621 -> 0.576 / 0.792, 224 B 0.559 / 0.606 -> 0.685 / 0.785; fp64 4
/// KiB 0.566 / 0.722 -> 0.669 / 0.829, fp16 1100 B 0.572 / 0.657 -> 0.666 / 0.809, u8 512 B 0.579 / 0.636 ->
/// 0.652 / 0.787. Shorter runs whose ends fall at other phases of the line lost, badly on one thread: 136 B
/// 0.459 / 0.557 -> 0.231 / 0.412, 176 B 0.536 / 0.629 -> 0.297 / 0.522, 200 B 0.545 / 0.617 -> 0.285 / 0.500,
/// 208 B 0.551 / 0.607 -> 0.337 / 0.600, 240 B 0.555 / 0.587 -> 0.387 / 0.676, 400 B 0.603 / 0.607 -> 0.549 /
/// 0.778 (why is open: each run then ends in two partial lines at shifting phases); 96 and 128 B unchanged.
/// (The thirtieth session's runs gathered through an L1 stage and streamed from it lost on one thread.)
inline constexpr std::int64_t rows_stream_min_bytes = 512;
inline constexpr std::int64_t rows_stream_min_half_lines = 128;
inline bool rows_stream(std::int64_t run_bytes, std::int64_t out_bytes, const cpu_caches& caches) {
  const bool long_runs = run_bytes >= rows_stream_min_bytes;
  const bool half_lines = run_bytes >= rows_stream_min_half_lines && run_bytes % 32 == 0;
  // The output is one range that the runs fill: its "rows" are as long as the runs together.
  return (long_runs || half_lines) && use_streaming(out_bytes, std::max<std::int64_t>(run_bytes, 256), caches);
}

/// The policy for a plane of rows x cols units of `unit` bytes, with a micro-kernel block of
/// block_r x block_c units.
inline transpose_tuning choose_transpose_tuning(std::int64_t rows, std::int64_t cols, std::int64_t unit,
                                                std::int64_t block_r, std::int64_t block_c, bool streaming,
                                                const cpu_caches& caches, std::int64_t in_row_bytes = 0,
                                                cpu_vendor vendor = host_cpu_vendor()) {
  transpose_tuning t;
  t.streaming = streaming;
  if (!streaming) {
    // Square tile of at most 32 KiB (1 B units: 128, 4 B: 64, 16 B: 32), measured on the dev VM with 4096^2
    // 1-byte, 2048^2 4-byte and 1024^2 16-byte transposes: 8 and 16 KiB tiles lose up to 20 %, 64 KiB gains
    // nothing. A plane thinner than the square keeps the tile's area by stretching the other side, so that a
    // 3 x 1e6 (SoA -> AoS) plane still moves thousands of units per task; stretched sides are rounded up to
    // the block.
    constexpr std::int64_t tile_bytes = std::int64_t{32} << 10;
    std::int64_t side = 8;
    while (4 * side * side * unit <= tile_bytes) side *= 2;
    const std::int64_t area = side * side, m = std::max(block_r, block_c);
    t.tile_r = std::min(rows, side);
    t.tile_c = std::min(cols, side);
    if (rows < side) t.tile_c = std::min(cols, round_up(area / std::max<std::int64_t>(rows, 1), m));
    if (cols < side) t.tile_r = std::min(rows, round_up(area / std::max<std::int64_t>(cols, 1), m));
    t.tile_r = std::max<std::int64_t>(t.tile_r, 1);
    t.tile_c = std::max<std::int64_t>(t.tile_c, 1);
    return t;
  }
  // Streaming. Output runs: each output row receives tile_r * unit contiguous bytes per tile. Non-temporal
  // stores spread over 16 rows reach the sequential store rate (~40 GB/s) from 256-byte runs on and lose
  // 4x with 64-byte runs (AVX-512 EPYC); 512 bytes left margin. On the 2-core AVX-512 Xeon of the issue's
  // figures, planes of long output rows (>= long_rows_bytes) run far better with 128-byte runs, i.e. a
  // quarter of the input rows a tile, each read 4x further (tile_c grows to keep the tile's bytes): 2
  // threads vs the non-temporal copy, same binary, benchmarks/suites/cpu.txt: fp32 8192^2 0.632 -> 0.833,
  // fp32 8191x8193 0.419 -> 0.597, fp64 4096^2 0.764 -> 0.993, fp16 8192^2 0.494 -> 0.595, c128 4096^2 0.984
  // -> 1.024, fp32 4194304x3 0.906 -> 0.973 (1 thread: +0.09 to +0.26). Planes of short rows lost with them
  // ([2,3,5,7,283,283] axes 4,1,5,3,0,2: 1132-byte rows, 0.410 -> 0.250) and so did packed tiles (the 5-D
  // reversal 64x16x16x16x64, output rows merged: 0.53 -> 0.46), which keep 512; bytes keep 512 (u8 8192^2
  // the same either way, u8 8191x8193 0.39 -> 0.34).
  // Bytes of 4 KiB-aliased input rows (below) take 64-byte runs and, like every unit above, input segments of
  // at least a page a row (tile_c >= page_bytes): same binary, 3 runs each, tile_r 128 x 1024 columns vs 64 x
  // 4096, 1 / 2 threads: u8 8192^2 0.53 / 0.53 -> 0.70 / 0.70, 4096x16384 0.57 / 0.55 -> 0.72 / 0.73, 16384x4096
  // 0.53 / 0.54 -> 0.66 / 0.65, 2048x32768 0.60 / 0.59 -> 0.77 / 0.77; fp16 8192^2 (64 rows x 1024 -> 2048
  // columns) 0.74 / 0.74 -> 0.78 / 0.79. Bytes at other pitches keep 512-byte runs over 256 columns (u8
  // 8191x8193: 64 x 4096 0.36 / 0.25, 512 x 512 0.42 / 0.42, as is 0.44 / 0.42).
  // Aliased bytes count as long from 2 KiB output rows (u8 2048x32768 and 4096x16384 measured above).
  constexpr std::int64_t long_rows_bytes = std::int64_t{8} << 10, long_aliased_bytes = 2048, page_bytes = 4096;
  const bool aliased = in_row_bytes > 0 && in_row_bytes % page_bytes == 0;  // input rows 4 KiB-aliased (below)
  // Measured on Intel (the Xeon above). AMD EPYC (Zen 4/5 dev VMs, AVX-512) wants them only for 8- and 16-byte
  // units: same binary, 2 rounds, 1 / 2 threads vs the non-temporal copy, these rules -> 512-byte runs over
  // 256-1024-byte input segments: fp32 8192^2 0.50 / 0.70 -> 0.63 / 0.72, fp32 8191x8193 0.33 / 0.52 -> 0.56 /
  // 0.69, fp16 8192^2 0.42 / 0.57 -> 0.64 / 0.68, u8 8192^2 0.31 / 0.45 -> 0.35 / 0.54; but fp64 4096^2 0.70 /
  // 0.76 -> 0.64 / 0.73 and c128 4096^2 0.75 / 0.82 -> 0.61 / 0.64 (256-byte runs 0.67 / 0.79).
  // On AMD, 8-byte units keep them only where input and output rows are whole lines: otherwise (the carry and
  // staged paths, or misaligned reads) 16-row tiles lost to 64 rows (512-byte runs), same binary, 1 thread vs
  // the non-temporal copy: fp64 8191 x 4097 0.35 -> 0.60, 8191 x 4096 0.38 -> 0.53, 4097 x 8191 0.44 -> 0.54,
  // 8192 x 4097 0.48 -> 0.60; aligned rows keep them (fp64 6000^2 0.67 -> 0.60 with 64 rows).
  const bool lines = in_row_bytes % 64 == 0 && (rows * unit) % 64 == 0;  // input rows, packed output rows
  const bool short_runs = vendor != cpu_vendor::amd || unit > 8 || (unit == 8 && lines);
  const bool long_rows = short_runs && rows * unit >= (unit == 1 && aliased ? long_aliased_bytes : long_rows_bytes);
  // Page-long input segments: plain input rows (not packed tiles), long output rows, units over a byte or
  // aliased bytes.
  const bool page_rows = in_row_bytes > 0 && long_rows && (unit > 1 || aliased);
  // Units that the word-by-word kernel moves (no register blocks: block_r == 1) take runs of their own, in
  // place of 512-byte runs (5-31 units) or, for page-long input rows, 128-byte runs (1-8 units a tile row):
  // 1024 bytes from 32-byte units on, 256 bytes for 9-31-byte ones (9-15 bytes: see transpose_tile_words). Dev
  // VM (AMD EPYC), same call, 3 rounds, 1 / 2 threads vs the non-temporal copy
  // (benchmarks/results/cpu-wide-units-runs-epyc.txt): 1024 bytes: fp32
  // 3000 x 2000 x 20 axes 1,0,2 (80-byte units) 0.216 / 0.242 -> 0.320 / 0.489, u8 2000 x 1500 x 100 0.229 /
  // 0.250 -> 0.335 / 0.506, fp32 x 15 0.258 / 0.246 -> 0.313 / 0.495, fp64 4000 x 3000 x 5 0.211 / 0.345 ->
  // 0.246 / 0.410, u8 [40,26,35,45,40] axes 0,3,1,2,4 (40 bytes) 0.192 / 0.340 -> 0.255 / 0.433, u8 x 36 0.198
  // / 0.247 -> 0.236 / 0.396 (2048 and 4096 bytes like 1024; for 20-28-byte units 1024 lost or was mixed);
  // 256 bytes: fp32 5802 x 3305 x 7 (28 bytes) 0.253 / 0.415 -> 0.303 / 0.496, 725 x 3305 x 7 0.267 / 0.432 ->
  // 0.332 / 0.502, fp32 x 5 0.249 / 0.411 -> 0.283 / 0.465, u8 x 23 0.268 / 0.434 -> 0.314 / 0.535, fp16 x 13
  // 0.252 / 0.380 -> 0.320 / 0.510 (512 bytes mixed); short output rows too (512 -> 256: fp32 350 x 12000 x 7
  // 0.286 / 0.481 -> 0.394 / 0.609, u8 200 x 30000 x 23 0.310 / 0.455 -> 0.358 / 0.569).
  constexpr std::int64_t words_long_run_min_unit = 32, words_mid_run_min_unit = 9;
  // The word-by-word kernel is the only one with 1 x 1 blocks (scalar_unit_kernel's words()).
  const bool words_kernel = block_r == 1 && unit >= words_mid_run_min_unit;
  const std::int64_t run_bytes = words_kernel ? (unit >= words_long_run_min_unit ? 1024 : 256)
                                 : !page_rows                                   ? 512
                                 : unit > 1                                     ? 128
                                                                                : 64;
  t.strip = round_up(std::max<std::int64_t>(16, block_c), block_c);
  // A staging row holds tile_r units plus those reaching into one more line (a tile owns the lines that start
  // in its rows), rounded up to whole lines: at most tile_r * unit + 3 lines.
  const std::int64_t stage_max_r = std::max<std::int64_t>(staging_bytes / t.strip - 3 * 64, unit) / unit;
  // Input rows a multiple of 4 KiB apart (power-of-two widths): every row of a tile falls in the same few
  // cache sets and its prefetched next tile evicts itself, worse the more rows a tile has and the larger
  // the power of two. Such tiles take 128 input rows (64 from 32 KiB apart, 32 from 128 KiB), never more
  // than before, and at least 128-byte output runs. Dev VM, 1 thread, GB/s for tile_r 32 / 64 / 128 / 256
  // rows: fp32 1024x32768 27.3 / 22.4 / 11.9 / 9.0, fp32 2048x16384 26.0 / 28.4 / 22.1 / 9.2, fp64 4096^2
  // 24.4 / 26.5 / 19.4 / 18.5, u8 2048x32768 21.9 / 21.4 / 19.7 / 15.0, fp16 2048x16384 19.7 / 18.8 / 16.7 /
  // 15.4; u8 1024x65536 128 rows 17.6, 512 rows 8.1; fp16 8192^2 64 rows 16.8, 128 rows 19.1-21.2, 256 rows
  // 16.6-18.8; u8 8192^2 (2 threads) 64-byte runs 24.3, 128-byte 29-31, 512-byte 29.9. Rows at other
  // pitches keep the 512-byte output runs (u8 8191x8193: 256-512 bytes 10.4, 128 bytes 8.7). Not for tiles
  // packed first (in_row_bytes 0), which read a contiguous buffer: [256]^3 reversed lost 17 % with them.
  const std::int64_t aliased_rows = std::max<std::int64_t>(
      in_row_bytes % (128 << 10) == 0 ? 32 : in_row_bytes % (32 << 10) == 0 ? 64 : 128, 128 / unit);
  const std::int64_t run_units = aliased ? std::min(run_bytes / unit, aliased_rows) : run_bytes / unit;
  t.tile_r = std::min(round_up(std::max(run_units, block_r), block_r), stage_max_r / block_r * block_r);
  t.tile_r = std::max(t.tile_r, std::int64_t{1});
  // Input tile: an eighth of L2 (128 KiB on 1 MiB), so that this tile and the prefetched next one stay in L2
  // with room to spare; 128 x 256 fp32 tiles measured best (64 x 1024 within 5 %, 256 x 1024 -20 %).
  const std::int64_t tile_bytes = std::clamp<std::int64_t>(caches.l2 / 8, 64 << 10, 256 << 10);
  t.tile_c = round_up(std::max<std::int64_t>(tile_bytes / (t.tile_r * unit), t.strip), t.strip);
  if (page_rows) t.tile_c = std::max(t.tile_c, round_up(page_bytes / unit, t.strip));
  if (rows < t.tile_r) {
    t.tile_r = rows;
    t.tile_c = round_up(std::max<std::int64_t>(tile_bytes / std::max<std::int64_t>(rows * unit, 1), t.strip), t.strip);
  }
  t.tile_c = std::max<std::int64_t>(std::min(cols, t.tile_c), 1);
  t.stage_rs = round_up((t.tile_r + (63 + unit - 1) / unit) * unit, 64);
  return t;
}

/// Cached mode prefetches each tile's successor into L2 (as streaming mode does) where the tile reads at most
/// this many bytes from each of at least cached_prefetch_min_rows input rows: planes whose output rows are too
/// short to stream (NCHW -> NHWC with C under 256 bytes) then read 2-8 lines from each of 64-128 rows, more
/// streams than the hardware prefetchers follow. Dev VM (AMD EPYC), xpose-bench, same call, 3 rounds, 1 / 2
/// threads vs the non-temporal copy (benchmarks/results/cpu-cached-prefetch-epyc.txt): u8 NCHW -> NHWC
/// 64x128x56x56 (128 rows x 128 bytes) 0.311 / 0.499 -> 0.442 / 0.587, u8 32x64x112x112 (64 x 256) 0.296 / 0.504
/// -> 0.462 / 0.616, fp16 64x64x56x56 (64 x 512) 0.346 / 0.520 -> 0.482 / 0.591; with fewer rows it lost: fp32
/// 64x32x56x56 (32 x 512) 0.548 / 0.655 -> 0.464 / 0.614, fp64 64x16x56x56 (16 x 2 KiB, in one process) 27.2 ->
/// 24.0 GB/s.
inline constexpr std::int64_t cached_prefetch_max_run_bytes = 512;
inline constexpr std::int64_t cached_prefetch_min_rows = 64;
/// Whether cached-mode tiles of `t` (units of `unit` bytes) prefetch their successor.
constexpr bool cached_prefetches(const transpose_tuning& t, std::int64_t unit) {
  return t.tile_c * unit <= cached_prefetch_max_run_bytes && t.tile_r >= cached_prefetch_min_rows;
}

/// Streaming mode starts the column tiles at the input's first line boundary (a narrow lead tile) only where the
/// plane's input rows are at least this many bytes: the lead tile and the next one end mid-block, so rows of a
/// few blocks ran mostly masked blocks. Dev VM (AMD EPYC), 1 thread, GB/s, lead tile -> none, inputs 16 bytes off
/// the line (malloc'd buffers), interleaved in one process: u8 NHWC -> NCHW 64x56x56x128 12.4 -> 35.3, fp16
/// 64x56x56x64 11.2 -> 42.1, fp32 64x56x56x32 17.2 -> 46.4, u8 x256 17.2 -> 31.9, u8 x512 17.6 -> 23.5; u8 x2048
/// 17.6 / 17.9 (a tie); longer rows keep it: u8 8192x4096 14.1 / 13.2, fp16 8192x4096 23.2 / 18.1, fp32 4096^2
/// 26.8 / 23.0, fp32 2048x8192 28.3 / 19.7.
inline constexpr std::int64_t lead_tile_min_row_bytes = 2048;
/// Whether a streaming plane whose input rows hold `row_bytes` (columns x unit) may take a lead tile.
constexpr bool lead_tile_pays(std::int64_t row_bytes) { return row_bytes >= lead_tile_min_row_bytes; }

/// Tiles of cpu_transpose2d_merged_cols: tile_r rows (units along an output row) x tile_c merged columns.
struct merged_cols_tiles {
  std::int64_t tile_r = 0, tile_c = 0;  ///< 0: no tile fits the staging buffer
};
/// The output runs (bytes) merged-column tiles keep before their input runs shrink (choose_merged_cols_tiles).
inline constexpr std::int64_t merged_cols_min_out_run = 448;
/// Units a merged-column tile's staging row holds past its tile_r: streamed tiles write the output lines that
/// start in their rows, up to one line of units more.
constexpr std::int64_t merged_cols_margin(std::int64_t unit, bool streaming) {
  return streaming ? (64 + unit - 1) / unit : 0;
}

/// Output runs of ~512 bytes and input runs of ~256 bytes, whole register blocks, within the staging buffer
/// (tile_c rows of tile_r + merged_cols_margin units). [2731,2048,3] reversed, 1 thread: runs of 128-1024 bytes either
/// side measured alike (0.33-0.38 of the non-temporal copy), within the VM's noise. When they do not fit, the
/// output runs of streamed tiles shrink only to 448 bytes, then the input runs (to a line, or a register
/// block), then the rest: every output run is streamed to a row of its own, and 1- and 2-byte units, whose blocks and staging
/// margin are 64 and 32 units, had their output runs cut to 64 and 192 bytes first (u8 tiles 64 x
/// 256, fp16 96 x 128; now 448 x 64 and 224 x 64). Dev VM (2-core Zen 4 EPYC), same call, 1 / 2 threads vs the
/// non-temporal copy (benchmarks/results/cpu-merged-cols-out-runs-zen4.txt): u8 270x2x250x248x2 axes 4,3,0,2,1
/// (N-d r5 n24) 0.120 / 0.183 -> 0.266 / 0.334, fp16 135x2x250x248x2 0.207 / 0.277 -> 0.277 / 0.324, fp16
/// [128,128,128,32] axes 3,1,2,0 0.274-0.276 / 0.327-0.383 -> 0.335-0.350 / 0.364-0.374, fp16 5-D reversal
/// 8x32^4 0.231 / 0.261-0.331 -> 0.261-0.266 / 0.296-0.301; u8 5-D reversals gained on 1 thread and lost a
/// little on 2 (16x32^4 0.146-0.150 / 0.159-0.200 -> 0.185-0.188 / 0.130-0.187, 32^5 0.153 / 0.165 -> 0.197 /
/// 0.160). Wider units keep their tiles: for fp32 the input runs weighed as much (5-D reversal 4x32^4, 1
/// thread: 112 x 64 22.8 GB/s, 128 x 32 14.5-16.9, 256 x 16 11.5-13.1).
inline merged_cols_tiles choose_merged_cols_tiles(std::int64_t rows, std::int64_t cols, std::int64_t unit,
                                                  std::int64_t block_r, std::int64_t block_c, bool streaming) {
  const std::int64_t extra = merged_cols_margin(unit, streaming);
  auto bytes = [&](std::int64_t r, std::int64_t c) { return c * (r + extra) * unit; };
  std::int64_t c = std::min(cols, round_up(std::max<std::int64_t>(256 / unit, 1), block_c));
  std::int64_t r = std::min(rows, round_up(std::max<std::int64_t>(512 / unit, 1), block_r));
  auto shrink_r = [&](std::int64_t floor) {
    while (bytes(r, c) > staging_bytes && r - block_r >= std::max<std::int64_t>(floor, 1)) r -= block_r;
  };
  auto shrink_c = [&](std::int64_t floor) {
    while (bytes(r, c) > staging_bytes && c / 2 >= std::max<std::int64_t>(floor, 1)) c /= 2;
  };
  if (streaming) {
    shrink_r(merged_cols_min_out_run / unit);
    shrink_c(std::max<std::int64_t>(block_c, 64 / unit));
  }
  shrink_r(1);  // then rows down to one block (or below, for a side that is not a multiple of it), columns to 1
  shrink_c(1);
  if (bytes(r, c) > staging_bytes) return {};
  return {r, c};
}

/// CPU boxes (macrokernel_box.cpp) take the permute path when the box's output vectors need at most one
/// 128-byte window per this many elements (and the level has a permute whose granule divides the unit and the
/// strides). Dev VM (AMD EPYC, VBMI), 1 thread vs the non-temporal copy, gather -> permute path with the runs
/// staged in L1 (the first version; same call) -> windows straight from the input
/// (benchmarks/results/cpu-box-permute-epyc.txt): taken, u8 r8 n6 (2 windows a 64-element vector) 0.107 ->
/// 0.175 -> 0.231, u8 5x5x200x7x5x3x128 (5) 0.146 -> 0.201 -> 0.196, fp16 r8 n6 (2.3 a 32-element vector) 0.190
/// -> 0.221 -> 0.280, u8 r8 n27 (6) 0.158 -> 0.163 -> 0.176; staged, lost where a window served fewer: fp16 r8
/// n27 (6 a 32-element vector) 0.220 -> 0.172, fp32 r8 n6 (4 a 16-element vector) 0.287 -> 0.191, u8 r6 n18 (30
/// a 64-element vector) 0.147 -> 0.063.
inline constexpr std::int64_t box_permute_min_elements = 8;

/// CPU boxes that are batches of 2-D transposes (macrokernel_box.cpp, choose_tiles) go through the tile kernel
/// when both sides have at least this many units. Dev VM, 1 thread vs the non-temporal copy, same call, off /
/// 16 / 4 (benchmarks/results/cpu-box-permute-epyc.txt): u8 30x24x42x28x2x40 axes 2,3,1,4,5,0 (30 x 80 tiles)
/// 0.155 / 0.197 / 0.202, fp32 r6 n18 0.419 / 0.548 / 0.531, fp32 r5 n10 0.386 / 0.415 / 0.303; with 4 the thin
/// ones lost (u8 5x5x200x7x5x3x128, 5 x 128 tiles: 0.192 / 0.187 / 0.089; fp32 r7 n26 0.224 / 0.224 / 0.165).
inline constexpr std::int64_t box_tiles_min_side = 16;

/// Packed batches of small planes as one periodic permutation (macrokernel_periodic.cpp): planes of at most
/// this many bytes, a period (lcm(plane, 64)) of at most periodic_max_period_bytes (its table: 64 index bytes
/// a window), at least periodic_min_periods periods in the batch (the bytes past the last whole period are
/// copied one at a time), and at most periodic_max_windows_per_vector 128-byte input windows an output
/// vector on average (planes whose output vectors gather from many input rows take the tile path). Dev VM
/// (2-core Xeon, VBMI), ratio to the non-temporal copy at 1 thread, periodic vs tiles: u8 32 x 32 (8 windows)
/// 0.51 vs 0.30, fp16 20 x 20 (~7) 0.58 vs 0.30, fp64 16 x 12 (6) 0.63 vs 0.48; fp32 24 x 24 (12) 0.40 vs
/// 0.55, u8 64 x 48 (24) 0.17 vs 0.52.
inline constexpr std::int64_t periodic_max_plane_bytes = std::int64_t{4} << 10;
inline constexpr std::int64_t periodic_max_period_bytes = std::int64_t{16} << 10;
inline constexpr std::int64_t periodic_min_periods = 64;
inline constexpr std::int64_t periodic_max_windows_per_vector = 8;
/// Thin planes (n x k <-> k x n) take the periodic path up to this short side, with at most
/// periodic_max_windows_thin windows an output vector (their windows are far apart in the input, where a
/// plane's are reused from L1). Dev VM, 1 thread, ratio to the non-temporal copy, periodic vs tiles: 2 windows
/// rgb8 4194304 x 4 0.68 vs 0.49, 5-byte 0.68 vs 0.27; 4 windows rgb8 4 x 4194304 0.83 vs 0.42, 5-byte 0.89 vs
/// 0.14, 7-byte 2097152 x 8 0.51 vs 0.27; 8 windows rgb8 1048576 x 16 0.32 vs 0.75, rgb16 8 x 2097152 0.46 vs
/// 0.66.
inline constexpr std::int64_t periodic_max_thin_k = 16;
inline constexpr std::int64_t periodic_max_windows_thin = 4;

}  // namespace xpose::detail
