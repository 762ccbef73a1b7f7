// Public plan API: make_plan, printing, and the checks shared by both executors before they run.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "cpu/cpu_executor.hpp"
#include "cpu/macrokernels.hpp"
#include "plan/box.hpp"
#include "plan/planner.hpp"
#include "xpose/plan.hpp"
#if XPOSE_HAS_CUDA
#include "cuda/dispatch/dispatch.hpp"
#endif

namespace xpose {

namespace {

template <class Seq>
void print_list(std::ostream& os, const Seq& s, int n) {
  os << '[';
  for (int i = 0; i < n; ++i) os << (i ? ", " : "") << s[i];
  os << ']';
}

// "[e0, e1] (<label> [s0, s1]": a set of axes and one side's strides; the caller closes the parenthesis.
template <class Seq>
void print_axes(std::ostream& os, const Seq& extent, int n, const char* label, const Seq& stride) {
  print_list(os, extent, n);
  os << " (" << label << ' ';
  print_list(os, stride, n);
}

bool log_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("XPOSE_LOG");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  return on;
}

// A view of `span` bytes from `ptr` must end inside the address space: a pointer near the top of it (a
// corrupted or hostile value) would make the end, and the overlap test below, wrap around to small addresses.
status check_end(std::uintptr_t ptr, std::int64_t span, const char* name) {
  if (static_cast<std::uintptr_t>(span) > UINTPTR_MAX - ptr) {
    std::ostringstream os;
    os << name << " = " << reinterpret_cast<const void*>(ptr) << " plus the view's " << span
       << " bytes runs past the end of the address space";
    return status(status_code::invalid_argument, os.str());
  }
  return status::ok();
}

// Shared by execute and execute_host: null, address-space and overlap checks. `empty` problems accept null
// pointers.
status check_buffers(const plan& p, const void* in, void* out, const char* in_name, const char* out_name) {
  if (p.payload_bytes() == 0) return status::ok();
  if (in == nullptr) return status(status_code::invalid_argument, std::string(in_name) + " is null");
  if (out == nullptr) return status(status_code::invalid_argument, std::string(out_name) + " is null");
  const auto a = reinterpret_cast<std::uintptr_t>(in);
  const auto b = reinterpret_cast<std::uintptr_t>(out);
  if (status s = check_end(a, p.in_span_bytes(), in_name); !s) return s;
  if (status s = check_end(b, p.out_span_bytes(), out_name); !s) return s;
  const auto a_end = a + static_cast<std::uintptr_t>(p.in_span_bytes());
  const auto b_end = b + static_cast<std::uintptr_t>(p.out_span_bytes());
  if (a < b_end && b < a_end) {
    return status(status_code::invalid_argument, std::string(in_name) + " and " + out_name +
                                                     " overlap; xpose transposes out of place");
  }
  return status::ok();
}

}  // namespace

std::int64_t canonical_form::words() const noexcept {
  std::int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= extent[i];
  return n;
}

std::int64_t plan_geometry::batch_count() const noexcept {
  std::int64_t n = 1;
  for (int i = 0; i < batch_rank; ++i) n *= batch_extent[i];
  return n;
}

