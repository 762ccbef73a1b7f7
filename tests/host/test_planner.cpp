// Planner properties, no executor involved: the byte map a plan's geometry describes (plan.hpp, struct
// plan_geometry) must be exactly the byte map of the original problem (problem.hpp), for random problems
// and for every axes order of ranks 1..4; plus worked canonicalization examples.
//
// A byte map is the sorted list of (input byte offset, output byte offset) pairs, one per output byte.
// Equal lists mean: every output byte is written exactly once, from the right input byte.
//
// The random seed is fixed and printed; set XPOSE_TEST_SEED to replay another.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/reference.hpp"
#include "common/test_seed.hpp"
#include "plan/planner.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::algorithm;
using xpose::problem;
using byte_map = std::vector<std::pair<std::int64_t, std::int64_t>>;

constexpr std::uint64_t default_seed = 20240612;

std::string describe(const problem& p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

// The map of the problem itself, element by element (reference.hpp), each element's bytes.
byte_map problem_map(const problem& p) {
  byte_map m;
  const std::int64_t eb = p.elem_bytes;
  xpose::test::for_each_element(p, [&](std::int64_t i, std::int64_t o) {
    for (std::int64_t b = 0; b < eb; ++b) m.emplace_back(i * eb + b, o * eb + b);
  });
  std::sort(m.begin(), m.end());
  return m;
}

// The map of a canonical form: every index over its extents (output order), word offsets x word bytes.
byte_map canonical_map(const xpose::canonical_form& c) {
  byte_map m;
  if (c.words() == 0) return m;
  std::vector<std::int64_t> j(static_cast<std::size_t>(c.rank), 0);
  while (true) {
    std::int64_t in = 0, out = 0;
    for (int i = 0; i < c.rank; ++i) {
      in += j[i] * c.in_stride[i];
      out += j[i] * c.out_stride[i];
    }
    for (std::int64_t b = 0; b < c.word_bytes; ++b) m.emplace_back(in * c.word_bytes + b, out * c.word_bytes + b);
    int k = c.rank - 1;
    while (k >= 0 && ++j[k] == c.extent[k]) j[k--] = 0;
    if (k < 0) break;
  }
  std::sort(m.begin(), m.end());
  return m;
}

// Offset of index i over a mixed radix side (slowest first): sum(digit_k * stride_k).
std::int64_t side_offset(std::int64_t i, int rank, const std::array<std::int64_t, xpose::max_canonical_rank>& extent,
                         const std::array<std::int64_t, xpose::max_canonical_rank>& stride) {
  std::int64_t off = 0;
  for (int k = rank - 1; k >= 0; --k) {
    off += (i % extent[k]) * stride[k];
    i /= extent[k];
  }
  return off;
}

// The map of a geometry, straight from its definition in plan.hpp:
//   out[out_b + c*out_ld + r*elem_words + k] = in[in_b + r*in_ld + c*elem_words + k]
// with r*in_ld and c*out_ld the mixed-radix offsets of compound sides.
byte_map geometry_map(const xpose::plan_geometry& g) {
  byte_map m;
  if (g.batch_count() == 0 || g.rows == 0 || g.cols == 0 || g.elem_words == 0) return m;
  const bool sides = g.algo == algorithm::transpose2d;
  auto row_in = [&](std::int64_t r) { return sides ? side_offset(r, g.row_rank, g.row_extent, g.row_in_stride) : r * g.in_ld; };
  auto col_out = [&](std::int64_t c) { return sides ? side_offset(c, g.col_rank, g.col_extent, g.col_out_stride) : c * g.out_ld; };
  std::vector<std::int64_t> b(static_cast<std::size_t>(g.batch_rank), 0);
  while (true) {
    std::int64_t in_b = 0, out_b = 0;
    for (int i = 0; i < g.batch_rank; ++i) {
      in_b += b[i] * g.batch_in_stride[i];
      out_b += b[i] * g.batch_out_stride[i];
    }
    for (std::int64_t r = 0; r < g.rows; ++r)
      for (std::int64_t c = 0; c < g.cols; ++c)
        for (std::int64_t k = 0; k < g.elem_words; ++k) {
          const std::int64_t in = in_b + row_in(r) + c * g.elem_words + k;
          const std::int64_t out = out_b + col_out(c) + r * g.elem_words + k;
          for (std::int64_t w = 0; w < g.word_bytes; ++w) m.emplace_back(in * g.word_bytes + w, out * g.word_bytes + w);
        }
    int k = g.batch_rank - 1;
    while (k >= 0 && ++b[k] == g.batch_extent[k]) b[k--] = 0;
    if (k < 0) break;
  }
  std::sort(m.begin(), m.end());
  return m;
}

bool is_word_size(std::int64_t w) { return w == 1 || w == 2 || w == 4 || w == 8 || w == 16; }

std::vector<std::int64_t> strides_or_packed(const std::vector<std::int64_t>& strides,
                                            const std::vector<std::int64_t>& shape) {
  return strides.empty() ? xpose::test::packed_strides(shape) : strides;
}

// Plans `p` and checks every property; returns false if the planner says `unsupported`.
bool check_plan(const problem& p, const std::string& context) {
  auto plan = xpose::make_plan(p);
  if (!plan) {
    if (plan.error().code() == xpose::status_code::unsupported) return false;
    ADD_FAILURE() << context << ": make_plan failed: " << plan.error() << "\n  " << describe(p);
    return true;
  }
  const xpose::canonical_form& c = plan->canonical();
  const xpose::plan_geometry& g = plan->geometry();
  std::ostringstream printed;
  printed << *plan;
  const std::string where = context + "\n  " + describe(p) + "\n" + printed.str();

  // Sizes the plan reports.
  std::int64_t elements = 1;
  for (const auto e : p.shape) elements *= e;
  const auto oshape = xpose::test::out_shape(p);
  EXPECT_EQ(plan->payload_bytes(), elements * p.elem_bytes) << where;
  EXPECT_EQ(plan->bytes_moved(), 2 * plan->payload_bytes()) << where;
  EXPECT_EQ(plan->in_span_bytes(),
            xpose::test::span_bytes(p.shape, strides_or_packed(p.in_strides, p.shape), p.elem_bytes))
      << where;
  EXPECT_EQ(plan->out_span_bytes(),
            xpose::test::span_bytes(oshape, strides_or_packed(p.out_strides, oshape), p.elem_bytes))
      << where;

  // Canonical form: words of a native size, no size-1 axes, nothing left to fuse.
  EXPECT_TRUE(is_word_size(c.word_bytes)) << where;
  EXPECT_EQ(c.words() * c.word_bytes, plan->payload_bytes()) << where;
  EXPECT_LE(c.rank, xpose::max_canonical_rank) << where;
  if (elements != 0) {
    for (int i = 0; i < c.rank; ++i) EXPECT_GT(c.extent[i], 1) << "axis " << i << ": " << where;
    for (int i = 0; i + 1 < c.rank; ++i) {
      const bool fusable = c.in_stride[i] == c.extent[i + 1] * c.in_stride[i + 1] &&
                           c.out_stride[i] == c.extent[i + 1] * c.out_stride[i + 1];
      EXPECT_FALSE(fusable) << "axes " << i << " and " << i + 1 << " should have been fused: " << where;
    }
  }

  // Geometry: shape rules per algorithm.
  EXPECT_EQ(g.word_bytes, c.word_bytes) << where;
  EXPECT_LE(g.batch_rank, xpose::max_canonical_rank) << where;
  EXPECT_EQ(g.batch_count() * g.rows * g.cols * g.elem_words * g.word_bytes, plan->payload_bytes()) << where;
  if (g.algo != algorithm::transpose2d) {
    EXPECT_EQ(g.rows, 1) << where;
    EXPECT_EQ(g.cols, 1) << where;
  }
  if (g.algo == algorithm::copy) {
    EXPECT_EQ(g.batch_rank, 0) << where;
  }
  EXPECT_EQ(plan->algo(), g.algo) << where;
  if (g.algo == algorithm::transpose2d) {
    // Sides: products match, the fastest stride is the leading dimension, and the flattened form (what the
    // CPU executor runs) has the same byte map.
    std::int64_t rp = 1, cp = 1;
    for (int k = 0; k < g.row_rank; ++k) rp *= g.row_extent[k];
    for (int k = 0; k < g.col_rank; ++k) cp *= g.col_extent[k];
    EXPECT_GE(g.row_rank, 1) << where;
    EXPECT_GE(g.col_rank, 1) << where;
    EXPECT_EQ(rp, g.rows) << where;
    EXPECT_EQ(cp, g.cols) << where;
    EXPECT_EQ(g.row_in_stride[g.row_rank - 1], g.in_ld) << where;
    EXPECT_EQ(g.col_out_stride[g.col_rank - 1], g.out_ld) << where;
    const xpose::plan_geometry flat = xpose::detail::flatten_sides(g);
    EXPECT_FALSE(flat.compound()) << where;
    EXPECT_TRUE(geometry_map(flat) == problem_map(p)) << "flatten_sides changes the byte map: " << where;
    // The GPU's form: nested batch axes absorbed into the sides (at most 8 axes a side).
    const xpose::plan_geometry absorbed = xpose::detail::absorb_nested_batch(g, 8);
    EXPECT_LE(absorbed.row_rank, 8) << where;
    EXPECT_LE(absorbed.col_rank, 8) << where;
    EXPECT_EQ(absorbed.row_in_stride[absorbed.row_rank - 1], absorbed.in_ld) << where;
    EXPECT_EQ(absorbed.col_out_stride[absorbed.col_rank - 1], absorbed.out_ld) << where;
    EXPECT_TRUE(geometry_map(absorbed) == problem_map(p)) << "absorb_nested_batch changes the byte map: " << where;
  }
  if (g.algo == algorithm::rows) {
    // The GPU's wide tiles: rows that are the units of a 2-D transpose, as that transpose (same byte map).
    const xpose::plan_geometry t = xpose::detail::rows_as_transpose(g);
    if (t.algo == algorithm::transpose2d) {
      EXPECT_EQ(t.elem_words, g.elem_words) << where;
      EXPECT_TRUE(geometry_map(t) == problem_map(p)) << "rows_as_transpose changes the byte map: " << where;
    } else {
      EXPECT_EQ(t.algo, algorithm::rows) << where;
    }
  }
  EXPECT_NE(printed.str().find(xpose::to_string(g.algo)), std::string::npos) << where;

  // The maps: problem == canonical form == geometry.
  const byte_map expected = problem_map(p);
  EXPECT_TRUE(canonical_map(c) == expected) << "canonical form changes the byte map: " << where;
  EXPECT_TRUE(geometry_map(g) == expected) << "geometry changes the byte map: " << where;
  return true;
}

// ---- every axes order of ranks 1..4 ----------------------------------------------------------------------

// Layouts tried for each shape and order: packed; pitched input (every stride padded); pitched output;
// both; an input with a broadcast axis.
enum class layout { packed, pitched_in, pitched_out, pitched_both, broadcast_in };

std::vector<std::int64_t> padded_strides(const std::vector<std::int64_t>& shape, std::int64_t pad) {
  std::vector<std::int64_t> s(shape.size());
  std::int64_t next = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    s[i] = next;
    next = next * shape[i] + pad;
  }
  return s;
}

