// transpose2d on the CPU: a batch of rows x cols -> cols x rows transposes of units of
// elem_words x word_bytes bytes, cache-blocked, with register micro-kernels of the active SIMD level.
//
// The micro-kernel: the level's kernel for 1, 2, 4, 8 and 16-byte units (kernel_table.hpp, simd_tile.hpp),
// the portable one for the other sizes (microkernels_scalar.cpp). The macro-kernel (this file) cuts planes
// into tiles and runs in one of two modes chosen by tuning_cpu.hpp:
//
// - cached: tiles that fit L1, the micro-kernel storing straight into the output;
// - streaming (output of at least one L2; use_streaming in tuning_cpu.hpp): tall tiles walked down each
//   panel of columns, the output written as whole 64-byte lines with non-temporal stores. A tile owns the output lines that
//   *start* inside its rows (on each output row, from the first line boundary at or after its first row to
//   the first one at or after its end; the plane's first and last partial lines go to its first and last
//   tiles), so it transposes up to one line of units past its last row. Every line is then written exactly
//   once and whole: no read-for-ownership, no partial write-combining flushes, for any row pitch and base
//   alignment. Ownership is a function of the tile grid alone, so tiles on different threads never write the
//   same byte. Each strip of output rows takes the first of these that applies:
//     direct  every output row starts on a line and the kernel's block stores are whole lines: the kernel
//             streams straight from registers (fp32 8192 x 8192); or every output row of the strip starts at
//             one phase of the line (a base off it, pitches of whole lines): the same on rows shifted by that
//             phase (run_streaming's `shifted`);
//     carry   rows start on a unit boundary only: each line is two blocks' registers merged by one permute
//             (tile_kernel::stream_carry, AVX-512: 2, 4, 8, 16-byte units; fp32 8191 x 8193, 1.27x over
//             staging);
//     staged  anything else (plane edges, odd unit sizes, levels without the above): the strip is transposed
//             into an L1 staging buffer and copied out line by line.
//
// Tasks are tiles; each thread takes one contiguous slice of them, walked with a cursor so that no task
// pays for a division. Inputs whose rows all start at one phase of the line are tiled along the columns from
// the first line boundary (a narrow first column tile), so that tile rows read whole lines.
//
// Merged rows (N-d permutations): the planner makes every permutation a batch of planes, and a batch axis
// whose output stride is one plane's output row (rows x unit) continues that row in the output: [256]^3
// reversed is 256 planes of 256 x 256 whose output rows are 1 KiB pieces of 256 KiB rows, and [3,2048,2731]
// reversed has output rows of 12 bytes. Such axes are merged into the plane's rows (output rows of
// rows x extent units, contiguous), which leaves the input rows without a common stride: each tile's input
// rows are first packed into a per-thread buffer (one run of tile-width units per row, sequential reads),
// and the tile is transposed from there.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/batch_cursor.hpp"
#include "cpu/copy_bytes.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/kernel_table.hpp"
#include "cpu/macrokernels.hpp"
#include "cpu/threads.hpp"
#include "cpu/tuning_cpu.hpp"
#include "plan/planner.hpp"

namespace xpose::detail {

namespace {

constexpr std::int64_t line = 64;

inline std::uintptr_t align_up(std::uintptr_t p) { return (p + line - 1) & ~std::uintptr_t{line - 1}; }

struct plane_geometry {
  std::int64_t rows, cols, unit, words;
  std::int64_t in_rs, out_rs;  // bytes between rows
};

// Tiles of `step` along an axis of `extent`, the first `lead` (< one line of units) alone when lead > 0: views
// whose rows all start at one phase of the line are tiled from the first line boundary, so that every other
// tile's accesses along that axis are whole lines (run_streaming's columns; cached mode gained nothing from
// it on the dev VM: fp32 256 x 1024 output +16 bytes 44.5 GB/s either way).
struct lead_tiles {
  std::int64_t extent = 0, step = 1, lead = 0;
  std::int64_t count() const { return (lead > 0 ? 1 : 0) + (extent - lead + step - 1) / step; }
  // Tile i: its first index and length.
  std::pair<std::int64_t, std::int64_t> operator()(std::int64_t i) const {
    if (lead > 0 && i == 0) return {0, lead};
    const std::int64_t start = lead + (i - (lead > 0 ? 1 : 0)) * step;
    return {start, std::min(step, extent - start)};
  }
};

// Units before the first line boundary of a view at `base` whose rows are `rs` bytes apart and whose planes are
// `plane_strides` (bytes) apart, when every row of every plane starts at that one phase (else 0), at most
// `extent`.
std::int64_t line_lead(const void* base, std::int64_t rs, std::int64_t unit, std::int64_t extent,
                       const std::array<std::int64_t, max_canonical_rank>& plane_strides, int planes_rank,
                       std::int64_t word_bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(base);
  bool one_phase = rs % line == 0 && line % unit == 0 && a % unit == 0;
  for (int i = 0; i < planes_rank; ++i) one_phase = one_phase && (plane_strides[i] * word_bytes) % line == 0;
  if (!one_phase) return 0;
  return std::min<std::int64_t>(static_cast<std::int64_t>((line - a % line) % line) / unit, extent);
}

// Bytes of input runs prefetched ahead of the packing (row_merge::pack).
constexpr std::int64_t pack_prefetch_bytes = std::int64_t{16} << 10;

// Batch axes merged into the plane's rows (see the file comment): row v of the merged plane is row v % rows0
// of the original plane in batch position (v / rows0) decomposed over `extent` (fastest first).
struct row_merge {
  int axes = 0;
  std::int64_t rows0 = 0;     // the original plane's rows
  std::int64_t in_rs0 = 0;    // their input stride (bytes)
  std::array<std::int64_t, max_canonical_rank> extent{}, in_stride{};  // in_stride in bytes

  // Offset (bytes) of merged row r and its position, for walking on with step().
  struct cursor {
    std::array<std::int64_t, max_canonical_rank> idx{};
    std::int64_t a = 0, off = 0;
  };
  cursor at(std::int64_t r) const {
    cursor c;
    c.a = r % rows0;
    std::int64_t rest = r / rows0;
    c.off = c.a * in_rs0;
    for (int k = 0; k < axes; ++k) {
      c.idx[k] = rest % extent[k];
      rest /= extent[k];
      c.off += c.idx[k] * in_stride[k];
    }
    return c;
  }
  void step(cursor& c) const {
    c.off += in_rs0;
    if (++c.a < rows0) return;
    c.a = 0;
    c.off -= rows0 * in_rs0;
    for (int k = 0; k < axes; ++k) {  // carry into the merged axes
      c.off += in_stride[k];
      if (++c.idx[k] < extent[k]) return;
      c.off -= extent[k] * in_stride[k];
      c.idx[k] = 0;
    }
  }

