// The C API seen from C++: its codes are the C++ codes, its messages are the C++ messages word for word, the
// boundary turns exceptions into codes, and the last message is per thread. (tests/c/test_c_api.c drives the
// API from C99; this file checks what needs the C++ side to compare with.)
#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "api/c_boundary.hpp"
#include "xpose/inplace.hpp"
#include "xpose/plan.hpp"
#include "xpose/status.hpp"
#include "xpose/xpose.h"

namespace {

using xpose::status;
using xpose::status_code;

TEST(CApi, CodesAreTheCppCodes) {
  for (int c = 0; c <= 6; ++c) {
    const auto code = static_cast<status_code>(c);
    EXPECT_STREQ(xpose_status_string(static_cast<xpose_status>(c)), xpose::to_string(code));
  }
  EXPECT_EQ(XPOSE_SUCCESS, static_cast<int>(status_code::success));
  EXPECT_EQ(XPOSE_INVALID_ARGUMENT, static_cast<int>(status_code::invalid_argument));
  EXPECT_EQ(XPOSE_UNSUPPORTED, static_cast<int>(status_code::unsupported));
  EXPECT_EQ(XPOSE_MISALIGNED, static_cast<int>(status_code::misaligned));
  EXPECT_EQ(XPOSE_OUT_OF_MEMORY, static_cast<int>(status_code::out_of_memory));
  EXPECT_EQ(XPOSE_CUDA_ERROR, static_cast<int>(status_code::cuda_error));
  EXPECT_EQ(XPOSE_INTERNAL, static_cast<int>(status_code::internal));
  EXPECT_STREQ(xpose_status_string(static_cast<xpose_status>(7)), "unknown");
}

TEST(CApi, VersionMacrosAndStringMatchTheProject) {
  EXPECT_STREQ(XPOSE_VERSION_STRING, XPOSE_PROJECT_VERSION);
  EXPECT_STREQ(xpose_version_string(), XPOSE_PROJECT_VERSION);
  EXPECT_EQ(std::to_string(XPOSE_VERSION_MAJOR) + "." + std::to_string(XPOSE_VERSION_MINOR) + "." +
                std::to_string(XPOSE_VERSION_PATCH),
            XPOSE_PROJECT_VERSION);
}

// The C++ planner's status for a problem, to compare the C call's outcome with.
status planner_status(const xpose::problem& p) {
  auto plan = xpose::make_plan(p);
  return plan ? status::ok() : plan.error();
}

TEST(CApi, PlannerErrorsPassThroughWithTheirCodeAndMessage) {
  const std::int64_t shape[3] = {2, 3, 4}, negative[3] = {2, -3, 4}, repeated[3] = {0, 2, 2};
  const std::int64_t out_of_range[3] = {0, 1, 5}, bad_in[3] = {12, 4, -1}, bad_out[3] = {12, 0, 1};
  struct c_case {
    const std::int64_t* shape;
    const std::int64_t* axes;
    std::int64_t elem_bytes;
    const std::int64_t* in_strides;
    const std::int64_t* out_strides;
  };
  const c_case cases[] = {
      {negative, nullptr, 4, nullptr, nullptr},    {shape, repeated, 4, nullptr, nullptr},
      {shape, out_of_range, 4, nullptr, nullptr},  {shape, nullptr, 0, nullptr, nullptr},
      {shape, nullptr, -8, nullptr, nullptr},      {shape, nullptr, 4, bad_in, nullptr},
      {shape, nullptr, 4, nullptr, bad_out},
  };
  auto vec = [](const std::int64_t* a) {
    return a != nullptr ? std::vector<std::int64_t>(a, a + 3) : std::vector<std::int64_t>{};
  };
  for (const c_case& c : cases) {
    const status want =
        planner_status({vec(c.shape), vec(c.axes), c.elem_bytes, vec(c.in_strides), vec(c.out_strides)});
    ASSERT_FALSE(want.is_ok());
    xpose_plan plan = nullptr;
    EXPECT_EQ(static_cast<int>(xpose_plan_create(&plan, 3, c.shape, c.axes, c.elem_bytes, c.in_strides, c.out_strides)),
              static_cast<int>(want.code()));
    EXPECT_EQ(xpose_last_error_message(), want.message());
    EXPECT_EQ(plan, nullptr);
  }
  // Rank 9: the planner's message, though the C layer read none of the (absent) arrays.
  xpose_plan plan = nullptr;
  EXPECT_EQ(xpose_plan_create(&plan, 9, nullptr, nullptr, 4, nullptr, nullptr), XPOSE_INVALID_ARGUMENT);
  EXPECT_EQ(xpose_last_error_message(), planner_status({std::vector<std::int64_t>(9, 1), {}, 4, {}, {}}).message());
}

TEST(CApi, InplaceAndExecuteErrorsPassThrough) {
  auto want = xpose::make_inplace_plan({.rows = 4, .cols = 6, .elem_bytes = 4, .batch = 1, .ld = 8});
  ASSERT_FALSE(want);
  xpose_inplace_plan ip = nullptr;
  EXPECT_EQ(xpose_inplace_plan_create(&ip, 4, 6, 4, 1, 8, 0), XPOSE_INVALID_ARGUMENT);
  EXPECT_EQ(xpose_last_error_message(), want.error().message());

  auto cpp = xpose::make_plan({{3, 4}, {1, 0}, 4, {}, {}});
  ASSERT_TRUE(cpp);
  const std::int64_t shape[2] = {3, 4};
  xpose_plan plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, 2, shape, nullptr, 4, nullptr, nullptr), XPOSE_SUCCESS);
  float buf[24] = {};
  const status overlap = cpp->execute_host(buf, buf + 5);
  EXPECT_EQ(static_cast<int>(xpose_plan_execute_host(plan, buf, buf + 5, 0)), static_cast<int>(overlap.code()));
  EXPECT_EQ(xpose_last_error_message(), overlap.message());
  const status gpu = cpp->execute(buf, buf + 12);  // unsupported without CUDA; refused host memory with it
  EXPECT_EQ(static_cast<int>(xpose_plan_execute(plan, buf, buf + 12, nullptr)), static_cast<int>(gpu.code()));
  EXPECT_EQ(xpose_last_error_message(), gpu.message());
  xpose_plan_destroy(plan);
}

