// transpose2d family: (batched) b x r x c -> b x c x r of fixed-size units.
//
// Two variants share the tile scheduler (`tile_coords`) and the parameter block:
//
// * vec16<UnitBytes> (UnitBytes in {1, 2, 4, 8, 16}): 16-byte global loads AND stores. Requires 16-byte
//   aligned base pointers, leading dimensions and batch strides (checked on the host by the dispatcher).
//   A thread loads a V x V micro-tile of units (V = 16 / UnitBytes rows, one 16-byte vector each),
//   transposes it in registers (free renaming for >= 4-byte units, `prmt` byte permutes for 1- and 2-byte
//   units), and stores V 16-byte vectors to shared memory, already in output orientation. After the barrier,
//   each thread reads 16-byte vectors along output rows and stores them to global memory. The shared tile is
//   XOR-swizzled at 16-byte granularity (see `swizzle`), so both shared-memory phases are conflict-free.
//   Edge tiles take the same path with per-vector bounds checks (block-uniform `full` flag).
//   grid: 1-D, one tile per block (a grid-stride loop covers > 2^31 - 1 tiles); block: policy threads.
//
// * shift16<UnitBytes> (UnitBytes in {2, 4, 8, 16}): vec16's micro-tiles when pointers or pitches are not
//   16-byte aligned (8191 x 8193, shifted views). Aligned 16-byte loads are realigned per row in registers
//   (a shuffle from the next lane + funnel shifts), and output rows are written on the output's 16-byte grid,
//   split between tiles that overlap by one micro-tile (see the kernel). grid: 1-D over tiles.
//
// * vec8 / shift8<UnitBytes> (1-byte units are dispatched): vec16 / shift16 with 8-byte chunks. A thread's
//   micro-tile is 8 rows of 8 bytes instead of 16 of 16: ~50 registers instead of ~160, so an SM runs 32
//   warps instead of 12 to hide the transposes' and realignments' dependent instructions. vec8 needs only
//   8-byte alignment; shift8 realigns on the 8-byte grid (one word select and two funnel shifts a chunk).
//
// * words<WordBytes, SingleWordUnits>: any alignment, units of K words (K = unit_words, e.g. 3 for RGB8).
//   Classic staging: coalesced word loads (several in flight per thread) into a padded shared tile,
//   coalesced word stores out. The tile is a rectangle chosen per problem (tuning/transpose2d.hpp): square
//   for large matrices, all of a short side for skinny ones (n x 3 -> 3 x n), so tiles are never mostly
//   empty. Used when vec16 does not apply (misaligned pointers or pitches, unit sizes that are not powers
//   of two). grid: 1-D over tiles; block: 256 threads.
//
// * units<UnitBytes> (4 and 8): one naturally aligned access a unit on both sides through a padded shared tile,
//   for 4- and 8-byte units whose rows are not 16-byte aligned (no realignment instructions); unit_pairs: the
//   same for 4-byte units moved as 8-byte pairs on each row's own 8-byte grid. grid: 1-D over tiles; block:
//   256 threads.
//
// * gather16<PieceBytes>: any unit size (3-byte RGB, 12-byte RGB32F, ...) and any alignment (8191 x 8193),
//   with 16-byte aligned global loads and stores. Each staged input row is loaded as the aligned 16-byte
//   chunks that cover it (its misalignment m_r is recomputed where needed); each output row's bytes are
//   split among tiles at 16-byte boundaries of the *output address*, so every interior store is an aligned
//   16-byte vector that exactly one tile writes (only row heads and tails are stored piecewise). The window
//   of output bytes a tile owns is shifted by < 16 bytes, hence `halo_rows` extra input rows. Shared memory
//   is gathered in pieces of PieceBytes (the common alignment of units, pointers and pitches, <= 4). A row
//   (staged or output) is handled by a group of 16 lanes (units up to 16 bytes: a half-warp), 32, 64 or 128
//   (units of 17-128 bytes, so a tile still holds >= 15 of them a side), lane q = 16-byte chunk q: no index
//   needs a division.
//   grid: 1-D over tiles; block: 256 threads; dynamic shared memory.
//
// * batched_flat<PieceBytes, UnitBytes>: many small packed matrices (b x r x c, e.g. 65536 x 32 x 32 or
//   1e6 x 3 x 3), or one mid-sized matrix (<= 74 KiB, 204 x 295 u8; 112 KiB of 2-8-byte units). A tile is M
//   whole matrices, one contiguous byte range on both sides: staged with flat aligned 16-byte cp.async,
//   gathered piecewise, stored as flat aligned 16-byte vectors (the output range is split between tiles at
//   16-byte boundaries, like gather16). grid: 1-D over tiles; block: 256 threads; dynamic shared memory.
//
// * skinny<PieceBytes, UnitBytes, AosToSoa>: n x k <-> k x n with k small (AoS <-> SoA). The side with k units
//   a row is contiguous for a whole tile (in_ld = k * U, or out_ld = k * U), so it is moved flat: AoS -> SoA
//   stages a tile of n-rows as one aligned byte range and writes k long output rows (windows split at the
//   output's 16-byte grid, as in gather16); SoA -> AoS stages k long input rows and writes one flat output
//   range. grid: 1-D over tiles along n; block: 256 threads; dynamic shared memory.
//
// Compound = true (vec16, gather16, words, units, unit_pairs): the tile sides are sets of axes (plan_geometry::row_* / col_*):
// row r's input offset and column c's output offset are mixed-radix sums, tabulated once per tile in shared
// memory (`tabulate_sides`) instead of r * in_ld and c * out_ld; runs along each side stay contiguous.
//
// All offsets and counts are 64-bit; byte strides throughout so all variants read the same parameters.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuda/index_math.hpp"
#include "cuda/tuning/transpose2d.hpp"

namespace xpose::detail {

inline constexpr int transpose2d_max_batch_rank = 8;
inline constexpr int transpose2d_max_side_rank = 8;  // a side never holds every canonical axis (<= 9)

struct transpose2d_params {
  const unsigned char* in;
  unsigned char* out;
  std::int64_t rows;       // input rows r (units)
  std::int64_t cols;       // input columns c (units)
  std::int64_t in_ld;      // bytes between input rows
  std::int64_t out_ld;     // bytes between output rows
  // words variant only:
  std::int64_t unit_words;       // K: words per unit
  std::int64_t words_tile_rows;  // tile shape (units), chosen per problem by the dispatcher
  std::int64_t words_tile_cols;
  fast_divmod in_row_div;        // by words_tile_cols * K
  fast_divmod out_row_div;       // by words_tile_rows * K
  fast_divmod unit_div;          // by K
  // gather16 variant only:
  std::int64_t unit_bytes;       // U
  int halo_rows;                 // extra input rows staged below the tile (output windows are shifted)
  unsigned flat_in_chunks, flat_out_chunks;  // flat rows (RowChunks = 0): chunks a staged row / an output window
  div32 flat_in_div, flat_out_div;           // by flat_in_chunks, flat_out_chunks
  // skinny variant only:
  std::int64_t skinny_span;      // the long side's units per tile (rows for AoS->SoA, cols for SoA->AoS)
  std::int64_t skinny_chunks;    // AoS->SoA: 16-byte chunks per output row window
  fast_divmod skinny_div;        // AoS->SoA: by k (output rows); SoA->AoS: by staged chunks per row
  div32 skinny_k32, skinny_run32;  // skinny_odd: by k, by skinny_chunks
  int skinny_pad_shift, skinny_pad_bytes;  // skinny_odd: the slot layout (tuning/skinny_odd.hpp)
  // batched_flat variant only:
  std::int64_t matrices_per_tile;
  fast_divmod matrix_bytes_div;  // by rows * cols * U
  fast_divmod out_row_bytes_div; // by rows * U
  div40 flat_matrix_div;         // the same divisors for 32-bit offsets within a tile's staged matrices
  div40 flat_row_div;
  div32 flat_unit_div;           // by U
  int flat_swz_s1, flat_swz_s2;  // the stage's bank swizzle (flat_swizzle) when the kernel is Swizzled
  int smem_pitch_words;          // odd, so the gathers' column walks spread over the banks
  std::uint64_t in_lo, in_hi;    // byte range of the input view: loads never leave it
  // Compound tile sides (vec16 / gather16 with Compound = true; plan_geometry's row_* / col_*): row r's input
  // offset is row_map.offset(r) instead of r * in_ld, column c's output offset col_map.offset(c) instead of
  // c * out_ld (bytes). Each tile tabulates the offsets of its own rows and columns in shared memory once.
  mixed_radix_map<transpose2d_max_side_rank> row_map, col_map;
  bool rows_fastest = false;  // tile order: tiles along r vary fastest instead of tiles along c (tile_coords)
  fast_divmod tiles_r;     // tiles along r (divisor = count)
  fast_divmod tiles_c;     // tiles along c
  std::int64_t tiles_total;
  std::int64_t prefetch_ahead = 0;  // pixel48: the tile this many ahead has its input prefetched into L2
  batch_map<transpose2d_max_batch_rank> batch;
};

/// Tile t -> (batch offsets, first row, first column). Column tiles vary fastest, so the blocks resident at
/// one time read neighbouring segments of the same input rows; with p.rows_fastest row tiles do, so they
/// write neighbouring segments of the same output rows (misaligned outputs: dispatch/transpose2d.cu).
struct tile_coords {
  std::int64_t in_off, out_off, r0, c0;

  __device__ tile_coords(const transpose2d_params& p, std::int64_t t, int tile_rows, int tile_cols) {
    // Precomputed divisors: a 64-bit `/` is ~70 instructions, which small tiles would pay every time.
    std::uint64_t tc = 0, tr = 0, b = 0;
    if (p.rows_fastest) {
      const std::uint64_t rest = p.tiles_r.divmod(static_cast<std::uint64_t>(t), tr);
      b = p.tiles_c.divmod(rest, tc);
    } else {
      const std::uint64_t rest = p.tiles_c.divmod(static_cast<std::uint64_t>(t), tc);
      b = p.tiles_r.divmod(rest, tr);
    }
    p.batch.offsets(b, in_off, out_off);
    r0 = static_cast<std::int64_t>(tr) * tile_rows;
    c0 = static_cast<std::int64_t>(tc) * tile_cols;
  }
};

/// Skinny tiles (skinny, skinny16): tile t -> the input and output addresses of its batch and its index along
/// n (tiles along n vary fastest, then the batch).
struct skinny_tile {
  std::uint64_t in_b, out_b, tile;

