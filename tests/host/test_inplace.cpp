// In-place transposes on the host: the shuffle maps, the planner (algorithm, direction, workspace bound,
// errors naming the field) and the CPU executor (every small shape and element size, batches, pitched squares).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "common/inplace_shapes.hpp"
#include "common/test_seed.hpp"
#include "cpu/inplace_cpu.hpp"
#include "cuda/tuning/inplace.hpp"
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
// `choice` pins rectangles to shuffle (shuffle_only) or keeps them off staged (no_staged), so that every
// algorithm stays tested on shapes the default plan gives to another; only `any` runs the public plan.
using detail::inplace_choice;
constexpr inplace_choice shuffle_only = inplace_choice::shuffle_only, no_staged = inplace_choice::no_staged;
void check_host(const inplace_problem& p, int threads = 0, inplace_choice choice = inplace_choice::any) {
  SCOPED_TRACE(::testing::Message() << p << ", threads " << threads << ", choice " << static_cast<int>(choice));
  const bool tile_cycles = choice == inplace_choice::any;
  inplace_geometry g;
  std::int64_t span = 0;
  ASSERT_TRUE(detail::make_inplace_geometry(p, g, span, choice));
  const std::int64_t U = p.elem_bytes;
  std::vector<unsigned char> buf(static_cast<std::size_t>(span + 64), 0xEE);
  unsigned char* data = buf.data() + 32;  // guard bytes before and after
  for (std::int64_t b = 0; b < g.batch; ++b)
    for (std::int64_t r = 0; r < g.rows; ++r)
      for (std::int64_t c = 0; c < g.cols; ++c)
        for (std::int64_t k = 0; k < U; ++k) data[((b * g.batch_stride + r * g.ld + c) * U) + k] = pattern(b, r, c, k);
  const std::vector<unsigned char> before = buf;
  if (tile_cycles) {
    auto plan = make_inplace_plan(p);
    ASSERT_TRUE(plan) << plan.error();
    ASSERT_EQ(plan->algo(), g.algo);
    ASSERT_TRUE(plan->execute_host(data, threads));
  } else {
    ASSERT_TRUE(detail::cpu_execute_inplace(g, data, threads));
  }
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

TEST(InplaceMaps, CursorsFollowTheMapsAlongEveryRow) {  // incremental maps == the maps computed whole
  using map = detail::shuffle_cursor::map;
  for (std::int64_t m = 2; m <= 30; ++m)
    for (std::int64_t n = m + 1; n <= 40; ++n) {  // every gcd: rotations, b = 1, c = m
      const std::int64_t c = std::gcd(m, n);
      inplace_geometry g;
      std::int64_t span = 0;
      ASSERT_TRUE(detail::make_inplace_geometry({m, n, 1}, g, span, shuffle_only));
      const detail::shuffle_maps mp(g.m, g.n, g.c, g.b, g.a_inv_mod_b);
      ASSERT_EQ(static_cast<std::int64_t>(mp.c), c);
      for (const map k : {map::rot_minus, map::rot_plus, map::row_d, map::col_s})
        for (std::uint64_t i = 0; i < mp.m; ++i)
          for (std::uint64_t j0 : {std::uint64_t{0}, mp.n / 3, mp.n - 1}) {
            detail::shuffle_cursor cur(mp, k, i, j0);
            for (std::uint64_t j = j0; j < mp.n; ++j, cur.next()) {
              const std::uint64_t want = k == map::rot_minus  ? mp.rot_minus(i, j)
                                         : k == map::rot_plus ? mp.rot_plus(i, j)
                                         : k == map::row_d    ? mp.row_d(i, j)
                                                              : mp.col_s(i, j);
              ASSERT_EQ(cur.f, want) << "m " << mp.m << " n " << mp.n << " map " << static_cast<int>(k) << " (" << i
                                     << ", " << j << ") from " << j0;
            }
          }
    }
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
  EXPECT_EQ(tall->algo(), inplace_algorithm::tile_cycles);  // gcd 1000: 4000-byte units
  EXPECT_EQ(tall->geometry().tile, 1000);
  EXPECT_EQ(tall->geometry().units, 12 * 7000);
  EXPECT_TRUE(tall->geometry().c2r);
  EXPECT_EQ(tall->geometry().m, 7000);
  EXPECT_EQ(tall->geometry().c, 1000);
  inplace_geometry g;
  std::int64_t span = 0;
  ASSERT_TRUE(detail::make_inplace_geometry({12000, 7000, 4}, g, span, shuffle_only));
  EXPECT_EQ(g.algo, inplace_algorithm::shuffle);
  auto prime = make_inplace_plan({8191, 8193, 4});  // gcd 1, two extra columns
  ASSERT_TRUE(prime);
  EXPECT_EQ(prime->algo(), inplace_algorithm::near_square);
  auto prime8 = make_inplace_plan({8191, 8193, 1});  // the same in bytes: square_shift16 at odd pitches
  ASSERT_TRUE(prime8);
  EXPECT_EQ(prime8->algo(), inplace_algorithm::near_square);
  // The repitch's flags: 32 KiB bands of the 8190 moved rows' source bytes, one flag each.
  EXPECT_EQ(prime8->geometry().repitch_bands, (8189 * 8193 + 8191 + (32 << 10) - 1) / (32 << 10));
  EXPECT_EQ(prime8->workspace_bytes(), 8191 * 2 + 4 * (prime8->geometry().repitch_bands + 1) + 512);
  auto huge = make_inplace_plan({600000, 600001, 1});  // 11 M bands: 4096 flags reused
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->algo(), inplace_algorithm::near_square);
  EXPECT_EQ(huge->workspace_bytes(), 600000 + 4 * 4097 + 512);
  auto near = make_inplace_plan({8190, 8192, 4});  // two extra columns, rows of 32 KiB
  ASSERT_TRUE(near);
  EXPECT_EQ(near->algo(), inplace_algorithm::near_square);
  EXPECT_EQ(near->geometry().near_extra, 2);
  auto far = make_inplace_plan({4097, 3001, 8});  // gcd 1, 1096 extra rows
  ASSERT_TRUE(far);
  EXPECT_EQ(far->algo(), inplace_algorithm::shuffle);
  auto skinny = make_inplace_plan({4194304, 4, 4});  // gcd 4: 16-byte tile rows are too small; chunks
  ASSERT_TRUE(skinny);
  EXPECT_EQ(skinny->algo(), inplace_algorithm::skinny_cycles);
  EXPECT_EQ(skinny->geometry().tile, 512);  // 2 KiB units
  EXPECT_FALSE(skinny->geometry().units_first);
  auto wide_plan = make_inplace_plan({3, 1048576, 4});  // 12 MiB: staged, unless pinned off it
  ASSERT_TRUE(wide_plan);
  EXPECT_EQ(wide_plan->algo(), inplace_algorithm::staged);
  inplace_geometry wide_g;
  ASSERT_TRUE(detail::make_inplace_geometry({3, 1048576, 4}, wide_g, span, no_staged));
  const inplace_geometry* wide = &wide_g;
  EXPECT_EQ(wide->algo, inplace_algorithm::skinny_cycles);
  EXPECT_TRUE(wide->units_first);
  auto prime_skinny = make_inplace_plan({1048573, 3, 4});  // a prime long side: no chunks; 12 MiB: staged
  ASSERT_TRUE(prime_skinny);
  EXPECT_EQ(prime_skinny->algo(), inplace_algorithm::staged);
  EXPECT_EQ(prime_skinny->geometry().group, 1);
  EXPECT_EQ(prime_skinny->workspace_bytes(), 1048573 * 3 * 4 + 256);
  auto batch = make_inplace_plan({501, 133, 2, 300});  // 251 matrices fill 32 MiB; a last group of 49
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->algo(), inplace_algorithm::staged);
  EXPECT_EQ(batch->geometry().group, 251);
  EXPECT_LE(batch->workspace_bytes(), (32 << 20) + 256);
  auto over = make_inplace_plan({6001, 2999, 3});  // 51 MiB, not near square: blocks of 353 rows (6001 = 17 x 353)
  ASSERT_TRUE(over);
  EXPECT_EQ(over->algo(), inplace_algorithm::staged_blocks);
  EXPECT_EQ(over->geometry().tile, 353);
  EXPECT_EQ(over->geometry().blocks, 17);
  EXPECT_EQ(over->geometry().group, 10);  // blocks of 3.2 MB, 10 in 32 MiB (then 7)
  EXPECT_EQ(over->geometry().staged_back_last.batch_count(), 7);
  EXPECT_FALSE(over->geometry().units_first);
  for (const inplace_problem& p : {inplace_problem{4097, 3001, 3}, inplace_problem{3001, 4097, 3},
                                   inplace_problem{8191, 8193, 5}, inplace_problem{7919, 7907, 12}}) {
    auto near = make_inplace_plan(p);  // other units: the square pass through square_gather_any
    ASSERT_TRUE(near);
    EXPECT_EQ(near->algo(), inplace_algorithm::near_square) << p;
    EXPECT_LE(near->workspace_bytes(), (24 << 20) + 4 * 4097 + 512) << p;
  }
  auto words = make_inplace_plan({3001, 4097, 4});  // 4-byte units: near_square's part at most 8 MiB
  ASSERT_TRUE(words);
  EXPECT_EQ(words->algo(), inplace_algorithm::shuffle);
  auto odd8 = make_inplace_plan({8191, 16385, 1});  // 16385 = 5 x 29 x 113: the unit pass, then 5 blocks of columns
  ASSERT_TRUE(odd8);
  EXPECT_EQ(odd8->algo(), inplace_algorithm::staged_blocks);
  EXPECT_EQ(odd8->geometry().tile, 3277);
  EXPECT_TRUE(odd8->geometry().units_first);
  EXPECT_LE(odd8->workspace_bytes(), (32 << 20) + 256);
  auto primes8 = make_inplace_plan({7919, 12007, 1});  // no divisor, not near square: shuffle
  ASSERT_TRUE(primes8);
  EXPECT_EQ(primes8->algo(), inplace_algorithm::shuffle);
  auto words4 = make_inplace_plan({6001, 2999, 4});  // 4-byte words: shuffle (staged_blocks is for 1 and 2)
  ASSERT_TRUE(words4);
  EXPECT_EQ(words4->algo(), inplace_algorithm::shuffle);
  auto big_gcd = make_inplace_plan({16384, 8192, 4});  // the largest divisor of 8192 with units <= 8 KiB
  ASSERT_TRUE(big_gcd);
  EXPECT_EQ(big_gcd->algo(), inplace_algorithm::tile_cycles);
  EXPECT_EQ(big_gcd->geometry().tile, 2048);
  EXPECT_FALSE(wide->c2r);
  EXPECT_EQ(wide->m, 3);
}

