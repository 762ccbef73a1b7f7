// A host simulation of kernels/box.cuh's loops (host tests and the fuzz harness): every box (batch index,
// row-major) moves its elements from their input offsets to their output offsets, unit by unit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/box.hpp"

namespace xpose::test {

/// Moves one box plan's boxes (base offsets in_base0 / out_base0 into the views), marking written bytes.
inline std::string simulate_boxes(const detail::box_plan& b, std::int64_t in_base0, std::int64_t out_base0,
                                  const unsigned char* in, std::int64_t in_span, unsigned char* out,
                                  std::int64_t out_span, std::vector<unsigned char>& written) {
  std::int64_t boxes = 1;
  for (int i = 0; i < b.batch_rank; ++i) boxes *= b.batch[i].extent;
  for (std::int64_t t = 0; t < boxes; ++t) {
    std::int64_t rest = t, in_base = in_base0, out_base = out_base0;
    for (int i = b.batch_rank - 1; i >= 0; --i) {
      const std::int64_t d = rest % b.batch[i].extent;
      rest /= b.batch[i].extent;
      in_base += d * b.batch[i].in_stride;
      out_base += d * b.batch[i].out_stride;
    }
    for (std::int64_t e = 0; e < b.volume; ++e) {
      std::int64_t r = e, in_off = in_base, out_off = out_base;
      for (int k = 0; k < b.rank; ++k) {
        const std::int64_t d = r % b.axis[k].extent;
        r /= b.axis[k].extent;
        in_off += d * b.axis[k].in_stride;
        out_off += d * b.axis[k].out_stride;
      }
      if (in_off < 0 || in_off + b.unit_bytes > in_span) return "a box element lies outside the input view";
      if (out_off < 0 || out_off + b.unit_bytes > out_span) return "a box element lies outside the output view";
      for (std::int64_t u = 0; u < b.unit_bytes; ++u) {
        if (written[static_cast<std::size_t>(out_off + u)]++) return "a box writes an output byte twice";
        out[out_off + u] = in[in_off + u];
      }
    }
  }
  return "";
}

/// out[...] = in[...] as box_kernel moves them (`in`, `out` at the views' base addresses): the plan's boxes,
/// then box_tail's for a ragged plan. Returns an error text ("" when fine) if a box reaches outside [0,
/// in_span) / [0, out_span) or writes an output byte twice.
inline std::string simulate_box(const detail::box_plan& b, const unsigned char* in, std::int64_t in_span,
                                unsigned char* out, std::int64_t out_span) {
  std::vector<unsigned char> written(static_cast<std::size_t>(out_span), 0);
  if (std::string err = simulate_boxes(b, 0, 0, in, in_span, out, out_span, written); !err.empty()) return err;
  if (b.tail_extent == 0) return "";
  if (b.tail_axis < 0 || b.tail_axis >= b.rank || b.tail_batch < 0 || b.tail_batch >= b.batch_rank ||
      b.tail_extent >= b.axis[b.tail_axis].extent)
    return "a ragged box plan without a valid split";
  std::int64_t in_off = 0, out_off = 0;
  const detail::box_plan t = detail::box_tail(b, in_off, out_off);
  return simulate_boxes(t, in_off, out_off, in, in_span, out, out_span, written);
}

}  // namespace xpose::test
