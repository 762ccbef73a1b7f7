// In-place transposes on the GPU: every shape up to 64 x every element size, batches, pitched squares and
// gaps (the whole allocation is checked: nothing outside the matrices changes), misaligned bases, a poisoned
// workspace, errors naming the argument, streams and graphs, and more than 2^31 elements.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <tuple>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/inplace_oracle.cuh"
#include "common/inplace_shapes.hpp"
#include "common/test_seed.hpp"
#include "cuda/dispatch/dispatch.hpp"
#include "plan/inplace.hpp"
#include "xpose/inplace.hpp"

namespace {

using namespace xpose;
using test::device_buffer;

// Transposes `p` in a pattern-filled allocation (data at byte `shift`, 64 guard bytes after), with a
// poisoned workspace, and checks every byte of the allocation.
// `work` (plan executions on `stream`) captured and instantiated as a graph; nullptr (and a test failure)
// when capture fails.
template <class Work>
cudaGraphExec_t captured(cudaStream_t stream, const Work& work) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  work();
  EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  if (graph == nullptr) return nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  cudaGraphDestroy(graph);
  return exec;
}

// Wrong bytes of `bytes` of `buf` against the fill pattern left in place (a transpose and its inverse ran).
unsigned long long wrong_vs_fill(const void* buf, std::int64_t bytes, cudaStream_t stream) {
  unsigned long long* d_wrong = nullptr, wrong = 1;
  EXPECT_EQ(cudaMalloc(&d_wrong, sizeof(unsigned long long)), cudaSuccess);
  EXPECT_EQ(test::inplace_count_wrong(buf, static_cast<std::uint64_t>(bytes),
                                      inplace_geometry{inplace_algorithm::none, 1, 1, bytes, 1, bytes, bytes}, 0, d_wrong,
                                      wrong, stream),
            cudaSuccess);
  cudaFree(d_wrong);
  return wrong;
}

// `choice` pins rectangles to shuffle (shuffle_only) or keeps them off staged (no_staged), so that every
// algorithm stays tested on shapes the default plan gives to another; only `any` runs the public plan.
using detail::inplace_choice;
constexpr inplace_choice shuffle_only = inplace_choice::shuffle_only, no_staged = inplace_choice::no_staged;
void check(const inplace_problem& p, std::int64_t shift = 0, cudaStream_t stream = nullptr,
           inplace_choice choice = inplace_choice::any, std::int64_t guard = 64) {
  SCOPED_TRACE(::testing::Message() << p << ", shift " << shift << ", choice " << static_cast<int>(choice));
  const bool tile_cycles = choice == inplace_choice::any;
  inplace_geometry g;
  std::int64_t span = 0;
  ASSERT_TRUE(detail::make_inplace_geometry(p, g, span, choice));
  auto plan = make_inplace_plan(p);
  ASSERT_TRUE(plan) << plan.error();
  const std::uint64_t bytes = static_cast<std::uint64_t>(shift + span + guard);
  device_buffer buf(bytes), ws(static_cast<std::size_t>(g.workspace_bytes));
  ASSERT_NE(buf.ptr, nullptr);
  ASSERT_NE(ws.ptr, nullptr);
  unsigned long long* d_wrong = nullptr;
  CUDA_OK(cudaMalloc(&d_wrong, sizeof(unsigned long long)));
  CUDA_OK(test::inplace_fill(buf.ptr, bytes, stream));
  if (g.workspace_bytes > 0) CUDA_OK(cudaMemsetAsync(ws.ptr, 0xA5, static_cast<std::size_t>(g.workspace_bytes), stream));
  const status s = tile_cycles ? plan->execute(buf.bytes() + shift, ws.ptr, plan->workspace_bytes(), stream)
                               : detail::cuda_execute_inplace(g, buf.bytes() + shift, ws.ptr, stream);
  ASSERT_TRUE(s) << s;
  unsigned long long wrong = 1;
  CUDA_OK(test::inplace_count_wrong(buf.ptr, bytes, g, shift, d_wrong, wrong, stream));
  EXPECT_EQ(wrong, 0ull) << g;
  cudaFree(d_wrong);
}

