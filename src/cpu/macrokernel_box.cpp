// Boxes on the CPU: transpose2d geometries (N-d permutations) whose tile sides stay short, moved as boxes of
// several axes — the GPU's box plans (plan/box.hpp) under the CPU's limits (make_cpu_box).
//
// The plane paths (macrokernel_transpose2d.cpp) move tiles of the fastest axis of each side; where those are
// a few units (7x3x2x14x41x7x2x51 axes 3,0,1,5,4,7,2,6: output rows of 2 x 2 units, input rows of 51), every
// tile reads and writes runs of a few bytes, most of each line wasted. A box takes both tile sides plus the
// batch axes nested right outside its input run or its output run, so that both runs grow to lines or more
// (there: 51 x 2 x 7 in, 2 x 2 x 51 out). Per box, on one thread:
//   1. gather: the box's elements in output order into an L1 staging buffer, one unit at a time through a
//      table of input offsets built once per box shape (a box is the same permutation wherever it lies); or,
//      for a box that is a batch of 2-D transposes (its output order's first axis, then the input's
//      contiguous axis), the level's tile kernel on each (choose_tiles); or, where the level has a two-source
//      permute and the box's output vectors need few input windows, the permute path: each 64-byte output
//      vector assembled by a few permutes of 128-byte input windows (choose_program);
//   2. write: each output run from the buffer to its address — whole lines with non-temporal stores when the
//      output is large (use_streaming), the partial lines at a run's ends with plain ones (other boxes own
//      the rest of those lines: every byte is written by exactly one box);
//   3. meanwhile the next box's input runs are prefetched into L2 (boxes lie anywhere in the input, so the
//      hardware prefetchers have nothing to follow).
// Tasks are boxes; each thread takes a contiguous slice of them in batch order (output order, roughly).
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
#include "cpu/periodic_program.hpp"
#include "cpu/threads.hpp"
#include "cpu/tuning_cpu.hpp"
#include "plan/box.hpp"
#include "plan/span.hpp"

namespace xpose::detail {

namespace {

constexpr std::int64_t line = 64;

// The batch axes of a box plan (row-major, slowest first), walked with increments after one positioning.
class box_cursor {
 public:
  box_cursor(const box_plan& b, std::int64_t flat) : b_(b) {
    for (int i = b.batch_rank - 1; i >= 0; --i) {
      idx_[i] = flat % b.batch[i].extent;
      flat /= b.batch[i].extent;
      in_ += idx_[i] * b.batch[i].in_stride;
      out_ += idx_[i] * b.batch[i].out_stride;
    }
  }
  std::int64_t in() const noexcept { return in_; }    // bytes
  std::int64_t out() const noexcept { return out_; }  // bytes
  void next() noexcept {
    for (int i = b_.batch_rank - 1; i >= 0; --i) {
      in_ += b_.batch[i].in_stride;
      out_ += b_.batch[i].out_stride;
      if (++idx_[i] < b_.batch[i].extent) return;
      in_ -= b_.batch[i].extent * b_.batch[i].in_stride;
      out_ -= b_.batch[i].extent * b_.batch[i].out_stride;
      idx_[i] = 0;
    }
  }

 private:
  const box_plan& b_;
  std::array<std::int64_t, 2 * max_canonical_rank> idx_{};
  std::int64_t in_ = 0, out_ = 0;
};

// A box's tables, in bytes from the box's first input / output element. Built once per call: V entries of a
// few additions each (perf, 2400-unit boxes: about a quarter of a 672 KB problem's 250 us, nothing on the
// suite's 64 MiB ones; a cache across calls would serve small problems). The storage is the calling thread's,
// grown on first use and kept, so an execution allocates nothing once warm; the workers only read it.
struct box_tables {
  std::vector<std::int32_t> storage;
  periodic_program prog;  // the box's output bytes from windows of its input (permute path)
  // The tiles path (choose_tiles): the box as a batch of tile_nr x tile_nc transposes.
  bool tiles = false;
  std::int64_t tile_nr = 0, tile_nc = 0, tile_in_rs = 0;
  std::vector<std::int64_t> tile_in, tile_stage;  // per batch item: input offset, stage offset (bytes)
  int prog_lg = -1;       // isa.periodic[prog_lg] runs prog; -1: the gather
  // What the tables were built for: the box's axes, the level and the box mode.
  box_plan built{};
  const isa_kernels* built_isa = nullptr;
  box_mode built_mode = box_mode::never;

