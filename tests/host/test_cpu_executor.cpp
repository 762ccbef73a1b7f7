// The CPU executor against the naive reference (tests/common/reference.hpp): random problems of every
// element size, rank 0..5, packed and strided views on both sides, 1, 2 and all threads; plus fixed cases
// at the edges of the tiling (tile +- 1, primes, thin planes) and problems large enough to split across
// threads. Every check compares the whole output buffer, so bytes outside the output view (pitch gaps,
// guard bands before and after) must still hold the poison pattern.
//
// The random seed is fixed and printed; set XPOSE_TEST_SEED to replay another.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/reference.hpp"
#include "common/test_seed.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::problem;

constexpr std::uint64_t default_seed = 20240611;
constexpr std::int64_t guard_bytes = 64;  // poisoned bytes before and after each view
constexpr std::int64_t elem_sizes[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
constexpr int thread_counts[] = {1, 2, 0};

unsigned char poison(std::int64_t i) { return static_cast<unsigned char>(0xA5 ^ (i * 7)); }

// Pseudo-random input bytes, never zero: one splitmix64 step per 8 bytes (test::random_bytes draws a
// Mersenne-twister word per byte, which dominates the run time on the large problems).
std::vector<unsigned char> input_bytes(std::size_t n, std::uint64_t seed) {
  std::vector<unsigned char> v(n);
  std::uint64_t x = seed;
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    z |= 0x0101010101010101ull;
    for (std::size_t k = 0; k < 8 && i + k < n; ++k) v[i + k] = static_cast<unsigned char>(z >> (8 * k));
  }
  return v;
}

