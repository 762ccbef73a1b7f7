// Box tiles (plan/box.hpp): which geometries take a box, and that boxes times their batch move every byte
// where the problem says (a host simulation of kernels/box.cuh's loops against the reference).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/box_simulation.hpp"
#include "common/reference.hpp"
#include "common/test_seed.hpp"
#include "cuda/tuning/box.hpp"
#include "plan/box.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::problem;

// Runs the box simulation on a packed problem's random input: "" when it gives the reference's output.
std::string box_byte_map_error(const problem& p, const xpose::plan& plan, const xpose::detail::box_plan& b,
                               std::uint64_t seed) {
  const auto bytes = static_cast<std::size_t>(plan.payload_bytes());
  const auto in = xpose::test::random_bytes(bytes, seed ^ bytes);
  std::vector<unsigned char> expected(bytes, 0xA5), got(bytes, 0xA5);
  xpose::test::reference_permute(p, in.data(), expected.data());
  const auto span = static_cast<std::int64_t>(bytes);
  if (std::string err = xpose::test::simulate_box(b, in.data(), span, got.data(), span); !err.empty()) return err;
  return got == expected ? "" : "the boxes' output differs from the reference";
}

void expect_box_matches_reference(const problem& p, std::int64_t min_volume,
                                  std::int64_t cap = xpose::detail::box_max_volume) {
  SCOPED_TRACE(::testing::Message() << "problem: " << p << " cap " << cap);
  auto plan = xpose::make_plan(p);
  ASSERT_TRUE(plan) << plan.error();
  xpose::detail::box_plan b;
  ASSERT_TRUE(xpose::detail::make_box(plan->geometry(), b, cap)) << *plan;
  EXPECT_GE(b.volume, min_volume);
  EXPECT_LE(b.volume, cap);
  EXPECT_LE(b.volume, xpose::detail::box_volume_limit(b.unit_bytes));
  EXPECT_LE(b.volume * b.unit_bytes, xpose::detail::box_max_bytes);
  // Input-order axes ascend in input stride; out_order ascends in output stride.
  for (int k = 1; k < b.rank; ++k) EXPECT_LT(b.axis[k - 1].in_stride, b.axis[k].in_stride);
  for (int k = 1; k < b.rank; ++k) EXPECT_LT(b.axis[b.out_order[k - 1]].out_stride, b.axis[b.out_order[k]].out_stride);
  EXPECT_EQ(box_byte_map_error(p, *plan, b, xpose::test::test_seed(20261124)), "");
}

TEST(Box, OneByteUnitsTakeLargerBoxesWithLongerRuns) {
  // Tiles of 30 x 80 units: with 4096 units a box the input runs stay 80 units (for bytes, over twice the
  // tile's 30-unit side: box16 takes it, where units of >= 2 bytes want 128-byte runs); box16's limit (8192)
  // takes 3 of the next axis (runs of 240 / 2400 units), and so does 2-byte units' (the same 8192); 4-byte
  // units keep 4096.
  const problem u8{{30, 24, 42, 220, 2, 40}, {2, 3, 1, 4, 5, 0}, 1, {}, {}};
  auto plan = xpose::make_plan(u8);
  ASSERT_TRUE(plan) << plan.error();
  xpose::detail::box_plan b;
  ASSERT_TRUE(xpose::detail::make_box(plan->geometry(), b, xpose::detail::box_max_volume)) << *plan;
  EXPECT_EQ(b.volume, 2400);
  EXPECT_EQ(std::min(b.in_run, b.out_run), 80);
  EXPECT_EQ(xpose::detail::box_volume_limit(1), xpose::detail::box16_max_volume);
  EXPECT_EQ(xpose::detail::box_volume_limit(4), xpose::detail::box_max_volume);
  EXPECT_EQ(xpose::detail::box_volume_limit(2), xpose::detail::box16_max_volume);
  for (std::int64_t e : {1, 2, 4}) {
    const problem p{{30, 24, 42, 220, 2, 40}, {2, 3, 1, 4, 5, 0}, e, {}, {}};
    expect_box_matches_reference(p, e <= 2 ? 7200 : 2400, xpose::detail::box_volume_limit(e));
  }
  // The N-d suite's worst case grows past its 1428 units for bytes.
  expect_box_matches_reference(problem{{7, 3, 2, 9, 41, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}, 1, {}, {}}, 1428,
                               xpose::detail::box16_max_volume);
}

