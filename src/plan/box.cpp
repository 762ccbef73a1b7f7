// Box tiles (see box.hpp): which axes a box takes.
#include "plan/box.hpp"

#include <algorithm>

namespace xpose::detail {

namespace {

// Elements from the box's first input-order axis on that are contiguous in the input: the prefix of axes
// (ascending stride) whose strides are the unit times the product of the extents before them.
std::int64_t run_length(const std::array<box_axis, 2 * max_canonical_rank>& axis, int rank, std::int64_t unit,
                        bool input) {
  std::array<box_axis, 2 * max_canonical_rank> sorted = axis;
  auto stride = [input](const box_axis& a) { return input ? a.in_stride : a.out_stride; };
  std::sort(sorted.begin(), sorted.begin() + rank,
            [&](const box_axis& x, const box_axis& y) { return stride(x) < stride(y); });
  std::int64_t run = 1;
  for (int k = 0; k < rank; ++k) {
    if (stride(sorted[k]) != run * unit) break;
    run *= sorted[k].extent;
  }
  return run;
}

// A box's runs and spans from its axes (input order) and unit.
void set_runs_and_spans(box_plan& b) {
  b.in_run = run_length(b.axis, b.rank, b.unit_bytes, true);
  b.out_run = run_length(b.axis, b.rank, b.unit_bytes, false);
  b.in_span = b.out_span = b.unit_bytes;
  for (int k = 0; k < b.rank; ++k) {
    b.in_span += (b.axis[k].extent - 1) * b.axis[k].in_stride;
    b.out_span += (b.axis[k].extent - 1) * b.axis[k].out_stride;
  }
}

}  // namespace

box_plan box_tail(const box_plan& b, std::int64_t& in_offset, std::int64_t& out_offset) {
  box_plan t = b;
  const box_axis q = b.batch[b.tail_batch];
  in_offset = q.extent * q.in_stride;  // index (E / f) f of the split axis
  out_offset = q.extent * q.out_stride;
  for (int i = b.tail_batch; i + 1 < t.batch_rank; ++i) t.batch[i] = t.batch[i + 1];
  --t.batch_rank;
  t.axis[b.tail_axis].extent = b.tail_extent;
  t.volume = b.volume / b.axis[b.tail_axis].extent * b.tail_extent;
  set_runs_and_spans(t);
  t.tail_extent = 0;
  t.tail_axis = t.tail_batch = -1;
  return t;
}

std::int64_t box_unit_bytes(const plan_geometry& g) {
  const std::int64_t elem = g.elem_words * g.word_bytes;
  return elem == 1 || elem == 2 || elem == 4 || elem == 8 || elem == 16 ? elem : g.word_bytes;
}

namespace {

// Where a box is built for: the GPU's box kernels (volume limits of their tables, box_max_bytes, the
// H100-measured rule for when runs win) or the CPU's (a byte budget only).
struct box_limits {
  bool cpu = false;
  std::int64_t max_volume = box_max_volume;
  std::int64_t max_bytes = box_max_bytes;