  __device__ skinny_tile(const transpose2d_params& p, std::int64_t t) : tile(0) {
    const std::uint64_t b = p.tiles_c.divmod(static_cast<std::uint64_t>(t), tile);
    std::int64_t in_off = 0, out_off = 0;
    p.batch.offsets(b, in_off, out_off);
    in_b = reinterpret_cast<std::uint64_t>(p.in) + in_off;
    out_b = reinterpret_cast<std::uint64_t>(p.out) + out_off;
  }
};

// ---- vec16 ------------------------------------------------------------------------------------------------

/// Register transpose of a V x V micro-tile of UnitBytes-byte units whose rows are W 32-bit words (W = 4:
/// vec16's 16-byte rows, W = 2: vec8's), V = 4 W / UnitBytes. in[i] = input row i; out[k] = output row k,
/// whose unit i is in[i]'s unit k.
template <int UnitBytes, int W = 4>
__device__ __forceinline__ void transpose_micro(const std::uint32_t (&in)[4 * W / UnitBytes][W],
                                                std::uint32_t (&out)[4 * W / UnitBytes][W]) {
  constexpr int V = 4 * W / UnitBytes;
  if constexpr (UnitBytes == 4 * W) {
#pragma unroll
    for (int j = 0; j < W; ++j) out[0][j] = in[0][j];
  } else if constexpr (UnitBytes == 8) {  // unit = 2 words
#pragma unroll
    for (int k = 0; k < V; ++k)
#pragma unroll
      for (int i = 0; i < V; ++i) {
        out[k][2 * i] = in[i][2 * k];
        out[k][2 * i + 1] = in[i][2 * k + 1];
      }
  } else if constexpr (UnitBytes == 4) {
#pragma unroll
    for (int k = 0; k < V; ++k)
#pragma unroll
      for (int i = 0; i < V; ++i) out[k][i] = in[i][k];
  } else if constexpr (UnitBytes == 2) {
    // out[k] word p = (in[2p] half k, in[2p+1] half k); half k lives in word k/2, low (0x5410) or high (0x7632).
#pragma unroll
    for (int k = 0; k < V; ++k)
#pragma unroll
      for (int p = 0; p < W; ++p)
        out[k][p] = __byte_perm(in[2 * p][k / 2], in[2 * p + 1][k / 2], (k % 2) ? 0x7632 : 0x5410);
  } else {
    static_assert(UnitBytes == 1);
    // 4 x 4 byte transposes: rows a..d = in[4p..4p+3], word j. ab_lo = (a0 b0 a1 b1), ab_hi = (a2 b2 a3 b3);
    // then (a0 b0 c0 d0) = prmt(ab_lo, cd_lo, 0x5410), (a1 b1 c1 d1) = prmt(ab_lo, cd_lo, 0x7632), ...
    // Byte m of word j is input unit 4j + m, so these are words p of output rows 4j .. 4j+3.
#pragma unroll
    for (int p = 0; p < W; ++p)
#pragma unroll
      for (int j = 0; j < W; ++j) {
        const std::uint32_t ab_lo = __byte_perm(in[4 * p][j], in[4 * p + 1][j], 0x5140);
        const std::uint32_t ab_hi = __byte_perm(in[4 * p][j], in[4 * p + 1][j], 0x7362);
        const std::uint32_t cd_lo = __byte_perm(in[4 * p + 2][j], in[4 * p + 3][j], 0x5140);
        const std::uint32_t cd_hi = __byte_perm(in[4 * p + 2][j], in[4 * p + 3][j], 0x7362);
        out[4 * j + 0][p] = __byte_perm(ab_lo, cd_lo, 0x5410);
        out[4 * j + 1][p] = __byte_perm(ab_lo, cd_lo, 0x7632);
        out[4 * j + 2][p] = __byte_perm(ab_hi, cd_hi, 0x5410);
        out[4 * j + 3][p] = __byte_perm(ab_hi, cd_hi, 0x7632);
      }
  }
}

/// Loads units [0, n) of a 16-byte vector (n < V: the rest stay 0), unit by unit: edge tiles only.
template <int UnitBytes>
__device__ __forceinline__ void load_units(const unsigned char* src, int n, std::uint32_t (&w)[4]) {
  constexpr int V = 16 / UnitBytes;
#pragma unroll
  for (int u = 0; u < V; ++u) {
    if (u >= n) break;
    if constexpr (UnitBytes >= 4) {
#pragma unroll
      for (int h = 0; h < UnitBytes / 4; ++h)
        w[u * (UnitBytes / 4) + h] = reinterpret_cast<const std::uint32_t*>(src + u * UnitBytes)[h];
    } else if constexpr (UnitBytes == 2) {
      w[u / 2] |= std::uint32_t{reinterpret_cast<const std::uint16_t*>(src)[u]} << (16 * (u % 2));
    } else {
      w[u / 4] |= std::uint32_t{src[u]} << (8 * (u % 4));
    }
  }
}

/// Stores units [0, n) of a 16-byte vector, unit by unit: edge tiles only.
template <int UnitBytes>
__device__ __forceinline__ void store_units(unsigned char* dst, int n, const std::uint32_t (&w)[4]) {
  constexpr int V = 16 / UnitBytes;
#pragma unroll
  for (int u = 0; u < V; ++u) {
    if (u >= n) break;
    if constexpr (UnitBytes >= 4) {
#pragma unroll
      for (int h = 0; h < UnitBytes / 4; ++h)
        reinterpret_cast<std::uint32_t*>(dst + u * UnitBytes)[h] = w[u * (UnitBytes / 4) + h];
    } else if constexpr (UnitBytes == 2) {
      reinterpret_cast<std::uint16_t*>(dst)[u] = static_cast<std::uint16_t>(w[u / 2] >> (16 * (u % 2)));
    } else {
      dst[u] = static_cast<unsigned char>(w[u / 4] >> (8 * (u % 4)));
    }
  }
}

template <int UnitBytes, class Policy = transpose2d_vec16_policy<UnitBytes>>
struct vec16_shape {
  using policy = Policy;
  static constexpr int V = 16 / UnitBytes;             // units per 16-byte vector
  static constexpr int MR = policy::mr;                // micro-tiles along r (= 16-byte chunks per output row)
  static constexpr int MC = policy::mc;                // micro-tiles along c (= 16-byte chunks per input row)
  static constexpr int P = policy::per_thread;
  static constexpr int threads = MR * MC / P;
  static constexpr int tile_rows = V * MR;             // input rows per tile
  static constexpr int tile_cols = V * MC;             // input units per tile row
  // shift16's tiles overlap by one micro-tile each way: they step by these (units).
  static constexpr int shift_step_rows = V * (MR - 1), shift_step_cols = V * (MC - 1);
  static_assert(MR >= 8 && (MR & (MR - 1)) == 0 && MC >= 8, "swizzle needs >= 8 power-of-two chunks a row");
};

/// Shared tile: tile_cols output rows of MR 16-byte chunks. Chunk q of output row c is stored at
/// q ^ ((c / V) & 7): the 8 lanes of a quarter-warp (one 16-byte wavefront) then hit 8 distinct 16-byte
/// bank groups both when storing micro-tiles (8 consecutive c / V) and when reading rows (8 consecutive q).
///   bits of the chunk index:  [ q_hi | q_lo(3) ]  ->  [ q_hi | q_lo ^ (c/V)_lo(3) ]
template <int V, int MR>
__device__ __forceinline__ int swizzle(int c, int q) {
  return c * MR + (q ^ ((c / V) & 7));
}

/// vec16 / shift16 step 2: each thread's P micro-tiles (v[m][i] = 16 bytes of tile row mi * V + i at chunk mj)
/// transposed in registers and stored as V 16-byte vectors of output rows mj * V + k, swizzled.
template <int UnitBytes, class S>
__device__ __forceinline__ void store_micro_tiles(const std::uint32_t (&v)[S::P][S::V][4], uint4* tile) {
  constexpr int V = S::V, MR = S::MR, MC = S::MC;
#pragma unroll
  for (int m = 0; m < S::P; ++m) {
    const int micro = threadIdx.x + m * S::threads;
    const int mi = micro / MC, mj = micro % MC;
    std::uint32_t w[V][4];
    transpose_micro<UnitBytes>(v[m], w);
#pragma unroll
    for (int k = 0; k < V; ++k) tile[swizzle<V, MR>(mj * V + k, mi)] = make_uint4(w[k][0], w[k][1], w[k][2], w[k][3]);
  }
}

/// vec16 step 1 (also the in-place square pairs, kernels/inplace.cuh): the V x P micro-tile loads of one tile,
/// all issued before any use. `row_ptr(row)` is the address of tile row `row`'s first unit; rows >= rows_left
/// and units >= cols_left are not read (their registers stay 0). Coherent: loads through L2 (`__ldcg`) for
/// kernels that write the data they read, which may not take the read-only path.
template <int UnitBytes, class S, bool Coherent = false, class RowPtr>
__device__ __forceinline__ void load_micro_tiles(const RowPtr& row_ptr, bool full, std::int64_t rows_left,
                                                 std::int64_t cols_left, std::uint32_t (&v)[S::P][S::V][4]) {
  constexpr int V = S::V, MC = S::MC;
  auto load16 = [](const unsigned char* src) {
    return Coherent ? __ldcg(reinterpret_cast<const uint4*>(src)) : __ldg(reinterpret_cast<const uint4*>(src));
  };
#pragma unroll
  for (int m = 0; m < S::P; ++m) {
    const int micro = threadIdx.x + m * S::threads;
    const int mi = micro / MC, mj = micro % MC;  // consecutive lanes: consecutive 16-byte chunks of a row
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const int row = mi * V + i;
      const unsigned char* src = row_ptr(row) + mj * 16;
      if (full) {
        const uint4 x = load16(src);
        v[m][i][0] = x.x, v[m][i][1] = x.y, v[m][i][2] = x.z, v[m][i][3] = x.w;
      } else {
        v[m][i][0] = v[m][i][1] = v[m][i][2] = v[m][i][3] = 0;
        const std::int64_t n = cols_left - mj * V;
        if (row < rows_left && n >= V) {
          const uint4 x = load16(src);
          v[m][i][0] = x.x, v[m][i][1] = x.y, v[m][i][2] = x.z, v[m][i][3] = x.w;
        } else if (row < rows_left && n > 0) {
          load_units<UnitBytes>(src, static_cast<int>(n), v[m][i]);
        }
      }
    }
  }
}

/// vec16 step 3 (also the in-place square pairs): a shared tile in output orientation (store_micro_tiles) to
/// global memory along output rows, consecutive lanes on consecutive 16-byte chunks. `col_ptr(c)` is the
/// address of output row c (input column c); rows c >= cols_left and units past rows_left are not written.
template <int UnitBytes, class S, class ColPtr>
__device__ __forceinline__ void store_tile_rows(const uint4* tile, const ColPtr& col_ptr, bool full,
                                                std::int64_t rows_left, std::int64_t cols_left) {
  constexpr int V = S::V, MR = S::MR;
#pragma unroll
  for (int j = 0; j < V * S::P; ++j) {
    const int x = threadIdx.x + j * S::threads;
    const int c = x / MR, q = x % MR;
    const uint4 val = tile[swizzle<V, MR>(c, q)];
    unsigned char* dst = col_ptr(c) + q * 16;
    if (full) {
      *reinterpret_cast<uint4*>(dst) = val;
    } else if (c < cols_left) {
      const std::int64_t n = rows_left - q * V;
      if (n >= V) {
        *reinterpret_cast<uint4*>(dst) = val;
      } else if (n > 0) {
        const std::uint32_t w[4] = {val.x, val.y, val.z, val.w};
        store_units<UnitBytes>(dst, static_cast<int>(n), w);
      }
    }
  }
}

/// Compound sides: byte offsets of a tile's rows (input) and columns (output) into `table` (rows first); 0 for
/// rows and columns past the matrix, which are never accessed. The caller puts barriers around it.
__device__ __forceinline__ void tabulate_sides(const transpose2d_params& p, std::int64_t r0, std::int64_t c0,
                                               int rows, int cols, std::int64_t* table) {
  for (int i = threadIdx.x; i < rows + cols; i += blockDim.x) {
    std::int64_t off = 0;
    if (i < rows) {
      if (r0 + i < p.rows) off = p.row_map.offset(static_cast<std::uint64_t>(r0 + i));
    } else if (c0 + (i - rows) < p.cols) {
      off = p.col_map.offset(static_cast<std::uint64_t>(c0 + (i - rows)));
    }
    table[i] = off;
  }
}

template <int UnitBytes, bool Compound = false, class Policy = transpose2d_vec16_policy<UnitBytes>>
__global__ void __launch_bounds__(vec16_shape<UnitBytes, Policy>::threads)
    transpose2d_vec16_kernel(const transpose2d_params p) {
  using S = vec16_shape<UnitBytes, Policy>;
  constexpr int V = S::V, MR = S::MR, P = S::P;
  __shared__ uint4 tile[S::tile_cols * MR];
  // Compound sides: input offsets of the tile's rows, then output offsets of its columns.
  __shared__ std::int64_t side_off[Compound ? S::tile_rows + S::tile_cols : 1];

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const tile_coords tc(p, t, S::tile_rows, S::tile_cols);
    const unsigned char* in_tile = p.in + tc.in_off + (Compound ? 0 : tc.r0 * p.in_ld) + tc.c0 * UnitBytes;
    unsigned char* out_tile = p.out + tc.out_off + (Compound ? 0 : tc.c0 * p.out_ld) + tc.r0 * UnitBytes;
    const std::int64_t rows_left = p.rows - tc.r0;  // valid rows of this tile (may exceed tile_rows)
    const std::int64_t cols_left = p.cols - tc.c0;
    const bool full = rows_left >= S::tile_rows && cols_left >= S::tile_cols;  // block-uniform
    if constexpr (Compound) {
      if (t != blockIdx.x) __syncthreads();  // the previous tile's stores are done reading side_off
      tabulate_sides(p, tc.r0, tc.c0, S::tile_rows, S::tile_cols, side_off);
      __syncthreads();  // side_off is complete before any row uses it
    }
    auto row_in = [&](int row) -> std::int64_t { return Compound ? side_off[row] : row * p.in_ld; };
    auto col_out = [&](int c) -> std::int64_t { return Compound ? side_off[S::tile_rows + c] : c * p.out_ld; };

    // 1. global -> registers: all V x P loads issued before any use.
    std::uint32_t v[P][V][4];
    load_micro_tiles<UnitBytes, S>([&](int row) { return in_tile + row_in(row); }, full, rows_left, cols_left, v);
    // The previous tile's readers of `tile` must be done before it is overwritten (grid-stride loop).
    __syncthreads();

    // 2. register transpose, then 16-byte stores in output orientation.
    store_micro_tiles<UnitBytes, S>(v, tile);
    __syncthreads();  // all micro-tiles are in shared memory

    // 3. shared -> global along output rows: consecutive lanes take consecutive 16-byte chunks.
    store_tile_rows<UnitBytes, S>(tile, [&](int c) { return out_tile + col_out(c); }, full, rows_left, cols_left);
  }
}

// ---- words ------------------------------------------------------------------------------------------------

template <int WordBytes>
struct word_type;
template <>
struct word_type<1> { using type = std::uint8_t; };
template <>
struct word_type<2> { using type = std::uint16_t; };
template <>
struct word_type<4> { using type = std::uint32_t; };
template <>
struct word_type<8> { using type = uint2; };
template <>
struct word_type<16> { using type = uint4; };

template <int WordBytes, bool SingleWordUnits, bool Compound = false>
__global__ void __launch_bounds__(transpose2d_words_policy::threads)
    transpose2d_words_kernel(const transpose2d_params p) {
  using word = typename word_type<WordBytes>::type;
  using pol = transpose2d_words_policy;
  constexpr int threads = pol::threads, batch = pol::loads_in_flight;
  // One padding word per tile row (pitch = row words + 1): column reads then spread over the banks.
  // words_tile_shape keeps rows x pitch within smem_bytes, plus at most 64 words for square tiles.
  __shared__ word tile[pol::smem_bytes / WordBytes + 64];
  // Compound sides: input offsets of the tile's rows, then output offsets of its columns (<= 1024 each).
  __shared__ std::int64_t side_off[Compound ? 2 * pol::max_tile_rows : 1];

  const unsigned K = SingleWordUnits ? 1u : static_cast<unsigned>(p.unit_words);
  const unsigned in_row_words = static_cast<unsigned>(p.words_tile_cols) * K;   // one tile row, input side
  const unsigned pitch = in_row_words + 1;
  const unsigned tile_words = static_cast<unsigned>(p.words_tile_rows) * in_row_words;

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const tile_coords tc(p, t, static_cast<int>(p.words_tile_rows), static_cast<int>(p.words_tile_cols));
    const unsigned char* in_tile = p.in + tc.in_off + (Compound ? 0 : tc.r0 * p.in_ld) + tc.c0 * K * WordBytes;
    unsigned char* out_tile = p.out + tc.out_off + (Compound ? 0 : tc.c0 * p.out_ld) + tc.r0 * K * WordBytes;
    const std::int64_t rows_left = p.rows - tc.r0, cols_left = p.cols - tc.c0;
    const std::int64_t col_words_left = cols_left * K, row_words_left = rows_left * K;
    const int tile_rows = static_cast<int>(p.words_tile_rows);

    __syncthreads();  // the previous tile's readers are done with `tile` (and `side_off`)
    if constexpr (Compound) {
      tabulate_sides(p, tc.r0, tc.c0, tile_rows, static_cast<int>(p.words_tile_cols), side_off);
      __syncthreads();  // side_off is complete before any row uses it
    }
    // Load `batch` words per thread before storing any: a load -> shared-store chain per word would leave
    // one load in flight per thread, far too few bytes to cover DRAM latency.
    for (unsigned base = threadIdx.x; base < tile_words; base += threads * batch) {
      word x[batch];
      unsigned where[batch];
#pragma unroll
      for (int s = 0; s < batch; ++s) {
        const unsigned i = base + s * threads;
        std::uint64_t rem = 0;
        const unsigned rr = static_cast<unsigned>(p.in_row_div.divmod(i, rem));  // consecutive lanes: consecutive words
        where[s] = ~0u;
        if (i < tile_words && rr < rows_left && rem < static_cast<std::uint64_t>(col_words_left)) {
          x[s] = reinterpret_cast<const word*>(in_tile + (Compound ? side_off[rr] : rr * p.in_ld))[rem];
          where[s] = rr * pitch + static_cast<unsigned>(rem);
        }
      }
#pragma unroll
      for (int s = 0; s < batch; ++s)
        if (where[s] != ~0u) tile[where[s]] = x[s];
    }
    __syncthreads();
    for (unsigned j = threadIdx.x; j < tile_words; j += threads) {
      std::uint64_t rem = 0;
      const unsigned cc = static_cast<unsigned>(p.out_row_div.divmod(j, rem));  // output row cc, word rem of it
      if (cc >= cols_left || rem >= static_cast<std::uint64_t>(row_words_left)) continue;
      unsigned rr = static_cast<unsigned>(rem), k = 0;
      if constexpr (!SingleWordUnits) {
        std::uint64_t kk = 0;
        rr = static_cast<unsigned>(p.unit_div.divmod(rem, kk));
        k = static_cast<unsigned>(kk);
      }
      reinterpret_cast<word*>(out_tile + (Compound ? side_off[tile_rows + cc] : cc * p.out_ld))[rem] =
          tile[rr * pitch + cc * K + k];
    }
  }
}


