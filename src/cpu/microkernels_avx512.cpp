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
  static constexpr int full_max_rows = 64;  // every unit size (simd_tile.hpp, step 2)
  static vec load(const unsigned char* p) { return _mm512_loadu_si512(p); }
  static void store(unsigned char* p, vec v) { _mm512_storeu_si512(p, v); }
  static void stream(unsigned char* p, vec v) { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v); }
  static vec zero() { return _mm512_setzero_si512(); }
  // The first n (0-64) bytes at p, the rest zero; masked-off bytes are not accessed (no fault past them).
  static __mmask64 byte_mask(int n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }
  static vec load_bytes(const unsigned char* p, int n) { return _mm512_maskz_loadu_epi8(byte_mask(n), p); }
  static void store_bytes(unsigned char* p, vec v, int n) { _mm512_mask_storeu_epi8(p, byte_mask(n), v); }
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
  // idx = shift_index<U>(s) = {s, s + 1, ...} in 2-byte (U = 2), 4-byte (U = 4) or 8-byte (U = 8, 16)
  // elements; two-source permute indices >= the element count select from cur. Bytes (no VBMI vpermt2b at
  // this level): dword i of idx is (s / 4 + i) | (s % 4) << 16 (the permute reads only the low 5 bits); the
  // dwords from s / 4 and from s / 4 + 1 are funnel-shifted by s % 4 bytes (variable shifts of 32 give 0).
  template <int U>
  static constexpr bool has_concat_shift = true;
  template <int U>
  static vec shift_index(int s) {
    if constexpr (U == 1) {
      return _mm512_add_epi32(_mm512_set1_epi32(s / 4 + ((s % 4) << 16)),
                              _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    } else if constexpr (U == 2) {
      const __m512i iota = _mm512_setr_epi64(0x0003000200010000, 0x0007000600050004, 0x000B000A00090008,
                                             0x000F000E000D000C, 0x0013001200110010, 0x0017001600150014,
                                             0x001B001A00190018, 0x001F001E001D001C);
      return _mm512_add_epi16(_mm512_set1_epi16(static_cast<short>(s)), iota);
    } else if constexpr (U == 4) return _mm512_add_epi32(_mm512_set1_epi32(s), _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    else return _mm512_add_epi64(_mm512_set1_epi64(s * (U / 8)), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  }
  template <int U>
  static vec concat_shift(vec prev, vec idx, vec cur) {
    if constexpr (U == 1) {
      const vec lo = _mm512_permutex2var_epi32(prev, idx, cur);
      const vec hi = _mm512_permutex2var_epi32(prev, _mm512_add_epi32(idx, _mm512_set1_epi32(1)), cur);
      const vec bits = _mm512_slli_epi32(_mm512_srli_epi32(idx, 16), 3);
      return _mm512_or_si512(_mm512_srlv_epi32(lo, bits), _mm512_sllv_epi32(hi, _mm512_sub_epi32(_mm512_set1_epi32(32), bits)));
    } else if constexpr (U == 2) return _mm512_permutex2var_epi16(prev, idx, cur);
    else if constexpr (U == 4) return _mm512_permutex2var_epi32(prev, idx, cur);
    else return _mm512_permutex2var_epi64(prev, idx, cur);
  }
  // Pixels (pixel_tile.hpp): pieces of 48 bytes, read and written with a byte mask.
  static vec broadcast_lane(__m128i x) { return _mm512_broadcast_i32x4(x); }
  static vec shuffle_bytes(vec v, vec idx) { return _mm512_shuffle_epi8(v, idx); }
  static vec widen_lanes12(const unsigned char* p) {  // a dword permute brings bytes 12 L .. 12 L + 15 into lane L
    const __m512i v = _mm512_maskz_loadu_epi8(0x0000FFFFFFFFFFFFull, p);
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9, 9, 10, 11, 12), v);
  }
  static void narrow_lanes12(unsigned char* p, vec packed) {  // a dword permute closes the gaps
    const __m512i out = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 3, 7, 11, 15), packed);
    _mm512_mask_storeu_epi8(p, 0x0000FFFFFFFFFFFFull, out);
  }
};

#include "cpu/thin_avx512.hpp"
#include "cpu/periodic_avx512.hpp"

// 1-byte units (HWC <-> CHW of 8-bit images): without VBMI (the avx512vbmi level, microkernels_avx512vbmi.cpp,
// permutes bytes directly) there is no two-source byte permute, so the bytes of
// 32 rows are widened to words (vpmovzxbw), moved by the 2-byte plan above and narrowed back (vpmovwb); two such
// halves make each 64-byte output vector. Before these, u8 n x 3 / 3 x n planes went through 64 x 64 byte tiles
// of which k columns were used: 0.09 of the non-temporal copy (2-core Xeon, 16777216 x 3).

