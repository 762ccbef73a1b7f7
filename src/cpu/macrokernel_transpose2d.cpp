// transpose2d on the CPU: a batch of rows x cols -> cols x rows transposes of units of
// elem_words x word_bytes bytes, cache-blocked, with register micro-kernels of the active SIMD level.
//
// The micro-kernel: the level's kernel for 1, 2, 4, 8 and 16-byte units (kernel_table.hpp, simd_tile.hpp),
// the portable one for the other sizes (microkernels_scalar.cpp). The macro-kernel (this file) cuts planes
// into tiles and runs in one of two modes chosen by tuning_cpu.hpp:
//
// - cached: tiles that fit L1, the micro-kernel storing straight into the output;
// - streaming (output larger than the last-level cache): tall tiles walked down each panel of columns, the
//   output written as whole 64-byte lines with non-temporal stores. A tile owns the output lines that
//   *start* inside its rows (on each output row, from the first line boundary at or after its first row to
//   the first one at or after its end; the plane's first and last partial lines go to its first and last
//   tiles), so it transposes up to one line of units past its last row. Every line is then written exactly
//   once and whole: no read-for-ownership, no partial write-combining flushes, for any row pitch and base
//   alignment. Ownership is a function of the tile grid alone, so tiles on different threads never write the
//   same byte. Each strip of output rows takes the first of these that applies:
//     direct  every output row starts on a line and the kernel's block stores are whole lines: the kernel
//             streams straight from registers (fp32 8192 x 8192);
//     carry   rows start on a unit boundary only: each line is two blocks' registers merged by one permute
//             (tile_kernel::stream_carry, AVX-512: 2, 4, 8, 16-byte units; fp32 8191 x 8193, 1.27x over
//             staging);
//     staged  anything else (plane edges, odd unit sizes, levels without the above): the strip is transposed
//             into an L1 staging buffer and copied out line by line.
//
// Tasks are tiles; each thread takes one contiguous slice of them, walked with a cursor so that no task
// pays for a division.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/batch_cursor.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/kernel_table.hpp"
#include "cpu/macrokernels.hpp"
#include "cpu/threads.hpp"
#include "cpu/tuning_cpu.hpp"

