// SSE2 micro-kernels (the x86-64 baseline): 128-bit unpack networks (simd_tile.hpp), 16-byte non-temporal
// stores. Compiled with the compiler's x86-64 defaults; empty on other architectures.
#include <cstdint>
#include <cstring>
#include <utility>

#include "cpu/kernel_table.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>

namespace xpose::detail {
namespace isa_sse2 {

#include "cpu/simd_tile.hpp"

struct sse2 {
  using vec = __m128i;
  static constexpr int lanes = 1;
  static constexpr int full_max_rows = 16;
  static vec load(const unsigned char* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static void store(unsigned char* p, vec v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static void stream(unsigned char* p, vec v) { _mm_stream_si128(reinterpret_cast<__m128i*>(p), v); }
  template <int L>
  static void store_lane(unsigned char* p, vec v) {
    static_assert(L == 0);
    store(p, v);
  }
  template <int U>
  static vec unpacklo(vec a, vec b) {
    if constexpr (U == 1) return _mm_unpacklo_epi8(a, b);
    else if constexpr (U == 2) return _mm_unpacklo_epi16(a, b);
    else if constexpr (U == 4) return _mm_unpacklo_epi32(a, b);
    else return _mm_unpacklo_epi64(a, b);
  }
  template <int U>
  static vec unpackhi(vec a, vec b) {
    if constexpr (U == 1) return _mm_unpackhi_epi8(a, b);
    else if constexpr (U == 2) return _mm_unpackhi_epi16(a, b);
    else if constexpr (U == 4) return _mm_unpackhi_epi32(a, b);
    else return _mm_unpackhi_epi64(a, b);
  }
  static void transpose_lanes(vec*) {}
  static void fence() { _mm_sfence(); }
  template <int U>
  static constexpr bool has_concat_shift = false;
};

constexpr isa_kernels table = simd::make_kernels<sse2>(cpu_isa::sse2);

}  // namespace isa_sse2

const isa_kernels& kernels_sse2() noexcept { return isa_sse2::table; }

}  // namespace xpose::detail

#else

namespace xpose::detail {
const isa_kernels& kernels_sse2() noexcept { return kernels_scalar(); }
}  // namespace xpose::detail

#endif
