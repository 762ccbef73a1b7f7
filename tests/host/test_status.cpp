// xpose::status, xpose::result and xpose::version: the small value types every call returns.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "xpose/status.hpp"
#include "xpose/version.hpp"

namespace {

using xpose::result;
using xpose::status;
using xpose::status_code;

TEST(Status, DefaultConstructedIsSuccessWithNoMessage) {
  const status s;
  EXPECT_TRUE(s.is_ok());
  EXPECT_TRUE(static_cast<bool>(s));
  EXPECT_EQ(s.code(), status_code::success);
  EXPECT_TRUE(s.message().empty());
  const status ok = status::ok();
  EXPECT_TRUE(ok.is_ok());
  EXPECT_EQ(ok.code(), status_code::success);
}

TEST(Status, ErrorCarriesCodeAndMessage) {
  const status s(status_code::invalid_argument, "shape[1] = -3 is negative");
  EXPECT_FALSE(s.is_ok());
  EXPECT_FALSE(static_cast<bool>(s));
  EXPECT_EQ(s.code(), status_code::invalid_argument);
  EXPECT_EQ(s.message(), "shape[1] = -3 is negative");
}

TEST(Status, PrintsCodeThenMessage) {
  std::ostringstream a;
  a << status(status_code::unsupported, "no GPU");
  EXPECT_EQ(a.str(), "unsupported: no GPU");
  std::ostringstream b;
  b << status::ok();
  EXPECT_EQ(b.str(), "success");
  std::ostringstream c;
  c << status_code::cuda_error;
  EXPECT_EQ(c.str(), "cuda_error");
}

TEST(Status, ToStringNamesEveryCode) {
  EXPECT_STREQ(to_string(status_code::success), "success");
  EXPECT_STREQ(to_string(status_code::invalid_argument), "invalid_argument");
  EXPECT_STREQ(to_string(status_code::unsupported), "unsupported");
  EXPECT_STREQ(to_string(status_code::misaligned), "misaligned");
  EXPECT_STREQ(to_string(status_code::out_of_memory), "out_of_memory");
  EXPECT_STREQ(to_string(status_code::cuda_error), "cuda_error");
  EXPECT_STREQ(to_string(status_code::internal), "internal");
  EXPECT_STREQ(to_string(static_cast<status_code>(99)), "unknown");
}

TEST(Status, ToStringIsUsableAtCompileTime) {
  static_assert(to_string(status_code::misaligned)[0] == 'm');
  SUCCEED();
}

TEST(Status, CodeValuesAreTheStableCApiNumbers) {
  EXPECT_EQ(static_cast<int>(status_code::success), 0);
  EXPECT_EQ(static_cast<int>(status_code::invalid_argument), 1);
  EXPECT_EQ(static_cast<int>(status_code::unsupported), 2);
  EXPECT_EQ(static_cast<int>(status_code::misaligned), 3);
  EXPECT_EQ(static_cast<int>(status_code::out_of_memory), 4);
  EXPECT_EQ(static_cast<int>(status_code::cuda_error), 5);
  EXPECT_EQ(static_cast<int>(status_code::internal), 6);
}

TEST(Status, CopiesAndMovesKeepCodeAndMessage) {
  const status a(status_code::misaligned, "in is not 16-byte aligned");
  status b = a;
  EXPECT_EQ(b.code(), status_code::misaligned);
  EXPECT_EQ(b.message(), a.message());
  status c = std::move(b);
  EXPECT_EQ(c.code(), status_code::misaligned);
  EXPECT_EQ(c.message(), "in is not 16-byte aligned");
  c = status::ok();
  EXPECT_TRUE(c.is_ok());
}

TEST(Result, HoldsAValue) {
  result<int> r = 42;
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(static_cast<bool>(r));
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
  *r = 7;
  EXPECT_EQ(r.value(), 7);
  EXPECT_TRUE(r.error().is_ok());
  const result<int>& cr = r;
  EXPECT_EQ(*cr, 7);
  EXPECT_EQ(cr.value(), 7);
}

TEST(Result, ArrowReachesTheValue) {
  result<std::string> r = std::string("plan");
  EXPECT_EQ(r->size(), 4u);
  const result<std::string>& cr = r;
  EXPECT_EQ(cr->front(), 'p');
}

TEST(Result, HoldsAnError) {
  result<int> r = status(status_code::out_of_memory, "workspace of 1 GiB");
  EXPECT_FALSE(r.has_value());
  EXPECT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(r.error().code(), status_code::out_of_memory);
  EXPECT_EQ(r.error().message(), "workspace of 1 GiB");
}

TEST(Result, BuiltFromSuccessStatusBecomesInternalError) {
  result<int> r = status::ok();
  EXPECT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), status_code::internal);
  EXPECT_NE(r.error().message().find("success"), std::string::npos);
}

TEST(Result, MovesOutMoveOnlyValues) {
  result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  ASSERT_TRUE(r);
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 5);
}

TEST(Version, MatchesTheProjectVersion) {
  EXPECT_STREQ(xpose::version(), XPOSE_PROJECT_VERSION);
  const std::string expected = std::to_string(XPOSE_VERSION_MAJOR) + "." + std::to_string(XPOSE_VERSION_MINOR) +
                               "." + std::to_string(XPOSE_VERSION_PATCH);
  EXPECT_EQ(expected, XPOSE_PROJECT_VERSION);
}

}  // namespace