TEST(Box, BlockedFastestAxesTakeBoxesThatMoveEveryByteOnce) {
  // Long sides split to fit: tiles of 30 x 80 units (the box is the tile: runs 80 / 2400), 21 x 3375[675 * 5]
  // (21 x 5 x 27), 1926[642 * 3] x 9[3 * 3].
  expect_box_matches_reference(problem{{6, 4, 7, 11, 2, 40}, {2, 3, 1, 4, 5, 0}, 4, {}, {}}, 1);
  expect_box_matches_reference(problem{{21, 7, 2, 3, 27, 25, 5}, {4, 5, 3, 2, 1, 6, 0}, 4, {}, {}}, 2835);
  expect_box_matches_reference(problem{{3, 16, 7, 3, 14, 3, 3, 3}, {1, 2, 0, 7, 6, 4, 5, 3}, 4, {}, {}}, 1);
  // The N-d suite's worst case (tiles of 4 x 51 units): box {51, 2, 2, 7} = 1428 units, runs 714 / 204.
  expect_box_matches_reference(problem{{7, 3, 2, 9, 41, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}, 4, {}, {}}, 1428);
  // 5 x 44 transposes inside contiguous blocks, the next axis (85) split by an exact divisor.
  expect_box_matches_reference(problem{{7, 9, 85, 5, 44}, {1, 0, 2, 4, 3}, 4, {}, {}}, 220 * 5);
  // Every unit size: with 32 KiB a box, 16-byte units fit the 7 too (1428 x 16 B = 22.3 KiB).
  for (std::int64_t e : {1, 2, 8, 16})
    expect_box_matches_reference(problem{{7, 3, 2, 9, 41, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}, e, {}, {}}, 1428);
}

TEST(Box, SmallProblemsTakeSmallerBoxesSoThatEverySmHasSome) {
  using xpose::detail::box_volume_cap;
  EXPECT_EQ(box_volume_cap(std::int64_t{1} << 27, 132), xpose::detail::box_max_volume);  // large: unchanged
  EXPECT_EQ(box_volume_cap(4096 * 264, 132), 4096);
  EXPECT_EQ(box_volume_cap(4096 * 264 - 1, 132), 2048);
  EXPECT_EQ(box_volume_cap(65536, 132), xpose::detail::box_min_volume_cap);  // 16^4: 256 boxes of 256
  EXPECT_EQ(box_volume_cap(0, 132), xpose::detail::box_min_volume_cap);
  // 16^4 axes 2,0,3,1: 16 boxes of 4096 units (16 blocks on a GPU) without the cap, 64 of 1024 with one;
  // at 256 no box doubles the tiles' runs, and the problem goes to tiles (H100: 22 us -> 4.4 us).
  const problem p{{16, 16, 16, 16}, {2, 0, 3, 1}, 4, {}, {}};
  auto plan = xpose::make_plan(p);
  ASSERT_TRUE(plan);
  for (const std::int64_t cap : {4096, 1024, 256}) {
    SCOPED_TRACE(::testing::Message() << "cap " << cap);
    xpose::detail::box_plan b;
    const bool boxed = xpose::detail::make_box(plan->geometry(), b, cap);
    EXPECT_EQ(boxed, cap >= 1024);
    if (!boxed) continue;
    EXPECT_LE(b.volume, cap);
    EXPECT_GE(b.volume, cap / 4);
    EXPECT_EQ(box_byte_map_error(p, *plan, b, xpose::test::test_seed(20261125)), "");
  }
}

TEST(Box, TilesWithBothSidesOf128BytesOrMoreKeepTheirTiles) {
  // (Skinny matrices would take a box, but the GPU dispatcher gives them to skinny16 first.)
  xpose::detail::box_plan b;
  for (const problem& p : {problem{{4096, 4096}, {1, 0}, 4, {}, {}}, problem{{1000, 32}, {1, 0}, 4, {}, {}},
                           problem{{32, 64, 112, 112}, {0, 2, 3, 1}, 4, {}, {}}, problem{{9, 300, 200}, {2, 1, 0}, 1, {}, {}}}) {
    auto plan = xpose::make_plan(p);
    ASSERT_TRUE(plan);
    EXPECT_FALSE(xpose::detail::make_box(plan->geometry(), b)) << p;
  }
}

