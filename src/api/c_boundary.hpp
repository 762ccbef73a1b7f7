// The C API's boundary (src/api/c_api.cpp): every extern "C" function runs its C++ body through
// `c_boundary`, which records the message for xpose_last_error_message and turns exceptions into codes, so that
// nothing thrown in C++ unwinds into a C (or Fortran) caller. Separate from c_api.cpp so that host tests can
// throw through it (tests/host/test_c_api.cpp).
#pragma once

#include <exception>
#include <new>

#include "xpose/status.hpp"
#include "xpose/xpose.h"

namespace xpose::detail {

/// Records `s`'s message as the calling thread's last error message (cleared on success) and returns its code.
xpose_status c_record(const status& s) noexcept;

/// Records an exception caught at the boundary: `code` with "<prefix><what>" as the message.
xpose_status c_record_exception(xpose_status code, const char* prefix, const char* what) noexcept;

/// Runs `body` (returning an xpose::status) and records its outcome; an exception becomes XPOSE_OUT_OF_MEMORY
/// (std::bad_alloc) or XPOSE_INTERNAL (anything else, with its what()).
template <class F>
xpose_status c_boundary(F&& body) noexcept {
  try {
    return c_record(body());
  } catch (const std::bad_alloc& e) {
    return c_record_exception(XPOSE_OUT_OF_MEMORY, "out of memory: ", e.what());
  } catch (const std::exception& e) {
    return c_record_exception(XPOSE_INTERNAL, "unexpected C++ exception (please report): ", e.what());
  } catch (...) {
    return c_record_exception(XPOSE_INTERNAL, "unexpected C++ exception (please report): ", "not a std::exception");
  }
}

}  // namespace xpose::detail