std::ostream& operator<<(std::ostream& os, const problem& p) {
  os << "shape ";
  print_list(os, p.shape, static_cast<int>(p.shape.size()));
  os << " axes ";
  if (p.axes.empty()) os << "(reversed)";
  else print_list(os, p.axes, static_cast<int>(p.axes.size()));
  os << " elem_bytes " << p.elem_bytes;
  if (!p.in_strides.empty()) {
    os << " in_strides ";
    print_list(os, p.in_strides, static_cast<int>(p.in_strides.size()));
  }
  if (!p.out_strides.empty()) {
    os << " out_strides ";
    print_list(os, p.out_strides, static_cast<int>(p.out_strides.size()));
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const canonical_form& c) {
  os << c.word_bytes << "-byte words, extents ";
  print_list(os, c.extent, c.rank);
  os << " in_strides ";
  print_list(os, c.in_stride, c.rank);
  os << " out_strides ";
  print_list(os, c.out_stride, c.rank);
  return os;
}

std::ostream& operator<<(std::ostream& os, const plan_geometry& g) {
  os << to_string(g.algo) << ": ";
  if (g.batch_rank > 0) {
    os << "batch ";
    print_axes(os, g.batch_extent, g.batch_rank, "in strides", g.batch_in_stride);
    os << ", out strides ";
    print_list(os, g.batch_out_stride, g.batch_rank);
    os << ") of ";
  }
  if (g.algo == algorithm::transpose2d) {
    os << g.rows << " x " << g.cols << " -> " << g.cols << " x " << g.rows << " units of " << g.elem_words
       << " x " << g.word_bytes << " B, in_ld " << g.in_ld << ", out_ld " << g.out_ld;
    if (g.compound()) {
      os << ", compound sides: rows ";
      print_axes(os, g.row_extent, g.row_rank, "in strides", g.row_in_stride);
      os << "), cols ";
      print_axes(os, g.col_extent, g.col_rank, "out strides", g.col_out_stride);
      os << ")";
    }
  } else {
    os << "rows of " << g.elem_words << " x " << g.word_bytes << " B";
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const plan& p) {
  os << "xpose::plan " << to_string(p.algo()) << "\n  problem:   " << p.source()
     << "\n  canonical: " << p.canonical() << "\n  geometry:  " << p.geometry();
  if (detail::box_plan b; detail::make_box(p.geometry(), b, detail::box_volume_limit(detail::box_unit_bytes(p.geometry()))))
    os << "\n  gpu:       boxes of " << b.volume << " x " << b.unit_bytes << " B (runs of " << b.in_run << " in, " << b.out_run
       << " out) when both pointers are aligned to the unit (smaller boxes, or tiles, when that would leave"
       << " fewer than 2 boxes an SM: box_volume_cap)";
  if (detail::box_plan b; detail::cpu_box_plan(p.geometry(), b))
    os << "\n  cpu:       boxes of " << b.volume << " x " << b.unit_bytes << " B (runs of " << b.in_run << " in, " << b.out_run
       << " out)";
  os << "\n  moves:     " << p.bytes_moved() << " bytes (read + write)";
  return os;
}

result<plan> make_plan(const problem& p) {
  detail::normalized_problem n;
  if (status s = detail::validate(p, n); !s) return s;
  plan out;
  out.problem_ = p;
  out.canonical_ = detail::canonicalize(n);
  auto g = detail::select(out.canonical_);
  if (!g) return g.error();
  out.geometry_ = *g;
  out.payload_bytes_ = n.elements * n.elem_bytes;  // no overflow: checked in validate
  out.in_span_bytes_ = n.in_span_bytes;
  out.out_span_bytes_ = n.out_span_bytes;
  if (log_enabled()) std::clog << out << '\n';
  return out;
}

status plan::execute(const void* d_in, void* d_out, stream_t stream) const {
  if (status s = check_buffers(*this, d_in, d_out, "d_in", "d_out"); !s) return s;
  if (payload_bytes_ == 0) return status::ok();
#if XPOSE_HAS_CUDA
  return detail::cuda_execute(geometry_, d_in, d_out, stream);
#else
  (void)stream;
  return status(status_code::unsupported, "xpose was built without CUDA; use execute_host");
#endif
}

status plan::execute_host(const void* in, void* out, int threads) const {
  if (threads < 0) return status(status_code::invalid_argument, "threads = " + std::to_string(threads) + " is negative");
  if (status s = check_buffers(*this, in, out, "in", "out"); !s) return s;
  if (payload_bytes_ == 0) return status::ok();
#if XPOSE_HAS_CUDA
  if (status s = detail::cuda_reject_device_pointer(in, "in"); !s) return s;
  if (status s = detail::cuda_reject_device_pointer(out, "out"); !s) return s;
#endif
  return detail::cpu_execute(geometry_, in, out, threads);
}

}  // namespace xpose