std::string describe(const problem& p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

// Input and output buffers of one problem, each view placed `guard_bytes + misalignment` into its buffer.
struct case_buffers {
  std::vector<unsigned char> in, out_expected;
  std::int64_t in_offset = 0, out_offset = 0;
};

case_buffers make_buffers(const problem& p, std::uint64_t seed, std::int64_t in_misalign, std::int64_t out_misalign) {
  const auto oshape = xpose::test::out_shape(p);
  const auto in_s = p.in_strides.empty() ? xpose::test::packed_strides(p.shape) : p.in_strides;
  const auto out_s = p.out_strides.empty() ? xpose::test::packed_strides(oshape) : p.out_strides;
  case_buffers b;
  b.in_offset = guard_bytes + in_misalign;
  b.out_offset = guard_bytes + out_misalign;
  const std::int64_t in_span = xpose::test::span_bytes(p.shape, in_s, p.elem_bytes);
  const std::int64_t out_span = xpose::test::span_bytes(oshape, out_s, p.elem_bytes);
  b.in = input_bytes(static_cast<std::size_t>(b.in_offset + in_span + guard_bytes), seed);
  b.out_expected.resize(static_cast<std::size_t>(b.out_offset + out_span + guard_bytes));
  for (std::size_t i = 0; i < b.out_expected.size(); ++i) b.out_expected[i] = poison(static_cast<std::int64_t>(i));
  xpose::test::reference_permute(p, b.in.data() + b.in_offset, b.out_expected.data() + b.out_offset);
  return b;
}

// Runs `p` on the CPU with each thread count and compares the whole output buffer with the reference.
// Returns false (after recording a failure) at the first mismatch.
bool check_problem(const xpose::plan& plan, const problem& p, const case_buffers& b, const std::string& context) {
  const std::vector<unsigned char> in_before = b.in;
  for (const int threads : thread_counts) {
    std::vector<unsigned char> out(b.out_expected.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = poison(static_cast<std::int64_t>(i));
    const xpose::status s = plan.execute_host(b.in.data() + b.in_offset, out.data() + b.out_offset, threads);
    if (!s) {
      ADD_FAILURE() << context << ": execute_host(threads = " << threads << ") failed: " << s << "\n  " << describe(p);
      return false;
    }
    const auto diff = std::mismatch(out.begin(), out.end(), b.out_expected.begin());
    if (diff.first != out.end()) {
      const auto at = static_cast<std::int64_t>(diff.first - out.begin());
      const bool poison_expected = b.out_expected[static_cast<std::size_t>(at)] == poison(at);
      ADD_FAILURE() << context << ": threads = " << threads << ": byte " << at - b.out_offset
                    << " of the output view is " << int(*diff.first) << ", expected " << int(*diff.second)
                    << (poison_expected ? " (poison: outside the view or not yet written)" : "") << "\n  "
                    << describe(p) << "\n" << plan;
      return false;
    }
    if (b.in != in_before) {
      ADD_FAILURE() << context << ": the input was modified\n  " << describe(p);
      return false;
    }
  }
  return true;
}

// Plans and checks one problem; returns false if the planner says `unsupported` (other errors fail).
// Counts the algorithms it ran into `tally` (copy, rows, transpose2d) when given one.
bool run_case(const problem& p, std::uint64_t seed, const std::string& context, std::int64_t in_misalign = 0,
              std::int64_t out_misalign = 0, int* tally = nullptr) {
  auto plan = xpose::make_plan(p);
  if (!plan) {
    if (plan.error().code() == xpose::status_code::unsupported) return false;
    ADD_FAILURE() << context << ": make_plan failed: " << plan.error() << "\n  " << describe(p);
    return true;
  }
  if (tally != nullptr) ++tally[static_cast<int>(plan->algo())];
  const case_buffers b = make_buffers(p, seed, in_misalign, out_misalign);
  check_problem(*plan, p, b, context);
  return true;
}

// ---- random problems -------------------------------------------------------------------------------------

// Extents: mostly small, with 1 (dropped by the planner), primes, tile sizes +- 1, and now and then 0.
std::int64_t random_extent(std::mt19937_64& rng) {
  static constexpr std::int64_t pool[] = {1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 11, 13, 16, 17, 31, 32, 33, 63, 64, 65};
  if (rng() % 150 == 0) return 0;
  return pool[rng() % std::size(pool)];
}

// Element strides of a view with a random memory order of its axes and random padding: `order` lists axes
// fastest first; each stride steps over the previous axis's block plus a pad. The fastest stride is 1
// unless `unit_fastest` is false. With probability ~1/10 one input axis is broadcast (stride 0).
std::vector<std::int64_t> random_strides(const std::vector<std::int64_t>& shape, std::mt19937_64& rng, bool input,
                                         bool unit_fastest) {
  const std::size_t rank = shape.size();
  std::vector<std::size_t> order(rank);
  std::iota(order.rbegin(), order.rend(), 0);  // row-major: last axis fastest
  if (rng() % 4 == 0) std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::int64_t> s(rank, 0);
  std::int64_t next = unit_fastest ? 1 : 2 + static_cast<std::int64_t>(rng() % 3);
  for (std::size_t k = 0; k < rank; ++k) {
    const std::size_t a = order[k];
    s[a] = next;
    const std::int64_t pad = rng() % 3 == 0 ? 0 : static_cast<std::int64_t>(rng() % 5);
    next = next * std::max<std::int64_t>(shape[a], 1) + pad;
  }
  if (input && rank > 0 && rng() % 10 == 0) s[rng() % rank] = 0;
  return s;
}

problem random_problem(std::mt19937_64& rng, std::int64_t max_elements) {
  problem p;
  // Ranks 0..5, weighted towards 2..4 where the planner has choices to make.
  static constexpr int rank_pool[] = {0, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5};
  const int rank = rank_pool[rng() % std::size(rank_pool)];
  p.shape.assign(rank, 0);
  for (auto& e : p.shape) e = random_extent(rng);
  // Too many elements: halve the largest extent until the problem fits (keeps 1s, 0s and most primes).
  const auto elements = [&] {
    std::int64_t n = 1;
    for (const auto e : p.shape) n *= std::max<std::int64_t>(e, 1);
    return n;
  };
  while (elements() > max_elements) {
    auto& e = *std::max_element(p.shape.begin(), p.shape.end());
    e = (e + 1) / 2;
  }
  p.elem_bytes = elem_sizes[rng() % std::size(elem_sizes)];

  const auto axes_kind = rng() % 8;
  if (axes_kind != 0) {  // otherwise empty: reversed
    p.axes.resize(rank);
    std::iota(p.axes.begin(), p.axes.end(), 0);
    std::shuffle(p.axes.begin(), p.axes.end(), rng);
    if (axes_kind == 1) {
      for (auto& a : p.axes)
        if (rng() % 2 == 0) a -= rank;  // negative: counts from the end
    }
  }

  const auto strided = rng() % 4;  // 0 packed, 1 strided input, 2 strided output, 3 both
  const bool unit_in = rng() % 12 != 0, unit_out = rng() % 12 != 0;
  if (strided & 1) p.in_strides = random_strides(p.shape, rng, true, unit_in);
  if (strided & 2) p.out_strides = random_strides(xpose::test::out_shape(p), rng, false, unit_out);
  return p;
}

TEST(CpuExecutor, RandomProblemsMatchTheReference) {
  const std::uint64_t seed = xpose::test::announced_test_seed(default_seed);
  std::mt19937_64 rng(seed);

  constexpr int problems = 6000;
  int supported = 0, unsupported = 0;
  int tally[3] = {};
  for (int i = 0; i < problems && !HasFailure(); ++i) {
    // Mostly small problems (many shapes per second); every 25th is large enough to use two threads.
    const std::int64_t max_elements = i % 25 == 0 ? 200000 : 4000;
    const problem p = random_problem(rng, max_elements);
    const std::int64_t misalign_in = static_cast<std::int64_t>(rng() % 16), misalign_out = static_cast<std::int64_t>(rng() % 16);
    const std::string context = "random problem #" + std::to_string(i) + " (seed " + std::to_string(seed) + ")";
    if (run_case(p, rng(), context, misalign_in, misalign_out, tally)) ++supported;
    else ++unsupported;
  }
  std::cout << "[ problems ] " << supported << " supported (copy " << tally[0] << ", rows " << tally[1]
            << ", transpose2d " << tally[2] << "), " << unsupported << " unsupported (skipped)\n";
  ::testing::Test::RecordProperty("supported", supported);
  ::testing::Test::RecordProperty("unsupported", unsupported);
  if (!HasFailure()) {
    EXPECT_GE(supported, problems * 9 / 10) << "most random problems should be supported";
  }
}

// ---- fixed cases ------------------------------------------------------------------------------------------

TEST(CpuExecutor, TransposeAtTileEdgesForEveryElementSize) {
  // 1, primes, and the block (4, 8) and tile (16..128) sizes +- 1 on both sides of a 2-D transpose.
  const std::int64_t sizes[] = {1, 2, 3, 5, 7, 8, 9, 17, 31, 33, 63, 64, 65, 127, 129};
  std::uint64_t seed = 1;
  for (const std::int64_t eb : elem_sizes)
    for (const std::int64_t r : sizes)
      for (const std::int64_t c : sizes) {
        if (r * c * eb > (std::int64_t{1} << 16) && (r + c) % 3 != 0) continue;  // thin out the large ones
        const problem p{{r, c}, {1, 0}, eb, {}, {}};
        ASSERT_TRUE(run_case(p, ++seed, "transpose " + std::to_string(r) + " x " + std::to_string(c)));
        if (HasFailure()) return;
      }
}

TEST(CpuExecutor, UnitsWithoutACompileTimeKernel) {
  // Unit sizes outside the compiled set run the word-by-word path: odd element sizes (5, 7, 10, 20, 40, 65,
  // 100, 128 bytes) and short rows that the planner turns into the units of a transpose (5 fp32 = 20 bytes,
  // 7 fp16 = 14; rows of up to 128 bytes, 17 fp64 = 136 stay rows).
  std::uint64_t seed = 50;
  for (const std::int64_t eb : {5, 7, 10, 20, 40, 65, 100, 128}) {
    ASSERT_TRUE(run_case({{9, 70}, {1, 0}, eb, {}, {}}, ++seed, "odd element size"));
    ASSERT_TRUE(run_case({{2, 17, 9}, {0, 2, 1}, eb, {}, {9 * 19 + 4, 19, 1}}, ++seed, "odd element size, pitched output"));
  }
  for (const std::int64_t row : {3, 5, 7, 11, 15, 17}) {
    for (const std::int64_t eb : {2, 4, 8}) {
      const problem p{{37, 41, row}, {1, 0, 2}, eb, {}, {}};
      auto plan = xpose::make_plan(p);
      ASSERT_TRUE(plan);
      EXPECT_EQ(plan->algo(), row * eb <= 128 ? xpose::algorithm::transpose2d : xpose::algorithm::rows) << *plan;
      ASSERT_TRUE(run_case(p, ++seed, "short rows as units", 1, 1));
    }
  }
}

TEST(CpuExecutor, ThinPlanesAoSAndSoA) {
  // k x n and n x k with small k: the stretched-tile path, all micro-kernel edge widths.
  std::uint64_t seed = 100;
  for (const std::int64_t eb : elem_sizes)
    for (std::int64_t k = 1; k <= 9; ++k)
      for (const std::int64_t n : {std::int64_t{517}, std::int64_t{2053}}) {
        ASSERT_TRUE(run_case({{k, n}, {1, 0}, eb, {}, {}}, ++seed, "thin k x n"));
        ASSERT_TRUE(run_case({{n, k}, {1, 0}, eb, {}, {}}, ++seed, "thin n x k"));
        if (HasFailure()) return;
      }
}

TEST(CpuExecutor, BatchedSmallPlanesStreamedAsOneRange) {
  // Packed batches of planes with output rows under 256 bytes and no whole-line planes (run_planes_carried):
  // each thread streams its part of the output as whole lines, a plane's last partial line carried into the
  // next; odd sizes, every unit size, a misaligned output (check_problem runs 1, 2 and all threads). The
  // batches exceed one L2 (>= 3.5 MiB), as the path requires.
  std::uint64_t seed = 900;
  for (const std::int64_t eb : {1, 2, 4, 8, 3}) {
    const std::int64_t rows = 200 / eb + 3;
    ASSERT_TRUE(run_case({{60, rows, 295}, {0, 2, 1}, eb, {}, {}}, ++seed, "batched planes, streamed"));
    ASSERT_TRUE(run_case({{61, rows, 297}, {0, 2, 1}, eb, {}, {}}, ++seed, "batched planes, streamed", 0, 5 * eb));
  }
}

TEST(CpuExecutor, BatchedTransposeAndNchwToNhwc) {
  std::uint64_t seed = 200;
  for (const std::int64_t eb : elem_sizes) {
    ASSERT_TRUE(run_case({{3, 17, 65}, {0, 2, 1}, eb, {}, {}}, ++seed, "batched transpose"));
    ASSERT_TRUE(run_case({{2, 3, 7, 11}, {0, 2, 3, 1}, eb, {}, {}}, ++seed, "NCHW -> NHWC"));
    ASSERT_TRUE(run_case({{2, 7, 11, 3}, {0, 3, 1, 2}, eb, {}, {}}, ++seed, "NHWC -> NCHW"));
    ASSERT_TRUE(run_case({{5, 1, 4, 1, 6}, {4, 1, 2, 0, 3}, eb, {}, {}}, ++seed, "size-1 axes"));
    if (HasFailure()) return;
  }
}

TEST(CpuExecutor, CopyAndRowsIncludingLongRunsSplitIntoPieces) {
  std::uint64_t seed = 300;
  for (const std::int64_t eb : {std::int64_t{1}, std::int64_t{3}, std::int64_t{4}, std::int64_t{16}}) {
    ASSERT_TRUE(run_case({{5, 7, 9}, {0, 1, 2}, eb, {}, {}}, ++seed, "identity copy"));
    ASSERT_TRUE(run_case({{4, 3, 50}, {1, 0, 2}, eb, {}, {}}, ++seed, "rows"));
    ASSERT_TRUE(run_case({{3, 4, 5, 20}, {2, 0, 1, 3}, eb, {}, {}}, ++seed, "rows, 3 batch axes"));
    if (HasFailure()) return;
  }
  // Runs longer than one piece (256 KiB): a copy of 700001 bytes and rows of 300000 bytes, several threads.
  ASSERT_TRUE(run_case({{700001}, {0}, 1, {}, {}}, ++seed, "long copy", 3, 5));
  ASSERT_TRUE(run_case({{3, 2, 75000}, {1, 0, 2}, 4, {}, {}}, ++seed, "long rows", 1, 2));
  ASSERT_TRUE(run_case({{3, 2, 75000}, {1, 0, 2}, 4, {}, {3 * 75001 + 5, 75001, 1}}, ++seed, "long pitched rows"));
}

TEST(CpuExecutor, LargeProblemsSplitAcrossThreads) {
  std::uint64_t seed = 400;
  ASSERT_TRUE(run_case({{301, 517}, {1, 0}, 4, {}, {}}, ++seed, "large fp32 transpose"));
  ASSERT_TRUE(run_case({{129, 1031}, {1, 0}, 1, {}, {}}, ++seed, "large 1-byte transpose", 1, 3));
  ASSERT_TRUE(run_case({{97, 83}, {1, 0}, 12, {}, {}}, ++seed, "large 12-byte transpose"));
  ASSERT_TRUE(run_case({{7, 33, 65, 9}, {3, 1, 0, 2}, 2, {}, {}}, ++seed, "large 4-d permute"));
  ASSERT_TRUE(run_case({{11, 3, 4099}, {0, 2, 1}, 8, {}, {}}, ++seed, "large batched thin"));
}

TEST(CpuExecutor, PitchedInputsAndOutputsKeepGapsUntouched) {
  std::uint64_t seed = 500;
  for (const std::int64_t eb : elem_sizes) {
    // ld larger than the row on each side, then both.
    ASSERT_TRUE(run_case({{13, 29}, {1, 0}, eb, {31, 1}, {}}, ++seed, "pitched input"));
    ASSERT_TRUE(run_case({{13, 29}, {1, 0}, eb, {}, {17, 1}}, ++seed, "pitched output"));
    ASSERT_TRUE(run_case({{13, 29}, {1, 0}, eb, {40, 1}, {15, 1}}, ++seed, "pitched both"));
    // A pitched batch: batch stride larger than the plane on both sides.
    ASSERT_TRUE(run_case({{3, 13, 29}, {0, 2, 1}, eb, {13 * 29 + 7, 29, 1}, {29 * 14 + 3, 14, 1}}, ++seed, "pitched batch"));
    // Column-major output layout (out axis 0 fastest).
    ASSERT_TRUE(run_case({{6, 5, 4}, {2, 0, 1}, eb, {}, {1, 4, 24}}, ++seed, "column-major output"));
    if (HasFailure()) return;
  }
}

TEST(CpuExecutor, BroadcastInputs) {
  std::uint64_t seed = 600;
  for (const std::int64_t eb : elem_sizes) {
    ASSERT_TRUE(run_case({{7, 9}, {1, 0}, eb, {0, 1}, {}}, ++seed, "broadcast rows"));
    ASSERT_TRUE(run_case({{4, 7, 9}, {2, 0, 1}, eb, {0, 9, 1}, {}}, ++seed, "broadcast batch"));
    if (HasFailure()) return;
  }
}

TEST(CpuExecutor, RankZeroAndEmptyProblems) {
  std::uint64_t seed = 700;
  for (const std::int64_t eb : elem_sizes) {
    ASSERT_TRUE(run_case({{}, {}, eb, {}, {}}, ++seed, "rank 0"));
    ASSERT_TRUE(run_case({{3, 0, 5}, {2, 1, 0}, eb, {}, {}}, ++seed, "empty"));
    ASSERT_TRUE(run_case({{0}, {}, eb, {}, {}}, ++seed, "empty 1-d"));
  }
  // Empty problems accept null pointers and write nothing.
  auto plan = xpose::make_plan({{4, 0}, {1, 0}, 4, {}, {}});
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->execute_host(nullptr, nullptr, 2));
}

TEST(CpuExecutor, PermuteHostAndTransposeHostConveniences) {
  const std::int64_t rows = 37, cols = 53;
  std::vector<float> in(rows * cols), out(rows * cols, -1.0f);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) + 0.5f;
  ASSERT_TRUE(xpose::transpose_host(in.data(), out.data(), rows, cols));  // typed: elem_bytes = sizeof(float)
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) ASSERT_EQ(out[c * rows + r], in[r * cols + c]) << r << ", " << c;

  std::vector<float> again(in.size(), -1.0f);  // untyped, two threads
  ASSERT_TRUE(xpose::transpose_host(static_cast<const void*>(in.data()), static_cast<void*>(again.data()), rows, cols,
                                    std::int64_t{sizeof(float)}, 2));
  EXPECT_EQ(again, out);

  std::vector<float> back(in.size(), -1.0f);
  ASSERT_TRUE(xpose::permute_host(out.data(), back.data(), problem{{cols, rows}, {}, 4, {}, {}}, 0));
  EXPECT_EQ(back, in);
}

