// Tuning of the wide family (kernels/wide.cuh, dispatch/wide.cu): 2-D transposes of units of at least
// wide_min_unit_bytes (a kept fastest axis: attention heads [B, S, H, D] -> [B, H, S, D], pixels of many
// channels, 3-D permutations that leave the last axis in place), copied in G-byte chunks, G = 16 or 8.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace xpose::detail {

struct wide_policy {
  static constexpr int threads = 256;
  /// Chunks a thread moves a tile (all loads issued before the stores): a tile is threads x this chunks, 16 KiB
  /// of 16-byte chunks, 12 KiB of 8-byte ones.
  static constexpr int chunks(int chunk_bytes) { return chunk_bytes == 16 ? 4 : 6; }
  static constexpr int tile_bytes(int chunk_bytes) { return threads * chunks(chunk_bytes) * chunk_bytes; }
  /// Store addresses computed again after the loads instead of held in registers: 8-byte chunks only. H200,
  /// same binary, 8-byte chunks held / lean with 8 chunks a thread (78 / 62 registers) / lean with 6 (48): u8
  /// 40x212x35x45x40 (40-byte units) 0.872 / 0.893 / 0.936, fp32 40x212x35x45x10 0.869 / 0.889 / 0.933, fp32
  /// attention heads at +8 bytes 0.925 / 0.954 / 0.965, fp64 3000x3500x5 0.865 / 0.889 / 0.843, fp64 batched
  /// 64x700x300x5 0.884 / 0.945 / 0.923, 56- and 72-byte units 0.81-0.83 in all three. 16-byte chunks (44 / 40
  /// registers) lost 0.005-0.012 lean (fp32 96-byte units 0.992 -> 0.980).
  static constexpr bool lean(int chunk_bytes) { return chunk_bytes == 8; }
  /// Gather tiles (units off the 8-byte grid): 16-byte output chunks a thread, all gathered before the stores.
  static constexpr int gather_chunks = 4;
  static constexpr int gather_tile_bytes = threads * gather_chunks * 16;
  /// Tile sides are at most this many units (the compound sides' offset tables in shared memory).
  static constexpr int max_side = 512;
};

/// Units from this size on take the wide tiles when their chunks are >= wide_min_chunk_bytes (smaller ones:
/// gather16 up to 128 bytes, the rows kernels above).
inline constexpr int wide_min_unit_bytes = 32;
/// 4-byte chunks lost to gather16 everywhere (H200, same binary, gather16 -> wide: fp32 4000x3000x9 0.79 ->
/// 0.61, 3000x3500x11 0.79 -> 0.61, u8 5000x4000x100 0.80 -> 0.61, RGB8 84-byte units 0.63 -> 0.45).
inline constexpr int wide_min_chunk_bytes = 8;
/// Units off the 8-byte grid take the gather tiles (transpose2d_wide_gather_kernel) when they are on the 4-byte
/// grid and at least this long, up to a quarter of a gather tile. H200, same binary, gather16 or rows ->
/// gather: fp32 36-byte units 0.877 -> 0.767 (batched 0.881 -> 0.834), 44 bytes 0.726 / 0.791 -> 0.793 / 0.780,
/// 52 bytes 0.72-0.80 -> 0.79-0.86, 60-124 bytes +0.01 to +0.08, RGB8 84-byte units 0.64-0.69 -> 0.88-0.94, u8
/// 100 bytes 0.80 -> 0.82, fp32 1252-byte rows 0.728 -> 0.913. Units on the 2-byte grid (eight halfword loads
/// an output chunk) lost everywhere (fp16 34-94-byte units 0.66-0.79 -> 0.57-0.64, RGB16 42 bytes 0.74 ->
/// 0.59), on the 1-byte grid more (u8 37 bytes 0.56 -> 0.25): the kernel takes any grid (the host simulation
/// checks 1, 2 and 4), the dispatch only 4.
inline constexpr int wide_gather_min_unit_bytes = 48;
/// Rows (algorithm::rows) up to this long that are the units of a 2-D transpose take the wide tiles too.
inline constexpr int wide_max_row_bytes = 4096;

/// Near-square tiles of at most `budget` units, sides within the matrix, then balanced so that a side's last
/// tile is not a sliver: runs of tile_cols U bytes in the input rows and tile_rows U in the output rows.
inline void wide_tile(std::int64_t rows, std::int64_t cols, std::int64_t budget, unsigned& tile_rows,
                      unsigned& tile_cols) {
  const std::int64_t side_max = wide_policy::max_side;
  const auto balance = [](std::int64_t extent, std::int64_t side) {
    const std::int64_t tiles = (extent + side - 1) / side;
    return (extent + tiles - 1) / tiles;
  };
  const auto s = static_cast<std::int64_t>(std::sqrt(static_cast<double>(budget)));
  std::int64_t tc = std::clamp<std::int64_t>(s, 1, std::min(cols, side_max));
  std::int64_t tr = std::clamp<std::int64_t>(budget / tc, 1, std::min(rows, side_max));
  tc = std::clamp<std::int64_t>(budget / tr, 1, std::min(cols, side_max));  // a short matrix leaves room
  tc = balance(cols, tc);
  tr = balance(rows, std::clamp<std::int64_t>(budget / tc, 1, std::min(rows, side_max)));
  tile_rows = static_cast<unsigned>(tr);
  tile_cols = static_cast<unsigned>(tc);
}

/// Chunks a gather tile's output row of `row_bytes` may span: its bytes at any phase of the 16-byte grid.
constexpr unsigned wide_gather_row_chunks(std::int64_t row_bytes) { return static_cast<unsigned>((row_bytes + 30) / 16); }

/// Gather tiles: output rows take up to 2 chunks more than their bytes (both ends off the grid), so units for
/// 7/8 of the block's chunk slots, then rows (or columns) off until every row's slots fit.
inline void wide_gather_tile(std::int64_t rows, std::int64_t cols, std::int64_t unit, unsigned& tile_rows,
                             unsigned& tile_cols) {
  constexpr std::int64_t slots_max = wide_policy::threads * wide_policy::gather_chunks;
  wide_tile(rows, cols, std::max<std::int64_t>(wide_policy::gather_tile_bytes * 7 / 8 / unit, 1), tile_rows,
            tile_cols);
  while (tile_cols * std::int64_t{wide_gather_row_chunks(tile_rows * unit)} > slots_max) {
    if (tile_rows > 1) --tile_rows;
    else --tile_cols;
  }
}

}  // namespace xpose::detail
