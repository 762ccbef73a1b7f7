// Thin planes on AVX-512: k-way (de)interleave with two-source permutes, shared by microkernels_avx512.cpp
// and microkernels_avx512vbmi.cpp. Like simd_tile.hpp it is included inside each level's own namespace, after
// <immintrin.h>, so that each level's copy is compiled with that level's flags only. 1-byte units need
// AVX512-VBMI (vpermt2b): thin_traits<1> exists only where __AVX512VBMI__ is defined.
//
// A group of E = 64 / U rows of a k-unit-wide AoS plane is k vectors (E * k units, contiguous). Output row j
// of the group takes units j, j + k, j + 2k, ... : they lie in at most k of the k input vectors, so it is
// assembled from ceil(k / 2) two-source permutes (vpermt2w/d/q over vectors 2p and 2p + 1), each keeping the
// lanes whose source is in that pair (zero-masking) and OR-ed together. Interleaving is the same with the
// roles swapped. Index vectors and masks depend only on k: built once per call.

template <int U>
struct thin_traits {
  static constexpr int E = 64 / U;  // units per vector
  static __m512i permute(__mmask64 m, __m512i a, __m512i idx, __m512i b) {
    if constexpr (U == 1) {
#if defined(__AVX512VBMI__)
      return _mm512_maskz_permutex2var_epi8(m, a, idx, b);
#else
      static_assert(U != 1, "1-byte thin planes need AVX512-VBMI");
#endif
    } else if constexpr (U == 2) return _mm512_maskz_permutex2var_epi16(static_cast<__mmask32>(m), a, idx, b);
    else if constexpr (U == 4) return _mm512_maskz_permutex2var_epi32(static_cast<__mmask16>(m), a, idx, b);
    else return _mm512_maskz_permutex2var_epi64(static_cast<__mmask8>(m), a, idx, b);
  }
  // The permute index vector from E small integers.
  static __m512i index(const int* v) {
    alignas(64) unsigned char b[64];
    for (int i = 0; i < E; ++i) {
      if constexpr (U == 1) { b[i] = static_cast<unsigned char>(v[i]); }
      else if constexpr (U == 2) { const auto x = static_cast<std::uint16_t>(v[i]); std::memcpy(b + 2 * i, &x, 2); }
      else if constexpr (U == 4) { const auto x = static_cast<std::uint32_t>(v[i]); std::memcpy(b + 4 * i, &x, 4); }
      else { const auto x = static_cast<std::uint64_t>(v[i]); std::memcpy(b + 8 * i, &x, 8); }
    }
    return _mm512_load_si512(b);
  }
};

constexpr int thin_k_max = 16;

// For each output vector o < k and source pair p: which lanes come from vectors (2p, 2p + 1) and from where.
// `pos(o, i)` is the position, in units from the group's first unit, of output vector o's lane i.
template <int U, class Pos>
void thin_plan(std::int64_t k, const Pos& pos, __m512i idx[thin_k_max][thin_k_max / 2 + 1],
               __mmask64 mask[thin_k_max][thin_k_max / 2 + 1]) {
  constexpr int E = thin_traits<U>::E;
  for (int o = 0; o < k; ++o) {
    for (int p = 0; 2 * p < k; ++p) {
      int v[64] = {};
      __mmask64 m = 0;
      for (int i = 0; i < E; ++i) {
        const std::int64_t q = pos(o, i);  // unit within the group
        if (q / (2 * E) == p) {
          v[i] = static_cast<int>(q - 2 * E * p);
          m |= __mmask64{1} << i;
        }
      }
      idx[o][p] = thin_traits<U>::index(v);
      mask[o][p] = m;
    }
  }
}

/// Output vector o of a group: the lanes of each source pair, permuted and OR-ed (idx, mask: thin_plan's row o).
template <int U>
inline __m512i thin_gather(const __m512i* idx, const __mmask64* mask, const __m512i* src, std::int64_t pairs) {
  __m512i acc = thin_traits<U>::permute(mask[0], src[0], idx[0], src[1]);
  for (std::int64_t p = 1; p < pairs; ++p)
    acc = _mm512_or_si512(acc, thin_traits<U>::permute(mask[p], src[2 * p], idx[p], src[2 * p + 1]));
  return acc;
}

