// The CPU executor at every SIMD level (cpu_features.hpp): each level the CPU has is forced in turn, and the
// micro-kernels, the cached and the streaming macro-kernels are compared with a naive reference. A level the
// CPU (or the build) lacks is reported as skipped — never silently passed.
//
// Streaming normally starts at outputs larger than the last-level cache; these tests force it on
// (set_cpu_streaming_mode) so that small problems cover its staging, line ownership and edge paths.
//
// The random seed is fixed and printed; set XPOSE_TEST_SEED to replay another.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "common/forced_cpu_level.hpp"
#include "common/reference.hpp"
#include "common/test_seed.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/kernel_table.hpp"
#include "cpu/macrokernels.hpp"
#include "cpu/tuning_cpu.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::problem;
using xpose::detail::cpu_isa;
using xpose::detail::streaming_mode;

constexpr std::uint64_t default_seed = 20240612;

using xpose::test::forced_level;

unsigned char poison(std::int64_t i) { return static_cast<unsigned char>(0x5A ^ (i * 13)); }

// Runs `p` with `threads` threads on views placed `misalign` bytes into guarded buffers; compares the whole
// output buffer (gaps and guards must keep their poison) with the reference. Returns "" or a description.
std::string check(const problem& p, std::mt19937_64& rng, std::int64_t in_misalign, std::int64_t out_misalign,
                  int threads) {
  auto plan = xpose::make_plan(p);
  if (!plan) return plan.error().code() == xpose::status_code::unsupported ? "" : "make_plan failed";
  constexpr std::int64_t guard = 64;
  const auto oshape = xpose::test::out_shape(p);
  const auto in_s = p.in_strides.empty() ? xpose::test::packed_strides(p.shape) : p.in_strides;
  const auto out_s = p.out_strides.empty() ? xpose::test::packed_strides(oshape) : p.out_strides;
  const std::int64_t in_span = xpose::test::span_bytes(p.shape, in_s, p.elem_bytes);
  const std::int64_t out_span = xpose::test::span_bytes(oshape, out_s, p.elem_bytes);
  // Both views start their misalignment past a 64-byte boundary: misalignment 0 is on the line, and a multiple
  // of the unit takes the paths for rows at one phase of the line (column tiles from the input's first line
  // boundary, rows shifted to the output's).
  std::vector<unsigned char> in_mem(static_cast<std::size_t>(guard + in_misalign + in_span + guard) + 64);
  const std::size_t in_lead = 64 - reinterpret_cast<std::uintptr_t>(in_mem.data()) % 64;
  const std::span<unsigned char> in(in_mem.data() + in_lead, in_mem.size() - 64);
  for (auto& b : in) b = static_cast<unsigned char>(rng() | 1);
  // The output view starts `out_misalign` bytes after a 64-byte boundary, so that misalign 0 with whole-line
  // rows takes the streaming path that stores straight from registers.
  const std::size_t out_size = static_cast<std::size_t>(guard + out_misalign + out_span + guard);
  std::vector<unsigned char> out_mem(out_size + 64), expected(out_size);
  unsigned char* out = out_mem.data() + (64 - reinterpret_cast<std::uintptr_t>(out_mem.data()) % 64);
  for (std::size_t i = 0; i < out_size; ++i) out[i] = expected[i] = poison(static_cast<std::int64_t>(i));
  unsigned char* in_view = in.data() + guard + in_misalign;
  xpose::test::reference_permute(p, in_view, expected.data() + guard + out_misalign);
  const xpose::status s = plan->execute_host(in_view, out + guard + out_misalign, threads);
  if (!s) return "execute_host failed";
  const auto diff = std::mismatch(out, out + out_size, expected.begin());
  if (diff.first == out + out_size) return "";
  std::ostringstream os;
  os << "byte " << (diff.first - out) - guard - out_misalign << " of the output view is "
     << int(*diff.first) << ", expected " << int(*diff.second) << " (threads " << threads << ", misalign "
     << in_misalign << "/" << out_misalign << ")\n  " << p << "\n" << *plan;
  return os.str();
}

// ---- the levels --------------------------------------------------------------------------------------------

class CpuIsaLevel : public ::testing::TestWithParam<cpu_isa> {
 protected:
  void SetUp() override {
    if (!xpose::detail::cpu_isa_supported(GetParam())) {
      GTEST_SKIP() << "this CPU (or build) has no " << xpose::detail::to_string(GetParam()) << " (best: "
                   << xpose::detail::to_string(xpose::detail::best_cpu_isa()) << ")";
    }
  }
};

std::string level_name(const ::testing::TestParamInfo<cpu_isa>& info) { return xpose::detail::to_string(info.param); }

