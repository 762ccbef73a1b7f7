// pieces family: b x r x c -> b x c x r of odd units of 3-15 bytes (RGB8 pixels, fused u8 axes, packed structs)
// whose pointers, pitches and batch strides are all on the 16-byte grid (the micro-tiles serve any odd unit).
// Replaces gather16's shared-memory gathers one byte at a time (9-15-byte units: 0.53-0.56 of memcpy on the
// H200) and skinny_odd's tiles (5- and 7-byte units: 0.59-0.86) with register permutes (`prmt`); RGB8 on problems
// of up to 48 MiB (pixel48's 4-row x 48-byte micro-tiles beyond).
//
// A tile is T x T units (pieces_policy::tile), rows of T U bytes: whole 16-byte chunks for every odd U. A block
// loops over tiles (grid-stride) with two buffers:
//   1. the next tile's input rows staged as aligned 16-byte chunks (cp.async; a row's last chunk, when the matrix
//      side cuts it, bytewise within the row) while this tile is permuted and stored;
//   2. a micro-tile is 4 staged rows x 4 units (a piece of 4 U bytes = U words a row, 4-byte aligned): each
//      thread reads its micro-tile into registers, and after a barrier writes it as 4 output rows of 4 U bytes
//      over the same buffer (piece_write: one output row's U words at a time, `prmt` per word), the output rows
//      in piece_row's order;
//   3. each output row stored as aligned 16-byte vectors, its partial last chunk piecewise.
// The in-place square (kernels/inplace.cuh, square_permute) uses the same micro-tiles for its tile pairs.
// grid: 1-D over tiles (tile_coords; the dispatcher takes row tiles fastest, then column tiles, then batch),
// grid-stride over the resident blocks; block: one micro-tile a thread.
#pragma once

#include <cstdint>

#include "cuda/kernels/piece_maps.hpp"
#include "cuda/kernels/register_permute.cuh"
#include "cuda/kernels/skinny16.cuh"
#include "cuda/kernels/transpose2d.cuh"
#include "cuda/tuning/pieces.hpp"

namespace xpose::detail {

/// The first n < 16 bytes at src as a chunk (the rest 0), without a local array (also the in-place kernels').
__device__ __forceinline__ uint4 load_partial_chunk(const unsigned char* src, int n) {
  uint4 v{0, 0, 0, 0};
#pragma unroll
  for (int b = 0; b < 16; ++b)
    if (b < n) (&v.x)[b / 4] |= std::uint32_t{__ldcg(src + b)} << (8 * (b % 4));
  return v;
}

/// Output row E of micro-tile `in` (column j of micro-tiles) and the ones after it: permuted into output row
/// c = 4 j + E's 4 U bytes and written at byte `off` of row piece_row(c) of the buffer `buf` (Pitch bytes a
/// row), one output row's U words at a time (13- and 15-byte units would spill holding all 4 U).
template <int U, int T, int Pitch, int E = 0>
__device__ __forceinline__ void piece_write(const std::uint32_t (&in)[4 * U], unsigned buf, unsigned j, unsigned off) {
  static_assert(U % 2 == 1, "odd units: 4-byte aligned words");
  std::uint32_t out[U];
  permute_bytes<piece_map<U, E>>(in, out);
  const unsigned at = buf + piece_row<T>(4 * j + E) * Pitch + off;
#pragma unroll
  for (int v = 0; v < U; ++v) asm volatile("st.shared.b32 [%0], %1;" ::"r"(at + 4 * v), "r"(out[v]) : "memory");
  if constexpr (E + 1 < 4) piece_write<U, T, Pitch, E + 1>(in, buf, j, off);
}

/// Micro-tile `piece` (4 rows, Pitch bytes apart, of U words) into registers.
template <int U, int Pitch>
__device__ __forceinline__ void piece_read(unsigned piece, std::uint32_t (&in)[4 * U]) {
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int v = 0; v < U; ++v)
      asm volatile("ld.shared.b32 %0, [%1];" : "=r"(in[U * i + v]) : "r"(piece + i * Pitch + 4 * v));
}

/// The two-buffer loop of pieces and square_permute over a block's tasks t = blockIdx.x, + gridDim.x, ...:
/// task_of(t) makes a task, load(task, k) stages it into buffer k (cp.async, one commit group), and work(task, k)
/// runs once it is staged, while the block's next task loads into the other buffer. The barrier at the top also
/// tells each task that the previous one's work is done with the buffer its loads go to.
template <class TaskOf, class Load, class Work>
__device__ __forceinline__ void two_buffer_loop(std::int64_t tasks, const TaskOf& task_of, const Load& load,
                                                const Work& work) {
  std::int64_t t = blockIdx.x;
  if (t >= tasks) return;
  auto q = task_of(t);
  load(q, 0);
  for (int k = 0;; k ^= 1) {
    cp_async_wait_all();
    __syncthreads();  // task q staged in buffer k; the previous task's work is done with buffer k ^ 1
    const auto cur = q;
    const std::int64_t next = t + gridDim.x;
    if (next < tasks) {
      q = task_of(next);
      load(q, k ^ 1);
    }
    work(cur, k);
    if (next >= tasks) break;
    t = next;
  }
}

