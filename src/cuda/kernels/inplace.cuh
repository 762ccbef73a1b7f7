// In-place family (include/xpose/inplace.hpp; dispatch/inplace.cu; tuning/inplace.hpp).
//
// * square_vec16<UnitBytes>: square matrices of 1-, 4-, 8-, 16-byte units, 16-byte aligned rows. One block takes the
//   tile pair (I, J), (J, I) with J <= I: it loads both tiles into registers (transpose2d's vec16 micro-tiles),
//   stores them transposed into two shared tiles, and only after a barrier writes each over the other's place,
//   so no block ever overwrites data it has not read, and pairs are disjoint across blocks. Diagonal tiles are
//   transposed onto themselves. grid: 1-D over batch x pairs (grid-stride); block: policy threads.
// * square_vec8 / square_bulk8: the same pairs for 1-byte units in 128 x 128-byte tiles of 8 x 8-byte micro-tiles
//   (transpose2d's vec8), four blocks an SM: loaded into registers on 8-byte aligned rows (square_vec8), or each
//   tile staged by one tensor copy on 16-byte aligned rows (square_bulk8, sm_90; bulk.cuh's copies).
// * square_async<UnitBytes>: the same pairs (2-byte units on 16-byte aligned rows) staged by cp.async, each
//   tile's copies in flight while the block stores the previous one, two blocks an SM.
// * square_shift16<UnitBytes>: the same pairs for 1- and 2-byte units whose rows are not 16-byte aligned: aligned
//   16-byte loads realigned in registers (transpose2d's shift16), stores on the output's 16-byte grid, each
//   tile's rows written exactly (partial chunks at both ends).
// * square_permute<UnitBytes>: the same pairs for odd units of 3-15 bytes on 16-byte aligned rows (RGB8 in tiles
//   of 384-byte rows): chunks staged with cp.async, register byte permutes (pixel48's 48-byte pieces for RGB8,
//   4-unit pieces for the others), 16-byte stores.
// * square_units<UnitBytes>: the same pairs for 4- and 8-byte units on rows off the 16-byte grid but on their own:
//   a warp a row, words of two units on each row's own grid (as transpose2d's unit_pairs), padded shared tiles.
// * square_words<Word>: the same pairs for any unit (K words) and any alignment, through padded word tiles.
// * square_gather<G>: the same pairs for units that are not a vector's (3, 6, 12, ... bytes), 16-byte aligned
//   rows: chunks staged, transposed rows gathered in G-byte granules.
// * square_gather_any: square_gather for rows off the 16-byte grid (each row staged at its phase, bytes
//   gathered into the destination's aligned chunks).
// * shuffle_lines<Word, SingleWord>: one pass of the `shuffle` algorithm (plan/inplace_maps.hpp) over lines
//   that a block stages whole — a row of n units, or a strip of `strip` adjacent columns (m x strip units):
//   coalesced loads into the stage (shared memory, or the block's own workspace slot), a barrier, coalesced
//   stores back, the permutation applied on the stage side (scatter on the way in, or gather on the way out).
//   grid: 1-D over lines (grid-stride); block: 256-1024 threads.
// * shuffle_rows_gather<Word, SingleWord>: the row pass for rows too long for a block, or too few: the
//   dispatcher copies a wave of rows to the workspace, then every block gathers row words back from it.
// * square_* over a grid of squares and cycles_save / cycles: tile_cycles (see below); chunks and the same
//   cycles: skinny_cycles.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/index_math.hpp"
#include "cuda/kernels/bulk.cuh"
#include "cuda/kernels/pieces.cuh"
#include "cuda/kernels/pixel48.cuh"
#include "cuda/kernels/transpose2d.cuh"
#include "cuda/tuning/inplace.hpp"
#include "plan/inplace_maps.hpp"

namespace xpose::detail {

struct inplace_square_params {
  unsigned char* data;
  std::int64_t n;             // matrix side (units)
  std::int64_t ld;            // bytes between rows
  std::int64_t batch_stride;  // bytes between matrices
  // tile_cycles' tile pass: each matrix of the batch is a grid of A x B squares (1 x 1 for `square`).
  fast_divmod grid;           // by A B
  fast_divmod grid_b;         // by B
  std::int64_t grid_row_stride;  // bytes between square rows of the grid
  std::int64_t grid_col_stride;  // bytes between square columns
  std::int64_t tiles;         // tiles a side
  fast_divmod pairs;          // tile pairs a matrix: tiles (tiles + 1) / 2
  std::int64_t tasks;         // batch x A x B x pairs
  int unit_words;             // words: K (gather: granules)
  int tile;                   // words, gather: tile side (units)
  // gather: n / d = umulhi(n, magic) for n, d < 2^16 (magic_u16): d = the 16-byte chunks of a tile row, the unit
  unsigned chunk_magic;
  unsigned unit_magic;
  // square_shift16: the bytes [lo, hi) of all the squares (its aligned chunks may reach past both ends).
  std::uint64_t lo, hi;

  /// First byte of square `k` (batch-major, then grid rows, then grid columns).
  __device__ __forceinline__ unsigned char* square_base(std::uint64_t k) const {
    std::uint64_t r = 0, j = 0;
    const std::uint64_t b = grid.divmod(k, r);
    const std::uint64_t i = grid_b.divmod(r, j);
    return data + static_cast<std::int64_t>(b) * batch_stride + static_cast<std::int64_t>(i) * grid_row_stride +
           static_cast<std::int64_t>(j) * grid_col_stride;
  }
};

template <int UnitBytes>
using square_shape = vec16_shape<UnitBytes, inplace_square_policy<UnitBytes>>;

/// One tile pair of square_vec16 and square_gather: tile A (rows I T.., cols J T..) and its mirror B.
struct square_pair {
  unsigned char* a_ptr;
  unsigned char* b_ptr;
  std::int64_t a_rows, a_cols;  // B has them swapped
  bool full, diagonal;
};

/// Pair `t` of the batch's tile pairs, tiles of T units a side (square_vec16: compile-time; square_gather: not).
__device__ __forceinline__ square_pair square_pair_of(const inplace_square_params& p, std::int64_t t, int T,
                                                      int unit_bytes) {
  std::uint64_t pr = 0;
  const std::uint64_t b = p.pairs.divmod(static_cast<std::uint64_t>(t), pr);
  std::int64_t I = 0, J = 0;
  triangle_pair(pr, I, J);
  unsigned char* base = p.square_base(b);
  square_pair q;
  q.a_ptr = base + I * T * p.ld + J * T * unit_bytes;
  q.b_ptr = base + J * T * p.ld + I * T * unit_bytes;
  q.a_rows = p.n - I * T, q.a_cols = p.n - J * T;
  q.full = q.a_rows >= T && q.a_cols >= T;  // for both tiles of the pair
  q.diagonal = I == J;
  return q;
}

/// The pair loop of square_vec16 and square_shift16 over the block's pairs t = blockIdx.x, + gridDim.x, ...:
/// `load_pair(q)` fills va (tile A) and vb (B, unless diagonal) with the pair's micro-tiles, which go
/// transposed through the two shared tiles; `store_pair(q)` writes them back over each other. Software
/// pipeline (Prefetch): the next pair's loads are issued before this pair's stores. Safe: pairs are disjoint,
/// and a block's next pair is its own, so nothing reads what another's stores overwrite. Without it the loads
/// start each iteration (the registers are not live across it).
template <int UnitBytes, class S, bool Prefetch, class Load, class Store>
__device__ __forceinline__ void square_pairs(const inplace_square_params& p, int T, std::uint32_t (&va)[S::P][S::V][4],
                                             std::uint32_t (&vb)[S::P][S::V][4], uint4* const (&tiles)[2],
                                             const Load& load_pair, const Store& store_pair) {
  std::int64_t t = blockIdx.x;
  if (t >= p.tasks) return;
  square_pair q = square_pair_of(p, t, T, UnitBytes);
  if constexpr (Prefetch) load_pair(q);
  for (;;) {
    if constexpr (!Prefetch) load_pair(q);
    __syncthreads();  // the previous pair's shared reads are done
    store_micro_tiles<UnitBytes, S>(va, tiles[0]);
    if (!q.diagonal) store_micro_tiles<UnitBytes, S>(vb, tiles[1]);
    __syncthreads();
    const square_pair cur = q;
    const std::int64_t next = t + gridDim.x;
    if (next < p.tasks) {
      q = square_pair_of(p, next, T, UnitBytes);
      if constexpr (Prefetch) load_pair(q);
    }
    store_pair(cur);
    if (next >= p.tasks) break;
    t = next;
  }
}

template <int UnitBytes>
__global__ void __launch_bounds__(square_shape<UnitBytes>::threads)
    inplace_square_vec16_kernel(const inplace_square_params p) {
  using S = square_shape<UnitBytes>;
  static_assert(S::tile_rows == S::tile_cols, "square tiles");
  constexpr int T = S::tile_rows;
  extern __shared__ uint4 smem_tiles[];  // two tiles of T x MR chunks (dynamic: 64 KiB for fp16 pairs)
  uint4* const tiles[2] = {smem_tiles, smem_tiles + T * S::MR};
  std::uint32_t va[S::P][S::V][4], vb[S::P][S::V][4];
  auto load_pair = [&](const square_pair& q) {
    const std::int64_t ld = p.ld;
    load_micro_tiles<UnitBytes, S, true>([&](int r) { return q.a_ptr + r * ld; }, q.full, q.a_rows, q.a_cols, va);
    if (!q.diagonal)
      load_micro_tiles<UnitBytes, S, true>([&](int r) { return q.b_ptr + r * ld; }, q.full, q.a_cols, q.a_rows, vb);
  };
  square_pairs<UnitBytes, S, inplace_square_policy<UnitBytes>::prefetch>(p, T, va, vb, tiles, load_pair,
                                                                         [&](const square_pair& cur) {
    const std::int64_t ld = p.ld;
    store_tile_rows<UnitBytes, S>(tiles[0], [&](int r) { return cur.b_ptr + r * ld; }, cur.full, cur.a_rows,
                                  cur.a_cols);  // A^T over B
    if (!cur.diagonal)
      store_tile_rows<UnitBytes, S>(tiles[1], [&](int r) { return cur.a_ptr + r * ld; }, cur.full, cur.a_cols,
                                    cur.a_rows);
  });
}

/// square_vec8 / square_bulk8's geometry: T x T-byte tiles (T = 8 MR) of 8 x 8-byte micro-tiles (transpose2d's
/// vec8: 8 rows of one 8-byte chunk), MR x MR threads, one micro-tile of each tile of a pair a thread.
template <class Policy = inplace_square_vec8_policy>
struct square_vec8_shape {
  static constexpr int V = 8, MR = Policy::mr, T = V * MR, threads = MR * MR;
  static_assert(MR == 16, "swizzle8's 16-chunk key; a half-warp reads one staged row");
};

/// A shared tile in output orientation (T rows of MR 8-byte chunks) to the rows at `dst` (`ld` bytes apart), of
/// which rows x cols bytes lie inside the matrix: lane q stores chunk q of rows c_0, c_0 + MR, ... (a half-warp
/// writes 128 contiguous bytes); edge pairs check each chunk and store a last partial one byte by byte.
template <int MR>
__device__ __forceinline__ void store_square_tile8(const uint2* tile, unsigned char* dst, std::int64_t ld,
                                                   std::int64_t rows, std::int64_t cols, bool full) {
  const unsigned q = threadIdx.x % MR, c_0 = threadIdx.x / MR;
  const std::int64_t n = cols - 8 * static_cast<std::int64_t>(q);  // bytes of chunk q inside the matrix
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const unsigned c = c_0 + j * MR;
    const uint2 x = tile[swizzle8<8, MR>(static_cast<int>(c), static_cast<int>(q))];
    unsigned char* o = dst + static_cast<std::int64_t>(c) * ld + 8 * q;
    if (full || (c < rows && n >= 8)) {
      *reinterpret_cast<uint2*>(o) = x;
    } else if (c < rows && n > 0) {
      const std::uint32_t u[4] = {x.x, x.y, 0, 0};
      store_units<1>(o, static_cast<int>(n), u);
    }
  }
}

