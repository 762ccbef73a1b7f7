// GPU tests of plan::execute (production kernels): every element size x algorithm x awkward shapes, pitched
// and misaligned views, streams, errors, and > 2^31 elements. Outputs are poisoned first; the whole output
// allocation (gaps and slack included) is compared with the host reference, so stray writes fail too.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/oracle.cuh"
#include "common/reference.hpp"
#include "plan/box.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::problem;
using xpose::test::out_shape;
using xpose::test::packed_strides;
using xpose::test::span_bytes;

constexpr unsigned char poison = 0xA5;
constexpr std::uint64_t seed = 20261122;

using xpose::test::device_buffer;

// Runs `p` on the GPU with the input at byte offset `in_shift` and the output at `out_shift` of their
// allocations, and compares the entire output allocation with the host reference applied to a poisoned copy.
void check(const problem& p, std::size_t in_shift = 0, std::size_t out_shift = 0, cudaStream_t stream = nullptr) {
  SCOPED_TRACE(::testing::Message() << "problem: " << p << " in_shift " << in_shift << " out_shift " << out_shift
                                    << " seed " << seed);
  auto plan = xpose::make_plan(p);
  ASSERT_TRUE(plan) << plan.error();
  const auto oshape = out_shape(p);
  const auto in_span = static_cast<std::size_t>(
      span_bytes(p.shape, p.in_strides.empty() ? packed_strides(p.shape) : p.in_strides, p.elem_bytes));
  const auto out_span = static_cast<std::size_t>(
      span_bytes(oshape, p.out_strides.empty() ? packed_strides(oshape) : p.out_strides, p.elem_bytes));
  const std::size_t slack = 64;
  const std::size_t in_alloc = in_shift + in_span + slack, out_alloc = out_shift + out_span + slack;

  const auto h_in = xpose::test::random_bytes(in_alloc, seed ^ in_alloc);
  std::vector<unsigned char> expected(out_alloc, poison), got(out_alloc, 0);
  xpose::test::reference_permute(p, h_in.data() + in_shift, expected.data() + out_shift);

  device_buffer d_in(in_alloc), d_out(out_alloc);
  ASSERT_NE(d_in.ptr, nullptr);
  ASSERT_NE(d_out.ptr, nullptr);
  CUDA_OK(cudaMemcpy(d_in.ptr, h_in.data(), in_alloc, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_out.ptr, poison, out_alloc));
  // cudaMemset may return before it is done, and a non-blocking `stream` does not wait for the legacy default
  // stream it ran on: without this the poison could land after the kernel's writes.
  CUDA_OK(cudaDeviceSynchronize());
  const xpose::status s = plan->execute(d_in.bytes() + in_shift, d_out.bytes() + out_shift, stream);
  ASSERT_TRUE(s) << s << "\n" << *plan;
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaMemcpy(got.data(), d_out.ptr, out_alloc, cudaMemcpyDeviceToHost));
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < out_alloc; ++i)
    if (got[i] != expected[i] && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << "first wrong byte at " << first << " (output starts at " << out_shift << ")\n" << *plan;
}

const std::vector<std::int64_t> elem_sizes = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};

TEST(Transpose2d, MatchesReferenceForEveryElementSizeAndAwkwardShape) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {1, 1},   {1, 7},   {7, 1},    {2, 2},    {31, 33},   {32, 32},  {33, 31},  {64, 64},
      {127, 129}, {251, 241}, {1000, 3}, {3, 1000}, {4099, 33}, {33, 4099}, {5, 4099}, {257, 1031}};
  for (auto e : elem_sizes)
    for (auto [r, c] : shapes) check(problem{{r, c}, {1, 0}, e, {}, {}});
}

TEST(Transpose2d, RowsJustPastATileBoundaryOnMisalignedOutputs) {
  // The gather16 tile before the last one must stop at the row end, not at the 16-byte boundary past it.
  for (std::int64_t e : {1, 2, 3, 4, 6, 8, 12, 16})
    for (std::int64_t extra : {1, 2, 3, 5})
      for (std::int64_t side : {16, 18, 24, 28, 37, 56, 75, 113, 140}) check(problem{{side + extra, 131}, {1, 0}, e, {}, {}});
}

TEST(Transpose2d, LargeSquaresOfNarrowAndWideElements) {
  for (std::int64_t e : {1, 2, 4, 8, 16}) check(problem{{1024 + 7, 2048 - 3}, {1, 0}, e, {}, {}});
  for (std::int64_t e : {1, 4}) check(problem{{4096, 4099}, {1, 0}, e, {}, {}});
  // Aligned sizes with enough tiles for vec16 at every unit size.
  check(problem{{4096, 4096}, {1, 0}, 1, {}, {}});
  for (std::int64_t e : {2, 4, 8, 16}) check(problem{{2048, 4096}, {1, 0}, e, {}, {}});
}

TEST(Transpose2d, RowTilesFirstOnLargeMisalignedOutputs) {
  // Problems of >= 8 MiB whose output is not 16-byte aligned (or has rows of <= 8192 bytes) walk their tiles
  // down the columns first
  // (transpose2d_params::rows_fastest): vec16 / shift16 / shift8 / gather16 / pixel48 / words tiles, the last
  // tile row and column partial, a batch, compound sides, a shifted output.
  for (std::int64_t e : {1, 2, 3, 4, 8, 12, 16, 20}) {
    const std::int64_t r = 2051, c = (std::int64_t{9} << 20) / (r * e) + 37;
    check(problem{{r, c}, {1, 0}, e, {}, {}}, 0, 0);
    if (e <= 4) check(problem{{r, c}, {1, 0}, e, {}, {}}, 5 * e, 3 * e);
  }
  check(problem{{3, 1501, 2003}, {0, 2, 1}, 1, {}, {}}, 1, 7);  // shift8, batched
  check(problem{{40, 2, 250, 248, 2}, {4, 3, 0, 2, 1}, 1, {}, {}}, 0, 3);  // compound sides, 9.9 MB
  check(problem{{20011, 1001}, {1, 0}, 1, {}, {}}, 0, 1);  // taller than one shift8 tile row an SM: shift16
  // Aligned outputs of rows of <= 8192 bytes too: k x n -> n x k, a few tile rows, the last one partial; rows of
  // 4-8 KiB (u8 vec8, fp32 vec16, RGB8 pixel48).
  check(problem{{100, 30011}, {1, 0}, 4, {}, {}});
  check(problem{{50, 21011}, {1, 0}, 8, {}, {}});
  check(problem{{200, 21011}, {1, 0}, 2, {}, {}}, 6, 0);
  check(problem{{5744, 1461}, {1, 0}, 1, {}, {}});
  check(problem{{1528, 1400}, {1, 0}, 4, {}, {}});
  check(problem{{2160, 1300}, {1, 0}, 3, {}, {}});
}

TEST(Transpose2d, ShortTilesForHalfRowsThatFillThemBetter) {
  // 2-byte k x n whose k rows fill 64-row tiles better than 128-row ones (transpose2d_short_policy): vec16
  // (aligned) and shift16 (odd n, shifted views), the last tile row partial, a batch, rows walked first (>= 8 MiB).
  for (std::int64_t k : {41, 64, 75, 130, 136, 169, 244}) {
    check(problem{{k, 3000}, {1, 0}, 2, {}, {}});
    check(problem{{k, 3001}, {1, 0}, 2, {}, {}}, 2, 6);
  }
  check(problem{{3, 130, 2001}, {0, 2, 1}, 2, {}, {}}, 0, 4);
  check(problem{{130, 33001}, {1, 0}, 2, {}, {}});
  check(problem{{136, 32000}, {1, 0}, 2, {}, {}});
}

TEST(Transpose2d, WordTilesForUnitsOverSixteenBytesWithAShortSide) {
  // Units over 16 bytes with a side under 16 units stay on words tiles (the short side whole): partial edge
  // tiles, shifted pointers, a pitched input, a batch.
  for (std::int64_t e : {20, 28, 36, 40, 44, 52, 64}) {
    check(problem{{2003, 11}, {1, 0}, e, {}, {}});
    check(problem{{9, 2111}, {1, 0}, e, {}, {}}, 4, 12);
  }
  check(problem{{2003, 13}, {1, 0}, 20, {20, 1}, {}}, 0, 4);
  check(problem{{52, 230, 7}, {0, 2, 1}, 28, {}, {}}, 4, 8);
}

TEST(Transpose2d, Gather16WideRowsForUnitsUpTo128Bytes) {
  // Units of 17-128 bytes take gather16 with rows of 32 chunks (up to 30 bytes), 64 (up to 64) or 128
  // (tuning/transpose2d.hpp): every piece width (1-, 2-, 4-byte common alignment), partial edge tiles, rows just past a tile, shifted
  // and pitched views, a batch and compound sides.
  for (std::int64_t e : {17, 18, 20, 23, 28, 30, 31, 32, 36, 44, 48, 52, 60, 63, 64, 65, 72, 80, 100, 127, 128}) {
    check(problem{{211, 173}, {1, 0}, e, {}, {}});
    check(problem{{211, 173}, {1, 0}, e, {}, {}}, 3, 5);
  }
  for (std::int64_t e : {20, 28, 44, 64, 80, 128})
    for (std::int64_t side : {15, 16, 17, 18, 22, 23, 35, 36})
      check(problem{{side + 1, side + 17}, {1, 0}, e, {}, {}}, 0, 1);
  check(problem{{1003, 911}, {1, 0}, 28, {1010, 1}, {1009, 1}}, 4, 8);
  check(problem{{7, 130, 90}, {0, 2, 1}, 40, {}, {}}, 8, 0);
  check(problem{{7, 30, 50, 60, 7}, {2, 0, 3, 1, 4}, 4, {}, {}}, 0, 4);  // 28-byte units, compound sides
  check(problem{{5, 3, 40, 7, 30, 11}, {3, 0, 4, 1, 2, 5}, 4, {}, {}}, 2, 0);
  check(problem{{40, 26, 35, 45, 40}, {0, 3, 1, 2, 4}, 2, {}, {}}, 2, 6);  // 80-byte units, a batch
  check(problem{{21, 33, 24, 49, 28}, {1, 3, 2, 0, 4}, 3, {}, {}}, 0, 1);  // 84-byte units of RGB8 pixels
  check(problem{{230, 190, 17}, {1, 0, 2}, 4, {}, {}}, 4, 0);             // 68-byte units, a short side
  check(problem{{13, 2000, 33}, {1, 0, 2}, 4, {}, {}});                   // 132-byte rows: rows kernel
  // Compound sides of 84- and 72-byte units: tiles of 46944 / 47528 dynamic bytes plus the side tables' 2.5
  // KiB of static shared memory, past the 48 KiB a block gets without the opt-in (allow_dynamic_smem).
  check(problem{{6, 5, 6, 3, 20, 7}, {4, 2, 0, 1, 3, 5}, 12, {}, {}});
  check(problem{{6, 5, 6, 3, 20, 7}, {4, 2, 0, 1, 3, 5}, 12, {}, {}}, 4, 8);
  check(problem{{6, 5, 6, 3, 20, 9}, {4, 2, 0, 1, 3, 5}, 8, {}, {}}, 0, 8);
}

