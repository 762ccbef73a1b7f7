// Tuning of the bulk family (kernels/bulk.cuh, dispatch/bulk.cu): vec8's byte tiles (bulk8) and vec16's tiles of
// 2-, 4- and 8-byte units (bulk16) with each tile's input brought in by the copy engine (a 3-D tensor map,
// `cp.async.bulk.tensor`, sm_90), tiles in panel order.
#pragma once

#include <cstdint>

#include "cuda/tuning/transpose2d.hpp"

namespace xpose::detail {

struct bulk8_policy {
  /// Micro-tiles (8 rows x 8 bytes, one a thread) down a tile and across it: 256 input rows x 128 bytes, 32 KiB
  /// staged, output runs of 256 bytes, 512 threads. H100, same call, tiles rows first, ratio to memcpy of u8
  /// 8192^2 / 16384^2 / 32768 x 4096 / 10000^2: 256 x 128 bytes 0.951 / 0.959 / 0.954 / 0.947; 256 x 256 (512
  /// threads, two micro-tiles each) 0.948 / 0.962 / 0.954 / 0.897; the same with 1024 threads 0.920 / 0.954 /
  /// 0.936 / 0.887; 256 x 128 with 256 threads (4 blocks an SM) 0.946 / 0.947 / 0.958 / 0.890; 128 x 256 0.951 /
  /// 0.957 / 0.950 / 0.820. 128-byte or no L2 promotion of the tensor copies: 1-3 % slower.
  static constexpr int mr = 32, mc = 16;
  static constexpr int threads = mr * mc;
  static constexpr int tile_rows = 8 * mr, tile_bytes = 8 * mc;
  /// 3 blocks an SM (40 registers, no spill; 96 KiB staged an SM). On the H100 3 measured no better than 2 (54
  /// registers), 4 (32 registers, spilling) 15-20 % slower. On the H200 (4.3 TB/s: more bytes in flight
  /// needed), same call, 3 rounds, 2 -> 3 blocks: u8 8192^2 0.912 -> 0.923, 16384^2 0.940 -> 0.949, 32768 x 4096
  /// 0.887 -> 0.919, 4096 x 32768 0.922 -> 0.940, 10000^2 0.858 -> 0.870, 20000 x 4000 0.873 -> 0.907, 65536 x
  /// 1024 0.879 -> 0.899, 9000 x 9008 0.867 both; 15000 x 15008 0.878 -> 0.855.
  static constexpr int min_blocks = 3;
};

/// bulk16<U>: vec16's tile shapes (transpose2d_vec16_policy<U>: 128 x 128 fp16, 64 x 64 fp32, 32 x 64 fp64
/// units), staged whole. H100, same call, vec16 -> bulk16 (benchmarks/results/h100-bulk16-vs-vec16.txt): fp32
/// 10000^2 0.924 -> 0.958, 12000^2 0.929 -> 0.954, 15000 x 15008 0.923 -> 0.939, 12000 x 6000 0.941 -> 0.962,
/// fp16 10000^2 0.938 -> 0.955, fp64 7000 x 9000 0.930 -> 0.954, fp32 8192^2 pitched in and out 0.924 -> 0.956;
/// powers of two within 1 % (the worst fp16 8192^2 0.972 -> 0.963). In standalone runs the staging alone
/// (columns first) was worth little (fp32 10000^2 0.932); the order needs it (vec16 in the same panel order
/// gained only 0.5-1.5 %, docs/perf-notes.md).
template <int UnitBytes>
struct bulk16_policy {
  /// Blocks an SM the build asks for: fp16's 32 KiB stages fit 3 (4 lost: 10000^2 0.951 -> 0.936), fp32 / fp64
  /// 6 by shared memory and registers whatever the minimum.
  static constexpr int min_blocks = 2;
};

/// Tile order: panels of this many tile rows (bulk_params), for a matrix of tiles_r x tiles_c tiles and
/// `resident` blocks on the device at once.
///  - Columns fastest (1) for matrices of at most bulk_columns_first_max_tiles tile columns: long input rows
///    read whole, the output rows' pieces from tiles beside each other.
///  - Otherwise tiles along r fastest, in panels of at most resident / 2 tile rows (balanced): the resident blocks
///    write whole output rows (within a panel) and read >= 256 bytes of each input row, the two 128-byte strips
///    of its 256-byte L2 promotion. Without the cap, the strip beside one is read a whole matrix column later.
/// H100, same call, ratio to memcpy for columns fastest / rows fastest (one panel). bulk8: u8 10000^2 0.834 /
/// 0.949, 9000 x 9008 0.771 / 0.956, 15000 x 15008 0.736 / 0.871, 16384^2 0.945 / 0.958, 8192^2 0.954 / 0.949,
/// 4096 x 32768 0.949 / 0.949; with <= 32 tile columns 32768 x 4096 0.958 / 0.951, 20000 x 4000 0.977 / 0.954,
/// 65536 x 1024 0.945 / 0.882, 1048576 x 512 0.960 / 0.774. bulk16 (panels capped): fp32 4100 x 4104 (65 tile
/// columns) 0.878 / 0.978, 3 x 4100 x 4104 0.845 / 0.958, fp64 6000 x 5000 (79) 0.948 / 0.960, 12000 x 6000 (94)
/// and 20000 x 4000 (63) the same, 65536 x 1024 (16) 0.969 / 0.962. Panels that leave a short last one lose
/// (u8 10000^2 in panels of 32: 0.898), hence the balancing.
inline constexpr std::int64_t bulk_columns_first_max_tiles = 32;

inline std::int64_t bulk_panel_rows(std::int64_t tiles_r, std::int64_t tiles_c, std::int64_t resident) {
  if (tiles_c <= bulk_columns_first_max_tiles) return 1;
  const std::int64_t max_rows = resident / 2 > 1 ? resident / 2 : 1;
  const std::int64_t panels = (tiles_r + max_rows - 1) / max_rows;
  return (tiles_r + panels - 1) / panels;
}

/// The bulk kernels take problems of at least this size (about the L2's: where vec8's 512-thread tiles, which
/// bulk8 replaced, ran) whose input rows the copy engine can address (16-byte aligned base, pitch and batch
/// stride). Smaller ones were not measured with them.
inline constexpr std::int64_t bulk_min_bytes = vec8_wide_min_bytes;

}  // namespace xpose::detail