problem with_layout(problem p, layout l) {
  const auto oshape = xpose::test::out_shape(p);
  switch (l) {
    case layout::packed: break;
    case layout::pitched_in: p.in_strides = padded_strides(p.shape, 1); break;
    case layout::pitched_out: p.out_strides = padded_strides(oshape, 2); break;
    case layout::pitched_both:
      p.in_strides = padded_strides(p.shape, 3);
      p.out_strides = padded_strides(oshape, 1);
      break;
    case layout::broadcast_in:
      p.in_strides = xpose::test::packed_strides(p.shape);
      if (p.shape.size() > 1) p.in_strides[0] = 0;
      break;
  }
  return p;
}

TEST(Planner, EveryAxesOrderOfRanksOneToFourKeepsTheByteMap) {
  const std::vector<std::vector<std::int64_t>> shapes[] = {
      {{1}, {7}, {16}},
      {{3, 5}, {1, 6}, {4, 4}, {2, 9}},
      {{2, 3, 4}, {3, 1, 5}, {4, 4, 4}, {1, 7, 2}, {5, 2, 1}},
      {{2, 3, 4, 5}, {1, 3, 1, 2}, {2, 2, 2, 2}, {3, 1, 4, 2}, {2, 5, 1, 3}},
  };
  const std::int64_t elem_sizes[] = {1, 2, 3, 4, 6, 8, 12, 16};
  const layout layouts[] = {layout::packed, layout::pitched_in, layout::pitched_out, layout::pitched_both,
                            layout::broadcast_in};
  int checked = 0, unsupported = 0;
  for (int rank = 1; rank <= 4; ++rank) {
    std::vector<std::int64_t> axes(static_cast<std::size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
    do {
      for (const auto& shape : shapes[rank - 1])
        for (const std::int64_t eb : elem_sizes)
          for (const layout l : layouts) {
            const problem p = with_layout(problem{shape, axes, eb, {}, {}}, l);
            if (check_plan(p, "exhaustive rank " + std::to_string(rank))) ++checked;
            else ++unsupported;
            if (HasFailure()) return;
          }
    } while (std::next_permutation(axes.begin(), axes.end()));
  }
  std::cout << "[ problems ] " << checked << " checked, " << unsupported << " unsupported (broadcast fastest axis)\n";
  EXPECT_GT(checked, 5000);
}

// ---- random problems -------------------------------------------------------------------------------------

std::int64_t random_extent(std::mt19937_64& rng) {
  static constexpr std::int64_t pool[] = {1, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 16, 17};
  if (rng() % 80 == 0) return 0;
  return pool[rng() % std::size(pool)];
}

// Strides for a random memory order of the axes, each stepping over the previous block plus a pad; the
// fastest stride is 1 most of the time. Inputs sometimes broadcast an axis or alias two axes (overlapping
// input views are legal).
std::vector<std::int64_t> random_strides(const std::vector<std::int64_t>& shape, std::mt19937_64& rng, bool input) {
  const std::size_t rank = shape.size();
  std::vector<std::size_t> order(rank);
  std::iota(order.rbegin(), order.rend(), 0);
  if (rng() % 3 == 0) std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::int64_t> s(rank, 0);
  std::int64_t next = rng() % 8 == 0 ? 2 + static_cast<std::int64_t>(rng() % 3) : 1;
  for (const std::size_t a : order) {
    s[a] = next;
    const std::int64_t pad = rng() % 2 == 0 ? 0 : static_cast<std::int64_t>(rng() % 4);
    next = next * std::max<std::int64_t>(shape[a], 1) + pad;
  }
  if (input && rank > 0 && rng() % 8 == 0) s[rng() % rank] = 0;
  if (input && rank > 1 && rng() % 12 == 0) s[0] = s[rank - 1];
  return s;
}

problem random_problem(std::mt19937_64& rng) {
  static constexpr std::int64_t elem_sizes[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48};
  problem p;
  const int rank = static_cast<int>(rng() % 7);
  p.shape.resize(static_cast<std::size_t>(rank));
  for (auto& e : p.shape) e = random_extent(rng);
  const auto elements = [&] {
    std::int64_t n = 1;
    for (const auto e : p.shape) n *= std::max<std::int64_t>(e, 1);
    return n;
  };
  while (elements() > 3000) {
    auto& e = *std::max_element(p.shape.begin(), p.shape.end());
    e = (e + 1) / 2;
  }
  p.elem_bytes = elem_sizes[rng() % std::size(elem_sizes)];
  if (rng() % 6 != 0) {
    p.axes.resize(static_cast<std::size_t>(rank));
    std::iota(p.axes.begin(), p.axes.end(), 0);
    std::shuffle(p.axes.begin(), p.axes.end(), rng);
    if (rng() % 4 == 0)
      for (auto& a : p.axes)
        if (rng() % 2 == 0) a -= rank;
  }
  if (rng() % 2 == 0) p.in_strides = random_strides(p.shape, rng, true);
  if (rng() % 2 == 0) p.out_strides = random_strides(xpose::test::out_shape(p), rng, false);
  return p;
}

TEST(Planner, RandomProblemsKeepTheByteMap) {
  const std::uint64_t seed = xpose::test::announced_test_seed(default_seed);
  std::mt19937_64 rng(seed);
  constexpr int problems = 4000;
  int checked = 0, unsupported = 0;
  for (int i = 0; i < problems && !HasFailure(); ++i) {
    const problem p = random_problem(rng);
    if (check_plan(p, "random problem #" + std::to_string(i) + " (seed " + std::to_string(seed) + ")")) ++checked;
    else ++unsupported;
  }
  std::cout << "[ problems ] " << checked << " checked, " << unsupported << " unsupported\n";
  EXPECT_GE(checked, problems * 3 / 4);
}

TEST(Planner, EquivalentSpellingsOfAProblemPlanTheSame) {
  // Negative axes, empty (reversed) axes, explicit packed strides and inserted size-1 axes describe the same
  // problem and must give the same canonical form and geometry.
  std::mt19937_64 rng(xpose::test::test_seed(default_seed) + 1);
  for (int i = 0; i < 500; ++i) {
    problem p;
    const int rank = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < rank; ++k) p.shape.push_back(2 + static_cast<std::int64_t>(rng() % 5));
    p.elem_bytes = 1 + static_cast<std::int64_t>(rng() % 16);
    p.axes.resize(static_cast<std::size_t>(rank));
    std::iota(p.axes.begin(), p.axes.end(), 0);
    std::shuffle(p.axes.begin(), p.axes.end(), rng);

    std::vector<problem> variants;
    problem neg = p;
    for (auto& a : neg.axes) a -= rank;
    variants.push_back(neg);
    problem explicit_strides = p;
    explicit_strides.in_strides = xpose::test::packed_strides(p.shape);
    explicit_strides.out_strides = xpose::test::packed_strides(xpose::test::out_shape(p));
    variants.push_back(explicit_strides);
    // A size-1 axis inserted at input position `at`, placed at output position `out_at`.
    const auto at = static_cast<std::int64_t>(rng() % (rank + 1));
    const auto out_at = static_cast<std::size_t>(rng() % (rank + 1));
    problem unit = p;
    unit.shape.insert(unit.shape.begin() + at, 1);
    for (auto& a : unit.axes)
      if (a >= at) ++a;
    unit.axes.insert(unit.axes.begin() + static_cast<std::ptrdiff_t>(out_at), at);
    variants.push_back(unit);
    problem reversed = p;
    std::iota(reversed.axes.rbegin(), reversed.axes.rend(), 0);
    problem reversed_empty = reversed;
    reversed_empty.axes.clear();

    const auto same = [&](const problem& a, const problem& b) {
      auto pa = xpose::make_plan(a);
      auto pb = xpose::make_plan(b);
      ASSERT_TRUE(pa && pb) << describe(a) << " / " << describe(b);
      std::ostringstream ca, cb;
      ca << pa->canonical() << " | " << pa->geometry();
      cb << pb->canonical() << " | " << pb->geometry();
      EXPECT_EQ(ca.str(), cb.str()) << describe(a) << " / " << describe(b);
    };
    for (const problem& v : variants) same(p, v);
    same(reversed, reversed_empty);
    if (HasFailure()) return;
  }
}

