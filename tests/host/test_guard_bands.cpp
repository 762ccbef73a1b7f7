// Guard bands: nothing outside the output view is ever written, and the input is never written.
//
// Every output buffer is its own exact-size heap allocation (so that AddressSanitizer, in the sanitizer
// build, sees any access past it): canary bytes, the view, canary bytes. The view itself may be pitched, so
// canaries also fill the gaps between its rows and between its planes. After each call the test classifies
// every byte of the buffer — before the view, after it, in a gap inside it, or an element of it — and
// requires canaries to be intact and elements to match the naive reference (tests/common/reference.hpp).
// The input buffer, guards included, is checksummed before and after.
//
// Random problems: rank 1..6, random axes (also negative, also the empty "reversed" form), element sizes
// 1..16 and 24, 32, 48, packed or pitched input and output views, base pointers misaligned by 0..63 bytes.
// Each problem runs through every kind of host call (plan::execute_host with 1 thread and with all of them,
// permute_host, transpose_host where the problem is a packed 2-D transpose, and calls that must fail), and
// the problems rotate through every SIMD level the CPU has, with streaming stores forced on for half of
// them so that the line-ownership logic of the streaming transpose is under guard too.
//
// The random seed is fixed and printed; set XPOSE_TEST_SEED to replay another.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/forced_cpu_level.hpp"
#include "common/reference.hpp"
#include "common/test_seed.hpp"
#include "cpu/cpu_features.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::problem;
using xpose::detail::cpu_isa;
using xpose::detail::streaming_mode;

constexpr std::uint64_t default_seed = 20240707;

unsigned char canary(std::int64_t i) { return static_cast<unsigned char>(0xC3 ^ (i * 29)); }

std::uint64_t fnv1a(const unsigned char* p, std::int64_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::int64_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

// One exact-size heap allocation: `before` guard bytes, `span` bytes of view, `after` guard bytes.
struct guarded_buffer {
  std::unique_ptr<unsigned char[]> bytes;
  std::int64_t before = 0, span = 0, after = 0;

  guarded_buffer(std::int64_t before_, std::int64_t span_, std::int64_t after_)
      : bytes(new unsigned char[static_cast<std::size_t>(before_ + span_ + after_)]),
        before(before_), span(span_), after(after_) {}
  std::int64_t size() const { return before + span + after; }
  unsigned char* view() { return bytes.get() + before; }
  const unsigned char* view() const { return bytes.get() + before; }
};

// What a byte of the output buffer is, for the messages.
enum class region : unsigned char { before, gap, element, after };

const char* to_string(region r) {
  switch (r) {
    case region::before: return "the guard before the view";
    case region::gap: return "a gap between rows/planes of the pitched view";
    case region::element: return "an element of the view";
    case region::after: return "the guard after the view";
  }
  return "?";
}

// The whole test state of one problem: input, expected output buffer, and which byte is what.
struct guarded_case {
  problem p;
  std::string context;
  guarded_buffer in;
  std::vector<unsigned char> expected;  // the whole output buffer after a correct call
  std::vector<region> where;            // per byte of the output buffer
  std::int64_t out_before, out_span, out_after;
  std::uint64_t in_checksum = 0;

  guarded_case(const problem& p_, std::string ctx, std::int64_t in_span, std::int64_t out_span_, std::mt19937_64& rng)
      : p(p_), context(std::move(ctx)), in(64 + static_cast<std::int64_t>(rng() % 64), in_span,
                                           64 + static_cast<std::int64_t>(rng() % 64)),
        out_before(64 + static_cast<std::int64_t>(rng() % 64)), out_span(out_span_),
        out_after(64 + static_cast<std::int64_t>(rng() % 64)) {
    const std::vector<unsigned char> bytes = xpose::test::random_bytes(static_cast<std::size_t>(in.size()), rng());
    std::copy(bytes.begin(), bytes.end(), in.bytes.get());
    in_checksum = fnv1a(in.bytes.get(), in.size());

    const std::int64_t n = out_before + out_span + out_after;
    expected.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) expected[i] = canary(i);
    xpose::test::reference_permute(p, in.view(), expected.data() + out_before);

    where.assign(static_cast<std::size_t>(n), region::gap);
    std::fill_n(where.begin(), out_before, region::before);
    std::fill(where.begin() + out_before + out_span, where.end(), region::after);
    xpose::test::for_each_element(p, [&](std::int64_t, std::int64_t o) {
      std::fill_n(where.begin() + out_before + o * p.elem_bytes, p.elem_bytes, region::element);
    });
  }

  guarded_buffer fresh_output() const {
    guarded_buffer out(out_before, out_span, out_after);
    for (std::int64_t i = 0; i < out.size(); ++i) out.bytes[i] = canary(i);
    return out;
  }

  // After a call: the input is unchanged, and the output buffer is `expected` (or, after a call that must
  // fail, all canaries). Records one failure naming the first wrong byte; returns whether all was well.
  bool check(const guarded_buffer& out, const std::string& call, bool written) const {
    if (fnv1a(in.bytes.get(), in.size()) != in_checksum) {
      ADD_FAILURE() << context << ": " << call << " modified its input (guards included)\n  " << p;
      return false;
    }
    for (std::int64_t i = 0; i < out.size(); ++i) {
      const unsigned char want = written ? expected[i] : canary(i);
      if (out.bytes[i] != want) {
        const region r = where[i];
        ADD_FAILURE() << context << ": " << call << ": byte " << i - out_before << " (from the view's base) in "
                      << to_string(r) << " is " << int(out.bytes[i]) << ", expected " << int(want)
                      << (r != region::element ? " (canary)" : "") << "\n  " << p;
        return false;
      }
    }
    return true;
  }
};