// ---- units ------------------------------------------------------------------------------------------------

/// units<UnitBytes> (1-, 2-, 4- and 8-byte units whose rows are not 16-byte aligned: fp32 / fp64 8191 x 8193, u8
/// and fp16 up to 16 MiB): each unit is one naturally aligned load and one store, a warp's lanes along a row
/// (32-256 bytes, coalesced), through a padded shared tile of Policy::rows x Policy::cols units. No realignment: shift16 spends ~150
/// instructions a 16-byte chunk on shuffles, selects and funnel shifts at both ends, which made it
/// issue-bound on the H200 (ncu: fp64 8191 x 8193 234 M instructions for 1.05 GB, DRAM 70 %); this path
/// issues ~6 a unit. A thread loads all its units before storing any (loads in flight: rows x cols / threads
/// units a thread). Edge tiles check each unit; full tiles take the branch-free path. Compound sides: each tile
/// tabulates its rows' input and columns' output offsets (tabulate_sides) in place of r in_ld and c out_ld.
template <int UnitBytes, class Policy = transpose2d_units_policy<UnitBytes>, bool Compound = false>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    transpose2d_units_kernel(const transpose2d_params p) {
  using unit = typename word_type<UnitBytes>::type;
  constexpr int TR = Policy::rows, TC = Policy::cols, T = Policy::threads;
  constexpr int per_thread = TR * TC / T;  // units a thread moves
  constexpr int row_step = T / TC;         // input rows between a thread's loads
  constexpr int col_step = T / TR;         // output rows between a thread's stores
  static_assert(T % TC == 0 && T % TR == 0 && TC % 32 == 0 && TR % 32 == 0, "whole warps along rows");
  // Pitch TC + 1 units: a warp's column reads (consecutive rows) fall in distinct banks (for 8-byte units,
  // within each half-warp, which is what one 8-byte shared access serves at a time); for 1- and 2-byte units
  // TC + 4 / UnitBytes, so that rows are an odd number of words apart.
  __shared__ unit tile[TR][TC + (UnitBytes < 4 ? 4 / UnitBytes : 1)];
  __shared__ std::int64_t side_off[Compound ? TR + TC : 1];  // compound sides: the tile's row / column offsets
  const int lc = static_cast<int>(threadIdx.x) % TC, lr = static_cast<int>(threadIdx.x) / TC;  // load side
  const int sr = static_cast<int>(threadIdx.x) % TR, sc = static_cast<int>(threadIdx.x) / TR;  // store side

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const tile_coords tc(p, t, TR, TC);
    const std::int64_t rows_left = p.rows - tc.r0, cols_left = p.cols - tc.c0;
    const bool full = rows_left >= TR && cols_left >= TC;  // block-uniform
    if constexpr (Compound) {
      if (t != blockIdx.x) __syncthreads();  // the previous tile's stores are done reading side_off
      tabulate_sides(p, tc.r0, tc.c0, TR, TC, side_off);
      __syncthreads();
    }
    // Row lr + k row_step of the tile: its first unit of this thread's column.
    auto in_at = [&](int k) -> const unsigned char* {
      const int r = lr + k * row_step;
      return p.in + tc.in_off + (Compound ? side_off[r] : (tc.r0 + r) * p.in_ld) + (tc.c0 + lc) * UnitBytes;
    };
    unit x[per_thread];
    if (full) {
#pragma unroll
      for (int k = 0; k < per_thread; ++k) x[k] = __ldg(reinterpret_cast<const unit*>(in_at(k)));
    } else {
#pragma unroll
      for (int k = 0; k < per_thread; ++k) {
        x[k] = unit{};
        if (lr + k * row_step < rows_left && lc < cols_left) x[k] = __ldg(reinterpret_cast<const unit*>(in_at(k)));
      }
    }
    if (t != blockIdx.x) __syncthreads();  // the previous tile's readers of `tile` are done (grid-stride loop)
#pragma unroll
    for (int k = 0; k < per_thread; ++k) tile[lr + k * row_step][lc] = x[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < per_thread; ++k) x[k] = tile[sr][sc + k * col_step];
    auto out_at = [&](int k) -> unsigned char* {  // output row sc + k col_step of the tile, this thread's unit
      const int c = sc + k * col_step;
      return p.out + tc.out_off + (Compound ? side_off[TR + c] : (tc.c0 + c) * p.out_ld) + (tc.r0 + sr) * UnitBytes;
    };
    if (full) {
#pragma unroll
      for (int k = 0; k < per_thread; ++k) *reinterpret_cast<unit*>(out_at(k)) = x[k];
    } else {
#pragma unroll
      for (int k = 0; k < per_thread; ++k)
        if (sc + k * col_step < cols_left && sr < rows_left) *reinterpret_cast<unit*>(out_at(k)) = x[k];
    }
  }
}

/// unit_pairs: the units tiles for 4-byte units moved as 8-byte pairs on each row's own 8-byte grid (rows of
/// an odd pitch alternate between two phases): row r stages columns ph + 2 j, ph + 2 j + 1 as one load, ph =
/// (row address / 4) mod 2, and the column a phase-1 row leaves over (its first) as a single load; output rows
/// the same. Half the global requests of units<4> (4 bytes a lane), at 2-way bank conflicts in both shared
/// phases (each row's phase from its own address, so compound sides work as in units). Tile shape:
/// transpose2d_unit_pairs_policy.
template <class Policy = transpose2d_unit_pairs_policy, bool Compound = false>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    transpose2d_unit_pairs_kernel(const transpose2d_params p) {
  constexpr int T = Policy::threads, TR = Policy::rows, TC = Policy::cols;
  constexpr int rows_a_pass = T / 32, passes = TR / rows_a_pass;
  static_assert(TC == 64 && T % 32 == 0 && TR % rows_a_pass == 0, "32 lanes a row, a pair each");
  __shared__ std::uint32_t tile[TR][TC + 1];  // column TC: a phase-1 row's last pair spills into it (unused)
  __shared__ std::int64_t side_off[Compound ? TR + TC : 1];  // compound sides: the tile's row / column offsets
  const int lane = static_cast<int>(threadIdx.x) % 32, row0 = static_cast<int>(threadIdx.x) / 32;

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const tile_coords tc(p, t, TR, TC);
    const std::int64_t rows_left = p.rows - tc.r0, cols_left = p.cols - tc.c0;
    const int rows_here = static_cast<int>(rows_left < TR ? rows_left : TR);
    const int cols_here = static_cast<int>(cols_left < TC ? cols_left : TC);
    if constexpr (Compound) {
      if (t != blockIdx.x) __syncthreads();  // the previous tile's stores are done reading side_off
      tabulate_sides(p, tc.r0, tc.c0, TR, TC, side_off);
      __syncthreads();
    }
    // 1. loads: pair j = lane of row r covers columns ph + 2 lane and the next; lane 0 of a phase-1 row also
    //    loads column 0. A pair past the row's end (or the view's) is loaded as its first unit alone.
    auto row_at = [&](int k) -> const unsigned char* {  // row row0 + k rows_a_pass of the tile, column 0
      const int r = row0 + k * rows_a_pass;
      return p.in + tc.in_off + (Compound ? side_off[r] : (tc.r0 + r) * p.in_ld) + tc.c0 * 4;
    };
    uint2 x[passes];
    std::uint32_t first[passes];
#pragma unroll
    for (int k = 0; k < passes; ++k) {
      const unsigned char* a = row_at(k);
      const int ph = static_cast<int>(reinterpret_cast<std::uintptr_t>(a) >> 2) & 1;
      const int cc = ph + 2 * lane;
      const bool row_ok = row0 + k * rows_a_pass < rows_here;
      x[k] = make_uint2(0, 0);
      first[k] = 0;
      if (row_ok && cc + 1 < cols_left) {
        x[k] = __ldg(reinterpret_cast<const uint2*>(a + 4 * cc));
      } else if (row_ok && cc < cols_here) {
        x[k].x = __ldg(reinterpret_cast<const std::uint32_t*>(a + 4 * cc));
      }
      if (row_ok && ph == 1 && lane == 0) first[k] = __ldg(reinterpret_cast<const std::uint32_t*>(a));
    }
    if (t != blockIdx.x) __syncthreads();  // the previous tile's readers of `tile` are done
#pragma unroll
    for (int k = 0; k < passes; ++k) {
      const int r = row0 + k * rows_a_pass;
      const int ph = static_cast<int>(reinterpret_cast<std::uintptr_t>(row_at(k)) >> 2) & 1;
      const int cc = ph + 2 * lane;
      tile[r][cc] = x[k].x;
      if (cc + 1 <= TC) tile[r][cc + 1] = x[k].y;
      if (ph == 1 && lane == 0) tile[r][0] = first[k];
    }
    __syncthreads();
    // 2. stores: output row c (input column c) holds units r0 .. r0 + rows_here - 1; pair j = lane covers units
    //    q + 2 lane and the next, q = (output row address / 4) mod 2; lane 0 of a phase-1 row stores unit 0.
#pragma unroll
    for (int k = 0; k < passes; ++k) {
      const int c = row0 + k * rows_a_pass;
      if (c >= cols_here) continue;
      unsigned char* o = p.out + tc.out_off + (Compound ? side_off[TR + c] : (tc.c0 + c) * p.out_ld) + tc.r0 * 4;
      const int q = static_cast<int>(reinterpret_cast<std::uintptr_t>(o) >> 2) & 1;
      const int rr = q + 2 * lane;
      if (rr + 1 < rows_here) {
        *reinterpret_cast<uint2*>(o + 4 * rr) = make_uint2(tile[rr][c], tile[rr + 1][c]);
      } else if (rr < rows_here) {
        *reinterpret_cast<std::uint32_t*>(o + 4 * rr) = tile[rr][c];
      }
      if (q == 1 && lane == 0) *reinterpret_cast<std::uint32_t*>(o) = tile[0][c];
    }
  }
}

// ---- gather16 ---------------------------------------------------------------------------------------------

/// A PieceBytes-wide load from shared memory at a 32-bit shared-window address. Explicit `ld.shared`: a
/// generic pointer into shared memory (what a lambda capture or a byte-pointer cast leaves) costs a window
/// computation (S2UR SR_CgaCtaId + ULEA on sm_90) per access, which the gathers do once per piece.
template <int PieceBytes>
__device__ __forceinline__ std::uint32_t lds_piece(unsigned addr) {
  std::uint32_t v;
  if constexpr (PieceBytes == 4) {
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr));
  } else if constexpr (PieceBytes == 2) {
    unsigned short h;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(h) : "r"(addr));
    v = h;
  } else {
    unsigned short b;
    asm volatile("ld.shared.u8 %0, [%1];" : "=h"(b) : "r"(addr));
    v = b & 0xffu;
  }
  return v;
}

/// 16 bytes at the aligned address `chunk`; bytewise where the chunk leaves [lo, hi) (the input view), so a
/// view's first and last chunks never read outside it. Coherent: through L2 (`__ldcg`), for kernels that write
/// the data they read (in-place), which may not take the read-only path.
template <int Bytes>
using chunk_vec = std::conditional_t<Bytes == 16, uint4, uint2>;

template <int Bytes = 16, bool Coherent = false>
__device__ __forceinline__ chunk_vec<Bytes> load_chunk(std::uint64_t chunk, std::uint64_t lo, std::uint64_t hi) {
  static_assert(Bytes == 16 || Bytes == 8, "16- or 8-byte chunks");
  if (chunk >= lo && chunk + Bytes <= hi) {
    const auto* src = reinterpret_cast<const chunk_vec<Bytes>*>(chunk);
    return Coherent ? __ldcg(src) : __ldg(src);
  }
  std::uint32_t w[4] = {0, 0, 0, 0};
  for (int b = 0; b < Bytes; ++b)
    if (chunk + b >= lo && chunk + b < hi)
      w[b / 4] |= std::uint32_t{*reinterpret_cast<const unsigned char*>(chunk + b)} << (8 * (b % 4));
  if constexpr (Bytes == 16) return make_uint4(w[0], w[1], w[2], w[3]);
  else return make_uint2(w[0], w[1]);
}

__device__ __forceinline__ void sts128(unsigned addr, const std::uint32_t (&w)[4]) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
               : "memory");
}