// ---- worked examples -------------------------------------------------------------------------------------

xpose::plan plan_of(const problem& p) {
  auto plan = xpose::make_plan(p);
  EXPECT_TRUE(plan) << plan.error();
  return std::move(plan).value();
}

TEST(Planner, NchwToNhwcIsABatchedTranspose) {
  const xpose::plan plan = plan_of({{2, 3, 4, 5}, {0, 2, 3, 1}, 4, {}, {}});
  const auto& g = plan.geometry();
  EXPECT_EQ(g.algo, algorithm::transpose2d);
  EXPECT_EQ(g.word_bytes, 4);
  EXPECT_EQ(g.elem_words, 1);
  EXPECT_EQ(g.rows, 3);   // C
  EXPECT_EQ(g.cols, 20);  // H*W fused
  EXPECT_EQ(g.in_ld, 20);
  EXPECT_EQ(g.out_ld, 3);
  ASSERT_EQ(g.batch_rank, 1);
  EXPECT_EQ(g.batch_extent[0], 2);  // N
  EXPECT_EQ(g.batch_in_stride[0], 60);
  EXPECT_EQ(g.batch_out_stride[0], 60);
}

TEST(Planner, PackedTwoDimensionalTranspose) {
  const xpose::plan plan = plan_of({{7, 5}, {1, 0}, 4, {}, {}});
  const auto& g = plan.geometry();
  EXPECT_EQ(g.algo, algorithm::transpose2d);
  EXPECT_EQ(g.word_bytes, 4);
  EXPECT_EQ(g.elem_words, 1);
  EXPECT_EQ(g.rows, 7);
  EXPECT_EQ(g.cols, 5);
  EXPECT_EQ(g.in_ld, 5);
  EXPECT_EQ(g.out_ld, 7);
  EXPECT_EQ(g.batch_rank, 0);
}

