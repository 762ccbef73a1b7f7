// per_device (cuda/dispatch/per_device.hpp): the launchers' per-device cache of occupancy and kernel build facts. A
// value is computed once per device ordinal and kept apart from every other device's; ordinals the cache has
// no slot for are computed every time, never stored in a wrong slot. Host code only: no GPU needed.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "cuda/dispatch/per_device.hpp"

namespace {

using xpose::detail::per_device;

int device(int ordinal) { return ordinal; }  // the device ordinal a launcher passes (device_info::ordinal)

TEST(PerDevice, ComputesOncePerDeviceAndKeepsDevicesApart) {
  per_device<int> cache;
  int calls = 0;
  auto value_for = [&](int ordinal) {
    return cache.get(device(ordinal), [&] { return 100 + ordinal + 1000 * calls++; });
  };
  EXPECT_EQ(value_for(0), 100);
  EXPECT_EQ(value_for(0), 100);
  EXPECT_EQ(value_for(3), 1103);  // a second device: its own value, computed once
  EXPECT_EQ(value_for(3), 1103);
  EXPECT_EQ(value_for(0), 100);
  EXPECT_EQ(calls, 2);
}

TEST(PerDevice, OrdinalsWithoutASlotAreComputedEachTime) {
  per_device<int> cache;
  int calls = 0;
  for (int ordinal : {-1, 64, 1000}) {
    EXPECT_EQ(cache.get(device(ordinal), [&] { return ++calls; }), calls);
    EXPECT_EQ(cache.get(device(ordinal), [&] { return ++calls; }), calls);
  }
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(cache.get(device(63), [] { return 7; }), 7);  // the last slot is a slot
  EXPECT_EQ(cache.get(device(63), [] { return 8; }), 7);
}

TEST(PerDevice, ConcurrentFirstCallsAgreeOnOneValue) {
  per_device<int> cache;
  std::vector<int> seen(8, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] { seen[static_cast<std::size_t>(t)] = cache.get(device(2), [t] { return t; }); });
  for (auto& th : threads) th.join();
  for (int v : seen) EXPECT_EQ(v, seen[0]);
}

}  // namespace