namespace xpose::detail {

namespace {

constexpr std::int64_t line = 64;

inline std::uintptr_t align_up(std::uintptr_t p) { return (p + line - 1) & ~std::uintptr_t{line - 1}; }

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

// The output bytes of output row `a` (its first byte) that the tile of input rows [r0, r0 + nr) owns:
// [lo, hi) (see the file comment).
struct owned_range {
  std::uintptr_t lo, hi;
};

inline owned_range owned(std::uintptr_t a, std::int64_t r0, std::int64_t nr, const plane_geometry& p) {
  const std::uintptr_t end = a + static_cast<std::uintptr_t>(p.rows * p.unit);
  const std::uintptr_t lo = r0 == 0 ? a : std::min(align_up(a + static_cast<std::uintptr_t>(r0 * p.unit)), end);
  const std::uintptr_t hi =
      r0 + nr >= p.rows ? end : std::min(align_up(a + static_cast<std::uintptr_t>((r0 + nr) * p.unit)), end);
  return {lo, std::max(lo, hi)};
}

// Streaming mode, one tile of input rows [r0, r0 + nr) and columns [c0, c0 + nc) of one plane. `pf` walks
// the next tile's input, a few lines after each block.
void stream_tile(const plane_geometry& p, const transpose_tuning& t, const tile_kernel& k, const isa_kernels& isa,
                 const unsigned char* in_plane, unsigned char* out_plane, std::int64_t r0, std::int64_t nr,
                 std::int64_t c0, std::int64_t nc, prefetch_cursor* pf, unsigned char* stage, bool direct,
                 bool carry) {
  const std::int64_t stage_rs = t.stage_rs;
  const std::int64_t strips = (nc + t.strip - 1) / t.strip;
  for (std::int64_t s = 0; s < strips; ++s) {
    const std::int64_t c = c0 + s * t.strip, ns = std::min(t.strip, c0 + nc - c);
    if (direct) {
      k.tile_stream(in_plane + r0 * p.in_rs + c * p.unit, p.in_rs, out_plane + c * p.out_rs + r0 * p.unit, p.out_rs,
                    nr, ns, p.words, pf);
      continue;
    }
    // Rows not line-aligned: straight from registers when the level can and the strip is whole blocks with one
    // more block of input below it (not the plane's first or last tile: those own partial lines).
    if (carry && ns % k.block_cols == 0 && r0 > 0 && nr % k.block_rows == 0 && r0 + nr + k.block_rows <= p.rows) {
      k.stream_carry(in_plane + r0 * p.in_rs + c * p.unit, p.in_rs, out_plane + c * p.out_rs + r0 * p.unit, p.out_rs,
                     nr, ns, p.words, pf);
      continue;
    }
    // Input rows this strip needs: up to the end of the last line it owns, on the row that reaches furthest.
    std::int64_t need = 0;
    for (std::int64_t j = 0; j < ns; ++j) {
      const auto a = reinterpret_cast<std::uintptr_t>(out_plane + (c + j) * p.out_rs);
      need = std::max<std::int64_t>(need, (static_cast<std::int64_t>(owned(a, r0, nr, p).hi - a) + p.unit - 1) / p.unit - r0);
    }
    if (need <= 0) continue;
    // The whole strip into the staging buffer, then out. (Streaming each line as soon as a block completes
    // it was 1.3x slower on fp32 8191 x 8193.)
    k.tile(in_plane + r0 * p.in_rs + c * p.unit, p.in_rs, stage, stage_rs, need, ns, p.words, pf);
    for (std::int64_t j = 0; j < ns; ++j) {
      unsigned char* row = out_plane + (c + j) * p.out_rs;
      const auto a = reinterpret_cast<std::uintptr_t>(row);
      const owned_range o = owned(a, r0, nr, p);
      std::uintptr_t lo = o.lo;
      const unsigned char* src = stage + j * stage_rs + (static_cast<std::int64_t>(o.lo - a) - r0 * p.unit);
      const std::uintptr_t head_end = std::min(align_up(lo), o.hi);  // past lo only on the plane's first line
      if (head_end > lo) {
        std::memcpy(row + (lo - a), src, head_end - lo);
        src += head_end - lo;
        lo = head_end;
      }
      const std::int64_t lines = static_cast<std::int64_t>(o.hi - lo) / line;
      if (lines > 0) {
        isa.stream_lines(row + (lo - a), src, lines);
        src += lines * line;
        lo += static_cast<std::uintptr_t>(lines * line);
      }
      if (o.hi > lo) std::memcpy(row + (lo - a), src, o.hi - lo);  // the plane's last partial line
    }
  }
}

// Streaming mode: tasks are tiles in (item, panel of tile_c columns, tile row) order, so that consecutive
// tasks continue the same output rows.
void run_streaming(const plan_geometry& g, const plane_geometry& p, const transpose_tuning& t, const tile_kernel& k,
                   const isa_kernels& isa, const unsigned char* in, unsigned char* out, int threads) {
  const std::int64_t wb = g.word_bytes;
  const std::int64_t tiles_r = (p.rows + t.tile_r - 1) / t.tile_r, tiles_c = (p.cols + t.tile_c - 1) / t.tile_c;
  const std::int64_t per_item = tiles_r * tiles_c;
  const std::int64_t items = g.batch_count();
  const int nt = resolve_threads(threads, items * p.rows * p.cols * p.unit, items * per_item);
  // Straight from registers when every block store is a whole, aligned line: the kernel stores lines, every
  // output row (of every plane) starts on a line, holds whole lines, and tiles end on lines.
  bool direct = k.tile_stream != nullptr && reinterpret_cast<std::uintptr_t>(out) % line == 0 &&
                p.out_rs % line == 0 && (p.rows * p.unit) % line == 0 && (t.tile_r * p.unit) % line == 0;
  for (int i = 0; i < g.batch_rank; ++i) direct = direct && (g.batch_out_stride[i] * wb) % line == 0;
  // Rows that start on a unit boundary but not on a line: the level's carry kernel, where it has one.
  bool carry = k.stream_carry != nullptr && reinterpret_cast<std::uintptr_t>(out) % p.unit == 0 && p.out_rs % p.unit == 0;
  for (int i = 0; i < g.batch_rank; ++i) carry = carry && (g.batch_out_stride[i] * wb) % p.unit == 0;
  parallel_slices(items * per_item, nt, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) unsigned char stage[staging_bytes];  // strip x t.stage_rs bytes used
    batch_cursor b(g, begin / per_item);
    std::int64_t tc = begin % per_item / tiles_r, tr = begin % tiles_r;
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t r0 = tr * t.tile_r, c0 = tc * t.tile_c;
      const std::int64_t nr = std::min(t.tile_r, p.rows - r0), nc = std::min(t.tile_c, p.cols - c0);
      const unsigned char* in_plane = in + b.in_offset() * wb;
      // Prefetch the next tile of this plane: down the panel, else the top of the next panel.
      prefetch_cursor pf;
      const bool has_next = task + 1 < end && (r0 + t.tile_r < p.rows || c0 + t.tile_c < p.cols);
      if (has_next) {
        const bool down = r0 + t.tile_r < p.rows;
        const std::int64_t next_nr = down ? std::min(t.tile_r, p.rows - r0 - t.tile_r) : std::min(t.tile_r, p.rows);
        const std::int64_t next_nc = down ? nc : std::min(t.tile_c, p.cols - c0 - t.tile_c);
        pf.next_row = down ? in_plane + (r0 + t.tile_r) * p.in_rs + c0 * p.unit : in_plane + (c0 + t.tile_c) * p.unit;
        pf.rs = p.in_rs;
        pf.row_bytes = next_nc * p.unit;
        pf.rows_left = next_nr;
        const std::int64_t lines = next_nr * ((pf.row_bytes + 2 * line - 2) / line);
        const std::int64_t blocks = std::max<std::int64_t>(1, (nr / k.block_rows) * (nc / k.block_cols));
        pf.per_block = (lines + blocks - 1) / blocks;
      }
      stream_tile(p, t, k, isa, in_plane, out + b.out_offset() * wb, r0, nr, c0, nc, has_next ? &pf : nullptr, stage,
                  direct, carry);
      if (++tr == tiles_r) {
        tr = 0;
        if (++tc == tiles_c) {
          tc = 0;
          b.next();
        }
      }
    }
    isa.fence();  // the streamed lines are globally visible before the thread reports completion
  });
}