// A random permutation of rank 3-6 with small extents (2 ... 30) and `elem_bytes` elements; `elements`: its size.
problem random_small_problem(std::mt19937_64& rng, std::int64_t elem_bytes, std::int64_t& elements) {
  const int rank = 3 + static_cast<int>(rng() % 4);
  problem p;
  p.elem_bytes = elem_bytes;
  elements = 1;
  for (int i = 0; i < rank; ++i) {
    const std::int64_t extents[] = {2, 3, 4, 5, 7, 9, 13, 30};
    p.shape.push_back(extents[rng() % 8]);
    elements *= p.shape.back();
  }
  for (int i = 0; i < rank; ++i) p.axes.push_back(i);
  std::shuffle(p.axes.begin(), p.axes.end(), rng);
  return p;
}

TEST(Box, RandomSmallPermutationsThatTakeABoxKeepTheByteMap) {
  const std::uint64_t seed = xpose::test::announced_test_seed(20261124);
  std::mt19937_64 rng(seed);
  int boxed = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::int64_t volume = 0;
    const problem p = random_small_problem(rng, std::int64_t{1} << (rng() % 5), volume);
    if (volume > 200000) continue;
    auto plan = xpose::make_plan(p);
    ASSERT_TRUE(plan) << p;
    xpose::detail::box_plan b;
    // Every cap the GPU dispatch may pass (box_volume_cap), so that small boxes are simulated too.
    const std::int64_t cap = xpose::detail::box_volume_limit(p.elem_bytes) >> (rng() % 5);
    if (!xpose::detail::make_box(plan->geometry(), b, cap)) continue;
    EXPECT_LE(b.volume, cap);
    ++boxed;
    SCOPED_TRACE(::testing::Message() << "problem " << p << " seed " << seed);
    ASSERT_EQ(box_byte_map_error(p, *plan, b, seed), "");
  }
  EXPECT_GT(boxed, 20) << "too few random problems took a box to test it";
}

// The CPU's boxes (make_cpu_box): the byte budget instead of the GPU's element limits, runs of at least a line,
// and the same byte map (simulated), on random small permutations of every unit size and on odd elements
// boxed as their words.
TEST(Box, CpuBoxesStayInTheirByteBudgetAndKeepTheByteMap) {
  const std::uint64_t seed = xpose::test::announced_test_seed(20261127);
  std::mt19937_64 rng(seed);
  int boxed = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::int64_t sizes[] = {1, 2, 4, 8, 16, 3, 12};
    std::int64_t volume = 0;
    const problem p = random_small_problem(rng, sizes[rng() % 7], volume);
    if (volume * p.elem_bytes > 800000) continue;
    auto plan = xpose::make_plan(p);
    ASSERT_TRUE(plan) << p;
    xpose::detail::box_plan b;
    const std::int64_t budget = xpose::detail::cpu_box_max_bytes >> (rng() % 4);
    if (!xpose::detail::make_cpu_box(plan->geometry(), b, budget)) continue;
    ++boxed;
    SCOPED_TRACE(::testing::Message() << "problem " << p << " budget " << budget << " seed " << seed);
    EXPECT_LE(b.volume * b.unit_bytes, budget);
    EXPECT_GE(std::min(b.in_run, b.out_run) * b.unit_bytes, xpose::detail::cpu_box_min_run_bytes);
    ASSERT_EQ(box_byte_map_error(p, *plan, b, seed), "");
  }
  EXPECT_GT(boxed, 20) << "too few random problems took a CPU box to test it";
}

}  // namespace

namespace {

xpose::detail::box_plan box_of(const problem& p, std::int64_t cap) {
  auto plan = xpose::make_plan(p);
  EXPECT_TRUE(plan) << plan.error();
  xpose::detail::box_plan b;
  EXPECT_TRUE(plan && xpose::detail::make_box(plan->geometry(), b, cap)) << p;
  return b;
}

}  // namespace