TEST(Transpose2d, WideUnitsMovedWholeInChunks) {
  // Units of >= 32 bytes on an 8-byte grid take the wide tiles (kernels/wide.cuh): 16- and 8-byte chunks (the
  // pointers' shift and the unit set the grid), partial tiles on both sides, balanced tile sides, a batch,
  // pitched views, compound sides; on a 4-byte grid or finer they go on to gather16.
  for (std::int64_t e : {32, 36, 40, 44, 48, 64, 80, 96, 100, 128}) {
    check(problem{{211, 173}, {1, 0}, e, {}, {}});
    check(problem{{211, 173}, {1, 0}, e, {}, {}}, 8, 24);
    check(problem{{37, 45}, {1, 0}, e, {}, {}}, 4, 12);
    check(problem{{61, 3}, {1, 0}, e, {}, {}}, 0, 4);
    check(problem{{2, 97}, {1, 0}, e, {}, {}}, 4, 0);
  }
  check(problem{{211, 173}, {1, 0}, 40, {}, {}}, 3, 5);  // 1-byte grid: gather16
  check(problem{{1003, 911}, {1, 0}, 48, {1010, 1}, {1009, 1}}, 16, 8);
  check(problem{{7, 130, 90}, {0, 2, 1}, 40, {}, {}}, 8, 0);
  check(problem{{40, 26, 35, 45, 40}, {0, 3, 1, 2, 4}, 1, {}, {}}, 0, 8);  // 40-byte units, a batch
  check(problem{{5, 3, 40, 7, 30, 11}, {3, 0, 4, 1, 2, 5}, 4, {}, {}}, 4, 0);  // 44-byte units, compound sides
  check(problem{{6, 5, 6, 3, 20, 9}, {4, 2, 0, 1, 3, 5}, 8, {}, {}}, 0, 8);   // 72-byte units, compound sides
}

TEST(Transpose2d, WideGatherTilesForUnitsOffTheEightByteGrid) {
  // Units of >= 48 bytes on the 4-byte grid (wide_gather_min_unit_bytes): 16-byte output chunks gathered word
  // by word (transpose2d_wide_gather_kernel), whole stores inside a row, word stores at its ends; partial
  // tiles, a batch, pitched views, compound sides, rows of up to 4 KiB taken as units. The units beside the
  // rule (shorter, on the 2- or 1-byte grid: gather16 and the rows kernels) in the same shapes.
  for (std::int64_t e : {33, 36, 37, 44, 48, 52, 66, 100, 124}) {
    check(problem{{211, 173}, {1, 0}, e, {}, {}});
    check(problem{{211, 173}, {1, 0}, e, {}, {}}, 3, 5);
    check(problem{{211, 173}, {1, 0}, e, {}, {}}, 4, 8);
    check(problem{{37, 45}, {1, 0}, e, {}, {}}, 2, 6);
    check(problem{{2, 97}, {1, 0}, e, {}, {}}, 4, 1);
  }
  check(problem{{7, 130, 90}, {0, 2, 1}, 52, {}, {}}, 4, 0);
  check(problem{{1003, 911}, {1, 0}, 52, {1010, 1}, {1009, 1}}, 4, 8);
  check(problem{{5, 3, 40, 7, 30, 13}, {3, 0, 4, 1, 2, 5}, 4, {}, {}}, 4, 0);  // 52-byte units, compound sides
  check(problem{{40, 26, 35, 45, 37}, {0, 3, 1, 2, 4}, 1, {}, {}}, 1, 3);     // 37-byte units on the 1-byte grid
  check(problem{{70, 61, 313}, {1, 0, 2}, 4, {}, {}}, 0, 4);                   // 1252-byte rows
  check(problem{{9, 11, 1023}, {1, 0, 2}, 4, {}, {}}, 4, 0);                   // 4092-byte rows
}

TEST(Transpose2d, RowsThatAreTheUnitsOfATransposeTakeWideTiles) {
  // Rows of 129-4096 bytes (the planner's rows) that are the units of a 2-D transpose of the other axes
  // (rows_as_transpose): attention heads [B, S, H, D] -> [B, H, S, D], 3-D (1, 0, 2), tiles of a few 4 KiB
  // units, shifted (8-byte chunks) and pitched views, batch axes between the sides; rows that are not such
  // units, longer ones, or rows off the 8-byte grid stay on the rows kernels.
  check(problem{{3, 130, 12, 64}, {0, 2, 1, 3}, 2, {}, {}});
  check(problem{{3, 130, 12, 64}, {0, 2, 1, 3}, 2, {}, {}}, 8, 4);
  check(problem{{2, 77, 5, 128}, {0, 2, 1, 3}, 4, {}, {}}, 8, 16);
  check(problem{{2, 77, 5, 128}, {0, 2, 1, 3}, 4, {}, {}}, 4, 0);  // 4-byte grid: rows
  check(problem{{13, 2000, 33}, {1, 0, 2}, 4, {}, {}});
  for (std::int64_t row : {34, 40, 130, 1024, 4096}) check(problem{{19, 23, row}, {1, 0, 2}, 4, {}, {}}, 0, 8);
  for (std::int64_t row : {33, 47, 1000}) check(problem{{19, 23, row}, {1, 0, 2}, 4, {}, {}}, 0, 4);  // rows
  check(problem{{5, 7, 4100}, {1, 0, 2}, 4, {}, {}});  // 16400-byte rows: rows kernel
  check(problem{{31, 29, 65}, {1, 0, 2}, 4, {}, {}}, 2, 6);  // 2-byte grid: rows_shift16
  check(problem{{6, 50, 4, 70}, {2, 1, 0, 3}, 4, {}, {}});  // a batch axis between the sides
  check(problem{{50, 6, 40, 70}, {2, 1, 0, 3}, 4, {}, {}}, 8, 0);
  check(problem{{3, 4, 50}, {1, 0, 2}, 4, {8 * 50 + 10, 50 + 2, 1}, {}}, 0, 0);  // pitched input
  check(problem{{4, 53, 35, 45, 40}, {0, 3, 1, 2, 4}, 4, {}, {}});  // the N-d suite's 160-byte rows, 53 MB
}

TEST(Transpose2d, ByteTilesOf512ThreadsOnProblemsOfL2Size) {
  // 8-byte aligned 1-byte problems of >= 48 MiB take vec8's 256 x 128-byte tiles (transpose2d_tile8_wide_policy):
  // partial tiles on both sides, a batch, compound sides, shifted pointers.
  check(problem{{8200, 6152}, {1, 0}, 1, {}, {}}, 8, 0);
  check(problem{{5, 3000, 3352}, {0, 2, 1}, 1, {}, {}});
  check(problem{{16, 1024, 56, 56}, {0, 2, 3, 1}, 1, {}, {}}, 0, 8);
}

TEST(Transpose2d, ByteTilesStagedByTheCopyEngine) {
  // 1-byte problems of >= 48 MiB with 16-byte aligned input rows and 8-byte aligned output rows take bulk8
  // (sm_90 tensor copies, kernels/bulk.cuh): partial tiles on both sides (8200 = 32 x 256 + 8 rows, 6160 =
  // 48 x 128 + 16 bytes), an output shifted by 8 bytes, tile rows first (rows <= 8192), a batch with partial
  // tiles, pitched input and output views; the tensor copy's zero fill past the matrix must never reach the
  // output (the whole output allocation is compared).
  check(problem{{8200, 6160}, {1, 0}, 1, {}, {}}, 0, 8);
  check(problem{{8000, 6304}, {1, 0}, 1, {}, {}}, 16, 0);
  check(problem{{3, 4104, 5008}, {0, 2, 1}, 1, {}, {}}, 32, 8);
  check(problem{{8000, 6300}, {1, 0}, 1, {6400, 1}, {8008, 1}}, 0, 0);
  // Tiles in two panels of tile rows (133 = 67 + 66, bulk_panel_rows) and columns first (65536 x 1024).
  check(problem{{34000, 4240}, {1, 0}, 1, {}, {}}, 0, 0);
  check(problem{{65536, 1024}, {1, 0}, 1, {}, {}}, 0, 0);
}

TEST(Transpose2d, HalfWordAndDoubleTilesStagedByTheCopyEngine) {
  // 2-, 4- and 8-byte problems of >= 48 MiB with 16-byte aligned rows take bulk16 (vec16's tiles staged by one
  // tensor copy, kernels/bulk.cuh): partial tiles on both sides, a last chunk of fewer than V units (5003 rows
  // of fp16 into a pitched output), a batch, pitched input and output views, shifted pointers.
  check(problem{{4100, 3076}, {1, 0}, 4, {}, {}}, 16, 32);
  check(problem{{5000, 5008}, {1, 0}, 2, {}, {}});
  check(problem{{5003, 5008}, {1, 0}, 2, {}, {5008, 1}});
  check(problem{{2600, 2504}, {1, 0}, 8, {}, {}}, 0, 16);
  check(problem{{3, 2052, 2056}, {0, 2, 1}, 4, {}, {}});
  check(problem{{4000, 3200}, {1, 0}, 4, {3300, 1}, {4004, 1}});
}

TEST(Transpose2d, FourByteUnitsWithEveryInputRowOffThePairGrid) {
  // fp32 problems over units_u4_max_bytes whose input rows all start 4 bytes off the 8-byte grid (views from an
  // odd column of an aligned matrix) and whose output rows are 16-byte aligned take the units tiles at any size:
  // edge tiles both ways, a pitched input view, a batch.
  check(problem{{3004, 3002}, {1, 0}, 4, {}, {}}, 4, 0);
  check(problem{{3000, 3001}, {1, 0}, 4, {3004, 1}, {}}, 12, 0);
  check(problem{{3, 2048, 2050}, {0, 2, 1}, 4, {}, {}}, 4, 16);
}

TEST(Transpose2d, MisalignedByteTilesOf512ThreadsOnProblemsOfL2Size) {
  // Misaligned single 1-byte matrices of >= 48 MiB whose output is not 16-byte aligned take shift8 with the
  // same 256 x 128-byte tiles when rows >= cols or the rows need more than half an SM's worth of 256-thread
  // tile rows: partial tiles on both sides, shifted and pitched views, more rows than shift8's 256-thread
  // tiles take; then a wide matrix that keeps those.
  check(problem{{8191, 6151}, {1, 0}, 1, {}, {}}, 3, 5);
  check(problem{{9001, 6151}, {1, 0}, 1, {6155, 1}, {}}, 0, 7);
  check(problem{{8003, 8191}, {1, 0}, 1, {}, {8007, 1}}, 1, 1);
  check(problem{{17001, 3001}, {1, 0}, 1, {}, {}}, 0, 3);
  check(problem{{6151, 8191}, {1, 0}, 1, {}, {}}, 2, 9);
}