/// square_vec8: square_vec16's pairs for 1-byte units on 8-byte aligned rows, in square_vec8_shape's tiles: a
/// thread holds 2 x 64 bytes of a pair (~60 registers), so four blocks share an SM and one block's loads overlap
/// another's stores (square_vec16's 256 x 256-byte pairs run one block an SM at ~250 registers). Safe in place as
/// square_vec16: a block writes a pair only after all of its threads loaded both tiles into registers, and pairs
/// are disjoint. grid: 1-D over pairs (grid-stride).
template <class Policy = inplace_square_vec8_policy>
__global__ void __launch_bounds__(square_vec8_shape<Policy>::threads, Policy::min_blocks)
    inplace_square_vec8_kernel(const inplace_square_params p) {
  using S = square_vec8_shape<Policy>;
  constexpr int V = S::V, MR = S::MR, T = S::T;
  __shared__ uint2 tiles[2][T * MR];
  const unsigned mi = threadIdx.x / MR, mj = threadIdx.x % MR;  // this thread's micro-tile: rows mi V.., chunk mj
  // The micro-tile of the tile at `src` (rows x cols bytes of it inside the matrix; the rest reads as 0).
  auto load = [&](const unsigned char* src, std::int64_t rows, std::int64_t cols, bool full, std::uint32_t (&v)[V][2]) {
    const std::int64_t n = cols - 8 * static_cast<std::int64_t>(mj);  // bytes of this chunk inside the matrix
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const std::int64_t row = mi * V + i;
      const unsigned char* a = src + row * p.ld + 8 * mj;
      v[i][0] = v[i][1] = 0;
      if (full || (row < rows && n >= 8)) {
        const uint2 x = __ldg(reinterpret_cast<const uint2*>(a));
        v[i][0] = x.x, v[i][1] = x.y;
      } else if (row < rows && n > 0) {
        std::uint32_t u[4] = {0, 0, 0, 0};
        load_units<1>(a, static_cast<int>(n), u);
        v[i][0] = u[0], v[i][1] = u[1];
      }
    }
  };
  for (std::int64_t t = blockIdx.x; t < p.tasks; t += gridDim.x) {
    const square_pair sp = square_pair_of(p, t, T, 1);
    std::uint32_t va[V][2], vb[V][2];
    load(sp.a_ptr, sp.a_rows, sp.a_cols, sp.full, va);
    if (!sp.diagonal) load(sp.b_ptr, sp.a_cols, sp.a_rows, sp.full, vb);
    __syncthreads();  // the previous pair's shared reads are done
    write_micro_tile8<1, MR>(va, tiles[0], mi, mj);
    if (!sp.diagonal) write_micro_tile8<1, MR>(vb, tiles[1], mi, mj);
    __syncthreads();
    store_square_tile8<MR>(tiles[0], sp.b_ptr, p.ld, sp.a_cols, sp.a_rows, sp.full);  // A^T over B (A on the diagonal)
    if (!sp.diagonal) store_square_tile8<MR>(tiles[1], sp.a_ptr, p.ld, sp.a_rows, sp.a_cols, sp.full);
  }
}

/// square_bulk8: square_vec8's pairs and tiles on squares whose rows the copy engine can stage (16-byte aligned
/// rows, sm_90): each tile of a pair is one tensor copy into its half of the stage (zeros past the matrix, nothing
/// read there), completed on its own mbarrier, so a block holds no registers for its loads in flight. Per pair:
/// wait, micro-tiles from the staged rows into registers (bulk8's read_stage: conflict-free), a barrier, each
/// transposed over the stage in output orientation (swizzle8), a barrier, A^T stored over B and B^T over A (8-byte
/// stores, checked on edge pairs). Safe in place: a block stores a pair only after both of its tiles were staged,
/// and pairs are disjoint. `map`: the squares as a 3-D byte tensor (columns, rows, batch), box T x T x 1
/// (dispatch/inplace.cu). grid: 1-D over pairs (grid-stride).
template <class Policy = inplace_square_vec8_policy>
__global__ void __launch_bounds__(square_vec8_shape<Policy>::threads, Policy::min_blocks)
    inplace_square_bulk8_kernel(const __grid_constant__ CUtensorMap map, const inplace_square_params p) {
  using S = square_vec8_shape<Policy>;
  constexpr int V = S::V, MR = S::MR, T = S::T, tile_bytes = T * T;
  static_assert(T == 128, "a half-warp reads one staged row (read_stage)");
  __shared__ alignas(128) unsigned char stage[2 * tile_bytes];  // A, B; then A^T, B^T
  __shared__ std::uint64_t bar[2];
  uint2* const tiles[2] = {reinterpret_cast<uint2*>(stage), reinterpret_cast<uint2*>(stage + tile_bytes)};
  const unsigned mi = threadIdx.x / MR, mj = threadIdx.x % MR;  // this thread's micro-tile
  unsigned phase[2] = {0, 0};
  if (threadIdx.x == 0) {
    bulk_ptx::barrier_init(&bar[0]);
    bulk_ptx::barrier_init(&bar[1]);
  }
  __syncthreads();
  for (std::int64_t t = blockIdx.x; t < p.tasks; t += gridDim.x) {
    std::uint64_t pr = 0;
    const std::uint64_t b = p.pairs.divmod(static_cast<std::uint64_t>(t), pr);
    std::int64_t I = 0, J = 0;
    triangle_pair(pr, I, J);
    const square_pair sp = square_pair_of(p, t, T, 1);
    if (threadIdx.x == 0) {
      bulk_ptx::load_box(stage, &map, static_cast<int>(J * T), static_cast<int>(I * T), static_cast<int>(b), &bar[0],
                         tile_bytes);
      if (!sp.diagonal)
        bulk_ptx::load_box(stage + tile_bytes, &map, static_cast<int>(I * T), static_cast<int>(J * T),
                           static_cast<int>(b), &bar[1], tile_bytes);
    }
    std::uint32_t va[1][V][2], vb[1][V][2];
    bulk_ptx::wait(&bar[0], phase[0]);
    phase[0] ^= 1;
    read_stage<2, V, MR, 1, S::threads>(stage, T, va);
    if (!sp.diagonal) {
      bulk_ptx::wait(&bar[1], phase[1]);
      phase[1] ^= 1;
      read_stage<2, V, MR, 1, S::threads>(stage + tile_bytes, T, vb);
    }
    __syncthreads();  // every thread has read its staged rows before any overwrites them
    write_micro_tile8<1, MR>(va[0], tiles[0], mi, mj);
    if (!sp.diagonal) write_micro_tile8<1, MR>(vb[0], tiles[1], mi, mj);
    __syncthreads();
    store_square_tile8<MR>(tiles[0], sp.b_ptr, p.ld, sp.a_cols, sp.a_rows, sp.full);  // A^T over B (A on the diagonal)
    if (!sp.diagonal) store_square_tile8<MR>(tiles[1], sp.a_ptr, p.ld, sp.a_rows, sp.a_cols, sp.full);
    bulk_ptx::fence_async_shared();  // this pair's shared accesses before the next pair's copies into the stage
    __syncthreads();
  }
}

/// square_async's geometry: T x T-unit tiles of RC 16-byte chunks a row (RC = 16: 256-byte rows), micro-tiles of
/// V rows x one chunk (RC x RC of them a tile), RC x RC threads: thread x takes micro-tile (x % RC, x / RC) of
/// each tile of its pairs.
template <int UnitBytes, class Policy = inplace_square_async_policy<UnitBytes>>
struct square_async_shape {
  static constexpr int RC = Policy::row_chunks;
  static constexpr int V = 16 / UnitBytes, T = 16 * RC / UnitBytes, threads = RC * RC;
  static constexpr int tile_chunks = T * RC;
  static constexpr int smem_bytes = 2 * tile_chunks * 16;  // a pair
};

/// square_async<UnitBytes> (2-byte units, 16-byte aligned rows; tuning/inplace.hpp says why not bytes): the
/// pairs of square_vec16 with both tiles staged raw by cp.async, A and B in separate commit groups, so that a
/// block's copies are in flight while it stores. Per pair t: wait for A, transpose this thread's micro-tile of A into registers, issue the
/// next pair's A into A's stage, wait for B, store A^T over B, transpose and store B over A, issue the next
/// pair's B. A block holds no registers for loads in flight (square_vec16's u8 pairs ran one block an SM at
/// ~250 registers with no overlap of a pair's loads and stores). Staged rows are vec16's swizzled rows (chunk q
/// of tile row r at `swizzle<V, RC>(r, q)`): the 8 lanes of a wavefront read 8 row groups mi of one chunk column
/// mj (distinct bank groups) and copy 8 consecutive chunks of one row (distinct again), and the RC lanes of
/// consecutive mi store RC x 16 contiguous bytes of one output row. Edge chunks (a tile cut mid-chunk) are
/// staged unit by unit, nothing read past the tile. Safe in place: a block
/// overwrites a tile only after its own copies of both tiles of the pair completed, and pairs are disjoint.
/// grid: 1-D over pairs (grid-stride), at most the resident blocks.
template <int UnitBytes, class Policy = inplace_square_async_policy<UnitBytes>>
__global__ void __launch_bounds__(square_async_shape<UnitBytes, Policy>::threads, Policy::min_blocks)
    inplace_square_async_kernel(const inplace_square_params p) {
  using S = square_async_shape<UnitBytes, Policy>;
  constexpr int U = UnitBytes, V = S::V, T = S::T, RC = S::RC, threads = S::threads;
  constexpr int per_thread = S::tile_chunks / threads;
  extern __shared__ uint4 smem_stage[];
  const auto base = static_cast<unsigned>(__cvta_generic_to_shared(smem_stage));
  auto slot = [](int tile, int r, int q) { return tile * S::tile_chunks + swizzle<V, RC>(r, q); };
  // Copies of tile `tile` (0: A, 1: B) of pair t; one commit group a call, empty past the last pair.
  auto issue = [&](int tile, std::int64_t t) {
    if (t < p.tasks) {
      const square_pair q = square_pair_of(p, t, T, U);
      if (tile == 0 || !q.diagonal) {
        const std::int64_t rows = tile == 0 ? q.a_rows : q.a_cols, cols = tile == 0 ? q.a_cols : q.a_rows;
        const unsigned char* const src0 = tile == 0 ? q.a_ptr : q.b_ptr;
#pragma unroll
        for (int k = 0; k < per_thread; ++k) {
          const int x = static_cast<int>(threadIdx.x) + k * threads, r = x / RC, c = x % RC;
          const unsigned char* src = src0 + r * p.ld + c * 16;
          const unsigned dst = base + 16u * static_cast<unsigned>(slot(tile, r, c));
          if (q.full) {
            cp_async_bytes<16>(dst, src);
          } else if (r < rows && c * V < cols) {
            const std::int64_t n = cols - c * V;  // units of the chunk inside the tile
            if (n >= V) {
              cp_async_bytes<16>(dst, src);
            } else {
              std::uint32_t w[4] = {0, 0, 0, 0};
              load_units<U>(src, static_cast<int>(n), w);
              sts128(dst, w);
            }
          }
        }
      }
    }
    cp_async_commit();
  };
  const int mi = static_cast<int>(threadIdx.x) % RC, mj = static_cast<int>(threadIdx.x) / RC;
  auto transposed = [&](int tile, std::uint32_t (&out)[V][4]) {
    std::uint32_t in[V][4];
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const uint4 x = smem_stage[slot(tile, mi * V + i, mj)];
      in[i][0] = x.x, in[i][1] = x.y, in[i][2] = x.z, in[i][3] = x.w;
    }
    transpose_micro<U>(in, out);
  };
  // This thread's transposed micro-tile to `dst` (rows dst_rows x units dst_cols): output rows mj V + k, units
  // mi V ...
  auto store = [&](unsigned char* dst, std::int64_t dst_rows, std::int64_t dst_cols, bool full,
                   const std::uint32_t (&out)[V][4]) {
    const std::int64_t n = dst_cols - mi * V;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int row = mj * V + k;
      unsigned char* const o = dst + row * p.ld + mi * 16;
      if (full || (row < dst_rows && n >= V)) {
        *reinterpret_cast<uint4*>(o) = make_uint4(out[k][0], out[k][1], out[k][2], out[k][3]);
      } else if (row < dst_rows && n > 0) {
        store_units<U>(o, static_cast<int>(n), out[k]);
      }
    }
  };

  std::int64_t t = blockIdx.x;
  issue(0, t);
  issue(1, t);
  for (; t < p.tasks; t += gridDim.x) {
    const std::int64_t next = t + gridDim.x;
    const square_pair q = square_pair_of(p, t, T, U);
    cp_async_wait_group<1>();  // A of pair t (its B may still be in flight)
    __syncthreads();
    std::uint32_t ra[V][4];
    transposed(0, ra);
    __syncthreads();  // every thread has read A's stage
    issue(0, next);
    cp_async_wait_group<1>();  // B of pair t (the next A may still be in flight)
    __syncthreads();
    store(q.b_ptr, q.a_cols, q.a_rows, q.full, ra);  // A^T over B (over A itself on the diagonal)
    if (!q.diagonal) {
      std::uint32_t rb[V][4];
      transposed(1, rb);
      store(q.a_ptr, q.a_rows, q.a_cols, q.full, rb);
    }
    __syncthreads();  // every thread has read B's stage
    issue(1, next);
  }
  cp_async_wait_all();
}