TEST(Planner, IdentityIsACopyOfWidenedWords) {
  // 60 floats = 240 bytes: one run, widened 4 -> 8 -> 16-byte words (15 of them).
  const xpose::plan wide = plan_of({{3, 4, 5}, {0, 1, 2}, 4, {}, {}});
  EXPECT_EQ(wide.algo(), algorithm::copy);
  EXPECT_EQ(wide.canonical().rank, 1);
  EXPECT_EQ(wide.geometry().word_bytes, 16);
  EXPECT_EQ(wide.geometry().elem_words, 15);
  EXPECT_EQ(wide.geometry().batch_rank, 0);
  // 15 bytes cannot widen.
  const xpose::plan narrow = plan_of({{3, 5}, {0, 1}, 1, {}, {}});
  EXPECT_EQ(narrow.algo(), algorithm::copy);
  EXPECT_EQ(narrow.geometry().word_bytes, 1);
  EXPECT_EQ(narrow.geometry().elem_words, 15);
  // 6 bytes: 2-byte words, 3 of them.
  const xpose::plan six = plan_of({{3}, {0}, 2, {}, {}});
  EXPECT_EQ(six.geometry().word_bytes, 2);
  EXPECT_EQ(six.geometry().elem_words, 3);
}

TEST(Planner, Rgb8TransposeMovesThreeByteUnits) {
  const xpose::plan plan = plan_of({{4, 6}, {1, 0}, 3, {}, {}});
  const auto& g = plan.geometry();
  EXPECT_EQ(g.algo, algorithm::transpose2d);
  EXPECT_EQ(g.word_bytes, 1);
  EXPECT_EQ(g.elem_words, 3);
  EXPECT_EQ(g.rows, 4);
  EXPECT_EQ(g.cols, 6);
  EXPECT_EQ(g.in_ld, 18);
  EXPECT_EQ(g.out_ld, 12);
  EXPECT_EQ(g.batch_rank, 0);
}