TEST(Transpose2d, MisalignedBytesThatShift16HadTakeShift8) {
  // Misaligned 1-byte problems the units tiles do not take and the rules before it leave (outputs on the 16-byte
  // grid, tall matrices with row tiles first, compound sides) take shift8 (launch_transpose2d's last 1-byte
  // rule): 512-thread tiles on plain sides of >= 8 tile rows, 256-thread ones on fewer rows and compound
  // sides. Partial tiles both ways, a batch axis between the sides, shifted and pitched views.
  check(problem{{2048, 20, 479}, {2, 1, 0}, 1, {}, {}});         // output rows aligned, 9 tile rows: 512 threads
  check(problem{{1024, 40, 478}, {2, 1, 0}, 1, {}, {}}, 0, 16);  // 5 tile rows: 256 threads
  check(problem{{40001, 511}, {1, 0}, 1, {}, {}}, 3, 5);         // rows first, more tile rows than SMs
  check(problem{{36, 1000, 601}, {0, 2, 1}, 1, {}, {1008 * 601 + 16, 1008, 1}}, 7, 0);  // pitched output
  check(problem{{30, 3, 251, 1001}, {3, 0, 2, 1}, 1, {}, {}}, 1, 0);  // compound sides
  check(problem{{5, 3, 101, 333}, {3, 0, 2, 1}, 1, {}, {}});          // compound sides, 0.5 MB
  // Branch-free interior tiles of 256 threads on problems of > 16 MiB (output off the 16-byte grid).
  check(problem{{16, 1001, 1201}, {0, 2, 1}, 1, {}, {}}, 0, 1);
  check(problem{{3, 2049, 3001}, {0, 2, 1}, 1, {}, {2051 * 3001 + 7, 2051, 1}}, 5, 0);
}

TEST(Transpose2d, BatchedHalfMatricesWithEightByteAlignedRows) {
  // fp16 packed batches whose rows are 8-byte but not 16-byte aligned: matrices of up to 48 KiB whole a tile
  // (batched_flat), larger ones vec8<2>'s 64 x 128-unit tiles (full and partial); pointers shifted by 8 bytes.
  for (std::size_t shift : {0, 8}) {
    check(problem{{40, 100, 100}, {0, 2, 1}, 2, {}, {}}, shift, 8 - shift);
    check(problem{{24, 64, 72}, {0, 2, 1}, 2, {}, {}}, shift, shift);
    check(problem{{3, 132, 68}, {0, 2, 1}, 2, {}, {}}, 0, shift);
    check(problem{{5, 140, 152}, {0, 2, 1}, 2, {}, {}}, shift, 0);
    check(problem{{3, 180, 148}, {0, 2, 1}, 2, {}, {}}, shift, 0);      // 53 KB matrices: vec8<2>
    check(problem{{2, 260, 204}, {0, 2, 1}, 2, {}, {}}, shift, shift);  // 106 KB
  }
}

TEST(Transpose2d, BatchedMatricesIncludingTinyOnes) {
  for (auto e : elem_sizes) {
    check(problem{{5, 33, 65}, {0, 2, 1}, e, {}, {}});
    check(problem{{1000, 3, 3}, {0, 2, 1}, e, {}, {}});
  }
  check(problem{{3, 257, 129}, {0, 2, 1}, 4, {}, {}});
  check(problem{{65536, 2, 5}, {0, 2, 1}, 8, {}, {}});
  for (std::int64_t e : {1, 2, 3, 4, 8, 12, 16}) {
    check(problem{{3001, 32, 32}, {0, 2, 1}, e, {}, {}});   // many tiles of whole matrices
    check(problem{{777, 17, 5}, {0, 2, 1}, e, {}, {}});
    check(problem{{97, 64, 48}, {0, 2, 1}, e, {}, {}});     // matrices of up to 8 KiB and beyond
  }
  check(problem{{37, 100, 100}, {0, 2, 1}, 2, {}, {}});     // one 20 KB matrix per tile
  check(problem{{13, 120, 77}, {0, 2, 1}, 4, {}, {}});      // 37 KB matrices, not 16-byte multiples
  check(problem{{13, 120, 77}, {0, 2, 1}, 4, {}, {}}, 4, 8);
}

TEST(Transpose2d, BatchedFlatWalksEveryUnitAcrossRowsAndMatrices) {
  // batched_flat's 32-bit piece walk: output chunks that cross an output row, a matrix (one matrix a tile, or
  // several, the matrix index from div32), units of one piece and of several (3-, 6-, 12-byte),
  // shifted pointers so that windows shift past matrix boundaries.
  for (std::int64_t e : {1, 2, 3, 4, 6, 8, 12, 16}) {
    check(problem{{9, 65, 194}, {0, 2, 1}, e, {}, {}}, 0, 3 * (e % 2));
    check(problem{{33, 17, 29}, {0, 2, 1}, e, {}, {}}, 1, 0);
  }
  check(problem{{7, 208, 224}, {0, 2, 1}, 1, {}, {}});        // 46.6 KB aligned matrices: one a tile
  check(problem{{7, 151, 149}, {0, 2, 1}, 1, {}, {}}, 5, 9);  // 22.5 KB, windows past matrix ends
  check(problem{{11, 100, 100}, {0, 2, 1}, 1, {}, {}});
  // Matrices of 47-110 KB, one a tile with the opt-in shared memory; each window's last chunk reaches a few
  // bytes into the next matrix, which come from global memory instead of the stage (shifted pointers).
  check(problem{{3, 204, 295}, {0, 2, 1}, 1, {}, {}}, 7, 3);
  check(problem{{3, 249, 208}, {0, 2, 1}, 2, {}, {}}, 2, 6);
  check(problem{{3, 150, 151}, {0, 2, 1}, 3, {}, {}}, 5, 0);
  check(problem{{3, 71, 120}, {0, 2, 1}, 8, {}, {}}, 0, 8);
  check(problem{{2, 61, 89}, {0, 2, 1}, 12, {}, {}}, 4, 4);
  check(problem{{3, 45, 298}, {0, 2, 1}, 8, {}, {}}, 8, 0);   // 107 KB: the 2-, 4-, 8-byte units' larger stage
  check(problem{{3, 176, 297}, {0, 2, 1}, 2, {}, {}}, 2, 4);  // 104 KB
  // Pointers off every unit's grid (pieces of one byte for 4-, 6-, 8-byte units: the phase-indexed gather at
  // each phase), matrices of fewer than 16 bytes (a window's last chunk spans several matrices), and one-matrix
  // tiles of odd units with odd shifts.
  for (std::int64_t e : {4, 6, 8})
    for (std::size_t shift : {1, 3}) {
      check(problem{{37, 23, 41}, {0, 2, 1}, e, {}, {}}, shift, 2 * shift);
      check(problem{{5, 97, 61}, {0, 2, 1}, e, {}, {}}, 2 * shift, shift);
    }
  for (std::int64_t e : {1, 2, 3}) check(problem{{1001, 3, 5}, {0, 2, 1}, e, {}, {}}, 5, 11);
  // Shapes whose stage the bank model swizzles (u8 56 x 32, rgb8 110 x 64, fp64 71 x 120), aligned and not.
  for (std::size_t shift : {0, 5}) {
    check(problem{{40, 56, 32}, {0, 2, 1}, 1, {}, {}}, shift, 2 * shift);
    check(problem{{3, 110, 64}, {0, 2, 1}, 3, {}, {}}, shift, shift / 5 * 3);
    check(problem{{3, 71, 120}, {0, 2, 1}, 8, {}, {}}, shift / 5 * 8, 0);
  }
}

TEST(Transpose2d, BatchedTinyMatricesWholeTilesEveryKAndPhase) {
  // skinny16's flat batches: b x K x n <-> b x n x K, K <= 16, n U whole 8- or 16-byte pieces; a partial last
  // tile (257 matrices), shifted pointers in turn.
  int variant = 0;
  for (std::int64_t e : {1, 2, 4, 8, 16})
    for (std::int64_t k : {2, 3, 4, 5, 7, 8, 12, 16}) {
      const std::int64_t piece = (k >= 8 && e <= 8) ? 8 : 16;
      for (std::int64_t pieces : {1, 2, 3}) {
        const std::int64_t n = pieces * piece / e;
        if (n < 1) continue;
        const std::size_t in_shift = variant % 3 == 0 ? 0 : static_cast<std::size_t>(variant % 16);
        const std::size_t out_shift = variant % 2 == 0 ? 0 : static_cast<std::size_t>((variant * 5) % 16);
        ++variant;
        check(problem{{257, k, n}, {0, 2, 1}, e, {}, {}}, in_shift, out_shift);
        check(problem{{257, n, k}, {0, 2, 1}, e, {}, {}}, in_shift, out_shift);
      }
    }
  check(problem{{65536, 16, 16}, {0, 2, 1}, 1, {}, {}});
  check(problem{{5000, 8, 8}, {0, 2, 1}, 2, {}, {}}, 2, 6);
  // Skinny batches of small matrices that the flat kernel does not take (n U not whole pieces): whole
  // matrices a tile through batched_flat, not one-matrix skinny tiles.
  check(problem{{20001, 3, 13}, {0, 2, 1}, 1, {}, {}}, 1, 0);
  check(problem{{20001, 13, 3}, {0, 2, 1}, 2, {}, {}}, 0, 3);
}

TEST(Transpose2d, MoreThan65535TilesAlongEitherSide) {
  check(problem{{3, std::int64_t{1} << 22}, {1, 0}, 4, {}, {}});
  check(problem{{std::int64_t{1} << 22, 3}, {1, 0}, 4, {}, {}});
  check(problem{{2, std::int64_t{1} << 23}, {1, 0}, 1, {}, {}});
}

TEST(Transpose2d, SkinnyMatricesAoSToSoAAndBack) {
  for (std::int64_t e : {1, 2, 3, 4, 8, 12, 16})
    for (std::int64_t k : {2, 3, 4, 5, 8, 16}) {
      check(problem{{20011, k}, {1, 0}, e, {}, {}});
      check(problem{{k, 20011}, {1, 0}, e, {}, {}});
    }
  check(problem{{300000, 4}, {1, 0}, 4, {}, {}});
  check(problem{{4, 300000}, {1, 0}, 4, {}, {}});
  for (std::int64_t e : {1, 2, 4, 6}) {
    check(problem{{3, 7001, 3}, {0, 2, 1}, e, {}, {}});   // batched AoS -> SoA
    check(problem{{3, 3, 7001}, {0, 2, 1}, e, {}, {}});   // batched SoA -> AoS
    for (std::size_t shift : {1, 2, 4, 8}) {
      check(problem{{9001, 5}, {1, 0}, e, {}, {}}, shift, 0);
      check(problem{{5, 9001}, {1, 0}, e, {}, {}}, 0, shift);
    }
  }
}

// n x k -> k x n and back for one (unit, k): n units along the long side, the input and output shifted off
// the 16-byte grid and the strided side's pitch odd or even in turn as `variant` advances.
void check_skinny_pair(std::int64_t e, std::int64_t k, std::int64_t n, int& variant) {
  const std::size_t in_shift = static_cast<std::size_t>(variant % 4 == 0 ? 0 : (variant * 5) % 16);
  const std::size_t out_shift = static_cast<std::size_t>(variant % 3 == 0 ? 0 : (variant * 7) % 16);
  const std::int64_t pad = variant % 2 == 0 ? 0 : 1 + variant % 5;
  ++variant;
  check(problem{{n, k}, {1, 0}, e, {}, {n + pad, 1}}, in_shift, out_shift);  // AoS -> SoA
  check(problem{{k, n}, {1, 0}, e, {n + pad, 1}, {}}, in_shift, out_shift);  // SoA -> AoS
}