/// Bytes (4, 8 or 16) from the global address `src`, aligned to Bytes, to shared memory at `dst`: cp.async
/// (a plain load and store before sm_80). Groups: cp_async_commit, then cp_async_wait_group<N> (at most N of
/// this thread's groups still in flight).
template <int Bytes>
__device__ __forceinline__ void cp_async_bytes(unsigned dst, const void* src) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async moves 4, 8 or 16 bytes");
#if __CUDA_ARCH__ >= 800
  if constexpr (Bytes == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(Bytes) : "memory");
#else
  using w = typename word_type<Bytes>::type;
  *reinterpret_cast<w*>(__cvta_shared_to_generic(dst)) = __ldg(reinterpret_cast<const w*>(src));
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
__device__ __forceinline__ void cp_async_wait_all() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait_group() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

/// The aligned 16-byte input chunk at `chunk` to shared memory at `dst`: asynchronously (cp.async) when it lies
/// inside the input's bytes [lo, hi), so that a block's whole stage is in flight at once, else bytewise, bytes
/// of [keep_lo, keep_hi) only (the input's ends). cp_async_wait_all() before the barrier that publishes it.
__device__ __forceinline__ void stage_chunk16(std::uint64_t chunk, unsigned dst, std::uint64_t lo, std::uint64_t hi,
                                              std::uint64_t keep_lo, std::uint64_t keep_hi) {
  if (chunk >= lo && chunk + 16 <= hi) {
    cp_async_bytes<16>(dst, reinterpret_cast<const void*>(chunk));
    return;
  }
  const uint4 v = load_chunk(chunk, keep_lo, keep_hi);
  const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
  sts128(dst, w);
}

/// Stores pieces [t_lo, t_hi) of the 16 bytes `w` at the aligned address `chunk`: one 16-byte store when
/// all of them, PieceBytes-wide stores at a window's edges.
template <int PieceBytes>
__device__ __forceinline__ void store_chunk(std::uint64_t chunk, int t_lo, int t_hi, const std::uint32_t (&w)[4]) {
  using piece = typename word_type<PieceBytes>::type;
  constexpr int pieces = 16 / PieceBytes;
  if (t_lo == 0 && t_hi == pieces) {
    *reinterpret_cast<uint4*>(chunk) = make_uint4(w[0], w[1], w[2], w[3]);
    return;
  }
#pragma unroll
  for (int tp = 0; tp < pieces; ++tp)
    if (tp >= t_lo && tp < t_hi)
      *reinterpret_cast<piece*>(chunk + tp * PieceBytes) =
          static_cast<piece>(w[tp * PieceBytes / 4] >> (8 * ((tp * PieceBytes) % 4)));
}

inline constexpr int gather16_threads = 256;

/// UnitBytes = 0: the unit size is a run-time value (p.unit_bytes); otherwise it is compile-time, so the
/// per-piece unit arithmetic (division, wrap) folds into multiplies and compares by constants.
/// RowChunks: lanes per row (chunk q of a row is lane q of its group): 16 (a half-warp, units <= 16 bytes),
/// 32, 64 or 128 for wider units (gather16_tile) on square tiles; 0 = flat rows (gather16_flat_tile):
/// rectangular tiles, the block's threads spread over (row, chunk) pairs of p.flat_in_chunks /
/// p.flat_out_chunks chunks a row.
template <int PieceBytes, int UnitBytes, bool Compound = false, int RowChunks = 16>
__global__ void __launch_bounds__(gather16_threads) transpose2d_gather16_kernel(const transpose2d_params p) {
  constexpr int pieces = 16 / PieceBytes;
  constexpr bool flat = RowChunks == 0;
  static_assert(RowChunks == 0 || RowChunks == 16 || RowChunks == 32 || RowChunks == 64 || RowChunks == 128,
                "rows of 16, 32, 64 or 128 chunks, or flat");
  extern __shared__ std::uint32_t staged[];  // rows of smem_pitch_words words
  // Compound sides: input offsets of the staged rows (tile + halo), then output offsets of the tile's columns.
  __shared__ std::int64_t side_off[Compound ? 2 * gather16_max_rows : 1];
  const auto staged_base = static_cast<unsigned>(__cvta_generic_to_shared(staged));

  const unsigned U = UnitBytes > 0 ? unsigned{UnitBytes} : static_cast<unsigned>(p.unit_bytes);
  const int Tr = static_cast<int>(p.words_tile_rows), Tc = static_cast<int>(p.words_tile_cols);
  const unsigned pitch_bytes = 4u * static_cast<unsigned>(p.smem_pitch_words);
  // (row, chunk) slot `idx` of a phase: row idx / chunks, chunk idx % chunks (a row's chunks are consecutive
  // threads). Square tiles: RowChunks lanes a row, so thread t always takes chunk t % RowChunks.
  auto split = [](unsigned idx, unsigned chunks, const div32& by, unsigned& row, unsigned& q) {
    row = flat ? by.div(idx) : idx / (RowChunks > 0 ? RowChunks : 1);
    q = idx - row * (flat ? chunks : RowChunks);
  };
  const unsigned in_chunks = flat ? p.flat_in_chunks : RowChunks, out_chunks = flat ? p.flat_out_chunks : RowChunks;
  // Word swizzle of staged rows. Lanes of a half-warp gather from rows 16/U apart (U = 1, 2, 4, 8, 16);
  // with the odd pitch alone, 16-row steps all land in 2 banks. XOR-ing the word index with those rows'
  // (r / (16/U)) & 15 spreads the 16 lanes over 16 banks. Other unit sizes step irregularly: no swizzle.
  // Flat rows' pitches hold a multiple of 16 words (gather16_flat_tile), so the XOR stays in the row.
  constexpr int swizzle_shift = ((RowChunks == 16 || flat) && UnitBytes > 0 && UnitBytes <= 16 && (UnitBytes & (UnitBytes - 1)) == 0)
                                    ? (UnitBytes == 1 ? 4 : UnitBytes == 2 ? 3 : UnitBytes == 4 ? 2 : UnitBytes == 8 ? 1 : 0)
                                    : -1;
  auto row_swizzle = [](unsigned r) -> unsigned { return swizzle_shift < 0 ? 0u : (r >> swizzle_shift) & 15u; };

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const tile_coords tc(p, t, Tr, Tc);
    const std::uint64_t in_tile =
        reinterpret_cast<std::uint64_t>(p.in) + tc.in_off + (Compound ? 0 : tc.r0 * p.in_ld) + tc.c0 * U;
    const std::uint64_t out_tile = reinterpret_cast<std::uint64_t>(p.out) + tc.out_off + (Compound ? 0 : tc.c0 * p.out_ld);
    const std::int64_t rows_left = p.rows - tc.r0, cols_left = p.cols - tc.c0;
    const unsigned staged_rows = static_cast<unsigned>(std::min<std::int64_t>(rows_left, Tr + p.halo_rows));
    const unsigned row_bytes = static_cast<unsigned>(std::min<std::int64_t>(cols_left, Tc)) * U;
    const auto in_tile_lo = static_cast<unsigned>(in_tile);  // low bits: enough for "& 15"
    const auto in_ld_lo = static_cast<unsigned>(p.in_ld);
    const unsigned in_ld_mod16 = in_ld_lo & 15;

    __syncthreads();  // the previous tile's gathers are done with `staged` (and `side_off`)
    const int col_table = Tr + p.halo_rows;  // side_off index of the tile's column 0
    if constexpr (Compound) {
      tabulate_sides(p, tc.r0, tc.c0, col_table, Tc, side_off);
      __syncthreads();  // side_off is complete before any row uses it
    }
    // Staged row r's input offset from in_tile, and its misalignment (the input address mod 16).
    auto row_in = [&](unsigned r) -> std::int64_t { return Compound ? side_off[r] : r * p.in_ld; };
    auto row_mis = [&](unsigned r) -> unsigned { return (in_tile_lo + static_cast<unsigned>(row_in(r))) & 15; };
    // 1. stage: lane j of a row's group loads aligned chunk j covering row i's [a, a + row_bytes). Groups of
    //    `in_flight` loads per thread are issued before their shared-memory stores.
    constexpr int in_flight = 4;
    const unsigned in_slots = staged_rows * in_chunks;
    for (unsigned group = 0; group * in_flight * gather16_threads < in_slots; ++group) {
      uint4 v[in_flight];
#pragma unroll
      for (int s = 0; s < in_flight; ++s) {
        unsigned i, lane;
        split(threadIdx.x + (group * in_flight + s) * gather16_threads, in_chunks, p.flat_in_div, i, lane);
        v[s] = make_uint4(0, 0, 0, 0);
        if (i >= staged_rows) continue;
        const std::uint64_t a = in_tile + row_in(i);
        const std::uint64_t chunk = (a & ~std::uint64_t{15}) + 16 * lane;
        if (chunk >= a + row_bytes) continue;
        v[s] = load_chunk(chunk, p.in_lo, p.in_hi);
      }
#pragma unroll
      for (int s = 0; s < in_flight; ++s) {
        unsigned i, lane;
        split(threadIdx.x + (group * in_flight + s) * gather16_threads, in_chunks, p.flat_in_div, i, lane);
        // Lanes past the staged row's chunks (a pitch shorter than RowChunks chunks: gather16_tile) hold none.
        if (i >= staged_rows || 4 * lane + 1 >= static_cast<unsigned>(p.smem_pitch_words)) continue;
        std::uint32_t* row = staged + i * p.smem_pitch_words;  // odd pitch, swizzled words: word stores
        const unsigned f = row_swizzle(i);
        row[(4 * lane + 0) ^ f] = v[s].x;
        row[(4 * lane + 1) ^ f] = v[s].y;
        row[(4 * lane + 2) ^ f] = v[s].z;
        row[(4 * lane + 3) ^ f] = v[s].w;
      }
    }
    __syncthreads();

    // 2. gather + store: output row c owns the bytes [b0, b1) of this tile, split at 16-byte boundaries
    //    b(r) = min(align16(o + r * U), row end), b(r0 = 0) = o, so consecutive tiles partition each row.
    const unsigned out_rows = static_cast<unsigned>(std::min<std::int64_t>(cols_left, Tc));
    // Window arithmetic is 32-bit, relative to `base` = output row c's unit r0: the tile's window spans
    // < Tr * U + 16 bytes from there. Only the row's base address and the final chunk address are 64-bit.
    const bool first_tile = tc.r0 == 0, last_tile = rows_left <= Tr;
    const unsigned span = static_cast<unsigned>(std::min<std::int64_t>(rows_left, Tr)) * U;  // bytes of r0..
    // Bytes from base to the row end, capped (only "more than the window" matters): the clamp of b(r).
    const unsigned row_rem = static_cast<unsigned>(std::min<std::int64_t>(rows_left, Tr + 16)) * U;
    for (unsigned idx = threadIdx.x; idx < out_rows * out_chunks; idx += gather16_threads) {
      unsigned c, lane;
      split(idx, out_chunks, p.flat_out_div, c, lane);
      const std::uint64_t base = out_tile + (Compound ? side_off[col_table + c] : c * p.out_ld) +
                                 static_cast<std::uint64_t>(tc.r0) * U;
      const unsigned phase = static_cast<unsigned>(base) & 15;  // base's offset above the 16-byte grid
      // Window [b0, b1) in bytes from base - phase (a 16-byte boundary); see the boundary rule above.
      const unsigned b0 = first_tile ? phase : std::min((phase + 15) & ~15u, phase + row_rem);
      const unsigned b1 = last_tile ? phase + span : std::min((phase + span + 15) & ~15u, phase + row_rem);
      const unsigned q16 = (b0 & ~15u) + 16 * lane;
      const unsigned lo = q16 > b0 ? q16 : b0, hi = q16 + 16 < b1 ? q16 + 16 : b1;
      if (lo >= hi) continue;
      const std::uint64_t chunk = base - phase + q16;
      // Unit r (relative to r0) and byte k within it of the first piece.
      const unsigned d = lo - phase;
      unsigned r = d / U, k = d - r * U;
      const unsigned col = c * U;
      // Byte `ob` of staged row r lives at r * pitch + (ob ^ 4 * row_swizzle(r)) (word-level XOR). Row r's
      // misalignment m advances by in_ld mod 16 from one row to the next, so no multiply per piece.
      unsigned m = Compound ? row_mis(r) : (in_tile_lo + r * in_ld_lo) & 15;
      unsigned ob = m + col + k;
      unsigned row_base = r * pitch_bytes, fx = 4 * row_swizzle(r);
      const int t_lo = static_cast<int>(lo - q16) / PieceBytes, t_hi = static_cast<int>(hi - q16) / PieceBytes;
      std::uint32_t w[4] = {0, 0, 0, 0};
      auto gather = [&](auto full) {
        if constexpr (PieceBytes == UnitBytes && decltype(full)::value) {
          // Every piece is a whole unit of its own staged row: independent addresses (ILP), no chain.
#pragma unroll
          for (int tp = 0; tp < pieces; ++tp) {
            const unsigned mt = Compound ? row_mis(r + tp) : (m + tp * in_ld_mod16) & 15;
            const unsigned addr = row_base + tp * pitch_bytes + ((mt + col) ^ (4 * row_swizzle(r + tp)));
            const std::uint32_t val = lds_piece<PieceBytes>(staged_base + addr);
            w[tp * PieceBytes / 4] |= val << (8 * ((tp * PieceBytes) % 4));
          }
        } else {
#pragma unroll
        for (int tp = 0; tp < pieces; ++tp) {
          if (!decltype(full)::value && (tp < t_lo || tp >= t_hi)) continue;
          const std::uint32_t val = lds_piece<PieceBytes>(staged_base + row_base + (ob ^ fx));
          w[tp * PieceBytes / 4] |= val << (8 * ((tp * PieceBytes) % 4));
          auto next_unit = [&] {  // next staged row, with its own misalignment
            ++r;
            m = Compound ? row_mis(r) : (m + in_ld_mod16) & 15;
            ob = m + col;
            row_base += pitch_bytes;
            fx = 4 * row_swizzle(r);
          };
          if constexpr (PieceBytes == UnitBytes) {  // every piece is a whole unit
            next_unit();
          } else {
            k += PieceBytes;
            ob += PieceBytes;
            if (k == U) {
              k = 0;
              next_unit();
            }
          }
        }
        }
      };
      if (t_lo == 0 && t_hi == pieces) gather(std::true_type{});
      else gather(std::false_type{});
      store_chunk<PieceBytes>(chunk, t_lo, t_hi, w);
    }
  }
}


