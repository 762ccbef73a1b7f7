// Compile-time byte permutations of small register arrays (used by skinny16 and pixel48): output word q is
// assembled from the input words that hold its four bytes with `prmt` (__byte_perm). Every index is a
// compile-time constant once the caller's loops are unrolled, so the arrays stay in registers.
#pragma once

#include <cstdint>

namespace xpose::detail {

/// Output word q (output bytes 4q .. 4q + 3) of the byte permutation `Map::source(o)` = input byte of output
/// byte o: a move when the four bytes are one input word in order, else one `prmt` for the first two distinct
/// source words and one more for each further one (1-3 in all).
template <class Map, int NIn>
__device__ __forceinline__ std::uint32_t gather_word(const std::uint32_t (&in)[NIn], int q) {
  int src[4];
#pragma unroll
  for (int b = 0; b < 4; ++b) src[b] = Map::source(4 * q + b);
  if (src[0] % 4 == 0 && src[1] == src[0] + 1 && src[2] == src[0] + 2 && src[3] == src[0] + 3) return in[src[0] / 4];
  // acc's placed bytes keep their position (selector nibble b), a new word's bytes come from the second
  // operand (nibbles 4..7).
  const int w0 = src[0] / 4;
  unsigned sel = 0;
  int w1 = -1;
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    if (src[b] / 4 == w0) {
      sel |= unsigned(src[b] % 4) << (4 * b);
    } else if (w1 < 0 || src[b] / 4 == w1) {
      w1 = src[b] / 4;
      sel |= unsigned(4 + src[b] % 4) << (4 * b);
    }
  }
  std::uint32_t acc = __byte_perm(in[w0], in[w1 < 0 ? w0 : w1], sel);
  bool placed[4];
#pragma unroll
  for (int b = 0; b < 4; ++b) placed[b] = src[b] / 4 == w0 || src[b] / 4 == w1;
#pragma unroll
  for (int round = 0; round < 2; ++round) {
    int wn = -1;
    unsigned s2 = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      if (!placed[b] && (wn < 0 || src[b] / 4 == wn)) {
        wn = src[b] / 4;
        s2 |= unsigned(4 + src[b] % 4) << (4 * b);
      } else {
        s2 |= unsigned(b) << (4 * b);  // placed already, or a later round places it
      }
    }
    if (wn >= 0) {
      acc = __byte_perm(acc, in[wn], s2);
#pragma unroll
      for (int b = 0; b < 4; ++b) placed[b] = placed[b] || src[b] / 4 == wn;
    }
  }
  return acc;
}

/// out[q] = gather_word<Map>(in, q) for every output word.
template <class Map, int NIn, int NOut>
__device__ __forceinline__ void permute_bytes(const std::uint32_t (&in)[NIn], std::uint32_t (&out)[NOut]) {
#pragma unroll
  for (int q = 0; q < NOut; ++q) out[q] = gather_word<Map>(in, q);
}

}  // namespace xpose::detail