// The level's tile kernels on their own, for every unit size: random tile shapes and row pitches, full
// blocks and ragged edges, plain and streaming stores (aligned destinations for the latter).
TEST_P(CpuIsaLevel, TileKernelsMatchTheReference) {
  const auto& kernels = xpose::detail::kernels_for(GetParam());
  std::mt19937_64 rng(xpose::test::test_seed(default_seed));
  // Every unit the executor has a kernel for at this level (unit_kernel: the level's own, or the portable
  // one), incl. units over 16 bytes in one and several 64-byte pieces (AVX-512's masked wide_units), with
  // each word size that divides them.
  for (const std::int64_t u : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 20, 28, 36, 40, 17, 63, 80, 100, 130, 200}) {
    const std::int64_t word = u % 16 == 0 ? 16 : u % 8 == 0 ? 8 : u % 4 == 0 ? 4 : u % 2 == 0 ? 2 : 1;
    const xpose::detail::tile_kernel k = xpose::detail::unit_kernel(kernels, u, word);
    for (int it = 0; it < 60; ++it) {
      const bool stream = k.tile_stream != nullptr && it % 3 == 0;
      const std::int64_t nr = 1 + static_cast<std::int64_t>(rng() % 80), nc = 1 + static_cast<std::int64_t>(rng() % 80);
      const std::int64_t in_rs = nc * u + static_cast<std::int64_t>(rng() % 40);
      const std::int64_t out_rs = stream ? (nr * u + 63) / 64 * 64 : nr * u + static_cast<std::int64_t>(rng() % 40);
      const std::int64_t in_off = static_cast<std::int64_t>(rng() % 64);
      std::vector<unsigned char> in(static_cast<std::size_t>(in_off + nr * in_rs));
      for (auto& b : in) b = static_cast<unsigned char>(rng());
      alignas(64) static unsigned char out[80 * 240 * 80 + 64], expected[80 * 240 * 80 + 64];
      const std::size_t out_bytes = static_cast<std::size_t>(nc * out_rs);
      std::memset(out, 0xA5, out_bytes);
      std::memset(expected, 0xA5, out_bytes);
      for (std::int64_t r = 0; r < nr; ++r)
        for (std::int64_t c = 0; c < nc; ++c)
          std::memcpy(expected + c * out_rs + r * u, in.data() + in_off + r * in_rs + c * u, static_cast<std::size_t>(u));
      (stream ? k.tile_stream : k.tile)(in.data() + in_off, in_rs, out, out_rs, nr, nc, u / word, nullptr);
      if (stream) kernels.fence != nullptr ? kernels.fence() : void();
      ASSERT_EQ(std::memcmp(out, expected, out_bytes), 0)
          << "unit " << u << " tile " << nr << " x " << nc << " in_rs " << in_rs << " out_rs " << out_rs
          << (stream ? " (streaming stores)" : "");
    }
  }
}

// Whole problems through the executor, cached and streaming: every element size, shapes at and around the
// block and tile sizes, primes, thin planes, pitched views, batches, misaligned pointers, 1 and 2 threads.
TEST_P(CpuIsaLevel, ProblemsMatchTheReferenceCachedAndStreaming) {
  const std::uint64_t seed = xpose::test::announced_test_seed(default_seed);
  std::mt19937_64 rng(seed);
  const std::int64_t sizes[] = {1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 257, 331};
  const std::int64_t elems[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 5};
  for (const streaming_mode mode : {streaming_mode::never, streaming_mode::always}) {
    const forced_level level(GetParam(), mode);
    ASSERT_TRUE(level.ok());
    int checked = 0;
    for (const std::int64_t eb : elems) {
      for (int it = 0; it < 24; ++it) {
        const std::int64_t r = sizes[rng() % std::size(sizes)], c = sizes[rng() % std::size(sizes)];
        problem p{{r, c}, {1, 0}, eb, {}, {}};
        switch (it % 4) {
          case 1: p.in_strides = {c + static_cast<std::int64_t>(rng() % 5), 1}; break;     // pitched input
          case 2: p.out_strides = {r + static_cast<std::int64_t>(rng() % 5), 1}; break;    // pitched output
          case 3: p = {{1 + static_cast<std::int64_t>(rng() % 3), r, c}, {0, 2, 1}, eb, {}, {}}; break;  // batch
          default: break;
        }
        const std::string err = check(p, rng, static_cast<std::int64_t>(rng() % 64),
                                      static_cast<std::int64_t>(rng() % 64), 1 + it % 2);
        ASSERT_EQ(err, "") << "level " << xpose::detail::to_string(GetParam()) << ", streaming "
                           << (mode == streaming_mode::always ? "on" : "off");
        ++checked;
      }
    }
    // Thin planes (AoS <-> SoA: the (de)interleave kernels up to k = 16, tiles beyond) and rows exactly one
    // line long.
    for (const std::int64_t eb : {1, 2, 4, 8, 16, 3, 12}) {
      for (const std::int64_t k : {2, 3, 4, 5, 8, 13, 16, 17}) {
        ASSERT_EQ(check({{1003, k}, {1, 0}, eb, {}, {}}, rng, 0, 0, 2), "");
        ASSERT_EQ(check({{k, 1003}, {1, 0}, eb, {}, {}}, rng, 8, 0, 1), "");
      }
      ASSERT_EQ(check({{64 / eb + 1, 300}, {1, 0}, eb, {}, {}}, rng, 0, 0, 1), "");
    }
    // 8 and 16 byte planes (the AVX-512 levels' 16 x 16 byte-transpose network): several 64 KiB chunks and a
    // ragged end, a pitched output (AoS -> SoA) or input (SoA -> AoS), batches of planes.
    // 8 and 16 planes of 2-byte units: the 8 x 8 word network, the same cases.
    for (const auto [eb, k] : {std::pair<std::int64_t, std::int64_t>{1, 8}, {1, 16}, {2, 8}, {2, 16}}) {
      ASSERT_EQ(check({{70001, k}, {1, 0}, eb, {}, {70010, 1}}, rng, 3, 5, 2), "");
      ASSERT_EQ(check({{k, 70001}, {1, 0}, eb, {70013, 1}, {}}, rng, 7, 0, 2), "");
      ASSERT_EQ(check({{3, 5000, k}, {0, 2, 1}, eb, {}, {}}, rng, 0, 1, 2), "");
      ASSERT_EQ(check({{3, k, 5000}, {0, 2, 1}, eb, {}, {}}, rng, 1, 0, 1), "");
    }
    // Thin planes whose output rows are off the line (n U not a multiple of 64, bases off it), several 64 KiB
    // chunks each: streamed through the stage in pieces (run_thin), the partial lines carried from piece to
    // piece and stored plainly at the chunks' ends; both directions, batches, 1 and 2 threads; 16-byte units
    // through the 8-byte permutes in granule pairs (AVX-512).
    if (mode == streaming_mode::always)
      for (const std::int64_t eb : {1, 2, 4, 8, 16})
        for (const std::int64_t k : {2, 3, 5, 7, 8}) {
          const std::int64_t n = 40009 + 8 * k;
          ASSERT_EQ(check({{n, k}, {1, 0}, eb, {}, {}}, rng, 0, static_cast<std::int64_t>(rng() % 64), 1 + k % 2), "");
          ASSERT_EQ(check({{k, n}, {1, 0}, eb, {}, {}}, rng, 0, static_cast<std::int64_t>(rng() % 64), 2), "");
          ASSERT_EQ(check({{2, n / 2, k}, {0, 2, 1}, eb, {}, {}}, rng, 3, 1 + static_cast<std::int64_t>(rng() % 63), 2), "");
        }
    // Planes whose output rows are whole lines (n = 17 x 64 units): the thin kernels' streaming stores, both
    // directions, the byte kernels' k limits (AVX-512: 14 one way, 11 the other; VBMI: 16 and 11) on either
    // side.
    for (const std::int64_t eb : {1, 2})
      for (const std::int64_t k : {2, 3, 7, 11, 12, 14, 15, 16, 17}) {
        ASSERT_EQ(check({{1088, k}, {1, 0}, eb, {}, {}}, rng, 0, 0, 2), "");
        ASSERT_EQ(check({{k, 1088}, {1, 0}, eb, {}, {}}, rng, 0, 0, 1), "");
      }
    EXPECT_GT(checked, 200);
  }
}

