// Tests of the teaching ladder (src/textbook, DESIGN §4).
//  - Host-only facts: the rungs and their order, which shapes each supports, that every shared-memory layout
//    is one-to-one, that the block orders visit every tile once, and that each tiled rung has exactly the
//    bank conflicts its article describes (every warp access of both phases replayed on the host).
//  - On the GPU: every rung x every shape it supports against the host definition. The input holds the
//    linear-index oracle (element i carries bit pattern 0x3F800000 + i, a normal float, distinct, never the
//    poison), the output is poisoned with 0xFF bytes and framed by poisoned guard words; every element and
//    every guard word is checked.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/cuda_check.cuh"
#include "textbook/ladder.cuh"
#include "textbook/textbook.hpp"

namespace {

namespace tb = xpose::textbook;

const tb::kernel_info* find_rung(const std::string& name) {
  for (const auto& k : tb::ladder())
    if (name == k.name) return &k;
  return nullptr;
}

// ---- the ladder as a whole -------------------------------------------------------------------------------

TEST(TextbookLadder, ListsEveryRungOfDesignSection4InTeachingOrder) {
  const std::vector<std::string> expected = {
      "copy",           "copy_shared",       "naive_read_coalesced", "naive_write_coalesced",
      "shared_16x16",   "shared_16x16_padded", "tiled_32x8",         "tiled_32x8_padded",
      "tiled_swizzled", "tiled_vec4",        "tiled_diagonal",       "tiled_checked",
      "tiled_full_tile_fast_path"};
  std::vector<std::string> got;
  for (const auto& k : tb::ladder()) {
    got.emplace_back(k.name);
    EXPECT_NE(k.idea, nullptr);
    EXPECT_GT(std::string(k.idea).size(), 10u) << k.name;
    EXPECT_NE(k.supports, nullptr) << k.name;
    EXPECT_NE(k.launch, nullptr) << k.name;
    EXPECT_EQ(k.transposes, got.back() != "copy" && got.back() != "copy_shared") << k.name;
  }
  EXPECT_EQ(got, expected);
}

TEST(TextbookLadder, SupportsTheArticlesSizesOnEveryRung) {
  const std::int64_t sizes[][2] = {{2048, 1024}, {1024, 2048}, {1024, 1024}, {4096, 4096}, {8192, 8192}};
  for (const auto& k : tb::ladder())
    for (const auto& s : sizes) EXPECT_TRUE(k.supports(s[0], s[1])) << k.name << " " << s[0] << "x" << s[1];
}

TEST(TextbookLadder, FullTileRungsDeclineShapesThatAreNotMultiplesOf32AndVec4NeedsMultiplesOf4) {
  const std::set<std::string> full_tile_only = {"tiled_32x8", "tiled_32x8_padded", "tiled_swizzled",
                                                "tiled_diagonal"};
  for (const auto& k : tb::ladder()) {
    const std::string name = k.name;
    if (full_tile_only.count(name) != 0) {
      EXPECT_FALSE(k.supports(33, 32)) << name;
      EXPECT_FALSE(k.supports(32, 33)) << name;
      EXPECT_FALSE(k.supports(36, 100)) << name;
      EXPECT_TRUE(k.supports(64, 96)) << name;
    } else if (name == "tiled_vec4") {
      EXPECT_TRUE(k.supports(36, 100));
      EXPECT_TRUE(k.supports(4, 8));
      EXPECT_FALSE(k.supports(37, 100));
      EXPECT_FALSE(k.supports(36, 101));
      EXPECT_FALSE(k.supports(1, 1));
    } else {
      for (const std::int64_t r : {1, 31, 33, 127, 1000})
        for (const std::int64_t c : {1, 37, 129, 999}) EXPECT_TRUE(k.supports(r, c)) << name << " " << r << "x" << c;
    }
  }
}

TEST(TextbookLadder, DeclinesGridsTallerThanTheCudaLimitInsteadOfFailingSilently) {
  for (const auto& k : tb::ladder()) {
    // 65536 tile rows of 32 (131072 of 16): one more than gridDim.y can hold.
    EXPECT_FALSE(k.supports(std::int64_t{65536} * 32, 32)) << k.name;
    EXPECT_EQ(k.launch(nullptr, nullptr, std::int64_t{65536} * 32, 32, nullptr), cudaErrorInvalidValue) << k.name;
  }
  // The largest grid that fits is accepted by the 32 x 32 tile rungs.
  EXPECT_TRUE(find_rung("tiled_32x8")->supports(std::int64_t{65535} * 32, 32));
  EXPECT_TRUE(find_rung("copy")->supports(std::int64_t{65535} * 32, 32));
  EXPECT_FALSE(find_rung("shared_16x16")->supports(std::int64_t{65535} * 32, 32));
}

TEST(TextbookLadder, DeclinesNegativeExtentsAndLaunchesNothingForEmptyMatrices) {
  for (const auto& k : tb::ladder()) {
    EXPECT_FALSE(k.supports(-1, 32)) << k.name;
    EXPECT_FALSE(k.supports(32, -32)) << k.name;
    EXPECT_TRUE(k.supports(0, 32)) << k.name;
    EXPECT_TRUE(k.supports(32, 0)) << k.name;
    EXPECT_EQ(k.launch(nullptr, nullptr, 0, 32, nullptr), cudaSuccess) << k.name;
    EXPECT_EQ(k.launch(nullptr, nullptr, 32, 0, nullptr), cudaSuccess) << k.name;
  }
}

// ---- shared-memory layouts, block orders, bank conflicts (host only) -------------------------------------

template <class Layout>
void expect_one_to_one() {
  std::vector<int> owner(Layout::size, -1);
  for (int r = 0; r < Layout::tile; ++r)
    for (int c = 0; c < Layout::tile; ++c) {
      const int w = Layout::offset(r, c);
      ASSERT_GE(w, 0);
      ASSERT_LT(w, Layout::size) << "(" << r << ", " << c << ")";
      ASSERT_EQ(owner[w], -1) << "(" << r << ", " << c << ") shares word " << w;
      owner[w] = r * Layout::tile + c;
    }
}

TEST(SharedMemoryLayouts, MapEveryTileElementToItsOwnWordInsideTheAllocation) {
  expect_one_to_one<tb::smem_identity<16>>();
  expect_one_to_one<tb::smem_identity<32>>();
  expect_one_to_one<tb::smem_padded<32, 1>>();
  expect_one_to_one<tb::smem_padded_per_warp<16>>();
  expect_one_to_one<tb::smem_padded_per_warp<32>>();
  expect_one_to_one<tb::smem_padded_per_warp<8>>();
  expect_one_to_one<tb::smem_xor_swizzle<16>>();
  expect_one_to_one<tb::smem_xor_swizzle<32>>();
}

TEST(SharedMemoryLayouts, PerWarpPaddingOfAFullWarpRowIsThePlusOneColumnPadding) {
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c)
      EXPECT_EQ((tb::smem_padded_per_warp<32>::offset(r, c)), (tb::smem_padded<32, 1>::offset(r, c)));
}

