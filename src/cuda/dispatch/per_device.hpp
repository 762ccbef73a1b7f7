// A value a CUDA launcher computes once per device (occupancy, a kernel's build facts): plain C++, so that host
// tests need no CUDA headers (tests/host/test_per_device.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <mutex>

namespace xpose::detail {

/// Kept by a launcher as a function-local static: occupancy and build facts differ between the GPUs one process
/// may drive, so a single static value (computed on whichever device came first) would be wrong on the others.
/// Ordinals outside [0, max_devices) are computed on every call, never stored. Thread-safe; each slot is filled
/// once (std::call_once), after which a launch reads it without taking a lock (get runs on every launch).
template <class T>
class per_device {
 public:
  static constexpr int max_devices = 64;

  template <class Compute>
  T get(int ordinal, Compute&& compute) {
    if (ordinal < 0 || ordinal >= max_devices) return compute();
    const auto i = static_cast<std::size_t>(ordinal);
    std::call_once(filled_[i], [&] { values_[i] = compute(); });
    return values_[i];
  }

 private:
  std::array<std::once_flag, max_devices> filled_;
  std::array<T, max_devices> values_{};
};

}  // namespace xpose::detail
