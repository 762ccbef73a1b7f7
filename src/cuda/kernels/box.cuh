// box family: transpose2d geometries whose tile sides stay short, moved as boxes of several axes (plan/box.hpp
// chooses them). A block builds its tables once — the byte offset of each input run and of each output run in
// the box (or of each element), and src[o] (the input-order index of the o-th element in output order) — then
// for each of its boxes loads the elements in input order into shared memory (runs of in_run elements
// contiguous in the input, so consecutive threads read consecutive units) and stores them in output order
// (runs of out_run contiguous). Global accesses are LoadBytes / StoreBytes wide (up to 16 bytes, several
// units) where the runs' lengths and the strides around them allow (dispatch/box.cu decides), else a unit.
// grid: 1-D, grid-stride loop over boxes (the batch); block: box_policy::threads (box_kernel: or small_threads).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/index_math.hpp"
#include "cuda/kernels/transpose2d.cuh"  // word_type
#include "cuda/tuning/box.hpp"

namespace xpose::detail {

inline constexpr int box_max_rank = 2 * 9;  // both tile sides and the batch axes split off them

inline constexpr int box_table_entries = 8192;  // box_volume_limit (plan/box.hpp): 2-byte units
inline constexpr int box_data_bytes = 32768;

/// box_kernel's dynamic shared memory for a box of `volume` elements with `in_runs` / `out_runs` table entries
/// a side (the box's runs, or one an element: tuning/box.hpp, choose_box_kernel): each entry's offset (4 bytes),
/// the data (from a 16-byte boundary; two stages of it where box_kernel loads 16 bytes an access, box_stages),
/// then src (2 bytes an element).
inline constexpr int box_stages(int load_bytes) { return load_bytes == 16 ? 2 : 1; }
inline constexpr int box_data_offset(int in_runs, int out_runs) { return (4 * (in_runs + out_runs) + 15) / 16 * 16; }
inline constexpr int box_data_bytes_of(int volume, int unit_bytes) { return (volume * unit_bytes + 15) / 16 * 16; }
inline constexpr int box_src_offset(int volume, int unit_bytes, int stages, int in_runs, int out_runs) {
  return box_data_offset(in_runs, out_runs) + stages * box_data_bytes_of(volume, unit_bytes);
}
inline constexpr int box_smem_bytes(int volume, int unit_bytes, int stages, int in_runs, int out_runs) {
  return box_src_offset(volume, unit_bytes, stages, in_runs, out_runs) + 2 * volume;
}

struct box_params {
  const unsigned char* in;
  unsigned char* out;
  int rank = 0;                                // box axes, input order (fastest first)
  unsigned extent[box_max_rank] = {};
  div32 extent_div[box_max_rank];              // for the tables (indices < volume < 2^16: div32 is exact)
  unsigned in_weight[box_max_rank] = {};       // input-order index weight of each axis (product of the faster extents)
  unsigned in_stride[box_max_rank] = {};       // bytes (the box spans < 2^31 bytes on each side)
  unsigned out_stride[box_max_rank] = {};
  int out_order[box_max_rank] = {};            // box axes by ascending output stride
  unsigned volume = 0;
  std::int64_t boxes = 0;                      // product of the batch extents
  batch_map<box_max_rank> batch;               // box index -> byte offsets
  unsigned in_run = 1, out_run = 1;            // elements contiguous in the input / output (b.in_run, b.out_run)
  div32 in_run_div, out_run_div;
  // box16 only (1-byte units):
  std::uint64_t in_lo = 0, in_hi = 0;          // the input view's bytes: loads never leave them
  unsigned in_chunks = 1, out_chunks = 1;      // 16-byte chunks an input run is staged in; an output run spans
  unsigned in_pitch = 16;                      // stage bytes from one input run to the next (box16_in_pitch)
  unsigned group = 1;                          // boxes staged together (so that each phase has work for every thread)
  unsigned in_items = 1, out_items = 1, quads = 1;  // a box's input chunks, output chunks, 16-element groups
  unsigned out_runs = 1;                       // output runs a box (volume / out_run)
  unsigned in_reach = 0;                       // a box's chunk loads end before its input address + in_reach
  div32 in_chunks_div, out_chunks_div, in_items_div, out_items_div, quads_div, out_runs_div;
};

/// box16's dynamic shared memory (byte offsets): src (2 bytes an element, padded to whole 16-element groups),
/// the input and output runs' offsets (4 bytes a run), the staged input runs (`in_pitch` bytes apart, a multiple
/// of 4: box16_in_pitch) and the output in output order (packed, 16 bytes of margin before and 48 after for the
/// realigning reads).
struct box16_layout {
  unsigned src = 0, in_runs = 0, out_runs = 0, bases = 0, stage_in = 0, stage_out = 0, bytes = 0;
  unsigned stage_in_box = 0, stage_out_box = 0;  // bytes a box of the group
};

inline box16_layout make_box16_layout(unsigned volume, unsigned unit_bytes, unsigned in_runs, unsigned in_pitch,
                                      unsigned out_runs, unsigned group) {
  box16_layout l;
  l.src = 0;
  l.in_runs = 2 * ((volume + 15) / 16 * 16);  // src padded to whole 16-element groups (entries past volume: 0)
  l.out_runs = l.in_runs + 4 * in_runs;
  l.bases = (l.out_runs + 4 * out_runs + 15) / 16 * 16;  // the group's boxes' input and output addresses
  l.stage_in = l.bases + 16 * group;
  l.stage_in_box = (in_pitch * in_runs + 15) / 16 * 16;
  l.stage_out_box = (volume * unit_bytes + 64 + 15) / 16 * 16;
  l.stage_out = l.stage_in + group * l.stage_in_box;
  l.bytes = l.stage_out + group * l.stage_out_box;
  return l;
}

/// The input byte offset of the box's input-order element i (its digits over the axes, fastest first).
__device__ __forceinline__ unsigned box_in_offset(const box_params& p, unsigned i) {
  unsigned rest = i, off = 0;
  for (int k = 0; k < p.rank; ++k) {
    const unsigned q = p.extent_div[k].div(rest);
    off += (rest - q * p.extent[k]) * p.in_stride[k];
    rest = q;
  }
  return off;
}

/// The output byte offset of the box's output-order element i, and its input-order index (its digits
/// weighted by the input-order radix), in one pass over its digits.
__device__ __forceinline__ unsigned box_out_offset(const box_params& p, unsigned i, unsigned& in_index) {
  unsigned rest = i, off = 0;
  in_index = 0;
  for (int j = 0; j < p.rank; ++j) {
    const int k = p.out_order[j];
    const unsigned q = p.extent_div[k].div(rest), d = rest - q * p.extent[k];
    rest = q;
    off += d * p.out_stride[k];
    in_index += d * p.in_weight[k];
  }
  return off;
}

/// Threads: the block, box_policy::threads or (single-stage boxes whose 256-thread blocks would be limited by
/// threads, not shared memory) box_policy::small_threads (box_threads, tuning/box.hpp).
/// RunTables: the tables hold an offset a run (p.in_run, p.out_run elements), else one an element (indexed
/// without a division: on large fp32 boxes of 4-byte accesses the division cost 3-4 %; choose_box_kernel).
template <int UnitBytes, int LoadBytes, int StoreBytes, int Threads = box_policy::threads, bool RunTables = true>
__global__ void __launch_bounds__(Threads) box_kernel(const box_params p) {
  using word = typename word_type<UnitBytes>::type;
  using load_word = typename word_type<LoadBytes>::type;
  using store_word = typename word_type<StoreBytes>::type;
  constexpr int threads = Threads, batch = box_policy::loads_in_flight;
  constexpr unsigned L = LoadBytes / UnitBytes, S = StoreBytes / UnitBytes;  // units an access
  extern __shared__ uint4 box_smem[];  // 16-byte aligned
  const unsigned V = p.volume;
  // Elements a table entry covers: the runs, or one.
  const unsigned in_run = RunTables ? p.in_run : 1u, out_run = RunTables ? p.out_run : 1u;
  const unsigned in_runs = V / in_run, out_runs = V / out_run;
  auto* base = reinterpret_cast<unsigned char*>(box_smem);
  auto* in_run_off = reinterpret_cast<unsigned*>(base);
  unsigned* out_run_off = in_run_off + in_runs;
  word* data = reinterpret_cast<word*>(base + box_data_offset(static_cast<int>(in_runs), static_cast<int>(out_runs)));
  auto* src = reinterpret_cast<unsigned short*>(
      base + box_src_offset(static_cast<int>(V), UnitBytes, box_stages(LoadBytes), static_cast<int>(in_runs),
                            static_cast<int>(out_runs)));
  // Tables, once per block: each run's offset (its first element's digits over the axes), and each output-order
  // element's input-order index. Element i of the input order lies at in_run_off[i / in_run] + (i mod in_run)
  // units, and likewise for the output (runs are whole numbers of L and S units). Without RunTables the tables
  // hold every element.
  for (unsigned r = threadIdx.x; r < in_runs; r += threads) in_run_off[r] = box_in_offset(p, r * in_run);
  for (unsigned i = threadIdx.x; i < V; i += threads) {
    unsigned in_index = 0;
    const unsigned off = box_out_offset(p, i, in_index);
    if (const unsigned r = RunTables ? p.out_run_div.div(i) : i; i == r * out_run) out_run_off[r] = off;
    src[i] = static_cast<unsigned short>(in_index);
  }
  __syncthreads();  // tables complete
  auto in_off = [&](unsigned i) {
    if constexpr (!RunTables) return in_run_off[i];
    const unsigned r = p.in_run_div.div(i);
    return in_run_off[r] + (i - r * in_run) * UnitBytes;
  };
  auto out_off = [&](unsigned o) {
    if constexpr (!RunTables) return out_run_off[o];
    const unsigned r = p.out_run_div.div(o);
    return out_run_off[r] + (o - r * out_run) * UnitBytes;
  };

  // Output order, S units an access: gathered from `stage` one unit at a time, stored as one word.
  auto store_box = [&](const word* stage, unsigned char* out) {
    for (unsigned o = threadIdx.x * S; o < V; o += threads * S) {
      if constexpr (S == 1) {
        *reinterpret_cast<word*>(out + out_off(o)) = stage[src[o]];
      } else {
        union {
          store_word whole;
          word part[S];
        } w;
#pragma unroll
        for (unsigned j = 0; j < S; ++j) w.part[j] = stage[src[o + j]];
        *reinterpret_cast<store_word*>(out + out_off(o)) = w.whole;
      }
    }
  };
  if constexpr (LoadBytes == 16) {
    // Two stages: the block's next box is loaded (cp.async, every access in flight at once) while the current
    // one is stored. One stage with `batch` loads a thread in flight left the SMs waiting on DRAM between the
    // phases (ncu, fp16 30x24x42x110x2x40: issue 0.34 a scheduler, barrier and long-scoreboard stalls first;
    // 0.535 -> 0.783 of memcpy with this, H100). Not for 4- and 8-byte accesses: their cp.async (through L1)
    // lost, fp16 7x3x2x218x41x7x2x51 (4-byte runs' alignment) 0.630 -> 0.482.
    const auto stage_bytes = static_cast<unsigned>(box_data_bytes_of(static_cast<int>(V), UnitBytes));
    const auto stage0 = static_cast<unsigned>(__cvta_generic_to_shared(data));
    auto load_box = [&](std::int64_t b, unsigned stage) {
      std::int64_t in_base = 0, out_base = 0;
      p.batch.offsets(static_cast<std::uint64_t>(b), in_base, out_base);
      const unsigned char* in = p.in + in_base;
      for (unsigned i = threadIdx.x * L; i < V; i += threads * L)
        cp_async_bytes<LoadBytes>(stage + i * UnitBytes, in + in_off(i));
      cp_async_commit();
    };
    unsigned cur = 0;
    if (blockIdx.x < p.boxes) load_box(blockIdx.x, stage0);
    for (std::int64_t b = blockIdx.x; b < p.boxes; b += gridDim.x) {
      if (b + gridDim.x < p.boxes) {
        load_box(b + gridDim.x, stage0 + (cur ^ 1) * stage_bytes);  // read by the last box's stores: past its barrier
        cp_async_wait_group<1>();
      } else {
        cp_async_wait_group<0>();
      }
      __syncthreads();  // box b is staged
      std::int64_t in_base = 0, out_base = 0;
      p.batch.offsets(static_cast<std::uint64_t>(b), in_base, out_base);
      store_box(reinterpret_cast<const word*>(reinterpret_cast<const unsigned char*>(data) + cur * stage_bytes),
                p.out + out_base);
      __syncthreads();  // stores have read the stage before the loads two boxes on overwrite it
      cur ^= 1;
    }
  } else {
    for (std::int64_t b = blockIdx.x; b < p.boxes; b += gridDim.x) {
      std::int64_t in_base = 0, out_base = 0;
      p.batch.offsets(static_cast<std::uint64_t>(b), in_base, out_base);
      const unsigned char* in = p.in + in_base;
      // Input order, L units an access (whole input runs are multiples of L, their starts aligned to it):
      // `batch` loads in flight before their shared-memory stores.
      for (unsigned i0 = threadIdx.x * L; i0 < V; i0 += batch * threads * L) {
        load_word v[batch];
#pragma unroll
        for (int s = 0; s < batch; ++s) {
          const unsigned i = i0 + s * threads * L;
          if (i < V) v[s] = __ldg(reinterpret_cast<const load_word*>(in + in_off(i)));
        }
#pragma unroll
        for (int s = 0; s < batch; ++s) {
          const unsigned i = i0 + s * threads * L;
          if (i < V) *reinterpret_cast<load_word*>(data + i) = v[s];
        }
      }
      __syncthreads();  // the box is staged
      store_box(data, p.out + out_base);
      __syncthreads();  // stores have read `data` before the next box overwrites it
    }
  }
}

/// box16<UnitBytes> (1-byte units; a 2-byte build passed the GPU tests but ran 0.02-0.04 below box_kernel, and
/// was dropped): the box of box_kernel with 16-byte aligned global
/// accesses whatever the runs' lengths and the boxes' alignment (runs of 714 or 204 bytes at odd offsets moved
/// 2 and 4 bytes an access there). Per box:
/// 1. each input run is copied as the aligned 16-byte chunks that cover it (whole chunks anywhere inside the
///    input view; box16_in_chunks) to a fixed pitch, unaligned: run r of box g starts (box address mod 16) +
///    (run offset mod 16) bytes into its slot, so src[o] — the stage byte of the o-th element in output order,
///    its run's shift included — is a table built once per block, and the box's shift one add a gather. The
///    pitch (box16_in_pitch, tuning/box.hpp) is 16 x the run's chunks, plus 4, 8 or 12 bytes when the gather
///    below would otherwise meet bank conflicts across runs (the chunks are then stored as 4- or 8-byte words);
/// 2. the elements are gathered in output order into stage_out, packed, 16 bytes a store;
/// 3. each output run is stored on the output's 16-byte grid: a chunk's 16 bytes realigned from two stage
///    words, one vector store inside the run, byte ranges at its ends (store_byte_range), so no other run's
///    bytes are touched.
/// Shared memory: 2 bytes of tables an element plus about twice the box's data (box16_layout).
/// StageBytes: the stores of a staged chunk, 16 on the plain pitch, else 8 or 4 (the pitch's alignment).
template <int UnitBytes, int StageBytes>
__global__ void __launch_bounds__(box_policy::threads) box16_kernel(const box_params p, const box16_layout l) {
  static_assert(UnitBytes == 1, "box16 moves 1-byte units");
  static_assert(StageBytes == 16 || StageBytes == 8 || StageBytes == 4, "16-, 8- or 4-byte stage stores");
  constexpr int threads = box_policy::threads, batch = box_policy::loads_in_flight;
  extern __shared__ uint4 box_smem[];
  auto* base = reinterpret_cast<unsigned char*>(box_smem);
  auto* src = reinterpret_cast<unsigned short*>(base + l.src);
  auto* in_run_off = reinterpret_cast<unsigned*>(base + l.in_runs);
  auto* out_run_off = reinterpret_cast<unsigned*>(base + l.out_runs);
  unsigned char* stage_in = base + l.stage_in;
  unsigned char* stage_out = base + l.stage_out;
  const unsigned V = p.volume, in_run = p.in_run, out_run = p.out_run;
  const unsigned in_pitch = p.in_pitch;  // stage_in bytes a run
  // Tables: each input run's offset in the box, then (reading them) each output-order element's place in the
  // stage — its run's slot, the run's offset mod 16 (the run's shift in its staged chunks), its index in the
  // run — and each output run's offset.
  const unsigned in_runs = V / in_run;
  for (unsigned r = threadIdx.x; r < in_runs; r += threads) in_run_off[r] = box_in_offset(p, r * in_run);
  __syncthreads();  // in_run_off complete
  const unsigned padded = 16 * p.quads;  // src entries: whole 16-element groups, those past V read byte 0
  for (unsigned i = threadIdx.x; i < padded; i += threads) {
    if (i >= V) {
      src[i] = 0;
      continue;
    }
    unsigned in_index = 0;
    const unsigned off = box_out_offset(p, i, in_index);
    if (const unsigned r = p.out_run_div.div(i); i == r * out_run) out_run_off[r] = off;
    const unsigned q = p.in_run_div.div(in_index);
    src[i] = static_cast<unsigned short>(q * in_pitch + (in_run_off[q] & 15) + (in_index - q * in_run) * UnitBytes);
  }
  __syncthreads();  // tables complete

  const unsigned out_bytes = out_run * UnitBytes;
  const unsigned G = p.group;
  // [g]: box g's input address ([0]'s for boxes past the last, whose loads are then harmless duplicates),
  // [G + g]: its output address, 0 past the last box.
  auto* bases = reinterpret_cast<std::uint64_t*>(base + l.bases);
  // 1. input runs -> stage_in as whole aligned chunks, not realigned: run r of box g from (box address & ~15)
  //    + (run offset & ~15), at stage_in_box g + in_pitch r. Inside: every chunk lies within the input view:
  //    cp.async on the plain pitch (16-byte slots), else loads (`batch` in flight a thread) and 8- or 4-byte
  //    stores; a group with a box off the view's ends takes load_chunk's per-chunk test. Before, each chunk was
  //    realigned from two loads in registers: 72 instructions a chunk, 28 % of the kernel's (ncu).
  auto stage_inputs = [&](auto inside) {
    const unsigned in_total = G * p.in_items;
    constexpr bool async = StageBytes == 16 && decltype(inside)::value;
    auto chunk_of = [&](unsigned it, unsigned& dst) {
      const unsigned g = p.in_items_div.div(it), item = it - g * p.in_items;
      const unsigned r = p.in_chunks_div.div(item), k = item - r * p.in_chunks;
      dst = g * l.stage_in_box + r * in_pitch + 16 * k;
      return (bases[g] & ~std::uint64_t{15}) + (in_run_off[r] & ~15u) + 16 * k;
    };
    if constexpr (async) {
      const auto stage0 = static_cast<unsigned>(__cvta_generic_to_shared(stage_in));
      for (unsigned it = threadIdx.x; it < in_total; it += threads) {
        unsigned dst = 0;
        const std::uint64_t c = chunk_of(it, dst);
        cp_async_bytes<16>(stage0 + dst, reinterpret_cast<const void*>(c));
      }
      cp_async_wait_all();
    } else {
      for (unsigned it0 = threadIdx.x; it0 < in_total; it0 += batch * threads) {
        uint4 v[batch];
        unsigned dst[batch];
#pragma unroll
        for (int s = 0; s < batch; ++s) {
          const unsigned it = min(it0 + s * threads, in_total - 1);  // past the end: the last item again, not stored
          const std::uint64_t c = chunk_of(it, dst[s]);
          if constexpr (decltype(inside)::value) v[s] = __ldg(reinterpret_cast<const uint4*>(c));
          else v[s] = load_chunk(c, p.in_lo, p.in_hi);
        }
#pragma unroll
        for (int s = 0; s < batch; ++s) {
          if (it0 + s * threads >= in_total) continue;
          unsigned char* d = stage_in + dst[s];
          if constexpr (StageBytes == 16) {
            *reinterpret_cast<uint4*>(d) = v[s];
          } else if constexpr (StageBytes == 8) {
            reinterpret_cast<uint2*>(d)[0] = make_uint2(v[s].x, v[s].y);
            reinterpret_cast<uint2*>(d)[1] = make_uint2(v[s].z, v[s].w);
          } else {
            auto* d4 = reinterpret_cast<std::uint32_t*>(d);
            d4[0] = v[s].x, d4[1] = v[s].y, d4[2] = v[s].z, d4[3] = v[s].w;
          }
        }
      }
    }
  };
  for (std::int64_t b0 = static_cast<std::int64_t>(blockIdx.x) * G; b0 < p.boxes; b0 += static_cast<std::int64_t>(gridDim.x) * G) {
    bool inside = true;
    for (unsigned g = threadIdx.x; g < G; g += threads) {
      const std::int64_t b = b0 + g < p.boxes ? b0 + g : b0;
      std::int64_t in_base = 0, out_base = 0;
      p.batch.offsets(static_cast<std::uint64_t>(b), in_base, out_base);
      const std::uint64_t box_in = reinterpret_cast<std::uint64_t>(p.in) + in_base;
      bases[g] = box_in;
      bases[G + g] = b0 + g < p.boxes ? reinterpret_cast<std::uint64_t>(p.out) + out_base : 0;
      inside = inside && (box_in & ~std::uint64_t{15}) >= p.in_lo && box_in + p.in_reach <= p.in_hi;
    }
    if (__syncthreads_and(inside)) {  // bases complete
      stage_inputs(std::true_type{});
    } else {
      stage_inputs(std::false_type{});
    }
    __syncthreads();  // stage_in complete
    // 2. output order, packed: box g's element o at stage_out[stage_out_box g + 16 + o], 16 elements a thread
    //    (two 16-byte loads of src, 16 byte gathers, one 16-byte store; 4 elements a thread took ~13
    //    instructions a byte, over 40 % of the kernel's, on index math). src is padded to whole groups, so no
    //    thread takes a per-element path (one that did diverged a third of the warps; the padding's bytes land
    //    in stage_out's margin and are never stored).
    const unsigned quads_total = G * p.quads;
    for (unsigned qi = threadIdx.x; qi < quads_total; qi += threads) {
      const unsigned g = p.quads_div.div(qi), q = qi - g * p.quads;
      const unsigned o = 16 * q;
      const unsigned char* in_g = stage_in + g * l.stage_in_box + (static_cast<unsigned>(bases[g]) & 15);
      const uint4 s0 = *reinterpret_cast<const uint4*>(src + o), s1 = *reinterpret_cast<const uint4*>(src + o + 8);
      const std::uint32_t e[8] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w};  // two entries each
      std::uint32_t w[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const std::uint32_t b0 = in_g[e[2 * k] & 0xffff], b1 = in_g[e[2 * k] >> 16];
        const std::uint32_t b2 = in_g[e[2 * k + 1] & 0xffff], b3 = in_g[e[2 * k + 1] >> 16];
        w[k] = b0 | (b1 << 8) | (b2 << 16) | (b3 << 24);
      }
      *reinterpret_cast<uint4*>(stage_out + g * l.stage_out_box + 16 + o) = make_uint4(w[0], w[1], w[2], w[3]);
    }
    __syncthreads();  // stage_out complete
    // 3. output runs on the output's 16-byte grid: grid chunk k of run r holds run bytes [16 k - ph, 16 k - ph +
    //    16), ph = the run's address mod 16, realigned from the two 16-byte stage words around them. Whole
    //    chunks first, one vector store each and nothing else; then each run's partial first and last chunks,
    //    only their own bytes (store_byte_range), so no other run's bytes are touched. One loop for both had
    //    most warps run both paths (42 % of the kernel's instructions, 17 threads of 32 active: ncu, u8
    //    7x3x2x436x41x7x2x51).
    auto chunk_words = [&](unsigned g, unsigned r, unsigned k, unsigned ph, std::uint32_t (&w)[4]) {
      const unsigned at = 16 + r * out_bytes + 16 * k - ph;  // stage byte of the chunk's byte 0
      const unsigned char* out_g = stage_out + g * l.stage_out_box;
      const uint4 x4 = *reinterpret_cast<const uint4*>(out_g + (at & ~15u));
      const uint4 y4 = *reinterpret_cast<const uint4*>(out_g + (at & ~15u) + 16);
      const std::uint32_t x[4] = {x4.x, x4.y, x4.z, x4.w}, y[4] = {y4.x, y4.y, y4.z, y4.w};
      realign(x, y, at & 15, w);
    };
    const unsigned out_total = G * p.out_items;
    for (unsigned it = threadIdx.x; it < out_total; it += threads) {
      const unsigned g = p.out_items_div.div(it), item = it - g * p.out_items;
      const unsigned r = p.out_chunks_div.div(item), k = item - r * p.out_chunks;
      const std::uint64_t box_out = bases[G + g];
      const std::uint64_t run = box_out + out_run_off[r];
      const unsigned ph = static_cast<unsigned>(run) & 15;
      if (box_out == 0 || (k == 0 && ph != 0) || 16 * k + 16 > out_bytes + ph) continue;  // partial (or none)
      std::uint32_t w[4];
      chunk_words(g, r, k, ph, w);
      *reinterpret_cast<uint4*>(run - ph + 16 * k) = make_uint4(w[0], w[1], w[2], w[3]);
    }
    const unsigned ends_total = 2 * G * p.out_runs;
    for (unsigned it = threadIdx.x; it < ends_total; it += threads) {
      const unsigned last = it & 1, g = p.out_runs_div.div(it >> 1), r = (it >> 1) - g * p.out_runs;
      const std::uint64_t box_out = bases[G + g];
      const std::uint64_t run = box_out + out_run_off[r];
      const unsigned ph = static_cast<unsigned>(run) & 15, end = ph + out_bytes;  // end: past the run's last byte
      // The first chunk when it is partial; the last when it is partial and not the first.
      const unsigned k = last ? (end - 1) / 16 : 0;
      if (box_out == 0 || (last ? k == 0 || end % 16 == 0 : ph == 0 && end >= 16)) continue;
      const unsigned lo = k == 0 ? ph : 0, hi = min(16u, end - 16 * k);
      std::uint32_t w[4];
      chunk_words(g, r, k, ph, w);
      store_byte_range(run - ph + 16 * k, lo, hi, w);
    }
    __syncthreads();  // bases, stage_in and stage_out are free for the next group
  }
}

}  // namespace xpose::detail
