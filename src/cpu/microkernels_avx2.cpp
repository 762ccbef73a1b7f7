// AVX2 micro-kernels: 256-bit unpack networks plus a 2 x 2 exchange of 128-bit lanes (simd_tile.hpp),
// 32-byte non-temporal stores, and k-way (de)interleave kernels for thin planes of 4- and 8-byte units. Compiled with -mavx2 (CMakeLists.txt); only called when the CPU has AVX2.
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
  // Pixels (pixel_tile.hpp): pieces of 24 bytes.
  static vec broadcast_lane(__m128i x) { return _mm256_broadcastsi128_si256(x); }
  static vec shuffle_bytes(vec v, vec idx) { return _mm256_shuffle_epi8(v, idx); }
  static vec widen_lanes12(const unsigned char* p) {  // bytes 0-15 and 8-23, the second shifted by 4
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hi = _mm_srli_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8)), 4);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
  }
  static void narrow_lanes12(unsigned char* p, vec packed) {  // dwords 0-2 and 4-6, stored as 16 + 8 bytes
    const vec v = _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(v));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p + 16), _mm256_extracti128_si256(v, 1));
  }
};

// ---- thin planes: k-way (de)interleave of 4- and 8-byte units with lane permutes ---------------------------
//
// A group of E = 32 / U rows of a k-unit-wide AoS plane is k vectors (E * k units, contiguous). Output vector
// o takes E units from at most k of them; for each source vector it draws from, one cross-lane dword permute
// (vpermd: a qword is a dword pair) brings them to their lanes and a mask keeps those lanes; the pieces are
// OR-ed. Interleaving is the same with the roles swapped. Index vectors and masks depend only on k: built
// once per call (AVX2 has no two-source permute, so k permutes an output vector instead of ceil(k / 2)).

constexpr int thin_k_max = 16;

template <int U>
struct thin_plan {
  static constexpr int E = 32 / U;  // units per vector
  __m256i idx[thin_k_max][thin_k_max];
  __m256i mask[thin_k_max][thin_k_max];
  int src[thin_k_max][thin_k_max];  // the source vectors of output vector o
  int sources[thin_k_max] = {};

  // `pos(o, i)`: position, in units from the group's first unit, of output vector o's lane i.
  template <class Pos>
  thin_plan(std::int64_t k, const Pos& pos) {
    for (int o = 0; o < k; ++o) {
      alignas(32) std::int32_t v[thin_k_max][8] = {};
      alignas(32) std::int32_t m[thin_k_max][8] = {};
      bool used[thin_k_max] = {};
      for (int i = 0; i < E; ++i) {
        const std::int64_t q = pos(o, i);
        const int from = static_cast<int>(q / E), lane = static_cast<int>(q % E);
        used[from] = true;
        for (int d = 0; d < U / 4; ++d) {  // the unit's dwords
          v[from][i * (U / 4) + d] = lane * (U / 4) + d;
          m[from][i * (U / 4) + d] = -1;
        }
      }
      for (int f = 0; f < k; ++f) {
        if (!used[f]) continue;
        const int n = sources[o]++;
        src[o][n] = f;
        idx[o][n] = _mm256_load_si256(reinterpret_cast<const __m256i*>(v[f]));
        mask[o][n] = _mm256_load_si256(reinterpret_cast<const __m256i*>(m[f]));
      }
    }
  }

  __m256i gather(int o, const __m256i* s) const {
    __m256i acc = _mm256_setzero_si256();
    for (int n = 0; n < sources[o]; ++n)
      acc = _mm256_or_si256(acc, _mm256_and_si256(_mm256_permutevar8x32_epi32(s[src[o][n]], idx[o][n]), mask[o][n]));
    return acc;
  }
};

inline void store_vec(unsigned char* p, __m256i v, bool stream) {
  if (stream) _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
  else _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

template <int U>
void deinterleave(const unsigned char* in, unsigned char* out, std::int64_t out_rs, std::int64_t n, std::int64_t k,
                  bool stream) {
  constexpr int E = thin_plan<U>::E;
  const thin_plan<U> plan(k, [k](std::int64_t o, std::int64_t i) { return i * k + o; });
  // Two groups at a time, so that each output row gets a whole 64-byte line from two consecutive stores
  // (half-line non-temporal stores to k rows in turn ran at a third of the copy rate).
  __m256i s[thin_k_max], t[thin_k_max];
  for (std::int64_t r = 0; r < n; r += 2 * E) {
    const unsigned char* g = in + r * k * U;
    for (std::int64_t v = 0; v < k; ++v) {
      s[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g + v * 32));
      t[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g + (k + v) * 32));
    }
    for (int o = 0; o < k; ++o) {
      store_vec(out + o * out_rs + r * U, plan.gather(o, s), stream);
      store_vec(out + o * out_rs + (r + E) * U, plan.gather(o, t), stream);
    }
  }
}

template <int U>
void interleave(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t n, std::int64_t k,
                bool stream) {
  constexpr int E = thin_plan<U>::E;
  // Output vector o, lane i is unit m = o E + i of the group: input row m % k, column m / k, i.e. lane m / k
  // of source vector m % k.
  const thin_plan<U> plan(k, [k](std::int64_t o, std::int64_t i) {
    const std::int64_t m = o * E + i;
    return (m % k) * E + m / k;
  });
  __m256i s[thin_k_max];
  for (std::int64_t c = 0; c < n; c += E) {
    for (std::int64_t v = 0; v < k; ++v) s[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + v * in_rs + c * U));
    unsigned char* g = out + c * k * U;
    for (int o = 0; o < k; ++o) store_vec(g + o * 32, plan.gather(o, s), stream);
  }
}

// ---- pixels: 3-, 6-, 12-byte units (pixel_tile.hpp) ------------------------------------------------------
//
// 24-byte pieces (8 RGB8, 4 RGB16 or 2 RGB32F pixels), loaded as bytes 0-15 and 8-23 and stored as 16 + 8 bytes.
// Before, these units took the scalar per-unit kernel on AVX2 machines.

#include "cpu/pixel_tile.hpp"

constexpr isa_kernels make_table() {
  isa_kernels k = simd::make_kernels<avx2>(cpu_isa::avx2);
  k.deinterleave[2] = &deinterleave<4>;
  k.deinterleave[3] = &deinterleave<8>;
  k.interleave[2] = &interleave<4>;
  k.interleave[3] = &interleave<8>;
  k.thin_max_k[2] = k.thin_max_k[3] = thin_k_max;
  k.thin_step[2] = 2 * thin_plan<4>::E;  // deinterleave moves two groups at a time
  k.thin_step[3] = 2 * thin_plan<8>::E;
  k.unit3 = {&tile_pixels<avx2, 3>, 8, 8, nullptr, nullptr};
  k.unit6 = {&tile_pixels<avx2, 6>, 4, 4, nullptr, nullptr};
  k.unit12 = {&tile_pixels<avx2, 12>, 2, 2, nullptr, nullptr};
  return k;
}

constexpr isa_kernels table = make_table();

}  // namespace isa_avx2

const isa_kernels& kernels_avx2() noexcept { return isa_avx2::table; }

}  // namespace xpose::detail

#else

namespace xpose::detail {
const isa_kernels& kernels_avx2() noexcept { return kernels_scalar(); }
}  // namespace xpose::detail

#endif