TEST(Box, SmallBlocksWhereThreadsNotSharedMemoryLimitTheBoxesInFlight) {
  using xpose::detail::box_policy;
  using xpose::detail::box_threads;
  const int small = box_policy::small_threads, big = box_policy::threads;
  // box_kernel's shared memory (kernels/box.cuh, box_smem_bytes): 8 bytes of tables an element, the data, 2
  // bytes of src an element. fp16 boxes of 4 x 51 x 7 units: 17 KiB, 12 blocks of 128 threads an SM.
  const int smem_1428_u2 = 8 * 1428 + 2864 + 2 * 1428;
  EXPECT_EQ(box_threads(4, smem_1428_u2, 6876, 132), small);
  EXPECT_EQ(box_threads(16, smem_1428_u2, 6876, 132), big);  // two stages (cp.async): the 256-thread blocks
  EXPECT_EQ(box_threads(4, smem_1428_u2, 1000, 132), big);   // too few boxes to fill the extra blocks
  EXPECT_EQ(box_threads(4, 8 * 2889 + 5792 + 2 * 2889, 1 << 20, 132), big);  // 35 KiB: 6 blocks either way
  EXPECT_EQ(xpose::detail::box_blocks_per_sm(small, smem_1428_u2), 12);
  EXPECT_EQ(xpose::detail::box_blocks_per_sm(big, smem_1428_u2), 8);
}

TEST(Box, BoxKernelTablesPerRunForSmallProblemsAndForSingleStageBoxesWithLittleInFlight) {
  using xpose::detail::choose_box_kernel;
  // Shared memory of a block with per-run / per-element tables (box_smem_bytes): 4 bytes an entry, the data
  // (stages of it), 2 bytes of src an element.
  auto smem = [](long long V, long long U, int stages, long long entries) {
    return static_cast<int>((4 * entries + 15) / 16 * 16 + stages * ((V * U + 15) / 16 * 16) + 2 * V);
  };
  // fp16 3x736x7x3x214x3x3x3: boxes of 5778 units, runs 1926 / 642, 4-byte loads. Per element: 3 blocks an SM,
  // 35 KiB of boxes in flight; per run, as many blocks as fit (9 of 128 threads).
  {
    const int runs = smem(5778, 2, 1, 3 + 9), elems = smem(5778, 2, 1, 2 * 5778);
    const auto c = choose_box_kernel(runs, elems, true, 5778, 2, 46368, 132);
    EXPECT_TRUE(c.run_tables);
    EXPECT_EQ(c.occupancy_smem, runs);
    // The same boxes loaded 16 bytes an access (two stages) keep the per-element tables and their block count.
    const auto two = choose_box_kernel(smem(5778, 2, 2, 12), smem(5778, 2, 2, 2 * 5778), false, 5778, 2, 46368, 132);
    EXPECT_FALSE(two.run_tables);
    // Too few boxes for the extra blocks: per-run tables at the per-element block count.
    const auto small = choose_box_kernel(runs, elems, true, 5778, 2, 3000, 132);
    EXPECT_TRUE(small.run_tables);
    EXPECT_EQ(small.occupancy_smem, elems);
  }
  // fp32 boxes of 2889 units (runs 963 / 321, 4-byte loads): per element, 5 blocks hold 56 KiB of boxes, so a
  // large problem keeps its per-element tables (a division an access cost 3 % there).
  {
    const int runs = smem(2889, 4, 1, 3 + 9), elems = smem(2889, 4, 1, 2 * 2889);
    const auto c = choose_box_kernel(runs, elems, true, 2889, 4, 46368, 132);
    EXPECT_FALSE(c.run_tables);
    EXPECT_EQ(c.occupancy_smem, elems);
    EXPECT_TRUE(choose_box_kernel(runs, elems, true, 2889, 4, 2000, 132).run_tables);  // a 32 MiB problem
  }
}