template <int UnitBytes>
struct pieces_shape {
  static_assert(UnitBytes >= 3 && UnitBytes <= 15 && UnitBytes % 2 == 1, "odd units of 3-15 bytes");
  static constexpr int U = UnitBytes, T = pieces_policy::tile, R = T * U;
  static constexpr int row_chunks = R / 16;
  static constexpr int pitch = piece_pitch(R);  // staged and output rows (piece_maps.hpp)
  static constexpr int micro = T / 4;
  static constexpr int threads = pieces_policy::threads;
  static_assert(R % 16 == 0 && micro * micro == threads, "whole chunks; one micro-tile a thread");
  static constexpr int smem_bytes = 2 * T * pitch;  // two buffers
};

template <int UnitBytes>
__global__ void __launch_bounds__(pieces_shape<UnitBytes>::threads) transpose2d_pieces_kernel(const transpose2d_params p) {
  using S = pieces_shape<UnitBytes>;
  constexpr int U = UnitBytes, T = S::T, threads = S::threads;
  extern __shared__ __align__(16) unsigned char pieces_smem[];
  const auto smem = static_cast<unsigned>(__cvta_generic_to_shared(pieces_smem));
  auto buffer = [&](int k) { return smem + static_cast<unsigned>(k * T * S::pitch); };
  // Tile: its first input row's bytes at `in` (rows input rows of cols units), output row c at out + c out_ld.
  struct tile {
    std::uint64_t in, out;
    int rows, cols;
  };
  auto tile_of = [&](std::int64_t t) {
    const tile_coords tc(p, t, T, T);
    const std::int64_t rl = p.rows - tc.r0, cl = p.cols - tc.c0;
    return tile{reinterpret_cast<std::uint64_t>(p.in) + tc.in_off + tc.r0 * p.in_ld + tc.c0 * U,
                reinterpret_cast<std::uint64_t>(p.out) + tc.out_off + tc.c0 * p.out_ld + tc.r0 * U,
                static_cast<int>(rl < T ? rl : T), static_cast<int>(cl < T ? cl : T)};
  };
  // A thread keeps one chunk column (lane_chunk) and steps down the rows, lane_rows at a time (threads past
  // rows x chunks idle): addresses advance by adds.
  constexpr int lane_rows = threads / S::row_chunks;
  const int lane_chunk = static_cast<int>(threadIdx.x) % S::row_chunks;
  const int lane_row = static_cast<int>(threadIdx.x) / S::row_chunks;
  auto issue_loads = [&](const tile& q, int k) {
    const int o = 16 * lane_chunk, bytes = q.cols * U;
    if (lane_row < lane_rows && o < bytes) {
      std::uint64_t src = q.in + static_cast<std::uint64_t>(lane_row) * p.in_ld + o;
      unsigned dst = buffer(k) + static_cast<unsigned>(lane_row * S::pitch + o);
      const std::uint64_t step = static_cast<std::uint64_t>(lane_rows) * p.in_ld;
      if (o + 16 <= bytes) {
        for (int i = lane_row; i < q.rows; i += lane_rows, src += step, dst += lane_rows * S::pitch)
          cp_async_bytes<16>(dst, reinterpret_cast<const void*>(src));
      } else {
        for (int i = lane_row; i < q.rows; i += lane_rows, src += step, dst += lane_rows * S::pitch) {
          const uint4 v = load_partial_chunk(reinterpret_cast<const unsigned char*>(src), bytes - o);
          const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
          sts128(dst, w);
        }
      }
    }
    cp_async_commit();
  };
  // This thread's micro-tile (h, j): staged rows 4h .. 4h + 3, units [4j, 4j + 4) -> output rows 4j .. 4j + 3,
  // bytes [4 h U, 4 h U + 4 U). Rows and units past the tile's edge are permuted (stale bytes), never stored.
  const int h = static_cast<int>(threadIdx.x) / S::micro, j = static_cast<int>(threadIdx.x) % S::micro;

  two_buffer_loop(p.tiles_total, tile_of, issue_loads, [&](const tile& cur, int k) {
    const bool mine = 4 * h < cur.rows && 4 * j < cur.cols;
    std::uint32_t in[4 * U];
    if (mine) piece_read<U, S::pitch>(buffer(k) + static_cast<unsigned>(4 * h * S::pitch + 4 * U * j), in);
    __syncthreads();  // every micro-tile read: the buffer takes the output rows
    if (mine) piece_write<U, T, S::pitch>(in, buffer(k), static_cast<unsigned>(j), static_cast<unsigned>(4 * h * U));
    __syncthreads();  // output rows complete
    // Output row c (cols of them) holds rows U bytes: a thread keeps one chunk column and steps down the rows,
    // two rows' shared loads in flight before their stores.
    const int o = 16 * lane_chunk, bytes = cur.rows * U;
    if (lane_row < lane_rows && o < bytes) {
      const unsigned n = static_cast<unsigned>(o + 16 <= bytes ? 16 : bytes - o);
      std::uint64_t dst = cur.out + static_cast<std::uint64_t>(lane_row) * p.out_ld + o;
      const std::uint64_t step = static_cast<std::uint64_t>(lane_rows) * p.out_ld;
      for (int c = lane_row; c < cur.cols; c += 2 * lane_rows, dst += 2 * step) {
        std::uint32_t w[2][4];
#pragma unroll
        for (int u = 0; u < 2; ++u)
          if (c + u * lane_rows < cur.cols)
            lds128(buffer(k) + piece_row<T>(static_cast<unsigned>(c + u * lane_rows)) * S::pitch + o, w[u]);
#pragma unroll
        for (int u = 0; u < 2; ++u)
          if (c + u * lane_rows < cur.cols) store_byte_range(dst + u * step, 0, n, w[u]);
      }
    }
  });
}

}  // namespace xpose::detail