TEST(InplaceGpu, TheOracleCatchesAnUntransposedMatrix) {
  auto plan = make_inplace_plan({64, 48, 4});
  ASSERT_TRUE(plan);
  const std::uint64_t bytes = 64 * 48 * 4;
  device_buffer buf(bytes);
  unsigned long long* d_wrong = nullptr;
  CUDA_OK(cudaMalloc(&d_wrong, sizeof(unsigned long long)));
  CUDA_OK(test::inplace_fill(buf.ptr, bytes));
  unsigned long long wrong = 0;
  CUDA_OK(test::inplace_count_wrong(buf.ptr, bytes, plan->geometry(), 0, d_wrong, wrong));
  EXPECT_GT(wrong, bytes / 2);  // nothing ran: nearly every byte is out of place
  cudaFree(d_wrong);
}

TEST(InplaceGpu, EveryShapeUpTo64AndEveryElementSize) {  // default plans (staged, mostly) and shuffle alone
  for (std::int64_t U : {1, 2, 4, 8, 16, 3, 12})
    for (std::int64_t r = 1; r <= 64; r += (U <= 4) ? 1 : 3)
      for (std::int64_t c = 1; c <= 64; ++c) {
        check({r, c, U});
        if (r != c) check({r, c, U}, 0, nullptr, shuffle_only);
      }
}

TEST(InplaceGpu, StagedGroupsBatchesGapsAndShifts) {
  for (std::int64_t shift : {0, 1, 4}) {
    check({4097, 3001, 1}, shift);
    check({3001, 4097, 2}, shift);
    check({1048573, 3, 4}, shift);
    check({501, 133, 2, 300, 0, 501 * 133 + 3}, shift);  // groups of 251 and 49 matrices, odd gaps: gathered
    check({97, 89, 3, 5}, shift);
    check({89, 97, 16, 7, 0, 89 * 97 + 1}, shift);
  }
  auto plan = make_inplace_plan({4097, 3001, 1});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->algo(), inplace_algorithm::staged);
}

TEST(InplaceGpu, StagedBlocksOfRowsOrColumnsBatchesGapsAndShifts) {  // over 32 MiB
  for (std::int64_t shift : {0, 1, 4}) {
    check({4097, 10001, 1}, shift);  // 4097 = 17 x 241, 10001 = 73 x 137: blocks and the unit pass
    check({10001, 4097, 1}, shift);
    check({2999, 6001, 3}, shift);  // 6001 = 17 x 353
    check({6001, 2999, 3}, shift);
    check({6001, 5999, 1, 2, 0, 6001 * 5999 + 5}, shift);
  }
  for (const inplace_problem& p : {inplace_problem{4097, 10001, 1}, inplace_problem{10001, 4097, 1},
                                   inplace_problem{2999, 6001, 3}}) {
    auto plan = make_inplace_plan(p);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->algo(), inplace_algorithm::staged_blocks) << p;
  }
}

TEST(InplaceGpu, SquaresOfEveryUnitAlignedAndMisaligned) {
  for (std::int64_t U : {1, 2, 4, 8, 16, 3, 6, 12, 24, 40})
    for (std::int64_t n : {127, 128, 129, 300, 1000}) {
      check({n, n, U});
      check({n, n, U}, 4);  // words path
    }
}

// square_bulk8 (1-byte units, tiles staged by tensor copies on sm_90; square_vec16 elsewhere) and square_async
// (2-byte units, tiles staged by cp.async) on 16-byte aligned rows: full and edge pairs (sides cutting a tile mid-chunk, a 1-unit edge, a single partial tile), pitched
// batches and gaps, and allocations that end at the matrix's last byte (edge chunks are staged unit by unit:
// memcheck sees any read past it). Blocks take several pairs each once the pairs outnumber the resident ones.
TEST(InplaceGpu, SquaresOfBytesAndHalvesOnAlignedRows) {
  for (std::int64_t U : {1, 2})
    for (std::int64_t n : {16, 48, 64, 112, 128, 129, 200, 1000, 2064}) {
      const std::int64_t ld = (n * U + 15) / 16 * 16 / U;  // rows 16-byte aligned
      check({n, n, U, 1, ld, 0}, 0, nullptr, inplace_choice::any, 0);
      check({n, n, U, 3, ld + 16 / U, 0}, 16);                                          // pitched batch
      check({n, n, U, 2, ld, ld * n + 32 / U}, 0, nullptr, inplace_choice::any, 0);  // a gap between them
    }
  check({4096, 4096, 1, 3}, 0, nullptr, inplace_choice::any, 0);  // 1056 pairs a matrix: grid-stride rounds
  check({2056, 2056, 2, 5}, 0, nullptr, inplace_choice::any, 0);
}