inline __m512i join_halves(__m256i lo, __m256i hi) {
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

void deinterleave_bytes(const unsigned char* in, unsigned char* out, std::int64_t out_rs, std::int64_t n,
                        std::int64_t k, bool stream) {
  constexpr int E = thin_traits<2>::E;  // 32 rows a half
  __m512i idx[thin_k_max][thin_k_max / 2 + 1];
  __mmask64 mask[thin_k_max][thin_k_max / 2 + 1];
  thin_plan<2>(k, [k](std::int64_t o, std::int64_t i) { return i * k + o; }, idx, mask);
  const std::int64_t pairs = (k + 1) / 2;
  __m512i src[thin_k_max + 1];
  __m256i half[thin_k_max];
  for (std::int64_t r = 0; r < n; r += 2 * E) {
    for (int h = 0; h < 2; ++h) {
      const unsigned char* g = in + (r + h * E) * k;  // 32 rows of k bytes
      for (std::int64_t v = 0; v < k; ++v)
        src[v] = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(g + v * 32)));
      src[k] = _mm512_setzero_si512();
      for (std::int64_t o = 0; o < k; ++o) {
        const __m512i acc = thin_gather<2>(idx[o], mask[o], src, pairs);
        const __m256i b = _mm512_cvtepi16_epi8(acc);
        if (h == 0) half[o] = b;
        else store_vec<1>(out + o * out_rs + r, join_halves(half[o], b), stream);
      }
    }
  }
}

void interleave_bytes(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t n,
                      std::int64_t k, bool stream) {
  constexpr int E = thin_traits<2>::E;
  __m512i idx[thin_k_max][thin_k_max / 2 + 1];
  __mmask64 mask[thin_k_max][thin_k_max / 2 + 1];
  thin_plan<2>(k, [k](std::int64_t o, std::int64_t i) { const std::int64_t m = o * E + i; return (m % k) * E + m / k; },
               idx, mask);
  const std::int64_t pairs = (k + 1) / 2;
  __m512i src[thin_k_max + 1];
  for (std::int64_t c = 0; c < n; c += 2 * E) {
    // Columns [c, c + 64): two halves of 32, each k output pieces of 32 bytes, contiguous; the second half's
    // pieces follow the first's, so pieces 2q and 2q + 1 of the 2k are one 64-byte vector.
    __m256i piece[2 * thin_k_max];
    for (int h = 0; h < 2; ++h) {
      for (std::int64_t v = 0; v < k; ++v)
        src[v] = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + v * in_rs + c + h * E)));
      src[k] = _mm512_setzero_si512();
      for (std::int64_t o = 0; o < k; ++o) {
        const __m512i acc = thin_gather<2>(idx[o], mask[o], src, pairs);
        piece[h * k + o] = _mm512_cvtepi16_epi8(acc);
      }
    }
    unsigned char* g = out + c * k;
    for (std::int64_t q = 0; q < k; ++q) store_vec<1>(g + q * 64, join_halves(piece[2 * q], piece[2 * q + 1]), stream);
  }
}

// ---- 3-, 6- and 12-byte units (RGB8, RGB16, RGB32F): pixel_tile.hpp, 48-byte pieces ------------------------

#include "cpu/pixel_tile.hpp"

constexpr isa_kernels make_table() {
  isa_kernels k = simd::make_kernels<avx512>(cpu_isa::avx512);
  k.deinterleave[0] = &deinterleave_bytes;
  k.interleave[0] = &interleave_bytes;
  // Bytes: the widened permutes cost ceil(k / 2) a word vector, twice a 64-byte vector; past these k the
  // 64 x 64 byte tiles win (2-core Xeon, 1 thread vs the non-temporal copy, tiles -> thin: n x 2 0.06 -> 0.81,
  // n x 3 0.09 -> 0.71, n x 12 0.21 -> 0.38, n x 14 0.26 -> 0.34, n x 16 0.37 -> 0.29; 3 x n 0.10 -> 0.68,
  // 11 x n 0.28 -> 0.34, 12 x n 0.32 -> 0.25).
  k.thin_max_k[0] = 14;
  k.interleave_max_k[0] = 11;
  k.thin_step[0] = 64;
  k.deinterleave16_u8 = &deinterleave16_bytes;
  k.interleave16_u8 = &interleave16_bytes;
  k.deinterleave8_u8 = &deinterleave8_bytes;
  k.interleave8_u8 = &interleave8_bytes;
  k.deinterleave8_u16 = &deinterleave8_words;
  k.interleave8_u16 = &interleave8_words;
  k.deinterleave16_u16 = &deinterleave16_words;
  k.interleave16_u16 = &interleave16_words;
  k.deinterleave[1] = &deinterleave<2>;
  k.deinterleave[2] = &deinterleave<4>;
  k.deinterleave[3] = &deinterleave<8>;
  k.interleave[1] = &interleave<2>;
  k.interleave[2] = &interleave<4>;
  k.interleave[3] = &interleave<8>;
  k.deinterleave[4] = &deinterleave<16>;
  k.interleave[4] = &interleave<16>;
  k.thin_max_k[1] = k.thin_max_k[2] = k.thin_max_k[3] = k.thin_max_k[4] = thin_k_max;
  k.unit3 = {&tile_pixels<avx512, 3>, 16, 16, nullptr, nullptr};
  k.unit6 = {&tile_pixels<avx512, 6>, 8, 8, nullptr, nullptr};
  k.unit12 = {&tile_pixels<avx512, 12>, 4, 4, nullptr, nullptr};
  k.thin_step[1] = 32;
  k.thin_step[2] = 16;
  k.thin_step[3] = 8;
  k.thin_step[4] = 4;
  k.periodic[1] = &periodic<2>;  // no byte permute without VBMI
  k.periodic[2] = &periodic<4>;
  return k;
}

constexpr isa_kernels table = make_table();

}  // namespace isa_avx512

const isa_kernels& kernels_avx512() noexcept { return isa_avx512::table; }

}  // namespace xpose::detail

#else

namespace xpose::detail {
const isa_kernels& kernels_avx512() noexcept { return kernels_scalar(); }
}  // namespace xpose::detail

#endif
