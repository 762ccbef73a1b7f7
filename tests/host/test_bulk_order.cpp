// The bulk kernels' tile order (cuda/tuning/bulk.hpp), on the host: columns first for matrices of few tile columns,
// otherwise panels of tile rows that respect the cap and differ by at most one row.
#include <gtest/gtest.h>

#include <cstdint>

#include "cuda/tuning/bulk.hpp"

namespace {

using xpose::detail::bulk_panel_rows;

TEST(BulkOrder, ColumnsFirstOnlyForFewTileColumns) {
  constexpr std::int64_t resident = 264;  // H100: 2 blocks on each of 132 SMs
  EXPECT_EQ(bulk_panel_rows(4096, 4, resident), 1);   // 1048576 x 512
  EXPECT_EQ(bulk_panel_rows(256, 8, resident), 1);    // 65536 x 1024
  EXPECT_EQ(bulk_panel_rows(128, 32, resident), 1);   // 32768 x 4096
  EXPECT_EQ(bulk_panel_rows(79, 32, resident), 1);    // 20000 x 4000
  EXPECT_EQ(bulk_panel_rows(40, 79, resident), 40);   // 10000^2: one panel, rows fastest
  EXPECT_EQ(bulk_panel_rows(32, 64, resident), 32);   // 8192^2
  EXPECT_EQ(bulk_panel_rows(64, 128, resident), 64);  // 16384^2
  EXPECT_EQ(bulk_panel_rows(65, 65, 792), 65);        // fp32 4100 x 4104 (bulk16: 6 blocks an SM)
  EXPECT_EQ(bulk_panel_rows(1024, 16, 792), 1);       // fp32 65536 x 1024
  EXPECT_EQ(bulk_panel_rows(1000, 40, 264), 125);     // capped at 132 rows: 8 balanced panels of 125
}

TEST(BulkOrder, PanelsAreBalancedAndCapped) {
  for (std::int64_t resident : {2, 8, 264, 1000})
    for (std::int64_t tiles_r = 1; tiles_r <= 2000; tiles_r += 7)
      for (std::int64_t tiles_c : {1, 40, 300, 5000}) {
        SCOPED_TRACE(::testing::Message() << resident << " resident, " << tiles_r << " x " << tiles_c << " tiles");
        const std::int64_t p = bulk_panel_rows(tiles_r, tiles_c, resident);
        ASSERT_GE(p, 1);
        if (p == 1) continue;
        EXPECT_LE(p, std::max<std::int64_t>(resident / 2, 1));
        EXPECT_LE(p, tiles_r);
        const std::int64_t panels = (tiles_r + p - 1) / p, last = tiles_r - (panels - 1) * p;
        EXPECT_GE(last, 1);
        EXPECT_LE(p - last, panels - 1);  // ceil-balanced: the last panel is short by less than one row a panel
      }
}

}  // namespace
