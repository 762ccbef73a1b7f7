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
  /// Threads a block: a tile has 68-72 micro-tiles (one per thread in phase 2); phases 1 and 3 use them all.
  /// H100, 256 vs 128 threads: RGB8 4K 0.824 vs 0.796 of memcpy (8192^2 0.871 vs 0.884); RGB16 4K 0.784 vs
  /// 0.898, RGB32F 4K 0.797 vs 0.898 (more registers a thread: fewer blocks an SM). Tiles of 32 rows were
  /// worse for every unit (halo rows: 6/32 extra for RGB8), 128 rows mixed (RGB8 4K 0.813, RGB16 4K 0.816-0.872).
  static constexpr int threads(int unit_bytes) { return unit_bytes == 3 ? 256 : 128; }
};

}  // namespace xpose::detail