// 1-byte units on rows 8-byte but not 16-byte aligned (square_vec8): full and edge pairs (sides cutting a tile
// mid-chunk, a 1-byte edge, one partial tile), a batch with a pitch and gap, a base shifted by 8 bytes, and
// squares larger than square_bulk8 takes (16-byte aligned rows: square_vec16) beside them.
TEST(InplaceGpu, SquaresOfBytesOnEightByteAlignedRows) {
  for (std::int64_t n : {8, 24, 120, 129, 136, 255, 1000, 2056}) {
    const std::int64_t ld = (n + 7) / 8 * 8 + ((n + 7) / 8 % 2 == 0 ? 8 : 0);  // an odd number of 8-byte words
    check({n, n, 1, 1, ld, 0}, 0, nullptr, inplace_choice::any, 0);
    check({n, n, 1, 1, ld, 0}, 8);                                      // base 8 bytes past the allocation's
    check({n, n, 1, 3, ld, ld * n + 8}, 0, nullptr, inplace_choice::any, 0);  // a gap of 8 bytes between them
  }
  check({4104, 4104, 1, 2}, 0, nullptr, inplace_choice::any, 0);  // 528 pairs a matrix: grid-stride rounds
}

// Rows off the 16-byte grid at every byte phase (odd sides, odd pitches, bases not even aligned to the unit):
// square_shift16 (1- and 2-byte units; edge tiles of every remainder of its tile side T) and square_words, with
// allocations that end at the matrix's last byte (no guard: under compute-sanitizer, square_shift16's aligned
// chunks would be reported if they read past the allocation).
TEST(InplaceGpu, SquaresOnRowsOffThe16ByteGrid) {
  for (std::int64_t U : {1, 2, 4, 8, 16}) {
    const std::int64_t T = 16 / U * 15;  // square_shift16's tile side (shift_step_rows)
    for (const std::int64_t n : std::initializer_list<std::int64_t>{T - 1, T + 1, 2 * T + 7, 1001}) {
      check({n, n, U}, 0, nullptr, inplace_choice::any, 0);
      check({n, n, U}, 5, nullptr, inplace_choice::any, 0);
      check({n, n, U, 3, n + 3, 0}, 11);          // pitched batch, every row at another phase
      check({n, n, U, 2, n + 1, n * (n + 1) + 7}, 2);  // gaps between the matrices
    }
    check({7, 7, U}, 9, nullptr, inplace_choice::any, 0);  // one partial tile
  }
}

// square_units: 4- and 8-byte units on rows off the 16-byte grid but on the unit's own: sides around its tile (64
// units) and odd, bases a unit off, pitched batches whose rows cycle through every
// phase of the word grid, gaps; the allocation ends at the matrix's last byte (memcheck sees any read past it).
TEST(InplaceGpu, SquaresOfUnitsOnTheirOwnGrid) {
  for (std::int64_t U : {4, 8}) {
    const std::int64_t T = 64;
    for (const std::int64_t n : std::initializer_list<std::int64_t>{1, 3, T - 1, T + 1, 2 * T + 3, 1001}) {
      check({n, n, U}, 0, nullptr, inplace_choice::any, 0);
      check({n, n, U}, U, nullptr, inplace_choice::any, 0);
      check({n, n, U, 3, n + 1, 0}, 3 * U);
      check({n, n, U, 2, n + 3, n * (n + 3) + 1}, 2 * U);
    }
  }
  check({4099, 4099, 4}, 4);  // 2080 pairs: grid-stride rounds
  check({3001, 3001, 8}, 8);
}