template <int U>
inline void store_vec(unsigned char* p, __m512i v, bool stream) {
  if (stream) _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
  else _mm512_storeu_si512(p, v);
}

// 16-byte units go through the 8-byte permutes as pairs of granules (L = 2 granules a unit): the plans place
// granules, the loops step by units. They ran as 4 x 4-unit tiles before (dev VM, same suite rows, 1 / 2 threads
// vs the non-temporal copy): c128 NHWC -> NCHW 64 x 28 x 224 x 3 0.49 / 0.79 -> 0.85 / 0.92, 1398101 x 3 (rows
// off the line) 0.48 / 0.78 -> 0.56 / 0.85; 1398100 x 3 25 -> 47 GB/s on 1 thread, 1048576 x 5 16 -> 43.
template <int U>
constexpr int thin_granule = U > 8 ? 8 : U;

// thin_plan for k, kept by the calling thread between calls (callers stage a chunk in short pieces, a call each:
// run_thin) and rebuilt when k changes; one cache per call site (each passes its own lambda type). The kernels'
// loops read the k x pairs entries copied into their own arrays: read from the thread-local ones, the loops ran
// 25-35 % slower (their addresses are not kept in registers across the stores).
template <int P, class Pos>
inline void cached_thin_plan(std::int64_t k, const Pos& pos, __m512i (&idx)[thin_k_max][thin_k_max / 2 + 1],
                             __mmask64 (&mask)[thin_k_max][thin_k_max / 2 + 1]) {
  alignas(64) thread_local __m512i plan_idx[thin_k_max][thin_k_max / 2 + 1];
  thread_local __mmask64 plan_mask[thin_k_max][thin_k_max / 2 + 1];
  thread_local std::int64_t planned_k = 0;
  if (planned_k != k) {
    thin_plan<P>(k, pos, plan_idx, plan_mask);
    planned_k = k;
  }
  const std::int64_t pairs = (k + 1) / 2;
  for (std::int64_t o = 0; o < k; ++o)
    for (std::int64_t q = 0; q < pairs; ++q) idx[o][q] = plan_idx[o][q], mask[o][q] = plan_mask[o][q];
}

template <int U>
void deinterleave(const unsigned char* in, unsigned char* out, std::int64_t out_rs, std::int64_t n, std::int64_t k,
                  bool stream) {
  constexpr int P = thin_granule<U>, L = U / P, E = 64 / U;  // granule, granules a unit, units a vector
  // Output vector o, granule lane i: unit i / L of the vector, its unit index (i / L) k + o in the group.
  const std::int64_t pairs = (k + 1) / 2;
  __m512i idx[thin_k_max][thin_k_max / 2 + 1];
  __mmask64 mask[thin_k_max][thin_k_max / 2 + 1];
  cached_thin_plan<P>(k, [k](std::int64_t o, std::int64_t i) { return ((i / L) * k + o) * L + i % L; }, idx, mask);
  __m512i src[thin_k_max + 1];
  for (std::int64_t r = 0; r < n; r += E) {
    const unsigned char* g = in + r * k * U;
    for (std::int64_t v = 0; v < k; ++v) src[v] = _mm512_loadu_si512(g + v * 64);
    src[k] = _mm512_setzero_si512();
    for (std::int64_t o = 0; o < k; ++o) {
      const __m512i acc = thin_gather<P>(idx[o], mask[o], src, pairs);
      store_vec<P>(out + o * out_rs + r * U, acc, stream);
    }
  }
}