// Problems large enough for several streaming tiles per thread, on every level (the paths above have at most
// a few tiles): line-aligned rows (streamed straight from registers), odd shapes (the carry kernel between
// the first and last tiles, staging at the plane edges), odd unit sizes (staging), batches (small planes
// streamed whole when their output is whole lines, else tiles).
TEST_P(CpuIsaLevel, MultiTileProblemsStreaming) {
  std::mt19937_64 rng(xpose::test::test_seed(default_seed) + 1);
  const forced_level level(GetParam(), streaming_mode::always);
  ASSERT_TRUE(level.ok());
  for (const auto& p : {problem{{1024, 768}, {1, 0}, 4, {}, {}}, problem{{1021, 771}, {1, 0}, 4, {}, {}},
                        problem{{1536, 1024}, {1, 0}, 1, {}, {}}, problem{{1531, 1029}, {1, 0}, 1, {}, {}},
                        problem{{509, 517}, {1, 0}, 16, {}, {}}, problem{{700, 600}, {1, 0}, 3, {}, {}},
                        problem{{1027, 1021}, {1, 0}, 2, {}, {}}, problem{{613, 389}, {1, 0}, 8, {}, {}},
                        problem{{2, 600, 517}, {0, 2, 1}, 4, {}, {}},
                        // small planes streamed whole (run_planes), and thin planes of whole blocks
                        problem{{40, 32, 32}, {0, 2, 1}, 4, {}, {}}, problem{{9, 64, 64}, {0, 2, 1}, 1, {}, {}},
                        problem{{3, 4, 16, 256}, {1, 0, 3, 2}, 4, {}, {}}, problem{{5, 8, 8}, {0, 2, 1}, 8, {}, {}},
                        problem{{7, 16, 24}, {0, 2, 1}, 2, {}, {}}, problem{{4, 2000, 16}, {0, 2, 1}, 4, {}, {}},
                        // input rows 4 KiB-aliased: shorter tiles (choose_transpose_tuning)
                        problem{{301, 1024}, {1, 0}, 4, {}, {}}, problem{{203, 4096}, {1, 0}, 1, {}, {}},
                        problem{{77, 65536}, {1, 0}, 2, {}, {}},
                        // output rows of 8 KiB or more: 128-byte runs, tiles 4x as wide
                        problem{{2300, 520}, {1, 0}, 4, {}, {}}, problem{{4100, 301}, {1, 0}, 2, {}, {}},
                        problem{{1031, 263}, {1, 0}, 8, {}, {}},
                        // bytes from 4 KiB-aliased rows into output rows of 2 KiB or more: 64-byte runs
                        problem{{2100, 4096}, {1, 0}, 1, {}, {}}}) {
    ASSERT_EQ(check(p, rng, 0, 0, 2), "");
    ASSERT_EQ(check(p, rng, 4, 12, 1), "");
  }
  // Output rows of whole lines at a base off the line (every row at one phase): the direct kernel on rows
  // shifted by that phase, the plane's first and last tiles staged; every unit size, phases of one unit up to
  // 48 bytes, a batch whose planes start at different phases, 1 and 2 threads. Inputs off the line the same
  // way: column tiles from the input's first line boundary (a narrow first column tile).
  for (const auto& p : {problem{{1024, 768}, {1, 0}, 4, {}, {}}, problem{{1536, 1024}, {1, 0}, 1, {}, {}},
                        problem{{1024, 640}, {1, 0}, 2, {}, {}}, problem{{640, 512}, {1, 0}, 8, {}, {}},
                        problem{{512, 384}, {1, 0}, 16, {}, {}}, problem{{3, 640, 520}, {0, 2, 1}, 8, {}, {520 * 640 + 1, 640, 1}},
                        problem{{2, 1024, 700}, {0, 2, 1}, 1, {}, {700 * 1024 + 3, 1024, 1}}})
    for (const std::int64_t shift : {p.elem_bytes, std::int64_t{16}, std::int64_t{48}})
      for (const int threads : {1, 2}) {
        ASSERT_EQ(check(p, rng, 0, shift, threads), "");
        ASSERT_EQ(check(p, rng, shift, 0, threads), "");
        ASSERT_EQ(check(p, rng, 64 - shift, shift, threads), "");
      }
}