  bool same(const box_plan& b, const isa_kernels& isa) const {
    if (built_isa != &isa || built_mode != cpu_box_mode() || b.unit_bytes != built.unit_bytes ||
        b.rank != built.rank || b.volume != built.volume || b.in_run != built.in_run || b.out_run != built.out_run)
      return false;
    for (int k = 0; k < b.rank; ++k) {
      const box_axis &x = b.axis[k], &y = built.axis[k];
      if (x.extent != y.extent || x.in_stride != y.in_stride || x.out_stride != y.out_stride ||
          b.out_order[k] != built.out_order[k])
        return false;
    }
    return true;
  }
  // Builds every table of `b` for `isa` (make_tables, choose_tiles, choose_program below) and remembers what for.
  void build(const box_plan& b, const isa_kernels& isa);
  const std::int32_t* src = nullptr;      // input offset of the o-th element in output order (V entries)
  const std::int32_t* out_run = nullptr;  // output offset of each output run (out_run elements contiguous)
  const std::int32_t* in_run = nullptr;   // input offset of each input run (for the prefetch)
  std::int64_t out_runs = 0, in_runs = 0;
};

void make_tables(const box_plan& b, box_tables& t) {
  const std::int64_t V = b.volume;
  t.out_runs = V / b.out_run;
  t.in_runs = V / b.in_run;
  if (static_cast<std::int64_t>(t.storage.size()) < V + t.out_runs + t.in_runs)
    t.storage.resize(static_cast<std::size_t>(V + t.out_runs + t.in_runs));
  std::int32_t* src = t.storage.data();
  std::int32_t* out_run = src + V;
  std::int32_t* in_run = out_run + t.out_runs;
  t.src = src, t.out_run = out_run, t.in_run = in_run;
  // Output order: digits over out_order (fastest first), odometer-style.
  std::array<std::int64_t, 2 * max_canonical_rank> d{};
  std::int64_t in_off = 0, out_off = 0;
  for (std::int64_t o = 0; o < V; ++o) {
    src[o] = static_cast<std::int32_t>(in_off);
    if (o % b.out_run == 0) out_run[o / b.out_run] = static_cast<std::int32_t>(out_off);
    for (int j = 0; j < b.rank; ++j) {
      const box_axis& a = b.axis[b.out_order[j]];
      in_off += a.in_stride;
      out_off += a.out_stride;
      if (++d[j] < a.extent) break;
      in_off -= a.extent * a.in_stride;
      out_off -= a.extent * a.out_stride;
      d[j] = 0;
    }
  }
  // Input order (axes ascending in input stride): run r starts at element r x in_run.
  d = {};
  in_off = 0;
  for (std::int64_t i = 0; i < V; ++i) {
    if (i % b.in_run == 0) in_run[i / b.in_run] = static_cast<std::int32_t>(in_off);
    for (int k = 0; k < b.rank; ++k) {
      in_off += b.axis[k].in_stride;
      if (++d[k] < b.axis[k].extent) break;
      in_off -= b.axis[k].extent * b.axis[k].in_stride;
      d[k] = 0;
    }
  }
}

// The permute path (the level's two-source permutes, periodic_avx512.hpp): each 64-byte vector of the box's
// output order assembled from the 128-byte windows of the box's input that hold its bytes (periodic_program,
// the windows at input offsets from the box's first element), where the gather moves one element a load and a
// store. Chosen per box plan when the level has a permute whose granule divides the unit and every input
// stride of the box (window indices count granules) and a window serves at least box_permute_min_elements
// elements (tuning_cpu.hpp). A window may reach up to 127 bytes past the box's last input byte: boxes whose
// windows would pass the input's end take the gather.
void choose_program(const box_plan& b, box_tables& t, const isa_kernels& isa) {
  t.prog_lg = -1;
  if (t.tiles) return;  // the tiles path first (choose_tiles)
  const std::int64_t U = b.unit_bytes, V = b.volume, bytes = V * U;
  std::uint64_t bits = static_cast<std::uint64_t>(U);
  for (int k = 0; k < b.rank; ++k) bits |= static_cast<std::uint64_t>(b.axis[k].in_stride);
  const int lg = periodic_granule_lg(isa, bits);
  if (lg < 0 || cpu_box_mode() == box_mode::gather) return;
  const int g = 1 << lg;
  t.prog.clear(g);
  std::vector<std::pair<std::int64_t, int>> granules;
  granules.reserve(64);
  for (std::int64_t v0 = 0; v0 < bytes; v0 += 64) {
    granules.clear();
    for (int slot = 0; slot < 64 / g && v0 + slot * g < bytes; ++slot) {
      const std::int64_t p = v0 + slot * g, o = p / U;
      granules.emplace_back(std::int64_t{t.src[o]} + p % U, slot);
    }
    t.prog.add_vector(granules);
  }
  if (t.prog.windows() * box_permute_min_elements <= V) t.prog_lg = lg;
}

// The tiles path: a box whose output order starts with an axis a and then the input's fastest axis 0
// (contiguous input rows along axis 0, contiguous output rows along a) is a batch of ext_a x ext_0 transposes
// (one per index of its other axes), which the level's tile kernel moves in register blocks instead of an
// element (or a 128-byte window) at a time; taken where both sides are at least box_tiles_min_side
// (tuning_cpu.hpp) and before the permute path.
void choose_tiles(const box_plan& b, box_tables& t) {
  t.tiles = false;
  if (b.rank < 2 || cpu_box_mode() == box_mode::gather) return;
  const std::int64_t U = b.unit_bytes;
  const int a = b.out_order[0];
  if (a == 0 || b.out_order[1] != 0) return;
  const box_axis &x = b.axis[a], &y = b.axis[0];
  if (y.in_stride != U || x.out_stride != U || y.out_stride != x.extent * U) return;
  if (x.extent < box_tiles_min_side || y.extent < box_tiles_min_side) return;
  t.tile_nr = x.extent, t.tile_nc = y.extent, t.tile_in_rs = x.in_stride;
  t.tile_in.clear();
  t.tile_stage.clear();
  // The other axes in output order (fastest first), odometer-style; stage offsets in output order.
  std::array<std::int64_t, 2 * max_canonical_rank> d{};
  const std::int64_t items = b.volume / (x.extent * y.extent), item_bytes = x.extent * y.extent * U;
  std::int64_t in_off = 0;
  for (std::int64_t it = 0; it < items; ++it) {
    t.tile_in.push_back(in_off);
    t.tile_stage.push_back(it * item_bytes);
    for (int j = 2; j < b.rank; ++j) {
      const box_axis& z = b.axis[b.out_order[j]];
      in_off += z.in_stride;
      if (++d[j] < z.extent) break;
      in_off -= z.extent * z.in_stride;
      d[j] = 0;
    }
  }
  t.tiles = true;
}

void box_tables::build(const box_plan& b, const isa_kernels& isa) {
  make_tables(b, *this);
  choose_tiles(b, *this);
  choose_program(b, *this, isa);
  built = b;
  built_isa = &isa;
  built_mode = cpu_box_mode();
}

// Elements [o, o + n) of the box in output order, U bytes each, packed into dst: a load and a store each.
// AVX-512 and AVX2 gathers (vpgatherdd / vpgatherdq through the same table) were slower at every unit size
// on the dev VM's Xeon (2 threads, 5x5x200x7x5x3x{128,64,32,16} axes 1,3,2,5,0,6,4: u8 35 vs 25 ms, fp32
// 14 vs 12.7, fp64 14.6 vs 11.2): each gathers 16 lines' elements, and waits on the slowest.
template <int U>
void gather(unsigned char* dst, const unsigned char* box_in, const std::int32_t* src, std::int64_t n) {
  std::int64_t o = 0;
  for (; o + 4 <= n; o += 4) {
    unsigned char v[4][U];
    std::memcpy(v[0], box_in + src[o], U);
    std::memcpy(v[1], box_in + src[o + 1], U);
    std::memcpy(v[2], box_in + src[o + 2], U);
    std::memcpy(v[3], box_in + src[o + 3], U);
    std::memcpy(dst + o * U, v, 4 * U);
  }
  for (; o < n; ++o) std::memcpy(dst + o * U, box_in + src[o], U);
}

using gather_fn = void (*)(unsigned char*, const unsigned char*, const std::int32_t*, std::int64_t);

gather_fn gather_for(std::int64_t unit) {
  switch (unit) {
    case 1: return &gather<1>;
    case 2: return &gather<2>;
    case 4: return &gather<4>;
    case 8: return &gather<8>;
    case 16: return &gather<16>;
    default: return nullptr;
  }
}

// The next box's input lines, prefetched into L2 a few at a time between pieces of the current box's gather.
// All at once, the prefetches stalled on the full miss queue (86 % of the loop's samples on one prefetcht1
// after issuing 150 of them: fp32 5x5x200x7x5x3x32, dev VM); spread, 1 thread 0.46 -> 0.53 of the
// non-temporal copy. Two or four boxes ahead, or into L1, measured the same within the VM's noise.
struct prefetch_walk {
  const unsigned char* base = nullptr;  // the box's first input byte
  const std::int32_t* run = nullptr;    // the runs' offsets
  std::int64_t runs = 0, run_bytes = 0;
  std::int64_t r = 0;                   // the next run
  std::uintptr_t at = 0, end = 0;       // the next line of run r, and past its last byte

