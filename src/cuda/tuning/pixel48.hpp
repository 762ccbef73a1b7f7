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
  /// Outputs on the 16-byte grid: each tile prefetches into L2 the input of the tile this many waves of
  /// resident blocks ahead (blocks start in tile order, so that tile's block starts soon). H200, same binary,
  /// off / 0.5 / 1 / 2 waves: RGB8 8192^2 0.775 / 0.840 / 0.856 / 0.763, RGB8 2160x3840 0.755 / 0.811 / 0.792 /
  /// 0.741, 3840x2160 0.759 / 0.825 / 0.811 / 0.753, RGB16 8192^2 0.853 / 0.889 / 0.845 / 0.652, RGB16 4K 0.852
  /// / 0.881 / 0.846 / 0.756, RGB32F 8192^2 0.876 / 0.914 / 0.872 / 0.657, 4K 0.937 / 0.974 / 0.930 / 0.763.
  /// Outputs off the grid (the realigning store phase: more instructions a tile) lost with it at every
  /// distance: RGB8 8191x8193 0.641 -> 0.620, batched 16x1000x1500 0.634 -> 0.590.
  static constexpr double prefetch_waves = 0.5;
};

}  // namespace xpose::detail
