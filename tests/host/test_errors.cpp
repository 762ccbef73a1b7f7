// Every error path of make_plan, plan::execute_host, plan::execute and the one-shot conveniences: each
// returns the documented status code, and a message that names the argument at fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/reference.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::problem;
using xpose::status_code;

constexpr std::int64_t big = std::int64_t{1} << 62;

// Expects make_plan(p) to fail with `code` and a message containing `names`.
void expect_plan_error(const problem& p, status_code code, const std::string& names) {
  auto plan = xpose::make_plan(p);
  ASSERT_FALSE(plan) << "expected an error naming '" << names << "' for " << p;
  EXPECT_EQ(plan.error().code(), code) << plan.error() << "\n  for " << p;
  EXPECT_NE(plan.error().message().find(names), std::string::npos)
      << "message '" << plan.error().message() << "' does not name '" << names << "'";
}

void expect_status(const xpose::status& s, status_code code, const std::string& names) {
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_NE(s.message().find(names), std::string::npos)
      << "message '" << s.message() << "' does not name '" << names << "'";
}

// ---- make_plan: the problem -----------------------------------------------------------------------------

TEST(Errors, NegativeExtentNamesTheAxis) {
  expect_plan_error({{2, -3}, {1, 0}, 4, {}, {}}, status_code::invalid_argument, "shape[1]");
  expect_plan_error({{-1}, {}, 1, {}, {}}, status_code::invalid_argument, "shape[0]");
}

TEST(Errors, MoreThanEightAxes) {
  expect_plan_error({std::vector<std::int64_t>(9, 2), {}, 4, {}, {}}, status_code::invalid_argument, "shape");
  // Eight is fine.
  EXPECT_TRUE(xpose::make_plan({std::vector<std::int64_t>(8, 2), {}, 4, {}, {}}));
}

TEST(Errors, AxesOfTheWrongLength) {
  expect_plan_error({{2, 3}, {0}, 4, {}, {}}, status_code::invalid_argument, "axes");
  expect_plan_error({{2, 3}, {0, 1, 2}, 4, {}, {}}, status_code::invalid_argument, "axes");
  expect_plan_error({{}, {0}, 4, {}, {}}, status_code::invalid_argument, "axes");
}

TEST(Errors, AxesOutOfRangeNameTheEntry) {
  expect_plan_error({{2, 3}, {0, 2}, 4, {}, {}}, status_code::invalid_argument, "axes[1]");
  expect_plan_error({{2, 3}, {-3, 0}, 4, {}, {}}, status_code::invalid_argument, "axes[0]");
  // -rank .. rank-1 are all valid.
  EXPECT_TRUE(xpose::make_plan({{2, 3}, {-1, -2}, 4, {}, {}}));
}

TEST(Errors, RepeatedAxesNameTheRepeat) {
  expect_plan_error({{2, 3, 4}, {0, 1, 1}, 4, {}, {}}, status_code::invalid_argument, "axes[2]");
  // -1 and 2 are the same axis of a rank-3 array.
  expect_plan_error({{2, 3, 4}, {2, 0, -1}, 4, {}, {}}, status_code::invalid_argument, "axes[2]");
}

TEST(Errors, ElementSizeMustBePositive) {
  expect_plan_error({{2, 3}, {1, 0}, 0, {}, {}}, status_code::invalid_argument, "elem_bytes");
  expect_plan_error({{2, 3}, {1, 0}, -4, {}, {}}, status_code::invalid_argument, "elem_bytes");
}

TEST(Errors, ShapeTimesElementSizeOverflowing64Bits) {
  // 2^62 elements of 4 bytes: the byte count overflows.
  expect_plan_error({{std::int64_t{1} << 31, std::int64_t{1} << 31}, {1, 0}, 4, {}, {}},
                    status_code::invalid_argument, "elem_bytes");
  // The element count itself overflows.
  expect_plan_error({{std::int64_t{1} << 32, std::int64_t{1} << 32}, {1, 0}, 1, {}, {}},
                    status_code::invalid_argument, "shape");
  // The bytes fit but twice them (read + written, plan::bytes_moved) do not: 2^61 elements of 2 bytes.
  expect_plan_error({{std::int64_t{1} << 31, std::int64_t{1} << 30}, {1, 0}, 2, {}, {}},
                    status_code::invalid_argument, "read plus written");
  EXPECT_TRUE(xpose::make_plan({{std::int64_t{1} << 31, std::int64_t{1} << 30}, {1, 0}, 1, {}, {}}));
  // A zero extent makes any other extent harmless: the array is empty.
  EXPECT_TRUE(xpose::make_plan({{0, big, big}, {}, 16, {}, {}}));
}