// Row gathers (a permutation that keeps its fastest axis) with streamed runs (rows_stream: runs of >= 512 bytes
// or of whole half-lines from 128 on), streaming forced on: every output line whole inside a run written by the
// level's non-temporal stores, the partial ones at each run's ends plainly; run lengths at every phase of the
// line (and ones that do not stream), runs adjacent in the output and apart (a pitched output), views off the
// line on both sides, 1 and 2 threads. The guards and the output's gaps must keep their poison.
TEST_P(CpuIsaLevel, RowGathersStreamedAtEveryPhase) {
  const std::uint64_t seed = xpose::test::announced_test_seed(default_seed);
  std::mt19937_64 rng(seed);
  const forced_level level(GetParam(), streaming_mode::always);
  ASSERT_TRUE(level.ok());
  int streamed = 0;
  for (const std::int64_t run : {128, 160, 192, 200, 224, 512, 600, 1252, 2048, 136}) {
    ASSERT_EQ(run % 4, 0);
    streamed += xpose::detail::rows_stream(run, std::int64_t{1} << 30, xpose::detail::host_caches()) ? 1 : 0;
    const std::int64_t n = run / 4;  // fp32 units a run
    for (const auto& p : {problem{{7, 9, n}, {1, 0, 2}, 4, {}, {}},                                 // runs adjacent
                          problem{{5, 3, 4, n}, {2, 0, 1, 3}, 4, {}, {}},
                          problem{{6, 5, n}, {1, 0, 2}, 4, {}, {6 * (n + 3) + 1, n + 3, 1}}})  // pitched output
      for (const int threads : {1, 2}) {
        ASSERT_EQ(check(p, rng, static_cast<std::int64_t>(rng() % 64), static_cast<std::int64_t>(rng() % 64), threads), "")
            << "run of " << run << " bytes";
        ASSERT_EQ(check(p, rng, 0, 0, threads), "") << "run of " << run << " bytes";
      }
  }
  EXPECT_EQ(streamed, 8) << "runs that stream (every one here but 136 and 200 bytes)";
}

// N-d permutations whose batch axes continue the planes' output rows, merged into them with packed input
// tiles (macrokernel_transpose2d.cpp, row_merge): short output rows (3, 5, 64 units), input rows a multiple of
// 4 KiB apart, several merged axes, a merged plane that is not a multiple of the block, a remaining batch
// axis; cached and streaming, 1 and 2 threads, misaligned views.
TEST_P(CpuIsaLevel, NdPermutationsWithMergedOutputRows) {
  std::mt19937_64 rng(xpose::test::test_seed(default_seed) + 2);
  for (const streaming_mode mode : {streaming_mode::never, streaming_mode::always}) {
    const forced_level level(GetParam(), mode);
    ASSERT_TRUE(level.ok());
    for (const std::int64_t eb : {1, 2, 4, 8, 16, 3}) {
      for (const auto& p : {problem{{3, 40, 273}, {2, 1, 0}, eb, {}, {}},
                            problem{{64, 8, 4, 3, 64}, {4, 3, 2, 1, 0}, eb, {}, {}},
                            problem{{32, 16, 1024}, {2, 1, 0}, eb, {}, {}},
                            problem{{5, 7, 3, 129}, {3, 1, 2, 0}, eb, {}, {}},
                            problem{{2, 3, 5, 7, 11, 13}, {4, 1, 5, 3, 0, 2}, eb, {}, {}},
                            problem{{6, 17, 5, 19}, {0, 3, 2, 1}, eb, {}, {}}}) {
        ASSERT_EQ(check(p, rng, 0, 0, 2), "") << "streaming " << (mode == streaming_mode::always ? "on" : "off");
        ASSERT_EQ(check(p, rng, 4, 12, 1), "") << "streaming " << (mode == streaming_mode::always ? "on" : "off");
      }
    }
  }
}