// square_gather_any: units of 3-64 bytes (not 4, 8, 16) on rows off the 16-byte grid: odd sides (full and edge
// tiles), bases 1-15 bytes off, pitched batches and gaps, allocations that end at the matrix's last byte (memcheck
// sees any read past it).
TEST(InplaceGpu, SquaresOfOddUnitsOffThe16ByteGrid) {
  for (std::int64_t U : {3, 5, 6, 7, 9, 11, 12, 13, 15, 24, 40, 64})
    for (std::int64_t n : {15, 97, 161}) {
      check({n, n, U}, 0, nullptr, inplace_choice::any, 0);
      check({n, n, U}, 7, nullptr, inplace_choice::any, 0);
      check({n, n, U, 3, n + 1, 0}, 3);
      check({n, n, U, 2, n + 3, n * (n + 3) + 5}, 1);
    }
}

TEST(InplaceGpu, SquaresOfOddUnitsOnAlignedRows) {  // square_gather: every granule size, edge tiles
  for (std::int64_t U : {3, 5, 6, 7, 10, 12, 20, 24, 25, 48, 56, 64, 72})
    for (std::int64_t n : {16, 96, 208, U % 3 == 0 ? 1008 : 160}) {
      check({n, n, U});
      check({n, n, U, 3, n + 16, 0});                  // pitched batch: rows still 16-byte aligned
      if (n == 96) check({n - 5, n - 5, U, 2, n, 0});  // edge tiles that end mid-chunk
    }
}

// Every unit below 16 bytes that is not a vector's (square_gather, or square_permute for RGB8 where a batch has
// enough pairs): full and edge tiles (edges ending mid-chunk, a 1-unit edge), allocations that end at the matrix's
// last byte (memcheck sees any read past it), pitched batches and gaps with rows still 16-byte aligned.
TEST(InplaceGpu, SquaresOfEveryUnitBelow16OnAlignedRows) {
  for (std::int64_t U : {3, 5, 6, 7, 9, 10, 11, 13, 14, 15}) {
    for (std::int64_t n : {16, 64, 65, 100, 1000}) {
      const std::int64_t ld = (n + 31) / 16 * 16;
      check({n, n, U}, 0, nullptr, inplace_choice::any, 0);
      check({n, n, U, 3, ld, 0});                  // pitched batch
      check({n, n, U, 2, ld, ld * n + 16}, 0, nullptr, inplace_choice::any, 0);  // a gap between the matrices
    }
    check({300, 300, U, 1, 304, 0}, 16);  // a 16-byte aligned base past the allocation's start
  }
  // 13-15-byte units in wide tiles (at least 32 pairs an SM: 136 pairs a 1000^2 matrix, 5440 a batch of 40, for
  // up to 170 SMs): edge tiles of 40 units, packed and pitched with a gap.
  for (std::int64_t U : {13, 14, 15}) {
    check({1000, 1000, U, 40}, 0, nullptr, inplace_choice::any, 0);
    check({1000, 1000, U, 40, 1008, 1008 * 1000 + 32});
  }
}

// square_permute (RGB8 pairs through register permutes) runs where there are at least 8 pairs an SM: batches
// of squares with full and edge tiles of its 128 units, packed, pitched (rows still 16-byte aligned) and with
// gaps; on GPUs with fewer pairs an SM than that the same problems run square_gather.
TEST(InplaceGpu, SquaresOfRgb8ThroughRegisterPermutes) {
  check({304, 304, 3, 200});                    // 3 x 3 tiles (48-unit edges): 6 pairs a matrix
  check({257, 257, 3, 200, 272, 0});            // a 1-unit edge; rows 816 bytes apart
  check({128, 128, 3, 1200, 0, 128 * 128 + 16});  // one diagonal pair a matrix, 48-byte gaps
  check({1000, 1000, 3, 40}, 16);
}