// ---- make_plan: strides ------------------------------------------------------------------------------

TEST(Errors, StridesOfTheWrongLength) {
  expect_plan_error({{2, 3}, {1, 0}, 4, {1}, {}}, status_code::invalid_argument, "in_strides");
  expect_plan_error({{2, 3}, {1, 0}, 4, {}, {2, 1, 1}}, status_code::invalid_argument, "out_strides");
}

TEST(Errors, NegativeInputStrideNamesTheAxis) {
  expect_plan_error({{2, 3}, {1, 0}, 4, {3, -1}, {}}, status_code::invalid_argument, "in_strides[1]");
  // 0 broadcasts and is valid.
  EXPECT_TRUE(xpose::make_plan({{2, 3}, {1, 0}, 4, {0, 1}, {}}));
  // An input axis of extent 1 (or 0) is never stepped: any stride, as NumPy gives x[::-1] of one row.
  auto one = xpose::make_plan({{1, 3}, {1, 0}, 4, {-3, 1}, {}});
  ASSERT_TRUE(one) << one.error();
  const float in[3] = {1.5f, 2.5f, 3.5f};
  float out[3] = {0, 0, 0};
  ASSERT_TRUE(one->execute_host(in, out));
  EXPECT_EQ(out[0], 1.5f);
  EXPECT_EQ(out[2], 3.5f);
  EXPECT_TRUE(xpose::make_plan({{0, 3}, {1, 0}, 4, {-7, 1}, {}}));
}

TEST(Errors, ZeroOutputStrideNamesTheAxis) {
  expect_plan_error({{2, 3}, {1, 0}, 4, {}, {2, 0}}, status_code::invalid_argument, "out_strides[1]");
  expect_plan_error({{2, 3}, {1, 0}, 4, {}, {-2, 1}}, status_code::invalid_argument, "out_strides[0]");
  // An output axis of extent 1 may have any stride: it is never stepped.
  EXPECT_TRUE(xpose::make_plan({{2, 1}, {1, 0}, 4, {}, {0, 1}}));
}

TEST(Errors, SelfOverlappingOutputStrides) {
  // Output 3 x 2 with strides {1, 1}: elements (0, 1) and (1, 0) land on the same address.
  expect_plan_error({{2, 3}, {1, 0}, 4, {}, {1, 1}}, status_code::invalid_argument, "out_strides");
  // Rows 2 elements apart but 3 elements long.
  expect_plan_error({{4, 3}, {0, 1}, 4, {}, {2, 1}}, status_code::invalid_argument, "out_strides");
  // Pitched rows are fine.
  EXPECT_TRUE(xpose::make_plan({{4, 3}, {0, 1}, 4, {}, {5, 1}}));
}

TEST(Errors, StrideTimesExtentOverflowing64Bits) {
  // (4 - 1) x 2^62 overflows the element offset.
  expect_plan_error({{4, 2}, {1, 0}, 4, {big, 1}, {}}, status_code::invalid_argument, "in_strides");
  // The element offset 2^62 + 1 fits, the byte offset (x 4 bytes) does not.
  expect_plan_error({{2, 2}, {1, 0}, 4, {big, 1}, {}}, status_code::invalid_argument, "in_strides");
  expect_plan_error({{4, 4}, {0, 1}, 4, {}, {big, 1}}, status_code::invalid_argument, "out_strides");
}

