// Tuning of the box family (kernels/box.cuh, dispatch/box.cu; box shapes: plan/box.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "cuda/tuning/smem_banks.hpp"
#include "plan/box.hpp"

namespace xpose::detail {

struct box_policy {
  static constexpr int threads = 256;
  /// Loads a thread issues before their shared-memory stores (a box of 2048 elements: 8 per thread).
  static constexpr int loads_in_flight = 4;
  /// The grid is as many blocks as are resident at once: 2048 threads an SM, and shared memory (14 bytes an
  /// element for fp32 boxes; H100: 228 KiB an SM, 1 KiB reserved a block; box_blocks_per_sm). Blocks loop over
  /// boxes, so the offset tables are built once per block, not per box. (6 fixed blocks an SM for 4096-element
  /// boxes of 56 KiB did not fit: fp32 4x51 tiles' boxes of 1428 elements ran 0.747 with 6, 0.682 with 4.)
  static constexpr int smem_per_sm = 228 * 1024;
  /// box_kernel's smaller block (box_threads).
  static constexpr int small_threads = 128;
};

/// Blocks of `threads` threads an SM holds for a box of `smem` bytes of shared memory.
inline int box_blocks_per_sm(int threads, int smem) {
  return std::max(1, std::min(2048 / threads, box_policy::smem_per_sm / (smem + 1024)));
}

/// box_kernel's block size. A single-stage block (loads narrower than 16 bytes) has one box in flight, so the
/// bytes an SM has in flight are its blocks times a box: where 256-thread blocks are limited by the SM's 2048
/// threads rather than by shared memory, 128-thread blocks hold more boxes. H100, same call, 256 -> 128 threads
/// for every box: fp16 7x3x2x218x41x7x2x51 (boxes of 1428 x 2 B, 17 KiB: 8 -> 12 blocks an SM, 4-byte loads)
/// 0.637 -> 0.768 of memcpy; where shared memory limits the blocks it lost (fp16 3x736x7x3x214x3x3x3, 35 KiB, 6
/// blocks either way: 0.637 -> 0.551; fp32 r8 n27 0.82 -> 0.72, two-stage), and so did small problems of a few
/// boxes an SM (nd_small rows 5-12 %). Hence: single-stage, more blocks with 128 threads, and at least 4 rounds
/// of boxes for them.
inline int box_threads(int load_bytes, int smem, long long boxes, int sm_count) {
  const int big = box_blocks_per_sm(box_policy::threads, smem), small = box_blocks_per_sm(box_policy::small_threads, smem);
  const bool more_boxes = small > big && boxes >= 4LL * small * std::max(sm_count, 1);
  return load_bytes < 16 && more_boxes ? box_policy::small_threads : box_policy::threads;
}

/// box_kernel's tables (kernels/box.cuh) hold one offset per run of `in_run` / `out_run` elements; the run may be
/// the box's own (per-run tables: 2 bytes an element plus 4 a run) or 1 (per element: 10 bytes an element,
/// no division an access). Which, and the shared memory the block count is chosen with:
/// - per element, blocks by its own footprint: large problems (each block gets >= box_min_rounds boxes). The
///   per-run tables at that block count lost there (H100, same call: fp16 30x24x42x110x2x40 0.884 -> 0.836,
///   fp32 3x368x7x3x214x3x3x3 0.820 -> 0.795, c128 7x3x2x27x41x7x2x51 0.892 -> 0.868: a division an access),
///   and so did the per-run tables with as many blocks as their smaller footprint allows (fp16 30x24x...
///   0.798, fp32 N-d r7 n26 0.716 -> 0.653, fp64 3x184x7x3x214x3x3x3 0.903 -> 0.864);
/// - per run, more blocks: single-stage boxes whose per-element blocks hold under box_few_bytes_in_flight of
///   data an SM, while each of the more blocks still gets box_min_rounds boxes (fp16 3x736x7x3x214x3x3x3:
///   3 blocks of 256 threads -> 9 of 128, 0.676 -> 0.773);
/// - per run, the per-element block count: small problems, whose blocks decode their tables for a few boxes
///   each (half the decodes: nd_small q7 0.804 -> 0.868, q17 0.760 -> 0.838, q50 0.774 -> 0.848, q68 0.577 ->
///   0.647, q77 0.567 -> 0.607, no row of the 74 lower; more blocks lost there, q77 0.541).
inline constexpr long long box_few_bytes_in_flight = 48 * 1024;
inline constexpr long long box_min_rounds = 32;

struct box_kernel_choice {
  bool run_tables = false;  // per-run tables (else per element)
  int occupancy_smem = 0;   // the shared memory box_threads and box_blocks_per_sm count a block with
};

/// `smem_runs` / `smem_elems`: a block's shared memory with per-run / per-element tables; `single_stage`:
/// loads narrower than 16 bytes (box_stages); `boxes`: the problem's.
inline box_kernel_choice choose_box_kernel(int smem_runs, int smem_elems, bool single_stage, long long volume,
                                           long long unit_bytes, long long boxes, int sm_count) {
  const int load_bytes = single_stage ? 4 : 16;  // box_threads only asks whether it is under 16
  const long long sms = std::max(sm_count, 1);
  auto blocks = [&](int smem) {
    return static_cast<long long>(box_blocks_per_sm(box_threads(load_bytes, smem, boxes, sm_count), smem));
  };
  const long long few = blocks(smem_elems), more = blocks(smem_runs);
  if (single_stage && few * volume * unit_bytes < box_few_bytes_in_flight && boxes >= box_min_rounds * more * sms)
    return {true, smem_runs};
  if (boxes < box_min_rounds * few * sms) return {true, smem_elems};
  return {false, smem_elems};
}

/// box16 (1- and 2-byte units): boxes staged together by a block, at most this many, and the shared memory
/// a block may then take.
inline constexpr long long box16_max_group = 16;
inline constexpr unsigned box16_group_smem = 64 * 1024;
/// ... and enough boxes for this many items a thread in each phase (fewer barriers a byte; the kernel is
/// issue-bound with 20 % of its stalls on barriers). H100, same binary, 8 vs 2 (1 and 4 measured too):
/// u8 N-d r8 n6 0.515 -> 0.576, r8 n27 0.550 -> 0.563, box_u8_rule sw0 0.454 -> 0.503, sw1 0.442 -> 0.513,
/// probe7 p66 0.490 -> 0.602; r6 n18 0.597 -> 0.582, sw9 0.514 -> 0.487, p60 0.214 -> 0.198, the rest within
/// 1 %. 1 a thread lost almost everywhere (r8 n6 0.411).
inline constexpr long long box16_group_items = 8;

/// Chunks box16 stages an input run in (kernels/box.cuh, phase 1): aligned 16-byte chunks from the box's input
/// address rounded down to 16 plus the run's offset in the box rounded down to 16, so that the run starts
/// (box address mod 16) + (run offset mod 16) bytes into its staged chunks — the box's part one shift for all
/// its runs, the run's part in the gather's table — and no chunk is realigned in registers. `base_align`: a
/// power of two dividing every box's input address (the pointer and the batch strides; 1 when unknown).
inline std::int64_t box16_in_chunks(const box_plan& b, std::int64_t base_align = 1) {
  // Every run's offset in the box is a multiple of run_align (an overlapping input view may put an axis
  // outside the run at a stride shorter than the run: it counts too).
  const std::int64_t run_align = box_align16(box_run_offset_bits(b, true));
  const std::int64_t box_shift = 16 - std::min<std::int64_t>(base_align, 16), run_shift = 16 - run_align;
  return (box_shift + run_shift + b.in_run * b.unit_bytes + 15) / 16;
}

/// box16's stage pitch: bytes from one staged input run to the next (kernels/box.cuh), 16 x the chunks of a
/// run plus a pad of 0, 4, 8 or 12 bytes. The gather reads the stage in output order, 16 consecutive elements
/// a thread (a load instruction's lanes 16 elements apart); when the elements it reads come from different
/// input runs (u8 45x36x29x5x57x5 axes 5,1,2,3,4,0: 45 runs of 180 bytes at a 192-byte pitch), a pitch
/// that is a multiple of 128 bytes, or of 64, puts them in one or two banks — 16-way
/// conflicts. A pad of 4 bytes spreads them over all 32 banks, but the staging stores, 16-byte vectors on a
/// plain pitch, then go out as four 4-byte stores (8-byte pads: two 8-byte ones). The model counts the
/// wavefronts of both phases on sampled warps of one box and takes the pitch with the fewest (ties: the
/// smaller pad). Host code (tested in tests/host), run on each launch of a box16 shape (~2000 decodes).
/// `chunks`: box16_in_chunks. The model places each run at the start of its slot; the runs' shifts within
/// their first chunk (0-30 bytes) are left out.
inline unsigned box16_in_pitch(const box_plan& b, std::int64_t chunks) {
  const std::int64_t U = b.unit_bytes, V = b.volume, R = b.in_run;
  const std::int64_t runs = V / R, plain = 16 * chunks;
  if (runs <= 1 || U != 1) return static_cast<unsigned>(plain);  // box16 moves 1-byte units
  std::array<std::int64_t, 2 * max_canonical_rank> weight{};  // input-order index weights
  std::int64_t w = 1;
  for (int k = 0; k < b.rank; ++k) {
    weight[static_cast<std::size_t>(k)] = w;
    w *= b.axis[static_cast<std::size_t>(k)].extent;
  }
  auto in_index = [&](std::int64_t o) {  // input-order index of output-order element o
    std::int64_t idx = 0;
    for (int j = 0; j < b.rank; ++j) {
      const auto k = static_cast<std::size_t>(b.out_order[static_cast<std::size_t>(j)]);
      idx += o % b.axis[k].extent * weight[k];
      o /= b.axis[k].extent;
    }
    return idx;
  };
  constexpr std::int64_t max_samples = 16;
  // The gather (kernels/box.cuh, phase 2): a thread takes `per_thread` consecutive output elements, one load
  // each, so lane l of a warp's load instruction j reads element per_thread (32 w + l) + j.
  constexpr std::int64_t per_thread = 16;
  const std::int64_t warps2 = (V + 32 * per_thread - 1) / (32 * per_thread);
  const std::int64_t samples2 = std::min(warps2, max_samples);
  std::vector<std::int64_t> gathered;  // per sampled warp, per load, per lane: input index or -1
  for (std::int64_t s = 0; s < samples2; ++s) {
    const std::int64_t warp = s * warps2 / samples2;
    for (std::int64_t j = 0; j < per_thread; ++j)
      for (std::int64_t lane = 0; lane < 32; ++lane) {
        const std::int64_t o = (32 * warp + lane) * per_thread + j;
        gathered.push_back(o < V ? in_index(o) : -1);
      }
  }
  // The staging stores: item it = (run, chunk), 16 bytes a thread.
  const std::int64_t items = runs * chunks, warps1 = (items + 31) / 32, samples1 = std::min(warps1, max_samples);
  std::int64_t best_pad = 0;
  double best = -1;
  std::array<std::int64_t, 32 * 4> word{};
  for (const std::int64_t pad : {0, 4, 8, 12}) {
    const std::int64_t P = plain + pad;
    double gather = 0, stage = 0;
    for (std::int64_t s = 0; s < samples2 * per_thread; ++s) {
      int n = 0;
      for (std::int64_t lane = 0; lane < 32; ++lane) {
        const std::int64_t i = gathered[static_cast<std::size_t>(32 * s + lane)];
        if (i >= 0) word[static_cast<std::size_t>(n++)] = (i / R * P + i % R * U) / 4;
      }
      gather += smem_wavefronts(word.data(), n);
    }
    const std::int64_t vec_words = P % 16 == 0 ? 4 : P % 8 == 0 ? 2 : 1;  // words a store instruction
    const std::int64_t lanes_a_phase = 32 / vec_words;                   // lanes served together (128 bytes)
    for (std::int64_t s = 0; s < samples1; ++s) {
      const std::int64_t warp = s * warps1 / samples1;
      for (std::int64_t first = 0; first < 4; first += vec_words)  // the store instructions of a chunk
        for (std::int64_t ph = 0; ph < 32; ph += lanes_a_phase) {
          int n = 0;
          for (std::int64_t lane = ph; lane < ph + lanes_a_phase; ++lane) {
            const std::int64_t it = 32 * warp + lane;
            if (it >= items) continue;
            const std::int64_t a = it / chunks * P + it % chunks * 16;
            for (std::int64_t q = first; q < first + vec_words; ++q) word[static_cast<std::size_t>(n++)] = a / 4 + q;
          }
          if (n > 0) stage += smem_wavefronts(word.data(), n);
        }
    }
    const double cost = gather * static_cast<double>(warps2) / static_cast<double>(samples2) +
                        stage * static_cast<double>(warps1) / static_cast<double>(samples1);
    if (best < 0 || cost < best) best = cost, best_pad = pad;
  }
  return static_cast<unsigned>(plain + best_pad);
}

}  // namespace xpose::detail