// square_permute's 4-unit pieces (odd units of 5-15 bytes) where a batch has at least 8 pairs an SM: full and
// edge tiles (64 units, 48 for 15-byte units; edges of 8 units end mid-chunk, a 1-unit edge), packed, pitched and
// with gaps between the matrices (rows still 16-byte aligned); on GPUs with more than 187 SMs some run
// square_gather.
TEST(InplaceGpu, SquaresOfOddUnitsThroughRegisterPermutes) {
  for (std::int64_t U : {5, 7, 9, 11, 13, 15}) {
    check({200, 200, U, 150});                        // 4 x 4 tiles (5 x 5 for 15 bytes): 10-15 pairs a matrix
    check({193, 193, U, 150, 208, 0});                // a 1-unit edge; pitched rows
    check({64, 64, U, 1500, 0, 64 * 64 + 16}, 0, nullptr, inplace_choice::any, 0);  // one or three pairs, gaps
  }
}

TEST(InplaceGpu, BatchesPitchedSquaresAndGaps) {
  check({37, 37, 4, 3, 41, 0});
  check({300, 300, 1, 3, 320, 300 * 320 + 16});
  check({129, 129, 16, 2, 130, 0});
  check({5, 9, 2, 7, 0, 0});
  check({9, 5, 16, 4, 0, 50});
  check({100, 300, 4, 5, 0, 0});
  check({300, 100, 1, 5, 0, 30001});
}

TEST(InplaceGpu, RandomShapesElementSizesAndShifts) {
  std::mt19937_64 rng(test::announced_test_seed(20261124));
  const std::int64_t sizes[] = {1, 2, 4, 8, 16, 3, 6, 12};
  for (int t = 0; t < 40; ++t) {
    const std::int64_t r = 1 + static_cast<std::int64_t>(rng() % 3000), c = 1 + static_cast<std::int64_t>(rng() % 3000);
    check({r, c, sizes[rng() % 8]}, static_cast<std::int64_t>(rng() % 3) * 4);
  }
}

TEST(InplaceGpu, StagingModesRowsWavesWorkspaceStripsRotations) {
  check({1048576, 3, 4}, 0, nullptr, shuffle_only);  // few long rows: waves through the workspace
  check({3, 1048576, 4}, 0, nullptr, shuffle_only);  // r2c waves (inverse row map)
  check({4194304, 4, 1}, 0, nullptr, shuffle_only);
  check({1200, 700, 4}, 0, nullptr, shuffle_only);  // gcd 100: rotation pass, c2r
  check({700, 1200, 8}, 0, nullptr, shuffle_only);  // r2c with rotation
  check({600, 400, 1, 3}, 0, nullptr, shuffle_only);
  check({20000, 16001, 16});   // strips of 16001 x 16 B > shared memory: workspace slots
  check({60000, 3001, 4});
  check({8191, 8193, 4}, 0, nullptr, shuffle_only);
}

// shuffle moves 1-, 2-, 4- and 8-byte words in 16-byte chunks at any alignment: rows and strips whose runs
// start and end mid-word, odd pitches, misaligned bases (shift 1 and 3: byte words), multi-word units.
TEST(InplaceGpu, ShuffleChunksAtEveryAlignment) {
  for (std::int64_t shift : {0, 1, 2, 3}) {
    check({8191, 8193, 1}, shift, nullptr, shuffle_only);
    check({4097, 3001, 2}, shift, nullptr, shuffle_only);
    check({3001, 4097, 1}, shift, nullptr, shuffle_only);
    check({1200, 700, 1}, shift, nullptr, shuffle_only);  // gcd 100: the rotation passes
    check({777, 1001, 3}, shift, nullptr, shuffle_only);  // 3-byte units: 3 byte words a unit
    check({37, 1000003, 1}, shift, nullptr, shuffle_only);  // rows through the workspace in waves
    check({501, 133, 2, 3, 0, 501 * 133 + 3}, shift, nullptr, shuffle_only);  // batch, odd gaps
  }
  check({2999, 3001, 4}, 4, nullptr, shuffle_only);
  check({2999, 3001, 8}, 0, nullptr, shuffle_only);
  check({1001, 999, 6}, 2, nullptr, shuffle_only);
}