TEST(Transpose2d, SkinnyEveryKUnitAndPhase) {
  // skinny16: a micro-kernel per (unit, k, direction). Each takes several tiles and a partial one, with the
  // input and output shifted off the 16-byte grid and the strided side's pitch odd or even in turn, so every
  // instantiation meets realigned loads, realigned stores and bytewise range ends.
  int variant = 0;
  for (std::int64_t e : {1, 2, 4, 8, 16})
    for (std::int64_t k = 2; k <= 16; ++k) check_skinny_pair(e, k, 40000 / (k * e) + 3 * (k + e) + 1, variant);
  // Every phase of both sides for a few k (the packed side's and each strided row's misalignment).
  for (std::int64_t e : {1, 2, 8})
    for (std::int64_t k : {3, 4, 16})
      for (std::size_t in_shift = 0; in_shift < 16; in_shift += 3)
        for (std::size_t out_shift : {0, 1, 6, 11}) {
          check(problem{{1000 + k, k}, {1, 0}, e, {}, {}}, in_shift, out_shift);
          check(problem{{k, 1000 + k}, {1, 0}, e, {1003 + k, 1}, {}}, in_shift, out_shift);
        }
  // Batched, and a range shorter than one chunk per tile row.
  for (std::int64_t e : {1, 4}) {
    check(problem{{5, 3001, 7}, {0, 2, 1}, e, {}, {}}, 3, 1);
    check(problem{{5, 7, 3001}, {0, 2, 1}, e, {}, {}}, 1, 3);
    check(problem{{11, 2}, {1, 0}, e, {}, {}}, 1, 2);
    check(problem{{2, 11}, {1, 0}, e, {}, {}}, 2, 1);
  }
}

TEST(Transpose2d, SkinnyMidKRowsToColumns) {
  // k x n -> n x k with 16 < k <= 40 units (up to 96 for 1- and 2-byte units whose tiles would be poorly
  // filled) goes to the generic skinny kernel (16 KiB windows along n): every
  // unit size class, shifted pointers, a pitched input, several tiles and a partial one; then n x k -> k x n.
  int variant = 0;
  for (std::int64_t e : {1, 2, 3, 4, 6, 8, 12, 16})
    for (std::int64_t k : {17, 20, 24, 31, 33, 40}) {
      const std::int64_t n = 60000 / (k * e) + 3 * k + 7;
      const std::size_t in_shift = static_cast<std::size_t>((variant * 5) % 16);
      const std::size_t out_shift = static_cast<std::size_t>(variant % 3 == 0 ? 0 : (variant * 7) % 16);
      const std::int64_t pad = variant % 2 == 0 ? 0 : 1 + variant % 5;
      ++variant;
      check(problem{{k, n}, {1, 0}, e, {n + pad, 1}, {}}, in_shift, out_shift);
      if (HasFailure()) return;
    }
  // Aligned k rows filling >= 80 % of vec16's tile rows stay on vec16 tiles (fp64 30 x n, c128 26 x n); the
  // same with a misaligned output stays on skinny.
  for (std::size_t out_shift : {0, 8}) {
    check(problem{{30, 5003}, {1, 0}, 8, {5004, 1}, {}}, 0, out_shift);
    check(problem{{26, 2003}, {1, 0}, 16, {}, {}}, 16, out_shift);
  }
  // k x n with 40 < k <= 96 and output rows off the 16-byte grid take skinny where the tiles fill their rows
  // poorly (u8 and fp64 always; fp16 41, 63, 75 rows; fp32 57-72), else tiles (fp16 52, 94; fp32 41, 52, 75,
  // 94, 96 rows): shifted and pitched.
  for (std::int64_t e : {1, 2, 4, 8})
    for (std::int64_t k : {41, 52, 57, 63, 75, 94, 96}) {
      const std::int64_t n = 60000 / (k * e) + 3 * k + 7;
      const std::size_t in_shift = static_cast<std::size_t>((variant * 5) % 16) / static_cast<std::size_t>(e) * e;
      const std::int64_t pad = variant % 2 == 0 ? 0 : 1 + variant % 5;
      ++variant;
      check(problem{{k, n}, {1, 0}, e, {n + pad, 1}, {}}, in_shift, static_cast<std::size_t>(e));
      if (HasFailure()) return;
    }
  // n x k -> k x n, 1- and 2-byte units with k-unit rows of <= 36 bytes (the skinny kernel as well).
  for (std::int64_t e : {1, 2})
    for (std::int64_t k : {17, 18, 24, 33, 36}) {
      if (k * e > 36) continue;
      const std::int64_t n = 60000 / (k * e) + 3 * k + 7;
      const std::size_t in_shift = static_cast<std::size_t>((variant * 5) % 16);
      const std::size_t out_shift = static_cast<std::size_t>(variant % 3 == 0 ? 0 : (variant * 7) % 16);
      const std::int64_t pad = variant % 2 == 0 ? 0 : 1 + variant % 5;
      ++variant;
      check(problem{{n, k}, {1, 0}, e, {}, {n + pad, 1}}, in_shift, out_shift);
      if (HasFailure()) return;
    }
}

TEST(Transpose2d, SkinnyOddUnitsEveryKAndPhase) {
  // skinny_odd: units of 3, 5, 6, 7, 10, 12 and 14 bytes through periods of lcm(U, 16) bytes. Every k to 16
  // both ways over several tiles and a partial one, inputs and outputs off the 16-byte grid (the unpack's
  // realignment by the run's phase, the pack's by the chunks' unit phase), odd pitches on the strided side.
  int variant = 0;
  for (std::int64_t e : {3, 5, 6, 7, 10, 12, 14})
    for (std::int64_t k = 2; k <= 16; ++k) {
      check_skinny_pair(e, k, 70000 / (k * e) + 3 * (k + e) + 1, variant);
      if (HasFailure()) return;
    }
  // 16 < k <= 40 (n x k always; k x n where pixel48 would fill < 60 % of its rows).
  for (std::int64_t e : {3, 5, 6, 7, 10, 12, 14})
    for (std::int64_t k : {17, 24, 33, 40}) {
      check_skinny_pair(e, k, 90000 / (k * e) + 2 * k + 5, variant);
      if (HasFailure()) return;
    }
  // Every phase of both sides for a few k.
  for (std::int64_t e : {3, 5, 6, 7, 10, 12, 14})
    for (std::int64_t k : {3, 4, 16})
      for (std::size_t in_shift = 0; in_shift < 16; in_shift += 5)
        for (std::size_t out_shift : {0, 1, 6, 11}) {
          check(problem{{2000 + k, k}, {1, 0}, e, {}, {}}, in_shift, out_shift);
          check(problem{{k, 2000 + k}, {1, 0}, e, {2003 + k, 1}, {}}, in_shift, out_shift);
          if (HasFailure()) return;
        }
  // Batched (tiles of several matrices' rows), and runs shorter than one chunk.
  for (std::int64_t e : {3, 7, 12}) {
    check(problem{{5, 9001, 7}, {0, 2, 1}, e, {}, {}}, 3, 1);
    check(problem{{5, 7, 9001}, {0, 2, 1}, e, {}, {}}, 1, 3);
    check(problem{{11, 2}, {1, 0}, e, {}, {}}, 1, 2);
    check(problem{{2, 11}, {1, 0}, e, {}, {}}, 2, 1);
  }
}

TEST(Transpose2d, SkinnyOddTilesOfFiveSevenTenAndFourteenByteUnits) {
  // skinny_odd's tiles: K columns (a multiple of Q units) x span rows. Shapes just past and short of whole
  // tiles both ways, pitched rows (each input row unpacked at its own phase), shifted pointers, batches. (5- and
  // 7-byte units on the 16-byte grid, here only 16 x 16 unshifted, take pieces: the test above.)
  for (std::int64_t e : {5, 7, 10, 14}) {
    int variant = 0;
    const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
        {16, 16}, {17, 33}, {125, 32}, {126, 31}, {251, 65}, {301, 97}, {1000, 37}, {37, 1000}, {2003, 129}};
    for (auto [r, c] : shapes)
      for (auto [in_shift, out_shift] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 7}, {5, 2}, {13, 15}}) {
        check(problem{{r, c}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        const std::int64_t pad = 1 + variant++ % 3;
        check(problem{{r, c}, {1, 0}, e, {c + pad, 1}, {r + 2 * pad, 1}}, in_shift, out_shift);
        if (HasFailure()) return;
      }
    check(problem{{3, 301, 97}, {0, 2, 1}, e, {}, {}}, 3, 1);
    check(problem{{2, 64, 300}, {0, 2, 1}, e, {}, {}});
  }
}

TEST(Transpose2d, PixelsOfThreeSixTwelveAndTwentyFourBytesAtEveryPhase) {
  // pixel48: tiles of 64 rows (+ a halo for the output windows) x 192 bytes; shapes just past and short of
  // whole tiles, shifted pointers and odd pitches, so every realignment and window edge is met.
  for (std::int64_t e : {3, 6, 12, 24}) {
    const std::int64_t tc = 192 / e;
    const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
        {16, 16}, {64, tc}, {65, tc + 1}, {2 * 64 + 5, 3 * tc + 7}, {63, 2 * tc - 1}, {301, 97}, {1000, 37}};
    int variant = 0;
    for (auto [r, c] : shapes)
      for (auto [in_shift, out_shift] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 7}, {5, 2}, {13, 15}}) {
        check(problem{{r, c}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        const std::int64_t pad = 1 + variant++ % 3;
        check(problem{{r, c}, {1, 0}, e, {c + pad, 1}, {r + 2 * pad, 1}}, in_shift, out_shift);
      }
    check(problem{{3, 97, 131}, {0, 2, 1}, e, {}, {}}, 3, 5);  // batched
    // Outputs on the 16-byte grid (r e a multiple of 16, aligned pointer and pitch): the build without halo
    // rows, with a partial last tile along r and c, shifted inputs, padded output rows, and a batch.
    for (auto [r, c] : std::vector<std::pair<std::int64_t, std::int64_t>>{{16, tc}, {64, 2 * tc + 3}, {208, 3 * tc + 7}})
      for (std::size_t in_shift : {0, 5}) {
        check(problem{{r, c}, {1, 0}, e, {}, {}}, in_shift, 0);
        check(problem{{r, c}, {1, 0}, e, {c + 1, 1}, {r + 16, 1}}, in_shift, 0);
      }
    check(problem{{3, 80, 131}, {0, 2, 1}, e, {}, {}}, 7, 0);
  }
}