template <class Order>
void expect_every_tile_once(unsigned gx, unsigned gy) {
  std::vector<int> seen(std::size_t{gx} * gy, 0);
  for (unsigned by = 0; by < gy; ++by)
    for (unsigned bx = 0; bx < gx; ++bx) {
      const tb::tile_index t = Order::tile_of(bx, by, gx, gy);
      ASSERT_LT(t.row, gy) << "grid " << gx << "x" << gy;
      ASSERT_LT(t.col, gx) << "grid " << gx << "x" << gy;
      ++seen[std::size_t{t.row} * gx + t.col];
    }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; })) << "grid " << gx << "x" << gy;
}

TEST(BlockOrders, VisitEveryTileExactlyOnceOnSquareAndNonSquareGrids) {
  const unsigned grids[][2] = {{1, 1}, {5, 1}, {1, 5}, {3, 2}, {2, 3}, {7, 7}, {32, 64}, {64, 32}, {256, 256}};
  for (const auto& g : grids) {
    expect_every_tile_once<tb::cartesian_order>(g[0], g[1]);
    expect_every_tile_once<tb::diagonal_order>(g[0], g[1]);
  }
}

TEST(BlockOrders, DiagonalOrderSpreadsConsecutiveBlocksOverDifferentTileColumnsAndRows) {
  // On a square grid, the first row of blocks lies on the main diagonal of the tile grid.
  for (unsigned bx = 0; bx < 8; ++bx) {
    const tb::tile_index t = tb::diagonal_order::tile_of(bx, 0, 8, 8);
    EXPECT_EQ(t.row, bx);
    EXPECT_EQ(t.col, bx);
  }
}

