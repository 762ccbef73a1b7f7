// Seeds of the randomized host tests: fixed per test file, printed, and replayable with XPOSE_TEST_SEED.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace xpose::test {

/// XPOSE_TEST_SEED when set (decimal), else `fallback`.
inline std::uint64_t test_seed(std::uint64_t fallback) {
  const char* s = std::getenv("XPOSE_TEST_SEED");
  return s != nullptr && *s != '\0' ? std::strtoull(s, nullptr, 10) : fallback;
}

/// test_seed(fallback), printed ("[ seed     ] XPOSE_TEST_SEED=...") and recorded as the test's "seed" property.
inline std::uint64_t announced_test_seed(std::uint64_t fallback) {
  const std::uint64_t seed = test_seed(fallback);
  std::cout << "[ seed     ] XPOSE_TEST_SEED=" << seed << '\n';
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

}  // namespace xpose::test