  // Copies rows [r0, r0 + n) of columns [c0, c0 + nc) of the merged plane at `in` to dst (rows dst_rs apart).
  // Rows lie far apart and runs are short (a few lines), which leaves the hardware prefetchers nothing to
  // follow: the lines of the row `pf_rows` ahead (pack_prefetch_bytes of runs) are prefetched into L2 while a
  // row is copied. Measured on the dev VM with [2,4096,8192] reversed (fp32, 1 thread, ratio to the
  // non-temporal copy): no prefetch 0.35; 2 KiB ahead into L1 0.32, into L2 0.42; 8 KiB 0.47; 16-64 KiB
  // 0.43-0.51 (noise).
  void pack(const unsigned char* in, std::int64_t r0, std::int64_t n, std::int64_t c0, std::int64_t nc,
            std::int64_t unit, unsigned char* dst, std::int64_t dst_rs) const {
    const unsigned char* src = in + c0 * unit;
    const std::int64_t bytes = nc * unit;
    const std::int64_t pf_rows = std::max<std::int64_t>(2, pack_prefetch_bytes / std::max<std::int64_t>(bytes, 64));
    cursor c = at(r0), ahead = c;
    for (std::int64_t i = 0; i < std::min(pf_rows, n); ++i) {
      prefetch_run(src + ahead.off, bytes);
      step(ahead);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      if (i + pf_rows < n) {
        prefetch_run(src + ahead.off, bytes);
        step(ahead);
      }
      copy_short(dst + i * dst_rs, src + c.off, bytes);
      step(c);
    }
  }
};

// Merges every batch axis that continues the plane's output rows (batch_out_stride == rows x unit, repeated
// with the grown rows) into the rows of `g` and `p`; returns what it merged (axes == 0: nothing).
// Only when the plane alone streams badly, since packing costs a copy through L2 and loses the direct
// prefetch of the next tile ([7,5,512,937] axes 1,3,0,2, 2 KiB output rows: 0.73 plain, 0.41 packed):
//   - output rows shorter than the streaming runs (run_bytes in tuning_cpu.hpp, 512 B): 5-D reversal
//     64x16x16x16x64 (256 B rows) 0.16 -> 0.34, [3,2048,2731] reversed (12 B rows) 0.07 -> 0.33;
//   - input rows a multiple of 4 KiB apart: every row of a tile then falls in the same L1 set and, for large
//     powers of two, the same few L2 sets, so the prefetched next tile evicts itself ([256]^3 reversed,
//     256 KiB apart: 0.19 -> 0.38). Packed rows are contiguous.
row_merge merge_output_rows(plan_geometry& g, plane_geometry& p) {
  row_merge m;
  if (p.rows * p.unit >= 512 && p.in_rs % 4096 != 0) return m;
  m.rows0 = p.rows;
  m.in_rs0 = p.in_rs;
  for (bool found = true; found;) {
    found = false;
    for (int i = 0; i < g.batch_rank; ++i) {
      if (g.batch_out_stride[i] * g.word_bytes != p.rows * p.unit) continue;
      m.extent[m.axes] = g.batch_extent[i];
      m.in_stride[m.axes] = g.batch_in_stride[i] * g.word_bytes;
      ++m.axes;
      p.rows *= g.batch_extent[i];
      for (int j = i + 1; j < g.batch_rank; ++j) {
        g.batch_extent[j - 1] = g.batch_extent[j];
        g.batch_in_stride[j - 1] = g.batch_in_stride[j];
        g.batch_out_stride[j - 1] = g.batch_out_stride[j];
      }
      --g.batch_rank;
      found = true;
      break;
    }
  }
  g.rows = p.rows;
  return m;
}

// A per-thread buffer for packed tiles, grown on first use and kept (so that repeated executions do not
// allocate).
unsigned char* pack_buffer(std::int64_t bytes) {
  thread_local std::vector<unsigned char> buf;
  if (static_cast<std::int64_t>(buf.size()) < bytes + line) buf.resize(static_cast<std::size_t>(bytes + line));
  return reinterpret_cast<unsigned char*>(align_up(reinterpret_cast<std::uintptr_t>(buf.data())));
}

// The prefetch of the next tile's input (next_nr rows of next_nc units from next_row, rows in_rs bytes apart)
// into L2, spread over the blocks of the current nr x nc tile (prefetch_step after each block).
prefetch_cursor next_tile_prefetch(const unsigned char* next_row, std::int64_t in_rs, std::int64_t next_nr,
                                   std::int64_t next_nc, std::int64_t unit, std::int64_t nr, std::int64_t nc,
                                   const tile_kernel& k) {
  prefetch_cursor pf;
  pf.next_row = next_row;
  pf.rs = in_rs;
  pf.row_bytes = next_nc * unit;
  pf.rows_left = next_nr;
  const std::int64_t lines = next_nr * ((pf.row_bytes + 2 * line - 2) / line);
  const std::int64_t blocks = std::max<std::int64_t>(1, (nr / k.block_rows) * (nc / k.block_cols));
  pf.per_block = (lines + blocks - 1) / blocks;
  return pf;
}

// Cached mode: every tile (tile_r x tile_c) stored straight to the output; tasks in (item, tile row,
// tile column) order.
void run_cached(const plan_geometry& g, const plane_geometry& p, const transpose_tuning& t, const tile_kernel& k,
                const row_merge& m, const unsigned char* in, unsigned char* out, int threads) {
  const std::int64_t wb = g.word_bytes;
  const std::int64_t tiles_r = (p.rows + t.tile_r - 1) / t.tile_r, tiles_c = (p.cols + t.tile_c - 1) / t.tile_c;
  const std::int64_t per_item = tiles_r * tiles_c;
  const std::int64_t items = g.batch_count();
  const int nt = resolve_threads(threads, items * p.rows * p.cols * p.unit, items * per_item);
  const std::int64_t pack_rs = t.tile_c * p.unit;
  const bool prefetch_next = cached_prefetches(t, p.unit);
  parallel_slices(items * per_item, nt, [&](std::int64_t begin, std::int64_t end) {
    unsigned char* pack = m.axes > 0 ? pack_buffer(t.tile_r * pack_rs) : nullptr;
    batch_cursor b(g, begin / per_item);
    std::int64_t tr = begin % per_item / tiles_c, tc = begin % tiles_c;
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t r0 = tr * t.tile_r, c0 = tc * t.tile_c;
      const std::int64_t nr = std::min(t.tile_r, p.rows - r0), nc = std::min(t.tile_c, p.cols - c0);
      const unsigned char* tin = in + b.in_offset() * wb + r0 * p.in_rs + c0 * p.unit;
      std::int64_t in_rs = p.in_rs;
      if (pack != nullptr) {
        m.pack(in + b.in_offset() * wb, r0, nr, c0, nc, p.unit, pack, pack_rs);
        tin = pack;
        in_rs = pack_rs;
      }
      prefetch_cursor pf;
      // The next tile of this plane (along the tile row, else the next tile row's first) prefetched into L2,
      // a few lines after each block, as in streaming mode, where tuning_cpu.hpp's cached_prefetches says so.
      const bool has_next = prefetch_next && pack == nullptr && task + 1 < end &&
                            (c0 + t.tile_c < p.cols || r0 + t.tile_r < p.rows);
      if (has_next) {
        const bool along = c0 + t.tile_c < p.cols;
        const std::int64_t next_r0 = along ? r0 : r0 + t.tile_r, next_c0 = along ? c0 + t.tile_c : 0;
        pf = next_tile_prefetch(in + b.in_offset() * wb + next_r0 * p.in_rs + next_c0 * p.unit, p.in_rs,
                                std::min(t.tile_r, p.rows - next_r0), std::min(t.tile_c, p.cols - next_c0), p.unit,
                                nr, nc, k);
      }
      k.tile(tin, in_rs, out + b.out_offset() * wb + c0 * p.out_rs + r0 * p.unit, p.out_rs, nr, nc, p.words,
             has_next ? &pf : nullptr);
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

// Writes the bytes of output row `row` (its first byte; rows x unit bytes long) that the tile of input rows
// [r0, r0 + nr) owns, from `src` (the row's units from r0 on, up to the end of the owned range): whole lines
// with non-temporal stores, the plane's first and last partial lines with plain ones.
inline void write_owned(unsigned char* row, std::int64_t r0, std::int64_t nr, const plane_geometry& p,
                        const unsigned char* src, const isa_kernels& isa) {
  const auto a = reinterpret_cast<std::uintptr_t>(row);
  const owned_range o = owned(a, r0, nr, p);
  // Only the plane's first and last lines are partial: an owned range starts and ends on lines otherwise.
  stream_bytes(row + (o.lo - a), src + static_cast<std::int64_t>(o.lo - a) - r0 * p.unit,
               static_cast<std::int64_t>(o.hi - o.lo), true, isa);
}

// Input rows past a tile's own that its owned output lines may need: up to one line of units.
inline std::int64_t owned_need(std::int64_t r0, std::int64_t nr, const plane_geometry& p, std::uintptr_t a) {
  return (static_cast<std::int64_t>(owned(a, r0, nr, p).hi - a) + p.unit - 1) / p.unit - r0;
}

// Streaming mode, one tile of input rows [r0, r0 + nr) and columns [c0, c0 + nc) of one plane. `pf` walks
// the next tile's input, a few lines after each block.
// `tin` is input unit (r0, c0) and `in_rs` its row stride (the plane's, or a packed tile's).
void stream_tile(const plane_geometry& p, const transpose_tuning& t, const tile_kernel& k, const isa_kernels& isa,
                 const unsigned char* tin, std::int64_t in_rs, unsigned char* out_plane, std::int64_t r0,
                 std::int64_t nr, std::int64_t c0, std::int64_t nc, prefetch_cursor* pf, unsigned char* stage,
                 bool direct, bool shifted, bool carry) {
  const std::int64_t stage_rs = t.stage_rs;
  const std::int64_t strips = (nc + t.strip - 1) / t.strip;
  for (std::int64_t s = 0; s < strips; ++s) {
    const std::int64_t c = c0 + s * t.strip, ns = std::min(t.strip, c0 + nc - c);
    if (direct) {
      k.tile_stream(tin + (c - c0) * p.unit, in_rs, out_plane + c * p.out_rs + r0 * p.unit, p.out_rs,
                    nr, ns, p.words, pf);
      continue;
    }
    // Output rows that all start at one phase of the line (a base off the line, pitches of whole lines): the
    // lines this tile owns are those of input rows [r0 + s, r0 + s + nr), s = the units before the strip's
    // first line boundary past row r0, so the direct kernel writes them, reading s rows past the tile (not the
    // plane's first or last tile: those own the partial lines).
    if (shifted && ns % k.block_cols == 0 && r0 > 0 && nr % k.block_rows == 0) {
      unsigned char* const o = out_plane + c * p.out_rs + r0 * p.unit;
      const std::int64_t s_units = static_cast<std::int64_t>((line - reinterpret_cast<std::uintptr_t>(o) % line) % line) / p.unit;
      if (r0 + nr + s_units < p.rows) {
        k.tile_stream(tin + s_units * in_rs + (c - c0) * p.unit, in_rs, o + s_units * p.unit, p.out_rs, nr, ns,
                      p.words, pf);
        continue;
      }
    }
    // Rows not line-aligned: straight from registers when the level can and the strip is whole blocks with one
    // more block of input below it (not the plane's first or last tile: those own partial lines).
    if (carry && ns % k.block_cols == 0 && r0 > 0 && nr % k.block_rows == 0 && r0 + nr + k.block_rows <= p.rows) {
      k.stream_carry(tin + (c - c0) * p.unit, in_rs, out_plane + c * p.out_rs + r0 * p.unit, p.out_rs,
                     nr, ns, p.words, pf);
      continue;
    }
    // Input rows this strip needs: up to the end of the last line it owns, on the row that reaches furthest.
    std::int64_t need = 0;
    for (std::int64_t j = 0; j < ns; ++j)
      need = std::max(need, owned_need(r0, nr, p, reinterpret_cast<std::uintptr_t>(out_plane + (c + j) * p.out_rs)));
    if (need <= 0) continue;
    // The whole strip into the staging buffer, then out. (Streaming each line as soon as a block completes
    // it was 1.3x slower on fp32 8191 x 8193.)
    k.tile(tin + (c - c0) * p.unit, in_rs, stage, stage_rs, need, ns, p.words, pf);
    for (std::int64_t j = 0; j < ns; ++j) write_owned(out_plane + (c + j) * p.out_rs, r0, nr, p, stage + j * stage_rs, isa);
  }
}

// Streaming mode: tasks are tiles in (item, panel of tile_c columns, tile row) order, so that consecutive
// tasks continue the same output rows.
void run_streaming(const plan_geometry& g, const plane_geometry& p, const transpose_tuning& t, const tile_kernel& k,
                   const isa_kernels& isa, const row_merge& m, const unsigned char* in, unsigned char* out,
                   int threads) {
  const std::int64_t wb = g.word_bytes;
  // Input rows of whole lines at a base off the line (every row, in every plane, at one phase): column tiles
  // start at the input's first line boundary (lead_tiles), so that each tile's row segments are whole lines.
  // Packed tiles (merged rows) are aligned anyway. Dev VM, same call, 1 / 2 threads vs the non-temporal copy
  // (benchmarks/suites/cpu_offsets.txt): fp32 8192^2 input +16 bytes 0.569 / 0.641 -> 0.651 / 0.644, fp16 +2
  // 0.495 / 0.583 -> 0.636 / 0.662, fp64 4096^2 +8 0.573 / 0.665 -> 0.600 / 0.726, u8 +4 0.331 / 0.421 -> 0.358 /
  // 0.425. Only where tuning_cpu.hpp's lead_tile_pays (rows of 2 KiB and more): the lead tile and the one
  // after it end mid-block, and short rows spent most of their blocks masked.
  const lead_tiles col_tile{p.cols, t.tile_c,
                            m.axes > 0 || !lead_tile_pays(p.cols * p.unit)
                                ? 0
                                : line_lead(in, p.in_rs, p.unit, p.cols, g.batch_in_stride, g.batch_rank, wb)};
  const std::int64_t tiles_r = (p.rows + t.tile_r - 1) / t.tile_r, tiles_c = col_tile.count();
  const std::int64_t per_item = tiles_r * tiles_c;
  const std::int64_t items = g.batch_count();
  const int nt = resolve_threads(threads, items * p.rows * p.cols * p.unit, items * per_item);
  // Straight from registers when every block store is a whole, aligned line: the kernel stores lines, every
  // output row (of every plane) starts on a line, holds whole lines, and tiles end on lines.
  bool direct = k.tile_stream != nullptr && reinterpret_cast<std::uintptr_t>(out) % line == 0 &&
                p.out_rs % line == 0 && (p.rows * p.unit) % line == 0 && (t.tile_r * p.unit) % line == 0;
  for (int i = 0; i < g.batch_rank; ++i) direct = direct && (g.batch_out_stride[i] * wb) % line == 0;
  // Rows of whole lines that start off the line (a base pointer off it: malloc'd buffers, sub-views), all at one
  // phase within a strip: the direct kernel on rows shifted by that phase (stream_tile), where the carry kernel
  // or staging ran them. Dev VM (AMD EPYC, AVX-512), same call, 1 / 2 threads vs the non-temporal copy
  // (benchmarks/suites/cpu_offsets.txt): fp32 8192^2 output +16 bytes 0.560 / 0.579 -> 0.717 / 0.743 (aligned:
  // 0.72 / 0.75), u8 +1 0.269 / 0.276 -> 0.371 / 0.389, fp16 +2 0.50 / 0.48 -> 0.64 / 0.69, fp64 4096^2 +8 0.44 /
  // 0.49 -> 0.64 / 0.65, c128 +16 0.60 / 0.63 -> 0.74 / 0.74.
  // (Both it and the carry kernel below need every output row to start on a unit boundary.)
  bool unit_rows = reinterpret_cast<std::uintptr_t>(out) % p.unit == 0 && p.out_rs % p.unit == 0;
  for (int i = 0; i < g.batch_rank; ++i) unit_rows = unit_rows && (g.batch_out_stride[i] * wb) % p.unit == 0;
  const bool shifted = !direct && unit_rows && k.tile_stream != nullptr && p.out_rs % line == 0 &&
                       (t.tile_r * p.unit) % line == 0 && line % p.unit == 0;
  // Rows that start on a unit boundary but not on a line: the level's carry kernel, where it has one.
  const bool carry = unit_rows && k.stream_carry != nullptr;
  // Packed tiles hold the rows a tile may read past its own: one block (carry) or up to one line (staged).
  const std::int64_t pack_extra = std::max<std::int64_t>(k.block_rows, (line + p.unit - 1) / p.unit);
  const std::int64_t pack_rs = (t.tile_c * p.unit + line - 1) / line * line;
  parallel_slices(items * per_item, nt, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) unsigned char stage[staging_bytes];  // strip x t.stage_rs bytes used
    unsigned char* pack = m.axes > 0 ? pack_buffer((t.tile_r + pack_extra) * pack_rs) : nullptr;
    batch_cursor b(g, begin / per_item);
    std::int64_t tc = begin % per_item / tiles_r, tr = begin % tiles_r;
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t r0 = tr * t.tile_r;
      const auto [c0, nc] = col_tile(tc);
      const std::int64_t nr = std::min(t.tile_r, p.rows - r0);
      const unsigned char* in_plane = in + b.in_offset() * wb;
      // Prefetch the next tile of this plane: down the panel, else the top of the next panel.
      prefetch_cursor pf;
      const bool has_next = pack == nullptr && task + 1 < end && (r0 + t.tile_r < p.rows || c0 + nc < p.cols);
      if (has_next) {
        const bool down = r0 + t.tile_r < p.rows;
        const std::int64_t next_nr = down ? std::min(t.tile_r, p.rows - r0 - t.tile_r) : std::min(t.tile_r, p.rows);
        const std::int64_t next_nc = down ? nc : col_tile(tc + 1).second;
        pf = next_tile_prefetch(down ? in_plane + (r0 + t.tile_r) * p.in_rs + c0 * p.unit : in_plane + (c0 + nc) * p.unit,
                                p.in_rs, next_nr, next_nc, p.unit, nr, nc, k);
      }
      const unsigned char* tin = in_plane + r0 * p.in_rs + c0 * p.unit;
      std::int64_t in_rs = p.in_rs;
      if (pack != nullptr) {  // the packed rows (sequential reads) replace the prefetch of the next tile
        m.pack(in_plane, r0, std::min(nr + pack_extra, p.rows - r0), c0, nc, p.unit, pack, pack_rs);
        tin = pack;
        in_rs = pack_rs;
      }
      stream_tile(p, t, k, isa, tin, in_rs, out + b.out_offset() * wb, r0, nr, c0, nc, has_next ? &pf : nullptr,
                  stage, direct, shifted, carry);
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

// Small planes whose output is one contiguous run of whole lines (output rows packed, the plane's output a
// multiple of 64 bytes, every plane line-aligned): batches of small matrices and N-d permutations that keep
// whole blocks, e.g. 65536 x 32 x 32. Their output rows are too short to stream row by row, and plain stores
// read every output line before writing it (a third of the traffic). Each plane is transposed into the L1
// staging buffer and streamed out whole; the next plane's input is prefetched into L2 meanwhile (planes
// lie anywhere in the input). Tasks are planes.
bool run_planes(const plan_geometry& g, const plane_geometry& p, const tile_kernel& k, const isa_kernels& isa,
                const unsigned char* in, unsigned char* out, int threads) {
  const std::int64_t wb = g.word_bytes;
  const std::int64_t plane_bytes = p.rows * p.cols * p.unit, items = g.batch_count();
  bool ok = isa.stream_lines != nullptr && items > 1 && p.out_rs == p.rows * p.unit && plane_bytes % line == 0 &&
            plane_bytes <= staging_bytes && reinterpret_cast<std::uintptr_t>(out) % line == 0 &&
            use_streaming(items * plane_bytes, plane_bytes, host_caches());
  for (int i = 0; i < g.batch_rank; ++i) ok = ok && (g.batch_out_stride[i] * wb) % line == 0;
  if (!ok) return false;
  const int nt = resolve_threads(threads, items * plane_bytes, items);
  parallel_slices(items, nt, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) unsigned char stage[staging_bytes];
    batch_cursor b(g, begin), next(g, begin);
    next.next();
    for (std::int64_t item = begin; item < end; ++item) {
      if (item + 1 < end) {
        const unsigned char* nin = in + next.in_offset() * wb;
        for (std::int64_t r = 0; r < p.rows; ++r) prefetch_run(nin + r * p.in_rs, p.cols * p.unit);
      }
      k.tile(in + b.in_offset() * wb, p.in_rs, stage, p.out_rs, p.rows, p.cols, p.words, nullptr);
      isa.stream_lines(out + b.out_offset() * wb, stage, plane_bytes / line);
      b.next();
      next.next();
    }
    isa.fence();
  });
  return true;
}

// Larger or odd-sized small planes of a packed batch (the batch's output one contiguous range, planes of
// rows shorter than 4 lines, which the row-wise streaming path cannot take): run_planes with the line that
// a plane's end leaves partial carried into the next plane's staging, so a thread streams its range of the
// output as whole lines and writes only its first and last partial lines with plain stores. Planes up to
// 256 KiB (staged in the thread's pack_buffer). Before, such batches took the cached path, whose
// plain stores read every output line first (u8 1115 x 204 x 295: 0.35 of the non-temporal copy).
bool run_planes_carried(const plan_geometry& g, const plane_geometry& p, const tile_kernel& k,
                        const isa_kernels& isa, const unsigned char* in, unsigned char* out, int threads) {
  constexpr std::int64_t max_plane = std::int64_t{256} << 10;
  const std::int64_t wb = g.word_bytes;
  const std::int64_t plane_bytes = p.rows * p.cols * p.unit, items = g.batch_count();
  // Item i's output at i x plane_bytes (nested_batch_bytes).
  const bool ok = isa.stream_lines != nullptr && items > 1 && p.out_rs == p.rows * p.unit && plane_bytes <= max_plane &&
                  p.rows * p.unit < 4 * line && use_streaming(items * plane_bytes, plane_bytes, host_caches()) &&
                  nested_batch_bytes(g, plane_bytes, false) != 0;
  if (!ok) return false;
  const int nt = resolve_threads(threads, items * plane_bytes, items);
  parallel_slices(items, nt, [&](std::int64_t begin, std::int64_t end) {
    unsigned char* stage = pack_buffer(plane_bytes + line);  // the thread's kept buffer: no allocation a call
    batch_cursor b(g, begin), next(g, begin);
    next.next();
    unsigned char* dst = out + begin * plane_bytes;  // output address of stage[0] once `pending` is set up
    std::int64_t pending = 0;                        // bytes at stage[0 ..) not written yet (< one line)
    for (std::int64_t item = begin; item < end; ++item) {
      if (item + 1 < end) {
        const unsigned char* nin = in + next.in_offset() * wb;
        for (std::int64_t r = 0; r < p.rows; ++r) prefetch_run(nin + r * p.in_rs, p.cols * p.unit);
      }
      k.tile(in + b.in_offset() * wb, p.in_rs, stage + pending, p.out_rs, p.rows, p.cols, p.words, nullptr);
      std::int64_t have = pending + plane_bytes, from = 0;
      // The range's first partial line: plain stores until dst reaches a line boundary (several planes when
      // they are shorter than the rest of that line; pending stays 0 until then).
      if (const auto phase = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(dst) % line); phase != 0) {
        const std::int64_t head = std::min(have, line - phase);
        std::memcpy(dst, stage, static_cast<std::size_t>(head));
        dst += head;
        from = head;
      }
      const std::int64_t lines = (have - from) / line;
      isa.stream_lines(dst, stage + from, lines);
      dst += lines * line;
      pending = have - from - lines * line;
      std::memmove(stage, stage + from + lines * line, static_cast<std::size_t>(pending));
      b.next();
      next.next();
    }
    std::memcpy(dst, stage, static_cast<std::size_t>(pending));  // the range's last partial line
    isa.fence();
  });
  return true;
}

// Thin planes (rows x k or k x rows, k small, the long side packed): the level's (de)interleave kernels on
// chunks of the long side, the ragged end of each plane by the tile kernel. Tasks are (item, chunk).
// Streaming stores when use_streaming says so (an output of at least one L2) and every output vector lands
// on a line.
/// The level's fixed-k (de)interleave networks for units of 2^lg bytes and k planes (both directions, or none)
/// and the rows or columns a call takes at once.
struct thin_network {
  isa_kernels::net_deinterleave_fn deinterleave = nullptr;
  isa_kernels::net_interleave_fn interleave = nullptr;
  std::int64_t step = 0;
};

thin_network thin_network_for(const isa_kernels& isa, int lg, std::int64_t k) {
  thin_network t;
  if (lg == 0 && k == 16) t = {isa.deinterleave16_u8, isa.interleave16_u8, 64};
  if (lg == 0 && k == 8) t = {isa.deinterleave8_u8, isa.interleave8_u8, 128};
  if (lg == 1 && k == 8) t = {isa.deinterleave8_u16, isa.interleave8_u16, 32};
  if (lg == 1 && k == 16) t = {isa.deinterleave16_u16, isa.interleave16_u16, 32};
  if (t.deinterleave == nullptr || t.interleave == nullptr) return {};
  return t;
}

// Staged thin planes (run_thin): output bytes of all rows staged and streamed out at a time.
constexpr std::int64_t thin_piece_bytes = 3072;

bool run_thin(const plan_geometry& g, const plane_geometry& p, const tile_kernel& k, const isa_kernels& isa, int lg,
              const unsigned char* in, unsigned char* out, int threads) {
  if (lg < 0 || lg > 4) return false;
  // 8 and 16 byte planes: the 16 x 16 byte-transpose network where the level has one (thin_avx512.hpp; for
  // k = 8 its rows are row pairs); 8 and 16 planes of 2-byte units: the 8 x 8 word network; any other k or
  // unit: the level's thin_gather kernels. A network takes its k in one direction only, whatever the shape.
  const thin_network aos_net = thin_network_for(isa, lg, p.cols), soa_net = thin_network_for(isa, lg, p.rows);
  const bool aos_network = aos_net.deinterleave != nullptr && p.in_rs == p.cols * p.unit;
  const bool soa_network = !aos_network && soa_net.interleave != nullptr && p.out_rs == p.rows * p.unit;
  const bool network = aos_network || soa_network;
  const bool aos = aos_network || (!network && isa.deinterleave[lg] != nullptr && p.cols >= 2 &&
                                   p.cols <= isa.thin_max_k[lg] && p.in_rs == p.cols * p.unit);
  const int soa_max_k = isa.interleave_max_k[lg] > 0 ? isa.interleave_max_k[lg] : isa.thin_max_k[lg];
  const bool soa = soa_network || (!network && !aos && isa.interleave[lg] != nullptr && p.rows >= 2 &&
                                   p.rows <= soa_max_k && p.out_rs == p.rows * p.unit);
  const std::int64_t step = aos_network ? aos_net.step : soa_network ? soa_net.step : isa.thin_step[lg];
  const auto deinterleave_net = aos_network ? aos_net.deinterleave : nullptr;
  const auto interleave_net = soa_network ? soa_net.interleave : nullptr;
  const std::int64_t n = aos ? p.rows : p.cols, kk = aos ? p.cols : p.rows;  // long and short side
  if ((!aos && !soa) || n < 4 * step) return false;
  // A short side of whole register blocks is the tile kernel's best case: a thin kernel spends ceil(k / 2)
  // permutes per vector, a block about log2(16 / unit) + 2 shuffles (fp32 16 x 256 planes: 8.5 GB/s thin,
  // hot in L1, against 48 GB/s for 32 x 32 tiles). The byte network is cheaper than both.
  if (!network && kk % (aos ? k.block_cols : k.block_rows) == 0) return false;
  const std::int64_t wb = g.word_bytes;
  const std::int64_t items = g.batch_count();
  // Chunks of ~64 KiB of input, whole vectors.
  const std::int64_t chunk = std::max<std::int64_t>(step, (std::int64_t{64} << 10) / (kk * p.unit) / step * step);
  const std::int64_t chunks = (n + chunk - 1) / chunk;
  const std::int64_t out_bytes = items * p.rows * p.cols * p.unit;
  const bool streaming = isa.stream_lines != nullptr && use_streaming(out_bytes, 256, host_caches());
  // The kernels stream whole vectors to 64-byte aligned addresses: output rows (and batch items) on the line.
  bool out_lines = reinterpret_cast<std::uintptr_t>(out) % line == 0 && (aos ? p.out_rs % line == 0 : true);
  for (int i = 0; i < g.batch_rank; ++i) out_lines = out_lines && (g.batch_out_stride[i] * wb) % line == 0;
  const bool stream = streaming && out_lines;
  // Outputs off the line (n x k -> k x n with n U not a multiple of 64: every output row at another phase; a
  // base off the line): the kernels write each chunk in pieces of about thin_piece_bytes to a per-thread stage
  // in L1, every row at its destination's line phase, and the pieces' whole lines are streamed out from there
  // (the line a piece ends in is carried to the next piece; a chunk's first and last partial lines are stored
  // plainly: the neighbouring chunks own the rest of them). Plain stores had read every output line first.
  // Whole chunks staged before streaming out lost (the reads and the stores no longer overlap: a 64 KiB stage
  // copied 34 GB/s against 53 straight, 2 KiB pieces 48). Dev VM (AMD EPYC), same binary, 3 rounds, 1 / 2
  // threads, GB/s (the 2-thread non-temporal copy alternates between 60 and 100 GB/s there, so ratios mislead):
  // fp32 5592404 x 3 27 / 50 -> 31 / 56, 4194305 x 4 24 / 45 -> 35 / 57, fp64 2796203 x 3 27 / 50 -> 33 / 55,
  // fp16 4194305 x 7 16 / 32 -> 27 / 50, u8 8388609 x 5 19 / 37 -> 24 / 47, NHWC -> NCHW 16 x 99 x 99 x 3 (fp32)
  // 17 / 31 -> 30 / 54; aligned ones unchanged (4194304 x 3: 47-52 / 58-88). Pieces of 128-256 fp32 units a
  // row (1.5-3 KiB over 3 rows) measured alike, 512 -2-5 GB/s, 1024 -5-10.
  const bool staged = streaming && !out_lines;
  const std::int64_t piece_units = std::max<std::int64_t>(step, thin_piece_bytes / (kk * p.unit) / step * step);
  const std::int64_t out_rows = aos ? kk : 1, row_bytes_a_unit = aos ? p.unit : kk * p.unit;
  const std::int64_t stage_rs = round_up(piece_units * row_bytes_a_unit + 3 * line, line) + (aos ? p.out_rs % line : 0);
  const std::int64_t stage_bytes = out_rows * stage_rs + 2 * line;
  // Units [u, u + pl) of the long side of the item at `src` to `dst` (their first output byte; AoS -> SoA: rows
  // dst_rs apart): whole vectors through the thin kernel, or (vec false) the rest through the tile kernel.
  auto move = [&](const unsigned char* src, std::int64_t u, std::int64_t pl, bool vec, unsigned char* dst,
                  std::int64_t dst_rs, bool st) {
    if (aos) {
      const unsigned char* const s = src + u * p.in_rs;
      if (!vec) k.tile(s, p.in_rs, dst, dst_rs, pl, kk, p.words, nullptr);
      else if (deinterleave_net != nullptr) deinterleave_net(s, dst, dst_rs, pl, st);
      else isa.deinterleave[lg](s, dst, dst_rs, pl, kk, st);
    } else {
      const unsigned char* const s = src + u * p.unit;
      if (!vec) k.tile(s, p.in_rs, dst, p.out_rs, kk, pl, p.words, nullptr);
      else if (interleave_net != nullptr) interleave_net(s, p.in_rs, dst, pl, st);
      else isa.interleave[lg](s, p.in_rs, dst, pl, kk, st);
    }
  };
  const int nt = resolve_threads(threads, out_bytes, items * chunks);
  parallel_slices(items * chunks, nt, [&](std::int64_t begin, std::int64_t end) {
    unsigned char* const stage = staged ? pack_buffer(stage_bytes) : nullptr;
    batch_cursor b(g, begin / chunks);
    std::int64_t ch = begin % chunks;
    for (std::int64_t task = begin; task < end; ++task) {
      const unsigned char* src = in + b.in_offset() * wb;
      unsigned char* const out_item = out + b.out_offset() * wb;
      const std::int64_t s0 = ch * chunk, len = std::min(chunk, n - s0), vec_len = len / step * step;
      if (!staged) {
        move(src, s0, vec_len, true, out_item + s0 * row_bytes_a_unit, p.out_rs, stream);
        if (vec_len < len)
          move(src, s0 + vec_len, len - vec_len, false, out_item + (s0 + vec_len) * row_bytes_a_unit, p.out_rs, false);
      } else {
        // Pieces [u0, u0 + pl) of the chunk (vectors, then the tail's units through the tile kernel). Row r's
        // piece goes to the stage at its destination's line phase ph_r, after the ph_r bytes carried from the
        // last piece (the start of that line), so the row's stage starts on the destination's line: its whole
        // lines are streamed out, the last partial one carried on (or, at the chunk's end, stored plainly), and
        // on the chunk's first piece the line before the chunk (another chunk's) is stored from ph_r on.
        std::int64_t u0 = 0;
        while (u0 < len) {
          const bool vec = u0 < vec_len;
          const std::int64_t pl = vec ? std::min(piece_units, vec_len - u0) : len - u0;
          const bool last = u0 + pl == len;
          // The piece's first output byte (row 0) and where it is staged (row r: + r stage_rs), a line into the
          // row's stage so that the carried bytes fit before it.
          unsigned char* const d0 = out_item + (s0 + u0) * row_bytes_a_unit;
          unsigned char* const base = stage + line + reinterpret_cast<std::uintptr_t>(d0) % line;
          move(src, s0 + u0, pl, vec, base, stage_rs, false);
          unsigned char* const next_base =
              stage + line + reinterpret_cast<std::uintptr_t>(d0 + pl * row_bytes_a_unit) % line;
          for (std::int64_t r = 0; r < out_rows; ++r) {
            unsigned char* const d = d0 + r * p.out_rs;
            const auto ph = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(d) % line);
            unsigned char* const line0 = d - ph;                  // the destination line the piece starts in
            const unsigned char* const row = base + r * stage_rs - ph;  // its stage (ph bytes carried, or not ours)
            const std::int64_t end_b = ph + pl * row_bytes_a_unit;
            std::int64_t w = 0;
            if (u0 == 0 && ph > 0) {  // the chunk's first line: its bytes before ph are the previous chunk's
              w = std::min(line, end_b);  // (a first piece shorter than that line is the chunk's last)
              std::memcpy(d, row + ph, static_cast<std::size_t>(w - ph));
            }
            if (const std::int64_t lines = (end_b - w) / line; lines > 0) {
              isa.stream_lines(line0 + w, row + w, lines);
              w += lines * line;
            }
            if (w == end_b) continue;
            if (last) std::memcpy(line0 + w, row + w, static_cast<std::size_t>(end_b - w));
            else std::memmove(next_base + r * stage_rs - (end_b - w), row + w, static_cast<std::size_t>(end_b - w));
          }
          u0 += pl;
        }
      }
      if (++ch == chunks) {
        ch = 0;
        b.next();
      }
    }
    if (stream || staged) isa.fence();
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

tile_kernel unit_kernel(const isa_kernels& isa, std::int64_t unit, std::int64_t word_bytes) {
  const int lg = log2_pow2_unit(unit);
  if (lg >= 0 && isa.pow2[lg].tile != nullptr) return isa.pow2[lg];
  if (unit == 3 && isa.unit3.tile != nullptr) return isa.unit3;
  if (unit == 6 && isa.unit6.tile != nullptr) return isa.unit6;
  if (unit == 12 && isa.unit12.tile != nullptr) return isa.unit12;
  return scalar_unit_kernel(unit, word_bytes);
}

namespace {

// Merged columns (compound column sides, the mirror of row_merge): [2731,2048,3] reversed is, per plane, a
// 2731 x 6144 transpose whose input columns (j, c) are contiguous but whose output rows lie at c x 5593088 +
// j x 2731 units, not one stride apart. Flattened to its fastest column axis it is 2048 planes of 2731 x 3:
// 12-byte reads from rows 24 KiB apart (a TLB miss and most of a line wasted per read), 0.08 of the
// non-temporal copy on the dev VM. Here a tile is tile_r rows x tile_c merged columns (whole lines of input
// per row); it is transposed into the L1 staging buffer and each of its output rows copied to its own
// address, found by stepping a cursor over the column axes.
struct col_cursor {
  const plan_geometry* g = nullptr;
  std::array<std::int64_t, max_canonical_rank> idx{};
  std::int64_t off = 0;  // words
  void at(std::int64_t k) {
    off = 0;
    for (int a = g->col_rank - 1; a >= 0; --a) {
      idx[a] = k % g->col_extent[a];
      k /= g->col_extent[a];
      off += idx[a] * g->col_out_stride[a];
    }
  }
  void step() {
    for (int a = g->col_rank - 1; a >= 0; --a) {
      off += g->col_out_stride[a];
      if (++idx[a] < g->col_extent[a]) return;
      off -= g->col_extent[a] * g->col_out_stride[a];
      idx[a] = 0;
    }
  }
};

}  // namespace

bool cpu_transpose2d_merged_cols(const plan_geometry& g, const void* in_v, void* out_v, int threads) {
  if (g.algo != algorithm::transpose2d || g.col_rank < 2) return false;
  const std::int64_t wb = g.word_bytes, unit = g.elem_words * wb;
  // Only where the flattened plane reads short runs: its fastest column axis under 4 lines (fp64
  // [128,128,128,8] axes 3,1,2,0, 64-byte runs 1 MiB apart: 1 thread 0.30 -> 0.42 of the non-temporal copy).
  if (g.col_extent[g.col_rank - 1] * unit >= 4 * line) return false;
  // The outer row axes become batch axes; the columns are merged here. Rows too short to stream (a compound
  // row side whose fastest axis is short) merge back with the axes that continue them in the output, packed
  // through a row cursor as the plain path does (merge_output_rows): fp32 [26,4,23,29,16,15] axes 5,0,4,2,3,1
  // (rows [667, 4]: 4-row tiles of 16-byte output pieces) ran 0.067 of the non-temporal copy on the dev VM.
  plan_geometry f = flatten_row_side(g);
  const std::int64_t in_rs = g.in_ld * wb;
  plane_geometry rows_plane{};
  rows_plane.rows = f.rows, rows_plane.unit = unit, rows_plane.in_rs = in_rs;
  const row_merge m = merge_output_rows(f, rows_plane);
  const std::int64_t rows = f.rows;
  std::int64_t cols = 1;
  for (int a = 0; a < g.col_rank; ++a) cols *= g.col_extent[a];
  const std::int64_t items = f.batch_count();
  if (rows == 0 || cols == 0 || items == 0) return true;
  const auto* in = static_cast<const unsigned char*>(in_v);
  auto* out = static_cast<unsigned char*>(out_v);

  const isa_kernels& isa = kernels_for(active_cpu_isa());
  const tile_kernel k = unit_kernel(isa, unit, wb);
  // Streaming (use_streaming, as cpu_transpose2d): each staging row holds up to a line of units more.
  const bool stream = isa.stream_lines != nullptr && use_streaming(items * rows * cols * unit, rows * unit, host_caches());
  const std::int64_t extra = merged_cols_margin(unit, stream);
  const merged_cols_tiles mt = choose_merged_cols_tiles(rows, cols, unit, k.block_rows, k.block_cols, stream);
  if (mt.tile_r == 0) return false;  // a unit too large for the staging buffer: the plain path
  const std::int64_t tile_r = mt.tile_r, tile_c = mt.tile_c;
  plane_geometry p{};
  p.rows = rows, p.cols = cols, p.unit = unit, p.words = g.elem_words;
  const std::int64_t stage_rs = (tile_r + extra) * unit;
  // Input rows a multiple of 4 KiB apart fall in one L1 set: such tiles are packed first (as row_merge does);
  // merged rows always are.
  const bool pack_rows = in_rs % 4096 == 0 || m.axes > 0;
  const std::int64_t pf_rows = std::min(tile_r, std::max<std::int64_t>(2, pack_prefetch_bytes / std::max<std::int64_t>(tile_c * unit, 64)));
  const std::int64_t pack_rs = round_up(tile_c * unit, line) + line;
  const std::int64_t tiles_r = (rows + tile_r - 1) / tile_r, tiles_c = (cols + tile_c - 1) / tile_c;
  const std::int64_t per_item = tiles_r * tiles_c;
  const int nt = resolve_threads(threads, items * rows * cols * unit, items * per_item);
  // Tasks in (item, tile column, tile row) order: consecutive tasks continue the same output rows.
  parallel_slices(items * per_item, nt, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) unsigned char stage[staging_bytes];
    unsigned char* pack = pack_rows ? pack_buffer((tile_r + extra) * pack_rs) : nullptr;
    batch_cursor b(f, begin / per_item);
    std::int64_t tc = begin % per_item / tiles_r, tr = begin % tiles_r;
    col_cursor cc{&g};
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t r0 = tr * tile_r, c0 = tc * tile_c;
      const std::int64_t nr = std::min(tile_r, rows - r0), nc = std::min(tile_c, cols - c0);
      unsigned char* out_item = out + b.out_offset() * wb;
      // Streaming: the tile writes the output lines that start in its rows (write_owned), which may take up
      // to one line of units past them.
      std::int64_t need = nr;
      if (stream) {
        cc.at(c0);
        for (std::int64_t j = 0; j < nc; ++j, cc.step())
          need = std::max(need, owned_need(r0, nr, p, reinterpret_cast<std::uintptr_t>(out_item + cc.off * wb)));
      }
      const unsigned char* tin = in + b.in_offset() * wb + r0 * in_rs + c0 * unit;
      std::int64_t tin_rs = in_rs;
      // Rows lie far apart and runs are short: the runs pf_rows ahead (down this column of tiles, into the
      // next tile) are prefetched into L2 while a row is read, as row_merge::pack does.
      const std::int64_t pf_end = std::min(nr, rows - r0 - pf_rows);  // rows whose row pf_rows ahead exists
      if (m.axes > 0) {  // merged rows: packed through the row cursor (with its own prefetch)
        m.pack(in + b.in_offset() * wb, r0, need, c0, nc, unit, pack, pack_rs);
        tin = pack;
        tin_rs = pack_rs;
      } else {
        if (r0 == 0 || task == begin)  // a column's (or a thread's) first tile: its own first rows too
          for (std::int64_t r = 0; r < std::min(pf_rows, nr); ++r) prefetch_run(tin + r * in_rs, nc * unit);
        if (pack != nullptr) {
          for (std::int64_t r = 0; r < need; ++r) {
            if (r < pf_end) prefetch_run(tin + (r + pf_rows) * in_rs, nc * unit);
            std::memcpy(pack + r * pack_rs, tin + r * in_rs, static_cast<std::size_t>(nc * unit));
          }
          tin = pack;
          tin_rs = pack_rs;
        } else {
          for (std::int64_t r = 0; r < pf_end; ++r) prefetch_run(tin + (r + pf_rows) * in_rs, nc * unit);
        }
      }
      k.tile(tin, tin_rs, stage, stage_rs, need, nc, g.elem_words, nullptr);
      cc.at(c0);
      for (std::int64_t j = 0; j < nc; ++j, cc.step()) {
        if (stream) write_owned(out_item + cc.off * wb, r0, nr, p, stage + j * stage_rs, isa);
        else std::memcpy(out_item + cc.off * wb + r0 * unit, stage + j * stage_rs, static_cast<std::size_t>(nr * unit));
      }
      if (++tr == tiles_r) {
        tr = 0;
        if (++tc == tiles_c) {
          tc = 0;
          b.next();
        }
      }
    }
    if (stream) isa.fence();
  });
  return true;
}

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
  const tile_kernel k = unit_kernel(isa, p.unit, g.word_bytes);