// N-d permutations with a compound column side whose fastest axis is shorter than 4 lines: the column axes
// merged into one contiguous input side, each output row at its own address (cpu_transpose2d_merged_cols):
// [rows, j, c] reversed (the HWC -> CWH shape), column sides of three axes, compound row sides (outer row axes
// as batch, or merged back into the rows when the fastest is short), extents that end mid-tile; cached and streaming (owned lines at every output alignment),
// 1 and 2 threads, misaligned views. The test checks that the cases do take that path.
// Boxes are off here: several of these shapes take them by default (NdPermutationsAsBoxes).
TEST_P(CpuIsaLevel, NdPermutationsWithMergedColumns) {
  std::mt19937_64 rng(xpose::test::test_seed(default_seed) + 3);
  int merged = 0, merged_rows = 0;
  const xpose::test::forced_box_mode no_boxes(xpose::detail::box_mode::never);
  for (const streaming_mode mode : {streaming_mode::never, streaming_mode::always}) {
    const forced_level level(GetParam(), mode);
    ASSERT_TRUE(level.ok());
    for (const std::int64_t eb : {1, 2, 4, 8, 16, 3}) {
      for (const auto& p : {problem{{273, 40, 3}, {2, 1, 0}, eb, {}, {}},
                            problem{{300, 70, 2}, {2, 1, 0}, eb, {}, {}},
                            problem{{129, 9, 5, 2}, {3, 2, 1, 0}, eb, {}, {}},
                            problem{{5, 131, 17, 3}, {0, 3, 2, 1}, eb, {}, {}},
                            problem{{7, 61, 33, 3}, {3, 2, 0, 1}, eb, {}, {}},
                            problem{{33, 20, 16}, {2, 1, 0}, eb, {}, {}},
                            // compound row sides whose fastest axis is short: rows merged back (merge_output_rows)
                            problem{{6, 4, 5, 7, 16, 15}, {5, 0, 4, 2, 3, 1}, eb, {}, {}},  // rows [35, 4]
                            problem{{3, 2, 9, 11, 8, 5}, {5, 0, 4, 2, 3, 1}, eb, {}, {}},   // rows [99, 2]
                            problem{{4, 3, 50, 6, 7}, {4, 1, 3, 0, 2}, eb, {}, {}}}) {     // rows [4, 50]
        auto plan = xpose::make_plan(p);
        ASSERT_TRUE(plan) << plan.error();
        const auto& g = plan->geometry();
        if (g.algo == xpose::algorithm::transpose2d && g.col_rank > 1 && g.col_extent[g.col_rank - 1] * eb < 256) ++merged;
        if (g.algo == xpose::algorithm::transpose2d && g.col_rank > 1 && g.row_rank > 1 &&
            g.row_extent[g.row_rank - 1] * eb < 512)
          ++merged_rows;
        ASSERT_EQ(check(p, rng, 0, 0, 2), "") << "streaming " << (mode == streaming_mode::always ? "on" : "off");
        ASSERT_EQ(check(p, rng, 4, 12, 1), "") << "streaming " << (mode == streaming_mode::always ? "on" : "off");
      }
    }
  }
  EXPECT_GE(merged, 20) << "too few cases took the merged-columns path";
  EXPECT_GE(merged_rows, 24) << "too few cases merged a compound row side";
}

// N-d permutations whose plane paths would move short runs, moved as boxes (macrokernel_box.cpp): compound
// sides of 2-4-unit axes on either side, batches of small planes scattered in the input, both runs short;
// every unit size (3- and 12-byte elements as boxes of their words), a ragged split (an axis with no divisor
// that fits: box_tail's second launch), pitched input and output views, cached and streaming stores (runs at
// every line phase), misaligned views, 1 and 2 threads. Each case is run with boxes and without (the plane
// paths) and with boxes through the element gather only (box_mode::gather: where the rule takes the permute
// path, its alternative), all against the reference; the test checks that the cases do take boxes, and the
// permute path on the levels that have a permute kernel.
TEST_P(CpuIsaLevel, NdPermutationsAsBoxes) {
  std::mt19937_64 rng(xpose::test::test_seed(default_seed) + 5);
  int boxed = 0, ragged = 0, permuted = 0, tiled = 0;
  const auto& kernels = xpose::detail::kernels_for(GetParam());
  const bool has_permute = kernels.periodic[0] != nullptr || kernels.periodic[1] != nullptr || kernels.periodic[2] != nullptr;
  for (const streaming_mode mode : {streaming_mode::never, streaming_mode::always}) {
    const forced_level level(GetParam(), mode);
    ASSERT_TRUE(level.ok());
    for (const std::int64_t eb : {1, 2, 4, 8, 16, 3, 12}) {
      std::vector<problem> cases = {
          problem{{3, 3, 2, 5, 11, 7, 2, 51}, {3, 0, 1, 5, 4, 7, 2, 6}, eb, {}, {}},  // rows [2, 2], cols [51]
          problem{{5, 5, 4, 7, 5, 3, 32}, {1, 3, 2, 5, 0, 6, 4}, eb, {}, {}},      // rows [5], cols [3, 32]
          problem{{3, 6, 7, 3, 40, 3, 3, 3}, {1, 2, 0, 7, 6, 4, 5, 3}, eb, {}, {}},  // cols [3, 3]
          problem{{7, 12, 9, 5, 44}, {1, 0, 2, 4, 3}, eb, {}, {}},                // 5 x 44 planes, scattered
          problem{{4099, 10, 2, 2}, {2, 0, 3, 1}, eb, {}, {}},                     // 4099: ragged boxes
          problem{{30, 3, 7, 28, 2, 40}, {2, 3, 1, 4, 5, 0}, eb, {}, {}},          // batches of 2-D tiles
          // pitched views: the r7 shape with padded input rows, and an output with gaps between its planes
          problem{{5, 5, 4, 7, 5, 3, 32}, {1, 3, 2, 5, 0, 6, 4}, eb, {75000, 15000, 3750, 535, 107, 33, 1}, {}},
          problem{{7, 12, 9, 5, 44}, {1, 0, 2, 4, 3}, eb, {}, {7 * 2036 + 40, 2036, 224, 5, 1}}};
      for (const auto& p : cases) {
        auto plan = xpose::make_plan(p);
        ASSERT_TRUE(plan) << plan.error();
        xpose::detail::box_plan b;
        if (xpose::detail::cpu_box_plan(plan->geometry(), b)) {
          ++boxed;
          if (b.tail_extent > 0) ++ragged;
          if (xpose::detail::cpu_box_permutes(b, kernels)) ++permuted;
          if (xpose::detail::cpu_box_tiles(b)) ++tiled;
        }
        const char* how = mode == streaming_mode::always ? "streaming on" : "streaming off";
        ASSERT_EQ(check(p, rng, 0, 0, 2), "") << how;
        ASSERT_EQ(check(p, rng, 5, 9, 1), "") << how;
        {
          const xpose::test::forced_box_mode gather_only(xpose::detail::box_mode::gather);
          ASSERT_EQ(check(p, rng, 3, 1, 2), "") << how << ", boxes through the gather";
        }
        const xpose::test::forced_box_mode no_boxes(xpose::detail::box_mode::never);
        ASSERT_EQ(check(p, rng, 0, 4, 2), "") << how << ", boxes off";
      }
    }
  }
  EXPECT_GE(boxed, 70) << "too few cases took boxes";
  EXPECT_GE(ragged, 8) << "too few cases split an axis ragged";
  std::printf("boxes %d, through the permute path %d, as tiles %d\n", boxed, permuted, tiled);
  EXPECT_GE(tiled, 4) << "too few cases took the tiles path";
  if (has_permute) EXPECT_GE(permuted, 8) << "too few cases took the permute path";
  else EXPECT_EQ(permuted, 0);
}