// Largest number of distinct shared-memory words that one warp access puts into one bank, over every warp,
// pass and vector component of the load phase (store_phase = false) or the store phase.
template <class Policy>
int worst_bank_conflict(bool store_phase) {
  int worst = 0;
  for (int p = 0; p < Policy::passes; ++p)
    for (int k = 0; k < Policy::vec; ++k)
      for (int warp = 0; warp < Policy::threads / 32; ++warp) {
        std::set<int> words_in_bank[32];
        for (int lane = 0; lane < 32; ++lane) {
          const int tid = warp * 32 + lane;  // threadIdx.x is the fastest: warps take whole rows of x
          const int x = tid % Policy::block_x;
          const int y = tid / Policy::block_x;
          const int w = store_phase ? Policy::store_slot(x, y, p, k) : Policy::load_slot(x, y, p, k);
          words_in_bank[w % 32].insert(w);
        }
        for (const auto& b : words_in_bank) worst = std::max(worst, static_cast<int>(b.size()));
      }
  return worst;
}

template <class Rung>
void expect_conflicts(const char* name, int load_ways, int store_ways) {
  using policy = typename Rung::family::policy;
  EXPECT_EQ(worst_bank_conflict<policy>(false), load_ways) << name << ": load phase (row-wise tile writes)";
  EXPECT_EQ(worst_bank_conflict<policy>(true), store_ways) << name << ": store phase (tile reads)";
}

TEST(TiledRungs, HaveExactlyTheBankConflictsTheArticlesDescribe) {
  namespace r = tb::rungs;
  expect_conflicts<r::copy_shared>("copy_shared", 1, 1);
  expect_conflicts<r::shared_16x16>("shared_16x16", 1, 8);  // image article: "8-fold bank conflict"
  expect_conflicts<r::shared_16x16_padded>("shared_16x16_padded", 1, 1);
  expect_conflicts<r::tiled_32x8>("tiled_32x8", 1, 32);  // Fortran article: "32-way bank conflict"
  expect_conflicts<r::tiled_32x8_padded>("tiled_32x8_padded", 1, 1);
  expect_conflicts<r::tiled_swizzled>("tiled_swizzled", 1, 1);
  expect_conflicts<r::tiled_vec4>("tiled_vec4", 1, 1);
  expect_conflicts<r::tiled_diagonal>("tiled_diagonal", 1, 1);
  expect_conflicts<r::tiled_checked>("tiled_checked", 1, 1);
  expect_conflicts<r::tiled_full_tile_fast_path>("tiled_full_tile_fast_path", 1, 1);
}

// ---- every rung x every shape it supports, on the GPU ----------------------------------------------------

struct shape {
  std::int64_t rows;
  std::int64_t cols;
};

// The brief's shapes (1, primes, tile +- 1, the articles' sizes) plus multiples of 4 that are not multiples
// of 32, so that tiled_vec4 also meets partial tiles.
const shape k_shapes[] = {{1, 1},     {1, 37},      {37, 1},      {31, 33},    {32, 32},
                          {33, 31},   {64, 96},     {127, 129},   {1024, 1024}, {2048, 1024},
                          {1000, 999}, {4, 8},      {36, 100},    {100, 36}};

struct ladder_case {
  std::size_t rung;  // index into ladder()
  shape s;
};

std::vector<ladder_case> supported_cases() {
  std::vector<ladder_case> cases;
  const auto rungs = tb::ladder();
  for (std::size_t i = 0; i < rungs.size(); ++i)
    for (const shape& s : k_shapes)
      if (rungs[i].supports(s.rows, s.cols)) cases.push_back({i, s});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<ladder_case>& info) {
  return std::string(tb::ladder()[info.param.rung].name) + "_" + std::to_string(info.param.s.rows) + "x" +
         std::to_string(info.param.s.cols);
}

constexpr std::uint32_t oracle_base = 0x3F800000u;  // 1.0f: base + i is a normal float for every i here
constexpr std::uint32_t poison = 0xFFFFFFFFu;       // a NaN pattern no input element has
constexpr std::int64_t guard_words = 64;            // 256 bytes before and after: keeps 16-byte alignment

struct device_words {
  std::uint32_t* ptr = nullptr;
  explicit device_words(std::int64_t n) {
    if (cudaMalloc(&ptr, static_cast<std::size_t>(n) * sizeof(std::uint32_t)) != cudaSuccess) ptr = nullptr;
  }
  ~device_words() { cudaFree(ptr); }
  device_words(const device_words&) = delete;
  device_words& operator=(const device_words&) = delete;
};

struct stream_owner {
  cudaStream_t s = nullptr;
  ~stream_owner() {
    if (s != nullptr) cudaStreamDestroy(s);
  }
};

class LadderRung : public ::testing::TestWithParam<ladder_case> {};