// ---- shift16 ----------------------------------------------------------------------------------------------

/// Bytes [s, s + 4 W) of the 8 W bytes lo:hi (lo's bytes first), s in [0, 4 W), W = 4 (16-byte chunks) or 2
/// (8-byte): word selects on the run-time word shift (two levels, or one), then funnel shifts by the byte
/// shift. No indexed register arrays (no local memory).
template <int W>
__device__ __forceinline__ void realign(const std::uint32_t (&lo)[W], const std::uint32_t (&hi)[W], unsigned s,
                                        std::uint32_t (&out)[W]) {
  static_assert(W == 4 || W == 2, "16- or 8-byte chunks");
  std::uint32_t x[2 * W];
#pragma unroll
  for (int k = 0; k < W; ++k) x[k] = lo[k], x[W + k] = hi[k];
  const bool odd = (s & 4) != 0;
  std::uint32_t a[2 * W - 1];
#pragma unroll
  for (int k = 0; k < 2 * W - 1; ++k) a[k] = odd ? x[k + 1] : x[k];
  std::uint32_t y[W + 1];
  if constexpr (W == 4) {
    const bool two = (s & 8) != 0;
#pragma unroll
    for (int k = 0; k < W + 1; ++k) y[k] = two ? a[k + 2] : a[k];
  } else {
#pragma unroll
    for (int k = 0; k < W + 1; ++k) y[k] = a[k];
  }
  const unsigned sh = 8 * (s & 3);
#pragma unroll
  for (int i = 0; i < W; ++i) out[i] = __funnelshift_r(y[i], y[i + 1], sh);
}

/// shift16's load realignment: bytes [s, s + 16) of this lane's 16-byte chunk `w` followed by the next lane's
/// (lanes in groups of Width; the group's last lane gets its own chunk again, whose result is never used).
template <int Width>
__device__ __forceinline__ void realign_with_next_lane(const std::uint32_t (&w)[4], unsigned s, std::uint32_t (&out)[4]) {
  std::uint32_t next[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) next[k] = __shfl_down_sync(0xffffffffu, w[k], 1, Width);
  realign(w, next, s, out);
}

/// shift16's store side: chunk q of output row c from a swizzled shared tile (`val`), and the next lane's, chunk
/// (q + 1) % MR of the same row (`next`; lanes in groups of MR, one row a group).
template <int V, int MR>
__device__ __forceinline__ void tile_chunk_and_next(const uint4* tile, int c, int q, std::uint32_t (&val)[4],
                                                    std::uint32_t (&next)[4]) {
  const uint4 v = tile[swizzle<V, MR>(c, q)];
  val[0] = v.x, val[1] = v.y, val[2] = v.z, val[3] = v.w;
#pragma unroll
  for (int k = 0; k < 4; ++k) next[k] = __shfl_sync(0xffffffffu, val[k], (q + 1) % MR, MR);
}

/// Stores bytes [lo, hi) of the 4 W bytes `w` at the 4 W-byte aligned address `chunk` (W = 4: 16-byte chunks,
/// 2: 8-byte), 0 <= lo < hi <= 4 W, as naturally aligned stores of 1, 2, 4 (and 8) bytes — one vector store
/// when the range is whole.
template <int W>
__device__ __forceinline__ void store_byte_range(std::uint64_t chunk, unsigned lo, unsigned hi,
                                                 const std::uint32_t (&w)[W]) {
  static_assert(W == 4 || W == 2, "16- or 8-byte chunks");
  constexpr unsigned bytes = 4 * W, max_piece = 2 * W;  // pieces up to 8 (16-byte chunks) or 4 bytes
  if (lo == 0 && hi == bytes) {
    if constexpr (W == 4) *reinterpret_cast<uint4*>(chunk) = make_uint4(w[0], w[1], w[2], w[3]);
    else *reinterpret_cast<uint2*>(chunk) = make_uint2(w[0], w[1]);
    return;
  }
  const std::uint64_t lo64 = (std::uint64_t{w[1]} << 32) | w[0];
  const std::uint64_t hi64 = W == 4 ? (std::uint64_t{w[W - 1]} << 32) | w[W - 2] : 0;
  auto put = [&](unsigned b, unsigned n) {  // n in {1, 2, 4, 8} bytes from b (aligned to n)
    const std::uint64_t d = b >= 8 ? hi64 : lo64;  // a select, not an indexed (local-memory) register array
    const std::uint64_t x = n == 8 ? d : d >> (8 * (b % 8));
    if (n == 1) *reinterpret_cast<std::uint8_t*>(chunk + b) = static_cast<std::uint8_t>(x);
    if (n == 2) *reinterpret_cast<std::uint16_t*>(chunk + b) = static_cast<std::uint16_t>(x);
    if (n == 4) *reinterpret_cast<std::uint32_t*>(chunk + b) = static_cast<std::uint32_t>(x);
    if (n == 8) *reinterpret_cast<std::uint64_t*>(chunk + b) = x;
  };
  // Head: grow lo to chunk alignment in pieces of 1, 2, 4 (, 8), each aligned since lo is a multiple of it.
#pragma unroll
  for (unsigned n = 1; n <= max_piece; n *= 2)
    if ((lo & n) != 0 && lo + n <= hi) {
      put(lo, n);
      lo += n;
    }
  // Tail: what is left is [lo, hi) with lo a multiple of every piece still to come; largest pieces first.
#pragma unroll
  for (unsigned n = max_piece; n >= 1; n /= 2)
    if (lo + n <= hi) {
      put(lo, n);
      lo += n;
    }
}

/// A tile of shift16 / shift8 / vec8 (tiles step by step_rows x step_cols units and stage tile_rows rows;
/// shift's tiles overlap by one micro-tile, which feeds the realignment): its first units' addresses (plain
/// sides fold the row and column offsets in; compound sides add theirs from the tile's tables) and extents.
template <int UnitBytes, bool Compound>
struct stepped_tile {
  std::uint64_t in_tile, out_tile;
  std::int64_t rows_left, cols_left;
  int staged_rows, out_rows;  // input rows staged; output rows (input columns) this tile writes
  unsigned in_bytes;          // each staged input row segment
  bool first, last;           // the first / last tile along r
  bool full;                  // staged rows and written columns whole (block-uniform)

  __device__ stepped_tile(const transpose2d_params& p, const tile_coords& tc, int step_rows, int step_cols,
                          int tile_rows)
      : in_tile(reinterpret_cast<std::uint64_t>(p.in) + tc.in_off + (Compound ? 0 : tc.r0 * p.in_ld) +
                tc.c0 * UnitBytes),
        out_tile(reinterpret_cast<std::uint64_t>(p.out) + tc.out_off + (Compound ? 0 : tc.c0 * p.out_ld) +
                 tc.r0 * UnitBytes),
        rows_left(p.rows - tc.r0),
        cols_left(p.cols - tc.c0),
        staged_rows(static_cast<int>(std::min<std::int64_t>(rows_left, tile_rows))),
        out_rows(static_cast<int>(std::min<std::int64_t>(cols_left, step_cols))),
        in_bytes(static_cast<unsigned>(out_rows) * UnitBytes),
        first(tc.r0 == 0),
        last(rows_left <= step_rows),
        full(staged_rows == tile_rows && out_rows == step_cols) {}
};

/// shift16<UnitBytes>: vec16 for misaligned data (odd leading dimensions such as 8191 x 8193, shifted base
/// pointers, pitches that are not 16-byte multiples). Every global access is an aligned 16-byte vector except
/// at the ends of rows:
/// * load: the MC lanes of a row group load the MC aligned chunks from a & ~15 (a = the row segment's first
///   byte); lane j takes lane j + 1's chunk by a shuffle and funnel-shifts the pair by a & 15, so it holds the
///   V units vec16 would have loaded. Lane MC - 1 has no right neighbour: a tile covers V (MC - 1) columns,
///   and the transposed rows of that lane are never stored.
/// * register transpose and swizzled shared tile exactly as vec16;
/// * store: tiles along r overlap by V rows. Each output row's bytes are split between tiles at the output's
///   16-byte grid (tile k owns [align16(o + k R'), align16(o + (k + 1) R')) of the row at o, R' = V (MR - 1)
///   units: < 16 bytes of shift, so V more staged rows cover it). Lane q stores grid chunk q + (o & 15 != 0)
///   from tile chunks q and q + 1 (shuffle + funnel shift); lane MR - 1 stores a row's first, partial chunk.
///   So interior stores are whole aligned 16-byte vectors that exactly one tile writes; only each row's first
///   and last chunks are written piecewise.
/// Reads never leave [in_lo, in_hi). No per-byte shared-memory gathers (gather16's cost).
template <int UnitBytes, bool Compound, class Policy>
__device__ __forceinline__ void shift16_tiles(const transpose2d_params& p) {
  using S = vec16_shape<UnitBytes, Policy>;
  constexpr int V = S::V, MR = S::MR, MC = S::MC, P = S::P;
  constexpr int step_rows = S::shift_step_rows, step_cols = S::shift_step_cols;  // tile pitch along r and c (units)
  static_assert(MC <= 32 && MR <= 32, "a row's lanes must share a warp for the shuffles");
  __shared__ uint4 tile[S::tile_cols * MR];
  __shared__ std::int64_t side_off[Compound ? S::tile_rows + S::tile_cols : 1];

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const tile_coords tc(p, t, step_rows, step_cols);
    const auto [in_tile, out_tile, rows_left, cols_left, staged_rows, out_rows, in_bytes, first, last, full] =
        stepped_tile<UnitBytes, Compound>(p, tc, step_rows, step_cols, S::tile_rows);
    // inside: every aligned chunk covering the tile's row segments lies in the input view (block-uniform), so
    // the loads need no bounds checks. Strides are >= 0: plain rows ascend from row 0; compound rows vote.
    auto chunks_inside = [&](std::uint64_t a) {
      return (a & ~std::uint64_t{15}) >= p.in_lo && ((a + in_bytes + 15) & ~std::uint64_t{15}) <= p.in_hi;
    };
    bool inside;
    if constexpr (Compound) {
      if (t != blockIdx.x) __syncthreads();  // the previous tile's stores are done reading side_off
      tabulate_sides(p, tc.r0, tc.c0, S::tile_rows, S::tile_cols, side_off);
      __syncthreads();
      bool ok = true;
      for (int i = threadIdx.x; i < staged_rows; i += S::threads) ok = ok && chunks_inside(in_tile + side_off[i]);
      inside = __syncthreads_and(ok) != 0;
    } else {
      inside = chunks_inside(in_tile) && chunks_inside(in_tile + (staged_rows - 1) * p.in_ld);
    }
    auto row_in = [&](int row) -> std::int64_t { return Compound ? side_off[row] : row * p.in_ld; };
    auto col_out = [&](int c) -> std::int64_t { return Compound ? side_off[S::tile_rows + c] : c * p.out_ld; };

    // Interior tiles of plain problems take a branch-free path (as shift8's, see transpose2d_tile8_kernel).
    // H100, same call, general -> branch-free (fp16 through the 3-block build, see the dispatcher): fp16 4097 x
    // 3001 0.869 -> 0.931, 8191 x 8193 0.910 -> 0.922, 7919 x 7907 0.910 -> 0.926, 2047 x 2049 0.868 -> 0.920,
    // 1001 x 65537 0.893 -> 0.921, 16 x 2001 x 2003 0.916 -> 0.938; fp32 +0.01-0.02; fp64, c128 unchanged.
    // (1-byte units, which shift8 takes since the thirty-fourth session, had lost with it: u8 N-d 2336 x 478 x
    // 481 0.705 -> 0.685.)
    static_assert(UnitBytes >= 2, "misaligned 1-byte units take shift8");
    const bool fast = !Compound && full && inside && !first && !last;

    // 1. global -> registers, realigned. Lanes mj = 0..MC-1 of a row group are consecutive lanes of a warp.
    std::uint32_t v[P][V][4];
#pragma unroll
    for (int m = 0; m < P; ++m) {
      const int micro = threadIdx.x + m * S::threads;
      const int mi = micro / MC, mj = micro % MC;
      uint4 x[V];
      unsigned mis[V];
      if (fast) {
        const std::uint64_t a0 = in_tile + mi * V * p.in_ld;
#pragma unroll
        for (int i = 0; i < V; ++i) {
          const std::uint64_t a = a0 + static_cast<std::uint64_t>(i) * p.in_ld;
          mis[i] = static_cast<unsigned>(a) & 15;
          x[i] = 16 * static_cast<unsigned>(mj) < mis[i] + in_bytes
                     ? __ldg(reinterpret_cast<const uint4*>((a & ~std::uint64_t{15}) + 16 * mj))
                     : make_uint4(0, 0, 0, 0);
        }
      } else {
#pragma unroll
        for (int i = 0; i < V; ++i) {
          const int row = mi * V + i;
          x[i] = make_uint4(0, 0, 0, 0);
          mis[i] = 0;
          if (!full && row >= staged_rows) continue;
          const std::uint64_t a = in_tile + row_in(row);
          mis[i] = static_cast<unsigned>(a) & 15;
          const std::uint64_t chunk = a - mis[i] + 16 * static_cast<unsigned>(mj);
          if (chunk < a + in_bytes)
            x[i] = inside ? __ldg(reinterpret_cast<const uint4*>(chunk)) : load_chunk(chunk, p.in_lo, p.in_hi);
        }
      }
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const std::uint32_t own[4] = {x[i].x, x[i].y, x[i].z, x[i].w};
        realign_with_next_lane<MC>(own, mis[i], v[m][i]);
      }
    }
    __syncthreads();  // the previous tile's readers of `tile` are done (grid-stride loop)

    // 2. register transpose, 16-byte stores in output orientation (as vec16).
    store_micro_tiles<UnitBytes, S>(v, tile);
    __syncthreads();

    // 3. shared -> global along output rows, on the output's 16-byte grid. Output row c's segment starts at
    //    o = its unit r0, ph = o & 15 bytes above the grid chunk g = 0. This tile owns the segment bytes
    //    [b0, b1): b0 = 0 on the first tile along r, else (16 - ph) & 15; b1 = the row end on the last tile, else
    //    b0' + 16 (MR - 1) clamped to the row end. Grid chunk g holds segment bytes [16 g - ph, 16 g - ph + 16):
    //    lane q < MR - 1 takes g = q + (ph != 0) (tile chunks q, q + 1), lane MR - 1 takes g = 0 (tile chunks
    //    MR - 1 (unused bytes) and 0; g = MR - 1 when ph = 0, never in the window); each computes bytes [s, s + 16) of its pair, s = (16 - ph) & 15.
    const unsigned row_rem = static_cast<unsigned>(std::min<std::int64_t>(rows_left, S::tile_rows + V)) * UnitBytes;