TEST(Box, SharedMemoryWavefrontsCountTheBusiestBank) {
  using xpose::detail::smem_wavefronts;
  std::vector<std::int64_t> w(32);
  for (int i = 0; i < 32; ++i) w[i] = i;  // 32 consecutive words: every bank once
  EXPECT_EQ(smem_wavefronts(w.data(), 32), 1);
  for (int i = 0; i < 32; ++i) w[i] = 7;  // one word for all: a broadcast
  EXPECT_EQ(smem_wavefronts(w.data(), 32), 1);
  for (int i = 0; i < 32; ++i) w[i] = 32 * i;  // one bank, 32 words
  EXPECT_EQ(smem_wavefronts(w.data(), 32), 32);
  for (int i = 0; i < 32; ++i) w[i] = 16 * i;  // two banks
  EXPECT_EQ(smem_wavefronts(w.data(), 32), 16);
}

TEST(Box, Box16PadsTheStagePitchOnlyWhereTheGatherCrossesRunsInOneBank) {
  using xpose::detail::box16_in_chunks;
  using xpose::detail::box16_in_pitch;
  const std::int64_t cap = xpose::detail::box_volume_limit(1);
  // 45 runs of 180 bytes, read across in output order: a plain pitch of 192 bytes puts 16 runs in one bank.
  const auto crossing = box_of(problem{{45, 36, 29, 5, 57, 5}, {5, 1, 2, 3, 4, 0}, 1, {}, {}}, cap);
  const std::int64_t plain = (crossing.in_run + 15) / 16 * 16;
  ASSERT_GT(crossing.volume / crossing.in_run, 1);
  ASSERT_EQ(box16_in_chunks(crossing, 16) * 16, plain);  // runs 180 bytes apart on 16-byte boxes: 4-byte shifts
  const unsigned padded = box16_in_pitch(crossing, box16_in_chunks(crossing, 16));
  EXPECT_GT(padded, plain);
  EXPECT_LT(padded, plain + 16);
  EXPECT_EQ(padded % 4, 0u);
  // One input run a box (u8 5x20x11 axes 2,0,1: 20 x 11 x 5 elements contiguous in the input): nothing to
  // spread, the plain pitch.
  const auto single = box_of(problem{{5, 20, 11}, {2, 0, 1}, 1, {}, {}}, cap);
  ASSERT_EQ(single.volume, single.in_run);
  EXPECT_EQ(box16_in_pitch(single, box16_in_chunks(single, 16)), static_cast<unsigned>((single.in_run + 15) / 16 * 16));
  // Every box of the GPU tests' shapes gets a pitch that holds its run and keeps 4-byte stores aligned.
  for (const auto& [shape, axes] : std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>{
           {{7, 3, 2, 9, 41, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}},
           {{6, 4, 7, 11, 2, 40}, {2, 3, 1, 4, 5, 0}},
           {{3, 16, 7, 3, 14, 3, 3, 3}, {1, 2, 0, 7, 6, 4, 5, 3}},
           {{30, 4, 6, 220, 2, 40}, {2, 3, 1, 4, 5, 0}}}) {
    const auto b = box_of(problem{shape, axes, 1, {}, {}}, cap);
    const std::int64_t chunks = box16_in_chunks(b);
    const unsigned pitch = box16_in_pitch(b, chunks);
    const std::int64_t base = 16 * chunks;
    EXPECT_GE(pitch, base);
    EXPECT_LT(pitch, base + 16);
    EXPECT_EQ(pitch % 4, 0u);
    std::printf("box16 pitch: volume %lld, %lld runs of %lld bytes: %u\n", static_cast<long long>(b.volume),
                static_cast<long long>(b.volume / b.in_run), static_cast<long long>(b.in_run), pitch);
  }
}

