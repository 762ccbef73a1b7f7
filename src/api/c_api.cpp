// The C API (include/xpose/xpose.h): each function checks the pointers the C layer itself dereferences (plan
// handles, out-pointers, `shape` and the other arrays it copies into an xpose::problem), then forwards to the
// C++ API, whose codes and messages pass through unchanged. Every body runs inside c_boundary
// (c_boundary.hpp): no exception reaches the caller.
#include "xpose/xpose.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "api/c_boundary.hpp"
#include "plan/planner.hpp"  // detail::invalid: the planners' message builder
#include "xpose/inplace.hpp"
#include "xpose/permute.hpp"
#include "xpose/plan.hpp"
#include "xpose/problem.hpp"
#include "xpose/version.hpp"

// The handles: owning wrappers, so that C sees one pointer per plan.
struct xpose_plan_t {
  xpose::plan plan;
};
struct xpose_inplace_plan_t {
  xpose::inplace_plan plan;
};

// The C enum is the C++ enum's numbers (DESIGN §1: "the C API returns the same codes").
static_assert(XPOSE_SUCCESS == static_cast<int>(xpose::status_code::success));
static_assert(XPOSE_INVALID_ARGUMENT == static_cast<int>(xpose::status_code::invalid_argument));
static_assert(XPOSE_UNSUPPORTED == static_cast<int>(xpose::status_code::unsupported));
static_assert(XPOSE_MISALIGNED == static_cast<int>(xpose::status_code::misaligned));
static_assert(XPOSE_OUT_OF_MEMORY == static_cast<int>(xpose::status_code::out_of_memory));
static_assert(XPOSE_CUDA_ERROR == static_cast<int>(xpose::status_code::cuda_error));
static_assert(XPOSE_INTERNAL == static_cast<int>(xpose::status_code::internal));
// Bindings (the Fortran module's integer(c_int) results, ctypes) rely on the enum being passed as an int.
static_assert(sizeof(xpose_status) == sizeof(int));
static_assert(std::is_same_v<xpose_stream, xpose::stream_t>);
static_assert(std::string_view(XPOSE_VERSION_STRING) == std::string_view(xpose::version()));

namespace xpose::detail {

namespace {

// The calling thread's last message. `t_view` is what xpose_last_error_message returns: the string's text, or
// a fixed text when storing the message itself ran out of memory.
thread_local std::string t_message;
thread_local const char* t_view = "";

void store_message(std::string_view a, std::string_view b) noexcept {
  try {
    t_message.assign(a);
    t_message.append(b);
    t_view = t_message.c_str();
  } catch (...) {
    t_view = "(the error message could not be stored: out of memory)";
  }
}

}  // namespace

xpose_status c_record(const status& s) noexcept {
  if (s.is_ok()) {
    t_message.clear();
    t_view = "";
  } else {
    store_message(s.message(), {});
  }
  return static_cast<xpose_status>(s.code());
}

xpose_status c_record_exception(xpose_status code, const char* prefix, const char* what) noexcept {
  store_message(prefix != nullptr ? prefix : "", what != nullptr ? what : "");
  return code;
}

}  // namespace xpose::detail