TEST_P(LadderRung, WritesEveryOutputElementAsTheHostDefinitionAndNothingOutsideIt) {
  const tb::kernel_info& k = tb::ladder()[GetParam().rung];
  const std::int64_t rows = GetParam().s.rows, cols = GetParam().s.cols, n = rows * cols;
  ASSERT_TRUE(k.supports(rows, cols));
  ASSERT_LT(n, std::int64_t{1} << 23);  // keeps the oracle's bit patterns distinct normal floats

  std::vector<std::uint32_t> h_in(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) h_in[i] = oracle_base + static_cast<std::uint32_t>(i);
  const std::int64_t out_words = guard_words + n + guard_words;
  std::vector<std::uint32_t> h_out(static_cast<std::size_t>(out_words), 0);

  device_words d_in(n), d_out(out_words);
  ASSERT_NE(d_in.ptr, nullptr);
  ASSERT_NE(d_out.ptr, nullptr);
  stream_owner stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream.s, cudaStreamNonBlocking));
  CUDA_OK(cudaMemcpy(d_in.ptr, h_in.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_out.ptr, 0xFF, out_words * sizeof(std::uint32_t)));
  CUDA_OK(cudaDeviceSynchronize());  // the memset ran on the legacy stream; the kernel runs on `stream`

  CUDA_OK(k.launch(reinterpret_cast<const float*>(d_in.ptr), reinterpret_cast<float*>(d_out.ptr + guard_words),
                      rows, cols, stream.s));
  CUDA_OK(cudaStreamSynchronize(stream.s));
  CUDA_OK(cudaMemcpy(h_out.data(), d_out.ptr, out_words * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));

  // The output is cols x rows (transposes) or rows x cols; out_row/out_col are its coordinates.
  const std::int64_t out_cols = k.transposes ? rows : cols;
  std::int64_t wrong = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::int64_t o = k.transposes ? c * rows + r : r * cols + c;
      const std::uint32_t want = oracle_base + static_cast<std::uint32_t>(r * cols + c);
      const std::uint32_t got = h_out[guard_words + o];
      if (got != want && wrong++ < 5) {
        ADD_FAILURE() << k.name << " " << rows << "x" << cols << ": out[" << o / out_cols << "][" << o % out_cols
                      << "] should hold in[" << r << "][" << c << "] but holds "
                      << (got == poison ? std::string("the poison (never written)")
                                        : "in element " + std::to_string(std::int64_t{got} - oracle_base));
      }
    }
  EXPECT_EQ(wrong, 0) << "wrong elements of " << n;
  for (std::int64_t g = 0; g < guard_words; ++g) {
    EXPECT_EQ(h_out[g], poison) << "word " << guard_words - g << " before the output was written";
    EXPECT_EQ(h_out[guard_words + n + g], poison) << "word " << g << " after the output was written";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryRungAndSupportedShape, LadderRung, ::testing::ValuesIn(supported_cases()), case_name);

TEST(TextbookLadder, LaunchingAnUnsupportedShapeOrMisalignedVectorsReturnsAnErrorAndWritesNothing) {
  const std::int64_t words = 64 * 64 + 4;
  device_words d_in(words), d_out(words);
  ASSERT_NE(d_in.ptr, nullptr);
  ASSERT_NE(d_out.ptr, nullptr);
  CUDA_OK(cudaMemset(d_in.ptr, 0, words * sizeof(std::uint32_t)));
  CUDA_OK(cudaMemset(d_out.ptr, 0xFF, words * sizeof(std::uint32_t)));
  const auto* in = reinterpret_cast<const float*>(d_in.ptr);
  auto* out = reinterpret_cast<float*>(d_out.ptr);

  EXPECT_EQ(find_rung("tiled_32x8")->launch(in, out, 33, 31, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(find_rung("tiled_vec4")->launch(in, out, 37, 36, nullptr), cudaErrorInvalidValue);
  // float4 accesses need 16-byte aligned bases: one word off is refused, not faulted on.
  EXPECT_EQ(find_rung("tiled_vec4")->launch(in + 1, out, 32, 32, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(find_rung("tiled_vec4")->launch(in, out + 1, 32, 32, nullptr), cudaErrorInvalidValue);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaGetLastError());  // nothing was launched, so nothing failed

  std::vector<std::uint32_t> h_out(static_cast<std::size_t>(words));
  CUDA_OK(cudaMemcpy(h_out.data(), d_out.ptr, words * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(std::all_of(h_out.begin(), h_out.end(), [](std::uint32_t w) { return w == poison; }));
}

}  // namespace