/// square_shift16 step 1: the micro-tile loads of one tile of T = S::shift_step_rows units a side whose rows
/// are not 16-byte aligned: the aligned chunks covering each row segment (lane mj of a row group: chunk mj
/// from the segment's first byte rounded down), all issued before any use, then realigned with the next
/// lane's chunk (shift16's load). Micro-tile row M - 1 and lane M - 1's realigned chunk lie past the tile: never
/// loaded / never stored. Chunks leaving [lo, hi) are read bytewise; a tile whose chunks all lie inside
/// (block-uniform) loads them with no test but the row's.
template <int UnitBytes, class S>
__device__ __forceinline__ void load_shift_micro_tiles(std::uint64_t tile, std::int64_t ld, int rows, int cols,
                                                       std::uint64_t lo, std::uint64_t hi,
                                                       std::uint32_t (&v)[S::P][S::V][4]) {
  constexpr int V = S::V, MC = S::MC;
  const unsigned bytes = static_cast<unsigned>(cols) * UnitBytes;
  const bool inside = (tile & ~std::uint64_t{15}) >= lo &&
                      ((tile + static_cast<std::uint64_t>(rows - 1) * ld) & ~std::uint64_t{15}) + 16 * MC <= hi;
#pragma unroll
  for (int m = 0; m < S::P; ++m) {
    const int micro = threadIdx.x + m * S::threads;
    const int mi = micro / MC, mj = micro % MC;
    const std::uint64_t a0 = tile + static_cast<std::uint64_t>(mi * V) * ld;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const int row = mi * V + i;
      const std::uint64_t a = a0 + static_cast<std::uint64_t>(i) * ld;
      const std::uint64_t chunk = (a & ~std::uint64_t{15}) + 16 * mj;
      uint4 x = make_uint4(0, 0, 0, 0);
      if (inside) {
        if (row < rows) x = __ldcg(reinterpret_cast<const uint4*>(chunk));
      } else if (row < rows && chunk < a + bytes) {
        x = load_chunk<16, true>(chunk, lo, hi);
      }
      v[m][i][0] = x.x, v[m][i][1] = x.y, v[m][i][2] = x.z, v[m][i][3] = x.w;
    }
  }
#pragma unroll
  for (int m = 0; m < S::P; ++m) {
    const int mi = (static_cast<int>(threadIdx.x) + m * S::threads) / MC;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const auto mis = static_cast<unsigned>(tile + static_cast<std::uint64_t>(mi * V + i) * ld) & 15;
      const std::uint32_t own[4] = {v[m][i][0], v[m][i][1], v[m][i][2], v[m][i][3]};
      realign_with_next_lane<MC>(own, mis, v[m][i]);
    }
  }
}

/// square_shift16 step 3: a shared tile in output orientation to the output rows at `tile` + c ld, each
/// owning exactly its units [0, rows) — unlike shift16, whose tiles split rows at the output's 16-byte grid,
/// a pair may not write bytes of another pair's tiles, which that pair may not have read yet. Two passes, so
/// that no warp diverges on the piecewise ends: every grid chunk the segment covers whole (lane q: grid chunk
/// q + (ph != 0) from tile chunks q, q + 1), then each row's partial first and last chunks, a thread each.
template <int UnitBytes, class S>
__device__ __forceinline__ void store_shift_rows(const uint4* t, std::uint64_t tile, std::int64_t ld, int rows,
                                                 int cols) {
  constexpr int V = S::V, MR = S::MR;
  const int span = rows * UnitBytes;
#pragma unroll
  for (int j = 0; j < V * S::P; ++j) {
    const int x = threadIdx.x + j * S::threads;
    const int c = x / MR, q = x % MR;
    std::uint32_t val[4], next[4];
    tile_chunk_and_next<V, MR>(t, c, q, val, next);
    if (c >= cols || q == MR - 1) continue;
    const std::uint64_t o = tile + static_cast<std::uint64_t>(c) * ld;
    const unsigned ph = static_cast<unsigned>(o) & 15;
    const int g = q + (ph != 0), first = 16 * g - static_cast<int>(ph);  // first: segment byte at chunk g
    if (first + 16 > span) continue;
    std::uint32_t w[4];
    realign(val, next, (16 - ph) & 15, w);
    *reinterpret_cast<uint4*>(o - ph + 16 * g) = make_uint4(w[0], w[1], w[2], w[3]);
  }
  // The ends, entry x = 2 c + e (e = 0: head, 1: tail). Tile chunk k holds segment bytes [16 k, 16 k + 16).
  for (int x = threadIdx.x; x < 2 * cols; x += S::threads) {
    const int c = x >> 1;
    const std::uint64_t o = tile + static_cast<std::uint64_t>(c) * ld;
    const int ph = static_cast<int>(o & 15), end = ph + span;  // the segment: grid bytes [ph, end)
    const int g = (x & 1) == 0 ? 0 : (end - 1) >> 4;
    // The head entry takes chunk 0 when the segment starts inside it; the tail entry the last chunk when the
    // segment ends inside it, unless that is the head's chunk 0.
    if ((x & 1) == 0 ? ph == 0 : ((end & 15) == 0 || (g == 0 && ph != 0))) continue;
    const int first = 16 * g - ph;  // segment byte at chunk g's start (>= -15)
    const int k = first < 0 ? 0 : first >> 4;   // tile chunk holding segment byte max(first, 0)
    const uint4 b4 = t[swizzle<V, MR>(c, k)];
    const std::uint32_t b[4] = {b4.x, b4.y, b4.z, b4.w};
    std::uint32_t w[4];
    if (first < 0) {  // chunk 0: bytes [ph, 16) = segment bytes [0, 16 - ph)
      const std::uint32_t z[4] = {0, 0, 0, 0};
      realign(z, b, static_cast<unsigned>(16 - ph), w);
    } else if (ph != 0) {  // segment bytes [first, first + 16) straddle tile chunks k and k + 1
      const uint4 n4 = t[swizzle<V, MR>(c, k + 1)];
      const std::uint32_t n[4] = {n4.x, n4.y, n4.z, n4.w};
      realign(b, n, static_cast<unsigned>(first & 15), w);
    } else {
      w[0] = b[0], w[1] = b[1], w[2] = b[2], w[3] = b[3];
    }
    const int lo_b = first < 0 ? -first : 0, hi_b = end - 16 * g < 16 ? end - 16 * g : 16;
    store_byte_range(o - static_cast<std::uint64_t>(ph) + 16 * g, static_cast<unsigned>(lo_b),
                     static_cast<unsigned>(hi_b), w);
  }
}

/// square_shift16<UnitBytes>: square_vec16's pairs for 1-16-byte units whose rows are not 16-byte aligned
/// (odd sides such as 8191^2, odd pitches, shifted bases): every global access an aligned 16-byte vector but
/// the two ends of each tile row. Tiles of T = V (M - 1) units a side (shift16's step: one micro-tile of the
/// M x M grid feeds the realignments), loaded realigned (load_shift_micro_tiles), transposed through the same
/// swizzled shared tiles, stored on the output's 16-byte grid within the tile's own units (store_shift_rows).
/// Dispatched for 1- and 2-byte units, which square_words moved a byte / a half at a time (see the policy).
template <int UnitBytes>
__global__ void __launch_bounds__(square_shape<UnitBytes>::threads, inplace_square_shift16_policy<UnitBytes>::min_blocks)
    inplace_square_shift16_kernel(const inplace_square_params p) {
  using S = square_shape<UnitBytes>;
  static_assert(S::MR == S::MC, "square tiles");
  constexpr int T = S::shift_step_rows;
  extern __shared__ uint4 smem_tiles[];  // two tiles of V M x M chunks
  uint4* const tiles[2] = {smem_tiles, smem_tiles + S::tile_cols * S::MR};
  std::uint32_t va[S::P][S::V][4], vb[S::P][S::V][4];
  auto extent = [](std::int64_t left) { return static_cast<int>(left < T ? left : T); };
  auto load_pair = [&](const square_pair& q) {
    const auto a = reinterpret_cast<std::uint64_t>(q.a_ptr), b = reinterpret_cast<std::uint64_t>(q.b_ptr);
    load_shift_micro_tiles<UnitBytes, S>(a, p.ld, extent(q.a_rows), extent(q.a_cols), p.lo, p.hi, va);
    if (!q.diagonal) load_shift_micro_tiles<UnitBytes, S>(b, p.ld, extent(q.a_cols), extent(q.a_rows), p.lo, p.hi, vb);
  };
  square_pairs<UnitBytes, S, inplace_square_shift16_policy<UnitBytes>::prefetch>(p, T, va, vb, tiles, load_pair,
                                                                                 [&](const square_pair& cur) {
    const auto a = reinterpret_cast<std::uint64_t>(cur.a_ptr), b = reinterpret_cast<std::uint64_t>(cur.b_ptr);
    store_shift_rows<UnitBytes, S>(tiles[0], b, p.ld, extent(cur.a_rows), extent(cur.a_cols));  // A^T over B
    if (!cur.diagonal) store_shift_rows<UnitBytes, S>(tiles[1], a, p.ld, extent(cur.a_cols), extent(cur.a_rows));
  });
}

/// square_units<UnitBytes, Policy> (4- and 8-byte units on rows off the 16-byte grid but on their own: fp32 / fp64
/// 8191^2): square_vec16's pairs through a padded shared tile each, a warp a tile row, lane j the j-th word of
/// UW = Policy::units_a_word units on the row's own word grid. On a row whose first h units precede a word
/// boundary (h = (UW - phase) % UW), lane j takes units h + UW j .. h + UW j + UW - 1, and those past the tile's
/// end (lane 31's last h) wrap to units 0 .. h - 1: the 32 lanes cover the row's T = 32 UW units, each once.
/// Whole words are one vector access, others unit by unit (edge tiles, the wrapped word). The same on the
/// store side, per output row. Loads and stores stay inside the pair's tiles, so a block reads nothing another
/// writes; all of a pair's loads are in registers before the stage is written. Dynamic shared memory:
/// square_units_smem. Policy: inplace_square_units_policy (tuning/inplace.hpp).
template <int UnitBytes, class Policy = inplace_square_units_policy<UnitBytes>>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    inplace_square_units_kernel(const inplace_square_params p) {
  using unit = typename word_type<UnitBytes>::type;
  constexpr int UW = Policy::units_a_word, T = 32 * UW, W = UW * UnitBytes;
  using word = typename word_type<W>::type;
  static_assert(UnitBytes <= 8 && (W == 4 || W == 8 || W == 16) && (UnitBytes < W || UW == 1), "a word of UW units");
  constexpr int rows_a_pass = Policy::threads / 32, passes = T / rows_a_pass, pitch = T + 1;
  static_assert(T % rows_a_pass == 0, "whole passes of a warp a row");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  unit* const tiles = reinterpret_cast<unit*>(smem_raw);  // [2][T][pitch]
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  // Units before the row's first word boundary.
  auto head_units = [](const unsigned char* row) {
    return UW == 1 ? 0 : (UW - static_cast<int>(reinterpret_cast<std::uintptr_t>(row) / UnitBytes % UW)) % UW;
  };
  // Unit u of this lane's word on a row with h head units: column h + UW lane + u, wrapped into [0, T).
  auto column = [&](int h, int u) {
    const int c = h + UW * lane + u;
    return c < T ? c : c - T;
  };

  struct pair_rows {
    square_pair q;
    int count, a_rows, a_cols;  // tiles, A's rows and columns in the tile (B: swapped)
  };
  auto pair_at = [&](std::int64_t t) {
    pair_rows r;
    r.q = square_pair_of(p, t, T, UnitBytes);
    r.count = r.q.diagonal ? 1 : 2;
    r.a_rows = static_cast<int>(r.q.a_rows < T ? r.q.a_rows : T);
    r.a_cols = static_cast<int>(r.q.a_cols < T ? r.q.a_cols : T);
    return r;
  };
  unit x[2][passes][UW];
  auto load_pair = [&](const pair_rows& pr) {
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const unsigned char* const src = s == 0 ? pr.q.a_ptr : pr.q.b_ptr;
      const int rows_here = s == 0 ? pr.a_rows : pr.a_cols, n = s == 0 ? pr.a_cols : pr.a_rows;
#pragma unroll
      for (int k = 0; k < passes; ++k) {
        const int r = warp + k * rows_a_pass;
        if (s >= pr.count || r >= rows_here) continue;
        const unsigned char* row = src + r * p.ld;
        const int h = head_units(row), c0 = h + UW * lane;
        if (c0 + UW <= n) {  // a whole word (never wrapped: n <= T)
          const word w = __ldcg(reinterpret_cast<const word*>(row + c0 * UnitBytes));
          memcpy(x[s][k], &w, W);
        } else {
#pragma unroll
          for (int u = 0; u < UW; ++u)
            if (const int c = column(h, u); c < n) x[s][k][u] = __ldcg(reinterpret_cast<const unit*>(row + c * UnitBytes));
        }
      }
    }
  };
  auto stage_pair = [&](const pair_rows& pr) {
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const unsigned char* const src = s == 0 ? pr.q.a_ptr : pr.q.b_ptr;
      const int rows_here = s == 0 ? pr.a_rows : pr.a_cols;
#pragma unroll
      for (int k = 0; k < passes; ++k) {
        const int r = warp + k * rows_a_pass;
        if (s >= pr.count || r >= rows_here) continue;
        const int h = head_units(src + r * p.ld);
#pragma unroll
        for (int u = 0; u < UW; ++u) tiles[(s * T + r) * pitch + column(h, u)] = x[s][k][u];
      }
    }
  };
  // Tile s goes transposed over the other tile's place: its output row c (input column c) holds units 0 ..
  // rows_here - 1 of the tile's column c.
  auto store_pair = [&](const pair_rows& pr) {
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      if (s >= pr.count) break;
      unsigned char* const dst = s == 0 && pr.count == 2 ? pr.q.b_ptr : pr.q.a_ptr;
      const int n = s == 0 ? pr.a_rows : pr.a_cols, out_rows = s == 0 ? pr.a_cols : pr.a_rows;
#pragma unroll
      for (int k = 0; k < passes; ++k) {
        const int c = warp + k * rows_a_pass;
        if (c >= out_rows) continue;
        unsigned char* const row = dst + c * p.ld;
        const int h = head_units(row), r0 = h + UW * lane;
        if (r0 + UW <= n) {
          unit v[UW];
#pragma unroll
          for (int u = 0; u < UW; ++u) v[u] = tiles[(s * T + r0 + u) * pitch + c];
          word w;
          memcpy(&w, v, W);
          *reinterpret_cast<word*>(row + r0 * UnitBytes) = w;
        } else {
#pragma unroll
          for (int u = 0; u < UW; ++u)
            if (const int r = column(h, u); r < n)
              *reinterpret_cast<unit*>(row + r * UnitBytes) = tiles[(s * T + r) * pitch + c];
        }
      }
    }
  };

  // The next pair is not loaded while this one is stored (square_pairs' Prefetch, free in registers here since
  // the stage holds the pair): H200, same call, fp32 12345^2 0.63 -> 0.47, 16383^2 0.66 -> 0.41; 8191^2 the same.
  for (std::int64_t t = blockIdx.x; t < p.tasks; t += gridDim.x) {
    const pair_rows pr = pair_at(t);
    load_pair(pr);
    if (t != blockIdx.x) __syncthreads();  // the previous pair's shared reads are done
    stage_pair(pr);
    __syncthreads();
    store_pair(pr);
  }
}