namespace {

using xpose::status;
using xpose::status_code;
using xpose::detail::c_boundary;
using xpose::detail::invalid;

status null_handle(const char* create) {
  return invalid("plan is null (create one with ", create, ")");
}

status null_out_pointer() {
  return invalid("plan is null; pass the address of the handle that receives the new plan");
}

// Ranks above max_rank are the planner's error: it counts the axes and reads none, so it is handed `rank`
// placeholder extents and the caller's arrays are not read. A rank above this bound is a garbage value, not
// the length of an array; the C layer answers it itself rather than allocate a vector that long.
constexpr int max_rank_passed_through = 64;

// The xpose::problem that the C arguments describe. Reads `rank` entries of each non-null array.
status c_problem(int rank, const std::int64_t* shape, const std::int64_t* axes, std::int64_t elem_bytes,
                 const std::int64_t* in_strides, const std::int64_t* out_strides, xpose::problem& p) {
  if (rank < 0) return invalid("rank = ", rank, " is negative");
  p.elem_bytes = elem_bytes;
  if (rank > xpose::max_rank) {
    if (rank > max_rank_passed_through)
      return invalid("rank = ", rank, " is more than xpose supports (at most ", xpose::max_rank, " axes)");
    p.shape.assign(static_cast<std::size_t>(rank), 1);
    return status::ok();
  }
  if (rank > 0 && shape == nullptr) return invalid("shape is null but rank = ", rank);
  const auto n = static_cast<std::size_t>(rank);
  if (rank > 0) p.shape.assign(shape, shape + n);
  if (axes != nullptr) p.axes.assign(axes, axes + n);
  if (in_strides != nullptr) p.in_strides.assign(in_strides, in_strides + n);
  if (out_strides != nullptr) p.out_strides.assign(out_strides, out_strides + n);
  return status::ok();
}

// snprintf-like copy of a plan's printout (xpose_plan_describe, xpose_inplace_plan_describe).
template <class Plan>
status describe(const Plan& plan, char* buf, std::size_t size, std::size_t* needed) {
  if (needed == nullptr) return invalid("needed is null; pass the address of a size_t that receives the text's size");
  if (buf == nullptr && size > 0) return invalid("buf is null but size = ", size);
  std::ostringstream os;
  os << plan;
  const std::string text = os.str();
  *needed = text.size() + 1;
  if (size > 0) {
    const std::size_t n = std::min(size - 1, text.size());
    std::memcpy(buf, text.data(), n);
    buf[n] = '\0';
  }
  return status::ok();
}

}  // namespace

extern "C" {

// ---- status ----------------------------------------------------------------------------------------------

const char* xpose_status_string(xpose_status s) { return xpose::to_string(static_cast<status_code>(s)); }

const char* xpose_last_error_message(void) { return xpose::detail::t_view; }

const char* xpose_version_string(void) { return xpose::version(); }


// ---- plans -----------------------------------------------------------------------------------------------

xpose_status xpose_plan_create(xpose_plan* plan, int rank, const int64_t* shape, const int64_t* axes,
                               int64_t elem_bytes, const int64_t* in_strides, const int64_t* out_strides) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_out_pointer();
    *plan = nullptr;
    xpose::problem p;
    if (status s = c_problem(rank, shape, axes, elem_bytes, in_strides, out_strides, p); !s) return s;
    auto made = xpose::make_plan(p);
    if (!made) return made.error();
    *plan = new xpose_plan_t{std::move(*made)};
    return status::ok();
  });
}

xpose_status xpose_plan_execute(xpose_plan plan, const void* d_in, void* d_out, xpose_stream stream) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_handle("xpose_plan_create");
    return plan->plan.execute(d_in, d_out, stream);
  });
}

xpose_status xpose_plan_execute_host(xpose_plan plan, const void* in, void* out, int threads) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_handle("xpose_plan_create");
    return plan->plan.execute_host(in, out, threads);
  });
}

void xpose_plan_destroy(xpose_plan plan) { delete plan; }

xpose_status xpose_plan_bytes_moved(xpose_plan plan, int64_t* bytes) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_handle("xpose_plan_create");
    if (bytes == nullptr) return invalid("bytes is null; pass the address of an int64_t that receives the count");
    *bytes = plan->plan.bytes_moved();
    return status::ok();
  });
}

xpose_status xpose_plan_describe(xpose_plan plan, char* buf, size_t size, size_t* needed) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_handle("xpose_plan_create");
    return describe(plan->plan, buf, size, needed);
  });
}

// ---- one-shot calls ----------------------------------------------------------------------------------------

xpose_status xpose_permute(const void* d_in, void* d_out, int rank, const int64_t* shape, const int64_t* axes,
                           int64_t elem_bytes, const int64_t* in_strides, const int64_t* out_strides,
                           xpose_stream stream) {
  return c_boundary([&]() -> status {
    xpose::problem p;
    if (status s = c_problem(rank, shape, axes, elem_bytes, in_strides, out_strides, p); !s) return s;
    return xpose::permute(d_in, d_out, p, stream);
  });
}

xpose_status xpose_permute_host(const void* in, void* out, int rank, const int64_t* shape, const int64_t* axes,
                                int64_t elem_bytes, const int64_t* in_strides, const int64_t* out_strides,
                                int threads) {
  return c_boundary([&]() -> status {
    xpose::problem p;
    if (status s = c_problem(rank, shape, axes, elem_bytes, in_strides, out_strides, p); !s) return s;
    return xpose::permute_host(in, out, p, threads);
  });
}