TEST(Transpose2d, UnitsOfNineToFifteenBytesAtEveryPhase) {
  // gather16 with whole-warp rows (32 chunks: tiles of 32-53 units a side, tuning/transpose2d.hpp) for 9, 11, 13,
  // 15 bytes off the 16-byte grid (on it: pieces; 10 and 14 on compound sides, their plain 2-D shapes take
  // skinny_odd tiles): shapes just short of and
  // past whole tiles, shifted pointers, odd pitches, a batch and compound N-d sides.
  for (std::int64_t e : {9, 10, 11, 13, 14, 15}) {
    const std::int64_t side = (16 * 32 - 30) / e;
    const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
        {16, 16}, {side, side}, {side + 1, side - 1}, {2 * side + 5, 3 * side + 7}, {301, 97}, {1000, 37}};
    int variant = 0;
    for (auto [r, c] : shapes)
      for (auto [in_shift, out_shift] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 7}, {13, 15}}) {
        check(problem{{r, c}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        const std::int64_t pad = 1 + variant++ % 3;
        check(problem{{r, c}, {1, 0}, e, {c + pad, 1}, {r + 2 * pad, 1}}, in_shift, out_shift);
      }
    check(problem{{3, 97, 131}, {0, 2, 1}, e, {}, {}}, 3, 5);  // batched
    check(problem{{40, 3, 50, 2}, {2, 3, 0, 1}, e, {}, {}});   // compound sides
    check(problem{{40, 5, 60, 7, 80}, {4, 2, 0, 3, 1}, e, {}, {}}, 1, 3);  // 35 x 80 compound matrices
  }
}

TEST(Transpose2d, OddUnitsOnTheSixteenByteGridThroughPieces) {
  // pieces: 64 x 64-unit tiles of odd 3-15-byte units whose pointers, pitches and batch strides are all 16-byte
  // multiples (sides of 16k units when packed). Whole and edge tiles (rows cut mid-chunk by pitched views: 100
  // units a row, 36 in the last tile), several tiles a block (the two buffers), batches packed and pitched.
  for (std::int64_t e : {3, 5, 7, 9, 11, 13, 15}) {
    for (auto [r, c] : std::vector<std::pair<std::int64_t, std::int64_t>>{{16, 16}, {64, 64}, {80, 48}, {208, 144}, {1024, 784}})
      check(problem{{r, c}, {1, 0}, e, {}, {}});
    check(problem{{150, 100}, {1, 0}, e, {112, 1}, {160, 1}});
    check(problem{{67, 301}, {1, 0}, e, {304, 1}, {80, 1}});
    check(problem{{3, 96, 144}, {0, 2, 1}, e, {}, {}});
    check(problem{{3, 70, 90}, {0, 2, 1}, e, {100 * 96, 96, 1}, {96 * 80, 80, 1}});
    if (HasFailure()) return;
  }
}

TEST(Transpose2d, FlatGatherTilesOnSidesThatSquareTilesFitBadly) {
  // gather16 with flat rows (rectangular tiles split evenly, gather16_flat_tile) where square tiles fit badly
  // (gather16_prefers_flat): sides just past a square tile (fp32: 63 of 56), misaligned so that vec16 / shift16
  // do not take them, plain, pitched, batched and compound N-d (the N-d suite's 3,7,1,4,6,5,0,2 case, scaled).
  for (std::int64_t e : {4, 8, 16, 2, 1}) {
    const std::int64_t side = (256 - 30) / e;  // gather16's square side for units <= 16 bytes (below 156 rows)
    for (auto [r, c] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {side + 7, 300}, {300, side + 7}, {63, 1209 / e + 5}, {side + 1, side + 1}, {17, 2 * side + 3}})
      for (auto [in_shift, out_shift] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 4}, {4, 0}, {1, 3}, {12, 4}}) {
        check(problem{{r, c}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        check(problem{{r, c}, {1, 0}, e, {c + 3, 1}, {r + 5, 1}}, in_shift, out_shift);
        check(problem{{3, r, c}, {0, 2, 1}, e, {}, {}}, in_shift, out_shift);
      }
    check(problem{{3, 2, 3, 41, 2, 7, 43, 3}, {3, 7, 1, 4, 6, 5, 0, 2}, e, {}, {}}, 4, 0);
    check(problem{{3, 2, 3, 41, 2, 7, 43, 3}, {3, 7, 1, 4, 6, 5, 0, 2}, e, {}, {}}, 0, 4);
    check(problem{{7, 9, 2, 5, 130}, {2, 4, 0, 3, 1}, e, {}, {}}, 4, 12);  // 63-unit compound side
  }
}

TEST(Transpose2d, PitchedInputAndOutputLeaveGapsUntouched) {
  for (std::int64_t e : {1, 2, 4, 8, 16, 3}) {
    check(problem{{100, 60}, {1, 0}, e, {64, 1}, {128, 1}});   // 16-byte multiples for e >= 1 only sometimes
    check(problem{{129, 67}, {1, 0}, e, {71, 1}, {131, 1}});   // odd pitches
    check(problem{{4, 40, 33}, {0, 2, 1}, e, {40 * 40, 40, 1}, {33 * 48, 48, 1}});
  }
}

TEST(Transpose2d, MisalignedBasePointersAreCorrect) {
  for (std::int64_t e : {1, 2, 4, 8, 16})
    for (std::size_t shift : {1, 2, 4, 8}) {
      check(problem{{67, 129}, {1, 0}, e, {}, {}}, shift, 0);
      check(problem{{67, 129}, {1, 0}, e, {}, {}}, 0, shift);
      check(problem{{64, 128}, {1, 0}, e, {}, {}}, shift, shift);
      check(problem{{50, 7, 9}, {0, 2, 1}, e, {}, {}}, shift, 0);   // batched small matrices
      check(problem{{50, 7, 9}, {0, 2, 1}, e, {}, {}}, 0, shift);
    }
}

