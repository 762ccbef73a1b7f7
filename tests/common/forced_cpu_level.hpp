// Test helper: forces the CPU executor's SIMD level and streaming mode for one scope, restoring the previous
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

}  // namespace xpose::test