xpose_status xpose_transpose(const void* d_in, void* d_out, int64_t rows, int64_t cols, int64_t elem_bytes,
                             xpose_stream stream) {
  return c_boundary([&] { return xpose::transpose(d_in, d_out, rows, cols, elem_bytes, stream); });
}

xpose_status xpose_transpose_batched(const void* d_in, void* d_out, int64_t batch, int64_t rows, int64_t cols,
                                     int64_t elem_bytes, xpose_stream stream) {
  return c_boundary([&] { return xpose::transpose_batched(d_in, d_out, batch, rows, cols, elem_bytes, stream); });
}

xpose_status xpose_transpose_host(const void* in, void* out, int64_t rows, int64_t cols, int64_t elem_bytes,
                                  int threads) {
  return c_boundary([&] { return xpose::transpose_host(in, out, rows, cols, elem_bytes, threads); });
}

// ---- in place ----------------------------------------------------------------------------------------------

xpose_status xpose_inplace_plan_create(xpose_inplace_plan* plan, int64_t rows, int64_t cols, int64_t elem_bytes,
                                       int64_t batch, int64_t ld, int64_t batch_stride) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_out_pointer();
    *plan = nullptr;
    auto made = xpose::make_inplace_plan(xpose::inplace_problem{rows, cols, elem_bytes, batch, ld, batch_stride});
    if (!made) return made.error();
    *plan = new xpose_inplace_plan_t{std::move(*made)};
    return status::ok();
  });
}

xpose_status xpose_inplace_plan_workspace_bytes(xpose_inplace_plan plan, int64_t* bytes) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_handle("xpose_inplace_plan_create");
    if (bytes == nullptr) return invalid("bytes is null; pass the address of an int64_t that receives the size");
    *bytes = plan->plan.workspace_bytes();
    return status::ok();
  });
}

xpose_status xpose_inplace_plan_execute(xpose_inplace_plan plan, void* d_data, void* d_workspace,
                                        int64_t workspace_bytes, xpose_stream stream) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_handle("xpose_inplace_plan_create");
    return plan->plan.execute(d_data, d_workspace, workspace_bytes, stream);
  });
}

xpose_status xpose_inplace_plan_execute_host(xpose_inplace_plan plan, void* data, int threads) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_handle("xpose_inplace_plan_create");
    return plan->plan.execute_host(data, threads);
  });
}

xpose_status xpose_inplace_plan_describe(xpose_inplace_plan plan, char* buf, size_t size, size_t* needed) {
  return c_boundary([&]() -> status {
    if (plan == nullptr) return null_handle("xpose_inplace_plan_create");
    return describe(plan->plan, buf, size, needed);
  });
}

void xpose_inplace_plan_destroy(xpose_inplace_plan plan) { delete plan; }

xpose_status xpose_transpose_inplace(void* d_data, int64_t rows, int64_t cols, int64_t elem_bytes,
                                     void* d_workspace, int64_t workspace_bytes, xpose_stream stream) {
  return c_boundary([&] {
    return xpose::transpose_inplace(d_data, rows, cols, elem_bytes, d_workspace, workspace_bytes, stream);
  });
}

xpose_status xpose_transpose_inplace_workspace_bytes(int64_t rows, int64_t cols, int64_t elem_bytes,
                                                     int64_t* bytes) {
  return c_boundary([&]() -> status {
    if (bytes == nullptr) return invalid("bytes is null; pass the address of an int64_t that receives the size");
    auto need = xpose::transpose_inplace_workspace_bytes(rows, cols, elem_bytes);
    if (!need) return need.error();
    *bytes = *need;
    return status::ok();
  });
}

xpose_status xpose_transpose_inplace_host(void* data, int64_t rows, int64_t cols, int64_t elem_bytes, int threads) {
  return c_boundary([&] { return xpose::transpose_inplace_host(data, rows, cols, elem_bytes, threads); });
}

// ---- for bindings built on this API -----------------------------------------------------------------------

// Not declared in xpose.h: the Fortran module (src/fortran/xpose.f90) checks its own arguments (a Fortran
// permutation, Fortran-order extents) before it calls the functions above, and reports those errors through
// here, so that xpose_last_error_message serves both layers and stays per thread.
xpose_status xpose_detail_set_error(xpose_status code, const char* message);
xpose_status xpose_detail_set_error(xpose_status code, const char* message) {
  return xpose::detail::c_record_exception(code, "", message);
}

}  // extern "C"
