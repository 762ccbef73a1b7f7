// The self-checking oracle, host half: the pattern every input byte carries, and the per-element check that
// each output byte holds the pattern byte of the input byte it must come from. Readable by any C++ compiler;
// oracle.cuh adds the device kernels that run the same functions on the GPU, so host tests of this file
// exercise exactly the logic the GPU uses.
//
//   fill_pattern_host(in, in_bytes, seed);                    // in[b] = pattern_byte(b, seed)
//   std::memset(out, poison_byte, out_bytes);                 // pattern bytes are never poison_byte
//   xpose::permute_host(in, out, p);
//   assert(count_mismatches_host(out, p, seed) == 0);
//
// The check needs no copy of the input and no reference output: the input is a pure function of the byte
// offset, so the oracle recomputes what each output byte must be. It works for any problem (rank <= 8, any
// axes, element size and strides as in xpose/problem.hpp) and any element count below 2^63.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "xpose/problem.hpp"

#if defined(__CUDACC__)
#define XPOSE_TEST_HD __host__ __device__
#else
#define XPOSE_TEST_HD
#endif

namespace xpose::test {

/// What benchmarks and tests write into outputs before running: no pattern byte ever equals it, so an output
/// byte that was never written always counts as a mismatch.
inline constexpr unsigned char poison_byte = 0xA5;

/// 64-bit mix (splitmix64 finalizer) of an 8-byte group index and a seed. One hash serves 8 pattern bytes.
XPOSE_TEST_HD inline std::uint64_t pattern_hash(std::uint64_t group, std::uint64_t seed) {
  std::uint64_t z = group * 0x9E3779B97F4A7C15ull + (seed ^ 0xD1B54A32D192ED03ull) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The pattern byte at `offset` given `hash == pattern_hash(offset >> 3, seed)`.
///
/// Constraints, so that every implementation under test can be checked bit-exactly:
///  - never 0 (inputs are never zeros) and never `poison_byte`;
///  - the byte at offset % 4 == 3 keeps its low 7 bits in [0x01, 0x7E]: that byte is the high byte of every
///    little-endian fp32 word (and, at offset % 8 == 7, of every fp64 word), so each 4- and 8-byte aligned
///    word is a finite, normal float/double. Numeric peers (cuBLAS geam computes 1*a + 0*b) then reproduce
///    the input bits exactly: no NaN quieting, no denormal flushing, no signed zeros.
XPOSE_TEST_HD inline unsigned char pattern_byte_from_hash(std::uint64_t hash, std::uint64_t offset) {
  auto b = static_cast<unsigned>((hash >> ((offset & 7u) * 8u)) & 0xFFu);
  if ((offset & 3u) == 3u) {
    unsigned e = b & 0x7Fu;  // 7 high exponent bits of an fp32/fp64 word
    if (e == 0x00u) e = 0x01u;
    if (e == 0x7Fu) e = 0x7Eu;
    b = (b & 0x80u) | e;
  }
  if (b == 0u) b = 0x5Au;
  if (b == poison_byte) b = 0xA4u;  // keeps the fp32/fp64 exponent constraint: 0xA4 & 0x7F = 0x24
  return static_cast<unsigned char>(b);
}

/// The byte `fill_pattern` writes at byte `offset` (from the buffer's base) for `seed`.
XPOSE_TEST_HD inline unsigned char pattern_byte(std::uint64_t offset, std::uint64_t seed) {
  return pattern_byte_from_hash(pattern_hash(offset >> 3, seed), offset);
}

/// Division of non-negative 64-bit values below 2^63 by a fixed divisor, with a multiply-high and a shift
/// (Granlund & Montgomery 1994, Thm 4.2 with N = 63): m = ceil(2^(63+l) / d), l = ceil(log2 d), and
/// q = floor(n * m / 2^(63+l)) = umulhi(2n, m) >> l. m < 2^64 for every d >= 1; d == 1 gives m = 2^63.
struct u64_divider {
  std::uint64_t divisor = 1;
  std::uint64_t multiplier = 1ull << 63;
  unsigned shift = 0;

  /// Host only. `d` must be >= 1 and < 2^63.
  static u64_divider make(std::uint64_t d) {
    u64_divider v;
    v.divisor = d;
    unsigned l = 0;
    while (l < 63 && (1ull << l) < d) ++l;
    // Long division of 2^(63+l) by d, one bit at a time (portable: no 128-bit type). r < d < 2^63, so
    // r << 1 never overflows; the quotient is < 2^64, so bits at positions >= 64 are always 0.
    std::uint64_t q = 0, r = 0;
    for (int bit = 63 + static_cast<int>(l); bit >= 0; --bit) {
      r = (r << 1) | (bit == 63 + static_cast<int>(l) ? 1u : 0u);
      if (r >= d) {
        r -= d;
        if (bit < 64) q |= 1ull << bit;
      }
    }
    v.multiplier = r != 0 ? q + 1 : q;
    v.shift = l;
    return v;
  }

  /// High 64 bits of a 64 x 64-bit product, from 32-bit halves.
  static std::uint64_t mulhi(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32, b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    const std::uint64_t lo_lo = a_lo * b_lo, lo_hi = a_lo * b_hi, hi_lo = a_hi * b_lo;
    const std::uint64_t mid = (lo_lo >> 32) + (lo_hi & 0xFFFFFFFFu) + (hi_lo & 0xFFFFFFFFu);
    return a_hi * b_hi + (lo_hi >> 32) + (hi_lo >> 32) + (mid >> 32);
  }

  /// q = n / divisor, r = n % divisor, for 0 <= n < 2^63.
  XPOSE_TEST_HD void divmod(std::uint64_t n, std::uint64_t& q, std::uint64_t& r) const {
#if defined(__CUDA_ARCH__)
    const std::uint64_t hi = __umul64hi(n << 1, multiplier);
#else
    const std::uint64_t hi = mulhi(n << 1, multiplier);
#endif
    q = hi >> shift;
    r = n - q * divisor;
  }
};

/// The oracle's view of a problem: output axes (slowest first) with their extents, the byte stride each one
/// has in the input and in the output. Trivially copyable: passed to kernels by value.
struct oracle_geometry {
  static constexpr int max_axes = xpose::max_rank;
  int rank = 0;
  std::int64_t elem_bytes = 1;
  std::int64_t elements = 0;  ///< product of the extents (1 for rank 0, 0 when any extent is 0)
  u64_divider extent[max_axes];
  std::int64_t in_stride_bytes[max_axes] = {};   ///< input byte stride of output axis i
  std::int64_t out_stride_bytes[max_axes] = {};  ///< output byte stride of output axis i
};

/// Builds the oracle's geometry for `p` (axes and strides as in xpose/problem.hpp: empty axes = reversed,
/// negative axes count from the end, empty strides = packed). Returns an empty string on success, else what
/// is wrong with `p`. The oracle's checks are looser than xpose's validation on purpose (it accepts any
/// strides): it judges outputs, not problems.
inline std::string make_oracle_geometry(const xpose::problem& p, oracle_geometry& g) {
  const auto rank = static_cast<std::int64_t>(p.shape.size());
  if (rank > oracle_geometry::max_axes) return "rank " + std::to_string(rank) + " > 8";
  if (p.elem_bytes < 1) return "elem_bytes must be >= 1";
  if (!p.axes.empty() && static_cast<std::int64_t>(p.axes.size()) != rank) return "axes size != shape size";
  if (!p.in_strides.empty() && static_cast<std::int64_t>(p.in_strides.size()) != rank)
    return "in_strides size != shape size";
  if (!p.out_strides.empty() && static_cast<std::int64_t>(p.out_strides.size()) != rank)
    return "out_strides size != shape size";
  std::int64_t axes[oracle_geometry::max_axes] = {};
  bool seen[oracle_geometry::max_axes] = {};
  for (std::int64_t i = 0; i < rank; ++i) {
    std::int64_t a = p.axes.empty() ? rank - 1 - i : p.axes[i];
    if (a < 0) a += rank;
    if (a < 0 || a >= rank || seen[a]) return "axes is not a permutation";
    seen[a] = true;
    axes[i] = a;
  }
  // Packed strides of the input (input order) and of the output (output order).
  std::int64_t in_packed[oracle_geometry::max_axes] = {};
  std::int64_t out_packed[oracle_geometry::max_axes] = {};
  std::int64_t acc_in = 1, acc_out = 1;
  for (std::int64_t i = rank; i-- > 0;) {
    if (p.shape[i] < 0) return "negative extent";
    in_packed[i] = acc_in;
    acc_in *= p.shape[i];
    out_packed[i] = acc_out;
    acc_out *= p.shape[axes[i]];
  }
  g = oracle_geometry{};
  g.rank = static_cast<int>(rank);
  g.elem_bytes = p.elem_bytes;
  g.elements = 1;
  for (std::int64_t i = 0; i < rank; ++i) {
    const std::int64_t e = p.shape[axes[i]];
    g.elements *= e;
    g.extent[i] = u64_divider::make(static_cast<std::uint64_t>(e > 0 ? e : 1));
    const std::int64_t in_s = p.in_strides.empty() ? in_packed[axes[i]] : p.in_strides[axes[i]];
    const std::int64_t out_s = p.out_strides.empty() ? out_packed[i] : p.out_strides[i];
    g.in_stride_bytes[i] = in_s * p.elem_bytes;
    g.out_stride_bytes[i] = out_s * p.elem_bytes;
  }
  return {};
}

/// Whether output element `e` (row-major linear index over the output shape) differs in any byte from the
/// input element it must come from. `out` is the output's base pointer.
XPOSE_TEST_HD inline bool element_mismatch(const oracle_geometry& g, const unsigned char* out, std::int64_t e,
                                          std::uint64_t seed) {
  std::int64_t in_off = 0, out_off = 0;
  auto rest = static_cast<std::uint64_t>(e);
  for (int i = g.rank - 1; i >= 0; --i) {  // peel output axes, fastest first
    std::uint64_t q, r;
    g.extent[i].divmod(rest, q, r);
    in_off += static_cast<std::int64_t>(r) * g.in_stride_bytes[i];
    out_off += static_cast<std::int64_t>(r) * g.out_stride_bytes[i];
    rest = q;
  }
  std::uint64_t group = ~0ull, hash = 0;
  for (std::int64_t k = 0; k < g.elem_bytes; ++k) {
    const auto src = static_cast<std::uint64_t>(in_off + k);
    if ((src >> 3) != group) {  // one hash per 8-byte group of the input
      group = src >> 3;
      hash = pattern_hash(group, seed);
    }
    if (out[out_off + k] != pattern_byte_from_hash(hash, src)) return true;
  }
  return false;
}

/// Host twin of fill_pattern: buf[b] = pattern_byte(b, seed) for b < bytes.
inline void fill_pattern_host(void* buf, std::int64_t bytes, std::uint64_t seed) {
  auto* p = static_cast<unsigned char*>(buf);
  for (std::int64_t g = 0; g * 8 < bytes; ++g) {
    const std::uint64_t h = pattern_hash(static_cast<std::uint64_t>(g), seed);
    const std::int64_t end = (g + 1) * 8 < bytes ? (g + 1) * 8 : bytes;
    for (std::int64_t b = g * 8; b < end; ++b) p[b] = pattern_byte_from_hash(h, static_cast<std::uint64_t>(b));
  }
}

/// Host twin of count_mismatches: the number of output elements of `p` that are wrong, or -1 when `p` is
/// not a problem the oracle understands. `threads` > 1 splits the elements over that many std::threads.
inline std::int64_t count_mismatches_host(const void* out, const xpose::problem& p, std::uint64_t seed,
                                          int threads = 1) {
  oracle_geometry g;
  if (!make_oracle_geometry(p, g).empty()) return -1;
  const auto* o = static_cast<const unsigned char*>(out);
  auto count_range = [&](std::int64_t begin, std::int64_t end) {
    std::int64_t n = 0;
    for (std::int64_t e = begin; e < end; ++e) n += element_mismatch(g, o, e, seed) ? 1 : 0;
    return n;
  };
  if (threads <= 1 || g.elements < (1 << 16)) return count_range(0, g.elements);
  std::vector<std::int64_t> partial(static_cast<std::size_t>(threads), 0);
  std::vector<std::thread> pool;
  const std::int64_t chunk = (g.elements + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const std::int64_t b = t * chunk;
    const std::int64_t e = b + chunk < g.elements ? b + chunk : g.elements;
    if (b >= e) break;
    pool.emplace_back([&, t, b, e] { partial[static_cast<std::size_t>(t)] = count_range(b, e); });
  }
  for (auto& th : pool) th.join();
  std::int64_t n = 0;
  for (auto v : partial) n += v;
  return n;
}

}  // namespace xpose::test
