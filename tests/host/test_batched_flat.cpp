// batched_flat's stage swizzle (cuda/tuning/transpose2d.hpp), on the host: every candidate is a permutation
// of 16-byte chunks within 128-byte groups (the stage never loses or overlaps a byte), the bank model sees the
// conflicts ncu measured, and the chosen swizzle is never modelled worse than none nor taken where the
// shared-memory pipe does not bind.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cuda/tuning/transpose2d.hpp"

namespace {

using xpose::detail::batched_flat_wavefronts;
using xpose::detail::choose_batched_flat_swizzle;
using xpose::detail::flat_swizzle;

TEST(BatchedFlatSwizzle, EveryCandidatePermutesChunksWithinTheirGroupAndKeepsByteOffsets) {
  const int shifts[][2] = {{7, 10}, {7, 11}, {8, 11}, {8, 12}, {9, 12}, {9, 13}, {10, 13}, {7, 24}, {12, 24}};
  constexpr unsigned bytes = 1u << 18;  // past the largest stage (74 KiB)
  for (const auto& s : shifts) {
    const flat_swizzle sw{true, s[0], s[1]};
    std::vector<bool> seen(bytes, false);
    for (unsigned at = 0; at < bytes; ++at) {
      const unsigned slot = sw.slot(at);
      ASSERT_EQ(slot / 128, at / 128) << "shifts " << s[0] << ", " << s[1] << " at " << at;
      ASSERT_EQ(slot % 16, at % 16) << "shifts " << s[0] << ", " << s[1] << " at " << at;
      ASSERT_FALSE(seen[slot]) << "shifts " << s[0] << ", " << s[1] << " at " << at;
      seen[slot] = true;
    }
  }
}

TEST(BatchedFlatSwizzle, ModelSeesTheMeasuredConflictsAndTheChoiceRemovesThem) {
  // u8 56 x 32 matrices, 9 a tile: lanes 16 rows = 512 bytes apart, ncu measured 7 wavefronts a load.
  const long long plain = batched_flat_wavefronts(56, 32, 1, 1, 9, 0, 0, flat_swizzle{});
  EXPECT_GE(plain, 6 * 12);  // 6 sample warps x 2 piece loads, >= 6-way each
  const flat_swizzle sw = choose_batched_flat_swizzle(56, 32, 1, 1, 9, 0, 0);
  ASSERT_TRUE(sw.on);
  EXPECT_LE(batched_flat_wavefronts(56, 32, 1, 1, 9, 0, 0, sw) * 2, plain);
  // rgb8 110 x 64, one matrix a tile (ncu: 13 wavefronts a load).
  EXPECT_TRUE(choose_batched_flat_swizzle(110, 64, 3, 1, 1, 0, 0).on);
  // fp32 306 x 50: ~7-way conflicts, but four loads a chunk leave the shared-memory pipe idle half the time;
  // the hash's instructions lost 6 % there (H100).
  EXPECT_FALSE(choose_batched_flat_swizzle(306, 50, 4, 4, 1, 0, 0).on);
}

TEST(BatchedFlatSwizzle, TheChoiceIsNeverModelledWorseThanNone) {
  const std::uint64_t seed = 0x5eedf1a7;
  std::mt19937_64 rng(seed);
  RecordProperty("seed", std::to_string(seed));
  const int units[] = {1, 2, 3, 4, 6, 8, 12, 16};
  for (int i = 0; i < 300; ++i) {
    const long long u = units[rng() % 8];
    const int piece = u % 4 == 0 ? 4 : u % 2 == 0 ? 2 : 1;
    const long long r = 17 + static_cast<long long>(rng() % 300), c = 17 + static_cast<long long>(rng() % 300);
    const long long s = r * c * u;
    if (s > 74 * 1024) continue;
    const long long m = s >= 16384 ? 1 : 16384 / s;
    const auto stage0 = static_cast<unsigned>(rng() % 16) / static_cast<unsigned>(piece) * static_cast<unsigned>(piece);
    const auto out_phase = static_cast<unsigned>(rng() % 16) / static_cast<unsigned>(piece) * static_cast<unsigned>(piece);
    const flat_swizzle sw = choose_batched_flat_swizzle(r, c, u, piece, m, stage0, out_phase);
    const long long none = batched_flat_wavefronts(r, c, u, piece, m, stage0, out_phase, flat_swizzle{});
    const long long chosen = batched_flat_wavefronts(r, c, u, piece, m, stage0, out_phase, sw);
    ASSERT_LE(chosen, none) << r << " x " << c << " x " << u << " B";
    if (sw.on) EXPECT_LT(chosen, none) << r << " x " << c << " x " << u << " B";
  }
}

}  // namespace