#pragma unroll
    for (int j = 0; j < V * P; ++j) {
      const int x = threadIdx.x + j * S::threads;
      const int c = x / MR, q = x % MR;
      std::uint32_t val[4], next[4];
      tile_chunk_and_next<V, MR>(tile, c, q, val, next);
      if (fast) {
        const std::uint64_t o = out_tile + static_cast<std::uint64_t>(c) * p.out_ld;
        const unsigned ph = static_cast<unsigned>(o) & 15;
        std::uint32_t w[4];
        realign(val, next, (16 - ph) & 15, w);
        if (c < out_rows && q != MR - 1)
          *reinterpret_cast<uint4*>(o - ph + 16 * (q + (ph != 0))) = make_uint4(w[0], w[1], w[2], w[3]);
        continue;
      }
      if (c >= out_rows) continue;
      const std::uint64_t o = out_tile + col_out(c);
      const unsigned ph = static_cast<unsigned>(o) & 15, sh = (16 - ph) & 15;
      std::uint32_t w[4];
      realign(val, next, sh, w);
      const int g = q == MR - 1 ? (ph != 0 ? 0 : MR - 1) : q + (ph != 0);
      const int lo_byte = 16 * g - static_cast<int>(ph);  // segment byte at the chunk's start
      if (full && !first && !last) {
        if (q != MR - 1) *reinterpret_cast<uint4*>(o - ph + 16 * g) = make_uint4(w[0], w[1], w[2], w[3]);
      } else {
        const int b0 = first ? 0 : static_cast<int>(std::min(sh, row_rem));
        const int b1 = last ? static_cast<int>(row_rem)
                            : static_cast<int>(std::min(sh + 16 * (MR - 1), row_rem));
        const int lo = std::max(b0 - lo_byte, 0), hi = std::min(b1 - lo_byte, 16);
        if (lo < hi) store_byte_range(o - ph + 16 * g, static_cast<unsigned>(lo), static_cast<unsigned>(hi), w);
      }
    }
  }
}

template <int UnitBytes, bool Compound = false, class Policy = transpose2d_shift16_policy<UnitBytes>>
__global__ void __launch_bounds__(vec16_shape<UnitBytes, Policy>::threads)
    transpose2d_shift16_kernel(const transpose2d_params p) {
  shift16_tiles<UnitBytes, Compound, Policy>(p);
}

/// shift16 built for MinBlocks resident blocks an SM (registers <= 65536 / (threads x MinBlocks)): every plain
/// 2-byte problem (dispatch/transpose2d.cu). A bound on the default kernel instead would change its register
/// choice on every problem.
template <int UnitBytes, int MinBlocks, class Policy = transpose2d_shift16_policy<UnitBytes>>
__global__ void __launch_bounds__(vec16_shape<UnitBytes, Policy>::threads, MinBlocks)
    transpose2d_shift16_bounded_kernel(const transpose2d_params p) {
  shift16_tiles<UnitBytes, false, Policy>(p);
}

// ---- vec8 / shift8 ----------------------------------------------------------------------------------------

/// vec8 / shift8 shape: vec16 / shift16 with 8-byte chunks, for 1- and 2-byte units. A micro-tile is V = 8 /
/// UnitBytes rows of one 8-byte chunk (64 bytes a thread instead of 256), so a thread needs about a third of
/// the registers and an SM holds ~2.7x the warps to hide the realignment's dependent instructions.
template <int UnitBytes, class Policy = transpose2d_tile8_policy<UnitBytes>>
struct tile8_shape {
  static constexpr int V = 8 / UnitBytes;     // units per 8-byte chunk
  static constexpr int MR = Policy::mr;       // chunks per output row segment (micro-tiles along r)
  static constexpr int MC = Policy::mc;       // chunks per input row segment (micro-tiles along c)
  static constexpr int threads = MR * MC;     // one micro-tile a thread
  static constexpr int tile_rows = V * MR, tile_cols = V * MC;
  static constexpr int shift_step_rows = V * (MR - 1), shift_step_cols = V * (MC - 1);  // shift8's tile pitch
  static_assert(MR >= 16 && (MR & (MR - 1)) == 0 && MC >= 16 && MC <= 32 && MR <= 32,
                "swizzle needs >= 16 power-of-two chunks a row; a row's lanes share a warp");
};

/// Shared tile of vec8 / shift8: tile_cols output rows of MR 8-byte chunks; chunk q of output row c at
/// q ^ ((c / V) & 15): the 16 lanes of a half-warp (one 8-byte wavefront) hit 16 distinct bank pairs both when
/// storing micro-tiles (16 consecutive c / V) and when reading a row (16 consecutive q).
template <int V, int MR>
__device__ __forceinline__ int swizzle8(int c, int q) {
  return c * MR + (q ^ ((c / V) & 15));
}

/// Step 2 of vec8 / bulk8 / the in-place square_vec8 and square_bulk8: micro-tile v (8-byte rows mi V .. of
/// chunk mj, as loaded) transposed in registers and written to the shared tile in output orientation (output
/// row mj V + k, chunk mi, at swizzle8: conflict-free).
template <int UnitBytes, int MR>
__device__ __forceinline__ void write_micro_tile8(const std::uint32_t (&v)[8 / UnitBytes][2], uint2* tile,
                                                  unsigned mi, unsigned mj) {
  constexpr int V = 8 / UnitBytes;
  std::uint32_t w[V][2];
  transpose_micro<UnitBytes, 2>(v, w);
#pragma unroll
  for (int k = 0; k < V; ++k)
    tile[swizzle8<V, MR>(static_cast<int>(mj) * V + k, static_cast<int>(mi))] = make_uint2(w[k][0], w[k][1]);
}

/// vec8 (Shift = false: base pointers, pitches and batch strides 8-byte aligned) and shift8 (any alignment) —
/// vec16 / shift16's three steps with 8-byte chunks (see shift16_tiles for the realignment and the output
/// windows; here on the 8-byte grid, tiles overlapping by one micro-tile each way).
template <int UnitBytes, bool Shift, bool Compound, class Policy = transpose2d_tile8_policy<UnitBytes>,
          bool Fast = false>
__global__ void __launch_bounds__(tile8_shape<UnitBytes, Policy>::threads, Policy::min_blocks)
    transpose2d_tile8_kernel(const transpose2d_params p) {
  using S = tile8_shape<UnitBytes, Policy>;
  constexpr int V = S::V, MR = S::MR, MC = S::MC;
  constexpr int step_rows = Shift ? S::shift_step_rows : S::tile_rows, step_cols = Shift ? S::shift_step_cols : S::tile_cols;
  __shared__ uint2 tile[S::tile_cols * MR];
  __shared__ std::int64_t side_off[Compound ? S::tile_rows + S::tile_cols : 1];
  const unsigned mi = threadIdx.x / MC, mj = threadIdx.x % MC;  // this thread's micro-tile (step 1)

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const tile_coords tc(p, t, step_rows, step_cols);
    const auto [in_tile, out_tile, rows_left, cols_left, staged_rows, out_rows, in_bytes, first, last, full] =
        stepped_tile<UnitBytes, Compound>(p, tc, step_rows, step_cols, S::tile_rows);
    auto chunks_inside = [&](std::uint64_t a) {
      return (a & ~std::uint64_t{7}) >= p.in_lo && ((a + in_bytes + 7) & ~std::uint64_t{7}) <= p.in_hi;
    };
    bool inside = true;
    if constexpr (Compound) {
      if (t != blockIdx.x) __syncthreads();  // the previous tile's stores are done reading side_off
      tabulate_sides(p, tc.r0, tc.c0, S::tile_rows, S::tile_cols, side_off);
      __syncthreads();
      if constexpr (Shift) {
        bool ok = true;
        for (int i = threadIdx.x; i < staged_rows; i += S::threads) ok = ok && chunks_inside(in_tile + side_off[i]);
        inside = __syncthreads_and(ok) != 0;
      }
    } else if constexpr (Shift) {
      inside = chunks_inside(in_tile) && chunks_inside(in_tile + (staged_rows - 1) * p.in_ld);
    }
    auto row_in = [&](int row) -> std::int64_t { return Compound ? side_off[row] : row * p.in_ld; };
    auto col_out = [&](int c) -> std::int64_t { return Compound ? side_off[S::tile_rows + c] : c * p.out_ld; };

    // Fast (shift8 of plain problems; the dispatcher decides): interior tiles — almost every tile of a large
    // matrix — take a branch-free path: every row staged, every chunk inside the input, every output chunk
    // owned whole. The general code below re-tests those conditions a row and a chunk at a time (~28
    // instructions a load and ~40 a store: 80 % of the kernel's instructions on u8 7919 x 7907).
    static_assert(!Fast || (Shift && !Compound), "the branch-free path is shift8's, plain sides");
    const bool fast = Fast && full && inside && !first && !last;

    // 1. global -> registers (all V loads issued first), realigned when Shift. Row i of this thread's
    //    micro-tile is at a_i = a_0 + i in_ld (plain sides): one add a row, 32-bit offsets within the chunk.
    std::uint32_t v[V][2];
    if (fast) {
      uint2 x[V];
      unsigned mis[V];
      const std::uint64_t a0 = in_tile + mi * V * p.in_ld;
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const std::uint64_t a = a0 + static_cast<std::uint64_t>(i) * p.in_ld;
        mis[i] = static_cast<unsigned>(a) & 7;
        // Lane MC - 1's chunk only feeds lane MC - 2's realignment: needed when the row is not on the grid.
        x[i] = 8 * mj < mis[i] + in_bytes ? __ldg(reinterpret_cast<const uint2*>((a & ~std::uint64_t{7}) + 8 * mj))
                                          : make_uint2(0, 0);
      }
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const std::uint32_t own[2] = {x[i].x, x[i].y};
        const std::uint32_t next[2] = {__shfl_down_sync(0xffffffffu, own[0], 1, MC),
                                       __shfl_down_sync(0xffffffffu, own[1], 1, MC)};
        realign(own, next, mis[i], v[i]);
      }
    } else {
      uint2 x[V];
      unsigned mis[V];
      const std::uint64_t a0 = in_tile + row_in(mi * V);
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const int row = mi * V + i;
        x[i] = make_uint2(0, 0);
        mis[i] = 0;
        if (!full && row >= staged_rows) continue;
        const std::uint64_t a = Compound ? in_tile + side_off[row] : a0 + static_cast<std::uint64_t>(i) * p.in_ld;
        if constexpr (Shift) {
          mis[i] = static_cast<unsigned>(a) & 7;
          const std::uint64_t chunk = (a & ~std::uint64_t{7}) + 8 * mj;
          if (8 * mj < mis[i] + in_bytes)
            x[i] = inside ? __ldg(reinterpret_cast<const uint2*>(chunk)) : load_chunk<8>(chunk, p.in_lo, p.in_hi);
        } else {
          const std::uint64_t chunk = a + 8 * mj;
          const int n = out_rows - static_cast<int>(mj * V);  // units of this chunk in the tile
          if (full || n >= V) {
            x[i] = __ldg(reinterpret_cast<const uint2*>(chunk));
          } else if (n > 0) {
            std::uint32_t w[4] = {0, 0, 0, 0};
            load_units<UnitBytes>(reinterpret_cast<const unsigned char*>(chunk), n, w);
            x[i] = make_uint2(w[0], w[1]);
          }
        }
      }
