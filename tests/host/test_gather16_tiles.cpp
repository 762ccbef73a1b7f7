// gather16's tile shapes (cuda/tuning/transpose2d.hpp), on the host: for every unit it takes, a tile row fits
// the lanes of a staged row (misalignment at both ends included), the staged rows fit the kernel's row limit and
// the default 48 KiB of shared memory, the pitch is odd (bank spread), and tiles keep at least 14 units a side
// (15 beyond 16 bytes).
#include <gtest/gtest.h>

#include <algorithm>

#include "cuda/tuning/transpose2d.hpp"

namespace {

using namespace xpose::detail;

TEST(Gather16Tiles, EveryUnitFitsItsRowsAndSharedMemory) {
  for (long long unit = 1; unit <= gather16_max_unit; ++unit) {
    SCOPED_TRACE(::testing::Message() << "unit " << unit);
    const gather16_shape g = gather16_tile(unit);
    EXPECT_TRUE(g.row_chunks == 16 || g.row_chunks == 32 || g.row_chunks == 64 || g.row_chunks == 128);
    EXPECT_GE(g.side, unit <= 16 ? 14 : 15);  // 16-byte units: (256 - 30) / 16 = 14
    EXPECT_LE(g.side * unit + 30, 16 * g.row_chunks) << "a tile row and 15 bytes of misalignment each end";
    EXPECT_EQ(g.halo, (16 + unit - 1) / unit);
    EXPECT_LE(g.side + g.halo, gather16_max_rows);
    EXPECT_EQ(g.pitch_words % 2, 1);
    EXPECT_GE(g.pitch_words, 4 * ((g.side * unit + 15 + 15) / 16)) << "the chunks a misaligned tile row spans";
    EXPECT_EQ(g.smem_bytes, (g.side + g.halo) * g.pitch_words * 4);
    EXPECT_LE(g.smem_bytes, gather16_max_smem);
  }
  // 9-15-byte units but 12 take whole-warp rows (run-time unit kernels of 32 chunks); 12 and 16 keep their
  // compile-time half-warp kernels.
  for (long long unit : {9, 10, 11, 13, 14, 15}) {
    EXPECT_EQ(gather16_tile(unit).row_chunks, 32) << unit;
    const long long side = gather16_tile(unit).side;
    EXPECT_EQ(gather16_tile(unit, side, 8192).row_chunks, 32) << unit;
    // A side shorter than the whole-warp tile's keeps half-warp rows (their tiles fit it better).
    EXPECT_EQ(gather16_tile(unit, side - 1, 8192).row_chunks, 16) << unit;
    EXPECT_EQ(gather16_tile(unit, 8192, side - 1).row_chunks, 16) << unit;
  }
  for (long long unit : {1, 2, 3, 4, 5, 6, 7, 8, 12, 16}) EXPECT_EQ(gather16_tile(unit).row_chunks, 16) << unit;
}

TEST(Gather16Tiles, FlatTilesSplitEachSideEvenlyAndFitTheKernel) {
  for (long long unit : {1, 2, 4, 8, 16})
    for (long long rows : {1, 16, 17, 55, 56, 57, 63, 64, 65, 100, 127, 200, 255, 1000, 8191})
      for (long long cols : {1, 16, 31, 57, 63, 129, 1209, 4097}) {
        SCOPED_TRACE(::testing::Message() << "unit " << unit << " rows " << rows << " cols " << cols);
        const gather16_flat_shape g = gather16_flat_tile(unit, rows, cols);
        EXPECT_GE(g.tile_rows, 1);
        EXPECT_GE(g.tile_cols, 1);
        EXPECT_EQ(g.halo, (16 + unit - 1) / unit);
        EXPECT_LE(g.tile_rows * unit, gather16_flat_row_bytes);
        EXPECT_LE(g.tile_cols, std::max(gather16_flat_min_col_bytes / unit, gather16_flat_tile_bytes / (g.tile_rows * unit)));
        EXPECT_LE(g.tile_rows + g.halo, gather16_max_rows);
        EXPECT_LE(g.tile_cols, gather16_max_rows);
        // Even splits: the last tile of each side is short by less than one unit a tile.
        const long long tiles_r = (rows + g.tile_rows - 1) / g.tile_rows, tiles_c = (cols + g.tile_cols - 1) / g.tile_cols;
        EXPECT_LT(tiles_r * g.tile_rows - rows, tiles_r);
        EXPECT_LT(tiles_c * g.tile_cols - cols, tiles_c);
        // The fewest tiles a side that the byte limit allows.
        const long long most_r = std::min(gather16_flat_row_bytes / unit, gather16_max_rows - g.halo);
        EXPECT_EQ(tiles_r, (rows + most_r - 1) / most_r);
        // Chunks: a row's bytes plus up to 15 bytes of misalignment at each end.
        EXPECT_GE(16 * g.in_chunks, g.tile_cols * unit + 30 - 15);
        EXPECT_GE(16 * g.out_chunks, g.tile_rows * unit + 30 - 15);
        EXPECT_EQ(g.pitch_words % 2, 1);
        EXPECT_EQ((g.pitch_words - 1) % 16, 0) << "whole 16-word groups (the kernel's swizzle)";
        EXPECT_GE(g.pitch_words - 1, 4 * g.in_chunks);
        EXPECT_EQ(g.smem_bytes, (g.tile_rows + g.halo) * g.pitch_words * 4);
        EXPECT_LE(g.smem_bytes, gather16_max_smem);
      }
}

TEST(Gather16Tiles, FlatRowsOnlyWhereSquareTilesFitBadly) {
  // 63 fp32 rows took two square tiles of 56 (the second 7 / 56 full): flat rows, one tile of 63.
  EXPECT_TRUE(gather16_prefers_flat(4, 63, 1209));
  EXPECT_TRUE(gather16_prefers_flat(4, 1209, 63));
  const gather16_flat_shape g = gather16_flat_tile(4, 63, 1209);
  EXPECT_EQ(g.tile_rows, 63);
  EXPECT_EQ(g.tile_cols, 93);  // 24 KiB / 252 bytes = 97 columns at most: 1209 = 13 tiles of 93
  // Large and well-filled problems keep the square tiles.
  for (long long unit : {1, 2, 4, 8, 16}) {
    EXPECT_FALSE(gather16_prefers_flat(unit, 8191, 8193)) << unit;
    EXPECT_FALSE(gather16_prefers_flat(unit, 4097, 3001)) << unit;
    const long long side = gather16_tile(unit).side;
    EXPECT_FALSE(gather16_prefers_flat(unit, side, 4 * side)) << unit;
  }
  // Units the flat kernels do not take.
  EXPECT_FALSE(gather16_prefers_flat(0, 63, 1209));
  EXPECT_FALSE(gather16_prefers_flat(24, 5, 1209));
}

// The units / unit_pairs tiles (misaligned 4- and 8-byte units): the fill rule the dispatcher applies, and tile
// shapes whose warps stay along rows with every thread moving the same number of units.
TEST(UnitsTiles, FillCountsTheSlotsOfWholeTilesAndShapesKeepWarpsAlongRows) {
  EXPECT_DOUBLE_EQ(units_tiles_fill(64, 64, 4), 1.0);
  EXPECT_DOUBLE_EQ(units_tiles_fill(128, 32, 8), 1.0);
  EXPECT_NEAR(units_tiles_fill(65, 64, 4), 65.0 / 128.0, 1e-12);  // a second tile row, one row in it
  EXPECT_GE(units_tiles_fill(65, 64, 4), units_min_fill);
  EXPECT_LT(units_tiles_fill(16, 1000, 8), units_min_fill);   // 16 of 64 rows: words / gather16 instead
  EXPECT_NEAR(units_tiles_fill(100, 50001, 8), 100.0 / 128 * 50001.0 / 50016, 1e-12);
  auto check_shape = [](int rows, int cols, int threads) {
    EXPECT_EQ(cols % 32, 0);
    EXPECT_EQ(rows % 32, 0);
    EXPECT_EQ(threads % cols, 0);
    EXPECT_EQ(threads % rows, 0);
    EXPECT_EQ(rows * cols % threads, 0);
  };
  check_shape(transpose2d_units_policy<4>::rows, transpose2d_units_policy<4>::cols, transpose2d_units_policy<4>::threads);
  check_shape(transpose2d_units_policy<8>::rows, transpose2d_units_policy<8>::cols, transpose2d_units_policy<8>::threads);
  // unit_pairs: a pair a lane, 32 lanes a row of 64 units (the kernel's static_assert holds the same).
  EXPECT_EQ(transpose2d_unit_pairs_policy::cols, 64);
  EXPECT_EQ(transpose2d_unit_pairs_policy::threads % 32, 0);
  EXPECT_GT(units_u4_max_bytes, 0);
}

}  // namespace