inline constexpr int square_words_threads = 256;
/// Tile side of square_words for single-word units (compile-time).
inline constexpr int square_words_single_tile = 64;

/// Dynamic shared memory: two tiles of `tile` rows x (tile K + 1) words. SingleWord (K == 1): compile-time
/// tile (square_words_single_tile), the word -> (row, column) splits are shifts, and every load of the pair
/// is issued before the stage is written.
template <class Word, bool SingleWord>
__global__ void __launch_bounds__(square_words_threads) inplace_square_words_kernel(const inplace_square_params p) {
  extern __shared__ unsigned char smem_raw[];
  Word* stage = reinterpret_cast<Word*>(smem_raw);
  const int T = SingleWord ? square_words_single_tile : p.tile, K = SingleWord ? 1 : p.unit_words, TK = T * K,
            pitch = TK + 1;
  for (std::int64_t t = blockIdx.x; t < p.tasks; t += gridDim.x) {
    std::uint64_t pr = 0;
    const std::uint64_t b = p.pairs.divmod(static_cast<std::uint64_t>(t), pr);
    std::int64_t I = 0, J = 0;
    triangle_pair(pr, I, J);
    unsigned char* base = p.square_base(b);
    const std::int64_t U = static_cast<std::int64_t>(K) * sizeof(Word);
    unsigned char* ptr[2] = {base + I * T * p.ld + J * T * U, base + J * T * p.ld + I * T * U};
    const std::int64_t rows_left[2] = {p.n - I * T, p.n - J * T};
    const int count = I != J ? 2 : 1;
    if constexpr (SingleWord) {
      // Every load of the pair into registers first (2 x 16 words a thread in flight), then the stage.
      constexpr int per_thread = square_words_single_tile * square_words_single_tile / square_words_threads;
      constexpr int row_step = square_words_threads / square_words_single_tile;
      const int r0 = threadIdx.x / square_words_single_tile, col = threadIdx.x % square_words_single_tile;
      Word v[2][per_thread];
#pragma unroll
      for (int s = 0; s < 2; ++s)
#pragma unroll
        for (int i = 0; i < per_thread; ++i) {
          const int r = r0 + i * row_step;
          if (s < count && r < rows_left[s] && col < rows_left[1 - s])
            v[s][i] = __ldcg(reinterpret_cast<const Word*>(ptr[s] + r * p.ld) + col);
        }
      __syncthreads();  // the previous pair's shared reads are done
#pragma unroll
      for (int s = 0; s < 2; ++s)
#pragma unroll
        for (int i = 0; i < per_thread; ++i) {
          const int r = r0 + i * row_step;
          if (s < count && r < rows_left[s] && col < rows_left[1 - s]) stage[s * T * pitch + r * pitch + col] = v[s][i];
        }
    } else {
      __syncthreads();  // the previous pair's shared reads are done
      for (int s = 0; s < count; ++s) {
        const std::int64_t rl = rows_left[s], cl = rows_left[1 - s];
#pragma unroll 4
        for (int x = threadIdx.x; x < T * TK; x += blockDim.x) {
          const int r = x / TK, rem = x - r * TK;
          if (r < rl && rem < cl * K)
            stage[s * T * pitch + r * pitch + rem] = reinterpret_cast<const Word*>(ptr[s] + r * p.ld)[rem];
        }
      }
    }
    __syncthreads();
    for (int s = 0; s < count; ++s) {
      // tile s (rl x cl units) goes transposed to the other tile's place (cl x rl).
      const std::int64_t rl = rows_left[s], cl = rows_left[1 - s];
      unsigned char* dst = ptr[count == 2 ? 1 - s : 0];
#pragma unroll 4
      for (int x = threadIdx.x; x < T * TK; x += blockDim.x) {
        const int c = x / TK, rem = x - c * TK, r = SingleWord ? rem : rem / K, k = rem - r * K;
        if (c < cl && r < rl) reinterpret_cast<Word*>(dst + c * p.ld)[rem] = stage[s * T * pitch + r * pitch + c * K + k];
      }
    }
  }
}

// square_gather's tiles, threads and shared memory: tuning/inplace.hpp (square_gather_tile and neighbours).

/// Packs granule j (of 16 / G) of a 16-byte chunk.
template <int G>
__device__ __forceinline__ void put_granule(uint4& v, int j, const unsigned char* src) {
  if constexpr (G == 16) {
    v = *reinterpret_cast<const uint4*>(src);
  } else if constexpr (G == 8) {
    const uint2 x = *reinterpret_cast<const uint2*>(src);
    (j == 0 ? v.x : v.z) = x.x;
    (j == 0 ? v.y : v.w) = x.y;
  } else if constexpr (G == 4) {
    (&v.x)[j] = *reinterpret_cast<const std::uint32_t*>(src);
  } else if constexpr (G == 2) {
    (&v.x)[j / 2] |= std::uint32_t{*reinterpret_cast<const std::uint16_t*>(src)} << (16 * (j % 2));
  } else {
    (&v.x)[j / 4] |= std::uint32_t{*src} << (8 * (j % 4));
  }
}

/// Magic of exact 32-bit division for dividends and divisors below 2^16: n / d == __umulhi(n, magic_u16(d)).
inline constexpr unsigned magic_u16(unsigned d) { return static_cast<unsigned>((std::uint64_t{1} << 32) / d + 1); }

/// square_permute's tiles: T units a side, rows of R = T U bytes (whole 16-byte chunks), staged at an odd number of
/// 16-byte slots a row (pixel48's pitch rule: the 16 micro-tile columns of two micro-tile rows a warp reads fall on
/// distinct banks). A micro-tile is 4 staged rows x C units (a piece of C U bytes a row): RGB8 in 48-byte pieces
/// (C = 16: 16-byte loads) and 64-byte groups of the output buffer's slots (pixel48_out_byte); other units in
/// pieces of 4 units (C = 4: U words at a 4-byte aligned offset; kernels/pieces.cuh's micro-tiles), output rows
/// at an odd number of slots too, in piece_row's order.
template <int UnitBytes>
struct square_permute_shape {
  static_assert(UnitBytes >= 3 && UnitBytes <= 15 && UnitBytes % 2 == 1, "odd units of 3-15 bytes");
  static constexpr int U = UnitBytes, C = U == 3 ? 48 / U : 4;  // C: units a micro-tile piece (its output rows)
  static constexpr int T = inplace_square_permute_policy::tile(U);
  static constexpr int R = T * U;
  static_assert(R % 16 == 0 && T % 4 == 0 && T % C == 0, "whole micro-tiles and 16-byte chunks");
  static_assert(U != 3 || R % 64 == 0, "RGB8: whole output slot groups");
  static constexpr int row_chunks = R / 16;
  static constexpr int in_pitch = piece_pitch(R);
  static constexpr int out_pitch = U == 3 ? R : in_pitch;
  static constexpr int micro_rows = T / 4, micro_cols = T / C;
  static constexpr int threads = inplace_square_permute_policy::threads;
  static_assert(out_pitch <= in_pitch && 2 * micro_rows * micro_cols <= threads,
                "output rows over the staged ones; a pair's micro-tiles one a thread");
  // Two buffers of a pair's two tiles: one pair staged while the other is permuted and stored.
  static constexpr int smem_bytes = 2 * 2 * T * in_pitch;
};

/// Byte offset in a tile's output buffer of byte `off` of output row c.
template <int U>
__device__ __forceinline__ unsigned square_permute_out_byte(unsigned c, unsigned off) {
  using S = square_permute_shape<U>;
  if constexpr (U == 3)
    return c * S::out_pitch + pixel48_out_byte<S::C>(c, off);
  else
    return piece_row<S::T>(c) * S::out_pitch + off;
}