TEST(Planner, RowsOfUpTo128BytesAreUnitsOfATranspose) {
  // (300, 200, 20) -> (200, 300, 20) fp32: 80-byte rows are the units of a 300 x 200 transpose; 33 floats
  // (132 bytes) are past the limit and go to the rows kernel.
  const xpose::plan units = plan_of({{300, 200, 20}, {1, 0, 2}, 4, {}, {}});
  EXPECT_EQ(units.algo(), algorithm::transpose2d);
  EXPECT_EQ(units.geometry().elem_words * units.geometry().word_bytes, 80);
  EXPECT_EQ(plan_of({{300, 200, 32}, {1, 0, 2}, 4, {}, {}}).algo(), algorithm::transpose2d);
  EXPECT_EQ(plan_of({{300, 200, 33}, {1, 0, 2}, 4, {}, {}}).algo(), algorithm::rows);
}

TEST(Planner, PermutationKeepingTheLastAxisIsRows) {
  // Rows of 50 floats (200 bytes) widen to 25 8-byte words.
  const xpose::plan plan = plan_of({{3, 4, 50}, {1, 0, 2}, 4, {}, {}});
  const auto& g = plan.geometry();
  EXPECT_EQ(g.algo, algorithm::rows);
  EXPECT_EQ(g.word_bytes, 8);
  EXPECT_EQ(g.elem_words, 25);
  ASSERT_EQ(g.batch_rank, 2);
  EXPECT_EQ(g.batch_extent[0], 4);
  EXPECT_EQ(g.batch_extent[1], 3);
  EXPECT_EQ(g.batch_in_stride[0], 25);
  EXPECT_EQ(g.batch_in_stride[1], 100);
  EXPECT_EQ(g.batch_out_stride[0], 75);
  EXPECT_EQ(g.batch_out_stride[1], 25);
}

