// The in-place oracle's byte pattern and source map, for host and device code (the kernels that apply it on
// the GPU are in inplace_oracle.cuh). See that file's comment.
#pragma once

#include <cstdint>

#include "xpose/inplace.hpp"

#if defined(__CUDACC__)
#define XPOSE_ORACLE_HD __host__ __device__ inline
#else
#define XPOSE_ORACLE_HD inline
#endif

namespace xpose::test {

XPOSE_ORACLE_HD unsigned char inplace_byte(std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  return static_cast<unsigned char>((x >> 32) ^ (x >> 56));
}

/// What the transpose must leave at byte p of the allocation (the data starts at byte `offset`).
struct inplace_expect {
  std::int64_t offset, unit, ld, out_ld, rows, cols, batch, bstride;  // bstride in bytes
  XPOSE_ORACLE_HD std::uint64_t source(std::uint64_t p) const {
    if (p < static_cast<std::uint64_t>(offset)) return p;
    const std::uint64_t q = p - offset;
    const std::uint64_t b = q / bstride;
    if (b >= static_cast<std::uint64_t>(batch)) return p;
    const std::uint64_t within = q - b * bstride, e = within / unit, k = within - e * unit;
    const std::uint64_t orow = e / out_ld, ocol = e - orow * out_ld;  // output (c, r)
    if (orow >= static_cast<std::uint64_t>(cols) || ocol >= static_cast<std::uint64_t>(rows)) return p;
    return offset + b * bstride + (ocol * ld + orow) * unit + k;
  }
};

inline inplace_expect make_inplace_expect(const inplace_geometry& g, std::int64_t offset) {
  const std::int64_t out_ld = g.rows == g.cols ? g.ld : g.rows;
  return {offset, g.elem_bytes, g.ld, out_ld, g.rows, g.cols, g.batch, g.batch_stride * g.elem_bytes};
}

}  // namespace xpose::test