/// square_permute<UnitBytes>: tile pairs (as square_vec16) of odd units of 3-15 bytes on 16-byte aligned rows, with
/// register permutes (`prmt`) instead of square_gather's shared-memory gathers one byte at a time; RGB8 in tiles of
/// 384-byte rows (192-byte rows held both kernels at ~0.75 of memcpy). Per pair, in one of two buffers:
///   1. both tiles' rows staged as aligned 16-byte chunks (cp.async, issued one pair ahead; the chunk at a tile
///      row's end, when the matrix side cuts it, bytewise within the tile);
///   2. each thread reads its micro-tile (4 rows x C units) into registers; after a barrier it permutes them into
///      output rows written over the same buffer (RGB8: 48-byte pieces, pixel48_map and pixel48_out_byte's slot
///      XOR; others: 4-unit pieces, piece_write and piece_row's order);
///   3. each output row stored as aligned 16-byte vectors over the mirror tile, its partial last chunk (side cut)
///      piecewise.
/// The next pair's loads go to the other buffer before step 2, so they are in flight while this pair is permuted
/// and stored (one buffer, loads issued after step 2: the memory idled through the permutes, one block an SM).
/// Safe in place: pairs are disjoint, and a block's next pair is its own. grid: 1-D over pairs (grid-stride).
template <int UnitBytes>
__global__ void __launch_bounds__(square_permute_shape<UnitBytes>::threads,
                                  inplace_square_permute_policy::min_blocks(UnitBytes))
    inplace_square_permute_kernel(const inplace_square_params p) {
  using S = square_permute_shape<UnitBytes>;
  constexpr int U = UnitBytes, T = S::T, C = S::C, threads = S::threads;
  constexpr int tile_micros = S::micro_rows * S::micro_cols;
  extern __shared__ __align__(16) unsigned char square_permute_smem[];
  const auto smem = static_cast<unsigned>(__cvta_generic_to_shared(square_permute_smem));
  // Tile s of buffer k: its staged rows, then its output rows over them.
  auto buffer = [&](int k, int s) { return smem + static_cast<unsigned>((2 * k + s) * T * S::in_pitch); };
  // Tile s = 0 (A) or 1 (B, its mirror): rows(s) rows of rows(1 - s) units at ptr(s), stored transposed at
  // ptr(1 - s) (a diagonal pair has tile 0 only, stored over itself). Selects, not arrays indexed by s (which
  // would live in local memory).
  struct pair {
    std::uint64_t a, b;
    int a_rows, b_rows, count;
    __device__ std::uint64_t ptr(int s) const { return s != 0 ? b : a; }
    __device__ std::uint64_t dst(int s) const { return s != 0 || count == 1 ? a : b; }
    __device__ int rows(int s) const { return s != 0 ? b_rows : a_rows; }
  };
  auto pair_of = [&](std::int64_t t) {
    const square_pair q = square_pair_of(p, t, T, U);
    return pair{reinterpret_cast<std::uint64_t>(q.a_ptr), reinterpret_cast<std::uint64_t>(q.b_ptr),
                static_cast<int>(q.a_rows < T ? q.a_rows : T), static_cast<int>(q.a_cols < T ? q.a_cols : T),
                q.diagonal ? 1 : 2};
  };
  // A thread keeps one chunk column of the rows (load_chunk) and steps down them, load_rows at a time (threads past
  // rows x chunks idle): addresses advance by adds, not a division and a 64-bit product a chunk.
  constexpr int load_rows = threads / S::row_chunks;
  const int load_chunk = static_cast<int>(threadIdx.x) % S::row_chunks, load_row = static_cast<int>(threadIdx.x) / S::row_chunks;
  auto issue_loads = [&](const pair& q, int k) {
    for (int s = 0; s < q.count; ++s) {
      const int o = 16 * load_chunk, bytes = q.rows(1 - s) * U;
      if (load_row >= load_rows || o >= bytes) continue;
      const int rows = q.rows(s);
      std::uint64_t src = q.ptr(s) + static_cast<std::uint64_t>(load_row) * p.ld + o;
      unsigned dst = buffer(k, s) + static_cast<unsigned>(load_row * S::in_pitch + o);
      const std::uint64_t src_step = static_cast<std::uint64_t>(load_rows) * p.ld;
      if (o + 16 <= bytes) {
        for (int i = load_row; i < rows; i += load_rows, src += src_step, dst += load_rows * S::in_pitch)
          cp_async_bytes<16>(dst, reinterpret_cast<const void*>(src));
      } else {
        for (int i = load_row; i < rows; i += load_rows, src += src_step, dst += load_rows * S::in_pitch) {
          const uint4 v = load_partial_chunk(reinterpret_cast<const unsigned char*>(src), bytes - o);
          const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
          sts128(dst, w);
        }
      }
    }
    cp_async_commit();
  };
  // This thread's micro-tile (h, j) of tile s: staged rows 4h .. 4h + 3, units [C j, C j + C) -> output rows
  // C j .. C j + C - 1, bytes [4 h U, 4 h U + 4 U). Rows and units past the tile's edge are permuted (stale
  // bytes) but never stored.
  const int micro_s = static_cast<int>(threadIdx.x) >= tile_micros ? 1 : 0;
  const int micro_y = static_cast<int>(threadIdx.x) - micro_s * tile_micros;
  const int micro_h = micro_y / S::micro_cols, micro_j = micro_y - micro_h * S::micro_cols;
  constexpr int in_words = U == 3 ? 48 : 4 * U;

  two_buffer_loop(p.tasks, pair_of, issue_loads, [&](const pair& cur, int k) {
    const bool micro = micro_s < cur.count && 4 * micro_h < cur.rows(micro_s) && micro_j * C < cur.rows(1 - micro_s);
    const unsigned buf = buffer(k, micro_s);
    std::uint32_t in[in_words];
    if (micro) {
      const unsigned piece = buf + static_cast<unsigned>(4 * micro_h * S::in_pitch + C * U * micro_j);
      if constexpr (U == 3) {  // 48-byte pieces: 16-byte aligned
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int v = 0; v < 3; ++v) {
            std::uint32_t w[4];
            lds128(piece + static_cast<unsigned>(i * S::in_pitch + 16 * v), w);
#pragma unroll
            for (int e = 0; e < 4; ++e) in[12 * i + 4 * v + e] = w[e];
          }
      } else {  // 4 U-byte pieces: 4-byte aligned
        piece_read<U, S::in_pitch>(piece, in);
      }
    }
    __syncthreads();  // every micro-tile read: the buffer takes the output rows
    if (micro) {
      if constexpr (U == 3) {
        std::uint32_t out[48];
        permute_bytes<pixel48_map<U>>(in, out);
        pixel48_store_micro<U, S::out_pitch>(out, buf, static_cast<unsigned>(micro_j), static_cast<unsigned>(4 * micro_h * U));
      } else {
        piece_write<U, T, S::out_pitch>(in, buf, static_cast<unsigned>(micro_j), static_cast<unsigned>(4 * micro_h * U));
      }
    }
    __syncthreads();  // output rows complete
    // Output row c of tile s (its column c; rows(1 - s) of them) holds rows(s) U bytes, stored at dst(s): a
    // thread keeps one chunk column and steps down the rows, as the loads.
    for (int s = 0; s < cur.count; ++s) {
      const int o = 16 * load_chunk, bytes = cur.rows(s) * U;
      if (load_row >= load_rows || o >= bytes) continue;
      const int rows = cur.rows(1 - s);
      const unsigned n = static_cast<unsigned>(o + 16 <= bytes ? 16 : bytes - o);
      std::uint64_t dst = cur.dst(s) + static_cast<std::uint64_t>(load_row) * p.ld + o;
      const std::uint64_t dst_step = static_cast<std::uint64_t>(load_rows) * p.ld;
      for (int c = load_row; c < rows; c += load_rows, dst += dst_step) {
        std::uint32_t w[4];
        lds128(buffer(k, s) + square_permute_out_byte<U>(static_cast<unsigned>(c), static_cast<unsigned>(o)), w);
        store_byte_range(dst, 0, n, w);
      }
    }
  });
}

/// One tile pair of square_gather: tile A (rows I T.., cols J T..) and its mirror B (tile s = 0, 1: rows[s]
/// rows of bytes[s] bytes each).
struct gather_pair {
  unsigned char* ptr[2];
  int rows[2], bytes[2], count;
};

/// Pair `t` of square_gather's and square_gather_any's tiles of T units of U bytes.
__device__ __forceinline__ gather_pair gather_pair_of(const inplace_square_params& p, std::int64_t t, int T, int U) {
  const square_pair s = square_pair_of(p, t, T, U);
  gather_pair q;
  q.ptr[0] = s.a_ptr;
  q.ptr[1] = s.b_ptr;
  q.rows[0] = static_cast<int>(s.a_rows < T ? s.a_rows : T);
  q.rows[1] = static_cast<int>(s.a_cols < T ? s.a_cols : T);
  q.bytes[0] = q.rows[1] * U, q.bytes[1] = q.rows[0] * U;
  q.count = s.diagonal ? 1 : 2;
  return q;
}
/// The two tiles of a staged pair (one when diagonal): f(s, stage of tile s, cl, ob, dst) for tile s, which
/// goes transposed to the other tile's place `dst` as cl = rows[1 - s] rows of ob = rows[s] U bytes.
template <class F>
__device__ __forceinline__ void for_each_pair_tile(const gather_pair& cur, const unsigned char* stage, int T, int pitch,
                                                   const F& f) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    if (s >= cur.count) break;
    f(s, stage + s * T * pitch, cur.rows[1 - s], cur.bytes[1 - s], cur.count == 2 && s == 0 ? cur.ptr[1] : cur.ptr[0]);
  }
}

/// The pair loop of square_gather and square_gather_any over the block's pairs t = blockIdx.x, + gridDim.x, ...:
/// `load_pair(q)` fills reg / at (the chunks a thread holds and their staged offsets, -1 for none), which go
/// to `stage`; then the next pair's loads are issued before `store_pair(cur)` gathers and stores this one
/// (pairs are disjoint, a block's next pair is its own).
template <int L, class Load, class Store>
__device__ __forceinline__ void gather_pairs(const inplace_square_params& p, int T, int U, unsigned char* stage,
                                             const uint4 (&reg)[L], const int (&at)[L], const Load& load_pair,
                                             const Store& store_pair) {
  std::int64_t t = blockIdx.x;
  if (t >= p.tasks) return;
  gather_pair q = gather_pair_of(p, t, T, U);
  load_pair(q);
  for (;;) {
    __syncthreads();  // the previous pair's shared reads are done
#pragma unroll
    for (int k = 0; k < L; ++k)
      if (at[k] >= 0) *reinterpret_cast<uint4*>(stage + at[k]) = reg[k];
    __syncthreads();
    const gather_pair cur = q;
    const std::int64_t next = t + gridDim.x;
    if (next < p.tasks) {
      q = gather_pair_of(p, next, T, U);
      load_pair(q);
    }
    store_pair(cur);
    if (next >= p.tasks) break;
    t = next;
  }
}

/// `square` for units of any size up to square_gather_max_unit that are not a vector's (3, 5, 6, 12, 24, ...
/// bytes), 16-byte aligned rows. A pair's two tiles are loaded as 16-byte chunks into registers (up to
/// square_gather_max_loads a thread, all in flight), staged in shared memory, and each transposed row is
/// gathered back into 16-byte chunks in G-byte granules (G = gcd(unit, 16); an output chunk's granules come
/// from consecutive staged rows) and stored as chunks (bytewise only where a row ends mid-chunk at the matrix
/// edge). As in square_vec16, a block issues its next pair's loads before the current pair's stores. Lanes
/// take runs of four chunks (64 bytes) of 8 consecutive output rows a warp: H100, 8192^2, median of three
/// same-call runs, against two chunks of 16 rows: 5-, 7-, 9-, 11-, 13-, 15-byte units 0.776 / 0.808 / 0.776 /
/// 0.820 / 0.807 / 0.845 -> 0.798 / 0.830 / 0.794 / 0.838 / 0.825 / 0.862, 10-, 12-, 14-byte 0.886 / 0.912 /
/// 0.881 -> 0.902 / 0.926 / 0.902, 3- and 6-byte unchanged; 8 chunks of 4 rows and 32 of one row lost (5-byte
/// 0.776 -> 0.756 / 0.624: the gathers' bank conflicts grow with the run). Before this, 3-byte units went
/// through square_words one byte at a time (rgb8 4096^2: 0.175 of memcpy on H100).
/// L: loads a thread holds (4, 8 or 12: the pair's chunks / Threads, rounded up); the fewer, the fewer
/// registers and the more blocks an SM runs (rgb8: 8 loads, 3 blocks). Threads: square_gather_threads (1024 for
/// wide tiles: one block an SM, 64 registers).
template <int G, int L, int Threads>
__global__ void __launch_bounds__(Threads, Threads == 1024  ? 1
                                           : Threads == 512 ? (L <= 8 ? 2 : 1)
                                                            : (L <= 4 ? 4 : L <= 8 ? 3 : 2))
    inplace_square_gather_kernel(const inplace_square_params p) {
  extern __shared__ uint4 gather_smem[];
  auto* stage = reinterpret_cast<unsigned char*>(gather_smem);
  const int U = p.unit_words * G, T = p.tile, row_bytes = T * U, chunks = row_bytes / 16, pitch = row_bytes + 16;
  const int tile_shift = __ffs(T) - 1, tile_chunks = T * chunks, pair_chunks = (chunks + 3) / 4;
  uint4 reg[L];
  int at[L];  // staged byte offset of reg[k], -1: none
  auto load_pair = [&](const gather_pair& q) {
#pragma unroll
    for (int k = 0; k < L; ++k) {
      at[k] = -1;
      const int x = static_cast<int>(threadIdx.x) + k * Threads;
      const int s = x >= tile_chunks ? 1 : 0, y = x - s * tile_chunks;
      const int r = static_cast<int>(__umulhi(static_cast<unsigned>(y), p.chunk_magic)), o = 16 * (y - r * chunks);
      const int rows = s ? q.rows[1] : q.rows[0], bytes = s ? q.bytes[1] : q.bytes[0];
      if (s < q.count && r < rows && o < bytes) {
        const unsigned char* src = (s ? q.ptr[1] : q.ptr[0]) + r * p.ld + o;
        reg[k] = o + 16 <= bytes ? __ldcg(reinterpret_cast<const uint4*>(src)) : load_partial_chunk(src, bytes - o);
        at[k] = s * T * pitch + r * pitch + o;
      }
    }
  };
  gather_pairs<L>(p, T, U, stage, reg, at, load_pair, [&](const gather_pair& cur) {
    for_each_pair_tile(cur, stage, T, pitch, [&](int, const unsigned char* st, int cl, int ob, unsigned char* dst) {
      for (int x = threadIdx.x; x < 4 * T * pair_chunks; x += Threads) {
        const int h = x & 3, c = (x >> 2) & (T - 1), w = 4 * ((x >> 2) >> tile_shift) + h, o = 16 * w;
        if (c >= cl || o >= ob) continue;
        // Output byte k of row c is byte k % U of staged row k / U's unit c.
        int e = static_cast<int>(__umulhi(static_cast<unsigned>(o), p.unit_magic)), bb = o - e * U;
        uint4 v{0, 0, 0, 0};
#pragma unroll
        for (int j = 0; j < 16 / G; ++j) {
          put_granule<G>(v, j, st + e * pitch + c * U + bb);
          bb += G;
          if (bb == U) bb = 0, ++e;
        }
        unsigned char* out = dst + c * p.ld + o;
        if (o + 16 <= ob) {
          *reinterpret_cast<uint4*>(out) = v;
        } else {
          for (int b = 0; b < ob - o; ++b) {
            const std::uint32_t word = b < 4 ? v.x : b < 8 ? v.y : b < 12 ? v.z : v.w;
            out[b] = static_cast<unsigned char>(word >> (8 * (b % 4)));
          }
        }
      }
    });
  });
}

