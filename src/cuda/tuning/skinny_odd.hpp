// Tuning of the skinny_odd family (kernels/skinny_odd.cuh, dispatch/skinny_odd.cu): n x k <-> k x n of units
// that are not powers of two (3, 5, 6, 7, 10, 12, 14 bytes), periodic register permutes through unit slots.
#pragma once

namespace xpose::detail {

struct skinny_odd_policy {
  /// Threads a block.
  static constexpr int threads = 256;
  /// Periods (lcm(U, 16) bytes: 48 for RGB8, 112 for 7-byte units) a tile holds on its packed side, before
  /// the halo: one per thread in the unpack phase. RGB8: 12 KiB of data, 16 KiB of slots; 7-byte units: 28
  /// KiB, 32 KiB of slots.
  static constexpr int periods_per_tile = 256;
  /// Tiles along n are whole multiples of this many units (so that, with an aligned base, every tile's
  /// packed range starts on the 16-byte grid).
  static constexpr int span_multiple = 16;
};

}  // namespace xpose::detail