TEST(CApi, DescribeIsTheCppPrintout) {
  auto cpp = xpose::make_plan({{2, 3, 4, 5}, {0, 2, 3, 1}, 4, {}, {}});
  ASSERT_TRUE(cpp);
  std::ostringstream os;
  os << *cpp;
  const std::int64_t shape[4] = {2, 3, 4, 5}, axes[4] = {0, 2, 3, 1};
  xpose_plan plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, 4, shape, axes, 4, nullptr, nullptr), XPOSE_SUCCESS);
  std::size_t needed = 0;
  ASSERT_EQ(xpose_plan_describe(plan, nullptr, 0, &needed), XPOSE_SUCCESS);
  EXPECT_EQ(needed, os.str().size() + 1);
  std::string text(needed, '?');
  ASSERT_EQ(xpose_plan_describe(plan, text.data(), text.size(), &needed), XPOSE_SUCCESS);
  EXPECT_EQ(text.c_str(), os.str());
  std::int64_t bytes = 0;
  ASSERT_EQ(xpose_plan_bytes_moved(plan, &bytes), XPOSE_SUCCESS);
  EXPECT_EQ(bytes, cpp->bytes_moved());
  xpose_plan_destroy(plan);
}

TEST(CApi, BoundaryTurnsExceptionsIntoCodes) {
  using xpose::detail::c_boundary;
  EXPECT_EQ(c_boundary([]() -> status { throw std::bad_alloc(); }), XPOSE_OUT_OF_MEMORY);
  EXPECT_NE(std::string(xpose_last_error_message()).find("out of memory: std::bad_alloc"), std::string::npos)
      << xpose_last_error_message();
  EXPECT_EQ(c_boundary([]() -> status { throw std::runtime_error("boom"); }), XPOSE_INTERNAL);
  EXPECT_NE(std::string(xpose_last_error_message()).find("boom"), std::string::npos) << xpose_last_error_message();
  EXPECT_EQ(c_boundary([]() -> status { throw 42; }), XPOSE_INTERNAL);
  EXPECT_NE(std::string(xpose_last_error_message()).find("not a std::exception"), std::string::npos);
  EXPECT_EQ(c_boundary([] { return status(status_code::misaligned, "d_in is odd"); }), XPOSE_MISALIGNED);
  EXPECT_STREQ(xpose_last_error_message(), "d_in is odd");
  EXPECT_EQ(c_boundary([] { return status::ok(); }), XPOSE_SUCCESS);
  EXPECT_STREQ(xpose_last_error_message(), "");
}

TEST(CApi, TheLastMessageIsPerThread) {
  const std::int64_t negative[2] = {3, -4};
  xpose_plan plan = nullptr;
  ASSERT_EQ(xpose_plan_create(&plan, 2, negative, nullptr, 4, nullptr, nullptr), XPOSE_INVALID_ARGUMENT);
  const std::string mine = xpose_last_error_message();
  std::string theirs_before, theirs_after;
  std::thread other([&] {
    theirs_before = xpose_last_error_message();  // nothing called on this thread yet
    (void)xpose_plan_create(nullptr, 2, negative, nullptr, 4, nullptr, nullptr);
    theirs_after = xpose_last_error_message();
  });
  other.join();
  EXPECT_EQ(theirs_before, "");
  EXPECT_NE(theirs_after.find("plan is null"), std::string::npos);
  EXPECT_EQ(xpose_last_error_message(), mine);
  EXPECT_NE(mine.find("shape[1] = -4"), std::string::npos);
}

}  // namespace