TEST(Planner, RowsThatAreUnitsOfATransposeCanBeTiledAsSuch) {
  // Attention heads [B, S, H, D] -> [B, H, S, D] (fp16, D = 128: 256-byte rows) are rows to the planner; as
  // the GPU's wide tiles see them, an S x H transpose of 256-byte units batched over B.
  const xpose::plan plan = plan_of({{4, 2048, 32, 128}, {0, 2, 1, 3}, 2, {}, {}});
  ASSERT_EQ(plan.algo(), algorithm::rows);
  const xpose::plan_geometry t = xpose::detail::rows_as_transpose(plan.geometry());
  ASSERT_EQ(t.algo, algorithm::transpose2d);
  EXPECT_EQ(t.elem_words * t.word_bytes, 256);
  EXPECT_EQ(t.rows, 2048);
  EXPECT_EQ(t.cols, 32);
  EXPECT_FALSE(t.compound());
  ASSERT_EQ(t.batch_rank, 1);
  EXPECT_EQ(t.batch_extent[0], 4);
  // Rows that only a batch of rows fits (a copy of two axes that keeps their order) stay rows.
  const xpose::plan_geometry kept = xpose::detail::rows_as_transpose(plan_of({{3, 4, 50}, {0, 1, 2}, 4, {40 * 50, 50, 1}, {}}).geometry());
  EXPECT_EQ(kept.algo, algorithm::rows);
}

TEST(Planner, ShortRowsOfATwoDimensionalTransposeBecomeUnits) {
  // (6, 5, 2) -> (5, 6, 2) fp32: rows of 8 bytes are the units of a 6 x 5 transpose.
  const xpose::plan plan = plan_of({{6, 5, 2}, {1, 0, 2}, 4, {}, {}});
  const auto& g = plan.geometry();
  EXPECT_EQ(g.algo, algorithm::transpose2d);
  EXPECT_EQ(g.elem_words * g.word_bytes, 8);
  EXPECT_EQ(g.rows, 6);
  EXPECT_EQ(g.cols, 5);
}

TEST(Planner, SizeOneAxesAreDropped) {
  const xpose::plan plan = plan_of({{1, 5, 1, 7}, {3, 2, 1, 0}, 4, {}, {}});
  EXPECT_EQ(plan.canonical().rank, 2);
  const auto& g = plan.geometry();
  EXPECT_EQ(g.algo, algorithm::transpose2d);
  EXPECT_EQ(g.rows, 5);
  EXPECT_EQ(g.cols, 7);
  EXPECT_EQ(g.batch_rank, 0);
  // All axes of size 1: a single element.
  const xpose::plan one = plan_of({{1, 1, 1}, {2, 0, 1}, 8, {}, {}});
  EXPECT_EQ(one.algo(), algorithm::copy);
  EXPECT_EQ(one.geometry().elem_words * one.geometry().word_bytes, 8);
}

TEST(Planner, EmptyProblemsAreACopyOfNothing) {
  // A zero extent anywhere: nothing to move.
  for (const problem& p : {problem{{3, 0, 5}, {2, 1, 0}, 4, {}, {}}, problem{{0}, {}, 3, {}, {}},
                           problem{{4, 0}, {1, 0}, 16, {7, 1}, {}}}) {
    const xpose::plan plan = plan_of(p);
    EXPECT_EQ(plan.algo(), algorithm::copy) << describe(p);
    EXPECT_EQ(plan.geometry().elem_words, 0) << describe(p);
    EXPECT_EQ(plan.payload_bytes(), 0) << describe(p);
    EXPECT_EQ(plan.canonical().words(), 0) << describe(p);
  }
}

