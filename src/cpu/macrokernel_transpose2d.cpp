// transpose2d on the CPU: a batch of rows x cols -> cols x rows transposes of units of
// elem_words x word_bytes bytes, cache-blocked, with register micro-kernels of the active SIMD level.
//
// The micro-kernel: the level's kernel for 1, 2, 4, 8 and 16-byte units (kernel_table.hpp, simd_tile.hpp),
// the portable one for the other sizes (microkernels_scalar.cpp). The macro-kernel (this file) cuts planes
// into tiles that fit L1 (tuning_cpu.hpp), the micro-kernel storing straight into the output.
//
// Tasks are tiles; each thread takes one contiguous slice of them, walked with a cursor so that no task
// pays for a division.
#include <algorithm>
#include <cstdint>

#include "cpu/batch_cursor.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/kernel_table.hpp"
#include "cpu/macrokernels.hpp"
#include "cpu/threads.hpp"
#include "cpu/tuning_cpu.hpp"

namespace xpose::detail {

namespace {

struct plane_geometry {
  std::int64_t rows, cols, unit, words;
  std::int64_t in_rs, out_rs;  // bytes between rows
};

// Cached mode: every tile (tile_r x tile_c) stored straight to the output; tasks in (item, tile row,
// tile column) order.
void run_cached(const plan_geometry& g, const plane_geometry& p, const transpose_tuning& t, const tile_kernel& k,
                const unsigned char* in, unsigned char* out, int threads) {
  const std::int64_t wb = g.word_bytes;
  const std::int64_t tiles_r = (p.rows + t.tile_r - 1) / t.tile_r, tiles_c = (p.cols + t.tile_c - 1) / t.tile_c;
  const std::int64_t per_item = tiles_r * tiles_c;
  const std::int64_t items = g.batch_count();
  const int nt = resolve_threads(threads, items * p.rows * p.cols * p.unit, items * per_item);
  parallel_slices(items * per_item, nt, [&](std::int64_t begin, std::int64_t end) {
    batch_cursor b(g, begin / per_item);
    std::int64_t tr = begin % per_item / tiles_c, tc = begin % tiles_c;
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t r0 = tr * t.tile_r, c0 = tc * t.tile_c;
      const std::int64_t nr = std::min(t.tile_r, p.rows - r0), nc = std::min(t.tile_c, p.cols - c0);
      k.tile(in + b.in_offset() * wb + r0 * p.in_rs + c0 * p.unit, p.in_rs,
             out + b.out_offset() * wb + c0 * p.out_rs + r0 * p.unit, p.out_rs, nr, nc, p.words, nullptr);
      if (++tc == tiles_c) {
        tc = 0;
        if (++tr == tiles_r) {
          tr = 0;
          b.next();
        }
      }
    }
  });
}

int log2_pow2_unit(std::int64_t unit) {
  switch (unit) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    default: return -1;
  }
}

}  // namespace

void cpu_transpose2d(const plan_geometry& g, const void* in_v, void* out_v, int threads) {
  const auto* in = static_cast<const unsigned char*>(in_v);
  auto* out = static_cast<unsigned char*>(out_v);
  if (g.rows == 0 || g.cols == 0 || g.elem_words == 0 || g.batch_count() == 0) return;

  plane_geometry p{};
  p.rows = g.rows;
  p.cols = g.cols;
  p.unit = g.elem_words * g.word_bytes;
  p.words = g.elem_words;
  p.in_rs = g.in_ld * g.word_bytes;
  p.out_rs = g.out_ld * g.word_bytes;

  const isa_kernels& isa = kernels_for(active_cpu_isa());
  const int lg = log2_pow2_unit(p.unit);
  const tile_kernel k = lg >= 0 && isa.pow2[lg].tile != nullptr ? isa.pow2[lg] : scalar_unit_kernel(p.unit, g.word_bytes);

  const transpose_tuning t = choose_transpose_tuning(p.rows, p.cols, p.unit, k.block_rows, k.block_cols);
  run_cached(g, p, t, k, in, out, threads);
}

}  // namespace xpose::detail
