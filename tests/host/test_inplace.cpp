// In-place transposes on the host: the shuffle maps, the planner (algorithm, direction, workspace bound,
// errors naming the field) and the CPU executor (every small shape and element size, batches, pitched squares).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "common/test_seed.hpp"
#include "plan/inplace.hpp"
#include "plan/inplace_maps.hpp"
#include "xpose/inplace.hpp"

namespace {

using namespace xpose;

// Byte pattern of element (b, r, c) byte k: distinct across nearby elements, never all zero.
unsigned char pattern(std::int64_t b, std::int64_t r, std::int64_t c, std::int64_t k) {
  const std::uint64_t x = (static_cast<std::uint64_t>(b) * 0x9E3779B97F4A7C15ull) ^
                          (static_cast<std::uint64_t>(r) * 0xC2B2AE3D27D4EB4Full) ^
                          (static_cast<std::uint64_t>(c) * 0x165667B19E3779F9ull) ^ static_cast<std::uint64_t>(k);
  return static_cast<unsigned char>((x >> 29) ^ (x >> 7) ^ x) | 1;
}

// Fills a batch (with gaps poisoned 0xEE), transposes it on the host, and checks every byte: the transposed
// elements, and the gaps (between pitched rows and between matrices) untouched.
void check_host(const inplace_problem& p, int threads = 0) {
  SCOPED_TRACE(::testing::Message() << p << ", threads " << threads);
  auto plan = make_inplace_plan(p);
  ASSERT_TRUE(plan) << plan.error();
  const inplace_geometry& g = plan->geometry();
  const std::int64_t U = p.elem_bytes;
  std::vector<unsigned char> buf(static_cast<std::size_t>(plan->span_bytes() + 64), 0xEE);
  unsigned char* data = buf.data() + 32;  // guard bytes before and after
  for (std::int64_t b = 0; b < g.batch; ++b)
    for (std::int64_t r = 0; r < g.rows; ++r)
      for (std::int64_t c = 0; c < g.cols; ++c)
        for (std::int64_t k = 0; k < U; ++k) data[((b * g.batch_stride + r * g.ld + c) * U) + k] = pattern(b, r, c, k);
  const std::vector<unsigned char> before = buf;
  ASSERT_TRUE(plan->execute_host(data, threads));
  const std::int64_t out_ld = g.rows == g.cols ? g.ld : g.rows;
  std::vector<char> touched(buf.size(), 0);
  std::int64_t bad = 0;
  for (std::int64_t b = 0; b < g.batch; ++b)
    for (std::int64_t r = 0; r < g.rows; ++r)
      for (std::int64_t c = 0; c < g.cols; ++c)
        for (std::int64_t k = 0; k < U; ++k) {
          const std::int64_t at = 32 + (b * g.batch_stride + c * out_ld + r) * U + k;
          touched[static_cast<std::size_t>(at)] = 1;
          if (buf[static_cast<std::size_t>(at)] != pattern(b, r, c, k) && bad++ < 5)
            ADD_FAILURE() << "element (" << b << ", " << r << ", " << c << ") byte " << k << " wrong";
        }
  for (std::size_t i = 0; i < buf.size(); ++i)
    if (!touched[i] && buf[i] != before[i] && bad++ < 10) ADD_FAILURE() << "byte " << i << " outside the matrices changed";
  EXPECT_EQ(bad, 0);
}

TEST(InplaceMaps, RowMapInverseHoldsIncludingHugeRows) {
  for (std::int64_t m = 1; m <= 24; ++m)
    for (std::int64_t n = 1; n <= 24; ++n) {
      inplace_geometry g;
      std::int64_t span = 0;
      ASSERT_TRUE(detail::make_inplace_geometry({m, n + (m == n ? 1 : 0), 4, 1, 0, 0}, g, span));
      if (g.algo != inplace_algorithm::shuffle) continue;
      const detail::shuffle_maps mp(g.m, g.n, g.c, g.b, g.a_inv_mod_b);
      for (std::uint64_t i = 0; i < mp.m; ++i)
        for (std::uint64_t j = 0; j < mp.n; ++j) ASSERT_EQ(mp.row_d_inv(i, mp.row_d(i, j)), j) << g;
    }
  // b > 2^32 takes mulmod's slow path: 3 x (2^33 + 1).
  inplace_geometry g;
  std::int64_t span = 0;
  ASSERT_TRUE(detail::make_inplace_geometry({3, (std::int64_t{1} << 33) + 1, 1, 1, 0, 0}, g, span));
  const detail::shuffle_maps mp(g.m, g.n, g.c, g.b, g.a_inv_mod_b);
  std::mt19937_64 rng(test::announced_test_seed(7));
  for (int t = 0; t < 2000; ++t) {
    const std::uint64_t i = rng() % mp.m, j = rng() % mp.n;
    ASSERT_EQ(mp.row_d_inv(i, mp.row_d(i, j)), j);
  }
  EXPECT_EQ(detail::mulmod(0xFFFFFFFFFFull, 0x123456789ABull, 0x7FFFFFFFFFFFFFE7ull),
            static_cast<std::uint64_t>((static_cast<detail::uint128_t>(0xFFFFFFFFFFull) * 0x123456789ABull) %
                                       0x7FFFFFFFFFFFFFE7ull));
}

TEST(InplacePlan, ChoosesTheAlgorithmAndTheShorterColumns) {
  auto sq = make_inplace_plan({8192, 8192, 4});
  ASSERT_TRUE(sq);
  EXPECT_EQ(sq->algo(), inplace_algorithm::square);
  EXPECT_EQ(sq->workspace_bytes(), 0);
  auto vec = make_inplace_plan({1, 1000, 4});
  ASSERT_TRUE(vec);
  EXPECT_EQ(vec->algo(), inplace_algorithm::none);
  auto tall = make_inplace_plan({12000, 7000, 4});
  ASSERT_TRUE(tall);
  EXPECT_EQ(tall->algo(), inplace_algorithm::shuffle);
  EXPECT_TRUE(tall->geometry().c2r);
  EXPECT_EQ(tall->geometry().m, 7000);
  EXPECT_EQ(tall->geometry().c, 1000);
  auto wide = make_inplace_plan({3, 1048576, 4});
  ASSERT_TRUE(wide);
  EXPECT_FALSE(wide->geometry().c2r);
  EXPECT_EQ(wide->geometry().m, 3);
}

TEST(InplacePlan, WorkspaceStaysWithinTheStatedBound) {
  const std::int64_t shapes[][3] = {{12000, 7000, 4}, {16384, 8192, 4}, {8191, 8193, 4}, {1048576, 3, 4},
                                    {3, 1048576, 4},  {4194304, 4, 4},  {20000, 30000, 1}, {600000, 600001, 1},
                                    {100000, 7, 16},  {7, 100000, 256}, {1 << 20, 1 << 19, 2}, {5, 7, 3}};
  for (const auto& s : shapes) {
    auto p = make_inplace_plan({s[0], s[1], s[2]});
    ASSERT_TRUE(p) << p.error();
    const std::int64_t bound = std::max(std::max(s[0], s[1]) * s[2], std::int64_t{32} << 20) + 256;
    EXPECT_LE(p->workspace_bytes(), bound) << *p;
    EXPECT_LT(p->workspace_bytes(), std::max<std::int64_t>(s[0] * s[1] * s[2] / 2, 1 << 20) + (32 << 20) + 256) << *p;
  }
}

TEST(InplacePlan, ErrorsNameTheField) {
  struct bad_case {
    inplace_problem p;
    const char* field;
  } cases[] = {
      {{-1, 4, 4}, "rows"},
      {{4, -1, 4}, "cols"},
      {{4, 4, 0}, "elem_bytes"},
      {{4, 4, 4, -2}, "batch"},
      {{4, 4, 4, 1, -1}, "ld"},
      {{4, 4, 4, 1, 3}, "ld"},
      {{4, 6, 4, 1, 8}, "ld"},
      {{4, 4, 4, 2, 0, -5}, "batch_stride"},
      {{4, 4, 4, 2, 0, 10}, "batch_stride"},
      {{std::int64_t{1} << 40, std::int64_t{1} << 40, 4}, "overflow"},
      {{1 << 20, 1 << 20, 1, std::int64_t{1} << 30}, "overflow"},
  };
  for (const auto& c : cases) {
    auto p = make_inplace_plan(c.p);
    ASSERT_FALSE(p) << c.p;
    EXPECT_EQ(p.error().code(), status_code::invalid_argument);
    EXPECT_NE(p.error().message().find(c.field), std::string::npos) << p.error();
  }
  auto ok = make_inplace_plan({8, 6, 4});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->execute_host(nullptr).code(), status_code::invalid_argument);
  EXPECT_NE(ok->execute_host(nullptr).message().find("data"), std::string::npos);
  std::vector<float> v(48);
  EXPECT_EQ(ok->execute_host(v.data(), -1).code(), status_code::invalid_argument);
  EXPECT_TRUE(make_inplace_plan({0, 5, 4})->execute_host(nullptr));  // empty: nothing to touch
#if !XPOSE_HAS_CUDA
  EXPECT_EQ(ok->execute(v.data()).code(), status_code::unsupported);
#endif
}