TEST(Transpose2d, EveryInputAndOutputPhaseOfMisalignedTiles) {
  // shift16 realigns each input row by its address mod 16 and writes each output row on the output's 16-byte
  // grid: every phase of both, odd and even pitches, full and edge tiles (and the first/last chunk shared by
  // two tiles along r).
  for (std::int64_t e : {1, 2, 4, 8, 16})
    for (std::size_t in_shift = 0; in_shift < 16; in_shift += (e >= 4 ? 1 : 3))
      for (std::size_t out_shift : {0, 1, 5, 8, 15}) {
        const std::int64_t r = 300 / e + 37, c = 517 / e + 131;
        check(problem{{r, c}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        check(problem{{r, c}, {1, 0}, e, {c + 3, 1}, {r + 1, 1}}, in_shift, out_shift);  // odd pitches
      }
  // >= 4-byte units take shift16 only when both sides are >= 1024 units.
  for (std::int64_t e : {4, 8, 16})
    for (std::size_t in_shift : {0, 3, 8})
      for (std::size_t out_shift : {0, 5, 12}) {
        check(problem{{1031, 1100}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        check(problem{{1100, 1031}, {1, 0}, e, {1037, 1}, {1103, 1}}, in_shift, out_shift);
      }
  check(problem{{2, 1025, 1027}, {0, 2, 1}, 4, {}, {}}, 4, 0);
  // 1- and 2-byte units with enough tiles for shift16 (the r, c above are few enough for words' tiles); u8
  // takes shift8 at these sizes (dispatch/transpose2d.cu), or vec8 when everything is 8-byte aligned.
  for (std::int64_t e : {1, 2})
    for (std::size_t in_shift : {0, 3, 8, 13})
      for (std::size_t out_shift : {0, 5, 8, 12}) {
        check(problem{{1031, 1100}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        check(problem{{1100, 1031}, {1, 0}, e, {1037, 1}, {1103, 1}}, in_shift, out_shift);
        check(problem{{1100, 1031}, {1, 0}, e, {1040, 1}, {1104, 1}}, in_shift, out_shift);  // 8- and 16-byte pitches
      }
  // shift8's 512-thread tiles (single byte matrices of > 16 MiB with >= 12 tile rows), branch-free inside.
  for (auto [in_shift, out_shift] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 0}, {0, 3}, {5, 7}})
    check(problem{{3001, 6007}, {1, 0}, 1, {}, {}}, in_shift, out_shift);
  check(problem{{3001, 5999}, {1, 0}, 1, {6005, 1}, {3003, 1}}, 2, 6);
  // u8 with 16-byte aligned output rows (shift16's one-wave build), and a misaligned matrix over 48 MiB
  // (shift16's default build; smaller ones take shift8).
  for (std::size_t in_shift : {1, 7, 8}) check(problem{{1100, 1031}, {1, 0}, 1, {1033, 1}, {1104, 1}}, in_shift, 0);
  check(problem{{8191, 8193}, {1, 0}, 1, {}, {}}, 3, 5);
  // Compound sides on misaligned data (N-d permutations with short fastest axes).
  for (std::int64_t e : {1, 2, 4, 8})
    for (std::size_t shift : {0, 3, 9}) {
      check(problem{{7, 45, 3, 41}, {2, 3, 0, 1}, e, {}, {}}, shift, 16 - shift);
      check(problem{{5, 3, 77, 9}, {3, 1, 2, 0}, e, {}, {}}, 0, shift);
    }
  // u8 compound sides large enough for vec8 / shift8 tiles (500[250*2] x 496[248*2], batches of 5), every
  // 8-byte phase of the input and a few of the output.
  for (std::size_t in_shift : {0, 1, 4, 8})
    for (std::size_t out_shift : {0, 3, 8}) check(problem{{5, 2, 250, 248, 2}, {4, 3, 0, 2, 1}, 1, {}, {}}, in_shift, out_shift);
}

TEST(Transpose2d, UnitTilesForUnitsOffTheSixteenByteGrid) {
  // units tiles (1-, 2-, 4- and 8-byte units on rows that are not 16-byte aligned, each unit one access; fp32
  // only up to units_u4_max_bytes, u8 / fp16 up to units_narrow_max_bytes and plain sides): full and edge tiles
  // (64 x 64 / 64 x 32 units), shifts of the pointers by whole units, odd pitches, batches, and sides just over
  // 16 (tiles at least half full).
  for (std::int64_t e : {1, 2, 4, 8}) {
    std::vector<std::size_t> shifts;
    for (std::size_t s = 0; s < 16; s += static_cast<std::size_t>(e)) shifts.push_back(s);
    if (e == 1) shifts = {0, 1, 6, 15};
    if (e == 2) shifts = {0, 2, 6, 14};
    for (std::size_t in_shift : shifts)
      for (std::size_t out_shift : shifts) {
        check(problem{{67, 131}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        check(problem{{1031, 1100}, {1, 0}, e, {1103, 1}, {1037, 1}}, in_shift, out_shift);
        check(problem{{3, 77, 131}, {0, 2, 1}, e, {}, {}}, in_shift, out_shift);
        check(problem{{33, 515}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        check(problem{{4099, 17}, {1, 0}, e, {}, {}}, in_shift, out_shift);
        if (HasFailure()) return;
      }
  }
  // fp32 over units_u4_max_bytes: unit_pairs (8-byte pairs on each row's own grid; odd pitches alternate the
  // phase row by row), edge tiles of odd widths (3003 = 46 x 64 + 59), a batch, pitched views.
  for (auto [in_shift, out_shift] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {4, 0}, {0, 4}, {12, 8}}) {
    check(problem{{3001, 3003}, {1, 0}, 4, {}, {}}, in_shift, out_shift);
    check(problem{{3002, 3000}, {1, 0}, 4, {3001, 1}, {3005, 1}}, in_shift, out_shift);
  }
  check(problem{{3, 1500, 2003}, {0, 2, 1}, 4, {}, {}}, 4, 8);
}

TEST(Permute, NdProblemsThatReduceToRowsCopyOrBatchedTranspose) {
  for (auto e : elem_sizes) {
    check(problem{{2, 3, 17, 19}, {0, 2, 3, 1}, e, {}, {}});   // NCHW -> NHWC
    check(problem{{2, 17, 19, 3}, {0, 3, 1, 2}, e, {}, {}});   // NHWC -> NCHW
    check(problem{{4, 5, 6}, {1, 0, 2}, e, {}, {}});           // rows
    check(problem{{5, 6, 7}, {2, 1, 0}, e, {}, {}});           // reversal: 2-D transpose with a middle batch
    check(problem{{3, 4, 5}, {0, 1, 2}, e, {}, {}});           // identity -> copy
    check(problem{{9, 1, 7, 1}, {3, 2, 1, 0}, e, {}, {}});     // size-1 axes
    check(problem{{2, 3, 4, 5, 6}, {4, 3, 2, 1, 0}, e, {}, {}});
  }
  check(problem{{0, 5}, {1, 0}, 4, {}, {}});                   // empty
  check(problem{{}, {}, 4, {}, {}});                           // a single element
}

TEST(Permute, StridedRowGathersAndCopies) {
  for (std::int64_t e : {1, 2, 4, 8, 16, 6}) {
    check(problem{{10, 20}, {0, 1}, e, {32, 1}, {}});           // pitched -> packed copy (rows)
    check(problem{{10, 20}, {0, 1}, e, {}, {27, 1}});
    check(problem{{6, 7, 8}, {1, 0, 2}, e, {7 * 9 * 8, 9 * 8, 1}, {}});
  }
  // rows_shift16: rows of >= 64 bytes that are not 16-byte multiples (or on shifted pointers / odd strides):
  // every input and output phase, rows shorter and longer than a warp's 512 bytes.
  for (std::int64_t len : {16, 21, 313, 1000})
    for (std::size_t in_shift : {0, 3, 8, 13})
      for (std::size_t out_shift : {0, 1, 12}) {
        check(problem{{7, 5, len}, {1, 0, 2}, 4, {}, {}}, in_shift, out_shift);
        check(problem{{9, len}, {0, 1}, 1, {len + 5, 1}, {len + 9, 1}}, in_shift, out_shift);
      }
}

// ---- N-d permutations (compound tile sides, element gathers) ---------------------------------------------

// Every axes order of ranks 1..5 on shapes whose fastest extents are short, so that tile sides take in
// several axes; every element size class (1, 2, 4, 8, 16 bytes and factored odd sizes).
TEST(PermuteNd, EveryAxesOrderOfRanksOneToFive) {
  const std::vector<std::vector<std::int64_t>> shapes[] = {
      {{37}},
      {{3, 50}, {33, 17}},
      {{3, 50, 7}, {17, 3, 29}},
      {{5, 7, 6, 9}, {2, 33, 3, 17}},
      {{3, 4, 5, 6, 7}, {2, 9, 2, 5, 11}},
  };
  int checked = 0;
  for (int rank = 1; rank <= 5; ++rank) {
    std::vector<std::int64_t> axes(static_cast<std::size_t>(rank));
    for (int i = 0; i < rank; ++i) axes[static_cast<std::size_t>(i)] = i;
    do {
      for (const auto& shape : shapes[rank - 1])
        for (std::int64_t e : {1, 2, 3, 4, 8, 16}) {
          check(problem{shape, axes, e, {}, {}});
          ++checked;
          if (HasFailure()) return;
        }
    } while (std::next_permutation(axes.begin(), axes.end()));
  }
  std::printf("[ problems ] %d checked\n", checked);
}

// Compound tile sides whose rows are off the 16-byte grid, through the units tiles (4- and 8-byte units: units<4>
// up to 32 MiB, unit_pairs above, units<8>): one compound side and both, batches, edge tiles (99, 143, 129
// columns), and bases shifted by one unit, which moves every row's phase (unit_pairs pairs each row on its own
// 8-byte grid).
TEST(PermuteNd, CompoundSidesOffThe16ByteGridThroughUnitTiles) {
  const std::vector<std::tuple<std::vector<std::int64_t>, std::vector<std::int64_t>, std::int64_t>> cases = {
      {{7, 3, 101, 99}, {3, 2, 0, 1}, 4},                       // 2121[101*21] x 99
      {{3, 5, 81, 143}, {3, 0, 2, 1}, 8},                       // 405[81*5] x 143, batch 3
      {{3, 2, 3, 41, 2, 7, 43, 3}, {3, 7, 1, 4, 6, 5, 0, 2}, 4},  // 63[7*3*3] x 129[43*3], batch 164
      {{7, 3, 1001, 999}, {3, 2, 0, 1}, 4},                     // 21021[1001*21] x 999: 84 MB, unit_pairs
  };
  for (const auto& [shape, axes, e] : cases) {
    check(problem{shape, axes, e, {}, {}});
    check(problem{shape, axes, e, {}, {}}, static_cast<std::size_t>(e), 0);
    check(problem{shape, axes, e, {}, {}}, 0, static_cast<std::size_t>(e));
  }
}

// Random ranks 6..8 with small extents, random element sizes, pitched views and misaligned base pointers.
TEST(PermuteNd, RandomRanksSixToEightWithViewsAndMisalignment) {
  std::mt19937_64 rng(seed);
  std::printf("[ seed ] %llu\n", static_cast<unsigned long long>(seed));
  const std::int64_t extents[] = {1, 2, 3, 4, 5, 7, 8, 13};
  const std::int64_t elems[] = {1, 2, 3, 4, 6, 8, 12, 16};
  for (int n = 0; n < 150; ++n) {
    const int rank = 6 + static_cast<int>(rng() % 3);
    problem p;
    std::int64_t volume = 1;
    for (int i = 0; i < rank; ++i) {
      std::int64_t e = extents[rng() % std::size(extents)];
      if (volume * e > (1 << 18)) e = 1;
      p.shape.push_back(e);
      volume *= e;
    }
    p.axes.resize(static_cast<std::size_t>(rank));
    for (int i = 0; i < rank; ++i) p.axes[static_cast<std::size_t>(i)] = i;
    std::shuffle(p.axes.begin(), p.axes.end(), rng);
    p.elem_bytes = elems[rng() % std::size(elems)];
    const auto view = rng() % 4;  // 0 packed, 1 pitched input, 2 pitched output, 3 both
    auto pitched = [&](const std::vector<std::int64_t>& shape) {
      std::vector<std::int64_t> st(shape.size());
      std::int64_t next = 1;
      for (std::size_t i = shape.size(); i-- > 0;) {
        st[i] = next;
        next = next * shape[i] + static_cast<std::int64_t>(rng() % 3);
      }
      return st;
    };
    if (view & 1) p.in_strides = pitched(p.shape);
    if (view & 2) p.out_strides = pitched(out_shape(p));
    check(p, rng() % 2 ? 0 : rng() % 16, rng() % 2 ? 0 : rng() % 16);
    if (HasFailure()) return;
  }
}

TEST(PermuteNd, LayoutsOfDeepLearningAndSimulationCodes) {
  for (std::int64_t e : {1, 2, 4, 8, 16}) {
    check(problem{{4, 3, 45, 37}, {0, 2, 3, 1}, e, {}, {}});          // NCHW -> NHWC, 3 channels
    check(problem{{4, 45, 37, 3}, {0, 3, 1, 2}, e, {}, {}});          // NHWC -> NCHW
    check(problem{{2, 5, 7, 9, 11}, {0, 2, 3, 4, 1}, e, {}, {}});     // NCDHW -> NDHWC
    check(problem{{2, 7, 9, 11, 5}, {0, 4, 1, 2, 3}, e, {}, {}});     // NDHWC -> NCDHW
    check(problem{{8, 8, 8, 8, 8}, {4, 3, 2, 1, 0}, e, {}, {}});      // 5-D reversal
    check(problem{{33, 35, 37}, {1, 2, 0}, e, {}, {}});               // the five orders of a cube
    check(problem{{33, 35, 37}, {2, 0, 1}, e, {}, {}});
    check(problem{{33, 35, 37}, {2, 1, 0}, e, {}, {}});
    check(problem{{33, 35, 37}, {0, 2, 1}, e, {}, {}});
    check(problem{{33, 35, 37}, {1, 0, 2}, e, {}, {}});
    check(problem{{3000, 2, 3}, {2, 1, 0}, e, {}, {}});               // AoS of 2 x 3 -> SoA
    check(problem{{3, 2, 3000}, {2, 1, 0}, e, {}, {}});
  }
}

TEST(PermuteNd, ViewsAndShiftsThroughBoxTiles) {
  // Box tiles (plan/box.hpp): fastest axes that block each other, long sides split by a divisor, every unit
  // size, shifted pointers (narrower global accesses) and padded views.
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> cases = {
      {{7, 3, 2, 9, 41, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}},
      {{7, 9, 85, 5, 44}, {1, 0, 2, 4, 3}},
      {{7, 9, 85, 5, 44}, {2, 0, 1, 4, 3}},
      {{6, 4, 7, 11, 2, 40}, {2, 3, 1, 4, 5, 0}},
      {{21, 7, 2, 3, 27, 25, 5}, {4, 5, 3, 2, 1, 6, 0}},
      {{3, 16, 7, 3, 14, 3, 3, 3}, {1, 2, 0, 7, 6, 4, 5, 3}},
      {{30, 30, 13, 3}, {1, 0, 3, 2}},
  };
  int variant = 0;
  for (const auto& [shape, axes] : cases)
    for (std::int64_t e : {1, 2, 4, 8, 16}) {
      const std::size_t shift = static_cast<std::size_t>((variant++ % 4) * e);  // multiples of the unit
      check(problem{shape, axes, e, {}, {}});
      check(problem{shape, axes, e, {}, {}}, shift, 16 - shift % 16);
    }
  // 1-byte units take box16 (2-byte units box_kernel): every input run realigned from whole 16-byte chunks,
  // every output run stored on the output's 16-byte grid, boxes staged in groups. Several phases of both, and a
  // problem whose boxes (30 x 80 x 3 units) only fit box16's larger limit.
  for (std::int64_t e : {1, 2})
    for (std::size_t in_shift : {1, 3, 7, 8, 13})
      for (std::size_t out_shift : {0, 2, 11}) {
        check(problem{{7, 3, 2, 9, 41, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}, e, {}, {}}, in_shift * e, out_shift * e);
        check(problem{{6, 4, 7, 11, 2, 40}, {2, 3, 1, 4, 5, 0}, e, {}, {}}, in_shift * e, out_shift * e);
      }
  for (std::int64_t e : {1, 2}) check(problem{{30, 4, 6, 220, 2, 40}, {2, 3, 1, 4, 5, 0}, e, {}, {}}, 3 * e, 5 * e);
  // Ragged boxes (box_tail): a prime batch extent and a long side without a fitting divisor, every unit size,
  // shifted; the tail's boxes run as a second launch at an offset.
  for (std::int64_t e : {1, 2, 4, 8, 16})
    for (std::size_t shift : {0, 1, 3}) {
      check(problem{{10007, 10, 2, 2}, {2, 0, 3, 1}, e, {}, {}}, shift * e, 0);
      check(problem{{1341, 34, 3, 5, 4}, {1, 3, 4, 0, 2}, e, {}, {}}, 0, shift * e);
    }
  // Elements of 3, 5, 6 and 12 bytes boxed as their words (box_unit_bytes: an extra fastest axis on both
  // sides), at shifts that keep the words aligned and at shifts that do not (those take the tiles).
  for (std::int64_t e : {3, 5, 6, 12})
    for (std::size_t shift : {0, 1, 2, 4}) {
      check(problem{{16, 16, 17, 21, 6, 4}, {2, 5, 1, 0, 4, 3}, e, {}, {}}, shift, 0);
      check(problem{{152, 17, 69, 10}, {3, 1, 0, 2}, e, {}, {}}, 0, shift);
    }
  // box16's stage pitch padded by 8, 12 and 4 bytes (box16_in_pitch: runs of 448, 140 and 320 bytes), at every
  // phase of the input's 16-byte grid.
  for (std::size_t in_shift : {0, 5, 12}) {
    check(problem{{300, 16, 3, 64, 7}, {0, 2, 4, 3, 1}, 1, {}, {}}, in_shift, 0);
    check(problem{{300, 45, 60, 7}, {0, 2, 3, 1}, 1, {}, {}}, in_shift, 3);
    check(problem{{300, 24, 24, 40}, {0, 3, 2, 1}, 1, {}, {}}, in_shift, 9);
  }
  // Enough single-stage boxes of < 25 KiB for 128-thread blocks (box_threads: 6876 boxes of 1428 units; 2- and
  // 4-byte units, aligned and shifted by a unit, which narrows the loads).
  for (std::int64_t e : {2, 4})
    for (std::size_t shift : {0, 1}) check(problem{{7, 3, 2, 218, 41, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}, e, {}, {}}, shift * e, 0);
  // A padded input view (strides with gaps) through a box.
  std::vector<std::int64_t> strides(5);
  const std::vector<std::int64_t> shape = {7, 9, 85, 5, 44};
  std::int64_t st = 1;
  for (int i = 4; i >= 0; --i) {
    strides[static_cast<std::size_t>(i)] = st;
    st *= shape[static_cast<std::size_t>(i)] + (i == 4 ? 4 : 0);
  }
  check(problem{shape, {1, 0, 2, 4, 3}, 4, strides, {}});
}

TEST(PermuteNd, Box16StagesRunsAtEveryShiftThroughBothLoadPaths) {
  // box16 (1-byte units) copies each input run as the aligned chunks that cover it and folds the box's and the
  // run's shifts into the gather: small problems (quick under racecheck) whose boxes have runs at odd offsets
  // (odd strides), at odd addresses (odd batch strides, shifted pointers), a last group of fewer boxes, the
  // plain stage pitch (cp.async) or a padded one (loads and 4- or 8-byte stores), and groups at the input's
  // ends (load_chunk's bounded loads). Each problem must take a box (as the dispatch sizes them for this GPU).
  int sms = 0;
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> cases = {
      {{7, 3, 2, 9, 11, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}},  // 2 runs of 714 a box, output runs of 204
      {{3, 64, 7, 3, 14, 3, 3, 3}, {1, 2, 0, 7, 6, 4, 5, 3}},  // one run of 2268, output runs of 1134
      {{30, 4, 6, 55, 2, 40}, {2, 3, 1, 4, 5, 0}},            // 30 runs of 240, pitch padded by 12
      {{300, 4, 3, 64, 7}, {0, 2, 4, 3, 1}},                   // runs of 448 on the plain pitch
      {{7, 68, 21, 2, 4, 22}, {5, 3, 2, 0, 1, 4}},             // runs of 88, pitch padded by 4, output runs of 136
  };
  for (const auto& [shape, axes] : cases) {
    const problem p{shape, axes, 1, {}, {}};
    const auto plan = xpose::make_plan(p);
    ASSERT_TRUE(plan) << plan.error();
    std::int64_t units = 1;
    for (const std::int64_t e : shape) units *= e;
    xpose::detail::box_plan b;
    ASSERT_TRUE(xpose::detail::make_box(plan->geometry(), b,
                                        xpose::detail::box_volume_cap(units, sms, xpose::detail::box_volume_limit(1))))
        << p;
    std::printf("box16: %s: boxes of %lld, runs of %lld in, %lld out\n", ::testing::PrintToString(shape).c_str(),
                static_cast<long long>(b.volume), static_cast<long long>(b.in_run), static_cast<long long>(b.out_run));
    for (const auto& [in_shift, out_shift] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {7, 3}, {13, 0}})
      check(p, in_shift, out_shift);
  }
  // An overlapping input view whose box holds an axis outside the run at a stride shorter than the run (runs of
  // 100 bytes 37 apart, boxes 300 apart): the runs' shifts come from that stride too (box16_in_chunks).
  for (const std::size_t in_shift : {0, 5, 11}) check(problem{{4000, 5, 100}, {0, 2, 1}, 1, {300, 37, 1}, {}}, in_shift, 0);
}

TEST(PermuteNd, PlainRowsJoinedByTheBatchAxisBesideThemInTheOutput) {
  // 24 matrices of 1050 x 202 units (>= 4 MiB for every unit size) whose output rows of consecutive batches
  // lie side by side: the launcher joins that batch axis to the rows (a compound row side) for 1-, 4-, 8- and
  // 16-byte units (dispatch/transpose2d.cu, absorb_nested_batch); 2-byte units keep the plain tiles. Aligned
  // and shifted pointers.
  const std::vector<std::int64_t> shape{2, 150, 7, 2, 2, 3, 202}, axes{5, 4, 6, 0, 3, 1, 2};
  for (std::int64_t e : {1, 2, 4, 8, 16}) {
    check(problem{shape, axes, e, {}, {}});
    check(problem{shape, axes, e, {}, {}}, static_cast<std::size_t>(e), static_cast<std::size_t>(3 * e));
  }
}

TEST(PermuteNd, RowsAtEveryAlignment) {
  // `rows` (the fastest axis kept): aligned rows (rows_kernel) and misaligned ones (rows_shift16, whose 16-byte
  // loads may cover the neighbouring rows' bytes but never leave the input), packed and shifted, short rows
  // (flattened over chunks) and long ones (a warp a row), pitched views whose gaps must stay untouched.
  for (std::int64_t e : {1, 2, 4, 8})
    for (std::size_t shift : {0, 4, 9}) {
      if (shift % static_cast<std::size_t>(e) != 0) continue;
      check(problem{{5, 24, 12, 160 / e}, {0, 2, 1, 3}, e, {}, {}}, shift, 0);  // 160-byte rows
      check(problem{{3, 60, 7, 50, 96 / e}, {0, 3, 2, 1, 4}, e, {}, {}}, 0, shift);  // 96-byte rows
      check(problem{{36, 30, 100 / e + 1}, {1, 0, 2}, e, {}, {}}, shift, shift);   // odd row lengths
      check(problem{{37, 41, 80 / e}, {1, 0, 2}, e, {}, {}}, shift, 0);            // prime extents
      check(problem{{9, 11, 1252 / e + 1}, {1, 0, 2}, e, {}, {}}, shift, 3);     // a warp a row
      check(problem{{2, 3, 40001 / e}, {1, 0, 2}, e, {}, {}}, shift, 5);        // few long rows: segments
      check(problem{{9, 11, 100 / e}, {1, 0, 2}, e, {11 * (100 / e + 3), 100 / e + 3, 1}, {}}, shift, 0);
      check(problem{{9, 11, 100 / e}, {1, 0, 2}, e, {}, {9 * (100 / e + 1), 100 / e + 1, 1}}, 0, shift);
    }
}

TEST(PermuteNd, ViewsWithoutAUnitStrideAxisAreGatheredElementByElement) {
  for (std::int64_t e : {1, 2, 4, 8, 16, 3}) {
    check(problem{{40, 50}, {1, 0}, e, {100, 2}, {}});                // x[:, ::2].T
    check(problem{{40, 50}, {1, 0}, e, {}, {80, 2}});                 // into a strided output
    check(problem{{7, 9, 11}, {2, 0, 1}, e, {9 * 11 * 3, 11 * 3, 3}, {}});
    check(problem{{300}, {0}, e, {3}, {}});
  }
}

// Runs `p` (more than 2^31 elements) on the GPU and counts wrong output elements with the device oracle.
void check_large_with_oracle(const problem& p) {
  std::int64_t n = p.elem_bytes;
  for (std::int64_t e : p.shape) n *= e;
  size_t free_b = 0, total_b = 0;
  CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < 2 * static_cast<std::size_t>(n) + (std::size_t{1} << 28)) GTEST_SKIP() << "not enough device memory";
  auto plan = xpose::make_plan(p);
  ASSERT_TRUE(plan) << plan.error();
  std::printf("%s\n", (std::ostringstream() << *plan).str().c_str());
  device_buffer d_in(static_cast<std::size_t>(n)), d_out(static_cast<std::size_t>(n));
  unsigned long long* d_wrong = nullptr;
  CUDA_OK(cudaMalloc(&d_wrong, sizeof(unsigned long long)));
  CUDA_OK(xpose::test::fill_pattern(d_in.ptr, n, seed, nullptr));
  CUDA_OK(xpose::test::poison(d_out.ptr, n, nullptr));
  const auto s = plan->execute(d_in.ptr, d_out.ptr, nullptr);
  ASSERT_TRUE(s) << s;
  CUDA_OK(xpose::test::count_mismatches(d_in.ptr, d_out.ptr, p, seed, d_wrong, nullptr));
  unsigned long long wrong = 1;
  CUDA_OK(cudaMemcpy(&wrong, d_wrong, sizeof(wrong), cudaMemcpyDeviceToHost));
  cudaFree(d_wrong);
  EXPECT_EQ(wrong, 0u);
}

TEST(Large, NdPermutationOfMoreThan2Pow31ElementsIsVerifiedByTheOracle) {
  const problem p{{8, 3, 5, 17895698}, {3, 1, 0, 2}, 1, {}, {}};  // 2.147e9 one-byte elements, compound rows
  ASSERT_GT(8 * 3 * 5 * std::int64_t{17895698}, std::int64_t{1} << 31);
  check_large_with_oracle(p);
}

TEST(Large, FourByteTransposeOfMoreThan2Pow31ElementsIsVerifiedByTheOracle) {
  // 2.148e9 fp32 elements (8.6 GB each way) through bulk16's tensor copies: 64-bit offsets past 4 GiB, tensor
  // coordinates still within 32 bits.
  const problem p{{46352, 46336}, {1, 0}, 4, {}, {}};
  ASSERT_GT(std::int64_t{46352} * 46336, std::int64_t{1} << 31);
  check_large_with_oracle(p);
}

TEST(Large, WideUnitsOfMoreThan2Pow31ElementsAreVerifiedByTheOracle) {
  // The wide tiles past 2^31 elements: fp16 attention heads [4, 131073, 32, 128] -> [4, 32, 131073, 128]
  // (256-byte rows taken as units, 16-byte chunks, 8.6 GB each way) and u8 120-byte units of a batched
  // 7420 x 45 transpose (8-byte chunks, 2.2 GB each way).
  const problem heads{{4, 131073, 32, 128}, {0, 2, 1, 3}, 2, {}, {}};
  ASSERT_GT(std::int64_t{4} * 131073 * 32 * 128, std::int64_t{1} << 31);
  check_large_with_oracle(heads);
  const problem bytes{{56, 7420, 45, 120}, {0, 2, 1, 3}, 1, {}, {}};
  ASSERT_GT(std::int64_t{56} * 7420 * 45 * 120, std::int64_t{1} << 31);
  check_large_with_oracle(bytes);
}

TEST(PermuteNd, BoxTablesPerElementAndPerRunOnLargeProblems) {
  // box_kernel's tables per element (large problems), per run with more blocks (single-stage boxes with little
  // in flight), per run at the per-element block count (small problems; the box tests above): tuning/box.hpp,
  // choose_box_kernel. 0.25-0.5 GiB each way, every element checked by the device oracle.
  const std::vector<std::int64_t> r8n27{1, 2, 0, 7, 6, 4, 5, 3}, r8n6{3, 0, 1, 5, 4, 7, 2, 6};
  check_large_with_oracle(problem{{3, 368, 7, 3, 214, 3, 3, 3}, r8n27, 4, {}, {}});  // per element, 4-byte loads
  check_large_with_oracle(problem{{3, 736, 7, 3, 214, 3, 3, 3}, r8n27, 2, {}, {}});  // per run, 9 blocks an SM
  check_large_with_oracle(problem{{7, 3, 2, 27, 41, 7, 2, 51}, r8n6, 16, {}, {}});   // per element, two stages
  check_large_with_oracle(problem{{7, 3, 2, 218, 41, 7, 2, 51}, r8n6, 2, {}, {}});   // per run, 1428-unit boxes
}

TEST(Execute, RunsOnANonDefaultStream) {
  cudaStream_t s = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  check(problem{{300, 500}, {1, 0}, 4, {}, {}}, 0, 0, s);
  check(problem{{300, 500}, {1, 0}, 3, {}, {}}, 0, 0, s);
  CUDA_OK(cudaStreamDestroy(s));
}

TEST(Execute, IsCapturableInACudaGraph) {
  const std::int64_t r = 513, c = 257;
  auto plan = xpose::make_plan(problem{{r, c}, {1, 0}, 4, {}, {}});
  ASSERT_TRUE(plan);
  device_buffer d_in(r * c * 4), d_out(r * c * 4);
  std::vector<float> h(r * c), back(r * c);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>(i) + 0.5f;
  CUDA_OK(cudaMemcpy(d_in.ptr, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_out.ptr, poison, h.size() * 4));
  // The graph runs on a non-blocking stream, which does not wait for the legacy stream the memset ran on (see
  // check()): without this the poison could land after the replay's writes.
  CUDA_OK(cudaDeviceSynchronize());
  cudaStream_t s = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const xpose::status st = plan->execute(d_in.ptr, d_out.ptr, s);
  CUDA_OK(cudaStreamEndCapture(s, &graph));
  ASSERT_TRUE(st) << st;
  cudaGraphExec_t exec = nullptr;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaMemcpy(back.data(), d_out.ptr, h.size() * 4, cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) ASSERT_EQ(back[j * r + i], h[i * c + j]) << i << "," << j;
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

TEST(Execute, OnePlanFromEightHostThreadsOnEightStreamsAndGraphReplays) {
  // Plans are immutable and hold no data pointers: one plan, 8 host threads, each with its own buffers and
  // non-blocking stream, executing it 5 times directly and 3 times through a captured graph, each result
  // checked by the device oracle. Kernel variants differ per problem, so five plans take turns.
  const std::vector<problem> problems = {
      problem{{37, 129, 67}, {2, 0, 1}, 4, {}, {}},  // compound N-d tiles
      problem{{3, 20011}, {1, 0}, 1, {}, {}},         // skinny16
      problem{{301, 97}, {1, 0}, 3, {}, {}},          // pixel48
      problem{{7000, 8000}, {1, 0}, 1, {}, {}},       // bulk8: a tensor map encoded per call, in the graph
      problem{{3000, 4400}, {1, 0}, 4, {}, {}},       // bulk16
  };
  for (const problem& p : problems) {
    SCOPED_TRACE(::testing::Message() << "problem: " << p);
    auto plan = xpose::make_plan(p);
    ASSERT_TRUE(plan) << plan.error();
    const auto bytes = static_cast<std::size_t>(span_bytes(p.shape, packed_strides(p.shape), p.elem_bytes));
    constexpr int threads = 8;
    std::vector<std::string> failures(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        auto fail = [&](const std::string& what) { failures[t] += what + "; "; };
        device_buffer d_in(bytes), d_out(bytes), d_count(sizeof(unsigned long long));
        cudaStream_t s = nullptr;
        if (!d_in.ptr || !d_out.ptr || !d_count.ptr || cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
          return fail("allocation");
        const std::uint64_t pattern_seed = seed + static_cast<std::uint64_t>(t);
        auto verify = [&](const char* how) {
          unsigned long long bad = 1;
          if (xpose::test::count_mismatches(d_in.ptr, d_out.ptr, p, pattern_seed,
                                            static_cast<unsigned long long*>(d_count.ptr), s) != cudaSuccess ||
              cudaMemcpyAsync(&bad, d_count.ptr, sizeof bad, cudaMemcpyDeviceToHost, s) != cudaSuccess ||
              cudaStreamSynchronize(s) != cudaSuccess)
            return fail(std::string(how) + ": oracle failed");
          if (bad != 0) fail(std::string(how) + ": " + std::to_string(bad) + " wrong elements");
        };
        if (xpose::test::fill_pattern(d_in.ptr, static_cast<std::int64_t>(bytes), pattern_seed, s) != cudaSuccess)
          return fail("fill");
        for (int rep = 0; rep < 5; ++rep) {
          if (xpose::test::poison(d_out.ptr, static_cast<std::int64_t>(bytes), s) != cudaSuccess) return fail("poison");
          if (const xpose::status st = plan->execute(d_in.ptr, d_out.ptr, s); !st) return fail(st.message());
          verify("direct");
        }
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return fail("capture");
        const xpose::status st = plan->execute(d_in.ptr, d_out.ptr, s);
        if (cudaStreamEndCapture(s, &graph) != cudaSuccess || !st) return fail("capture: " + st.message());
        if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return fail("instantiate");
        for (int rep = 0; rep < 3; ++rep) {
          if (xpose::test::poison(d_out.ptr, static_cast<std::int64_t>(bytes), s) != cudaSuccess) return fail("poison");
          if (cudaGraphLaunch(exec, s) != cudaSuccess) return fail("graph launch");
          verify("graph replay");
        }
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        cudaStreamDestroy(s);
      });
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
  }
}

TEST(Execute, RejectsHostPointersAndOverlappingBuffersNamingTheArgument) {
  auto plan = xpose::make_plan(problem{{64, 64}, {1, 0}, 4, {}, {}});
  ASSERT_TRUE(plan);
  std::vector<float> host(64 * 64, 1.0f);
  device_buffer d(2 * 64 * 64 * 4);
  const xpose::status host_in = plan->execute(host.data(), d.ptr);
  EXPECT_EQ(host_in.code(), xpose::status_code::invalid_argument);
  EXPECT_NE(host_in.message().find("d_in"), std::string::npos) << host_in;
  const xpose::status host_out = plan->execute(d.ptr, host.data());
  EXPECT_EQ(host_out.code(), xpose::status_code::invalid_argument);
  EXPECT_NE(host_out.message().find("d_out"), std::string::npos) << host_out;
  const xpose::status overlap = plan->execute(d.bytes(), d.bytes() + 100);
  EXPECT_EQ(overlap.code(), xpose::status_code::invalid_argument);
  EXPECT_NE(overlap.message().find("overlap"), std::string::npos) << overlap;
  const xpose::status null_in = plan->execute(nullptr, d.ptr);
  EXPECT_EQ(null_in.code(), xpose::status_code::invalid_argument);
  // The host executor refuses device memory.
  std::vector<float> host_out_buf(64 * 64);
  const xpose::status s = plan->execute_host(d.ptr, host_out_buf.data());
  EXPECT_EQ(s.code(), xpose::status_code::invalid_argument);
  EXPECT_NE(s.message().find("device"), std::string::npos) << s;
}

// ---- > 2^31 elements, verified on the device (the host reference would take minutes) --------------------

__host__ __device__ inline unsigned char byte_of(std::uint64_t i) {
  i ^= i >> 29;
  i *= 0xbf58476d1ce4e5b9ull;
  i ^= i >> 32;
  return static_cast<unsigned char>(i | 1u);
}

__global__ void fill_bytes(unsigned char* p, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    p[i] = byte_of(i);
}

// out (cols x rows) must hold in (rows x cols) transposed, for 1-byte elements.
__global__ void count_wrong(const unsigned char* out, std::uint64_t rows, std::uint64_t cols,
                            unsigned long long* wrong) {
  unsigned long long local = 0;
  for (std::uint64_t o = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; o < rows * cols;
       o += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t c = o / rows, r = o % rows;
    local += out[o] != byte_of(r * cols + c);
  }
  if (local) atomicAdd(wrong, local);
}

class Large2d : public ::testing::TestWithParam<std::pair<std::uint64_t, std::uint64_t>> {};

// Primes (shift8 / shift16) and 16-byte multiples (bulk8's tensor copies): > 2^31 elements each.
INSTANTIATE_TEST_SUITE_P(Large, Large2d,
                         ::testing::Values(std::pair<std::uint64_t, std::uint64_t>{46349, 46351},
                                           std::pair<std::uint64_t, std::uint64_t>{46352, 46336}));

TEST_P(Large2d, MoreThan2Pow31ElementsTransposeCorrectly) {
  const auto [rows, cols] = GetParam();
  ASSERT_GT(rows * cols, std::uint64_t{1} << 31);
  size_t free_b = 0, total_b = 0;
  CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < 2 * rows * cols + (std::size_t{1} << 28)) GTEST_SKIP() << "not enough device memory";
  device_buffer d_in(rows * cols), d_out(rows * cols);
  unsigned long long* d_wrong = nullptr;
  CUDA_OK(cudaMalloc(&d_wrong, sizeof(unsigned long long)));
  CUDA_OK(cudaMemset(d_wrong, 0, sizeof(unsigned long long)));
  fill_bytes<<<4096, 256>>>(d_in.bytes(), rows * cols);
  CUDA_OK(cudaMemset(d_out.ptr, poison, rows * cols));
  const auto s = xpose::transpose(d_in.ptr, d_out.ptr, static_cast<std::int64_t>(rows),
                                  static_cast<std::int64_t>(cols), 1);
  ASSERT_TRUE(s) << s;
  count_wrong<<<4096, 256>>>(d_out.bytes(), rows, cols, d_wrong);
  unsigned long long wrong = 1;
  CUDA_OK(cudaMemcpy(&wrong, d_wrong, sizeof(wrong), cudaMemcpyDeviceToHost));
  EXPECT_EQ(wrong, 0ull);
  cudaFree(d_wrong);
}

}  // namespace