using xpose::test::forced_level;

std::vector<cpu_isa> supported_levels() {
  std::vector<cpu_isa> v;
  for (int i = 0; i < xpose::detail::cpu_isa_count; ++i)
    if (xpose::detail::cpu_isa_supported(static_cast<cpu_isa>(i))) v.push_back(static_cast<cpu_isa>(i));
  return v;
}

// ---- random problems -------------------------------------------------------------------------------------

// Strides of a view of `shape` whose axes lie in memory in row-major order (or, one time in six, a shuffled
// order), each axis padded past the block of the faster ones, so that gaps open between rows and planes.
std::vector<std::int64_t> pitched_strides(const std::vector<std::int64_t>& shape, std::mt19937_64& rng) {
  const std::size_t rank = shape.size();
  std::vector<std::size_t> order(rank);
  std::iota(order.rbegin(), order.rend(), 0);  // fastest first
  if (rng() % 6 == 0) std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::int64_t> s(rank);
  std::int64_t next = 1;
  for (const std::size_t a : order) {
    s[a] = next;
    next = next * std::max<std::int64_t>(shape[a], 1) + static_cast<std::int64_t>(rng() % 4 == 0 ? 0 : rng() % 9);
  }
  return s;
}

problem random_problem(std::mt19937_64& rng, std::int64_t max_elements) {
  static constexpr std::int64_t extents[] = {1, 2, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 33, 64, 65};
  static constexpr std::int64_t odd_sizes[] = {24, 32, 48, 3, 6, 12};
  problem p;
  const int rank = 1 + static_cast<int>(rng() % 6);
  p.shape.resize(rank);
  for (auto& e : p.shape) e = extents[rng() % std::size(extents)];
  const auto elements = [&] {
    std::int64_t n = 1;
    for (const auto e : p.shape) n *= e;
    return n;
  };
  while (elements() > max_elements) {
    auto& e = *std::max_element(p.shape.begin(), p.shape.end());
    e = (e + 1) / 2;
  }
  p.elem_bytes = rng() % 4 != 0 ? 1 + static_cast<std::int64_t>(rng() % 16) : odd_sizes[rng() % std::size(odd_sizes)];
  if (rng() % 8 != 0) {  // else empty: reversed
    p.axes.resize(rank);
    std::iota(p.axes.begin(), p.axes.end(), 0);
    std::shuffle(p.axes.begin(), p.axes.end(), rng);
    if (rng() % 4 == 0)
      for (auto& a : p.axes)
        if (rng() % 2 == 0) a -= rank;
  }
  if (rng() % 2 == 0) p.in_strides = pitched_strides(p.shape, rng);
  if (rng() % 2 == 0) p.out_strides = pitched_strides(xpose::test::out_shape(p), rng);
  return p;
}

// Whether `p` is a packed rows x cols -> cols x rows transpose (what transpose_host computes).
bool is_packed_2d_transpose(const problem& p) {
  if (p.shape.size() != 2 || !p.in_strides.empty() || !p.out_strides.empty()) return false;
  return p.axes.empty() || ((p.axes[0] == 1 || p.axes[0] == -1) && (p.axes[1] == 0 || p.axes[1] == -2));
}

// One call on a fresh guarded output: it must succeed and write exactly the expected bytes (`must_fail`:
// it must fail and write nothing). Returns false after recording a failure.
template <class Call>
bool guarded_call(const guarded_case& c, const std::string& name, bool must_fail, const Call& call) {
  guarded_buffer out = c.fresh_output();
  const xpose::status s = call(out.view());
  if (s.is_ok() == must_fail) {
    ADD_FAILURE() << c.context << ": " << name << (must_fail ? " succeeded, expected an error" : " failed: ")
                  << (must_fail ? "" : s.message()) << "\n  " << c.p;
    return false;
  }
  return c.check(out, name, !must_fail);
}