  /// The most units of `unit` bytes a box may hold.
  std::int64_t volume_cap(std::int64_t unit) const {
    return cpu ? std::max<std::int64_t>(2, max_bytes / unit) : std::clamp<std::int64_t>(max_volume, 2, box_volume_limit(unit));
  }
};

bool make_box_impl(const plan_geometry& g, box_plan& b, box_limits lim, bool may_split) {
  if (g.algo != algorithm::transpose2d) return false;
  const std::int64_t elem = g.elem_words * g.word_bytes, wb = g.word_bytes;
  const std::int64_t unit = box_unit_bytes(g), words = elem / unit;  // box units an element
  const std::int64_t max_volume = lim.volume_cap(unit), max_bytes = lim.max_bytes;
  if (std::min(g.rows, g.cols) * elem >= (lim.cpu ? cpu_box_short_side_bytes : box_short_side_limit(elem))) return false;
  b = box_plan{};
  b.unit_bytes = unit;
  if (words > 1) {  // the element's words: the fastest box axis on both sides
    b.axis[b.rank++] = {words, unit, unit};
    b.volume = words;
  }
  // The tile's axes, fastest first on each side. Row axes are nested in the output (stride = unit x the
  // faster row extents), column axes in the input.
  std::array<box_axis, max_canonical_rank> rows{}, cols{};
  std::int64_t nested = elem;
  for (int k = g.row_rank - 1; k >= 0; --k) {
    rows[g.row_rank - 1 - k] = {g.row_extent[k], g.row_in_stride[k] * wb, nested};
    nested *= g.row_extent[k];
  }
  nested = elem;
  for (int k = g.col_rank - 1; k >= 0; --k) {
    cols[g.col_rank - 1 - k] = {g.col_extent[k], nested, g.col_out_stride[k] * wb};
    nested *= g.col_extent[k];
  }
  std::array<box_axis, 2 * max_canonical_rank> batch{};
  int batch_rank = 0;
  for (int i = 0; i < g.batch_rank; ++i)
    batch[batch_rank++] = {g.batch_extent[i], g.batch_in_stride[i] * wb, g.batch_out_stride[i] * wb};
  auto room = [&] { return std::min(max_volume / b.volume, max_bytes / (b.volume * unit)); };
  auto largest_divisor = [](std::int64_t extent, std::int64_t cap) {
    std::int64_t f = std::min(extent, cap);
    while (f > 1 && extent % f != 0) --f;
    return f;
  };
  // The short side whole, then the long side from its fastest axis while it fits: the first axis that does
  // not is split by its largest divisor that does (tile 21 x 3375[675 * 5]: 21 x 5 x 27), the rest of the
  // long side joins the batch.
  const bool rows_short = g.rows <= g.cols;
  const auto& short_side = rows_short ? rows : cols;
  const auto& long_side = rows_short ? cols : rows;
  const int short_rank = rows_short ? g.row_rank : g.col_rank, long_rank = rows_short ? g.col_rank : g.row_rank;
  for (int k = 0; k < short_rank; ++k) {
    b.axis[b.rank++] = short_side[k];
    b.volume *= short_side[k].extent;
  }
  if (room() < 2) return false;
  // A ragged split (box_plan::tail_extent), at most one: an axis whose largest divisor that fits is under
  // half of what fits is boxed `cap` at a time, the remainder left to box_tail (u8 1677721 x 10 x 2 x 2 axes
  // 2,0,3,1: 1677721 has no divisor under 204, and boxes of 40 units ran 0.13 of memcpy).
  box_axis split{};  // the split axis as boxed (extent f), and its remainder
  std::int64_t split_rem = 0;
  auto factor = [&](const box_axis& a, std::int64_t cap, bool here) {
    const std::int64_t d = largest_divisor(a.extent, cap);
    if (!may_split || !here || split_rem != 0 || a.extent <= cap || 2 * d > cap) return d;
    split = {cap, a.in_stride, a.out_stride};
    split_rem = a.extent % cap;
    return cap;
  };
  auto is_split_batch = [&](const box_axis& a) {
    return split_rem != 0 && a.in_stride == split.in_stride * split.extent && a.out_stride == split.out_stride * split.extent;
  };
  bool full = true;
  for (int k = 0; k < long_rank; ++k) {
    box_axis a = long_side[k];
    const std::int64_t f = full ? factor(a, room(), true) : 1;
    if (f > 1) {
      b.axis[b.rank++] = {f, a.in_stride, a.out_stride};
      b.volume *= f;
    }
    if (f == a.extent) continue;
    full = false;
    if (f > 1) a = {a.extent / f, a.in_stride * f, a.out_stride * f};
    batch[batch_rank++] = a;
  }
  // What the tile kernels would move per run: the short side (its rows, or columns, are that long).
  const std::int64_t short_units = std::min(g.rows, g.cols) * words;

  // Grow: a batch axis nested right outside the input run or the output run (the shorter first), whole or an
  // exact divisor of it (boxes then tile the axis). When both runs have such an axis, the first takes at
  // most the square root of the room left, so the other can still grow (77x93x85 batches of 5 x 44 fp32:
  // 220 x 3 x 5, runs 1100 / 660, instead of 220 x 17, runs 3740 / 220).
  auto candidate = [&](bool input, std::int64_t run) -> int {
    for (int i = 0; i < batch_rank; ++i)
      if ((input ? batch[i].in_stride : batch[i].out_stride) == run * unit && !is_split_batch(batch[i])) return i;
    return -1;
  };
  for (bool grew = true; grew && batch_rank > 0;) {
    grew = false;
    const std::int64_t in_run = run_length(b.axis, b.rank, unit, true);
    const std::int64_t out_run = run_length(b.axis, b.rank, unit, false);
    const std::int64_t left = room();
    if (left < 2) break;
    const int ci = candidate(true, in_run), co = candidate(false, out_run);
    const bool both = ci >= 0 && co >= 0 && ci != co;
    std::int64_t balanced = 1;
    while ((balanced + 1) * (balanced + 1) <= left) ++balanced;
    const int first = in_run <= out_run ? ci : co, second = in_run <= out_run ? co : ci;
    for (const std::int64_t cap : {both ? balanced : left, left}) {
      for (const int i : {first, second}) {
        if (i < 0 || grew) continue;
        box_axis& a = batch[i];
        // Ragged only with all the room left: under the balanced cap the next pass may still take the axis
        // whole (7 x 3 x 2 x 109 x 41 x 7 x 2 x 51: the 7 of 4 x 51 x 7).
        const std::int64_t f = factor(a, cap, cap == left);
        if (f <= 1) continue;
        b.axis[b.rank++] = {f, a.in_stride, a.out_stride};
        b.volume *= f;
        if (f == a.extent) {
          batch[i] = batch[--batch_rank];  // order of batch axes does not matter to the byte map
        } else {
          a.extent /= f;  // a ragged split: the quotient (box_tail takes the rest)
          a.in_stride *= f;
          a.out_stride *= f;
        }
        grew = true;
      }
      if (grew) break;
    }
  }
  std::sort(b.axis.begin(), b.axis.begin() + b.rank,
            [](const box_axis& x, const box_axis& y) { return x.in_stride < y.in_stride; });
  for (int k = 0; k < b.rank; ++k) b.out_order[k] = k;
  std::sort(b.out_order.begin(), b.out_order.begin() + b.rank,
            [&](int x, int y) { return b.axis[x].out_stride < b.axis[y].out_stride; });
  set_runs_and_spans(b);
  // Batch axes slowest first (by output stride, descending), as batch_map expects row-major indices; any
  // order is a valid enumeration, this one walks the output roughly in order.
  std::sort(batch.begin(), batch.begin() + batch_rank,
            [](const box_axis& x, const box_axis& y) { return x.out_stride > y.out_stride; });
  b.batch_rank = batch_rank;
  b.batch = batch;
  if (split_rem != 0) {
    b.tail_extent = split_rem;
    for (int k = 0; k < b.rank; ++k)
      if (b.axis[k].in_stride == split.in_stride && b.axis[k].out_stride == split.out_stride) b.tail_axis = k;
    for (int i = 0; i < b.batch_rank; ++i)
      if (is_split_batch(b.batch[i])) b.tail_batch = i;
    if (b.tail_axis < 0 || b.tail_batch < 0) return false;  // not reached: both were just placed
  }
  // Every offset a whole number of units (the kernel moves one aligned unit an access).
  for (int k = 0; k < b.rank; ++k)
    if (b.axis[k].in_stride % unit != 0 || b.axis[k].out_stride % unit != 0) return false;
  for (int i = 0; i < b.batch_rank; ++i)
    if (b.batch[i].in_stride % unit != 0 || b.batch[i].out_stride % unit != 0) return false;
  // Worth it: both runs at least twice the tile's short side and >= 128 bytes; a box that splits the long
  // side holds >= box_min_split_volume elements (H100, 1926 x 9-unit fp64 tiles: 0.87 of memcpy as tiles,
  // 0.33 as boxes of 162 elements, which the 16 KiB limit of the time left); the offsets fit the kernel's 32-bit tables.
  const std::int64_t min_run = std::min(b.in_run, b.out_run);
  // 1-byte units (box16) need no 128-byte runs: twice the tile's short side and a 16-byte chunk, or any run
  // longer than a short side under 32 bytes. H100, same call, tiles -> box16 (u8, ~64 MiB, shapes drawn at
  // random where only the 128 bytes had kept the tiles): 7x68x801x2x4x22 axes 5,3,2,0,1,4 (side 22, runs 88)
  // 0.174 -> 0.380, 63x3x182x30x9x7 (7, 126) 0.144 -> 0.349, 4x5x1364x2x1230 (40, 123) 0.297 -> 0.405,
  // 40x284x65x89 (40, 89) 0.314 -> 0.378, 1341x834x3x5x4 (20, 27) 0.155 -> 0.195; runs under twice a longer
  // side lost: 248x163x21x13x6 (78, 84) 0.576 -> 0.312, 6807x186x53 (53, 93) 0.512 -> 0.309, (73, 88) and
  // (84, 85) 5 %.
  constexpr std::int64_t box16_short_side = 32;
  // The CPU: runs of at least a line, longer than the tiles' short side (measured on the dev VM:
  // cpu/macrokernel_box.cpp).
  const bool runs_win =
      lim.cpu     ? min_run * unit >= cpu_box_min_run_bytes && min_run > short_units
      : unit == 1 ? min_run >= 16 && (min_run >= 2 * short_units || (short_units < box16_short_side && min_run > short_units))
                  : min_run >= 2 * short_units && min_run * unit >= box_short_side_bytes;
  return runs_win &&
         (full || b.volume >= std::min(box_min_split_volume, max_volume)) && b.in_span < (std::int64_t{1} << 31) &&
         b.out_span < (std::int64_t{1} << 31);
}

bool make_box_with(const plan_geometry& g, box_plan& b, const box_limits& lim) {
  // Whole boxes first; a ragged split (box_tail) only where they fail or stay under box_ragged_below units.
  // Grown ragged where a whole box of a few hundred units or more existed, boxes lost (H100, same call: fp64
  // 1352x689x3x3 936 -> 3744 units 0.805 -> 0.641 of memcpy, u8 738x7x5x371x7 2597 -> 7791 0.469 -> 0.389);
  // where none did they won (u8 1677721x10x2x2 axes 2,0,3,1: 40 -> 8160 units, 0.008 -> 0.438; fp32
  // 5x573x5x1172 axes 1,3,2,0: tiles -> 4075-unit boxes, 0.458 -> 0.630).
  const bool whole = make_box_impl(g, b, lim, false);
  if (whole && b.volume >= std::min(box_ragged_below, lim.cpu ? lim.volume_cap(b.unit_bytes) : lim.max_volume)) return true;
  box_plan ragged;
  if (make_box_impl(g, ragged, lim, true) && (!whole || ragged.volume > b.volume)) {
    b = ragged;
    return true;
  }
  return whole;
}

}  // namespace

bool make_box(const plan_geometry& g, box_plan& b, std::int64_t max_volume) {
  box_limits lim;
  lim.max_volume = max_volume;
  return make_box_with(g, b, lim);
}

bool make_cpu_box(const plan_geometry& g, box_plan& b, std::int64_t max_bytes) {
  box_limits lim;
  lim.cpu = true;
  lim.max_bytes = max_bytes;
  return make_box_with(g, b, lim);
}

}  // namespace xpose::detail