TEST(Errors, OffsetsOnePastTheEndOfAnAxisMustFit64Bits) {
  // The span (2^62 + 2 bytes) fits, but one step past axis 0 (2 x 2^62) does not: the executors compute
  // such offsets, so the view is refused rather than left to overflow.
  expect_plan_error({{2, 2}, {1, 0}, 1, {big, 1}, {}}, status_code::invalid_argument, "in_strides[0]");
  expect_plan_error({{2, 2}, {0, 1}, 1, {}, {big, 1}}, status_code::invalid_argument, "out_strides[0]");
  // Half of that is fine.
  EXPECT_TRUE(xpose::make_plan({{2, 2}, {1, 0}, 1, {big / 2, 1}, {}}));
  // The offsets fit, their product with elem_bytes does not.
  expect_plan_error({{2, 2}, {1, 0}, 16, {big / 4, 1}, {}}, status_code::invalid_argument, "elem_bytes");
}

TEST(Errors, AxesOfExtentOneMayHaveAnyStride) {
  // Regression (UBSan): the stride of an extent-1 axis was scaled by the words per element (3 for 12 bytes)
  // before the axis was dropped, a signed overflow. Such strides are never stepped and must be harmless.
  constexpr std::int64_t max = INT64_MAX, min = INT64_MIN;
  for (const problem& p : {problem{{1, 5}, {1, 0}, 12, {max, 1}, {}}, problem{{5, 1}, {1, 0}, 12, {}, {min, 1}},
                           problem{{5, 1}, {1, 0}, 6, {}, {max, 1}}, problem{{1, 1}, {}, 24, {max, max}, {min, max}}}) {
    auto plan = xpose::make_plan(p);
    ASSERT_TRUE(plan) << plan.error() << "\n  for " << p;
    const std::int64_t packed_bytes = p.shape[0] * p.shape[1] * p.elem_bytes;
    EXPECT_EQ(plan->in_span_bytes(), packed_bytes) << p;
    EXPECT_EQ(plan->out_span_bytes(), packed_bytes) << p;
    std::vector<unsigned char> in(static_cast<std::size_t>(plan->in_span_bytes()));
    std::vector<unsigned char> out(static_cast<std::size_t>(plan->out_span_bytes()), 0), expected(out);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i + 1);
    ASSERT_TRUE(plan->execute_host(in.data(), out.data(), 1)) << p;
    xpose::test::reference_permute({p.shape, p.axes, p.elem_bytes, {}, {}}, in.data(), expected.data());
    EXPECT_EQ(out, expected) << p;
  }
}

// ---- plan::execute_host -------------------------------------------------------------------------------

class HostBuffers : public ::testing::Test {
 protected:
  std::vector<float> in = std::vector<float>(12, 1.0f);
  std::vector<float> out = std::vector<float>(12, 0.0f);
  xpose::plan plan = std::move(xpose::make_plan({{3, 4}, {1, 0}, 4, {}, {}})).value();
};

TEST_F(HostBuffers, NullInput) {
  expect_status(plan.execute_host(nullptr, out.data()), status_code::invalid_argument, "in is null");
}

TEST_F(HostBuffers, NullOutput) {
  expect_status(plan.execute_host(in.data(), nullptr), status_code::invalid_argument, "out is null");
}

TEST_F(HostBuffers, OverlappingBuffers) {
  expect_status(plan.execute_host(in.data(), in.data()), status_code::invalid_argument, "overlap");
  // One element of overlap is enough.
  std::vector<float> both(24, 1.0f);
  const xpose::status s = plan.execute_host(both.data(), both.data() + 11);
  expect_status(s, status_code::invalid_argument, "in and out");
  // Adjacent but disjoint is fine.
  EXPECT_TRUE(plan.execute_host(both.data(), both.data() + 12));
}

TEST_F(HostBuffers, ViewsRunningPastTheEndOfTheAddressSpace) {
  // A pointer near the top of the address space: base + span would wrap to small addresses (and defeat the
  // overlap test). Refused before anything is read or written.
  const auto top = reinterpret_cast<const void*>(UINTPTR_MAX - 15);
  expect_status(plan.execute_host(top, out.data()), status_code::invalid_argument, "in = ");
  expect_status(plan.execute_host(in.data(), const_cast<void*>(top)), status_code::invalid_argument, "out = ");
  expect_status(plan.execute_host(top, out.data()), status_code::invalid_argument, "address space");
  // The GPU path runs the same check first, with its argument names.
  expect_status(plan.execute(top, out.data()), status_code::invalid_argument, "d_in = ");
  expect_status(plan.execute(in.data(), const_cast<void*>(top)), status_code::invalid_argument, "d_out = ");
  for (const float v : out) EXPECT_EQ(v, 0.0f);
}

