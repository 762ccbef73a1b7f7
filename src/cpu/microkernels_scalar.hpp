// Portable micro-kernels of the CPU transpose: plain loops over fixed-size blocks that the compiler unrolls
// and keeps in registers, with no intrinsics (SIMD twins arrive later in microkernels_{avx2,avx512}).
//
// Conventions shared by all kernels here: `in` points at unit (r, c) = (0, 0) of the input block, whose
// rows are `in_rs` bytes apart and whose units are contiguous along a row; `out` points at unit (0, 0) of
// the output block, whose rows (input columns) are `out_rs` bytes apart. Pointers may be misaligned (a
// user's buffer can start anywhere), so every access goes through memcpy, which compiles to a plain,
// unaligned load or store of sizeof(W) bytes and keeps the accesses free of aliasing UB.
#pragma once

#include <cstdint>
#include <cstring>

namespace xpose::detail {

/// A 16-byte unit: two 8-byte halves, since `unsigned __int128` is a GNU extension (-Wpedantic) and its
/// 16-byte alignment buys nothing when every access is an unaligned memcpy anyway.
struct unit16 {
  std::uint64_t lo, hi;
};

/// Copies one unit of type W.
template <class W>
inline void copy_unit(const unsigned char* in, unsigned char* out) {
  W v;
  std::memcpy(&v, in, sizeof(W));
  std::memcpy(out, &v, sizeof(W));
}

/// Transposes an M x M block of W units through registers: M rows are loaded (contiguous along c), then
/// M output rows stored (contiguous along r). Loads and stores are each M units wide, the widest both
/// sides allow without a shuffle network the compiler would not find reliably.
template <class W, int M>
inline void transpose_block(const unsigned char* __restrict in, std::int64_t in_rs, unsigned char* __restrict out,
                            std::int64_t out_rs) {
  W v[M][M];
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < M; ++c) std::memcpy(&v[r][c], in + r * in_rs + c * sizeof(W), sizeof(W));
  for (int c = 0; c < M; ++c)
    for (int r = 0; r < M; ++r) std::memcpy(out + c * out_rs + r * sizeof(W), &v[r][c], sizeof(W));
}

/// Transposes an nr x nc tile of W units: full M x M blocks through transpose_block, the ragged right and
/// bottom edges unit by unit (writes still run along output rows).
template <class W, int M>
inline void transpose_tile(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs,
                           std::int64_t nr, std::int64_t nc) {
  constexpr std::int64_t u = sizeof(W);
  std::int64_t r = 0;
  for (; r + M <= nr; r += M) {
    std::int64_t c = 0;
    for (; c + M <= nc; c += M) transpose_block<W, M>(in + r * in_rs + c * u, in_rs, out + c * out_rs + r * u, out_rs);
    for (; c < nc; ++c)
      for (std::int64_t i = r; i < r + M; ++i) copy_unit<W>(in + i * in_rs + c * u, out + c * out_rs + i * u);
  }
  if (r == nr) return;
  for (std::int64_t c = 0; c < nc; ++c)
    for (std::int64_t i = r; i < nr; ++i) copy_unit<W>(in + i * in_rs + c * u, out + c * out_rs + i * u);
}

/// Transposes an nr x nc tile of units of `words` words of type W each (any unit size): the unit is copied
/// word by word, which beats a memcpy call per unit for the short units the planner produces (<= 64 bytes).
template <class W>
inline void transpose_tile_words(const unsigned char* in, std::int64_t in_rs, unsigned char* out,
                                 std::int64_t out_rs, std::int64_t nr, std::int64_t nc, std::int64_t words) {
  const std::int64_t u = words * static_cast<std::int64_t>(sizeof(W));
  for (std::int64_t c = 0; c < nc; ++c) {
    const unsigned char* src = in + c * u;
    unsigned char* dst = out + c * out_rs;
    for (std::int64_t r = 0; r < nr; ++r)
      for (std::int64_t k = 0; k < words; ++k)
        copy_unit<W>(src + r * in_rs + k * static_cast<std::int64_t>(sizeof(W)),
                     dst + r * u + k * static_cast<std::int64_t>(sizeof(W)));
  }
}

}  // namespace xpose::detail