TEST(Planner, RankZeroIsACopyOfOneElement) {
  // An empty shape is a 0-d array: one element (NumPy: numpy.transpose(numpy.float32(1)).size == 1).
  const xpose::plan plan = plan_of({{}, {}, 12, {}, {}});
  EXPECT_EQ(plan.algo(), algorithm::copy);
  EXPECT_EQ(plan.payload_bytes(), 12);
  EXPECT_EQ(plan.geometry().elem_words * plan.geometry().word_bytes, 12);
  EXPECT_EQ(plan.geometry().batch_rank, 0);
}

TEST(Planner, HpttExampleFusesTheMiddleAxes) {
  // HPTT: perm = 3,1,2,0 & size = 10,11,12,13 becomes perm = 2,1,0 & size = 10,11*12,13.
  const xpose::plan plan = plan_of({{10, 11, 12, 13}, {3, 1, 2, 0}, 4, {}, {}});
  const auto& c = plan.canonical();
  ASSERT_EQ(c.rank, 3);
  EXPECT_EQ(c.extent[0], 13);
  EXPECT_EQ(c.extent[1], 11 * 12);
  EXPECT_EQ(c.extent[2], 10);
  // The rows side (10 units, 40 bytes) is short: it takes in the 132-axis, nested right outside it in the
  // output, and becomes a compound side of 1320 units; nothing is left for the batch.
  const auto& g = plan.geometry();
  EXPECT_EQ(g.algo, algorithm::transpose2d);
  EXPECT_EQ(g.rows, 10 * 11 * 12);
  EXPECT_EQ(g.cols, 13);
  ASSERT_EQ(g.row_rank, 2);
  EXPECT_EQ(g.row_extent[0], 11 * 12);
  EXPECT_EQ(g.row_in_stride[0], 13);
  EXPECT_EQ(g.row_extent[1], 10);
  EXPECT_EQ(g.row_in_stride[1], 11 * 12 * 13);
  EXPECT_EQ(g.col_rank, 1);
  EXPECT_EQ(g.batch_rank, 0);
  // Flattened (the CPU's form), the outer row axis is a batch axis again.
  const auto f = xpose::detail::flatten_sides(g);
  EXPECT_EQ(f.rows, 10);
  ASSERT_EQ(f.batch_rank, 1);
  EXPECT_EQ(f.batch_extent[0], 11 * 12);
  EXPECT_EQ(f.batch_in_stride[0], 13);
  EXPECT_EQ(f.batch_out_stride[0], 10);
}

TEST(Planner, BatchAxesNestedOutsideACompoundSideJoinIt) {
  // N-d r5 n24: 2164 x 2 x 250 x 248 x 2, axes 4,3,0,2,1 -> a batch of 2164 matrices of 500 [250 2] x 496
  // [248 2]; the batch axis's output stride is the row side's 500 units, so it joins the row side.
  const xpose::plan plan = plan_of({{2164, 2, 250, 248, 2}, {4, 3, 0, 2, 1}, 1, {}, {}});
  const auto& g = plan.geometry();
  ASSERT_EQ(g.algo, algorithm::transpose2d);
  ASSERT_TRUE(g.compound());
  ASSERT_EQ(g.batch_rank, 1);
  EXPECT_EQ(g.rows, 500);
  const auto a = xpose::detail::absorb_nested_batch(g, 8);
  EXPECT_EQ(a.batch_rank, 0);
  EXPECT_EQ(a.rows, 2164 * 500);
  EXPECT_EQ(a.cols, g.cols);
  EXPECT_EQ(a.row_rank, g.row_rank + 1);
  EXPECT_EQ(a.row_extent[0], 2164);
  // The side limit holds: with at most the current rank, nothing moves.
  const auto b = xpose::detail::absorb_nested_batch(g, g.row_rank);
  EXPECT_EQ(b.batch_rank, 1);  // nor is it nested outside the column side (input stride 248000, not 496)
  EXPECT_EQ(b.rows, 500);
}

