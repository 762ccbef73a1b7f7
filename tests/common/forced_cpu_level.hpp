// Test helpers: force the CPU executor's SIMD level and streaming mode (or its box mode) for one scope, restoring the previous
// ones when destroyed (tests of every ISA level on one machine).
#pragma once

#include "cpu/cpu_features.hpp"

namespace xpose::test {

class forced_level {
 public:
  forced_level(detail::cpu_isa isa, detail::streaming_mode m)
      : isa_(detail::active_cpu_isa()), mode_(detail::cpu_streaming_mode()) {
    ok_ = detail::set_cpu_isa(isa);
    detail::set_cpu_streaming_mode(m);
  }
  ~forced_level() {
    (void)detail::set_cpu_isa(isa_);
    detail::set_cpu_streaming_mode(mode_);
  }
  forced_level(const forced_level&) = delete;
  forced_level& operator=(const forced_level&) = delete;
  /// False when this machine cannot run `isa` (the level was not changed).
  bool ok() const { return ok_; }

 private:
  detail::cpu_isa isa_;
  detail::streaming_mode mode_;
  bool ok_ = false;
};

/// Forces the CPU executor's box mode (cpu_features.hpp) for one scope: tests of the paths boxes would take.
class forced_box_mode {
 public:
  explicit forced_box_mode(detail::box_mode m) : mode_(detail::cpu_box_mode()) { detail::set_cpu_box_mode(m); }
  ~forced_box_mode() { detail::set_cpu_box_mode(mode_); }
  forced_box_mode(const forced_box_mode&) = delete;
  forced_box_mode& operator=(const forced_box_mode&) = delete;

 private:
  detail::box_mode mode_;
};

}  // namespace xpose::test