TEST(InplaceGpu, TileCyclesShapesBatchesGapsAndShifts) {
  check({1200, 700, 4}, 0, nullptr, no_staged);   // 400-byte units, short cycles and segments
  check({700, 1200, 8}, 0, nullptr, no_staged);
  check({960, 640, 2, 3}, 0, nullptr, no_staged);  // batch
  check({100, 50, 4, 40, 0, 100 * 50 + 7}, 0, nullptr, no_staged);  // gaps between matrices
  check({1080, 1920, 3}, 0, nullptr, no_staged);   // 360-byte units of 3-byte pixels
  check({1080, 1920, 4}, 4, nullptr, no_staged);  // misaligned base: narrower words
  check({256, 4096, 1}, 0, nullptr, no_staged);
  check({4096, 8192, 2}, 0, nullptr, no_staged);   // 8 KiB units, short cycles only
  check({12000, 7000, 4}, 0, nullptr, no_staged);  // 2000 segments
  check({30000, 20000, 2}, 0, nullptr, no_staged);
  check({693, 1155, 1}, 0, nullptr, no_staged);  // 231-byte units: the cycle pass's bytes16 words
  check({1155, 693, 1, 2, 0, 693 * 1155 + 1}, 3, nullptr, no_staged);
  for (std::int64_t U : {1, 2, 4, 8, 16, 3, 12})
    for (std::int64_t r : {64, 96, 128})
      for (std::int64_t c : {32, 64, 192, 256}) check({r, c, U}, U % 4 == 0 ? 4 : 0, nullptr, no_staged);
}

TEST(InplaceGpu, SkinnyCyclesTallWideBatchesAndShifts) {
  check({1048576, 3, 4}, 0, nullptr, no_staged);
  check({3, 1048576, 4}, 0, nullptr, no_staged);
  check({4194304, 4, 4}, 0, nullptr, no_staged);
  check({4, 65536, 1}, 1, nullptr, no_staged);
  check({4097, 3, 4}, 0, nullptr, no_staged);  // 68-byte units, 4-byte words
  check({6000, 5, 6, 3}, 0, nullptr, no_staged);
  check({7, 3000, 8, 2, 0, 7 * 3000 + 5}, 0, nullptr, no_staged);
  check({2048, 17, 3}, 0, nullptr, no_staged);
  check({1048576, 3, 4}, 0, nullptr, shuffle_only);  // the same shapes through shuffle
  check({3, 1048576, 4}, 0, nullptr, shuffle_only);
  check({4194304, 4, 1}, 0, nullptr, shuffle_only);
}

// Every small near-square shape (common/inplace_shapes.hpp), at base phases 0 and 3, allocations ending at the
// matrix's last byte.
TEST(InplaceGpu, NearSquareEverySmallShape) {
  const std::vector<inplace_problem> shapes = test::small_near_squares();
  EXPECT_GT(shapes.size(), 1000u);
  for (const inplace_problem& p : shapes) check(p, p.rows % 2 == 0 ? 0 : 3, nullptr, no_staged, 0);
}

// 1- and 2-byte units at odd pitches (square_shift16's square pass), the repitch's bands cutting rows
// shorter and longer than a band, at every base phase; then the default plans of the suite's byte rows.
TEST(InplaceGpu, NearSquareOfBytesAndHalvesAtOddPitches) {
  auto near = [](const inplace_problem& p, std::initializer_list<std::int64_t> shifts) {
    inplace_geometry g;
    std::int64_t span = 0;
    ASSERT_TRUE(detail::make_inplace_geometry(p, g, span, no_staged));
    EXPECT_EQ(g.algo, inplace_algorithm::near_square) << p;
    for (std::int64_t shift : shifts) check(p, shift, nullptr, no_staged);
  };
  for (const inplace_problem& p : {inplace_problem{1001, 1003, 1}, inplace_problem{1003, 1001, 1},
                                   inplace_problem{2001, 2004, 2}, inplace_problem{2004, 2001, 2},
                                   inplace_problem{3001, 3000, 1}, inplace_problem{600, 601, 2},
                                   inplace_problem{17000, 16999, 2}, inplace_problem{9000, 9003, 4}})
    near(p, {0, 1, 3, 8});
  // Other units: square_gather_any's square pass at odd pitches (3-, 5-, 6-byte), square_words' (12-byte),
  // extra parts of many rows or columns (the repitch's long shifts).
  for (const inplace_problem& p : {inplace_problem{1001, 1003, 3}, inplace_problem{1003, 1001, 5},
                                   inplace_problem{700, 1001, 6}, inplace_problem{1001, 700, 3},
                                   inplace_problem{999, 1000, 12}, inplace_problem{1501, 2200, 7}})
    near(p, {0, 5});
  for (const inplace_problem& p : {inplace_problem{8191, 8193, 1}, inplace_problem{7919, 7907, 1},
                                   inplace_problem{8193, 8191, 2}, inplace_problem{4097, 3001, 3},
                                   inplace_problem{3001, 4097, 3}}) {
    auto plan = make_inplace_plan(p);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->algo(), inplace_algorithm::near_square) << p;
    check(p, 1);
  }
}