// Thin planes (rows x k or k x rows, k small, the long side packed): the level's (de)interleave kernels on
// chunks of the long side, the ragged end of each plane by the tile kernel. Tasks are (item, chunk).
// Streaming stores when the output is larger than the LLC and every output vector lands on a line.
bool run_thin(const plan_geometry& g, const plane_geometry& p, const tile_kernel& k, const isa_kernels& isa, int lg,
              const unsigned char* in, unsigned char* out, int threads) {
  if (lg < 1 || lg > 3) return false;
  const bool aos = isa.deinterleave[lg] != nullptr && p.cols >= 2 && p.cols <= isa.thin_max_k[lg] &&
                   p.in_rs == p.cols * p.unit;
  const bool soa = !aos && isa.interleave[lg] != nullptr && p.rows >= 2 && p.rows <= isa.thin_max_k[lg] &&
                   p.out_rs == p.rows * p.unit;
  const std::int64_t step = isa.thin_step[lg];
  const std::int64_t n = aos ? p.rows : p.cols, kk = aos ? p.cols : p.rows;  // long and short side
  if ((!aos && !soa) || n < 4 * step) return false;
  const std::int64_t wb = g.word_bytes;
  const std::int64_t items = g.batch_count();
  // Chunks of ~64 KiB of input, whole vectors.
  const std::int64_t chunk = std::max<std::int64_t>(step, (std::int64_t{64} << 10) / (kk * p.unit) / step * step);
  const std::int64_t chunks = (n + chunk - 1) / chunk;
  const std::int64_t out_bytes = items * p.rows * p.cols * p.unit;
  bool stream = isa.stream_lines != nullptr && use_streaming(out_bytes, 256, host_caches()) &&
                reinterpret_cast<std::uintptr_t>(out) % line == 0 && (aos ? p.out_rs % line == 0 : true);
  for (int i = 0; i < g.batch_rank; ++i) stream = stream && (g.batch_out_stride[i] * wb) % line == 0;
  const int nt = resolve_threads(threads, out_bytes, items * chunks);
  parallel_slices(items * chunks, nt, [&](std::int64_t begin, std::int64_t end) {
    batch_cursor b(g, begin / chunks);
    std::int64_t ch = begin % chunks;
    for (std::int64_t task = begin; task < end; ++task) {
      const unsigned char* src = in + b.in_offset() * wb;
      unsigned char* dst = out + b.out_offset() * wb;
      const std::int64_t s0 = ch * chunk, len = std::min(chunk, n - s0), vec_len = len / step * step;
      if (aos) {
        isa.deinterleave[lg](src + s0 * p.in_rs, dst + s0 * p.unit, p.out_rs, vec_len, kk, stream);
        if (vec_len < len)
          k.tile(src + (s0 + vec_len) * p.in_rs, p.in_rs, dst + (s0 + vec_len) * p.unit, p.out_rs, len - vec_len, kk,
                 p.words, nullptr);
      } else {
        isa.interleave[lg](src + s0 * p.unit, p.in_rs, dst + s0 * p.out_rs, vec_len, kk, stream);
        if (vec_len < len)
          k.tile(src + (s0 + vec_len) * p.unit, p.in_rs, dst + (s0 + vec_len) * p.out_rs, p.out_rs, kk, len - vec_len,
                 p.words, nullptr);
      }
      if (++ch == chunks) {
        ch = 0;
        b.next();
      }
    }
    if (stream) isa.fence();
  });
  return true;
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
  const tile_kernel k = lg >= 0 && isa.pow2[lg].tile != nullptr ? isa.pow2[lg]
                        : p.unit == 3 && isa.unit3.tile != nullptr ? isa.unit3
                                                                   : scalar_unit_kernel(p.unit, g.word_bytes);

  if (run_thin(g, p, k, isa, lg, in, out, threads)) return;

  const cpu_caches& caches = host_caches();
  const std::int64_t out_bytes = g.batch_count() * p.rows * p.cols * p.unit;
  const bool streaming = isa.stream_lines != nullptr && use_streaming(out_bytes, p.rows * p.unit, caches);
  transpose_tuning t =
      choose_transpose_tuning(p.rows, p.cols, p.unit, k.block_rows, k.block_cols, streaming, caches);
  if (t.streaming && t.strip * t.stage_rs <= staging_bytes) run_streaming(g, p, t, k, isa, in, out, threads);
  else run_cached(g, p, t, k, in, out, threads);
}

}  // namespace xpose::detail
