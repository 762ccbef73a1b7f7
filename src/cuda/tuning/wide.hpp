// Tuning of the wide family (kernels/wide.cuh, dispatch/wide.cu): 2-D transposes of units of at least
// wide_min_unit_bytes (a kept fastest axis: attention heads [B, S, H, D] -> [B, H, S, D], pixels of many
// channels, 3-D permutations that leave the last axis in place), copied in G-byte chunks, G = 16 or 8.
#pragma once

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
