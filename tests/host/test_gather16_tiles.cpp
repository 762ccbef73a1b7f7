// gather16's tile shapes (cuda/tuning/transpose2d.hpp), on the host: for every unit it takes, a tile row fits
// the lanes of a staged row (misalignment at both ends included), the staged rows fit the kernel's row limit and
// the default 48 KiB of shared memory, the pitch is odd (bank spread), and tiles keep at least 14 units a side
// (15 beyond 16 bytes).
#include <gtest/gtest.h>

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

}  // namespace