TEST(CpuExecutor, TransposeHostHonoursElemBytes) {
  // Regression: the typed front-end once took `int threads` as its 5th argument, so with uint8_t pointers
  // and an int literal, transpose_host(in, out, rows, cols, 3) bound to it and moved single bytes with
  // 3 threads instead of 3-byte RGB pixels. The typed overload now takes no thread count.
  const std::int64_t rows = 4, cols = 6;
  const problem p{{rows, cols}, {1, 0}, 3, {}, {}};
  const case_buffers b = make_buffers(p, 77, 0, 0);
  std::vector<std::uint8_t> out(b.out_expected.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = poison(static_cast<std::int64_t>(i));
  const std::uint8_t* in = b.in.data() + b.in_offset;
  ASSERT_TRUE(xpose::transpose_host(in, out.data() + b.out_offset, rows, cols, 3));
  EXPECT_TRUE(out == b.out_expected) << "transpose_host(uint8_t*, uint8_t*, 4, 6, 3) did not move 3-byte elements";
}

TEST(CpuExecutor, PlansRunFromSeveralThreadsAtOnce) {
  // Plans are immutable: one plan executed concurrently from several host threads.
  const problem p{{61, 67}, {1, 0}, 8, {}, {}};
  auto plan = xpose::make_plan(p);
  ASSERT_TRUE(plan);
  const case_buffers b = make_buffers(p, 900, 0, 0);
  std::vector<std::vector<unsigned char>> outs(4, std::vector<unsigned char>(b.out_expected.size()));
  std::vector<std::thread> workers;
  std::vector<int> ok(outs.size(), 0);
  for (std::size_t t = 0; t < outs.size(); ++t) {
    workers.emplace_back([&, t] {
      auto& out = outs[t];
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = poison(static_cast<std::int64_t>(i));
      ok[t] = plan->execute_host(b.in.data() + b.in_offset, out.data() + b.out_offset, 1).is_ok() ? 1 : 0;
    });
  }
  for (auto& w : workers) w.join();
  for (std::size_t t = 0; t < outs.size(); ++t) {
    EXPECT_EQ(ok[t], 1);
    EXPECT_TRUE(outs[t] == b.out_expected) << "thread " << t;
  }
}

}  // namespace
