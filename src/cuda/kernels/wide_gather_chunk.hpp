// One 16-byte output chunk of a wide tile's output row, gathered in W-byte words from the units it overlaps
// (kernels/wide.cuh's gather kernel for units off the 8-byte grid). Host and device run the same code: the
// kernel, and the host simulation of its tiles in the tests.
#pragma once

#include <cstdint>

#include "cuda/index_math.hpp"

namespace xpose::detail {

/// A gathered chunk: its 16 bytes as four 32-bit words (W-byte words packed little-endian) and which of its
/// 16 / W words lie inside the output segment (bit k: word k).
struct wide_chunk {
  std::uint32_t w[4];
  unsigned valid;
};

/// Chunk q of an output segment of `len` bytes that starts at byte `phase` of a 16-byte chunk (the segment's
/// address mod 16): the chunk's bytes are segment bytes [16 q - phase, 16 q - phase + 16). Its word k (W bytes)
/// is segment byte x = 16 q - phase + k W, unit x / U of the segment's row, byte x mod U of that unit:
/// load(unit, byte) returns it (W bytes, W | U, W | phase). Words outside [0, len) are not loaded.
template <int W, class Load>
XPOSE_HD wide_chunk wide_gather_chunk(unsigned phase, unsigned len, unsigned q, unsigned U, div32 unit_div,
                                      Load&& load) {
  static_assert(W == 1 || W == 2 || W == 4, "words of 1, 2 or 4 bytes");
  constexpr unsigned words = 16 / W;
  wide_chunk c{{0u, 0u, 0u, 0u}, 0u};
  const int x0 = static_cast<int>(16 * q) - static_cast<int>(phase);
  const unsigned k0 = x0 < 0 ? static_cast<unsigned>(-x0) / W : 0u;  // the first word inside the segment
  if (x0 + static_cast<int>(k0 * W) >= static_cast<int>(len)) return c;
  unsigned x = static_cast<unsigned>(x0 + static_cast<int>(k0 * W));
  unsigned r = unit_div.div(x);
  unsigned b = x - r * U;
#pragma unroll
  for (unsigned k = 0; k < words; ++k) {
    if (k < k0 || x >= len) continue;
    const std::uint32_t v = load(r, b);
    c.w[k * W / 4] |= v << (8 * ((k * W) % 4));
    c.valid |= 1u << k;
    x += W;
    b += W;
    if (b >= U) b -= U, ++r;  // W <= 16 <= U: at most one unit boundary a word
  }
  return c;
}

}  // namespace xpose::detail