// Periodic permutations (macrokernel_periodic.cpp), on the levels that have the permute kernel (AVX-512: 2- and
// 4-byte granules, VBMI: bytes): packed batches of small planes (every unit size, odd planes with periods of up
// to 16 KiB, batches that end mid-period, N-d permutations that reduce to such batches) and thin planes of
// units without a (de)interleave kernel (3, 5, 6, 7, 12 bytes; n x k and k x n, odd n so that output rows
// start at every phase of a line, pitched rows on the strided side, a batch); an output that starts off a
// line (the head copied byte by byte) or off the granule (another path); 1 and 2 threads, plain and streaming
// stores. Each case runs through the path itself, then through execute_host. Batches of planes of <= 64 bytes
// must take the path wherever the level's granule allows.
TEST_P(CpuIsaLevel, PeriodicPermutationsOfSmallAndThinPlanes) {
  std::mt19937_64 rng(xpose::test::test_seed(default_seed) + 4);
  int taken = 0, thin_taken = 0;
  const auto& kernels = xpose::detail::kernels_for(GetParam());
  for (const streaming_mode mode : {streaming_mode::never, streaming_mode::always}) {
    const forced_level level(GetParam(), mode);
    ASSERT_TRUE(level.ok());
    std::vector<problem> cases;
    for (const std::int64_t eb : {1, 2, 4, 8, 16, 3, 12})
      for (const auto& p : {problem{{4099, 3, 16}, {0, 2, 1}, eb, {}, {}}, problem{{6151, 5, 7}, {0, 2, 1}, eb, {}, {}},
                            problem{{8011, 2, 3}, {0, 2, 1}, eb, {}, {}}, problem{{777, 16, 8}, {0, 2, 1}, eb, {}, {}},
                            problem{{31, 37, 2, 3, 4}, {0, 1, 4, 2, 3}, eb, {}, {}},
                            problem{{300, 4, 32}, {0, 2, 1}, eb, {}, {}}})
        cases.push_back(p);
    for (const std::int64_t eb : {3, 5, 6, 7, 12})
      for (const std::int64_t k : {2, 3, 4, 7}) {
        const std::int64_t n = 40001 / eb;
        cases.push_back(problem{{n, k}, {1, 0}, eb, {}, {}});
        cases.push_back(problem{{k, n}, {1, 0}, eb, {}, {}});
        cases.push_back(problem{{n, k}, {1, 0}, eb, {}, {n + 3, 1}});  // pitched output rows
        cases.push_back(problem{{k, n}, {1, 0}, eb, {n + 5, 1}, {}});  // pitched input rows
        if (k == 3) cases.push_back(problem{{2, n, k}, {0, 2, 1}, eb, {}, {}});
      }
    for (const problem& p : cases) {
      auto plan = xpose::make_plan(p);
      ASSERT_TRUE(plan) << plan.error();
      const bool thin = p.shape.size() == 2;
      for (const std::int64_t out_misalign : {std::int64_t{0}, 4 * p.elem_bytes, std::int64_t{1}}) {
        const std::int64_t in_bytes = plan->in_span_bytes(), out_bytes = plan->out_span_bytes();
        std::vector<unsigned char> in(static_cast<std::size_t>(in_bytes));
        for (auto& b : in) b = static_cast<unsigned char>(rng() | 1);
        std::vector<unsigned char> mem(static_cast<std::size_t>(out_bytes + 256)), expected(mem.size());
        unsigned char* base = mem.data() + (64 - reinterpret_cast<std::uintptr_t>(mem.data()) % 64);
        const std::size_t span = static_cast<std::size_t>(out_bytes + 128);
        for (std::size_t i = 0; i < span; ++i) base[i] = expected[i] = poison(static_cast<std::int64_t>(i));
        xpose::test::reference_permute(p, in.data(), expected.data() + 64 + out_misalign);
        const bool ran = xpose::detail::cpu_transpose2d_periodic(plan->geometry(), in.data(), base + 64 + out_misalign,
                                                                  1 + static_cast<int>(rng() % 2));
        bool granule_ok = false;  // the level has a permute whose granule divides the unit and the addresses
        for (int lg = 0; lg < 3; ++lg)
          granule_ok = granule_ok || (kernels.periodic[lg] != nullptr && (out_misalign | p.elem_bytes) % (1 << lg) == 0);
        if (!ran) {
          EXPECT_FALSE(!thin && granule_ok && plan->geometry().rows * plan->geometry().cols * p.elem_bytes <= 64) << p;
          continue;
        }
        ++(thin ? thin_taken : taken);
        ASSERT_TRUE(kernels.periodic[0] != nullptr || kernels.periodic[1] != nullptr || kernels.periodic[2] != nullptr);
        ASSERT_TRUE(std::equal(base, base + span, expected.begin()))
            << p << " output misaligned by " << out_misalign << ", streaming "
            << (mode == streaming_mode::always ? "on" : "off");
      }
      ASSERT_EQ(check(p, rng, 0, 0, 2), "");
      ASSERT_EQ(check(p, rng, 5, 12, 1), "");
    }
  }
  if (kernels.periodic[0] != nullptr || kernels.periodic[1] != nullptr || kernels.periodic[2] != nullptr) {
    EXPECT_GE(taken, 60) << "too few batches of planes took the periodic path";
    EXPECT_GE(thin_taken, 40) << "too few thin planes took the periodic path";
  } else {
    EXPECT_EQ(taken + thin_taken, 0);
  }
  std::cout << "[ periodic ] " << taken << " batches of planes, " << thin_taken << " thin planes\n";
}