/// `square` for units of 3 to square_gather_max_unit bytes on rows off the 16-byte grid (odd pitches, odd
/// base addresses): square_gather with each tile row's chunks loaded from its start rounded down to 16 bytes
/// (whole aligned chunks, bytewise only where they leave the squares' bytes [lo, hi)) and staged at that
/// phase; each output row is gathered a byte at a time into the aligned 16-byte chunks of its destination
/// (the source row's phase added) and stored whole, or as byte ranges at the row's two ends. Bytes of
/// neighbouring tiles in a staged chunk are read, never stored. Before this, such squares went through
/// square_words one byte (or 2-byte word) at a time: H100, same call, rgb8 4095^2 0.18 -> 0.43, 8191^2 0.15 ->
/// 0.41, 5-, 7-, 13-byte 8191^2 / 6001^2 0.155 -> 0.53 / 0.54 / 0.46, 9-byte 4097^2 0.17 -> 0.51, 6-byte 8191^2
/// 0.27 -> 0.43; units moved in 4-byte words or wider stay on square_words (12-byte 8191^2 0.47 there, 0.40 here;
/// fp32 / fp64 8191^2 0.69 / 0.78 there, 0.44 / 0.46 here). Lanes and pipelining as square_gather's; L: loads a
/// thread holds.
template <int L, int Threads>
__global__ void __launch_bounds__(Threads, Threads == 512 ? 1 : (L <= 4 ? 4 : 2))
    inplace_square_gather_any_kernel(const inplace_square_params p) {
  extern __shared__ uint4 gather_smem[];
  auto* stage = reinterpret_cast<unsigned char*>(gather_smem);
  const int U = p.unit_words, T = p.tile, row_bytes = T * U, slots = row_bytes / 16 + 1, pitch = row_bytes + 16;
  const int tile_shift = __ffs(T) - 1, tile_slots = T * slots, runs = (slots + 3) / 4;
  const auto ld16 = static_cast<unsigned>(p.ld) & 15u;
  uint4 reg[L];
  int at[L];  // staged byte offset of reg[k], -1: none
  auto load_pair = [&](const gather_pair& q) {
#pragma unroll
    for (int k = 0; k < L; ++k) {
      at[k] = -1;
      const int x = static_cast<int>(threadIdx.x) + k * Threads;
      const int s = x >= tile_slots ? 1 : 0, y = x - s * tile_slots;
      const int r = y / slots, o = 16 * (y - r * slots);
      const int rows = s ? q.rows[1] : q.rows[0], bytes = s ? q.bytes[1] : q.bytes[0];
      if (s < q.count && r < rows) {
        const auto a = reinterpret_cast<std::uint64_t>((s ? q.ptr[1] : q.ptr[0]) + r * p.ld);
        const std::uint64_t chunk = (a & ~std::uint64_t{15}) + static_cast<unsigned>(o);
        if (chunk < a + static_cast<unsigned>(bytes)) {
          reg[k] = load_chunk<16, true>(chunk, p.lo, p.hi);
          at[k] = s * T * pitch + r * pitch + o;
        }
      }
    }
  };
  gather_pairs<L>(p, T, U, stage, reg, at, load_pair, [&](const gather_pair& cur) {
    for_each_pair_tile(cur, stage, T, pitch, [&](int s, const unsigned char* st, int cl, int ob, unsigned char* dst) {
      // Row e of tile s is staged at phase ph0 + e ld mod 16.
      const unsigned ph0 = static_cast<unsigned>(reinterpret_cast<std::uint64_t>(s ? cur.ptr[1] : cur.ptr[0])) & 15u;
      for (int x = threadIdx.x; x < 4 * T * runs; x += Threads) {
        const int h = x & 3, c = (x >> 2) & (T - 1), g = 4 * ((x >> 2) >> tile_shift) + h;
        if (c >= cl) continue;
        const auto out = reinterpret_cast<std::uint64_t>(dst + c * p.ld);
        const int psi = static_cast<int>(out & 15), j0 = 16 * g - psi;  // output row byte at the chunk's start
        if (j0 >= ob) continue;
        const int js = j0 > 0 ? j0 : 0;
        // Output byte j of row c is byte j % U of staged row j / U's unit c.
        int e = static_cast<int>(__umulhi(static_cast<unsigned>(js), p.unit_magic)), bb = js - e * U;
        unsigned ph = (ph0 + static_cast<unsigned>(e) * ld16) & 15u;
        const unsigned char* src = st + e * pitch + ph + c * U;
        std::uint32_t w[4] = {0, 0, 0, 0};
        auto take = [&](int i) {  // output byte j0 + i, then the next unit's byte
          w[i / 4] |= std::uint32_t{src[bb]} << (8 * (i % 4));
          if (++bb == U) {
            bb = 0;
            const unsigned nph = (ph + ld16) & 15u;
            src += pitch + static_cast<int>(nph) - static_cast<int>(ph);
            ph = nph;
          }
        };
        if (j0 >= 0 && j0 + 16 <= ob) {  // inside the row: no tests a byte
#pragma unroll
          for (int i = 0; i < 16; ++i) take(i);
        } else {
#pragma unroll
          for (int i = 0; i < 16; ++i)
            if (j0 + i >= js && j0 + i < ob) take(i);
        }
        const int hi = ob - j0 < 16 ? ob - j0 : 16;
        store_byte_range(out - static_cast<unsigned>(psi) + 16 * static_cast<unsigned>(g), static_cast<unsigned>(js - j0),
                         static_cast<unsigned>(hi), w);
      }
    });
  });
}

/// The passes of `shuffle` (plan/inplace_maps.hpp).
enum class shuffle_pass : int { rot_minus, rot_plus, row_scatter, row_gather, col_gather, col_scatter };

struct shuffle_params {
  unsigned char* data;
  std::int64_t batch_stride;  // bytes between matrices
  shuffle_maps maps;
  shuffle_pass op;
  int unit_words;             // K
  std::int64_t lines_per_matrix;
  std::int64_t lines;         // batch x lines_per_matrix
  int strip;                  // column passes: units per strip (power of two)
  int strip_shift;            // log2(strip)
  unsigned char* slots;       // shuffle_lines with a workspace stage: slot_bytes a block
  std::int64_t slot_bytes;
  // shuffle_rows_gather:
  const unsigned char* wave;  // the wave's rows, copied
  std::int64_t wave_first;    // first line of the wave
  std::int64_t wave_words;    // words in the wave
  fast_divmod row_words_div;  // by n K
  fast_divmod unit_div;       // by K
};

/// Word x of a row -> (unit, word k within the unit).
template <bool SingleWord>
__device__ __forceinline__ std::uint32_t unit_of(std::uint32_t x, int K, int& k) {
  if constexpr (SingleWord) {
    k = 0;
    return x;
  } else {
    const std::uint32_t u = x / static_cast<std::uint32_t>(K);
    k = static_cast<int>(x - u * static_cast<std::uint32_t>(K));
    return u;
  }
}

/// One staged permutation of a line's `words` words, `line(x)` its word x in global memory: Scatter
/// (stage[perm(x)] = line(x), barrier, line(x) = stage[x]) or gather (stage[x] = line(x), barrier,
/// line(x) = stage[perm(x)]). Both global phases are linear, hence coalesced; words with !valid(x) are skipped.
template <bool Scatter, class Word, class Valid, class Line, class Perm>
__device__ __forceinline__ void permute_line(Word* stage, std::uint32_t words, const Valid& valid, const Line& line,
                                             const Perm& perm) {
#pragma unroll 4
  for (std::uint32_t x = threadIdx.x; x < words; x += blockDim.x)
    if (valid(x)) stage[Scatter ? perm(x) : x] = line(x);
  __syncthreads();
#pragma unroll 4
  for (std::uint32_t x = threadIdx.x; x < words; x += blockDim.x)
    if (valid(x)) line(x) = stage[Scatter ? x : perm(x)];
}

/// permute_line for gcd(m, n) = 1 and single-word units, where each thread's words x, x + T, x + 2T ... (T =
/// blockDim.x) map to f, f + step, f + 2 step ... modulo `mod` (row_d along a row: step = T m mod n; col_s down a
/// strip, T / strip rows at a time: step = (T / strip) n mod m), times `scale` plus the word's offset `off` in
/// its strip row: an add and a compare a word instead of two 64-bit divisions (u8 rows ran at ~64 instructions
/// a byte). f0 = the map of word threadIdx.x; mod < 2^31 (a line's words fit 32 bits).
/// The global loads go in batches of `batch` (all issued before the stage stores: through generic pointers the
/// compiler would otherwise keep each load behind the previous store, one load in flight a thread).
template <bool Scatter, class Word, class Valid, class Line>
__device__ __forceinline__ void permute_line_walk(Word* stage, std::uint32_t words, const Valid& valid,
                                                  const Line& line, std::uint32_t f0, std::uint32_t step,
                                                  std::uint32_t mod, std::uint32_t scale, std::uint32_t off) {
  constexpr int batch = sizeof(Word) <= 2 ? 16 : 8;
  std::uint32_t f = f0;
  const std::uint32_t T = blockDim.x;
  for (std::uint32_t x0 = threadIdx.x; x0 < words; x0 += batch * T) {
    Word v[batch];
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      const std::uint32_t x = x0 + k * T;
      if (x < words && valid(x)) v[k] = line(x);
    }
#pragma unroll
    for (int k = 0; k < batch; ++k) {
      const std::uint32_t x = x0 + k * T;
      if (x < words && valid(x)) stage[Scatter ? f * scale + off : x] = v[k];
      f += step;
      if (f >= mod) f -= mod;
    }
  }
  __syncthreads();
  f = f0;
#pragma unroll 4
  for (std::uint32_t x = threadIdx.x; x < words; x += blockDim.x) {
    if (valid(x)) line(x) = stage[Scatter ? x : f * scale + off];
    f += step;
    if (f >= mod) f -= mod;
  }
}

