// xpose — status codes and the result type every fallible call returns.
//
// Design note: DESIGN.md §1 describes "one xpose::status enum plus a message". We keep the enum
// (`xpose::status_code`) and bundle it with its message in `xpose::status`, so that the message naming the
// offending argument travels with the code instead of living in thread-local state. `xpose::result<T>`
// holds either a value or a non-success status (a small stand-in for C++23 `std::expected`).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <variant>

namespace xpose {

/// Error categories. The numeric values are part of the C API (xpose.h) and never change.
enum class status_code : int {
  success = 0,
  invalid_argument = 1,  ///< a null pointer, bad axes, negative or overflowing extents, overlapping buffers
  unsupported = 2,       ///< valid request that this build or version cannot execute (the message says why)
  misaligned = 3,        ///< a pointer or stride violates an alignment the chosen path needs
  out_of_memory = 4,     ///< a workspace allocation failed
  cuda_error = 5,        ///< the CUDA runtime reported an error (the message carries its text)
  internal = 6,          ///< a bug in xpose: please report it
};

/// Human-readable name of a status code ("invalid_argument", ...).
constexpr const char* to_string(status_code c) noexcept {
  switch (c) {
    case status_code::success: return "success";
    case status_code::invalid_argument: return "invalid_argument";
    case status_code::unsupported: return "unsupported";
    case status_code::misaligned: return "misaligned";
    case status_code::out_of_memory: return "out_of_memory";
    case status_code::cuda_error: return "cuda_error";
    case status_code::internal: return "internal";
  }
  return "unknown";
}

inline std::ostream& operator<<(std::ostream& os, status_code c) { return os << to_string(c); }

/// A status code plus a message naming the argument at fault. Default-constructed = success.
class [[nodiscard]] status {
 public:
  status() = default;
  status(status_code code, std::string message) : code_(code), message_(std::move(message)) {}

  static status ok() { return {}; }

  bool is_ok() const noexcept { return code_ == status_code::success; }
  explicit operator bool() const noexcept { return is_ok(); }
  status_code code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }

  friend std::ostream& operator<<(std::ostream& os, const status& s) {
    os << to_string(s.code_);
    if (!s.message_.empty()) os << ": " << s.message_;
    return os;
  }

 private:
  status_code code_ = status_code::success;
  std::string message_;
};

/// Either a value of type T or a non-success `status`.
///   auto plan = xpose::make_plan(p);
///   if (!plan) std::cerr << plan.error() << '\n';
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose, like std::expected
  result(status error) : v_(std::move(error)) {
    if (std::get<status>(v_).is_ok()) v_ = status(status_code::internal, "result built from a success status");
  }

  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &std::get<T>(v_); }
  const T* operator->() const { return &std::get<T>(v_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  /// The error; `status::ok()` when a value is held.
  status error() const { return has_value() ? status::ok() : std::get<status>(v_); }

 private:
  std::variant<T, status> v_;
};

}  // namespace xpose