INSTANTIATE_TEST_SUITE_P(Levels, CpuIsaLevel,
                         ::testing::Values(cpu_isa::scalar, cpu_isa::sse2, cpu_isa::avx2, cpu_isa::avx512,
                                           cpu_isa::avx512vbmi),
                         level_name);

// ---- selection -----------------------------------------------------------------------------------------------

TEST(CpuIsa, NamesRoundTrip) {
  for (int i = 0; i < xpose::detail::cpu_isa_count; ++i) {
    const auto isa = static_cast<cpu_isa>(i);
    cpu_isa parsed = cpu_isa::scalar;
    ASSERT_TRUE(xpose::detail::parse_cpu_isa(xpose::detail::to_string(isa), parsed));
    EXPECT_EQ(parsed, isa);
  }
  cpu_isa untouched = cpu_isa::sse2;
  EXPECT_FALSE(xpose::detail::parse_cpu_isa("avx-512", untouched));
  EXPECT_FALSE(xpose::detail::parse_cpu_isa("", untouched));
  EXPECT_FALSE(xpose::detail::parse_cpu_isa(nullptr, untouched));
  EXPECT_EQ(untouched, cpu_isa::sse2);
}

TEST(CpuIsa, ActiveLevelIsSupportedAndUnsupportedLevelsAreRefused) {
  EXPECT_TRUE(xpose::detail::cpu_isa_supported(xpose::detail::active_cpu_isa()));
  EXPECT_TRUE(xpose::detail::cpu_isa_supported(cpu_isa::scalar));
  const cpu_isa before = xpose::detail::active_cpu_isa();
  for (int i = 0; i < xpose::detail::cpu_isa_count; ++i) {
    const auto isa = static_cast<cpu_isa>(i);
    if (xpose::detail::cpu_isa_supported(isa)) continue;
    EXPECT_FALSE(xpose::detail::set_cpu_isa(isa)) << xpose::detail::to_string(isa);
    EXPECT_EQ(xpose::detail::active_cpu_isa(), before);
  }
  std::cout << "[ levels   ] best " << xpose::detail::to_string(xpose::detail::best_cpu_isa()) << ", active "
            << xpose::detail::to_string(before) << '\n';
}

TEST(CpuIsa, CacheSizesArePlausible) {
  const auto& c = xpose::detail::host_caches();
  EXPECT_GE(c.l1d, 4 << 10);
  EXPECT_GE(c.l2, c.l1d);
  EXPECT_GE(c.llc, c.l2);
  std::cout << "[ caches   ] L1d " << (c.l1d >> 10) << " KiB, L2 " << (c.l2 >> 10) << " KiB, LLC " << (c.llc >> 10)
            << " KiB" << (c.known ? "" : " (defaults)") << '\n';
}

// Merged-column tiles (cpu_transpose2d_merged_cols): output runs of 512 bytes and input runs of 256 while they
// fit the staging buffer; else, when streamed, the output runs shrink only to 448 bytes before the input runs do
// (to a line or a register block), so 1- and 2-byte units (blocks and staging margin of 64 / 32 units) keep long
// output runs.
TEST(CpuTuning, MergedColumnTilesKeepOutputRunsBeforeInputRuns) {
  using xpose::detail::choose_merged_cols_tiles;
  using xpose::detail::staging_bytes;
  struct shape {
    std::int64_t unit, block, extra, tile_r, tile_c;
  };
  // Streaming tiles (extra = a line of units): u8 448 x 64 (was 64 x 256), fp16 224 x 64 (was 96 x 128); fp32,
  // fp64, c128 as before (112 x 64, 64 x 32, 32 x 16).
  for (const shape& s : {shape{1, 64, 64, 448, 64}, shape{2, 32, 32, 224, 64}, shape{4, 16, 16, 112, 64},
                         shape{8, 8, 8, 64, 32}, shape{16, 4, 4, 32, 16}}) {
    SCOPED_TRACE(::testing::Message() << "unit " << s.unit);
    const auto t = choose_merged_cols_tiles(1 << 20, 1 << 20, s.unit, s.block, s.block, true);
    EXPECT_EQ(t.tile_r, s.tile_r);
    EXPECT_EQ(t.tile_c, s.tile_c);
    EXPECT_LE(t.tile_c * (t.tile_r + s.extra) * s.unit, staging_bytes);
    EXPECT_GE(t.tile_r * s.unit, xpose::detail::merged_cols_min_out_run);
  }
  // Cached tiles (not streamed, no margin): the rows shrink first, as before (u8 128 x 256).
  const auto cached = choose_merged_cols_tiles(1 << 20, 1 << 20, 1, 64, 64, false);
  EXPECT_EQ(cached.tile_r, 128);
  EXPECT_EQ(cached.tile_c, 256);
  // Short sides are taken whole; a unit too large for the buffer gets no tile.
  const auto narrow = choose_merged_cols_tiles(72, 40, 4, 16, 16, true);
  EXPECT_EQ(narrow.tile_r, 72);
  EXPECT_EQ(narrow.tile_c, 40);
  EXPECT_EQ(choose_merged_cols_tiles(10, 10, 1 << 16, 1, 1, true).tile_r, 0);
}