/// Stage in shared memory (dynamic) when GlobalStage is false, else in the block's workspace slot.
template <class Word, bool SingleWord, bool GlobalStage>
__global__ void __launch_bounds__(1024) inplace_shuffle_lines_kernel(const shuffle_params p) {
  extern __shared__ unsigned char smem_raw[];
  Word* stage = GlobalStage ? reinterpret_cast<Word*>(p.slots + blockIdx.x * p.slot_bytes)
                            : reinterpret_cast<Word*>(smem_raw);
  const int K = SingleWord ? 1 : p.unit_words;
  const std::uint64_t m = p.maps.m, n = p.maps.n;
  const std::int64_t row_bytes = static_cast<std::int64_t>(n) * K * sizeof(Word);
  const bool rows = p.op == shuffle_pass::row_scatter || p.op == shuffle_pass::row_gather;
  const bool scatter = p.op == shuffle_pass::row_scatter || p.op == shuffle_pass::col_scatter;
  // gcd 1, single words: maps walked by increments (permute_line_walk); lines of < 2^31 words (stage sizes).
  const bool walk = SingleWord && p.maps.c == 1 && m < (std::uint64_t{1} << 31) && n < (std::uint64_t{1} << 31);
  for (std::int64_t l = blockIdx.x; l < p.lines; l += gridDim.x) {
    const std::int64_t b = l / p.lines_per_matrix, k_line = l - b * p.lines_per_matrix;
    unsigned char* mat = p.data + b * p.batch_stride;
    if (l != blockIdx.x) __syncthreads();  // the previous line's stage reads are done
    if (rows) {  // row i = k_line: its unit j moves to (or comes from) unit row_d(i, j)
      Word* row = reinterpret_cast<Word*>(mat + k_line * row_bytes);
      const auto i = static_cast<std::uint64_t>(k_line);
      auto all = [](std::uint32_t) { return true; };
      auto word = [&](std::uint32_t x) -> Word& { return row[x]; };
      auto perm = [&](std::uint32_t x) {
        int k = 0;
        const std::uint32_t j = unit_of<SingleWord>(x, K, k);
        return p.maps.row_d(i, j) * K + k;
      };
      const auto words = static_cast<std::uint32_t>(n * K);
      if (walk) {
        const auto f0 = static_cast<std::uint32_t>(p.maps.row_d(i, threadIdx.x));
        const auto step = static_cast<std::uint32_t>(std::uint64_t{blockDim.x} * m % n);
        if (scatter) permute_line_walk<true>(stage, words, all, word, f0, step, static_cast<std::uint32_t>(n), 1, 0);
        else permute_line_walk<false>(stage, words, all, word, f0, step, static_cast<std::uint32_t>(n), 1, 0);
        continue;
      }
      if (scatter) permute_line<true>(stage, words, all, word, perm);
      else permute_line<false>(stage, words, all, word, perm);
      continue;
    }
    // A strip: columns [j0, j0 + w_n) of all m rows, staged as m rows of strip * K words; stage word x is
    // row i = x / SK, word rem = x % SK, unit w = rem / K of the strip, and row i moves (or comes from) the row
    // the pass's map gives for (i, j0 + w).
    const std::int64_t j0 = k_line << p.strip_shift;
    const int w_n = static_cast<int>(min(static_cast<std::int64_t>(p.strip), static_cast<std::int64_t>(n) - j0));
    const int SK = p.strip * K;  // stage words a row
    unsigned char* strip = mat + j0 * K * sizeof(Word);
    auto row_of = [&](std::uint32_t x) { return SingleWord ? (x >> p.strip_shift) : x / static_cast<std::uint32_t>(SK); };
    auto rem_of = [&](std::uint32_t x) { return static_cast<int>(x - row_of(x) * static_cast<std::uint32_t>(SK)); };
    auto unit_in_strip = [&](std::uint32_t x) { return SingleWord ? rem_of(x) : rem_of(x) / K; };
    auto in_strip = [&](std::uint32_t x) { return unit_in_strip(x) < w_n; };
    auto word = [&](std::uint32_t x) -> Word& {
      return reinterpret_cast<Word*>(strip + static_cast<std::int64_t>(row_of(x)) * row_bytes)[rem_of(x)];
    };
    auto perm = [&](std::uint32_t x) {
      const std::uint64_t i = row_of(x), j = static_cast<std::uint64_t>(j0 + unit_in_strip(x));
      const std::uint64_t r = p.op == shuffle_pass::rot_minus  ? p.maps.rot_minus(i, j)
                              : p.op == shuffle_pass::rot_plus ? p.maps.rot_plus(i, j)
                                                               : p.maps.col_s(i, j);  // col_gather / col_scatter
      return r * SK + rem_of(x);
    };
    const auto words = static_cast<std::uint32_t>(m * SK);
    if (walk && (blockDim.x & (p.strip - 1)) == 0) {  // col_s (no rotation passes when gcd = 1)
      const std::uint32_t x0 = threadIdx.x, w = x0 & (p.strip - 1);
      const auto f0 = static_cast<std::uint32_t>(p.maps.col_s(x0 >> p.strip_shift, static_cast<std::uint64_t>(j0) + w));
      const auto step = static_cast<std::uint32_t>(std::uint64_t{blockDim.x >> p.strip_shift} * n % m);
      const auto mod = static_cast<std::uint32_t>(m), scale = static_cast<std::uint32_t>(SK);
      if (scatter) permute_line_walk<true>(stage, words, in_strip, word, f0, step, mod, scale, w);
      else permute_line_walk<false>(stage, words, in_strip, word, f0, step, mod, scale, w);
      continue;
    }
    if (scatter) permute_line<true>(stage, words, in_strip, word, perm);
    else permute_line<false>(stage, words, in_strip, word, perm);
  }
}

/// Row pass over a wave of rows copied to p.wave: row word x of wave line t gathers its unit from the copy.
/// Inverse: r2c's scatter is run as a gather through row_d_inv.
template <class Word, bool SingleWord, bool Inverse>
__global__ void __launch_bounds__(256) inplace_shuffle_rows_gather_kernel(const shuffle_params p) {
  const int K = SingleWord ? 1 : p.unit_words;
  const std::uint64_t row_words = p.maps.n * K;
  const Word* wave = reinterpret_cast<const Word*>(p.wave);
  for (std::int64_t x = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; x < p.wave_words;
       x += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint64_t xr = 0;
    const std::uint64_t t = p.row_words_div.divmod(static_cast<std::uint64_t>(x), xr);  // line in the wave
    const std::int64_t l = p.wave_first + static_cast<std::int64_t>(t);
    const std::int64_t b = l / p.lines_per_matrix, i = l - b * p.lines_per_matrix;
    std::uint64_t k = 0, j = xr;
    if constexpr (!SingleWord) j = p.unit_div.divmod(xr, k);
    const std::uint64_t src = Inverse ? p.maps.row_d_inv(static_cast<std::uint64_t>(i), j)
                                      : p.maps.row_d(static_cast<std::uint64_t>(i), j);
    Word* row = reinterpret_cast<Word*>(p.data + b * p.batch_stride) + i * row_words;
    row[xr] = wave[t * row_words + src * K + k];
  }
}

// ---- tile_cycles' unit pass ------------------------------------------------------------------------------
//
// * cycles_save<Word>: copies the first unit of every segment (plan's table) of every matrix to the workspace.
// * cycles<Word, R, D>: moves every unit once along the cycles of unit_cycle_map. A warp task is one segment
//   and one group of 32 R words of its units: each lane carries R words of the unit it holds and walks the
//   chain D positions a round: it loads those words of the next D units (positions on a chain are distinct
//   and no other task touches them, so the loads may run ahead of the stores), then stores its carried words
//   at the first position and each loaded unit at the position after it, until the segment's end (the next
//   segment's first unit, saved beforehand, so never loaded). Lanes never share words: no barrier is needed.
//   Block tasks after the segments test cycles_chunk units each for leading a short cycle
//   (leads_short_cycle) and move those cycles the same way, a (cycle, word group) pair a warp. Loads go
//   through L2 (__ldcg): neighbouring units may share a line that another SM has written.
//   grid: 1-D (grid-stride); block: cycles_threads.

inline constexpr int cycles_threads = 256;
inline constexpr int cycles_words_per_lane = 2;  // R: 32 R 16-byte words = 1 KiB of a unit per warp task
inline constexpr int cycles_depth = 4;           // D: chain positions loaded ahead per round
// D for 1- and 2-byte words (units of odd sizes: a warp task then moves 64-128 bytes of a unit a position, so
// it needs more positions in flight). H200, same call, 2 rounds, staged_blocks' unit pass, D 4 -> 8: rgb8 6001 x
// 2999 0.128 -> 0.151, rgb8 3001 x 5001 0.125 -> 0.153, u8 4097 x 10001 0.101 -> 0.104, u8 12000 x 7001 0.230 ->
// 0.235; D 16 (192 bytes spilled at the 64-register bound) 0.140 / 0.114 / 0.099 / 0.232.
inline constexpr int cycles_depth_narrow = 8;
inline constexpr int cycles_chunk = 64;          // units a short-cycle block task tests

struct inplace_cycles_params {
  unsigned char* data;
  unsigned char* saved;         // workspace: batch x segments units
  std::int64_t batch_stride;    // bytes between matrices
  std::int64_t unit_bytes;
  std::int64_t unit_words;      // unit_bytes / sizeof(Word)
  unit_cycle_map map;
  std::uint32_t units;          // units a matrix
  std::uint32_t short_cycle;
  std::int64_t segments;        // K (table entries / 2)
  std::int64_t batch;
  fast_divmod div_segments;     // by max(K, 1)
  fast_divmod div_groups;       // by the word groups of a unit: ceil(unit_words / (32 R))
  fast_divmod div_chunks;       // by cycles_chunk-unit chunks a matrix
  fast_divmod div_unit_words;   // by unit_words
  std::int64_t segment_tasks;   // batch x K x groups (warp tasks)
  std::int64_t block_tasks;     // ceil(segment_tasks / warps) + batch x chunks
  std::uint32_t table[2 * inplace_tuning::max_cycle_segments];
};

template <class Word>
__global__ void __launch_bounds__(256) inplace_cycles_save_kernel(const __grid_constant__ inplace_cycles_params p) {
  const std::int64_t total = p.batch * p.segments * p.unit_words;
  for (std::int64_t x = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; x < total;
       x += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint64_t w = 0, s = 0;
    const std::uint64_t bs = p.div_unit_words.divmod(static_cast<std::uint64_t>(x), w);
    const std::uint64_t b = p.div_segments.divmod(bs, s);
    const unsigned char* unit =
        p.data + static_cast<std::int64_t>(b) * p.batch_stride + static_cast<std::int64_t>(p.table[2 * s]) * p.unit_bytes;
    reinterpret_cast<Word*>(p.saved + static_cast<std::int64_t>(bs) * p.unit_bytes)[w] =
        __ldcg(reinterpret_cast<const Word*>(unit) + w);
  }
}

/// Moves units from `start` on, carrying `carry` (the words of the unit that was at `start`), until `stop`,
/// which receives the last one; this lane's words are w0 + r * 32 for r < R that are below p.unit_words.
template <class Word, int R, int D>
__device__ __forceinline__ void cycles_walk(const inplace_cycles_params& p, unsigned char* mat, std::uint32_t start,
                                            std::uint32_t stop, Word (&carry)[R], std::int64_t w0) {
  bool valid[R];
#pragma unroll
  for (int r = 0; r < R; ++r) valid[r] = w0 + r * 32 < p.unit_words;
  std::uint32_t x = start;
  for (;;) {
    std::uint32_t y[D];
    int n = D;  // positions this round; the last is `stop` when the chain ends in it
#pragma unroll
    for (int d = 0; d < D; ++d) {
      const std::uint32_t from = d == 0 ? x : y[d - 1];
      y[d] = p.map.next(from);
      if (n == D && y[d] == stop) n = d + 1;
    }
    Word v[D][R];
#pragma unroll
    for (int d = 0; d < D; ++d)
      if (d < n && !(d == n - 1 && y[d] == stop)) {
        const Word* src = reinterpret_cast<const Word*>(mat + static_cast<std::int64_t>(y[d]) * p.unit_bytes) + w0;
#pragma unroll
        for (int r = 0; r < R; ++r)
          if (valid[r]) v[d][r] = __ldcg(src + r * 32);
      }
#pragma unroll
    for (int d = 0; d < D; ++d)
      if (d < n) {
        Word* dst = reinterpret_cast<Word*>(mat + static_cast<std::int64_t>(y[d]) * p.unit_bytes) + w0;
#pragma unroll
        for (int r = 0; r < R; ++r)
          if (valid[r]) dst[r * 32] = d == 0 ? carry[r] : v[d - 1][r];
      }
    if (y[n - 1] == stop) return;
#pragma unroll
    for (int r = 0; r < R; ++r) carry[r] = v[D - 1][r];
    x = y[D - 1];
  }
}

