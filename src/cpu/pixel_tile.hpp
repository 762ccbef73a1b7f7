// Tile kernels for 3-, 6- and 12-byte units (RGB8, RGB16, RGB32F) on the AVX2 and AVX-512 levels
// (microkernels_avx2.cpp, microkernels_avx512.cpp). Like simd_tile.hpp this is included inside each level's own
// namespace, after <immintrin.h>, simd_tile.hpp and the level's Isa, so that each copy is compiled with that
// level's flags only. Beyond what simd_tile.hpp asks, Isa provides broadcast_lane(__m128i) (the 16 bytes in every
// lane), shuffle_bytes(v, idx) (the in-lane byte shuffle), widen_lanes12(p) (lane L <- bytes 12 L .. 12 L + 11 of
// a piece of 12 x lanes bytes at p; no byte past the piece read) and narrow_lanes12(p, v) (bytes 0 .. 11 of each
// lane -> the piece at p; no byte past it written).
//
// A block of b rows of pieces: each piece is widened so that every unit fills a power of two (3 -> 4 bytes, 6 ->
// 8, 12 -> 16: widen_lanes12, then an in-lane byte shuffle spreads the units, none needed for 12), stored to an
// L1 scratch, transposed there as 4-, 8- or 16-byte units (full_block), and each output row narrowed back (the
// inverse shuffle, narrow_lanes12). Before, these units went unit by unit (memcpy): AVX-512, rgb16 2306x4850 0.41
// of the non-temporal copy -> 0.65 (2-core Xeon, 1 thread); AVX2, RGB8 4096^2 0.08 -> 0.28 (2-core EPYC, 1 thread).

template <int U>
struct pixel_lanes {
  static_assert(U == 3 || U == 6 || U == 12, "3-, 6- or 12-byte units");
  static constexpr int W = U == 3 ? 4 : U == 6 ? 8 : 16;  // widened unit
  static __m128i spread() {  // a lane's 12 bytes of 12 / U units -> W bytes each
    if constexpr (U == 3) return _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    else return _mm_setr_epi8(0, 1, 2, 3, 4, 5, -1, -1, 6, 7, 8, 9, 10, 11, -1, -1);
  }
  static __m128i pack() {  // the inverse: 12 bytes at the front of the lane
    if constexpr (U == 3) return _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    else return _mm_setr_epi8(0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1);
  }
};

template <class Isa, int U>
void tile_pixels(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs, std::int64_t nr,
                 std::int64_t nc, std::int64_t /*words*/, prefetch_cursor* pf) {
  using vec = typename Isa::vec;
  constexpr int W = pixel_lanes<U>::W, vec_bytes = 16 * Isa::lanes;
  constexpr int b = vec_bytes / W;  // units a piece (12 x lanes bytes), and the block's side
  const vec spread = Isa::broadcast_lane(pixel_lanes<U>::spread()), pack = Isa::broadcast_lane(pixel_lanes<U>::pack());
  alignas(64) unsigned char wide[b * vec_bytes];
  const std::int64_t full_r = nr / b * b, full_c = nc / b * b;
  for (std::int64_t c = 0; c < full_c; c += b) {
    for (std::int64_t r = 0; r < full_r; r += b) {
      for (int i = 0; i < b; ++i) {
        const vec v = Isa::widen_lanes12(in + (r + i) * in_rs + c * U);
        Isa::store(wide + i * vec_bytes, U == 12 ? v : Isa::shuffle_bytes(v, spread));
      }
      simd::full_block<Isa, W>(wide, vec_bytes, [&](int j, vec v) {
        Isa::narrow_lanes12(out + (c + j) * out_rs + r * U, U == 12 ? v : Isa::shuffle_bytes(v, pack));
      });
      simd::prefetch_step(pf);
    }
    if (full_r < nr) simd::transpose_units<U>(in + full_r * in_rs + c * U, in_rs, out + c * out_rs + full_r * U, out_rs, nr - full_r, b);
  }
  if (full_c < nc) simd::transpose_units<U>(in + full_c * U, in_rs, out + full_c * out_rs, out_rs, nr, nc - full_c);
}