// Runs every kind of host call on `c`; returns false after the first failure.
bool run_every_call(const xpose::plan& plan, const guarded_case& c) {
  const unsigned char* in = c.in.view();
  const problem& p = c.p;
  if (!guarded_call(c, "execute_host(1 thread)", false, [&](void* out) { return plan.execute_host(in, out, 1); }) ||
      !guarded_call(c, "execute_host(all threads)", false, [&](void* out) { return plan.execute_host(in, out, 0); }) ||
      !guarded_call(c, "permute_host(2 threads)", false, [&](void* out) { return xpose::permute_host(in, out, p, 2); }))
    return false;
  if (is_packed_2d_transpose(p) &&
      !guarded_call(c, "transpose_host", false, [&](void* out) {
        return xpose::transpose_host(in, out, p.shape[0], p.shape[1], p.elem_bytes, 0);
      }))
    return false;
  // Calls that must fail touch nothing: a bad thread count; an output overlapping the input (it would be
  // written if the check were missing, which the input checksum sees).
  if (!guarded_call(c, "execute_host(threads = -3)", true, [&](void* out) { return plan.execute_host(in, out, -3); }))
    return false;
  if (plan.payload_bytes() > 0 &&
      !guarded_call(c, "execute_host(in, in)", true,
                    [&](void*) { return plan.execute_host(in, const_cast<unsigned char*>(in)); }))
    return false;
  return true;
}

TEST(GuardBands, RandomProblemsWriteOnlyTheirOutputView) {
  const std::uint64_t seed = xpose::test::announced_test_seed(default_seed);
  std::mt19937_64 rng(seed);
  const std::vector<cpu_isa> levels = supported_levels();
  ASSERT_FALSE(levels.empty());

  constexpr int problems = 2000;
  int supported = 0, unsupported = 0;
  for (int i = 0; i < problems && !HasFailure(); ++i) {
    // Mostly small (quick under sanitizers); every 30th large enough to split across threads.
    const problem p = random_problem(rng, i % 30 == 0 ? 60000 : 3000);
    const cpu_isa isa = levels[static_cast<std::size_t>(i) % levels.size()];
    const streaming_mode mode = (i / levels.size()) % 2 == 0 ? streaming_mode::automatic : streaming_mode::always;
    const forced_level level(isa, mode);
    ASSERT_TRUE(level.ok());
    std::ostringstream ctx;
    ctx << "problem #" << i << " (seed " << seed << ", " << xpose::detail::to_string(isa)
        << (mode == streaming_mode::always ? ", streaming forced" : "") << ")";
    auto plan = xpose::make_plan(p);
    if (!plan) {
      ASSERT_EQ(plan.error().code(), xpose::status_code::unsupported) << ctx.str() << ": " << plan.error() << "\n  " << p;
      ++unsupported;
      continue;
    }
    ++supported;
    const guarded_case c(p, ctx.str(), plan->in_span_bytes(), plan->out_span_bytes(), rng);
    run_every_call(*plan, c);
  }
  std::cout << "[ problems ] " << supported << " run, " << unsupported << " unsupported (skipped), levels";
  for (const cpu_isa l : levels) std::cout << ' ' << xpose::detail::to_string(l);
  std::cout << '\n';
  if (!HasFailure()) EXPECT_GE(supported, problems * 9 / 10) << "most random problems should be supported";
}

TEST(GuardBands, OutputLargerThanTheLastLevelCacheStreamsInsideItsView) {
  // The streaming transpose writes whole 64-byte lines with non-temporal stores; its first and last tiles own
  // partial lines. With the output larger than the LLC it runs by the heuristic, here on a misaligned base
  // and an odd pitch, so that the view's first and last lines and every row end are partial.
  const std::int64_t llc = xpose::detail::host_caches().llc;
  const std::int64_t rows = 1031, cols = llc / (4 * rows) + 97, out_ld = rows + 5;
  const problem p{{rows, cols}, {1, 0}, 4, {}, {out_ld, 1}};
  auto plan = xpose::make_plan(p);
  ASSERT_TRUE(plan) << plan.error();
  ASSERT_GE(plan->out_span_bytes(), llc);
  std::mt19937_64 rng(xpose::test::test_seed(default_seed) + 1);
  const guarded_case c(p, "output > LLC", plan->in_span_bytes(), plan->out_span_bytes(), rng);
  for (const int threads : {1, 0}) {
    guarded_buffer out = c.fresh_output();
    ASSERT_TRUE(plan->execute_host(c.in.view(), out.view(), threads));
    ASSERT_TRUE(c.check(out, "execute_host(" + std::to_string(threads) + " threads)", true));
  }
}

TEST(GuardBands, TheCheckerSeesAWriteOutsideTheView) {
  // The checker itself: one byte written into a gap, one into each guard, one wrong element — each noticed.
  const problem p{{3, 5}, {1, 0}, 4, {}, {4, 1}};  // output 5 x 3 with rows 4 apart: one-element gaps
  std::mt19937_64 rng(1);
  auto plan = xpose::make_plan(p);
  ASSERT_TRUE(plan);
  const guarded_case c(p, "checker", plan->in_span_bytes(), plan->out_span_bytes(), rng);
  for (const std::int64_t at : {std::int64_t{-1}, std::int64_t{12}, c.out_span, std::int64_t{0}}) {
    guarded_buffer out = c.fresh_output();
    ASSERT_TRUE(plan->execute_host(c.in.view(), out.view(), 1));
    out.view()[at] ^= 0xFF;
    ::testing::TestPartResultArray failures;
    {
      ::testing::ScopedFakeTestPartResultReporter reporter(&failures);
      EXPECT_FALSE(c.check(out, "tampered", true));
    }
    ASSERT_EQ(failures.size(), 1) << "byte " << at;
  }
}

}  // namespace
