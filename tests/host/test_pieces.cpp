// The micro-tiles of odd units (kernels/piece_maps.hpp: the out-of-place pieces kernel and the in-place square
// pairs), simulated on the host with the kernels' own maps, row order and pitch: a T x T tile of U-byte units is
// staged at piece_pitch, every 4 x 4-unit micro-tile is read as 4 rows of U words and written as 4 output rows
// (piece_map, piece_row), and the output rows read back from the buffer must be the transposed tile, each
// buffer byte written at most once and inside the tile's T rows. Then the bank model the comments state: the
// staged reads of a warp (16 micro-tile columns x 2 micro-tile rows) conflict-free, its word stores into the
// output rows at most 2-way.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/test_seed.hpp"
#include "cuda/kernels/piece_maps.hpp"
#include "cuda/tuning/inplace.hpp"
#include "cuda/tuning/pieces.hpp"

namespace {

using namespace xpose::detail;

// Output byte t (< 4 U) of output row E of the micro-tile whose 4 rows of 4 U bytes are `in`.
template <int U, int... E>
std::uint8_t map_byte(int e, int t, const std::uint8_t* in, std::integer_sequence<int, E...>) {
  int src = -1;
  ((e == E ? (src = piece_map<U, E>::source(t)) : 0), ...);
  return in[src];
}

// Transposes one T x T tile through the micro-tiles; returns "" or what went wrong.
template <int U, int T>
std::string simulate(std::mt19937_64& rng) {
  constexpr int R = T * U, P = piece_pitch(R);
  static_assert(R % 16 == 0 && P % 16 == 0 && P >= R, "whole chunks; rows fit their pitch");
  std::vector<std::uint8_t> stage(static_cast<std::size_t>(T) * P), buf(stage.size(), 0);
  std::vector<int> writes(stage.size(), 0);
  for (auto& b : stage) b = static_cast<std::uint8_t>(rng());
  for (int h = 0; h < T / 4; ++h)
    for (int j = 0; j < T / 4; ++j) {
      std::array<std::uint8_t, 4 * 4 * U> in{};  // 4 rows of U words
      for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4 * U; ++k) in[i * 4 * U + k] = stage[(4 * h + i) * P + 4 * U * j + k];
      for (int e = 0; e < 4; ++e) {
        const std::size_t at = static_cast<std::size_t>(piece_row<T>(4 * j + e)) * P + 4 * h * U;
        for (int t = 0; t < 4 * U; ++t) {
          if (at + t >= buf.size()) return "a store past the tile's buffer";
          buf[at + t] = map_byte<U>(e, t, in.data(), std::make_integer_sequence<int, 4>{});
          ++writes[at + t];
        }
      }
    }
  for (int c = 0; c < T; ++c)
    for (int x = 0; x < R; ++x) {
      const std::size_t at = static_cast<std::size_t>(piece_row<T>(c)) * P + x;
      if (writes[at] != 1) return "output row " + std::to_string(c) + " byte " + std::to_string(x) + " written " +
                                  std::to_string(writes[at]) + " times";
      // Output row c, byte x: unit (x / U, c) of the tile, its byte x % U.
      if (buf[at] != stage[(x / U) * P + c * U + x % U])
        return "output row " + std::to_string(c) + " byte " + std::to_string(x) + " is not the transposed byte";
    }
  return "";
}

// Largest number of a warp's lanes on one bank, over the staged reads (4 rows x U words a lane) and the output
// row stores (4 rows x U words), lanes tid = 32 w + l taking micro-tile (h, j) = (tid / (T / 4), tid % (T / 4)).
template <int U, int T>
std::pair<int, int> bank_conflicts() {
  constexpr int P = piece_pitch(T * U), micro = T / 4;
  int reads = 0, stores = 0;
  for (int w = 0; w < micro * micro / 32; ++w)
    for (int i = 0; i < 4; ++i)
      for (int v = 0; v < U; ++v) {
        std::array<int, 32> rb{}, sb{};
        for (int l = 0; l < 32; ++l) {
          const int tid = 32 * w + l, h = tid / micro, j = tid % micro;
          ++rb[(((4 * h + i) * P + 4 * U * j + 4 * v) / 4) % 32];
          ++sb[((static_cast<int>(piece_row<T>(4 * j + i)) * P + 4 * h * U + 4 * v) / 4) % 32];  // output row E = i
        }
        reads = std::max(reads, *std::max_element(rb.begin(), rb.end()));
        stores = std::max(stores, *std::max_element(sb.begin(), sb.end()));
      }
  return {reads, stores};
}

template <int U>
void check_unit(std::mt19937_64& rng) {
  SCOPED_TRACE(::testing::Message() << U << "-byte units");
  constexpr int T = pieces_policy::tile, Tin = inplace_square_permute_policy::tile(U);
  EXPECT_EQ((simulate<U, T>(rng)), "") << "pieces' " << T << "-unit tiles";
  EXPECT_EQ((simulate<U, Tin>(rng)), "") << "the in-place square's " << Tin << "-unit tiles";
  const auto [reads, stores] = bank_conflicts<U, T>();
  EXPECT_EQ(reads, 1) << "staged reads of a warp share a bank";
  EXPECT_LE(stores, 2) << "output row stores of a warp more than 2-way conflicted";
}

TEST(Pieces, MicroTilesTransposeEveryOddUnitTileOnDistinctBanks) {
  std::mt19937_64 rng(xpose::test::announced_test_seed(20261129));
  check_unit<5>(rng);
  check_unit<7>(rng);
  check_unit<9>(rng);
  check_unit<11>(rng);
  check_unit<13>(rng);
  check_unit<15>(rng);
}

// The plain row order (output row c at row c of the buffer) puts a warp's 16 micro-tile columns on 2 bank
// groups: the model above must see that, or it checks nothing.
TEST(Pieces, TheBankModelSeesThePlainRowOrdersConflicts) {
  constexpr int U = 9, T = 64, P = piece_pitch(T * U), micro = T / 4;
  int worst = 0;
  for (int v = 0; v < U; ++v) {
    std::array<int, 32> sb{};
    for (int l = 0; l < 32; ++l) {
      const int h = l / micro, j = l % micro;
      ++sb[(((4 * j) * P + 4 * h * U + 4 * v) / 4) % 32];
    }
    worst = std::max(worst, *std::max_element(sb.begin(), sb.end()));
  }
  EXPECT_GE(worst, 8);
}

}  // namespace