TEST(InplaceGpu, NearSquareTallWideAndShifts) {
  check({8190, 8192, 4}, 0, nullptr, no_staged);
  check({8192, 8188, 4}, 0, nullptr, no_staged);
  check({8191, 8193, 4}, 0, nullptr, no_staged);  // odd pitches: the square pass through single words
  check({8193, 8191, 8}, 0, nullptr, no_staged);
  check({7919, 7907, 4}, 4, nullptr, no_staged);
  check({700, 704, 4}, 0, nullptr, no_staged);
  check({704, 700, 4}, 0, nullptr, no_staged);
  check({1000, 1008, 2}, 0, nullptr, no_staged);
  check({1024, 1040, 1}, 0, nullptr, no_staged);
  check({1030, 1024, 16}, 0, nullptr, no_staged);
  check({1000, 1498, 8}, 0, nullptr, no_staged);
  check({700, 704, 4}, 4, nullptr, no_staged);   // a misaligned base: the square pass through words
  check({20000, 20016, 1}, 0, nullptr, no_staged);  // many bands
  check({16500, 16504, 4}, 0, nullptr, no_staged);  // rows over 64 KiB: two or three bands a row
  check({16504, 16500, 4}, 0, nullptr, no_staged);
  for (const inplace_problem& p : {inplace_problem{8190, 8192, 4}, inplace_problem{1030, 1024, 16}}) {
    inplace_geometry g;
    std::int64_t span = 0;
    ASSERT_TRUE(detail::make_inplace_geometry(p, g, span, no_staged));
    EXPECT_EQ(g.algo, inplace_algorithm::near_square) << p;
  }
  auto plan = make_inplace_plan({8190, 8192, 4});  // 256 MiB: over staged's budget
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->algo(), inplace_algorithm::near_square);
}

TEST(InplaceGpu, ErrorsNameTheArgument) {
  auto plan = make_inplace_plan({300, 200, 4});
  ASSERT_TRUE(plan);
  ASSERT_GT(plan->workspace_bytes(), -1);
  device_buffer buf(300 * 200 * 4), ws(static_cast<std::size_t>(plan->workspace_bytes() + 1));
  EXPECT_NE(plan->execute(nullptr).message().find("d_data"), std::string::npos);
  std::vector<float> host(300 * 200);
  EXPECT_NE(plan->execute(host.data(), ws.ptr, plan->workspace_bytes()).message().find("d_data"), std::string::npos);
  auto big = make_inplace_plan({1048573, 3, 4});  // shuffle: workspace
  ASSERT_TRUE(big);
  ASSERT_GT(big->workspace_bytes(), 0);
  device_buffer data(1048573 * 3 * 4);
  EXPECT_NE(big->execute(data.ptr, nullptr, 0).message().find("d_workspace"), std::string::npos);
  EXPECT_NE(big->execute(data.ptr, data.ptr, big->workspace_bytes() - 1).message().find("workspace_bytes"),
            std::string::npos);
  EXPECT_NE(big->execute(data.ptr, data.ptr, big->workspace_bytes()).message().find("overlaps"), std::string::npos);
  EXPECT_NE(plan->execute(buf.ptr, nullptr, -1).message().find("workspace_bytes"), std::string::npos);
}