#pragma unroll
      for (int i = 0; i < V; ++i) {
        if constexpr (Shift) {
          const std::uint32_t own[2] = {x[i].x, x[i].y};
          const std::uint32_t next[2] = {__shfl_down_sync(0xffffffffu, own[0], 1, MC),
                                         __shfl_down_sync(0xffffffffu, own[1], 1, MC)};
          realign(own, next, mis[i], v[i]);
        } else {
          v[i][0] = x[i].x;
          v[i][1] = x[i].y;
        }
      }
    }
    __syncthreads();  // the previous tile's readers of `tile` are done (grid-stride loop)

    // 2. register transpose, 8-byte stores in output orientation.
    write_micro_tile8<UnitBytes, MR>(v, tile, mi, mj);
    __syncthreads();

    // 3. shared -> global along output rows (shift8: on the output's 8-byte grid, as shift16 on its 16-byte
    //    one). Lane q of a row is fixed; its rows are c_j = c_0 + j MC, at o_j = o_0 + j MC out_ld (plain
    //    sides), so the row's phase on the 8-byte grid (o_j & 7) is the same for every j.
    const unsigned row_rem = static_cast<unsigned>(std::min<std::int64_t>(rows_left, S::tile_rows + V)) * UnitBytes;
    const unsigned q = threadIdx.x % MR, c_0 = threadIdx.x / MR;
    constexpr unsigned c_step = S::threads / MR;
    static_assert(c_step % V == 0 && c_step % 8 == 0, "rows c_j keep their swizzle key step and grid phase");
    const std::uint64_t o_0 = out_tile + col_out(static_cast<int>(c_0));
    const std::uint64_t o_step = Compound ? 0 : c_step * static_cast<std::uint64_t>(p.out_ld);
    if (fast) {
      // Lane q < MR - 1 owns grid chunk q + (ph != 0) of each of its rows (see below); one phase for all j.
      const unsigned ph = static_cast<unsigned>(o_0) & 7, sh = (8 - ph) & 7;
      const std::uint64_t dst0 = o_0 - ph + 8 * q + (ph != 0 ? 8 : 0);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const unsigned c = c_0 + j * c_step;
        const uint2 val2 = tile[c * MR + (q ^ ((c / V) & 15))];
        const std::uint32_t val[2] = {val2.x, val2.y};
        const std::uint32_t next[2] = {__shfl_sync(0xffffffffu, val[0], (q + 1) % MR, MR),
                                       __shfl_sync(0xffffffffu, val[1], (q + 1) % MR, MR)};
        std::uint32_t w[2];
        realign(val, next, sh, w);
        if (static_cast<int>(c) < out_rows && q != MR - 1)
          *reinterpret_cast<uint2*>(dst0 + j * o_step) = make_uint2(w[0], w[1]);
      }
      continue;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const unsigned c = c_0 + j * c_step;
      const uint2 val2 = tile[c * MR + (q ^ ((c / V) & 15))];
      const std::uint64_t o = Compound ? out_tile + side_off[S::tile_rows + c] : o_0 + j * o_step;
      if constexpr (Shift) {
        const std::uint32_t val[2] = {val2.x, val2.y};
        const std::uint32_t next[2] = {__shfl_sync(0xffffffffu, val[0], (q + 1) % MR, MR),
                                       __shfl_sync(0xffffffffu, val[1], (q + 1) % MR, MR)};
        if (static_cast<int>(c) >= out_rows) continue;
        const unsigned ph = static_cast<unsigned>(Compound ? o : o_0) & 7, sh = (8 - ph) & 7;
        std::uint32_t w[2];
        realign(val, next, sh, w);
        const std::uint64_t grid0 = o - ph;  // the row's grid chunk 0
        if (full && !first && !last) {
          if (q != MR - 1) *reinterpret_cast<uint2*>(grid0 + 8 * q + (ph != 0 ? 8 : 0)) = make_uint2(w[0], w[1]);
        } else {
          const int g = q == MR - 1 ? (ph != 0 ? 0 : MR - 1) : static_cast<int>(q) + (ph != 0);
          const int lo_byte = 8 * g - static_cast<int>(ph);
          const int b0 = first ? 0 : static_cast<int>(std::min(sh, row_rem));
          const int b1 = last ? static_cast<int>(row_rem) : static_cast<int>(std::min(sh + 8 * (MR - 1), row_rem));
          const int lo = std::max(b0 - lo_byte, 0), hi = std::min(b1 - lo_byte, 8);
          if (lo < hi) store_byte_range(grid0 + 8 * g, static_cast<unsigned>(lo), static_cast<unsigned>(hi), w);
        }
      } else {
        unsigned char* dst = reinterpret_cast<unsigned char*>(o) + q * 8;
        if (full) {
          *reinterpret_cast<uint2*>(dst) = val2;
        } else if (static_cast<int>(c) < out_rows) {  // vec8 steps by whole tiles: out_rows, staged_rows
          const int n = staged_rows - static_cast<int>(q * V);  // are the tile's columns and rows
          if (n >= V) {
            *reinterpret_cast<uint2*>(dst) = val2;
          } else if (n > 0) {
            const std::uint32_t w[4] = {val2.x, val2.y, 0, 0};
            store_units<UnitBytes>(dst, n, w);
          }
        }
      }
    }
  }
}

// ---- batched_flat -----------------------------------------------------------------------------------------

inline constexpr int batched_flat_threads = 256;
inline constexpr int batched_flat_tile_bytes = 16384;  // M * matrix bytes <= this when matrices are small
// One matrix a tile up to this (M = 1): three blocks an SM still fit the H100's 228 KiB of shared memory. H100,
// same call: 60-67 KB matrices gained at three blocks an SM (u8 1115 x 204 x 295 0.58 -> 0.81, fp16 2000 x 300 x
// 111 0.74 -> 0.93 vs tiles).
inline constexpr int batched_flat_max_smem = 74 * 1024;
// Up to this for 2-, 4- and 8-byte units (two blocks an SM), whose gathers take 4-8 loads a chunk and whose
// tiles (gather16, vec8) measured worse: H100, same call, fp64 1251 x 45 x 298 0.61 -> 0.92, 1181 x 53 x 268 0.70
// -> 0.88, fp16 1284 x 176 x 297 0.72 -> 0.93. Bytes (16 loads a chunk) and pixel48's units lost at two blocks an
// SM (u8 620 x 475 x 228 0.74 -> 0.62, rgb16 1180 x 240 x 79 0.93 -> 0.85).
inline constexpr int batched_flat_max_smem_words = 112 * 1024;
// 16-byte units keep the former 47 KiB: their tiles move whole units. H100, same call, flat -> tiles: c128 2338
// x 156 x 23 0.97 -> 1.01, 2102 x 38 x 105 0.97 -> 1.01, and on five batches not used to choose it (47-67 KB
// matrices: 1000 x 60 x 70, 1200 x 50 x 80, 900 x 77 x 41, 1500 x 33 x 97, 800 x 101 x 45) 0.88-0.95 -> 0.98-1.04.
inline constexpr int batched_flat_max_smem_16 = 47 * 1024;

/// Staged bytes a tile of M matrices of S bytes needs: its own matrices and the overhang of the first and last
/// aligned chunks (the window's bytes in the next tile's matrix come from global memory, not the stage), in
/// whole 128-byte groups (flat_slot permutes the chunks within each).
inline std::int64_t batched_flat_smem(std::int64_t m, std::int64_t s) { return (m * s + 32 + 127) / 128 * 128; }

/// A piece of staged byte `at` (relative to the stage) whose 16-byte chunks are permuted within each aligned
/// 128-byte group when Swizzled: slot = at ^ (((at >> s1) ^ (at >> s2)) & 0x70) (flat_swizzle, chosen by the
/// dispatcher's bank model in tuning/transpose2d.hpp).
template <bool Swizzled>
__device__ __forceinline__ unsigned flat_slot(unsigned at, int s1, int s2) {
  return Swizzled ? at ^ (((at >> s1) ^ (at >> s2)) & 0x70u) : at;
}

template <int PieceBytes, bool Swizzled>
__device__ __forceinline__ std::uint32_t flat_lds(unsigned staged_base, unsigned at, int s1, int s2) {
  return lds_piece<PieceBytes>(staged_base + flat_slot<Swizzled>(at, s1, s2));
}

/// A PieceBytes-wide load from global memory (the address is PieceBytes-aligned).
template <int PieceBytes>
__device__ __forceinline__ std::uint32_t ldg_piece(std::uint64_t addr) {
  if constexpr (PieceBytes == 4) return __ldg(reinterpret_cast<const unsigned*>(addr));
  else if constexpr (PieceBytes == 2) return __ldg(reinterpret_cast<const unsigned short*>(addr));
  else return __ldg(reinterpret_cast<const unsigned char*>(addr));
}

/// Units of U bytes a 16-byte chunk of PieceBytes pieces can touch (its first piece at any phase of a unit).
template <int PieceBytes, int UnitBytes>
__device__ constexpr unsigned flat_chunk_units() {
  constexpr int per_unit = UnitBytes > 0 ? UnitBytes / PieceBytes : 1;
  return static_cast<unsigned>((per_unit - 1 + 16 / PieceBytes + per_unit - 1) / per_unit);
}

/// batched_flat's gather of one whole output chunk whose first piece is piece `ph` of its unit: piece tp lies in
/// unit (ph + tp) / P at piece (ph + tp) % P, that unit at base + unit * CU, plus `delta` for units past the
/// output row's end (`left` units in). The pieces' offsets are independent of each other (no walk from piece
/// to piece), and every lane runs the same instructions whatever its phase: a switch over compile-time phases
/// diverged three ways in each warp for RGB units (rgb8 6355 x 110 x 64: 0.36 -> 0.25 of memcpy).
template <int PieceBytes, int UnitBytes, bool Swizzled>
__device__ __forceinline__ void flat_gather_chunk(unsigned staged_base, int s1, int s2, unsigned ph, unsigned base,
                                                  unsigned CU, unsigned left, unsigned delta, std::uint32_t (&w)[4]) {
  constexpr unsigned P = UnitBytes / PieceBytes;
  constexpr int pieces = 16 / PieceBytes;
#pragma unroll
  for (int tp = 0; tp < pieces; ++tp) {
    const unsigned idx = ph + static_cast<unsigned>(tp);
    const unsigned u = idx / P, within = idx - u * P;
    const unsigned at = base + u * CU + within * PieceBytes + (u >= left ? delta : 0u);
    w[tp * PieceBytes / 4] |= flat_lds<PieceBytes, Swizzled>(staged_base, at, s1, s2) << (8 * ((tp * PieceBytes) % 4));
  }
}

template <int PieceBytes, int UnitBytes, bool Swizzled>
__global__ void __launch_bounds__(batched_flat_threads) transpose2d_batched_flat_kernel(const transpose2d_params p) {
  constexpr int pieces = 16 / PieceBytes;
  extern __shared__ uint4 flat_staged[];  // sized by the dispatcher: M matrices + chunk overhang (batched_flat_smem)
  const auto staged_base = static_cast<unsigned>(__cvta_generic_to_shared(flat_staged));

  const unsigned U = UnitBytes > 0 ? unsigned{UnitBytes} : static_cast<unsigned>(p.unit_bytes);
  const unsigned R = static_cast<unsigned>(p.rows), C = static_cast<unsigned>(p.cols);
  const std::uint64_t S = p.matrix_bytes_div.divisor;  // bytes of one matrix (same on both sides)
  const std::uint64_t in_base = reinterpret_cast<std::uint64_t>(p.in), out_base = reinterpret_cast<std::uint64_t>(p.out);
  const std::uint64_t total = static_cast<std::uint64_t>(p.batch.extent[0].divisor) * S;  // bytes of the batch
  const std::uint64_t in_end = in_base + total;
  const int s1 = p.flat_swz_s1, s2 = p.flat_swz_s2;

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    // The tile's matrices are bytes [first, last) on both sides. Its output window [w0, w1) is that range with
    // both ends moved up to the output's 16-byte grid, so consecutive tiles partition the output in aligned
    // chunks; the window's last chunk may reach up to 15 bytes into the next tile's first matrix.
    const std::uint64_t first = static_cast<std::uint64_t>(t) * p.matrices_per_tile * S;
    const std::uint64_t last = std::min(total, first + p.matrices_per_tile * S);
    auto boundary = [&](std::uint64_t x) {  // relative byte -> relative byte on the output's 16-byte grid
      if (x == 0 || x >= total) return std::min(x, total);
      return std::min(total, ((out_base + x + 15) & ~std::uint64_t{15}) - out_base);
    };
    const std::uint64_t w0 = boundary(first), w1 = boundary(last);
    // Stage exactly the tile's own matrices, as the aligned 16-byte chunks covering them, all loads in flight
    // at once (cp.async; bytewise only at the batch's ends). A one-by-one load-and-store loop kept one chunk a
    // thread in flight, and staging the next matrix too for the window's last few bytes doubled the reads.
    const std::uint64_t a = in_base + first;
    const std::uint64_t a_aligned = a & ~std::uint64_t{15};
    const unsigned chunks = static_cast<unsigned>((in_base + last - a_aligned + 15) / 16);

    __syncthreads();  // the previous tile's gathers are done with `staged`
    for (unsigned q = threadIdx.x; q < chunks; q += batched_flat_threads)
      stage_chunk16(a_aligned + 16 * std::uint64_t{q}, staged_base + flat_slot<Swizzled>(16 * q, s1, s2), in_base,
                    in_end, in_base, in_end);
    cp_async_wait_all();
    __syncthreads();

    const std::uint64_t o_aligned = (out_base + w0) & ~std::uint64_t{15};
    const unsigned out_chunks = static_cast<unsigned>((out_base + w1 - o_aligned + 15) / 16);
    // 32-bit walk. The staged bytes start with matrix first / S at offset stage0; output byte x (relative to
    // that matrix's output address) is byte k of unit rr (input row) of output row cc (input column) of
    // staged matrix mm. Offsets stay below 2 * batched_flat_max_smem_words, so div32's / div40's splits are
    // exact (see the dispatcher); for one matrix a tile mm is 0.
    const unsigned S32 = static_cast<unsigned>(S), RU = R * U, CU = C * U;
    const unsigned stage0 = static_cast<unsigned>(a - a_aligned);
    const std::uint64_t win0 = out_base + first, own_end = out_base + last;
    // Output byte x (relative to win0) -> its staged matrix mm, output row cc, unit rr of that row, byte k of
    // the unit. 32-bit splits (x < (M + 1) S + 16): 64-bit divisions in the window's last chunk made its thread
    // a straggler that cost every tile of small matrices more than its gathers (u8 21571 x 17 x 183: 0.85 ->
    // 0.76). For one matrix a tile mm is 0 but in that chunk's bytes past the matrix.
    struct flat_pos {
      unsigned mm, cc, rr, k;
    };
    auto split = [&](unsigned x) {
      flat_pos f;
      f.mm = p.matrices_per_tile == 1 && x < S32 ? 0u : p.flat_matrix_div.div(x);
      const unsigned y = x - f.mm * S32;
      f.cc = p.flat_row_div.div(y);
      const unsigned rem = y - f.cc * RU;
      f.rr = UnitBytes > 0 ? rem / U : p.flat_unit_div.div(rem);
      f.k = rem - f.rr * U;
      return f;
    };
    auto staged_offset = [&](const flat_pos& f) { return f.mm * S32 + f.rr * CU + f.cc * U + f.k; };
    for (unsigned q = threadIdx.x; q < out_chunks; q += batched_flat_threads) {
      const std::uint64_t chunk = o_aligned + 16 * std::uint64_t{q};
      const std::uint64_t lo = std::max(chunk, out_base + w0), hi = std::min(chunk + 16, out_base + w1);
      if (lo >= hi) continue;
      const int t_lo = static_cast<int>(lo - chunk) / PieceBytes, t_hi = static_cast<int>(hi - chunk) / PieceBytes;
      if (hi > own_end) {
        // The window's last chunk, reaching into the next tile's first matrix: piece by piece, from the stage
        // while in this tile's matrices, else straight from global memory (once a tile, <= 15 bytes).
        const unsigned staged_bytes = static_cast<unsigned>(last - first);
        std::uint32_t w[4] = {0, 0, 0, 0};
        for (int tp = t_lo; tp < t_hi; ++tp) {
          const unsigned src = staged_offset(split(static_cast<unsigned>(chunk + tp * PieceBytes - win0)));
          const std::uint32_t v = src < staged_bytes ? flat_lds<PieceBytes, Swizzled>(staged_base, stage0 + src, s1, s2)
                                                     : ldg_piece<PieceBytes>(in_base + first + src);
          w[tp * PieceBytes / 4] |= v << (8 * ((tp * PieceBytes) % 4));
        }
        store_chunk<PieceBytes>(chunk, t_lo, t_hi, w);
        continue;
      }
      const flat_pos f = split(static_cast<unsigned>(lo - win0));
      const unsigned rr = f.rr;
      unsigned cc = f.cc, k = f.k;
      // Staged offset of the current piece, units left in the current output row.
      unsigned off = stage0 + staged_offset(f);
      unsigned left = R - rr;
      std::uint32_t w[4] = {0, 0, 0, 0};
      // Next piece: the next byte of the unit, else the same column of the next input row, else (output row
      // done) row 0 of the next column, else the next matrix. Branch-free but for the rare matrix carry.
      auto advance = [&] {
        k += PieceBytes;
        const bool unit_done = UnitBytes == PieceBytes || k == U;
        if (UnitBytes != PieceBytes && !unit_done) {
          off += PieceBytes;
          return;
        }
        k = 0;
        off += CU - U + PieceBytes;  // (PieceBytes == U when the unit is one piece)
        if (--left == 0) {
          left = R;
          off += U - R * CU;
          if (++cc == C) {
            cc = 0;
            off += S32 - CU;
          }
        }
      };
      if (UnitBytes > 0 && t_lo == 0 && t_hi == pieces && R >= flat_chunk_units<PieceBytes, UnitBytes>()) {
        // A whole chunk of a compile-time unit size, in output rows of at least as many units as a chunk
        // touches: it crosses at most one row end, after `left` units; the rest start at row 0 of the next
        // column (or of the next matrix), `delta` further on. Every piece's offset then follows from the
        // chunk's phase within its unit (0 for one-piece units) without walking from piece to piece.
        const unsigned base = off - k;  // byte 0 of the chunk's first unit
        const unsigned next = base - rr * CU + U + (cc + 1 == C ? S32 - CU : 0u);
        const unsigned delta = next - base - left * CU;
        flat_gather_chunk<PieceBytes, UnitBytes, Swizzled>(staged_base, s1, s2, k / PieceBytes, base, CU, left, delta,
                                                           w);
      } else if (t_lo == 0 && t_hi == pieces) {
#pragma unroll
        for (int tp = 0; tp < pieces; ++tp) {
          w[tp * PieceBytes / 4] |= flat_lds<PieceBytes, Swizzled>(staged_base, off, s1, s2)
                                    << (8 * ((tp * PieceBytes) % 4));
          advance();
        }
      } else {
#pragma unroll
        for (int tp = 0; tp < pieces; ++tp) {
          if (tp < t_lo || tp >= t_hi) continue;
          w[tp * PieceBytes / 4] |= flat_lds<PieceBytes, Swizzled>(staged_base, off, s1, s2)
                                    << (8 * ((tp * PieceBytes) % 4));
          advance();
        }
      }
      store_chunk<PieceBytes>(chunk, t_lo, t_hi, w);
    }
  }
}