// Replays tile_cycles' unit pass on unit ids alone: the plan's segments (from their saved first units) and
// the short cycles found by leads_short_cycle must move every unit exactly to unit_cycle_map's target.
void check_cycle_table(const inplace_problem& p) {
  SCOPED_TRACE(::testing::Message() << p);
  inplace_geometry g;
  std::int64_t span = 0;
  ASSERT_TRUE(detail::make_inplace_geometry(p, g, span, no_staged));
  ASSERT_TRUE(g.algo == inplace_algorithm::tile_cycles || g.algo == inplace_algorithm::skinny_cycles) << g;
  const std::int64_t K = static_cast<std::int64_t>(g.segments.size() / 2);
  EXPECT_LE(K, detail::inplace_tuning::max_cycle_segments);
  EXPECT_LE(g.batch * K * g.tile * g.elem_bytes, detail::inplace_tuning::cycle_workspace_budget);
  EXPECT_EQ(g.units * g.tile, g.rows * g.cols);
  EXPECT_EQ(g.map_a * g.map_t * g.map_b, g.units);
  const detail::unit_cycle_map map(g.map_a, g.map_t, g.map_b);
  const auto N = static_cast<std::uint32_t>(g.units);
  std::vector<std::uint32_t> at(N);  // unit id now at each position
  std::iota(at.begin(), at.end(), 0u);
  std::vector<std::uint32_t> saved(static_cast<std::size_t>(K));
  for (std::int64_t s = 0; s < K; ++s) saved[static_cast<std::size_t>(s)] = at[g.segments[2 * static_cast<std::size_t>(s)]];
  std::vector<int> writes(N, 0);
  auto walk = [&](std::uint32_t start, std::uint32_t stop, std::uint32_t carry) {
    for (std::uint32_t x = start;;) {
      const std::uint32_t y = map.next(x);
      const std::uint32_t next = at[y];
      at[y] = carry;
      ++writes[y];
      if (y == stop) return;
      carry = next;
      x = y;
    }
  };
  for (std::int64_t s = 0; s < K; ++s)
    walk(g.segments[2 * static_cast<std::size_t>(s)], g.segments[2 * static_cast<std::size_t>(s) + 1],
         saved[static_cast<std::size_t>(s)]);
  for (std::uint32_t u = 0; u < N; ++u)
    if (detail::leads_short_cycle(map, u, static_cast<std::uint32_t>(g.short_cycle))) walk(u, u, at[u]);
  std::int64_t wrong = 0, twice = 0;
  for (std::uint32_t u = 0; u < N; ++u) {
    wrong += at[map.next(u)] != u;
    twice += writes[u] > 1 || (writes[u] == 0 && map.next(u) != u);
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(twice, 0) << "units written other than once (fixed points: never)";
}

TEST(InplacePlan, UnitCyclesSegmentsCoverEveryCycleOnce) {
  check_cycle_table({12000, 7000, 4});
  check_cycle_table({7000, 12000, 4});
  check_cycle_table({16384, 8192, 4});
  check_cycle_table({20000, 30000, 1});
  check_cycle_table({30000, 20000, 2});
  check_cycle_table({5000, 3000, 16});
  check_cycle_table({1080, 1920, 3});
  check_cycle_table({1000, 100, 4, 50});  // batches: one table for every matrix
  check_cycle_table({100, 50, 4, 1000});
  check_cycle_table({96, 64, 4});
  check_cycle_table({2, 1 << 17, 64});
  check_cycle_table({1048576, 3, 4});  // skinny_cycles
  check_cycle_table({3, 1048576, 4});
  check_cycle_table({4194304, 4, 4});
  check_cycle_table({1 << 20, 16, 1});
  check_cycle_table({7, 3000, 8, 5});
}

// Every cycle in the table when they fit it (no leader tests: short_cycle 0), else the long cycles' segments
// and the executors' leader tests for the rest.
TEST(InplacePlan, EveryCycleListedWhenTheTableHoldsThem) {
  auto geometry = [](const inplace_problem& p) {
    inplace_geometry g;
    std::int64_t span = 0;
    EXPECT_TRUE(detail::make_inplace_geometry(p, g, span, no_staged));
    return g;
  };
  const inplace_geometry listed = geometry({12000, 7000, 4});  // tile_cycles whose cycles fit the table
  EXPECT_EQ(listed.short_cycle, 0);
  EXPECT_GT(listed.segments.size(), 0u);
  EXPECT_LE(static_cast<std::int64_t>(listed.segments.size() / 2), detail::inplace_tuning::max_cycle_segments);
  const inplace_geometry tested = geometry({16384, 8192, 4});  // more cycles than the table holds
  EXPECT_GT(tested.short_cycle, 0);
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

// The GPU executor's square_gather tiles (tuning/inplace.hpp), checked where CI runs: for every unit it takes,
// a power-of-two side of whole 16-byte chunks a row, the pair's loads within what its kernels hold (L <= 12),
// and shared memory within sm_90's 227 KiB opt-in maximum; units past the maximum take none.
TEST(InplaceTuning, SquareGatherTilesFitTheirKernels) {
  using namespace detail;
  for (int unit = 1; unit <= square_gather_max_unit; ++unit) {
    SCOPED_TRACE(::testing::Message() << "unit " << unit);
    const int T = square_gather_tile(unit), threads = square_gather_threads(unit);
    ASSERT_GE(T, 16);
    EXPECT_EQ(T & (T - 1), 0);
    EXPECT_EQ(T * unit % 16, 0);
    EXPECT_TRUE(threads == 256 || threads == 512);
    EXPECT_GE(square_gather_loads(unit), 1);
    EXPECT_LE(square_gather_loads(unit), square_gather_max_loads);
    if (threads == 512) EXPECT_GT(square_gather_loads(unit), 4) << "512-thread blocks are built for 8 and 12 loads";
    EXPECT_EQ(square_gather_smem(unit), 2 * std::int64_t{T} * (T * unit + 16));
    EXPECT_LE(square_gather_smem(unit), std::int64_t{227} << 10);
  }
  EXPECT_EQ(square_gather_tile(square_gather_max_unit + 1), 0);
  EXPECT_EQ(square_gather_tile(0), 0);
  // Wide tiles: the dispatcher builds them for 1- and 2-byte granules with 8 loads a thread in 1024 threads.
  for (int unit = 1; unit <= square_gather_max_unit; ++unit) {
    SCOPED_TRACE(::testing::Message() << "wide, unit " << unit);
    if (!square_gather_wide_unit(unit)) {
      EXPECT_EQ(square_gather_tile(unit, true), 0);
      continue;
    }
    EXPECT_NE(unit % 4, 0) << "wide builds: granules of 1 or 2 bytes";
    const int T = square_gather_tile(unit, true);
    EXPECT_GT(T, square_gather_tile(unit)) << "wider than the plain tiles";
    EXPECT_EQ(T * unit % 16, 0);
    EXPECT_EQ(square_gather_threads(unit, true), 1024);
    EXPECT_GT(square_gather_loads(unit, true), 4);
    EXPECT_LE(square_gather_loads(unit, true), 8);
    EXPECT_LE(square_gather_smem(unit, true), std::int64_t{227} << 10);
  }
}

TEST(InplacePlan, EmptyProblemsWithHugeFieldsMoveNothing) {  // fuzz reproducer: the payload overflowed
  for (const inplace_problem& p : {inplace_problem{0, std::int64_t{1} << 40, std::int64_t{1} << 28, std::int64_t{1} << 40},
                                   inplace_problem{std::int64_t{1} << 40, 0, 16, std::int64_t{1} << 30},
                                   inplace_problem{std::int64_t{1} << 40, std::int64_t{1} << 20, 8, 0}}) {
    auto plan = make_inplace_plan(p);
    ASSERT_TRUE(plan) << plan.error();
    EXPECT_EQ(plan->payload_bytes(), 0) << p;
    EXPECT_EQ(plan->span_bytes(), 0) << p;
    EXPECT_TRUE(plan->execute_host(nullptr)) << p;
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
      {{59, 1, 4, 2, 2}, "ld"},  // a pitched column: its transpose (a packed row) moves data (fuzz reproducer)
      {{4, 4, 4, 2, 0, -5}, "batch_stride"},
      {{4, 4, 4, 2, 0, 10}, "batch_stride"},
      {{std::int64_t{1} << 40, std::int64_t{1} << 40, 4}, "overflow"},
      {{1 << 20, 1 << 20, 1, std::int64_t{1} << 30}, "overflow"},
      // rows x ld passes 2^63 while the span, (rows - 1) x ld + cols, does not (fuzz reproducer, UBSan)
      {{std::int64_t{1} << 31, std::int64_t{1} << 31, 1, 1, std::int64_t{1} << 32}, "overflow"},
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

TEST(InplaceHost, EveryShapeUpTo64AndEveryElementSize) {  // default plans (staged, mostly) and shuffle alone
  for (std::int64_t U : {1, 2, 3, 4, 8, 12, 16})
    for (std::int64_t r = 1; r <= 64; r += (U == 1 || U == 4) ? 1 : 3)
      for (std::int64_t c = 1; c <= 64; ++c) {
        check_host({r, c, U}, 1);
        if (r != c) check_host({r, c, U}, 1, shuffle_only);
      }
}

TEST(InplaceHost, StagedGroupsBatchesAndGaps) {
  check_host({4097, 3001, 1});
  check_host({3001, 4097, 2}, 1);
  check_host({501, 133, 2, 300, 0, 501 * 133 + 3});  // groups of 251 and 49 matrices, odd gaps: gathered
  check_host({97, 89, 3, 5});
  check_host({89, 97, 16, 7, 0, 89 * 97 + 1}, 2);
  for (const inplace_problem& p : {inplace_problem{4097, 3001, 1}, inplace_problem{501, 133, 2, 300, 0, 501 * 133 + 3}}) {
    auto plan = make_inplace_plan(p);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->algo(), inplace_algorithm::staged) << p;
  }
}

// Over 32 MiB and not near square (or batched): 4097 = 17 x 241, 10001 = 73 x 137, 6001 = 17 x 353, 5999 = 7 x 857.
TEST(InplaceHost, StagedBlocksOfRowsOrColumnsBatchesAndGaps) {
  for (const inplace_problem& p : {inplace_problem{4097, 10001, 1}, inplace_problem{10001, 4097, 1},
                                   inplace_problem{2999, 6001, 3}, inplace_problem{6001, 5999, 1, 2, 0, 6001 * 5999 + 5}}) {
    auto plan = make_inplace_plan(p);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->algo(), inplace_algorithm::staged_blocks) << p;
    check_host(p, 0);
  }
  auto cols = make_inplace_plan({6001, 5999, 1, 2}), rows = make_inplace_plan({5999, 6001, 1, 2});
  EXPECT_TRUE(cols->geometry().units_first);  // 42007 units of 857 columns' width, not 101983 of 353 rows
  EXPECT_FALSE(rows->geometry().units_first);
}

TEST(InplaceHost, BatchesPitchedSquaresAndGaps) {
  check_host({37, 37, 4, 3, 41, 0});          // pitched squares, packed batch of pitched matrices
  check_host({37, 37, 8, 3, 40, 37 * 40 + 9});  // gaps between matrices
  check_host({5, 9, 2, 7, 0, 0});             // batch of rectangles
  check_host({9, 5, 16, 4, 0, 50});           // rectangles with gaps
  check_host({100, 100, 1, 2, 128, 0}, 2);
  check_host({1, 59, 4, 2, 64, 0});  // a pitched row is its own transpose
}

TEST(InplaceHost, ShuffleOnShapesThatTakeTileCycles) {
  for (std::int64_t U : {1, 4, 16})
    for (std::int64_t r : {32, 48, 64})
      for (std::int64_t c : {16, 32, 96, 128}) check_host({r, c, U}, 0, shuffle_only);
  check_host({600, 400, 4}, 0, shuffle_only);
}

TEST(InplaceHost, TileCyclesLargerShapesAndBatches) {
  check_host({1200, 700, 4}, 0, no_staged);  // gcd 100
  check_host({700, 1200, 4}, 0, no_staged);
  check_host({960, 640, 2, 3}, 0, no_staged);  // batch of 3
  check_host({100, 50, 4, 40, 0, 100 * 50 + 7}, 0, no_staged);  // gaps between matrices
  check_host({1080, 1920, 3}, 2, no_staged);
  check_host({256, 4096, 1}, 0, no_staged);
  check_host({693, 1155, 1}, 0, no_staged);  // 231-byte units
}

TEST(InplaceHost, SkinnyCyclesTallWideBatchesAndOddUnits) {
  check_host({4096, 3, 4}, 0, no_staged);
  check_host({3, 4096, 4}, 0, no_staged);
  check_host({65536, 4, 2}, 2, no_staged);
  check_host({4, 65536, 1}, 0, no_staged);
  check_host({4097, 3, 4}, 0, no_staged);  // 4097 = 17 x 241: 68-byte units
  check_host({6000, 5, 6, 3}, 0, no_staged);
  check_host({7, 3000, 8, 2, 0, 7 * 3000 + 5}, 0, no_staged);
  check_host({2048, 17, 3}, 0, no_staged);
}

TEST(InplaceHost, NearSquareEverySmallShape) {
  const std::vector<inplace_problem> shapes = test::small_near_squares();
  EXPECT_GT(shapes.size(), 1000u);
  for (const inplace_problem& p : shapes) check_host(p, 0, no_staged);
}

TEST(InplaceHost, NearSquareTallAndWide) {
  for (const inplace_problem& p : {inplace_problem{700, 704, 4}, inplace_problem{704, 700, 4},
                                   inplace_problem{1000, 1008, 2}, inplace_problem{1024, 1040, 1},
                                   inplace_problem{1030, 1024, 16}, inplace_problem{1000, 1498, 8},
                                   inplace_problem{1001, 1003, 3}, inplace_problem{1003, 1001, 5},
                                   inplace_problem{700, 1001, 6}}) {
    inplace_geometry g;
    std::int64_t span = 0;
    ASSERT_TRUE(detail::make_inplace_geometry(p, g, span, no_staged));
    EXPECT_EQ(g.algo, inplace_algorithm::near_square) << p;
    check_host(p, 0, no_staged);
  }
  check_host({1000, 1498, 8}, 2, no_staged);
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
