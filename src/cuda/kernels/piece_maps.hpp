// The layout of the 4-row x 4-unit micro-tiles of odd units (kernels/pieces.cuh, and the in-place square's
// square_permute in kernels/inplace.cuh): which input byte each output byte takes, the order of the output rows
// in a tile's buffer, and the staged pitch. Host and device share it: the kernels, and the host simulation of a
// tile (tests/host/test_pieces.cpp) that checks the transpose and the bank model stated here.
#pragma once

#include "cuda/index_math.hpp"

namespace xpose::detail {

/// Row of a T x T tile's output buffer that holds output row c: rows c = 4 j + e in the order (e, j). Phase 2's
/// lanes take micro-tile columns j fastest (16 of them, two micro-tile rows a warp), each writing one word of
/// output row 4 j + e: in this order their rows are consecutive, an odd number of 16-byte slots apart, so a store
/// is at most 2-way conflicted (the two micro-tile rows use different words of a slot: U is odd) with plain
/// immediate offsets from the row (an XOR swizzle cost 3 instructions a store); in plain order every j of a
/// warp would hit the same 2 bank groups. Phase 3 reads each row's chunks in order.
template <int T>
XPOSE_HD constexpr unsigned piece_row(unsigned c) {
  return (c & 3u) * (T / 4) + (c >> 2);
}

/// Output row E (unit column E) of a micro-tile held as 4 rows of U words (the pieces): output byte t is row
/// t / U's unit E, byte t % U.
template <int U, int E>
struct piece_map {
  static constexpr int source(int t) { return (t / U) * 4 * U + E * U + t % U; }
};

/// Staged (and output) row pitch of tile rows of `row_bytes` (a multiple of 16): an odd number of 16-byte slots,
/// so that the 16 micro-tile columns of two micro-tile rows a warp reads fall on distinct banks (U odd: j U mod
/// 32 distinct for 16 j, and 4 rows of an odd number of slots shift the second micro-tile row by 16 banks).
constexpr int piece_pitch(int row_bytes) { return row_bytes / 16 % 2 == 1 ? row_bytes : row_bytes + 16; }

}  // namespace xpose::detail