// The streaming tiles' output runs by vendor (tuning_cpu.hpp): planes of long output rows read from plain input
// rows take short runs (128 bytes: a quarter of the input rows a tile, 4x the columns) on Intel, and on AMD only
// for 8- and 16-byte units; 1-4-byte units there keep 512-byte runs.
TEST(CpuTuning, ShortOutputRunsOnIntelAndOnAmdForWideUnitsOnly) {
  using xpose::detail::choose_transpose_tuning;
  using xpose::detail::cpu_vendor;
  const xpose::detail::cpu_caches caches{};  // 48 KiB L1d, 1 MiB L2, 32 MiB LLC
  auto tiles = [&](std::int64_t rows, std::int64_t cols, std::int64_t unit, std::int64_t block, cpu_vendor v) {
    return choose_transpose_tuning(rows, cols, unit, block, block, true, caches, cols * unit, v);
  };
  // fp32 8191 x 8193 (odd pitch): 128-byte runs of 32 rows x >= a page of columns, or 512-byte runs of 128 rows.
  const auto intel = tiles(8191, 8193, 4, 16, cpu_vendor::intel), amd = tiles(8191, 8193, 4, 16, cpu_vendor::amd);
  EXPECT_EQ(intel.tile_r, 32);
  EXPECT_GE(intel.tile_c * 4, 4096);
  EXPECT_EQ(amd.tile_r, 128);
  EXPECT_EQ(amd.tile_r * amd.tile_c, intel.tile_r * intel.tile_c) << amd << " / " << intel;  // 128 KiB tiles
  EXPECT_EQ(tiles(8191, 8193, 4, 16, cpu_vendor::other), intel);  // unknown vendors: the Intel rules
  // fp16 and u8 alike; fp64 and c128 the same on both.
  EXPECT_LT(tiles(8191, 8193, 2, 32, cpu_vendor::intel).tile_r, tiles(8191, 8193, 2, 32, cpu_vendor::amd).tile_r);
  EXPECT_LT(tiles(8192, 8192, 1, 64, cpu_vendor::intel).tile_r, tiles(8192, 8192, 1, 64, cpu_vendor::amd).tile_r);
  EXPECT_EQ(tiles(4096, 4096, 8, 8, cpu_vendor::intel), tiles(4096, 4096, 8, 8, cpu_vendor::amd));
  // AMD, 8-byte units whose rows are not whole lines (carry / staged paths): 512-byte runs, not short ones.
  EXPECT_LT(tiles(4096, 4096, 8, 8, cpu_vendor::amd).tile_r, tiles(8191, 4097, 8, 8, cpu_vendor::amd).tile_r);
  EXPECT_EQ(tiles(8191, 4097, 8, 8, cpu_vendor::amd).tile_r, 64);
  EXPECT_EQ(tiles(4096, 4096, 16, 4, cpu_vendor::intel), tiles(4096, 4096, 16, 4, cpu_vendor::amd));
  // Short output rows (< 8 KiB): 512-byte runs everywhere.
  EXPECT_EQ(tiles(1000, 8193, 4, 16, cpu_vendor::intel), tiles(1000, 8193, 4, 16, cpu_vendor::amd));
  // Units moved word by word (block 1): 1024-byte runs from 32 bytes on, 256-byte runs for 9-31 bytes, on
  // every vendor, long output rows or not; register-block kernels of the same sizes keep the runs above.
  for (cpu_vendor v : {cpu_vendor::intel, cpu_vendor::amd}) {
    EXPECT_EQ(tiles(3000, 2000, 80, 1, v).tile_r, 1024 / 80);
    EXPECT_EQ(tiles(100, 2000, 40, 1, v).tile_r, 1024 / 40);
    EXPECT_EQ(tiles(6000, 4000, 20, 1, v).tile_r, 256 / 20);
    EXPECT_EQ(tiles(350, 12000, 28, 1, v).tile_r, 256 / 28);
    EXPECT_EQ(tiles(6000, 4000, 10, 1, v).tile_r, 256 / 10);
    EXPECT_EQ(tiles(6000, 4000, 7, 1, cpu_vendor::amd).tile_r, 512 / 7);  // <= 8 bytes: the rules above
  }
  EXPECT_EQ(tiles(4096, 4096, 16, 4, cpu_vendor::amd).tile_r * 16, 128);  // c128 blocks: short runs on AMD
  const cpu_vendor host = xpose::detail::host_cpu_vendor();
  std::cout << "[ vendor   ] " << (host == cpu_vendor::intel ? "Intel" : host == cpu_vendor::amd ? "AMD" : "other")
            << '\n';
}

}  // namespace
