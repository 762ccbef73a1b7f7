// Shared-memory layouts and block orders of the teaching ladder: the policies that tell one rung of the tiled
// family from the next (tiled.cuh). Pure index math, usable on the host, where tests/cuda/test_textbook.cu
// replays every warp's accesses and counts bank conflicts.
//
// A layout maps element (r, c) of a Tile x Tile shared-memory tile to a word offset. Each one provides
//   static constexpr int tile;            the tile edge it was written for
//   static constexpr int size;            words to allocate (the largest offset + 1, or more)
//   static int offset(int r, int c);      a one-to-one map of [0, tile)^2 into [0, size)
//
// Bank model (all 4-byte words, as in the articles): shared memory has 32 banks, word w lives in bank w % 32,
// and a warp access is serialized into as many wavefronts as the largest number of *distinct* words that it
// touches in one bank. The tiled kernels read the tile along rows on one side and along columns on the other;
// a column of an unpadded 32-wide tile sits entirely in one bank (32-way conflict).
#pragma once

#include <cstdint>

namespace xpose::textbook {

/// Unpadded row-major tile: offset = r * Tile + c. The articles' starting point, with its bank conflicts:
/// a 32-wide column is 32 words of one bank (32-way); in a 16-wide tile a warp spans two rows and a column
/// access of 16 rows x 2 columns puts 8 distinct words in each of 4 banks (8-way, the image article's count).
template <int Tile>
struct smem_identity {
  static constexpr int tile = Tile;
  static constexpr int size = Tile * Tile;
  __host__ __device__ static constexpr int offset(int r, int c) { return r * Tile + c; }
};

/// Row pitch Tile + Pad: tile[Tile][Tile + Pad]. With Tile = 32 and Pad = 1 (the CUDA Fortran / NVIDIA
/// article's fix) row r starts in bank r % 32, so a column touches 32 different banks.
template <int Tile, int Pad>
struct smem_padded {
  static constexpr int tile = Tile;
  static constexpr int size = Tile * (Tile + Pad);
  __host__ __device__ static constexpr int offset(int r, int c) { return r * (Tile + Pad) + c; }
};

/// The image article's generalized padding for tiles narrower than a warp: a warp spans ls = 32 / Tile rows,
/// so ls words are inserted after every ls rows:
///
///   offset = r * Tile + c + (r / ls) * ls            (ls = 1 gives r * (Tile + 1) + c, i.e. smem_padded<T, 1>)
///
/// Tile = 16, ls = 2: rows 2m and 2m+1 start at 34m and 34m + 16. A warp reading two rows touches 32
/// consecutive words; a warp reading two columns (c, c+1) over 16 rows touches banks c + 2k and c + 16 + 2k
/// (k = 0..7) for column c and the other parity for c + 1: all 32 banks once.
template <int Tile>
struct smem_padded_per_warp {
  static_assert(32 % Tile == 0 || Tile % 32 == 0, "tile must divide or be a multiple of the warp width");
  static constexpr int tile = Tile;
  static constexpr int lines_to_skip = Tile >= 32 ? 1 : 32 / Tile;  // the article's `ls`: rows per warp
  static constexpr int size = Tile * Tile + ((Tile - 1) / lines_to_skip) * lines_to_skip;
  __host__ __device__ static constexpr int offset(int r, int c) {
    return r * Tile + c + (r / lines_to_skip) * lines_to_skip;
  }
};

/// XOR swizzle, no padding: column bits are XORed with the row bits, a bijection within each row.
///
///   word address bits (Tile = 32):   [ r4 r3 r2 r1 r0 | c4 c3 c2 c1 c0 ]
///   stored at:                       [ r4 r3 r2 r1 r0 | c4^r4 c3^r3 c2^r2 c1^r1 c0^r0 ]
///
/// A row (fixed r) is permuted within itself, so row access stays conflict-free; a column (fixed c, r =
/// 0..31) lands in banks c ^ r, all different because XOR with c is invertible. Unlike padding it keeps the
/// tile dense (4 KiB, every row 128-byte aligned), which is what vector and asynchronous copies need.
template <int Tile>
struct smem_xor_swizzle {
  static_assert(Tile > 0 && (Tile & (Tile - 1)) == 0 && Tile <= 32, "XOR swizzle needs a power-of-two tile <= 32");
  static constexpr int tile = Tile;
  static constexpr int size = Tile * Tile;
  __host__ __device__ static constexpr int offset(int r, int c) { return r * Tile + (c ^ r); }
};

/// Which tile of the matrix a block works on: tile row (input rows / Tile) and tile column.
struct tile_index {
  unsigned row;
  unsigned col;
};

/// Block (bx, by) of a (gx, gy) grid works on tile row by, tile column bx: x walks along the columns.
struct cartesian_order {
  __host__ __device__ static constexpr tile_index tile_of(unsigned bx, unsigned by, unsigned /*gx*/,
                                                          unsigned /*gy*/) {
    return {by, bx};
  }
};

/// Diagonal block order (NVIDIA SDK transpose, and the RightNow article): blocks that run together, which
/// are consecutive in bx + gx * by, are spread along a diagonal of the tile grid instead of along a tile row,
/// so that their strided writes spread over DRAM partitions ("partition camping" on G80/GT200). Both cases
/// are bijections of the grid onto the tile grid:
///  - square grid (gx == gy): tile row bx, tile column (bx + by) % gx; for fixed bx, by -> (bx + by) % gx is
///    a rotation;
///  - any grid: bid = bx + gx * by, tile row bid % gy, tile column (bid / gy + row) % gx; bid -> (bid / gy,
///    bid % gy) is one-to-one onto [0, gx) x [0, gy), then each tile row is rotated.
struct diagonal_order {
  __host__ __device__ static constexpr tile_index tile_of(unsigned bx, unsigned by, unsigned gx, unsigned gy) {
    if (gx == gy) return {bx, static_cast<unsigned>((std::uint64_t{bx} + by) % gx)};
    const std::uint64_t bid = bx + std::uint64_t{gx} * by;  // 64-bit: gx * gy may exceed 2^32
    const auto row = static_cast<unsigned>(bid % gy);
    return {row, static_cast<unsigned>((bid / gy + row) % gx)};
  }
};

}  // namespace xpose::textbook