TEST(Box, Box16StagesEachRunAsTheChunksThatCoverItAtEveryShift) {
  // box16 copies run r of a box from (box address & ~15) + (run offset & ~15): the run then starts up to 15
  // bytes (the box's shift) plus up to 16 - run_align bytes (the run's) into its chunks, and box16_in_chunks
  // must cover that for every run of every box. Checked by enumerating the runs' offsets and the shifts a
  // base alignment allows.
  using xpose::detail::box16_in_chunks;
  const std::int64_t cap = xpose::detail::box_volume_limit(1);
  for (const auto& [shape, axes] : std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>{
           {{7, 3, 2, 436, 41, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}},   // runs of 714 at odd offsets
           {{3, 1472, 7, 3, 214, 3, 3, 3}, {1, 2, 0, 7, 6, 4, 5, 3}},  // runs of 963, 5778 apart
           {{30, 24, 42, 220, 2, 40}, {2, 3, 1, 4, 5, 0}},             // runs of 80 (16-byte aligned offsets)
           {{45, 36, 29, 5, 57, 5}, {5, 1, 2, 3, 4, 0}}}) {
    const auto b = box_of(problem{shape, axes, 1, {}, {}}, cap);
    SCOPED_TRACE(::testing::Message() << "volume " << b.volume << ", runs of " << b.in_run);
    ASSERT_GT(b.volume, b.in_run);
    for (const std::int64_t base_align : {1, 2, 4, 8, 16}) {
      const std::int64_t chunks = box16_in_chunks(b, base_align);
      std::int64_t most = 0;  // bytes from a run's first chunk to past its end, over runs and box shifts
      for (std::int64_t r = 0; r < b.volume / b.in_run; ++r) {
        std::int64_t rest = r * b.in_run, off = 0;  // the run's first element: its digits over the axes
        for (int k = 0; k < b.rank; ++k) {
          const auto& a = b.axis[static_cast<std::size_t>(k)];
          off += rest % a.extent * a.in_stride;
          rest /= a.extent;
        }
        for (std::int64_t shift = 0; shift < 16; shift += base_align) most = std::max(most, shift + off % 16 + b.in_run);
      }
      EXPECT_GE(16 * chunks, most) << "base_align " << base_align;
      // The runs' shifts are bounded by the strides' alignment, not enumerated: at most one chunk to spare.
      EXPECT_LT(16 * chunks, most + 32) << "base_align " << base_align << ": two chunks more than needed";
    }
  }
  // An overlapping input view can put an axis outside the run at a stride shorter than the run (runs of 100
  // bytes 37 apart): its stride still shifts the runs. Runs 0-4 start 0, 37, 74, 111, 148 bytes into the box.
  xpose::detail::box_plan overlap;
  overlap.unit_bytes = 1;
  overlap.rank = 2;
  overlap.axis[0] = {100, 1, 5};
  overlap.axis[1] = {5, 37, 1};
  overlap.out_order = {1, 0};
  overlap.volume = 500;
  overlap.in_run = 100;
  overlap.out_run = 5;
  std::int64_t most = 0;
  for (std::int64_t r = 0; r < 5; ++r) most = std::max(most, 15 + 37 * r % 16 + 100);
  EXPECT_GE(16 * box16_in_chunks(overlap), most);
}

TEST(Box, AxesWithoutAFittingDivisorSplitRaggedWithATail) {
  // 10007 (prime) has no divisor that fits a box: boxes take `cap` of it and box_tail the last 10007 % cap.
  // Before, a box stayed at the 10 x 2 x 2 tile (u8 1677721 x 10 x 2 x 2 ran 0.13 of memcpy as such boxes).
  for (std::int64_t e : {1, 4, 16}) {
    const problem p{{10007, 10, 2, 2}, {2, 0, 3, 1}, e, {}, {}};
    SCOPED_TRACE(::testing::Message() << p);
    const auto b = box_of(p, xpose::detail::box_volume_limit(e));
    ASSERT_GT(b.tail_extent, 0);
    ASSERT_GE(b.tail_axis, 0);
    ASSERT_GE(b.tail_batch, 0);
    EXPECT_LT(b.tail_extent, b.axis[b.tail_axis].extent);
    EXPECT_EQ(b.batch[b.tail_batch].extent * b.axis[b.tail_axis].extent + b.tail_extent, 10007);
    std::int64_t in_off = 0, out_off = 0;
    const auto t = xpose::detail::box_tail(b, in_off, out_off);
    EXPECT_EQ(t.tail_extent, 0);
    EXPECT_EQ(t.batch_rank, b.batch_rank - 1);
    EXPECT_EQ(t.volume, b.volume / b.axis[b.tail_axis].extent * b.tail_extent);
    EXPECT_GT(in_off, 0);
    EXPECT_GT(out_off, 0);
    expect_box_matches_reference(p, 1024, xpose::detail::box_volume_limit(e));
  }
  // A long side split ragged (u8 1341 x 834 x 3 x 5 x 4 axes 1,3,4,0,2: 1341 = 9 x 149, so 9 fit where 136 do),
  // scaled down, and a split batch axis beside other batch axes.
  expect_box_matches_reference(problem{{1341, 34, 3, 5, 4}, {1, 3, 4, 0, 2}, 1, {}, {}}, 1024,
                               xpose::detail::box_volume_limit(1));
  expect_box_matches_reference(problem{{3, 10007, 10, 2, 2}, {0, 3, 1, 4, 2}, 2, {}, {}}, 1024,
                               xpose::detail::box_volume_limit(2));
}