template <int U>
void interleave(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t n, std::int64_t k,
                bool stream) {
  constexpr int P = thin_granule<U>, L = U / P, E = 64 / U;
  // Output vector o, granule lane i is granule i % L of unit m = o * E + i / L of the group: input row m % k,
  // column m / k, i.e. unit m / k of source vector m % k, at unit (m % k) * E + m / k of the sources.
  const std::int64_t pairs = (k + 1) / 2;
  __m512i idx[thin_k_max][thin_k_max / 2 + 1];
  __mmask64 mask[thin_k_max][thin_k_max / 2 + 1];
  cached_thin_plan<P>(k,
                      [k](std::int64_t o, std::int64_t i) {
                        const std::int64_t m = o * E + i / L;
                        return ((m % k) * E + m / k) * L + i % L;
                      },
                      idx, mask);
  __m512i src[thin_k_max + 1];
  for (std::int64_t c = 0; c < n; c += E) {
    for (std::int64_t v = 0; v < k; ++v) src[v] = _mm512_loadu_si512(in + v * in_rs + c * U);
    src[k] = _mm512_setzero_si512();
    unsigned char* g = out + c * k * U;
    for (std::int64_t o = 0; o < k; ++o) {
      const __m512i acc = thin_gather<P>(idx[o], mask[o], src, pairs);
      store_vec<P>(g + o * 64, acc, stream);
    }
  }
}

// ---- 16 and 8 byte planes: a 16 x 16 byte-transpose network ------------------------------------------------
// k = 16, 1-byte units (u8 n x 16 <-> 16 x n); k = 8 takes pairs of rows as the network's 16-byte rows.
// thin_gather needs ceil(16 / 2) = 8 permutes an output vector (or words and narrowing without VBMI): 0.33-0.41 of the non-temporal copy, no better than 64 x 64 tiles
// (2-core Xeon, 4194304 x 16). Here 64 rows make 16 vectors; each 128-bit lane is a 16 x 16 byte matrix, and
// four rounds of unpacks (bytes, words, dwords, qwords: register j with j + 8) transpose all four lanes at
// once — 64 shuffles and 32 lane moves per KiB instead of 128 permutes. The network leaves row r of its
// input at output position bitrev4(r), so the inputs go in bit-reversed order to come out in order.

inline int bitrev4(int x) { return ((x & 1) << 3) | ((x & 2) << 1) | ((x & 4) >> 1) | ((x & 8) >> 3); }
inline int bitrev3(int x) { return ((x & 1) << 2) | (x & 2) | ((x & 4) >> 2); }

/// v[0..15] -> v'[c] = column c of the 16 x 16 byte matrix (per 128-bit lane) whose row bitrev4(j) is v[j].
inline void transpose16x16_bytes(__m512i (&v)[16]) {
  __m512i t[16];
  for (int j = 0; j < 8; ++j) t[2 * j] = _mm512_unpacklo_epi8(v[j], v[j + 8]), t[2 * j + 1] = _mm512_unpackhi_epi8(v[j], v[j + 8]);
  for (int j = 0; j < 8; ++j) v[2 * j] = _mm512_unpacklo_epi16(t[j], t[j + 8]), v[2 * j + 1] = _mm512_unpackhi_epi16(t[j], t[j + 8]);
  for (int j = 0; j < 8; ++j) t[2 * j] = _mm512_unpacklo_epi32(v[j], v[j + 8]), t[2 * j + 1] = _mm512_unpackhi_epi32(v[j], v[j + 8]);
  for (int j = 0; j < 8; ++j) v[2 * j] = _mm512_unpacklo_epi64(t[j], t[j + 8]), v[2 * j + 1] = _mm512_unpackhi_epi64(t[j], t[j + 8]);
}

/// 4 x 4 transpose of 128-bit lanes: out[c] lane L = in[L] lane c.
inline void transpose4x4_lanes(__m512i a, __m512i b, __m512i c, __m512i d, __m512i (&out)[4]) {
  const __m512i t0 = _mm512_shuffle_i64x2(a, b, 0x44), t1 = _mm512_shuffle_i64x2(a, b, 0xEE);
  const __m512i t2 = _mm512_shuffle_i64x2(c, d, 0x44), t3 = _mm512_shuffle_i64x2(c, d, 0xEE);
  out[0] = _mm512_shuffle_i64x2(t0, t2, 0x88), out[1] = _mm512_shuffle_i64x2(t0, t2, 0xDD);
  out[2] = _mm512_shuffle_i64x2(t1, t3, 0x88), out[3] = _mm512_shuffle_i64x2(t1, t3, 0xDD);
}