TEST_F(HostBuffers, NegativeThreadCount) {
  expect_status(plan.execute_host(in.data(), out.data(), -1), status_code::invalid_argument, "threads");
  EXPECT_TRUE(plan.execute_host(in.data(), out.data(), 0));
  EXPECT_TRUE(plan.execute_host(in.data(), out.data(), 1000));  // more threads than work: clamped
}

#if defined(__linux__)
// Threads of this process now (Linux: /proc/self/status), or -1.
int process_threads() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "Threads:") {
      int n = -1;
      status >> n;
      return n;
    }
    std::getline(status, key);
  }
  return -1;
}
#endif

TEST(Errors, ThreadRequestsAreCappedAtTheHardwareThreads) {
  // Regression: a request for thousands of threads on a problem large enough to give each a slice made
  // OpenMP start them all, and libgomp ends the process when the system refuses a thread ("Thread creation
  // failed"). Requests above the hardware threads are capped. OpenMP keeps a team's threads parked after
  // the region, so the process's thread count afterwards shows how many were started.
#if !defined(__linux__)
  GTEST_SKIP() << "counts threads through /proc/self/status";
#else
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int before = process_threads();
  ASSERT_GT(before, 0);
  std::vector<float> in(2048 * 2048, 1.0f), out(in.size());  // 16 MiB: 512 slices of 32 KiB
  ASSERT_TRUE(xpose::transpose_host(static_cast<const void*>(in.data()), out.data(), 2048, 2048, std::int64_t{4},
                                    1 << 20));
  EXPECT_LE(process_threads(), std::max(before, hw + 1) + 2) << "more threads than the " << hw << " hardware threads";
  EXPECT_EQ(out[1], in[2048]);
#endif
}

TEST(Errors, NegativeThreadCountIsRejectedEvenForAnEmptyProblem) {
  // The thread count is an argument like any other: its validity must not depend on the array's size.
  auto plan = xpose::make_plan({{0, 4}, {1, 0}, 4, {}, {}});
  ASSERT_TRUE(plan);
  expect_status(plan->execute_host(nullptr, nullptr, -1), status_code::invalid_argument, "threads");
}

TEST(Errors, NullPointersAreAllowedForEmptyProblems) {
  for (const problem& p : {problem{{0, 4}, {1, 0}, 4, {}, {}}, problem{{3, 0, 2}, {}, 3, {}, {}}}) {
    auto plan = xpose::make_plan(p);
    ASSERT_TRUE(plan) << plan.error();
    EXPECT_TRUE(plan->execute_host(nullptr, nullptr)) << p;
    EXPECT_TRUE(plan->execute(nullptr, nullptr)) << p;
    EXPECT_TRUE(xpose::permute_host(nullptr, nullptr, p)) << p;
  }
  EXPECT_TRUE(xpose::transpose_host(nullptr, nullptr, 0, 5, 4));
  EXPECT_TRUE(xpose::transpose_host(static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 7, 0));
}

// ---- plan::execute (GPU) -------------------------------------------------------------------------------

TEST(Errors, GpuExecuteChecksPointersFirst) {
  // Null pointers are rejected with or without CUDA, with or without a device.
  auto plan = xpose::make_plan({{3, 4}, {1, 0}, 4, {}, {}});
  ASSERT_TRUE(plan);
  expect_status(plan->execute(nullptr, nullptr), status_code::invalid_argument, "d_in");
  float dummy[12] = {};
  expect_status(plan->execute(dummy, nullptr), status_code::invalid_argument, "d_out");
  // So are overlapping ones: the test needs no device, only the two address ranges.
  float both[24] = {};
  expect_status(plan->execute(both, both + 11), status_code::invalid_argument, "d_in and d_out overlap");
  expect_status(xpose::permute(nullptr, nullptr, {{3, 4}, {1, 0}, 4, {}, {}}), status_code::invalid_argument, "d_in");
  expect_status(xpose::transpose(nullptr, nullptr, 3, 4, 4), status_code::invalid_argument, "d_in");
  expect_status(xpose::transpose_batched(nullptr, nullptr, 2, 3, 4, 4), status_code::invalid_argument, "d_in");
}

