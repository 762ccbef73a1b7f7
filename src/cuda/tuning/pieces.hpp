// Tuning of the pieces family (kernels/pieces.cuh, dispatch/pieces.cu): 2-D transposes of odd units of 9-15 bytes
// on the 16-byte grid, register permutes of 4-row x 4-unit micro-tiles.
#pragma once

#include <cstdint>

namespace xpose::detail {

struct pieces_policy {
  /// Tile side (units): rows of 64 U bytes (320-960), whole 16-byte chunks for any odd U.
  static constexpr int tile = 64;
  /// Threads a block: one micro-tile (4 x 4 units) each, (tile / 4)^2 of them.
  static constexpr int threads = (tile / 4) * (tile / 4);
  /// Units it takes: odd, 9-15 bytes. H200, same call, gather16 (a byte at a time) -> pieces
  /// (benchmarks/results/h200-pieces-vs-gather16.txt): 9-byte 8192^2 0.556 -> 0.794, 4096^2 0.556 -> 0.860,
  /// 11-byte 8192^2 0.532 -> 0.808, batched 16 x 1024 x 2048 0.519 -> 0.850, 13-byte 3840 x 2160 0.524 -> 0.863,
  /// 15-byte 4096^2 0.591 -> 0.920, u8 4000 x 3200 x 13 (fused) 0.520 -> 0.833. Against skinny_odd's tiles
  /// 5- and 7-byte units were mixed (5-byte 8192^2 0.809 -> 0.752, u8 6000 x 4000 x 5 0.840 -> 0.663, batched
  /// 64 x 304 x 512 0.742 -> 0.804; 7-byte 3840 x 2160 0.735 -> 0.956, 12000 x 8000 0.795 -> 0.757), so they stay.
  static constexpr bool takes(std::int64_t unit) { return unit % 2 == 1 && unit >= 9 && unit <= 15; }
};

}  // namespace xpose::detail