/// The networks' packed side, N = 16 (byte network) or 8 (word network) vectors of 64 contiguous bytes, four
/// 16-byte rows each; S = N / 4. Input x of a network, lane L, is packed row N L + bitrev(x) = vector S L + b's
/// lane c for bitrev(x) = 4 b + c: one lane transpose of vectors b, S + b, 2 S + b, 3 S + b per b.
template <int N>
inline int network_bitrev(int x) {
  static_assert(N == 16 || N == 8);
  return N == 16 ? bitrev4(x) : bitrev3(x);
}

template <int N>
inline void load_packed_rows(const unsigned char* src, __m512i (&v)[N]) {
  constexpr int S = N / 4;
  __m512i w[N];
  for (int j = 0; j < N; ++j) w[j] = _mm512_loadu_si512(src + 64 * j);
  for (int b = 0; b < S; ++b) {
    __m512i t[4];
    transpose4x4_lanes(w[b], w[S + b], w[2 * S + b], w[3 * S + b], t);
    for (int c = 0; c < 4; ++c) v[network_bitrev<N>(4 * b + c)] = t[c];
  }
}

/// The inverse: network output v[c] lane L is packed row N L + c; vector S L + b holds rows 4 (S L + b) ...
template <int U, int N>
inline void store_packed_rows(unsigned char* dst, const __m512i (&v)[N], bool stream) {
  constexpr int S = N / 4;
  for (int b = 0; b < S; ++b) {
    __m512i t[4];
    transpose4x4_lanes(v[4 * b], v[4 * b + 1], v[4 * b + 2], v[4 * b + 3], t);
    for (int L = 0; L < 4; ++L) store_vec<U>(dst + 64 * (S * L + b), t[L], stream);
  }
}

/// deinterleave with k = 16, 1-byte units; n a multiple of 64.
inline void deinterleave16_bytes(const unsigned char* in, unsigned char* out, std::int64_t out_rs, std::int64_t n,
                                 bool stream) {
  for (std::int64_t r = 0; r < n; r += 64) {
    __m512i v[16];
    load_packed_rows(in + r * 16, v);  // rows r .. r + 63 in network order
    transpose16x16_bytes(v);  // v[c] lane L = column c of rows 16 L .. 16 L + 15: output row c, bytes r + 16 L ..
    for (int c = 0; c < 16; ++c) store_vec<1>(out + c * out_rs + r, v[c], stream);
  }
}

/// interleave with k = 16, 1-byte units; n a multiple of 64.
inline void interleave16_bytes(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t n,
                               bool stream) {
  for (std::int64_t c0 = 0; c0 < n; c0 += 64) {
    // Input row j's 64 bytes are, per lane L, row j of the 16 x 16 matrix of output rows c0 + 16 L ...
    __m512i v[16];
    for (int x = 0; x < 16; ++x) v[x] = _mm512_loadu_si512(in + bitrev4(x) * in_rs + c0);
    transpose16x16_bytes(v);  // v[c] lane L = output row c0 + 16 L + c (16 bytes)
    store_packed_rows<1>(out + c0 * 16, v, stream);
  }
}

/// deinterleave with k = 8, 1-byte units, n a multiple of 128: pairs of 8-byte rows are the 16-byte rows of
/// deinterleave16_bytes' network, whose column c < 8 is then output row c's even rows and column 8 + c its odd
/// rows; one unpack pair interleaves them again (per lane: rows 32 L .. 32 L + 15, then + 16 .. + 31) and a
/// qword permute puts the lanes in order.
inline void deinterleave8_bytes(const unsigned char* in, unsigned char* out, std::int64_t out_rs, std::int64_t n,
                                bool stream) {
  const __m512i first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  for (std::int64_t r = 0; r < n; r += 128) {
    __m512i v[16];
    load_packed_rows(in + r * 8, v);  // row pairs as the network's 16-byte rows
    transpose16x16_bytes(v);
    for (int c = 0; c < 8; ++c) {
      const __m512i lo = _mm512_unpacklo_epi8(v[c], v[c + 8]), hi = _mm512_unpackhi_epi8(v[c], v[c + 8]);
      store_vec<1>(out + c * out_rs + r, _mm512_permutex2var_epi64(lo, first, hi), stream);
      store_vec<1>(out + c * out_rs + r + 64, _mm512_permutex2var_epi64(lo, second, hi), stream);
    }
  }
}

