// Tuning of the pixel48 family (kernels/pixel48.cuh, dispatch/pixel48.cu): 2-D transposes of units of 3, 6, 12
// or 24 bytes (RGB8, RGB16, RGB32F, ...), register permutes of 4-row x 48-byte micro-tiles.
#pragma once

namespace xpose::detail {

struct pixel48_policy {
  /// Input rows a tile (its output rows' windows; the staged rows add a halo of ceil(16 / U), rounded up to 4).
  static constexpr int tile_rows = 64;
  /// Input row bytes a tile: 4 micro-tile pieces of 48 bytes (64 RGB8 pixels, 32 RGB16, 16 RGB32F). With
  /// tile_rows = 64 a tile moves 12 KiB through ~32 KiB of shared memory (staged rows + output rows).
  static constexpr int row_bytes = 192;
  /// Threads a block: 68-72 micro-tiles a tile (one per thread), the other phases all threads.
  static constexpr int threads = 128;
};

}  // namespace xpose::detail