TEST(InplaceHost, EveryShapeUpTo64AndEveryElementSize) {
  for (std::int64_t U : {1, 2, 3, 4, 8, 12, 16})
    for (std::int64_t r = 1; r <= 64; r += (U == 1 || U == 4) ? 1 : 3)
      for (std::int64_t c = 1; c <= 64; ++c) check_host({r, c, U}, 1);
}

TEST(InplaceHost, BatchesPitchedSquaresAndGaps) {
  check_host({37, 37, 4, 3, 41, 0});          // pitched squares, packed batch of pitched matrices
  check_host({37, 37, 8, 3, 40, 37 * 40 + 9});  // gaps between matrices
  check_host({5, 9, 2, 7, 0, 0});             // batch of rectangles
  check_host({9, 5, 16, 4, 0, 50});           // rectangles with gaps
  check_host({100, 100, 1, 2, 128, 0}, 2);
}

TEST(InplaceHost, RandomLargerShapesOnAllThreads) {
  std::mt19937_64 rng(test::announced_test_seed(20261124));
  for (int t = 0; t < 12; ++t) {
    const std::int64_t r = 1 + static_cast<std::int64_t>(rng() % 700), c = 1 + static_cast<std::int64_t>(rng() % 700);
    const std::int64_t sizes[] = {1, 2, 4, 8, 16, 6};
    check_host({r, c, sizes[rng() % 6]});
  }
  check_host({1000, 1000, 4});
  check_host({4097, 3, 4});
  check_host({3, 4097, 4});
  check_host({600, 400, 4});  // gcd 200: the rotation pass
  check_host({65536, 4, 2});
}

}  // namespace
