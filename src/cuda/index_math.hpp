// Index arithmetic shared by host and device code (and tested on the host, tests/host/test_index_math.cpp).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define XPOSE_HD __host__ __device__ __forceinline__
#else
#define XPOSE_HD inline
#endif

namespace xpose::detail {

/// 128-bit unsigned (a GCC/Clang/nvcc extension; `__extension__` keeps -Wpedantic quiet for host code).
__extension__ typedef unsigned __int128 uint128_t;

/// Division of 64-bit unsigned values by a divisor fixed at plan time, with a multiply-high and shifts
/// instead of the ~70-instruction 64-bit divide (Granlund & Montgomery 1994, fig. 4.1):
///   l = ceil(log2 d), m = floor(2^64 (2^l - d) / d) + 1, sh1 = min(l, 1), sh2 = max(l - 1, 0)
///   q = (t + ((n - t) >> sh1)) >> sh2  with t = mulhi(m, n)
/// Exact for every 64-bit n and every d >= 1.
struct fast_divmod {
  std::uint64_t divisor = 1;
  std::uint64_t multiplier = 1;
  unsigned shift1 = 0;
  unsigned shift2 = 0;

  fast_divmod() = default;
  explicit fast_divmod(std::uint64_t d) : divisor(d) {
    unsigned l = 0;
    while (l < 64 && (std::uint64_t{1} << l) < d) ++l;
    const uint128_t two_l = static_cast<uint128_t>(1) << l;
    multiplier = static_cast<std::uint64_t>(((two_l - d) << 64) / d + 1);
    shift1 = l < 1 ? l : 1;
    shift2 = l > 1 ? l - 1 : 0;
  }

  XPOSE_HD std::uint64_t div(std::uint64_t n) const {
#if defined(__CUDA_ARCH__)
    const std::uint64_t t = __umul64hi(multiplier, n);
#else
    const auto t = static_cast<std::uint64_t>((static_cast<uint128_t>(multiplier) * n) >> 64);
#endif
    return (t + ((n - t) >> shift1)) >> shift2;
  }

  /// quotient, and n - quotient * divisor into `rem`
  XPOSE_HD std::uint64_t divmod(std::uint64_t n, std::uint64_t& rem) const {
    const std::uint64_t q = div(n);
    rem = n - q * divisor;
    return q;
  }
};

/// The same for small operands: n / d for n, d < 2^16 (n d < 2^32) with one multiply, m = ceil(2^32 / d)
/// (exact there: the error n (m - 2^32 / d) / 2^32 < n / 2^32 < 1 / d). For per-element index splits inside a
/// block (box16's chunk and run indices), where fast_divmod's 64-bit multiply-high and shifts cost more.
struct div32 {
  std::uint64_t m = std::uint64_t{1} << 32;
  div32() = default;
  explicit div32(unsigned d) : m(((std::uint64_t{1} << 32) + d - 1) / d) {}
  XPOSE_HD unsigned div(unsigned n) const { return static_cast<unsigned>((n * m) >> 32); }
};

/// div32 for larger operands: n / d with m = ceil(2^40 / d), exact while n d < 2^40 and n < 2^24 (the error
/// n (m - 2^40 / d) / 2^40 < n / 2^40 < 1 / d; the product stays under 2^64). For offsets inside a block's
/// staged matrices of up to ~200 KiB (batched_flat), where div32's n d < 2^32 no longer holds.
struct div40 {
  std::uint64_t m = std::uint64_t{1} << 40;
  div40() = default;
  explicit div40(unsigned d) : m(((std::uint64_t{1} << 40) + d - 1) / d) {}
  XPOSE_HD unsigned div(unsigned n) const { return static_cast<unsigned>((n * m) >> 40); }
};

/// Up to `max_canonical_rank` batch axes, each with a divisor and per-side byte strides. Maps a linear batch
/// index (row-major over the extents) to byte offsets in the input and the output.
template <int MaxRank>
struct batch_map {
  int rank = 0;
  fast_divmod extent[MaxRank];
  std::int64_t in_stride[MaxRank] = {};   // bytes
  std::int64_t out_stride[MaxRank] = {};  // bytes

  XPOSE_HD void offsets(std::uint64_t b, std::int64_t& in_off, std::int64_t& out_off) const {
    in_off = 0;
    out_off = 0;
    for (int i = rank - 1; i >= 0; --i) {
      std::uint64_t idx = 0;
      b = extent[i].divmod(b, idx);
      in_off += static_cast<std::int64_t>(idx) * in_stride[i];
      out_off += static_cast<std::int64_t>(idx) * out_stride[i];
    }
  }
};

/// A compound tile side (plan_geometry::row_* / col_*): index i, a mixed-radix number over `extent` (slowest
/// first), -> byte offset sum(digit_k * stride[k]). rank >= 1; the slowest extent is never divided by.
template <int MaxRank>
struct mixed_radix_map {
  int rank = 1;
  fast_divmod extent[MaxRank];
  std::int64_t stride[MaxRank] = {};  // bytes

  XPOSE_HD std::int64_t offset(std::uint64_t i) const {
    std::int64_t off = 0;
    for (int k = rank - 1; k > 0; --k) {
      std::uint64_t digit = 0;
      i = extent[k].divmod(i, digit);
      off += static_cast<std::int64_t>(digit) * stride[k];
    }
    return off + static_cast<std::int64_t>(i) * stride[0];
  }
};

}  // namespace xpose::detail
