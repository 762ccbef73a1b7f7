// AVX2 micro-kernels: 256-bit unpack networks plus a 2 x 2 exchange of 128-bit lanes (simd_tile.hpp),
// 32-byte non-temporal stores. Compiled with -mavx2 (CMakeLists.txt); only called when the CPU has AVX2.
#include <cstdint>
#include <cstring>
#include <utility>

#include "cpu/kernel_table.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

namespace xpose::detail {
namespace isa_avx2 {

#include "cpu/simd_tile.hpp"

struct avx2 {
  using vec = __m256i;
  static constexpr int lanes = 2;
  static constexpr int full_max_rows = 16;
  static vec load(const unsigned char* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(unsigned char* p, vec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static void stream(unsigned char* p, vec v) { _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v); }
  template <int L>
  static void store_lane(unsigned char* p, vec v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_extracti128_si256(v, L));
  }
  template <int U>
  static vec unpacklo(vec a, vec b) {
    if constexpr (U == 1) return _mm256_unpacklo_epi8(a, b);
    else if constexpr (U == 2) return _mm256_unpacklo_epi16(a, b);
    else if constexpr (U == 4) return _mm256_unpacklo_epi32(a, b);
    else return _mm256_unpacklo_epi64(a, b);
  }
  template <int U>
  static vec unpackhi(vec a, vec b) {
    if constexpr (U == 1) return _mm256_unpackhi_epi8(a, b);
    else if constexpr (U == 2) return _mm256_unpackhi_epi16(a, b);
    else if constexpr (U == 4) return _mm256_unpackhi_epi32(a, b);
    else return _mm256_unpackhi_epi64(a, b);
  }
  // [a0 a1], [b0 b1] -> [a0 b0], [a1 b1]
  static void transpose_lanes(vec* w) {
    const vec lo = _mm256_permute2x128_si256(w[0], w[1], 0x20);
    const vec hi = _mm256_permute2x128_si256(w[0], w[1], 0x31);
    w[0] = lo;
    w[1] = hi;
  }
  static void fence() { _mm_sfence(); }
  template <int U>
  static constexpr bool has_concat_shift = false;
};

constexpr isa_kernels table = simd::make_kernels<avx2>(cpu_isa::avx2);

}  // namespace isa_avx2

const isa_kernels& kernels_avx2() noexcept { return isa_avx2::table; }

}  // namespace xpose::detail

#else

namespace xpose::detail {
const isa_kernels& kernels_avx2() noexcept { return kernels_scalar(); }
}  // namespace xpose::detail

#endif