/// interleave with k = 8, 1-byte units, n a multiple of 128: each input row's 128 bytes split into even and odd
/// positions (a byte shuffle within lanes, then a qword permute) become columns c and 8 + c of the 16-byte
/// super-rows (output row pairs) that interleave16_bytes' network and lane transposes write.
inline void interleave8_bytes(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t n,
                              bool stream) {
  // Per 16-byte lane: even bytes to the low 8, odd bytes to the high 8.
  const __m512i split = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15));
  const __m512i evens = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), odds = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  for (std::int64_t c0 = 0; c0 < n; c0 += 128) {
    __m512i col[16], v[16];
    for (int j = 0; j < 8; ++j) {
      const __m512i a = _mm512_shuffle_epi8(_mm512_loadu_si512(in + j * in_rs + c0), split);
      const __m512i b = _mm512_shuffle_epi8(_mm512_loadu_si512(in + j * in_rs + c0 + 64), split);
      col[j] = _mm512_permutex2var_epi64(a, evens, b);     // row j of output rows c0, c0 + 2, ... (lane L: 32 L ..)
      col[8 + j] = _mm512_permutex2var_epi64(a, odds, b);  // and of c0 + 1, c0 + 3, ...
    }
    for (int x = 0; x < 16; ++x) v[x] = col[bitrev4(x)];
    transpose16x16_bytes(v);  // v[c] lane L = output rows c0 + 2 (16 L + c) and + 1 (16 bytes)
    store_packed_rows<1>(out + c0 * 8, v, stream);
  }
}

// ---- 8 planes of 2-byte units: an 8 x 8 word-transpose network ----------------------------------------------
// fp16 n x 8 <-> 8 x n: three rounds of unpacks (words, dwords, qwords: register j with j + 4) transpose the
// four 8 x 8 word matrices in the 128-bit lanes of 8 vectors (32 rows), inputs in 3-bit-reversed order.


inline void transpose8x8_words(__m512i (&v)[8]) {
  __m512i t[8];
  for (int j = 0; j < 4; ++j) t[2 * j] = _mm512_unpacklo_epi16(v[j], v[j + 4]), t[2 * j + 1] = _mm512_unpackhi_epi16(v[j], v[j + 4]);
  for (int j = 0; j < 4; ++j) v[2 * j] = _mm512_unpacklo_epi32(t[j], t[j + 4]), v[2 * j + 1] = _mm512_unpackhi_epi32(t[j], t[j + 4]);
  for (int j = 0; j < 4; ++j) t[2 * j] = _mm512_unpacklo_epi64(v[j], v[j + 4]), t[2 * j + 1] = _mm512_unpackhi_epi64(v[j], v[j + 4]);
  for (int j = 0; j < 8; ++j) v[j] = t[j];
}

/// deinterleave with k = 8, 2-byte units; n a multiple of 32.
inline void deinterleave8_words(const unsigned char* in, unsigned char* out, std::int64_t out_rs, std::int64_t n,
                                bool stream) {
  for (std::int64_t r = 0; r < n; r += 32) {
    __m512i v[8];
    load_packed_rows(in + r * 16, v);  // rows r .. r + 31 in network order
    transpose8x8_words(v);  // v[c] lane L = column c of rows 8 L .. 8 L + 7
    for (int c = 0; c < 8; ++c) store_vec<2>(out + c * out_rs + 2 * r, v[c], stream);
  }
}