  // The level's own (de)interleave kernels first: fp32 4194304 x 3 0.96 of the copy there, 0.69 as a periodic
  // permutation. Then small planes and thin planes of other units as one periodic permutation (fp32 8 x 16
  // batches 0.24 -> 0.65, u8 3 x 16 0.03 -> 0.94, rgb8 4 x 4194304 0.42 -> 0.83), except planes of whole
  // register blocks, which stream best as tiles (run_planes: fp32 16 x 16 0.97 of the non-temporal copy, 0.51
  // as a periodic permutation of 8 windows a vector; fp64 8 x 8 0.93 vs 0.72).
  if (run_thin(g, p, k, isa, lg, in, out, threads)) return;
  const bool whole_blocks = k.tile_stream != nullptr && p.rows % k.block_rows == 0 && p.cols % k.block_cols == 0;
  if (!whole_blocks && cpu_transpose2d_periodic(g, in, out, threads)) return;
  if (run_planes(g, p, k, isa, in, out, threads)) return;
  if (run_planes_carried(g, p, k, isa, in, out, threads)) return;
  plan_geometry gm = g;
  const row_merge m = merge_output_rows(gm, p);

  const cpu_caches& caches = host_caches();
  const std::int64_t out_bytes = gm.batch_count() * p.rows * p.cols * p.unit;
  const bool streaming = isa.stream_lines != nullptr && use_streaming(out_bytes, p.rows * p.unit, caches);
  transpose_tuning t =
      choose_transpose_tuning(p.rows, p.cols, p.unit, k.block_rows, k.block_cols, streaming, caches,
                              m.axes > 0 ? 0 : p.in_rs);  // packed tiles are read from a contiguous buffer
  if (t.streaming && t.strip * t.stage_rs <= staging_bytes) run_streaming(gm, p, t, k, isa, m, in, out, threads);
  else run_cached(gm, p, t, k, m, in, out, threads);
}

}  // namespace xpose::detail
