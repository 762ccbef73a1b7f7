// AVX-512 micro-kernels: 512-bit unpack networks plus a 4 x 4 exchange of 128-bit lanes (simd_tile.hpp),
// 64-byte (whole-line) non-temporal stores. Compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl
// (CMakeLists.txt); only called when the CPU and the OS support all four.
#include <cstdint>
#include <cstring>
#include <utility>

#include "cpu/kernel_table.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
// GCC 12's avx512fintrin.h initializes its "undefined" operands from themselves (__m512i __Y = __Y), which
// -Wuninitialized reports at every use (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace xpose::detail {
namespace isa_avx512 {

#include "cpu/simd_tile.hpp"

struct avx512 {
  using vec = __m512i;
  static constexpr int lanes = 4;
  static constexpr int full_max_rows = 16;
  static vec load(const unsigned char* p) { return _mm512_loadu_si512(p); }
  static void store(unsigned char* p, vec v) { _mm512_storeu_si512(p, v); }
  static void stream(unsigned char* p, vec v) { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v); }
  template <int L>
  static void store_lane(unsigned char* p, vec v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_extracti32x4_epi32(v, L));
  }
  template <int U>
  static vec unpacklo(vec a, vec b) {
    if constexpr (U == 1) return _mm512_unpacklo_epi8(a, b);
    else if constexpr (U == 2) return _mm512_unpacklo_epi16(a, b);
    else if constexpr (U == 4) return _mm512_unpacklo_epi32(a, b);
    else return _mm512_unpacklo_epi64(a, b);
  }
  template <int U>
  static vec unpackhi(vec a, vec b) {
    if constexpr (U == 1) return _mm512_unpackhi_epi8(a, b);
    else if constexpr (U == 2) return _mm512_unpackhi_epi16(a, b);
    else if constexpr (U == 4) return _mm512_unpackhi_epi32(a, b);
    else return _mm512_unpackhi_epi64(a, b);
  }
  // 4 x 4 transpose of 128-bit lanes: w[g] lane l -> w[l] lane g. shuffle_i64x2 takes lanes 0-1 of the
  // result from its first operand and 2-3 from its second (2 bits of the immediate each).
  static void transpose_lanes(vec* w) {
    const vec t0 = _mm512_shuffle_i64x2(w[0], w[1], 0x44);  // a0 a1 b0 b1
    const vec t1 = _mm512_shuffle_i64x2(w[0], w[1], 0xEE);  // a2 a3 b2 b3
    const vec t2 = _mm512_shuffle_i64x2(w[2], w[3], 0x44);  // c0 c1 d0 d1
    const vec t3 = _mm512_shuffle_i64x2(w[2], w[3], 0xEE);  // c2 c3 d2 d3
    w[0] = _mm512_shuffle_i64x2(t0, t2, 0x88);              // a0 b0 c0 d0
    w[1] = _mm512_shuffle_i64x2(t0, t2, 0xDD);              // a1 b1 c1 d1
    w[2] = _mm512_shuffle_i64x2(t1, t3, 0x88);              // a2 b2 c2 d2
    w[3] = _mm512_shuffle_i64x2(t1, t3, 0xDD);              // a3 b3 c3 d3
  }
  static void fence() { _mm_sfence(); }

  // concat_shift<U>(prev, idx, cur): the 64 bytes starting `s` units into prev and running into cur, where
  // idx = shift_index<U>(s) = {s, s + 1, ...} in 4-byte (U = 4) or 8-byte (U = 8, 16) elements; two-source
  // permute indices >= the element count select from cur.
  template <int U>
  static constexpr bool has_concat_shift = U >= 2;  // bytes would need VBMI's vpermt2b
  template <int U>
  static vec shift_index(int s) {
    if constexpr (U == 2) {
      const __m512i iota = _mm512_setr_epi64(0x0003000200010000, 0x0007000600050004, 0x000B000A00090008,
                                             0x000F000E000D000C, 0x0013001200110010, 0x0017001600150014,
                                             0x001B001A00190018, 0x001F001E001D001C);
      return _mm512_add_epi16(_mm512_set1_epi16(static_cast<short>(s)), iota);
    } else if constexpr (U == 4) return _mm512_add_epi32(_mm512_set1_epi32(s), _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    else return _mm512_add_epi64(_mm512_set1_epi64(s * (U / 8)), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  }
  template <int U>
  static vec concat_shift(vec prev, vec idx, vec cur) {
    if constexpr (U == 2) return _mm512_permutex2var_epi16(prev, idx, cur);
    else if constexpr (U == 4) return _mm512_permutex2var_epi32(prev, idx, cur);
    else return _mm512_permutex2var_epi64(prev, idx, cur);
  }
};

constexpr isa_kernels table = simd::make_kernels<avx512>(cpu_isa::avx512);

}  // namespace isa_avx512

const isa_kernels& kernels_avx512() noexcept { return isa_avx512::table; }

}  // namespace xpose::detail

#else

namespace xpose::detail {
const isa_kernels& kernels_avx512() noexcept { return kernels_scalar(); }
}  // namespace xpose::detail

#endif
