// Tuning of the pieces family (kernels/pieces.cuh, dispatch/pieces.cu): 2-D transposes of odd units of 3-15 bytes
// on the 16-byte grid, register permutes of 4-row x 4-unit micro-tiles.
#pragma once

#include <cstdint>

namespace xpose::detail {

struct pieces_policy {
  /// Tile side (units): rows of 64 U bytes (192-960), whole 16-byte chunks for any odd U.
  static constexpr int tile = 64;
  /// Threads a block: one micro-tile (4 x 4 units) each, (tile / 4)^2 of them.
  static constexpr int threads = (tile / 4) * (tile / 4);
  /// Units it takes: odd, 3-15 bytes (3 on small problems only, below). H200, same call, gather16 (a byte at a
  /// time) -> pieces (benchmarks/results/h200-pieces-vs-gather16.txt): 9-byte 8192^2 0.556 -> 0.794, 4096^2 0.556 -> 0.860,
  /// 11-byte 8192^2 0.532 -> 0.808, batched 16 x 1024 x 2048 0.519 -> 0.850, 13-byte 3840 x 2160 0.524 -> 0.863,
  /// 15-byte 4096^2 0.591 -> 0.920, u8 4000 x 3200 x 13 (fused) 0.520 -> 0.833. 5- and 7-byte units, skinny_odd's
  /// tiles -> pieces with row tiles fastest (benchmarks/results/h200-pieces-5-7.txt, suite odd_units_5_7, 34
  /// shapes): 7-byte 2048^2 0.649 -> 0.862, 1088 x 1920 0.591 -> 0.814, 4096^2 0.740 -> 0.879, batched 16 x 1024
  /// x 1024 0.728 -> 0.868, random 1344 x 2752 0.622 -> 0.860; 5-byte 2048^2 0.714 -> 0.885, 1088 x 1920 0.674 ->
  /// 0.884, 4096^2 0.802 -> 0.869; one loss, 5-byte 6000 x 4000 0.856 -> 0.795 (6016 x 4000: 0.822 -> 0.839).
  /// With column tiles fastest they had been mixed (5-byte 8192^2 0.809 -> 0.752).
  static constexpr bool takes(std::int64_t unit) { return unit % 2 == 1 && unit >= 3 && unit <= 15; }
  /// 3-byte units (RGB8) only on problems of up to this many bytes; larger ones stay on pixel48. H200, same
  /// binary, switch off / on (benchmarks/results/h200-pieces-rgb8.txt, suite rgb8_grid), pixel48 -> pieces: 3840 x
  /// 2160 0.816 -> 0.899, 2048^2 0.885 -> 0.930, 4096^2 (48 MiB) 0.843 -> 0.866, batched 16 x 1024 x 1024 0.777 ->
  /// 0.864, 1920 x 1088 0.819 -> 0.864, 9904 x 768 0.809 -> 0.835, 15040 x 800 0.916 -> 0.939, 2160 x 3840 0.810 ->
  /// 0.813; larger problems lost (8192^2 0.842 -> 0.808, 16384^2 0.838 -> 0.761, 12000 x 8000 0.847 -> 0.798, 4800
  /// x 6000 0.875 -> 0.830, 15856 x 1376 0.848 -> 0.826) or tied (1856 x 9888 0.910 / 0.919, 1024 x 20000 0.854 /
  /// 0.859).
  static constexpr std::int64_t rgb8_max_bytes = std::int64_t{48} << 20;
  /// Whether a problem of `bytes` bytes (one side's) of `unit`-byte units takes pieces (on the 16-byte grid).
  static constexpr bool takes(std::int64_t unit, std::int64_t bytes) {
    return takes(unit) && (unit != 3 || bytes <= rgb8_max_bytes);
  }
};

}  // namespace xpose::detail
