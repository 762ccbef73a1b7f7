// Tuning of the skinny16 family (kernels/skinny16.cuh, dispatch/skinny16.cu): n x k <-> k x n, k <= 16,
// units of 1, 2, 4, 8 or 16 bytes, register transposes of k x V micro-tiles.
#pragma once

namespace xpose::detail {

struct skinny16_policy {
  /// Data bytes a tile moves (k rows of `tile_bytes / k` bytes, rounded down to 16). Two staging buffers of
  /// this size plus halos (~17 KB) and the registers (up to 80 a thread for k = 16) let an H100 SM hold ~6-12
  /// tiles, 48-96 KB in flight, against the ~25 KB that ~3 TB/s at ~1 us latency needs per SM (METHOD.md).
  /// 16 KiB tiles had the same bytes in flight but half the tiles: a 16 MiB problem made 1024 tiles, 1.3
  /// waves of the ~790 that fit at once, and the last wave ran on a quarter of the SMs. H100, same call,
  /// 16 KiB -> 8 KiB: u8 batched 65536 x 16 x 16 0.846 -> 0.879 of memcpy, fp32 1048576 x 3 0.906 -> 0.954,
  /// u8 16 x 1048576 0.824 -> 0.830; 64 MiB and larger problems unchanged or up to +1 % (23 cases).
  static constexpr int tile_bytes = 8192;
  /// Bytes of each of the k strided rows a tile holds: the tile's share, whole 16-byte chunks. k = 16 with
  /// 8-byte pieces (units <= 8 bytes) takes half a tile: its blocks have only 64 threads (one micro-tile each),
  /// so 17 KB of shared memory a block held an SM to 12 blocks, and a 16 MiB problem made 1.29 waves. With
  /// 4 KiB tiles, 16 blocks an SM (registers) and 1.94 waves. H100, same call, 8 -> 4 KiB: u8 16 x 1048576
  /// 0.838-0.845 -> 0.902-0.911, 1048576 x 16 0.883 -> 0.922, batched 65536 x 16 x 16 0.880 -> 0.938; fp16
  /// 16 x 1048576 0.889 -> 0.918, batched 65536 x 16 x 16 0.932 -> 0.952; fp32 / fp64 within 1 %; 16 x 3000017
  /// (45-90 MB) u8 0.938 -> 0.926, fp16 0.950 -> 0.934.
  static constexpr int row_bytes(int k, int unit_bytes) {
    return (k == 16 && unit_bytes <= 8 ? tile_bytes / 2 : tile_bytes) / k / 16 * 16;
  }
  /// Threads a block: one micro-tile (one 16-byte vector of each of the k rows) per thread in the register
  /// phase, so k >= 5 take fewer than 256 threads (k = 16: 64 micro-tiles a tile, 64 threads).
  static constexpr int max_threads = 256;
  static constexpr int min_threads = 64;
  /// Bytes of each of the k rows a thread's micro-tile holds in the register phase: 16, or 8 for k >= 8 (and
  /// units <= 8 bytes), which halves the registers (k = 16 uint8: 146 -> ~80) and doubles the threads a tile.
  /// H100, 16 x 1048576 uint8 with 16-byte pieces: 0.74 of memcpy, 64 threads a block, 12 warps an SM.
  static constexpr int piece_bytes(int unit_bytes, int k) { return k >= 8 && unit_bytes <= 8 ? 8 : 16; }
  /// Largest k (units on the short side) with a compiled micro-kernel.
  static constexpr int max_k = 16;
};

}  // namespace xpose::detail
