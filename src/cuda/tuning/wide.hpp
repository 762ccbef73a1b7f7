// Tuning of the wide family (kernels/wide.cuh, dispatch/wide.cu): 2-D transposes of units of at least
// wide_min_unit_bytes (a kept fastest axis: attention heads [B, S, H, D] -> [B, H, S, D], pixels of many
// channels, 3-D permutations that leave the last axis in place), copied in G-byte chunks, G = 16, 8 or 4.
#pragma once

namespace xpose::detail {

struct wide_policy {
  static constexpr int threads = 256;
  /// Chunks a thread moves a tile (all loads issued before the stores): a tile is threads x this chunks,
  /// 16 KiB for 16- and 8-byte chunks.
  static constexpr int chunks(int chunk_bytes) { return chunk_bytes == 16 ? 4 : 8; }
  static constexpr int tile_bytes(int chunk_bytes) { return threads * chunks(chunk_bytes) * chunk_bytes; }
  /// Tile sides are at most this many units (the compound sides' offset tables in shared memory).
  static constexpr int max_side = 512;
};

/// Units from this size on take the wide tiles when their chunks are >= wide_min_chunk_bytes (smaller ones:
/// gather16 up to 128 bytes, the rows kernels above).
inline constexpr int wide_min_unit_bytes = 32;
/// 4-byte chunks lost to gather16 everywhere (H200, same binary, gather16 -> wide: fp32 4000x3000x9 0.79 ->
/// 0.61, 3000x3500x11 0.79 -> 0.61, u8 5000x4000x100 0.80 -> 0.61, RGB8 84-byte units 0.63 -> 0.45).
inline constexpr int wide_min_chunk_bytes = 8;
/// Rows (algorithm::rows) up to this long that are the units of a 2-D transpose take the wide tiles too.
inline constexpr int wide_max_row_bytes = 4096;

}  // namespace xpose::detail
