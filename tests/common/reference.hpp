// Test helpers shared by host and GPU tests: a naive reference permutation, straight from the definition in
// problem.hpp (no fusion, no blocking), and deterministic fills.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "xpose/problem.hpp"

namespace xpose::test {

/// Packed row-major strides (elements) of `shape`.
inline std::vector<std::int64_t> packed_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size());
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

/// Output shape of `p` (axes normalized as in problem.hpp).
inline std::vector<std::int64_t> out_shape(const problem& p) {
  const auto rank = static_cast<std::int64_t>(p.shape.size());
  std::vector<std::int64_t> s(p.shape.size());
  for (std::int64_t i = 0; i < rank; ++i) {
    std::int64_t a = p.axes.empty() ? rank - 1 - i : p.axes[i];
    if (a < 0) a += rank;
    s[i] = p.shape[a];
  }
  return s;
}

/// Calls f(in_offset, out_offset) (in elements) for every element of a valid problem, in output order.
template <class F>
void for_each_element(const problem& p, F&& f) {
  const auto rank = static_cast<std::int64_t>(p.shape.size());
  const auto oshape = out_shape(p);
  // Empty first: the packed strides of an empty array (say 0 x 2^62 x 2^62) may not fit in 64 bits.
  for (auto e : oshape)
    if (e == 0) return;
  const auto in_s = p.in_strides.empty() ? packed_strides(p.shape) : p.in_strides;
  const auto out_s = p.out_strides.empty() ? packed_strides(oshape) : p.out_strides;
  std::vector<std::int64_t> axes(rank);
  for (std::int64_t i = 0; i < rank; ++i) {
    std::int64_t a = p.axes.empty() ? rank - 1 - i : p.axes[i];
    axes[i] = a < 0 ? a + rank : a;
  }
  std::vector<std::int64_t> j(rank, 0);
  while (true) {
    std::int64_t in_off = 0, out_off = 0;
    for (std::int64_t i = 0; i < rank; ++i) {
      in_off += j[i] * in_s[axes[i]];
      out_off += j[i] * out_s[i];
    }
    f(in_off, out_off);
    std::int64_t k = rank - 1;
    while (k >= 0 && ++j[k] == oshape[k]) j[k--] = 0;
    if (k < 0) return;
  }
}

/// out = transpose(in, axes), byte by byte, for any valid problem.
inline void reference_permute(const problem& p, const void* in, void* out) {
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  const std::int64_t eb = p.elem_bytes;
  for_each_element(p, [&](std::int64_t i, std::int64_t o) { std::memcpy(dst + o * eb, src + i * eb, eb); });
}

/// Bytes from the base pointer to the end of a view (0 when empty).
inline std::int64_t span_bytes(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
                               std::int64_t elem_bytes) {
  std::int64_t last = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return 0;
    last += (shape[i] - 1) * strides[i];
  }
  return (last + 1) * elem_bytes;
}

/// Deterministic pseudo-random bytes (never all zero).
inline std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::vector<unsigned char> v(n);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(rng() | 1u);
  return v;
}

}  // namespace xpose::test
