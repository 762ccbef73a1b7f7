// Public in-place API: make_inplace_plan, printing, pointer checks, and the one-shot calls.
#include "xpose/inplace.hpp"

#include <cstdint>
#include <sstream>

#include "cpu/inplace_cpu.hpp"
#include "plan/inplace.hpp"
#if XPOSE_HAS_CUDA
#include "cuda/dispatch/dispatch.hpp"
#endif

namespace xpose {

std::ostream& operator<<(std::ostream& os, const inplace_problem& p) {
  os << p.rows << " x " << p.cols << " x " << p.elem_bytes << " B";
  if (p.batch != 1) os << ", batch " << p.batch;
  if (p.ld != 0) os << ", ld " << p.ld;
  if (p.batch_stride != 0) os << ", batch_stride " << p.batch_stride;
  return os;
}

std::ostream& operator<<(std::ostream& os, const inplace_geometry& g) {
  os << to_string(g.algo);
  switch (g.algo) {
    case inplace_algorithm::none: os << " (a vector or an empty matrix is its own transpose)"; break;
    case inplace_algorithm::square:
      os << ": " << g.batch << " x " << g.rows << " x " << g.rows << ", ld " << g.ld << ", tile pairs swapped";
      break;
    case inplace_algorithm::shuffle:
      os << ": " << (g.c2r ? "c2r" : "r2c") << " on a " << g.m << " x " << g.n << " grid (gcd " << g.c
         << "), passes: ";
      if (g.c2r) os << "column shuffle, row shuffle" << (g.c > 1 ? ", column rotation" : "");
      else os << (g.c > 1 ? "column rotation, " : "") << "row shuffle, column shuffle";
      os << "; workspace " << g.workspace_bytes << " bytes";
      break;
    case inplace_algorithm::tile_cycles:
      os << ": " << g.batch << " x " << g.tiles_a << " x " << g.tiles_b << " tiles of " << g.tile << " x " << g.tile
         << " transposed in place, then " << g.units << " units of " << g.tile * g.elem_bytes
         << " bytes moved along their cycles (" << g.segments.size() / 2 << " segments of about "
         << g.segment_length << " units; cycles up to " << g.short_cycle << " units found by the executor); workspace "
         << g.workspace_bytes << " bytes";
      break;
    case inplace_algorithm::skinny_cycles:
      os << ": " << g.batch << " x " << g.rows * g.cols / (g.chunk_rows * g.chunk_cols) << " chunks of "
         << g.chunk_rows << " x " << g.chunk_cols << " transposed in shared memory " << (g.units_first ? "after" : "before")
         << " " << g.units << " units of " << g.tile * g.elem_bytes << " bytes moved along their cycles ("
         << g.segments.size() / 2 << " segments of about " << g.segment_length << " units; cycles up to "
         << g.short_cycle << " units found by the executor); workspace " << g.workspace_bytes << " bytes";
      break;
    case inplace_algorithm::near_square:
      os << ": the " << g.near_side << " x " << g.near_side << " square transposed in place, its rows repitched in "
         << g.repitch_bands << " bands, the " << g.near_extra << " extra " << (g.rows > g.cols ? "rows" : "columns")
         << " saved and written back transposed; workspace " << g.workspace_bytes << " bytes";
      break;
    case inplace_algorithm::staged_blocks: {
      std::ostringstream blocks, units;
      blocks << g.batch * g.blocks << " blocks of " << (g.units_first ? g.rows : g.tile) << " x "
             << (g.units_first ? g.tile : g.cols) << " staged in the workspace, " << g.group
             << " at a time, and transposed back";
      units << g.units << " units of " << g.tile * g.elem_bytes << " bytes a matrix moved along their cycles ("
            << g.segments.size() / 2 << " segments)";
      os << ": " << (g.units_first ? units.str() : blocks.str()) << ", then "
         << (g.units_first ? blocks.str() : units.str()) << "; workspace " << g.workspace_bytes << " bytes";
      break;
    }
    case inplace_algorithm::staged:
      os << ": " << g.batch << (g.batch == 1 ? " matrix" : " matrices") << " copied to the workspace";
      if (g.group < g.batch) os << ", " << g.group << " at a time,";
      os << " and transposed back out of place (" << to_string(g.staged_back.algo) << "); workspace "
         << g.workspace_bytes << " bytes";
      break;
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const inplace_plan& p) {
  return os << "xpose::inplace_plan " << p.source() << "\n  geometry:  " << p.geometry()
            << "\n  moves:     " << 2 * p.payload_bytes() << " bytes (read + write, counted once)";
}

result<inplace_plan> make_inplace_plan(const inplace_problem& p) {
  inplace_plan out;
  if (status s = detail::make_inplace_geometry(p, out.geometry_, out.span_bytes_); !s) return s;
  out.problem_ = p;
  // Empty problems may have huge other fields (a batch of 2^40 0 x n matrices); otherwise the payload fits
  // within the span that make_inplace_geometry checked.
  const inplace_geometry& g = out.geometry_;
  out.payload_bytes_ = g.batch == 0 || g.rows == 0 || g.cols == 0 ? 0 : g.batch * g.rows * g.cols * p.elem_bytes;
  return out;
}

namespace {

status check_data(const inplace_plan& p, const void* data, const char* name) {
  if (p.payload_bytes() == 0) return status::ok();
  if (data == nullptr) return status(status_code::invalid_argument, std::string(name) + " is null");
  const auto a = reinterpret_cast<std::uintptr_t>(data);
  if (static_cast<std::uintptr_t>(p.span_bytes()) > UINTPTR_MAX - a) {
    std::ostringstream os;
    os << name << " = " << data << " plus the matrices' " << p.span_bytes()
       << " bytes runs past the end of the address space";
    return status(status_code::invalid_argument, os.str());
  }
  return status::ok();
}

}  // namespace

status inplace_plan::execute(void* d_data, void* d_workspace, std::int64_t workspace_bytes, stream_t stream) const {
  if (status s = check_data(*this, d_data, "d_data"); !s) return s;
  if (workspace_bytes < 0)
    return status(status_code::invalid_argument, "workspace_bytes = " + std::to_string(workspace_bytes) + " is negative");
  if (geometry_.algo == inplace_algorithm::none) return status::ok();
#if !XPOSE_HAS_CUDA
  (void)d_workspace, (void)stream;
  return status(status_code::unsupported, "xpose was built without CUDA; use execute_host");
#else
  const std::int64_t need = geometry_.workspace_bytes;
  if (need > 0) {
    if (d_workspace == nullptr)
      return status(status_code::invalid_argument,
                    "d_workspace is null; this plan needs " + std::to_string(need) + " bytes (workspace_bytes())");
    if (workspace_bytes < need)
      return status(status_code::invalid_argument, "workspace_bytes = " + std::to_string(workspace_bytes) +
                                                       " is smaller than the plan's workspace_bytes() = " +
                                                       std::to_string(need));
    const auto d = reinterpret_cast<std::uintptr_t>(d_data), w = reinterpret_cast<std::uintptr_t>(d_workspace);
    if (static_cast<std::uintptr_t>(need) > UINTPTR_MAX - w)
      return status(status_code::invalid_argument, "d_workspace plus workspace_bytes runs past the end of the address space");
    if (w < d + static_cast<std::uintptr_t>(span_bytes_) && d < w + static_cast<std::uintptr_t>(need))
      return status(status_code::invalid_argument, "d_workspace overlaps d_data");
  }
  return detail::cuda_execute_inplace(geometry_, d_data, need > 0 ? d_workspace : nullptr, stream);
#endif
}

status inplace_plan::execute_host(void* data, int threads) const {
  if (threads < 0) return status(status_code::invalid_argument, "threads = " + std::to_string(threads) + " is negative");
  if (status s = check_data(*this, data, "data"); !s) return s;
  if (geometry_.algo == inplace_algorithm::none) return status::ok();
#if XPOSE_HAS_CUDA
  if (status s = detail::cuda_reject_device_pointer(data, "data"); !s) return s;
#endif
  return detail::cpu_execute_inplace(geometry_, data, threads);
}

status transpose_inplace(void* d_data, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes, void* d_workspace,
                         std::int64_t workspace_bytes, stream_t stream) {
  auto pl = make_inplace_plan(inplace_problem{rows, cols, elem_bytes, 1, 0, 0});
  if (!pl) return pl.error();
  return pl->execute(d_data, d_workspace, workspace_bytes, stream);
}

result<std::int64_t> transpose_inplace_workspace_bytes(std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes) {
  auto pl = make_inplace_plan(inplace_problem{rows, cols, elem_bytes, 1, 0, 0});
  if (!pl) return pl.error();
  return pl->workspace_bytes();
}

status transpose_inplace_host(void* data, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes, int threads) {
  auto pl = make_inplace_plan(inplace_problem{rows, cols, elem_bytes, 1, 0, 0});
  if (!pl) return pl.error();
  return pl->execute_host(data, threads);
}

}  // namespace xpose
