// box family: transpose2d geometries whose tile sides stay short, moved as boxes of several axes (plan/box.hpp
// chooses them). A block builds three tables once — in_off[i] (byte offset of the i-th box element in input
// order), out_off[o] and src[o] (byte offset and input-order index of the o-th element in output order) —
// then for each of its boxes loads the elements in input order into shared memory (runs of in_run elements
// contiguous in the input, so consecutive threads read consecutive units) and stores them in output order
// (runs of out_run contiguous). Global accesses are LoadBytes / StoreBytes wide (up to 16 bytes, several
// units) where the runs' lengths and the strides around them allow (dispatch/box.cu decides), else a unit.
// grid: 1-D, grid-stride loop over boxes (the batch); block: box_policy::threads.
#pragma once

#include <cstdint>

#include "cuda/index_math.hpp"
#include "cuda/kernels/transpose2d.cuh"  // word_type
#include "cuda/tuning/box.hpp"

namespace xpose::detail {

inline constexpr int box_max_rank = 2 * 9;  // both tile sides and the batch axes split off them
inline constexpr int box_table_entries = 4096;
inline constexpr int box_data_bytes = 32768;

/// Dynamic shared memory of a box of `volume` elements: in_off and out_off (4 bytes each), the data (from a
/// 16-byte boundary), then src (2 bytes each).
inline constexpr int box_data_offset(int volume) { return (8 * volume + 15) / 16 * 16; }
inline constexpr int box_src_offset(int volume, int unit_bytes) {
  return (box_data_offset(volume) + volume * unit_bytes + 1) / 2 * 2;
}
inline constexpr int box_smem_bytes(int volume, int unit_bytes) { return box_src_offset(volume, unit_bytes) + 2 * volume; }

struct box_params {
  const unsigned char* in;
  unsigned char* out;
  int rank = 0;                                // box axes, input order (fastest first)
  unsigned extent[box_max_rank] = {};
  unsigned in_stride[box_max_rank] = {};       // bytes (the box spans < 2^31 bytes on each side)
  unsigned out_stride[box_max_rank] = {};
  int out_order[box_max_rank] = {};            // box axes by ascending output stride
  unsigned volume = 0;
  std::int64_t boxes = 0;                      // product of the batch extents
  batch_map<box_max_rank> batch;               // box index -> byte offsets
};

template <int UnitBytes, int LoadBytes, int StoreBytes>
__global__ void __launch_bounds__(box_policy::threads) box_kernel(const box_params p) {
  using word = typename word_type<UnitBytes>::type;
  using load_word = typename word_type<LoadBytes>::type;
  using store_word = typename word_type<StoreBytes>::type;
  constexpr int threads = box_policy::threads, batch = box_policy::loads_in_flight;
  constexpr unsigned L = LoadBytes / UnitBytes, S = StoreBytes / UnitBytes;  // units an access
  extern __shared__ uint4 box_smem[];  // 16-byte aligned
  const unsigned V = p.volume;
  auto* base = reinterpret_cast<unsigned char*>(box_smem);
  auto* in_off = reinterpret_cast<unsigned*>(base);
  unsigned* out_off = in_off + V;
  word* data = reinterpret_cast<word*>(base + box_data_offset(static_cast<int>(V)));
  auto* src = reinterpret_cast<unsigned short*>(base + box_src_offset(static_cast<int>(V), UnitBytes));
  // Tables, once per block: decode each index over the axes (fastest first).
  for (unsigned i = threadIdx.x; i < V; i += threads) {
    unsigned rest = i, off = 0;
    for (int k = 0; k < p.rank; ++k) {
      const unsigned d = rest % p.extent[k];
      rest /= p.extent[k];
      off += d * p.in_stride[k];
    }
    in_off[i] = off;
    rest = i;
    unsigned o_off = 0;
    for (int j = 0; j < p.rank; ++j) {
      const int k = p.out_order[j];
      const unsigned d = rest % p.extent[k];
      rest /= p.extent[k];
      o_off += d * p.out_stride[k];
    }
    out_off[i] = o_off;
    // Input-order index of output-order element i: its digits weighted by the input-order radix.
    unsigned in_index = 0, weight = 1;
    rest = i;
    unsigned digit[box_max_rank];
    for (int j = 0; j < p.rank; ++j) {
      const int k = p.out_order[j];
      digit[k] = rest % p.extent[k];
      rest /= p.extent[k];
    }
    for (int k = 0; k < p.rank; ++k) {
      in_index += digit[k] * weight;
      weight *= p.extent[k];
    }
    src[i] = static_cast<unsigned short>(in_index);
  }
  __syncthreads();  // tables complete

  for (std::int64_t b = blockIdx.x; b < p.boxes; b += gridDim.x) {
    std::int64_t in_base = 0, out_base = 0;
    p.batch.offsets(static_cast<std::uint64_t>(b), in_base, out_base);
    const unsigned char* in = p.in + in_base;
    unsigned char* out = p.out + out_base;
    // Input order, L units an access (whole input runs are multiples of L, their starts aligned to it):
    // `batch` loads in flight before their shared-memory stores.
    for (unsigned i0 = threadIdx.x * L; i0 < V; i0 += batch * threads * L) {
      load_word v[batch];
#pragma unroll
      for (int s = 0; s < batch; ++s) {
        const unsigned i = i0 + s * threads * L;
        if (i < V) v[s] = __ldg(reinterpret_cast<const load_word*>(in + in_off[i]));
      }
#pragma unroll
      for (int s = 0; s < batch; ++s) {
        const unsigned i = i0 + s * threads * L;
        if (i < V) *reinterpret_cast<load_word*>(data + i) = v[s];
      }
    }
    __syncthreads();  // the box is staged
    // Output order, S units an access: gathered from `data` one unit at a time, stored as one word.
    for (unsigned o = threadIdx.x * S; o < V; o += threads * S) {
      if constexpr (S == 1) {
        *reinterpret_cast<word*>(out + out_off[o]) = data[src[o]];
      } else {
        union {
          store_word whole;
          word part[S];
        } w;
#pragma unroll
        for (unsigned j = 0; j < S; ++j) w.part[j] = data[src[o + j]];
        *reinterpret_cast<store_word*>(out + out_off[o]) = w.whole;
      }
    }
    __syncthreads();  // stores have read `data` before the next box overwrites it
  }
}

}  // namespace xpose::detail