#if !XPOSE_HAS_CUDA
TEST(Errors, GpuExecuteIsUnsupportedWithoutCuda) {
  auto plan = xpose::make_plan({{3, 4}, {1, 0}, 4, {}, {}});
  ASSERT_TRUE(plan);
  std::vector<float> in(12, 1.0f), out(12, 0.0f);
  expect_status(plan->execute(in.data(), out.data()), status_code::unsupported, "CUDA");
  expect_status(xpose::permute(in.data(), out.data(), {{3, 4}, {1, 0}, 4, {}, {}}), status_code::unsupported, "CUDA");
  expect_status(xpose::transpose(in.data(), out.data(), 3, 4, 4), status_code::unsupported, "CUDA");
  expect_status(xpose::transpose<float>(in.data(), out.data(), 3, 4), status_code::unsupported, "CUDA");
  expect_status(xpose::transpose_batched(in.data(), out.data(), 1, 3, 4, 4), status_code::unsupported, "CUDA");
}
#endif

// ---- one-shot conveniences forward the planner's errors ---------------------------------------------------

TEST(Errors, PermuteHostReportsPlanAndBufferErrors) {
  std::vector<float> in(12, 1.0f), out(12, 0.0f);
  expect_status(xpose::permute_host(in.data(), out.data(), {{3, 4}, {0, 0}, 4, {}, {}}), status_code::invalid_argument,
                "axes[1]");
  expect_status(xpose::permute_host(nullptr, out.data(), {{3, 4}, {1, 0}, 4, {}, {}}), status_code::invalid_argument,
                "in is null");
  expect_status(xpose::permute_host(in.data(), out.data(), {{3, 4}, {1, 0}, 4, {}, {}}, -2),
                status_code::invalid_argument, "threads");
}

TEST(Errors, TransposeHostReportsPlanAndBufferErrors) {
  // elem_bytes through std::int64_t variables; literals work too (CpuExecutor.TransposeHostHonoursElemBytes).
  std::vector<float> in_f(12, 1.0f), out_f(12, 0.0f);
  const void* in = in_f.data();
  void* out = out_f.data();
  const std::int64_t four = 4, zero = 0;
  expect_status(xpose::transpose_host(in, out, -3, 4, four), status_code::invalid_argument, "shape[0]");
  expect_status(xpose::transpose_host(in, out, 3, -4, four), status_code::invalid_argument, "shape[1]");
  expect_status(xpose::transpose_host(in, out, 3, 4, zero), status_code::invalid_argument, "elem_bytes");
  expect_status(xpose::transpose_host(in, nullptr, 3, 4, four), status_code::invalid_argument, "out is null");
  expect_status(xpose::transpose_host(nullptr, out, 3, 4, four), status_code::invalid_argument, "in is null");
  expect_status(xpose::transpose_host(in, in_f.data(), 3, 4, four), status_code::invalid_argument, "overlap");
  expect_status(xpose::transpose_host(in, out, 3, 4, four, -1), status_code::invalid_argument, "threads");
  EXPECT_TRUE(xpose::transpose_host(in, out, 3, 4, four, 1));
  // The typed front-end forwards the same errors.
  expect_status(xpose::transpose_host(in_f.data(), out_f.data(), -3, 4), status_code::invalid_argument, "shape[0]");
  expect_status(xpose::transpose_host(in_f.data(), static_cast<float*>(nullptr), 3, 4), status_code::invalid_argument,
                "out is null");
}

TEST(Errors, ErrorsLeaveTheOutputUntouched) {
  std::vector<float> in(12, 1.0f), out(12, -7.0f);
  EXPECT_FALSE(xpose::transpose_host(static_cast<const void*>(in.data()), out.data(), 3, 4, std::int64_t{4}, -1));
  EXPECT_FALSE(xpose::permute_host(in.data(), out.data(), {{3, 4}, {1, 1}, 4, {}, {}}));
  for (const float v : out) EXPECT_EQ(v, -7.0f);
}

}  // namespace