TEST(Box, SixteenByteElementsAreBoxedUpToAShortSideOf256Bytes) {
  // c128 tiles of 126 [42 3] x 9 [3 3] units (144 bytes a short side): a box, where 8-byte elements of the same
  // side (72 bytes) already took one; a short side of 16 c128 units (256 bytes) keeps the tiles, 15 do not.
  expect_box_matches_reference(problem{{3, 16, 7, 3, 14, 3, 3, 3}, {1, 2, 0, 7, 6, 4, 5, 3}, 16, {}, {}}, 1024);
  EXPECT_EQ(xpose::detail::box_short_side_limit(16), 256);
  EXPECT_EQ(xpose::detail::box_short_side_limit(8), 128);
  const problem sixteen{{40, 16, 300}, {0, 2, 1}, 16, {}, {}};
  auto plan = xpose::make_plan(sixteen);
  ASSERT_TRUE(plan) << plan.error();
  ASSERT_EQ(std::min(plan->geometry().rows, plan->geometry().cols), 16);
  xpose::detail::box_plan b;
  EXPECT_FALSE(xpose::detail::make_box(plan->geometry(), b)) << *plan;
  const problem fifteen{{40, 15, 300}, {0, 2, 1}, 16, {}, {}};  // 240 bytes: a box
  auto plan15 = xpose::make_plan(fifteen);
  ASSERT_TRUE(plan15) << plan15.error();
  EXPECT_TRUE(xpose::detail::make_box(plan15->geometry(), b)) << *plan15;
}

TEST(Box, ElementsOfOtherSizesAreBoxedAsTheirWords) {
  // RGB8 (3 x 1 B), RGB16 (3 x 2 B), RGB32F (3 x 4 B) and 5-byte elements: the box moves words, the element's
  // words one more axis (fastest on both sides); the byte map must still be the reference's.
  const std::vector<problem> problems = {
      {{16, 16, 17, 21, 6, 4}, {2, 5, 1, 0, 4, 3}, 3, {}, {}}, {{16, 16, 17, 21, 6, 4}, {2, 5, 1, 0, 4, 3}, 5, {}, {}},
      {{16, 16, 17, 21, 6, 4}, {2, 5, 1, 0, 4, 3}, 6, {}, {}}, {{152, 17, 69, 10}, {3, 1, 0, 2}, 3, {}, {}},
      {{152, 17, 69, 10}, {3, 1, 0, 2}, 12, {}, {}}};
  for (const problem& p : problems) {
    const std::int64_t e = p.elem_bytes;
    SCOPED_TRACE(::testing::Message() << p);
    auto plan = xpose::make_plan(p);
    ASSERT_TRUE(plan) << plan.error();
    const std::int64_t unit = xpose::detail::box_unit_bytes(plan->geometry());
    EXPECT_EQ(e % unit, 0);
    EXPECT_LT(unit, e);
    const auto b = box_of(p, xpose::detail::box_volume_limit(unit));
    EXPECT_EQ(b.unit_bytes, unit);
    EXPECT_EQ(b.axis[0].extent, e / unit);  // the words: stride one word on both sides
    EXPECT_EQ(b.axis[0].in_stride, unit);
    EXPECT_EQ(b.axis[0].out_stride, unit);
    expect_box_matches_reference(p, 512, xpose::detail::box_volume_limit(unit));
  }
}