TEST(InplaceGpu, StreamsAndCudaGraphReplays) {
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  check({1000, 1000, 4}, 0, stream);
  check({1500, 900, 4}, 0, stream, no_staged);  // tile_cycles
  check({1500, 900, 4}, 0, stream, shuffle_only);
  // Captured: r x c, then c x r, restores the matrix. staged (1200 x 600) and tile_cycles (6000 x 3000).
  for (const auto& [r, c, algo] : {std::tuple{std::int64_t{1200}, std::int64_t{600}, inplace_algorithm::staged},
                                   std::tuple{std::int64_t{6000}, std::int64_t{3000}, inplace_algorithm::tile_cycles}}) {
    auto there = make_inplace_plan({r, c, 4}), back = make_inplace_plan({c, r, 4});
    ASSERT_TRUE(there && back);
    ASSERT_EQ(there->algo(), algo);
    const std::int64_t bytes = r * c * 4;
    const std::int64_t wsb = std::max(there->workspace_bytes(), back->workspace_bytes());
    device_buffer buf(static_cast<std::uint64_t>(bytes)), ws(static_cast<std::size_t>(wsb));
    CUDA_OK(test::inplace_fill(buf.ptr, static_cast<std::uint64_t>(bytes), stream));
    std::vector<status> ran;
    cudaGraphExec_t exec = captured(stream, [&] {
      ran.push_back(there->execute(buf.ptr, ws.ptr, wsb, stream));
      ran.push_back(back->execute(buf.ptr, ws.ptr, wsb, stream));
    });
    ASSERT_NE(exec, nullptr);
    for (const status& s : ran) ASSERT_TRUE(s) << s;
    CUDA_OK(cudaGraphLaunch(exec, stream));
    EXPECT_EQ(wrong_vs_fill(buf.ptr, bytes, stream), 0ull) << "there and back must restore the matrix";
    cudaGraphExecDestroy(exec);
  }
  // Captured in a graph and replayed twice: a square transposed twice is the identity.
  auto plan = make_inplace_plan({1024, 1024, 2});
  ASSERT_TRUE(plan);
  const std::int64_t bytes = 1024 * 1024 * 2;
  device_buffer buf(static_cast<std::uint64_t>(bytes));
  CUDA_OK(test::inplace_fill(buf.ptr, static_cast<std::uint64_t>(bytes), stream));
  std::vector<status> ran;
  cudaGraphExec_t exec = captured(stream, [&] { ran.push_back(plan->execute(buf.ptr, nullptr, 0, stream)); });
  ASSERT_NE(exec, nullptr);
  for (const status& s : ran) ASSERT_TRUE(s) << s;
  CUDA_OK(cudaGraphLaunch(exec, stream));
  unsigned long long* d_wrong = nullptr;
  CUDA_OK(cudaMalloc(&d_wrong, sizeof(unsigned long long)));
  unsigned long long wrong = 1;
  CUDA_OK(test::inplace_count_wrong(buf.ptr, static_cast<std::uint64_t>(bytes), plan->geometry(), 0, d_wrong, wrong, stream));
  EXPECT_EQ(wrong, 0ull);
  cudaFree(d_wrong);
  CUDA_OK(test::inplace_fill(buf.ptr, static_cast<std::uint64_t>(bytes), stream));
  CUDA_OK(cudaGraphLaunch(exec, stream));
  CUDA_OK(cudaGraphLaunch(exec, stream));
  EXPECT_EQ(wrong_vs_fill(buf.ptr, bytes, stream), 0ull) << "two replays must restore the square";
  cudaGraphExecDestroy(exec);
  cudaStreamDestroy(stream);
}

TEST(InplaceLarge, MoreThan2Pow31ElementsSquareAndRectangular) {
  size_t free_b = 0, total_b = 0;
  CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < (std::size_t{5} << 30)) GTEST_SKIP() << "not enough device memory";
  check({46349, 46349, 1});  // 2.148e9 elements
  check({65537, 32771, 1});  // 2.148e9 elements, gcd 1
  check({32768, 16384, 4});  // > 2^31 bytes, gcd 16384: rotation
  check({23171, 23171, 4});  // > 2^31 bytes, odd side: square_units' offsets past 32 bits
}

}  // namespace