template <class Word, int R, int D>
__global__ void __launch_bounds__(cycles_threads, 4) inplace_cycles_kernel(const __grid_constant__ inplace_cycles_params p) {
  constexpr int warps = cycles_threads / 32;
  __shared__ std::uint32_t leaders[cycles_chunk];
  __shared__ int leader_count;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t segment_blocks = (p.segment_tasks + warps - 1) / warps;
  for (std::int64_t task = blockIdx.x; task < p.block_tasks; task += gridDim.x) {
    if (task < segment_blocks) {
      const std::int64_t wt = task * warps + warp;
      if (wt >= p.segment_tasks) continue;
      std::uint64_t g = 0, s = 0;
      const std::uint64_t bs = p.div_groups.divmod(static_cast<std::uint64_t>(wt), g);
      const std::uint64_t b = p.div_segments.divmod(bs, s);
      const std::int64_t w0 = static_cast<std::int64_t>(g) * 32 * R + lane;
      const Word* from = reinterpret_cast<const Word*>(p.saved + static_cast<std::int64_t>(bs) * p.unit_bytes) + w0;
      Word carry[R];
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (w0 + r * 32 < p.unit_words) carry[r] = __ldcg(from + r * 32);
      cycles_walk<Word, R, D>(p, p.data + static_cast<std::int64_t>(b) * p.batch_stride, p.table[2 * s],
                              p.table[2 * s + 1], carry, w0);
      continue;
    }
    std::uint64_t c = 0;
    const std::uint64_t b = p.div_chunks.divmod(static_cast<std::uint64_t>(task - segment_blocks), c);
    unsigned char* mat = p.data + static_cast<std::int64_t>(b) * p.batch_stride;
    if (threadIdx.x == 0) leader_count = 0;
    __syncthreads();
    const std::uint64_t u = c * cycles_chunk + threadIdx.x;
    if (threadIdx.x < cycles_chunk && u < p.units &&
        leads_short_cycle(p.map, static_cast<std::uint32_t>(u), p.short_cycle))
      leaders[atomicAdd(&leader_count, 1)] = static_cast<std::uint32_t>(u);
    __syncthreads();
    const auto groups = static_cast<int>(p.div_groups.divisor);
    const int items = leader_count * groups;  // (leader, word group) pairs
    for (int i = warp; i < items; i += warps) {
      const std::uint32_t q = leaders[i / groups];
      const std::int64_t w0 = static_cast<std::int64_t>(i % groups) * 32 * R + lane;
      const Word* from = reinterpret_cast<const Word*>(mat + static_cast<std::int64_t>(q) * p.unit_bytes) + w0;
      Word carry[R];
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (w0 + r * 32 < p.unit_words) carry[r] = __ldcg(from + r * 32);
      cycles_walk<Word, R, D>(p, mat, q, q, carry, w0);
    }
    __syncthreads();  // leaders[] and leader_count are reused by the next task
  }
}

// ---- skinny_cycles' chunk pass ----------------------------------------------------------------------------
//
// * chunks<Word>: every chunk of rows x cols contiguous elements (K words each) becomes cols x rows. A block
//   loads a chunk with linear (coalesced) word loads into shared memory, rows padded to an odd pitch, then
//   writes the output linearly: output word o is element e = o / K, i.e. (c, r) = (e / rows, e % rows),
//   read from stage row r; consecutive lanes read rows an odd pitch apart (no bank conflicts).
//   grid: 1-D over chunks (grid-stride); block: 256 threads; dynamic shared memory: rows x pitch words.

struct inplace_chunks_params {
  unsigned char* data;
  std::int64_t batch_stride;   // bytes between matrices
  std::int64_t chunk_bytes;
  std::int64_t chunks;         // batch x chunks a matrix
  fast_divmod div_per_matrix;  // by chunks a matrix
  fast_divmod div_row_words;   // by cols K (a chunk row's words)
  fast_divmod div_K;           // by K
  fast_divmod div_rows;        // by rows
  std::uint32_t words;         // rows x cols x K
  std::uint32_t pitch;         // stage words a row: cols K rounded up to odd
  int K;
};

template <class Word>
__global__ void __launch_bounds__(256) inplace_chunks_kernel(const inplace_chunks_params p) {
  extern __shared__ unsigned char smem_raw[];
  Word* stage = reinterpret_cast<Word*>(smem_raw);
  for (std::int64_t k = blockIdx.x; k < p.chunks; k += gridDim.x) {
    std::uint64_t c = 0;
    const std::uint64_t b = p.div_per_matrix.divmod(static_cast<std::uint64_t>(k), c);
    Word* chunk = reinterpret_cast<Word*>(p.data + static_cast<std::int64_t>(b) * p.batch_stride +
                                          static_cast<std::int64_t>(c) * p.chunk_bytes);
    if (k != blockIdx.x) __syncthreads();  // the previous chunk's stage reads are done
    for (std::uint32_t w = threadIdx.x; w < p.words; w += blockDim.x) {
      std::uint64_t col = 0;
      const std::uint64_t row = p.div_row_words.divmod(w, col);
      stage[row * p.pitch + col] = __ldcg(chunk + w);
    }
    __syncthreads();
    for (std::uint32_t o = threadIdx.x; o < p.words; o += blockDim.x) {
      std::uint64_t kk = 0, r = 0;
      const std::uint64_t e = p.K == 1 ? o : p.div_K.divmod(o, kk);
      const std::uint64_t cc = p.div_rows.divmod(e, r);
      chunk[o] = stage[r * p.pitch + cc * static_cast<std::uint64_t>(p.K) + kk];
    }
  }
}

// ---- near_square's repitch -------------------------------------------------------------------------------
//
// * repitch: rows 1 .. rows-1 move from pitch src_pitch to dst_pitch in place (row 0 stays), any alignment.
//   The source bytes of those rows, [src_pitch, (rows - 1) src_pitch + row_bytes), are cut into bands of
//   band_bytes, taken from a ticket counter in the order that never overwrites a byte before it is read
//   (ascending when the pitch shrinks: every byte moves down; descending when it grows), so every earlier
//   band belongs to a block that is already running. A block loads the aligned 16-byte chunks covering its
//   band into shared memory, publishes a flag (its bytes are read; flags are slots reused every few thousand
//   bands, so the workspace stays small whatever the matrix), waits for the flags of the earlier bands
//   whose bytes its destinations overlap (they never wait before publishing, so this cannot deadlock), then
//   writes each row piece of the band as aligned 16-byte chunks realigned from the stage (bytes only at the
//   pieces' ends). A band is bytes, not rows: rows of any length go through shared memory, one read and one
//   write a byte. grid: 1-D (ticketed, persistent); block: repitch_threads; dynamic shared memory:
//   repitch_smem_bytes(band_bytes).

inline constexpr int repitch_threads = 256;
inline constexpr int repitch_loads = 8;  // 16-byte loads in flight a thread

/// The stage: one chunk before the band's first aligned chunk, the band's chunks (band_bytes / 16 + 1 at
/// most), and two after (a realigned chunk reads its source chunk and the next).
constexpr std::int64_t repitch_smem_bytes(std::int64_t band_bytes) { return band_bytes + 4 * 16; }

struct inplace_repitch_params {
  unsigned char* data;
  std::int64_t src_pitch, dst_pitch;  // bytes
  std::int64_t rows;                  // rows of the matrix (row 0 stays)
  std::int64_t row_bytes;
  std::int64_t band_bytes;            // a multiple of 16
  std::int64_t bands;                 // ceil(source bytes / band_bytes)
  std::uint64_t lo, hi;               // the matrix's bytes (loads stay inside)
  unsigned int* ticket;               // zeroed before the launch
  unsigned int* flags;                // flag_slots flags, zeroed before the launch
  unsigned int flag_slots;            // inplace_tuning::repitch_flag_slots(bands)
};

__global__ void __launch_bounds__(repitch_threads) inplace_repitch_kernel(const inplace_repitch_params p) {
  extern __shared__ uint4 stage[];
  __shared__ unsigned int taken;
  const bool grows = p.dst_pitch > p.src_pitch;  // bytes move up in memory: the last band first
  const std::int64_t P = p.src_pitch, Q = p.dst_pitch, R = p.row_bytes;
  const std::int64_t region_lo = P, region_hi = (p.rows - 1) * P + R;  // source bytes of rows 1 ..
  const auto base = reinterpret_cast<std::uint64_t>(p.data);
  for (;;) {
    if (threadIdx.x == 0) taken = atomicAdd(p.ticket, 1u);
    __syncthreads();
    const std::int64_t k = taken;
    if (k >= p.bands) return;
    // The band's source bytes [b0, b1) (offsets from data) and its rows i_first .. i_last.
    const std::int64_t b0 = grows ? std::max(region_hi - (k + 1) * p.band_bytes, region_lo) : region_lo + k * p.band_bytes;
    const std::int64_t b1 = grows ? region_hi - k * p.band_bytes : std::min(b0 + p.band_bytes, region_hi);
    const std::int64_t i_first = std::max<std::int64_t>(1, (b0 - R) / P + 1), i_last = (b1 - 1) / P;
    const std::uint64_t a0 = (base + b0) & ~std::uint64_t{15};
    const auto chunks = static_cast<unsigned>((base + b1 - a0 + 15) / 16);
    // Loads: stage[1 + c] = chunk c (all of a thread's loads issued before its shared stores).
    for (unsigned c0 = 0; c0 < chunks; c0 += repitch_threads * repitch_loads) {
      uint4 v[repitch_loads];
#pragma unroll
      for (int l = 0; l < repitch_loads; ++l) {
        const unsigned c = c0 + l * repitch_threads + threadIdx.x;
        if (c < chunks) v[l] = load_chunk<16, true>(a0 + 16 * std::uint64_t{c}, p.lo, p.hi);
      }
#pragma unroll
      for (int l = 0; l < repitch_loads; ++l) {
        const unsigned c = c0 + l * repitch_threads + threadIdx.x;
        if (c < chunks) stage[1 + c] = v[l];
      }
    }
    __syncthreads();  // the band is read
    // Flags are slots reused every flag_slots bands (the workspace stays small): slot k % slots holds the last
    // band published there, plus 1. Band k publishes only after band k - slots did, so a slot's value only
    // grows and "slot of kk >= kk + 1" means band kk is read. (Band k - slots holds an earlier ticket and waits
    // only on earlier ones: no deadlock.)
    const auto slots = static_cast<std::int64_t>(p.flag_slots);
    if (threadIdx.x == 0) {
      volatile unsigned int* mine = p.flags + k % slots;
      if (k >= slots)
        while (*mine < static_cast<unsigned>(k - slots + 1)) {
        }
      __threadfence();
      atomicExch(p.flags + k % slots, static_cast<unsigned>(k + 1));
    }
    if (threadIdx.x < 32) {
      // The earlier bands (read before ours) whose source bytes our destinations [d_first, d_last] overlap, a
      // lane a band: below b1 when the pitch shrinks, above b0 when it grows. With long shifts (rows far from
      // their sources) these are a few bands far back, long read.
      const std::int64_t d_first = i_first * Q + std::max<std::int64_t>(0, b0 - i_first * P);
      const std::int64_t d_last = i_last * Q + std::min(R, b1 - i_last * P) - 1;
      std::int64_t k_lo = 0, k_hi = -1;
      if (grows) {
        if (d_first < region_hi) {
          k_lo = d_last >= region_hi ? 0 : (region_hi - 1 - d_last) / p.band_bytes;
          k_hi = (region_hi - 1 - d_first) / p.band_bytes;
        }
      } else if (d_last >= region_lo) {
        k_lo = d_first < region_lo ? 0 : (d_first - region_lo) / p.band_bytes;
        k_hi = (d_last - region_lo) / p.band_bytes;
      }
      k_hi = std::min(k_hi, k - 1);
      for (std::int64_t kk = k_lo + threadIdx.x; kk <= k_hi; kk += 32)
        while (*static_cast<volatile unsigned int*>(p.flags + kk % slots) < static_cast<unsigned>(kk + 1)) {
        }
      __threadfence();
    }
    __syncthreads();
    // Stores: each row's piece [j0, j1) of the band, to aligned destination chunks.
    const auto* bytes = reinterpret_cast<const unsigned char*>(stage);
    for (std::int64_t i = i_first; i <= i_last; ++i) {
      const std::int64_t j0 = std::max<std::int64_t>(0, b0 - i * P), j1 = std::min(R, b1 - i * P);
      if (j0 >= j1) continue;
      const std::uint64_t d0 = base + i * Q + j0, d1 = base + i * Q + j1;
      const std::uint64_t c_first = d0 & ~std::uint64_t{15};
      // Stage offset of destination byte c_first (its source, relative to the stage's first byte): >= 1.
      const std::uint64_t shift = base + i * P - (a0 - 16) - (base + i * Q);
      const auto pieces = static_cast<unsigned>((d1 - c_first + 15) / 16);
      for (unsigned q = threadIdx.x; q < pieces; q += repitch_threads) {
        const std::uint64_t c = c_first + 16 * std::uint64_t{q};
        const auto off = static_cast<unsigned>(c + shift);
        const uint4* s = reinterpret_cast<const uint4*>(bytes + (off & ~15u));
        const uint4 x = s[0], y = s[1];
        const std::uint32_t lo[4] = {x.x, x.y, x.z, x.w}, hi[4] = {y.x, y.y, y.z, y.w};
        std::uint32_t w[4];
        realign(lo, hi, off & 15u, w);
        const unsigned from = c < d0 ? static_cast<unsigned>(d0 - c) : 0u;
        const unsigned to = d1 - c < 16 ? static_cast<unsigned>(d1 - c) : 16u;
        store_byte_range(c, from, to, w);
      }
    }
    __syncthreads();  // the stage and `taken` are reused
  }
}

}  // namespace xpose::detail