TEST(Planner, PlainRowsTakeTheBatchAxisNestedOutsideThemOnlyWhenAsked) {
  // u8 [2, 150, 7, 2, 2, 3, 202] axes 5,4,6,0,3,1,2: 24 plain 1050 x 202 matrices. Batch axes: (2, output
  // stride 1050) lies right outside the rows in the output, then (2, 2100) outside that; (3, input stride
  // 202) lies right outside the columns in the input.
  const problem p{{2, 150, 7, 2, 2, 3, 202}, {5, 4, 6, 0, 3, 1, 2}, 1, {}, {}};
  const xpose::plan plan = plan_of(p);
  const auto& g = plan.geometry();
  ASSERT_EQ(g.algo, algorithm::transpose2d);
  ASSERT_FALSE(g.compound());
  ASSERT_EQ(g.batch_rank, 4);
  ASSERT_EQ(g.rows, 1050);
  ASSERT_EQ(g.cols, 202);
  EXPECT_EQ(xpose::detail::absorb_nested_batch(g, 8).batch_rank, 4);        // not asked
  EXPECT_EQ(xpose::detail::absorb_nested_batch(g, 8, 1050).batch_rank, 4);  // rows not under the limit
  // Under 1536 bytes: the first axis joins (rows 2100), and then the rows are past the limit.
  const auto a = xpose::detail::absorb_nested_batch(g, 8, 1536);
  EXPECT_EQ(a.batch_rank, 3);
  EXPECT_EQ(a.rows, 2100);
  EXPECT_EQ(a.row_rank, 2);
  EXPECT_EQ(a.row_extent[0], 2);
  EXPECT_EQ(a.row_in_stride[0], 1212);
  EXPECT_EQ(a.cols, 202);  // the column side of a plain geometry stays as it was
  EXPECT_EQ(a.col_rank, 1);
  EXPECT_TRUE(geometry_map(a) == problem_map(p));
  const auto b = xpose::detail::absorb_nested_batch(g, 8, std::int64_t{1} << 20);
  EXPECT_EQ(b.batch_rank, 2);
  EXPECT_EQ(b.rows, 4200);
  EXPECT_EQ(b.row_rank, 3);
  EXPECT_EQ(b.cols, 202);
  EXPECT_TRUE(geometry_map(b) == problem_map(p));
}

TEST(Planner, ShortFastestAxesFormCompoundTileSides) {
  // 5-D reversal of 4^5 bytes: no two axes fuse; each side takes in the axes nested next to it on its own
  // side until it spans >= 128 units or runs out of free nested axes.
  const xpose::plan plan = plan_of({{4, 4, 4, 4, 4}, {}, 1, {}, {}});
  const auto& g = plan.geometry();
  EXPECT_EQ(g.algo, algorithm::transpose2d);
  EXPECT_TRUE(g.compound());
  EXPECT_EQ(g.rows * g.cols * g.batch_count(), 1024);
  EXPECT_GE(g.rows, 16);
  EXPECT_GE(g.cols, 16);
  // Long fastest axes stay plain 2-D.
  EXPECT_FALSE(plan_of({{64, 3000, 500}, {0, 2, 1}, 4, {}, {}}).geometry().compound());
}

TEST(Planner, ViewsWithoutAUnitStrideAxisGatherSingleWords) {
  // Every input axis strided (a 2-column slice of every 2nd element): no contiguous input axis.
  for (const problem& p : {problem{{4, 5}, {1, 0}, 4, {10, 2}, {}}, problem{{4, 5}, {1, 0}, 4, {}, {8, 2}},
                           problem{{7}, {0}, 2, {3}, {}}}) {
    const xpose::plan plan = plan_of(p);
    EXPECT_EQ(plan.geometry().algo, algorithm::rows) << p;
    EXPECT_EQ(plan.geometry().elem_words, 1) << p;
    EXPECT_TRUE(check_plan(p, "strided view"));
  }
}

TEST(Planner, PrintingAPlanNamesTheAlgorithm) {
  const struct {
    problem p;
    const char* name;
  } cases[] = {{{{8, 8}, {0, 1}, 4, {}, {}}, "copy"},
               {{{3, 4, 50}, {1, 0, 2}, 4, {}, {}}, "rows"},
               {{{64, 32}, {1, 0}, 2, {}, {}}, "transpose2d"}};
  for (const auto& k : cases) {
    const xpose::plan plan = plan_of(k.p);
    std::ostringstream os;
    os << plan;
    EXPECT_NE(os.str().find(k.name), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("xpose::plan"), std::string::npos) << os.str();
    std::ostringstream g;
    g << plan.geometry();
    EXPECT_EQ(g.str().rfind(k.name, 0), 0u) << g.str();  // the geometry line starts with the algorithm
  }
  EXPECT_STREQ(xpose::to_string(algorithm::copy), "copy");
  EXPECT_STREQ(xpose::to_string(algorithm::rows), "rows");
  EXPECT_STREQ(xpose::to_string(algorithm::transpose2d), "transpose2d");
}

TEST(Planner, PrintsTheProblemWithAxesAndStrides) {
  std::ostringstream a;
  a << problem{{2, 3}, {}, 4, {}, {}};
  EXPECT_EQ(a.str(), "shape [2, 3] axes (reversed) elem_bytes 4");
  std::ostringstream b;
  b << problem{{2, 3}, {1, 0}, 2, {4, 1}, {2, 1}};
  EXPECT_EQ(b.str(), "shape [2, 3] axes [1, 0] elem_bytes 2 in_strides [4, 1] out_strides [2, 1]");
}

}  // namespace
