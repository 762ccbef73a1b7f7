// The wide gather tiles (kernels/wide.cuh's transpose2d_wide_gather_kernel), simulated on the host with the
// kernel's own chunk code (kernels/wide_gather_chunk.hpp) and tile shapes (tuning/wide.hpp): every tile's
// chunk slots, as the block's threads take them, on views at every phase of the 16-byte grid. Each output
// byte must be written exactly once, with the transposed input's byte; nothing outside the output view; whole
// 16-byte stores only on the grid and inside the view.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/test_seed.hpp"
#include "cuda/kernels/wide_gather_chunk.hpp"
#include "cuda/tuning/wide.hpp"

namespace {

using namespace xpose::detail;

struct gather_case {
  std::int64_t batch, rows, cols, unit;  // b x rows x cols units of `unit` bytes -> b x cols x rows
  std::int64_t in_pad, out_pad;          // extra bytes per input / output row (pitches)
  std::int64_t in_shift, out_shift;      // the views' byte offsets past a 16-byte boundary
};

template <int W>
std::string simulate(const gather_case& k, std::mt19937_64& rng) {
  const std::int64_t U = k.unit, in_ld = k.cols * U + k.in_pad, out_ld = k.rows * U + k.out_pad;
  const std::int64_t in_bs = k.rows * in_ld, out_bs = k.cols * out_ld;
  const std::int64_t guard = 64;
  std::vector<unsigned char> in(static_cast<std::size_t>(k.in_shift + k.batch * in_bs + guard));
  for (auto& b : in) b = static_cast<unsigned char>(rng());
  const std::size_t out_size = static_cast<std::size_t>(guard + k.out_shift + k.batch * out_bs + guard);
  std::vector<unsigned char> out(out_size, 0xA5), expected(out_size, 0xA5), writes(out_size, 0);
  const std::int64_t out0 = guard + k.out_shift;  // 16 | guard: the buffer's offsets are its grid
  for (std::int64_t b = 0; b < k.batch; ++b)
    for (std::int64_t r = 0; r < k.rows; ++r)
      for (std::int64_t c = 0; c < k.cols; ++c)
        std::memcpy(&expected[static_cast<std::size_t>(out0 + b * out_bs + c * out_ld + r * U)],
                    &in[static_cast<std::size_t>(k.in_shift + b * in_bs + r * in_ld + c * U)], static_cast<std::size_t>(U));

  unsigned tile_rows = 0, tile_cols = 0;
  wide_gather_tile(k.rows, k.cols, U, tile_rows, tile_cols);
  const unsigned Q = wide_gather_row_chunks(tile_rows * U);
  if (tile_cols * Q > static_cast<unsigned>(wide_policy::threads * wide_policy::gather_chunks))
    return "a tile has more chunk slots than its block's threads take";
  const div32 unit_div(static_cast<unsigned>(U)), line_div(Q);
  for (std::int64_t b = 0; b < k.batch; ++b)
    for (std::int64_t r0 = 0; r0 < k.rows; r0 += tile_rows)
      for (std::int64_t c0 = 0; c0 < k.cols; c0 += tile_cols) {
        const auto nr = static_cast<unsigned>(std::min<std::int64_t>(tile_rows, k.rows - r0));
        const auto nc = static_cast<unsigned>(std::min<std::int64_t>(tile_cols, k.cols - c0));
        const unsigned len = nr * static_cast<unsigned>(U), n = nc * Q;
        for (unsigned i = 0; i < n; ++i) {  // every thread's chunks, in any order
          const unsigned c = line_div.div(i), q = i - c * Q;
          const std::int64_t seg = out0 + b * out_bs + (c0 + c) * out_ld + r0 * U;
          const auto phase = static_cast<unsigned>(seg & 15);
          const std::int64_t src = k.in_shift + b * in_bs + r0 * in_ld + (c0 + c) * U;
          bool misaligned_load = false;
          const wide_chunk ch = wide_gather_chunk<W>(phase, len, q, static_cast<unsigned>(U), unit_div,
                                                     [&](unsigned r, unsigned byte) -> std::uint32_t {
                                                       const std::int64_t at = src + r * in_ld + byte;
                                                       if (at % W != 0) misaligned_load = true;
                                                       std::uint32_t v = 0;
                                                       std::memcpy(&v, &in[static_cast<std::size_t>(at)], W);
                                                       return v;
                                                     });
          if (misaligned_load) return "a word load off its own grid";
          const std::int64_t at = seg - phase + 16 * q;
          if (at % 16 != 0) return "a chunk off the 16-byte grid";
          constexpr unsigned full = (1u << (16 / W)) - 1u;
          for (unsigned w = 0; w < 16 / W; ++w) {
            if (!(ch.valid >> w & 1u)) continue;
            const std::int64_t o = at + w * W;
            if (o < seg || o + W > seg + len) return "a word stored outside its tile's output row";
            for (int byte = 0; byte < W; ++byte) {
              const auto pos = static_cast<std::size_t>(o + byte);
              out[pos] = static_cast<unsigned char>(ch.w[(w * W + byte) / 4] >> (8 * ((w * W + byte) % 4)));
              ++writes[pos];
            }
          }
          if (ch.valid == full && (at < seg || at + 16 > seg + len)) return "a whole chunk reaching past its row";
        }
      }
  for (std::size_t i = 0; i < out_size; ++i) {
    const bool inside = expected[i] != 0xA5 || writes[i] != 0;
    if (writes[i] > 1) return "output byte " + std::to_string(i) + " written " + std::to_string(writes[i]) + " times";
    if (out[i] != expected[i]) return "output byte " + std::to_string(i) + " wrong";
    (void)inside;
  }
  // Every byte of the view written (the poison value could hide a missed byte whose value is 0xA5).
  for (std::int64_t b = 0; b < k.batch; ++b)
    for (std::int64_t c = 0; c < k.cols; ++c)
      for (std::int64_t x = 0; x < k.rows * U; ++x)
        if (writes[static_cast<std::size_t>(out0 + b * out_bs + c * out_ld + x)] != 1) return "an output byte not written";
  return "";
}

TEST(WideGather, SimulatedTilesWriteEveryOutputByteOnce) {
  std::mt19937_64 rng(xpose::test::test_seed(20261129));
  const std::int64_t sides[] = {1, 2, 3, 7, 17, 40, 63};
  for (const std::int64_t unit : {32, 33, 36, 37, 40, 44, 52, 66, 100, 124, 132, 1252}) {
    for (const std::int64_t rows : sides)
      for (const std::int64_t cols : sides) {
        const std::int64_t pad = (rows + cols) % 3;
        const gather_case k{1 + (rows + cols) % 2, rows, cols, unit, pad * 4, (3 - pad) * 4, 4 * (cols % 4), 4 * (rows % 4)};
        SCOPED_TRACE(::testing::Message() << "unit " << unit << " " << rows << " x " << cols << " pads " << k.in_pad
                                          << "/" << k.out_pad << " shifts " << k.in_shift << "/" << k.out_shift);
        if (unit % 4 == 0) ASSERT_EQ(simulate<4>(k, rng), "");
        if (unit % 2 == 0) {
          gather_case k2 = k;
          k2.out_shift += 2, k2.in_pad += 2;
          ASSERT_EQ(simulate<2>(k2, rng), "");
        }
        gather_case k1 = k;
        k1.out_shift += 1, k1.in_shift += 3, k1.out_pad += 5;
        ASSERT_EQ(simulate<1>(k1, rng), "");
      }
  }
  // Tiles of one unit a row at the largest gather unit, and tall / wide matrices of many tiles.
  ASSERT_EQ(simulate<4>({1, 3, 2, 4096, 4, 12, 4, 8}, rng), "");
  ASSERT_EQ(simulate<1>({2, 300, 5, 37, 1, 3, 5, 11}, rng), "");
  ASSERT_EQ(simulate<4>({1, 5, 700, 36, 0, 4, 0, 4}, rng), "");
}

}  // namespace
