// fast_divmod and batch_map (src/cuda/index_math.hpp) are shared by host and device code; their arithmetic
// is checked here, on the host, against plain division.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "cuda/index_math.hpp"

namespace {

using xpose::detail::fast_divmod;

void expect_exact(std::uint64_t d, std::uint64_t n) {
  const fast_divmod f(d);
  std::uint64_t rem = 0;
  const std::uint64_t q = f.divmod(n, rem);
  ASSERT_EQ(q, n / d) << "n = " << n << ", d = " << d;
  ASSERT_EQ(rem, n % d) << "n = " << n << ", d = " << d;
}

TEST(FastDivmod, MatchesDivisionForSmallDivisorsAndDividendsExhaustively) {
  for (std::uint64_t d = 1; d <= 300; ++d)
    for (std::uint64_t n = 0; n <= 5000; ++n) expect_exact(d, n);
}

TEST(FastDivmod, MatchesDivisionAtPowersOfTwoAndTheirNeighbours) {
  std::vector<std::uint64_t> values;
  for (int b = 0; b < 64; ++b)
    for (std::int64_t delta : {-1, 0, 1}) values.push_back((std::uint64_t{1} << b) + static_cast<std::uint64_t>(delta));
  values.push_back(~std::uint64_t{0});
  for (auto d : values)
    if (d != 0)
      for (auto n : values) expect_exact(d, n);
}

TEST(FastDivmod, MatchesDivisionForRandom64BitValues) {
  const std::uint64_t seed = 0x5eed0001;
  std::mt19937_64 rng(seed);
  RecordProperty("seed", std::to_string(seed));
  for (int i = 0; i < 200000; ++i) {
    const int bits = 1 + static_cast<int>(rng() % 64);
    std::uint64_t d = rng() >> (64 - bits);
    if (d == 0) d = 1;
    expect_exact(d, rng());
    expect_exact(d, rng() >> (rng() % 64));
  }
}

TEST(Div32, IsExactWhileTheProductOfDividendAndDivisorStaysUnder2To32) {
  const std::uint64_t seed = 0x5eed0032;
  std::mt19937_64 rng(seed);
  RecordProperty("seed", std::to_string(seed));
  for (int i = 0; i < 200000; ++i) {
    const auto d = static_cast<unsigned>(1 + rng() % 65535);
    const auto n = static_cast<unsigned>(rng() % ((std::uint64_t{1} << 32) / d));
    ASSERT_EQ(xpose::detail::div32(d).div(n), n / d) << "n = " << n << ", d = " << d;
  }
}

TEST(Div40, IsExactWhileTheProductStaysUnder2To40AndTheDividendUnder2To24) {
  // batched_flat's splits of offsets inside a block's staged matrices (up to ~200 KiB): n, d < 2^18.
  const std::uint64_t seed = 0x5eed0040;
  std::mt19937_64 rng(seed);
  RecordProperty("seed", std::to_string(seed));
  for (unsigned d = 1; d <= 2000; ++d)
    for (unsigned n : {0u, d - 1, d, d + 1, (1u << 18) - 1, (1u << 18), (1u << 22) + 7})
      ASSERT_EQ(xpose::detail::div40(d).div(n), n / d) << "n = " << n << ", d = " << d;
  for (int i = 0; i < 200000; ++i) {
    const auto d = static_cast<unsigned>(1 + rng() % ((1u << 20) - 1));
    const std::uint64_t n_max = std::min<std::uint64_t>(std::uint64_t{1} << 24, (std::uint64_t{1} << 40) / d);
    const auto n = static_cast<unsigned>(rng() % n_max);
    ASSERT_EQ(xpose::detail::div40(d).div(n), n / d) << "n = " << n << ", d = " << d;
  }
}

TEST(BatchMap, MapsALinearIndexToRowMajorOffsetsOnBothSides) {
  xpose::detail::batch_map<4> m;
  m.rank = 3;
  const std::int64_t ext[3] = {3, 5, 7}, in_s[3] = {1000, 100, 10}, out_s[3] = {1, 3, 15};
  for (int i = 0; i < 3; ++i) {
    m.extent[i] = fast_divmod(static_cast<std::uint64_t>(ext[i]));
    m.in_stride[i] = in_s[i];
    m.out_stride[i] = out_s[i];
  }
  std::uint64_t b = 0;
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 5; ++j)
      for (std::int64_t k = 0; k < 7; ++k, ++b) {
        std::int64_t in = -1, out = -1;
        m.offsets(b, in, out);
        EXPECT_EQ(in, i * 1000 + j * 100 + k * 10);
        EXPECT_EQ(out, i * 1 + j * 3 + k * 15);
      }
}

TEST(MixedRadixMap, MapsASideIndexToTheSumOfDigitTimesStride) {
  xpose::detail::mixed_radix_map<4> m;
  m.rank = 3;
  const std::int64_t ext[3] = {4, 3, 5}, stride[3] = {7, 1000, 60};  // the slowest extent is not divided by
  for (int i = 0; i < 3; ++i) {
    m.extent[i] = fast_divmod(static_cast<std::uint64_t>(ext[i]));
    m.stride[i] = stride[i];
  }
  std::uint64_t r = 0;
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 5; ++k, ++r) EXPECT_EQ(m.offset(r), i * 7 + j * 1000 + k * 60) << r;
  m.rank = 1;  // one axis: a plain leading dimension
  EXPECT_EQ(m.offset(123456789), 123456789 * 7);
}

}  // namespace