/// interleave with k = 8, 2-byte units; n a multiple of 32.
inline void interleave8_words(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t n,
                              bool stream) {
  for (std::int64_t c0 = 0; c0 < n; c0 += 32) {
    __m512i v[8];
    for (int x = 0; x < 8; ++x) v[x] = _mm512_loadu_si512(in + bitrev3(x) * in_rs + 2 * c0);
    transpose8x8_words(v);  // v[c] lane L = output row c0 + 8 L + c (16 bytes)
    store_packed_rows<2>(out + c0 * 16, v, stream);
  }
}

/// deinterleave with k = 16, 2-byte units; n a multiple of 32. A round of 16 rows (32 bytes each: two lanes)
/// is four 8 x 8 word blocks, one a lane: rows 0-7 / 8-15 x words 0-7 / 8-15; the word network transposes
/// them, and two rounds' lanes make each output row's 64 bytes.
inline void deinterleave16_words(const unsigned char* in, unsigned char* out, std::int64_t out_rs, std::int64_t n,
                                 bool stream) {
  for (std::int64_t r = 0; r < n; r += 32) {
    __m512i half[2][8];
    for (int h = 0; h < 2; ++h) {
      // z[j] = rows 2 j, 2 j + 1 of the round. Input x, lane L: row 8 (L / 2) + bitrev3(x), words 8 (L % 2) ...
      __m512i z[8], v[8];
      for (int j = 0; j < 8; ++j) z[j] = _mm512_loadu_si512(in + (r + 16 * h) * 32 + 64 * j);
      for (int x = 0; x < 8; ++x) {
        const int q = bitrev3(x);
        v[x] = q % 2 == 0 ? _mm512_shuffle_i64x2(z[q / 2], z[4 + q / 2], 0x44) : _mm512_shuffle_i64x2(z[q / 2], z[4 + q / 2], 0xEE);
      }
      transpose8x8_words(v);  // v[c] lanes: output row c (round rows 0-7), row 8 + c (0-7), row c (8-15), row 8 + c (8-15)
      for (int c = 0; c < 8; ++c) half[h][c] = v[c];
    }
    for (int c = 0; c < 8; ++c) {
      store_vec<2>(out + c * out_rs + 2 * r, _mm512_shuffle_i64x2(half[0][c], half[1][c], 0x88), stream);
      store_vec<2>(out + (8 + c) * out_rs + 2 * r, _mm512_shuffle_i64x2(half[0][c], half[1][c], 0xDD), stream);
    }
  }
}

/// interleave with k = 16, 2-byte units; n a multiple of 32: the same blocks the other way.
inline void interleave16_words(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t n,
                               bool stream) {
  for (std::int64_t c0 = 0; c0 < n; c0 += 32) {
    __m512i p[16];
    for (int j = 0; j < 16; ++j) p[j] = _mm512_loadu_si512(in + j * in_rs + 2 * c0);
    for (int h = 0; h < 2; ++h) {
      // Input x, lane L: plane 8 (L / 2) + bitrev3(x), output rows 16 h + 8 (L % 2) ... (16 bytes).
      __m512i v[8];
      for (int x = 0; x < 8; ++x) {
        const int q = bitrev3(x);
        v[x] = h == 0 ? _mm512_shuffle_i64x2(p[q], p[8 + q], 0x44) : _mm512_shuffle_i64x2(p[q], p[8 + q], 0xEE);
      }
      transpose8x8_words(v);  // v[c] lanes: row c planes 0-7, row 8 + c planes 0-7, row c planes 8-15, row 8 + c ...
      unsigned char* g = out + (c0 + 16 * h) * 32;
      for (int c = 0; c < 8; c += 2) {
        store_vec<2>(g + 32 * c, _mm512_shuffle_i64x2(v[c], v[c + 1], 0x88), stream);            // rows c, c + 1
        store_vec<2>(g + 32 * (8 + c), _mm512_shuffle_i64x2(v[c], v[c + 1], 0xDD), stream);      // rows 8 + c, 9 + c
      }
    }
  }
}
