// The periodic permute kernel (macrokernel_periodic.cpp) for the AVX-512 levels: each 64-byte output vector
// is one two-source permute of a 128-byte input window (vpermt2b with VBMI, vpermt2w / vpermt2d on 2- and
// 4-byte granules without), or a few of them merged by byte masks. Included inside the level's namespace by
// microkernels_avx512.cpp (granules 2 and 4) and microkernels_avx512vbmi.cpp (granule 1), each compiled with
// its own flags.
//
// Requires <immintrin.h> and cpu/kernel_table.hpp before it.

template <int Granule>
inline __m512i periodic_window(const unsigned char* src, const unsigned char* index) {
  const __m512i a = _mm512_loadu_si512(src), b = _mm512_loadu_si512(src + 64);
  const __m512i idx = _mm512_loadu_si512(index);
  if constexpr (Granule == 1) return _mm512_permutex2var_epi8(a, idx, b);
  else if constexpr (Granule == 2) return _mm512_permutex2var_epi16(a, idx, b);
  else return _mm512_permutex2var_epi32(a, idx, b);
}

template <int Granule>
void periodic(const unsigned char* in, unsigned char* out, std::int64_t q0, std::int64_t q1, const periodic_table& t,
              bool stream) {
  for (std::int64_t q = q0; q < q1; ++q) {
    const unsigned char* ip = in + q * t.in_period;
    unsigned char* op = out + q * t.period;
    for (int j = 0; j < t.vectors; ++j) {
      int w = t.first[j];
      const int w_end = t.first[j + 1];
      __m512i r = periodic_window<Granule>(ip + t.src[w], t.index + 64 * w);
      for (++w; w < w_end; ++w)
        r = _mm512_mask_mov_epi8(r, t.mask[w], periodic_window<Granule>(ip + t.src[w], t.index + 64 * w));
      if (stream) _mm512_stream_si512(reinterpret_cast<__m512i*>(op + 64 * j), r);
      else _mm512_store_si512(reinterpret_cast<__m512i*>(op + 64 * j), r);
    }
  }
}