// ---- skinny -----------------------------------------------------------------------------------------------

inline constexpr int skinny_threads = 256;
inline constexpr int skinny_tile_bytes = 16384;  // data bytes per tile, before halos
inline constexpr int skinny_loads = 4;            // staging loads a thread issues before their shared-memory stores

template <int PieceBytes, int UnitBytes, bool AosToSoa>
__global__ void __launch_bounds__(skinny_threads) transpose2d_skinny_kernel(const transpose2d_params p) {
  constexpr int pieces = 16 / PieceBytes;
  extern __shared__ std::uint32_t skinny_staged[];
  const auto staged_base = static_cast<unsigned>(__cvta_generic_to_shared(skinny_staged));
  const unsigned U = UnitBytes > 0 ? unsigned{UnitBytes} : static_cast<unsigned>(p.unit_bytes);
  const std::int64_t span = p.skinny_span;

  for (std::int64_t t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
    const skinny_tile st(p, t);
    const std::uint64_t in_b = st.in_b, out_b = st.out_b;
    const std::int64_t n0 = static_cast<std::int64_t>(st.tile) * span;  // first unit along n
    __syncthreads();  // the previous tile's gathers are done with the staging buffer

    if constexpr (AosToSoa) {
      // Input: rows r of k = cols units, contiguous (in_ld = k U). Output: k rows of `rows` units.
      const std::int64_t R = p.rows, k_units = p.cols;
      const std::uint64_t row_bytes = static_cast<std::uint64_t>(k_units) * U;
      const std::int64_t rows_here = std::min<std::int64_t>(span, R - n0);
      // Stage rows [n0, n0 + rows_here + halo) as one byte range (halo: windows shift by < 16 bytes).
      const std::int64_t staged_rows = std::min<std::int64_t>(rows_here + p.halo_rows, R - n0);
      const std::uint64_t a = in_b + n0 * row_bytes;
      const std::uint64_t a0 = a & ~std::uint64_t{15};
      const unsigned chunks = static_cast<unsigned>((a + staged_rows * row_bytes - a0 + 15) / 16);
      for (unsigned q0 = threadIdx.x; q0 < chunks; q0 += skinny_loads * skinny_threads) {
        uint4 v[skinny_loads];  // all issued before the shared-memory stores
#pragma unroll
        for (int s = 0; s < skinny_loads; ++s) {
          const unsigned q = q0 + s * skinny_threads;
          if (q < chunks) v[s] = load_chunk(a0 + 16 * std::uint64_t{q}, p.in_lo, p.in_hi);
        }
#pragma unroll
        for (int s = 0; s < skinny_loads; ++s) {
          const unsigned q = q0 + s * skinny_threads;
          if (q >= chunks) continue;
          skinny_staged[4 * q + 0] = v[s].x, skinny_staged[4 * q + 1] = v[s].y;
          skinny_staged[4 * q + 2] = v[s].z, skinny_staged[4 * q + 3] = v[s].w;
        }
      }
      __syncthreads();
      const unsigned mis = static_cast<unsigned>(a - a0);
      const auto out_chunks = static_cast<unsigned>(p.skinny_chunks);  // per output row window
      // Consecutive lanes take consecutive output rows c (then chunks q): they gather neighbouring words of
      // the same staged rows. Chunk-major lanes would stride 16 / U rows apart, into one bank when the row
      // size is a multiple of 32 bytes (n x 8 fp32, n x 16 fp32, ...).
      for (unsigned x = threadIdx.x; x < k_units * out_chunks; x += skinny_threads) {
        std::uint64_t c64 = 0;
        const std::uint64_t q = p.skinny_div.divmod(x, c64);
        const auto c = static_cast<unsigned>(c64);
        const std::uint64_t o = out_b + c * p.out_ld;  // output row c, unit 0
        const std::uint64_t row_end = o + static_cast<std::uint64_t>(R) * U;
        const std::uint64_t b0 = n0 == 0 ? o : std::min(row_end, (o + n0 * U + 15) & ~std::uint64_t{15});
        const std::uint64_t b1 = n0 + span >= R ? row_end : std::min(row_end, (o + (n0 + span) * U + 15) & ~std::uint64_t{15});
        const std::uint64_t chunk = (b0 & ~std::uint64_t{15}) + 16 * q;
        const std::uint64_t lo = std::max(chunk, b0), hi = std::min(chunk + 16, b1);
        if (lo >= hi) continue;
        const unsigned d = static_cast<unsigned>(lo - o - static_cast<std::uint64_t>(n0) * U);
        unsigned r = d / U, kb = d - r * U;
        unsigned addr = mis + r * static_cast<unsigned>(row_bytes) + c * U + kb;
        const int t_lo = static_cast<int>(lo - chunk) / PieceBytes, t_hi = static_cast<int>(hi - chunk) / PieceBytes;
        std::uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
        for (int tp = 0; tp < pieces; ++tp) {
          if (tp < t_lo || tp >= t_hi) continue;
          w[tp * PieceBytes / 4] |= lds_piece<PieceBytes>(staged_base + addr) << (8 * ((tp * PieceBytes) % 4));
          kb += PieceBytes;
          addr += PieceBytes;
          if (kb == U) {  // next unit: the next (contiguous) input row
            kb = 0;
            addr += static_cast<unsigned>(row_bytes) - U;
          }
        }
        store_chunk<PieceBytes>(chunk, t_lo, t_hi, w);
      }
    } else {
      // Input: k = rows long rows of `cols` units. Output: rows c of k units, contiguous (out_ld = k U).
      const std::int64_t k_units = p.rows, C = p.cols;
      const std::uint64_t out_row_bytes = static_cast<std::uint64_t>(k_units) * U;
      const std::int64_t cols_here = std::min<std::int64_t>(span, C - n0);
      const std::int64_t staged_cols = std::min<std::int64_t>(cols_here + p.halo_rows, C - n0);
      const unsigned per_row = static_cast<unsigned>(p.skinny_div.divisor);  // staged chunks per input row
      const unsigned pitch = 4 * per_row + 1;                                  // words, odd
      const std::uint64_t first = in_b + n0 * U;                               // input row 0, unit n0
      const unsigned items = static_cast<unsigned>(k_units) * per_row;
      for (unsigned x0 = threadIdx.x; x0 < items; x0 += skinny_loads * skinny_threads) {
        uint4 v[skinny_loads];  // all issued before the shared-memory stores
        unsigned at[skinny_loads];
#pragma unroll
        for (int s = 0; s < skinny_loads; ++s) {
          const unsigned x = x0 + s * skinny_threads;
          at[s] = ~0u;
          if (x >= items) continue;
          std::uint64_t j = 0;
          const unsigned r = static_cast<unsigned>(p.skinny_div.divmod(x, j));
          const std::uint64_t a = first + r * p.in_ld;
          const std::uint64_t chunk = (a & ~std::uint64_t{15}) + 16 * j;
          if (chunk >= a + static_cast<std::uint64_t>(staged_cols) * U) continue;
          v[s] = load_chunk(chunk, p.in_lo, p.in_hi);
          at[s] = r * pitch + 4 * static_cast<unsigned>(j);
        }
#pragma unroll
        for (int s = 0; s < skinny_loads; ++s) {
          if (at[s] == ~0u) continue;
          std::uint32_t* dst = skinny_staged + at[s];
          dst[0] = v[s].x, dst[1] = v[s].y, dst[2] = v[s].z, dst[3] = v[s].w;
        }
      }
      __syncthreads();
      // Output window: output rows [n0, n0 + cols_here) are one byte range; split at the 16-byte grid.
      const std::uint64_t total = static_cast<std::uint64_t>(C) * out_row_bytes;
      auto boundary = [&](std::uint64_t rel) {
        if (rel == 0 || rel >= total) return std::min(rel, total);
        return std::min(total, ((out_b + rel + 15) & ~std::uint64_t{15}) - out_b);
      };
      const std::uint64_t w0 = boundary(n0 * out_row_bytes), w1 = boundary((n0 + cols_here) * out_row_bytes);
      const std::uint64_t o0 = (out_b + w0) & ~std::uint64_t{15};
      const unsigned out_chunks = static_cast<unsigned>((out_b + w1 - o0 + 15) / 16);
      const auto first_lo = static_cast<unsigned>(first);
      const auto in_ld_lo = static_cast<unsigned>(p.in_ld);
      for (unsigned q = threadIdx.x; q < out_chunks; q += skinny_threads) {
        const std::uint64_t chunk = o0 + 16 * std::uint64_t{q};
        const std::uint64_t lo = std::max(chunk, out_b + w0), hi = std::min(chunk + 16, out_b + w1);
        if (lo >= hi) continue;
        const unsigned rel = static_cast<unsigned>(lo - out_b - static_cast<std::uint64_t>(n0) * out_row_bytes);
        unsigned cc = rel / static_cast<unsigned>(out_row_bytes);          // output row within the tile
        unsigned rem = rel - cc * static_cast<unsigned>(out_row_bytes);
        unsigned r = rem / U, kb = rem - r * U;                           // input row, byte in unit
        auto addr_of = [&](unsigned rr, unsigned c, unsigned kk) {
          return rr * pitch * 4 + ((first_lo + rr * in_ld_lo) & 15) + c * U + kk;
        };
        unsigned addr = addr_of(r, cc, kb);
        const int t_lo = static_cast<int>(lo - chunk) / PieceBytes, t_hi = static_cast<int>(hi - chunk) / PieceBytes;
        std::uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
        for (int tp = 0; tp < pieces; ++tp) {
          if (tp < t_lo || tp >= t_hi) continue;
          w[tp * PieceBytes / 4] |= lds_piece<PieceBytes>(staged_base + addr) << (8 * ((tp * PieceBytes) % 4));
          kb += PieceBytes;
          addr += PieceBytes;
          if (kb == U) {  // next unit: next input row, or the first row of the next output row
            kb = 0;
            if (++r == static_cast<unsigned>(k_units)) {
              r = 0;
              ++cc;
            }
            addr = addr_of(r, cc, 0);
          }
        }
        store_chunk<PieceBytes>(chunk, t_lo, t_hi, w);
      }
    }
  }
}

}  // namespace xpose::detail