  void start(const unsigned char* b, const std::int32_t* offsets, std::int64_t n, std::int64_t bytes) {
    base = b, run = offsets, runs = n, run_bytes = bytes, r = 0, at = end = 0;
  }
  void some(std::int64_t lines) {
    for (; lines > 0; --lines) {
      while (at >= end) {
        if (r >= runs) return;
        const auto p = reinterpret_cast<std::uintptr_t>(base + run[r++]);
        at = p & ~std::uintptr_t{line - 1};
        end = p + static_cast<std::uintptr_t>(run_bytes);
      }
#if defined(__GNUC__) || defined(__clang__)
      __builtin_prefetch(reinterpret_cast<const void*>(at), 0, 2);  // prefetcht1: into L2
#endif
      at += line;
    }
  }
};

// `in_span`: bytes of the input from `in` on (the permute path's windows stay inside them).
void run_boxes(const box_plan& b, const unsigned char* in, unsigned char* out, int threads, bool stream,
               const isa_kernels& isa, std::int64_t in_span) {
  const gather_fn gather_box = gather_for(b.unit_bytes);
  std::int64_t boxes = 1;
  for (int i = 0; i < b.batch_rank; ++i) boxes *= b.batch[i].extent;
  if (boxes == 0 || b.volume == 0) return;
  // The calling thread's tables, named by a reference: the workers must read this thread's instance, and a
  // thread_local named inside the lambda would be each worker's own.
  // Kept for the next call of the same box (a plan executed again): the permute program's greedy windows cost
  // a sort of each output vector's sources.
  thread_local box_tables callers_tables;
  box_tables& t = callers_tables;
  if (!t.same(b, isa)) t.build(b, isa);
  const std::int64_t unit = b.unit_bytes, run_bytes = b.out_run * unit, in_run_bytes = b.in_run * unit;
  const std::int64_t out_runs = t.out_runs, in_runs = t.in_runs;
  const int nt = resolve_threads(threads, boxes * b.volume * unit, boxes);
  // The gather in pieces of `piece` elements (4 lines of output), the next box's prefetch spread over them.
  const std::int64_t piece = std::max<std::int64_t>(64, 4 * line / unit);
  const std::int64_t pieces = (b.volume + piece - 1) / piece;
  const std::int64_t pf_total = in_runs * ((in_run_bytes + 2 * line - 2) / line);
  const std::int64_t pf_lines = (pf_total + pieces - 1) / pieces;
  const periodic_fn permute = t.prog_lg >= 0 ? isa.periodic[t.prog_lg] : nullptr;
  const periodic_table prog = t.prog.view(0, 0);
  const std::int64_t prog_end = t.prog.max_end;  // past the last input byte a box's windows read
  const tile_kernel tk = t.tiles ? unit_kernel(isa, unit, unit) : tile_kernel{};  // the level's or the portable one
  parallel_slices(boxes, nt, [&](std::int64_t begin, std::int64_t end) {
    alignas(64) unsigned char stage[cpu_box_max_bytes];
    box_cursor c(b, begin), next(b, begin);
    next.next();
    prefetch_walk pf;
    for (std::int64_t box = begin; box < end; ++box) {
      if (box + 1 < end) pf.start(in + next.in(), t.in_run, in_runs, in_run_bytes);
      else pf.start(nullptr, nullptr, 0, 0);
      const unsigned char* box_in = in + c.in();
      if (tk.tile != nullptr) {
        pf.some(pf_total);
        for (std::size_t it = 0; it < t.tile_in.size(); ++it)
          tk.tile(box_in + t.tile_in[it], t.tile_in_rs, stage + t.tile_stage[it], t.tile_nr * unit, t.tile_nr, t.tile_nc, 1,
                  nullptr);
      } else if (permute != nullptr && c.in() + prog_end <= in_span) {
        pf.some(pf_total);  // the next box's lines at once: the permutes leave nothing to spread them over
        permute(box_in, stage, 0, 1, prog, false);
      } else {
        for (std::int64_t o = 0; o < b.volume; o += piece) {
          gather_box(stage + o * unit, box_in, t.src + o, std::min(piece, b.volume - o));
          pf.some(pf_lines);
        }
      }
      unsigned char* box_out = out + c.out();
      for (std::int64_t r = 0; r < out_runs; ++r)
        stream_bytes(box_out + t.out_run[r], stage + r * run_bytes, run_bytes, stream, isa);
      c.next();
      next.next();
    }
    if (stream) isa.fence();
  });
}

// Whether the plane paths would move runs too short to stream, so that boxes pay. A box moves ~0.5 of the
// non-temporal copy wherever it applies (the gather's loads and the stores' lines do not overlap well); the
// plane paths do better wherever their runs are long enough or a special kernel applies. Dev VM, 2 threads,
// cpu_nd suite, plane paths -> boxes: 7x3x2x14x41x7x2x51 (output runs of 16 B) 57 -> 14 ms, 5x5x200x7x5x3x32
// (20 B) 77 -> 14 ms, 21x7x10x3x27x25x5 (84 B) 24.5 -> 16.9, 3x46x7x3x214x3x3x3 (36-byte input runs) 43 ->
// 14, 77x12x85x5x44 (batches of 5 x 44 planes scattered in the input) 45 -> 13, 30x24x42x7x2x40 (30 x 80) 17.2
// -> 14.5, u8 7x3x2x436x41x7x2x51 202 -> 29; but NHWC -> NCHW 64x56x56x32 (128-byte input runs, 12.5 KiB output
// rows) 3.3 -> 6.1 ms, AoS -> SoA and other thin planes (their (de)interleave kernels) 2-3x slower,
// 380x3x251x59 (rows [251, 3] merged back into 3 KiB output runs) 16.0 -> 18.0, 453960 x 37 14.1 -> 15.9.
//   - compound sides: the runs the plane paths reach by merging (a compound row side back into output rows,
//     merge_output_rows; a compound column side whose fastest axis is short into input rows,
//     cpu_transpose2d_merged_cols): boxes where the shorter is under 128 bytes;
//   - plain sides: both under 512 bytes, and not a batch packed on both sides (whole planes in and out: the
//     periodic and plane kernels take those, 65536 x 32 x 32 at ~0.97).
bool plane_runs_short(const plan_geometry& g) {
  const std::int64_t elem = g.elem_words * g.word_bytes;
  const std::int64_t fast_row = g.row_extent[g.row_rank - 1], fast_col = g.col_extent[g.col_rank - 1];
  if (g.compound()) {
    const std::int64_t out_run = (g.row_rank > 1 ? g.rows : fast_row) * elem;
    const std::int64_t in_run = (g.col_rank > 1 && fast_col * elem < 4 * line ? g.cols : fast_col) * elem;
    return std::min(out_run, in_run) < 2 * line;
  }
  return g.rows * elem < 8 * line && g.cols * elem < 8 * line && nested_batch_bytes(g, g.rows * g.cols * elem, true) == 0;
}

}  // namespace

bool cpu_box_plan(const plan_geometry& g, box_plan& b) {
  return cpu_box_mode() != box_mode::never && g.algo == algorithm::transpose2d && g.row_rank >= 1 &&
         g.col_rank >= 1 && plane_runs_short(g) && make_cpu_box(g, b) && gather_for(b.unit_bytes) != nullptr &&
         b.volume * b.unit_bytes <= cpu_box_max_bytes;
}

bool cpu_box_permutes(const box_plan& b, const isa_kernels& isa) {
  box_tables t;
  t.build(b, isa);
  return t.prog_lg >= 0;
}

bool cpu_box_tiles(const box_plan& b) {
  box_tables t;
  choose_tiles(b, t);  // the box's axes alone decide it
  return t.tiles;
}

bool cpu_box(const plan_geometry& g, const void* in_v, void* out_v, int threads) {
  box_plan b;
  if (!cpu_box_plan(g, b)) return false;
  const auto* in = static_cast<const unsigned char*>(in_v);
  auto* out = static_cast<unsigned char*>(out_v);
  const isa_kernels& isa = kernels_for(active_cpu_isa());
  const std::int64_t bytes = g.batch_count() * g.rows * g.cols * g.elem_words * g.word_bytes;
  // Large outputs stream their runs' whole lines (use_streaming's 4-line minimum is for plane rows, which
  // share lines with their neighbours; a run's partial lines are stored plainly by stream_bytes anyway).
  const bool stream = isa.stream_lines != nullptr &&
                      use_streaming(bytes, std::max<std::int64_t>(b.out_run * b.unit_bytes, 4 * line), host_caches());
  const auto in_span = static_cast<std::int64_t>(input_span_bytes(g));
  run_boxes(b, in, out, threads, stream, isa, in_span);
  if (b.tail_extent > 0) {  // a ragged split: the split axis's last indices, as smaller boxes
    std::int64_t in_off = 0, out_off = 0;
    const box_plan tail = box_tail(b, in_off, out_off);
    run_boxes(tail, in + in_off, out + out_off, threads, stream, isa, in_span - in_off);
  }
  return true;
}

}  // namespace xpose::detail
