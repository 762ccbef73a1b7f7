// The skinny_odd kernels' shared-memory slot layout (cuda/tuning/skinny_odd.hpp), on the host: the bank
// model's wavefront count on known access patterns, and the chosen layouts (slots never overlap, period runs
// aligned where the unpack stores vectors, never modelled worse than the default).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuda/tuning/skinny_odd.hpp"

namespace {

using xpose::detail::skinny_odd_choose_layout;
using xpose::detail::skinny_odd_geometry;
using xpose::detail::skinny_odd_layout;
using xpose::detail::skinny_odd_layout_cost;
using xpose::detail::skinny_odd_wavefronts;

const int units[] = {3, 5, 6, 7, 10, 12, 14};

std::vector<std::int64_t> lanes(int n, std::int64_t stride, std::int64_t first = 0) {
  std::vector<std::int64_t> a(static_cast<std::size_t>(n));
  for (int l = 0; l < n; ++l) a[static_cast<std::size_t>(l)] = first + stride * l;
  return a;
}

TEST(SkinnyOddLayout, WavefrontsOfKnownAccessPatterns) {
  EXPECT_EQ(skinny_odd_wavefronts(lanes(32, 4).data(), 32, 4), 1);      // consecutive words
  EXPECT_EQ(skinny_odd_wavefronts(lanes(32, 0).data(), 32, 4), 1);      // one word: a broadcast
  EXPECT_EQ(skinny_odd_wavefronts(lanes(32, 128).data(), 32, 4), 32);   // one bank, 32 words
  EXPECT_EQ(skinny_odd_wavefronts(lanes(32, 8).data(), 32, 4), 2);      // two lanes a bank
  EXPECT_EQ(skinny_odd_wavefronts(lanes(32, 8).data(), 32, 8), 2);      // 64-bit: two half-warps
  EXPECT_EQ(skinny_odd_wavefronts(lanes(32, 16).data(), 32, 16), 4);    // 128-bit: four quarter-warps
  EXPECT_EQ(skinny_odd_wavefronts(lanes(32, 64).data(), 32, 16), 16);   // 128-bit, 64 apart: four lanes a bank group
  EXPECT_EQ(skinny_odd_wavefronts(lanes(32, 80).data(), 32, 16), 4);    // 80 = 5 groups: 8 lanes, 8 groups
  auto a = lanes(32, 128);
  for (int l = 1; l < 32; ++l) a[static_cast<std::size_t>(l)] = -1;   // inactive lanes cost nothing
  EXPECT_EQ(skinny_odd_wavefronts(a.data(), 32, 4), 1);
}

TEST(SkinnyOddLayout, ChosenLayoutsKeepSlotsApartAndAlignVectorRuns) {
  for (int u : units) {
    const skinny_odd_geometry geo(u);
    for (std::int64_t k = 2; k <= 40; ++k)
      for (bool aos : {true, false}) {
        SCOPED_TRACE(::testing::Message() << "unit " << u << " k " << k << (aos ? " AoS -> SoA" : " SoA -> AoS"));
        const skinny_odd_layout l = skinny_odd_choose_layout(u, k, aos);
        ASSERT_GE(l.pad_bytes, geo.g);
        ASSERT_EQ(l.pad_bytes % geo.g, 0);  // slots stay aligned to their access width
        // Slots in increasing order, g bytes apart or more: no two units share a byte.
        const std::int64_t cap = (geo.span(k, aos) + geo.halo()) * k + geo.q;
        for (std::int64_t m = 1; m < cap; ++m) ASSERT_GE(l.slot(geo.g, m) - l.slot(geo.g, m - 1), geo.g) << "m " << m;
        if (l.vector_periods(geo))
          for (std::int64_t j = 0; j < 64; ++j) {
            ASSERT_EQ(l.slot(geo.g, geo.q * j) % 16, 0);                                            // aligned runs
            ASSERT_EQ(l.slot(geo.g, geo.q * j + geo.q - 1) - l.slot(geo.g, geo.q * j), (geo.q - 1) * geo.g);  // no pad inside
          }
        EXPECT_LE(skinny_odd_layout_cost(geo, k, aos, l), skinny_odd_layout_cost(geo, k, aos, skinny_odd_layout{}) + 1e-9);
        EXPECT_EQ(skinny_odd_choose_layout(u, k, aos).pad_shift, l.pad_shift);  // the cached answer is the same
      }
  }
}

TEST(SkinnyOddLayout, TheModelSeesTheBankConflictsMeasuredOnTheH100) {
  // H100, ncu, the first skinny_odd kernel (16 bytes of pad every Q units, the default layout): RGB8 2097152 x 8
  // took 6.4 M shared-load wavefronts where ~0.8 M were needed. The model must see that default as several
  // times worse than the chosen layout, or the choice means nothing.
  const skinny_odd_geometry rgb8(3);
  const double def = skinny_odd_layout_cost(rgb8, 8, true, skinny_odd_layout{});
  const double chosen = skinny_odd_layout_cost(rgb8, 8, true, skinny_odd_choose_layout(3, 8, true));
  EXPECT_GT(def, 3 * chosen);
}

}  // namespace
