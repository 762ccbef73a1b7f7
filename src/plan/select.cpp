// Selection: canonical form -> algorithm + geometry (DESIGN §2).
//
// Let `ci` be the axis that is contiguous in the input (in_stride == 1) and `ro` the axis contiguous in the
// output (out_stride == 1).
//   * rank <= 1 with unit strides          -> copy
//   * ci == ro (the fastest axis stays)     -> rows, unless the rows are short and the other axes form a
//                                             2-D transpose of them: then transpose2d of row-sized units
//   * ci != ro                              -> transpose2d: rows side starts at ro, columns side at ci
//   * no unit-stride axis on a side          -> rows of one word over every axis (an element-wise gather:
//                                             such views cannot be read or written in contiguous runs)
//
// Compound tile sides (the N-d issue): a tile side that is shorter than a tile wants (`side_target`) takes in
// the next axis nested contiguously after it on its own side (the rows side grows along the output, the
// columns side along the input), as in cuTT's "packed" split and HPTT's fused loops. NCHW-like layouts with
// a fastest extent of 3, or random permutations of extents 2, 3, 5, 7, then still read and write runs of
// >= 128 units / 256 bytes. Sides that are long enough stay single axes (the plain 2-D form).
#include <optional>
#include <sstream>

#include "plan/planner.hpp"

namespace xpose::detail {

namespace {

// Rows at most this long (bytes) are moved as units of a 2-D transpose when the remaining axes allow:
// a row gather of short rows wastes most of each 32-byte sector, the tiled transpose does not. 128 bytes:
// the GPU's gather16 takes units up to that size in tiles of >= 15 units a side (tuning/transpose2d.hpp).
constexpr std::int64_t max_unit_bytes = 128;

// A tile side grows while it is shorter than both of these: 256 bytes is two 128-byte lines per run (whole
// sectors however the run is aligned); 128 units bounds the mixed-radix work per row for 1-byte units.
constexpr std::int64_t side_target_bytes = 256;
constexpr std::int64_t side_target_units = 128;

int find_unit_axis(const canonical_form& c, const std::array<std::int64_t, max_canonical_rank>& stride,
                   std::int64_t unit, int skip) {
  for (int i = c.rank - 1; i >= 0; --i)
    if (i != skip && stride[i] == unit) return i;
  return -1;
}

// One side of a tile: its axes, slowest first, and the product of their extents.
struct tile_side {
  int rank = 0;
  std::array<int, max_canonical_rank> axis{};
  std::int64_t product = 1;
};

// Every axis not marked used becomes a batch axis (output order, slowest first).
void set_batch(plan_geometry& g, const canonical_form& c, const std::array<bool, max_canonical_rank>& used) {
  g.batch_rank = 0;
  for (int i = 0; i < c.rank; ++i) {
    if (used[i]) continue;
    g.batch_extent[g.batch_rank] = c.extent[i];
    g.batch_in_stride[g.batch_rank] = c.in_stride[i];
    g.batch_out_stride[g.batch_rank] = c.out_stride[i];
    ++g.batch_rank;
  }
}

// transpose2d with the rows side starting at `ro` (nested along the output) and the columns side at `ci`
// (nested along the input), units of `unit` words (whose own axis, if any, is already marked used).
plan_geometry tiled(const canonical_form& c, int ro, int ci, std::int64_t unit, std::array<bool, max_canonical_rank> used) {
  tile_side rs, cs;
  auto start = [&](tile_side& s, int a) {
    s.rank = 1;
    s.axis[0] = a;
    s.product = c.extent[a];
    used[a] = true;
  };
  start(rs, ro);
  start(cs, ci);
  const std::int64_t unit_bytes = unit * c.word_bytes;
  auto short_side = [&](const tile_side& s) {
    return s.product * unit_bytes < side_target_bytes && s.product < side_target_units;
  };
  // The free axis whose stride on `stride`'s side is product * unit: nested right outside the side.
  auto grow = [&](tile_side& s, const std::array<std::int64_t, max_canonical_rank>& stride) {
    if (!short_side(s)) return false;
    for (int i = 0; i < c.rank; ++i) {
      if (used[i] || stride[i] != s.product * unit) continue;
      for (int k = s.rank; k > 0; --k) s.axis[k] = s.axis[k - 1];  // slowest first: prepend
      s.axis[0] = i;
      ++s.rank;
      s.product *= c.extent[i];  // no overflow: bounded by the element count
      used[i] = true;
      return true;
    }
    return false;
  };
  // Grow the shorter side first, so that an axis next to both goes where it is needed most.
  for (bool grew = true; grew;) {
    grew = false;
    if (rs.product <= cs.product) grew = grow(rs, c.out_stride) || grow(cs, c.in_stride);
    else grew = grow(cs, c.in_stride) || grow(rs, c.out_stride);
  }

  plan_geometry g{};
  g.algo = algorithm::transpose2d;
  g.word_bytes = c.word_bytes;
  g.elem_words = unit;
  g.rows = rs.product;
  g.cols = cs.product;
  g.row_rank = rs.rank;
  for (int k = 0; k < rs.rank; ++k) {
    g.row_extent[k] = c.extent[rs.axis[k]];
    g.row_in_stride[k] = c.in_stride[rs.axis[k]];
  }
  g.col_rank = cs.rank;
  for (int k = 0; k < cs.rank; ++k) {
    g.col_extent[k] = c.extent[cs.axis[k]];
    g.col_out_stride[k] = c.out_stride[cs.axis[k]];
  }
  g.in_ld = g.row_in_stride[rs.rank - 1];
  g.out_ld = g.col_out_stride[cs.rank - 1];
  set_batch(g, c, used);
  return g;
}

// The rows along axis `row` (unit strides on both sides) as the units of a 2-D transpose of the other axes,
// when one of them is contiguous in rows on each side and they differ (select's short rows, rows_as_transpose).
std::optional<plan_geometry> rows_as_units(const canonical_form& c, int row) {
  const std::int64_t n = c.extent[row];
  const int r2 = find_unit_axis(c, c.out_stride, n, row);
  const int c2 = find_unit_axis(c, c.in_stride, n, row);
  if (r2 < 0 || c2 < 0 || r2 == c2) return std::nullopt;
  std::array<bool, max_canonical_rank> used{};
  used[row] = true;
  return tiled(c, r2, c2, n, used);
}

}  // namespace

plan_geometry rows_as_transpose(const plan_geometry& g) {
  if (g.algo != algorithm::rows || g.batch_rank < 2 || g.batch_rank + 1 > max_canonical_rank) return g;
  // The canonical form back: the batch axes in their (output) order, then the row as a unit-stride axis.
  canonical_form c{};
  c.word_bytes = g.word_bytes;
  c.rank = g.batch_rank + 1;
  for (int i = 0; i < g.batch_rank; ++i) {
    c.extent[i] = g.batch_extent[i];
    c.in_stride[i] = g.batch_in_stride[i];
    c.out_stride[i] = g.batch_out_stride[i];
  }
  const int row = g.batch_rank;
  c.extent[row] = g.elem_words;
  c.in_stride[row] = c.out_stride[row] = 1;
  return rows_as_units(c, row).value_or(g);
}

plan_geometry flatten_row_side(const plan_geometry& g) {
  if (g.row_rank <= 1) return g;
  plan_geometry f = g;
  // The outer row axes become batch axes; the fastest stays.
  for (int k = 0; k + 1 < g.row_rank; ++k) {
    f.batch_extent[f.batch_rank] = g.row_extent[k];
    f.batch_in_stride[f.batch_rank] = g.row_in_stride[k];
    f.batch_out_stride[f.batch_rank] = g.row_extent[g.row_rank - 1] * g.elem_words;  // nested in the output
    for (int j = k + 1; j + 1 < g.row_rank; ++j) f.batch_out_stride[f.batch_rank] *= g.row_extent[j];
    ++f.batch_rank;
  }
  f.rows = g.row_extent[g.row_rank - 1];
  f.row_rank = 1;
  f.row_extent[0] = f.rows;
  f.row_in_stride[0] = f.in_ld;
  return f;
}

plan_geometry absorb_nested_batch(const plan_geometry& g, int max_side_rank, std::int64_t plain_rows_max_bytes) {
  // A plain geometry (one axis a side) lets its row side take batch axes only when the caller asks, while the
  // rows span < plain_rows_max_bytes (see the caller, dispatch/transpose2d.cu, for when that wins).
  const bool plain = !g.compound();
  if (plain && plain_rows_max_bytes <= 0) return g;
  // The row side (output-contiguous) takes every nested batch axis; the column side only while it is short:
  // longer ones already give whole input runs, and one that took its batch axis lost (H100, same call: fp32
  // 12x5x20x32x22x20 axes 3,0,4,5,2,1, columns 440 -> 14080 units, 0.913 -> 0.828 of memcpy, while columns
  // of 228-588 bytes gained: u8 50x32x37x5x57x4 0.53 -> 0.67, fp16 20x20x19x18x18x14 0.57 -> 0.79).
  constexpr std::int64_t col_side_absorb_max_bytes = 1536;
  plan_geometry f = g;
  auto drop_batch = [&](int i) {
    for (int j = i; j + 1 < f.batch_rank; ++j) {
      f.batch_extent[j] = f.batch_extent[j + 1];
      f.batch_in_stride[j] = f.batch_in_stride[j + 1];
      f.batch_out_stride[j] = f.batch_out_stride[j + 1];
    }
    --f.batch_rank;
  };
  const std::int64_t wb = f.word_bytes;
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < f.batch_rank && !grew; ++i) {
      if (f.row_rank < max_side_rank && f.batch_out_stride[i] == f.rows * f.elem_words &&
          (!plain || f.rows * f.elem_words * wb < plain_rows_max_bytes)) {
        for (int k = f.row_rank; k > 0; --k) f.row_extent[k] = f.row_extent[k - 1], f.row_in_stride[k] = f.row_in_stride[k - 1];
        f.row_extent[0] = f.batch_extent[i];  // slowest first: prepend
        f.row_in_stride[0] = f.batch_in_stride[i];
        ++f.row_rank;
        f.rows *= f.batch_extent[i];  // no overflow: bounded by the element count
        drop_batch(i);
        grew = true;
      } else if (!plain && f.col_rank < max_side_rank && f.batch_in_stride[i] == f.cols * f.elem_words &&
                 f.cols * f.elem_words * wb < col_side_absorb_max_bytes) {
        for (int k = f.col_rank; k > 0; --k) f.col_extent[k] = f.col_extent[k - 1], f.col_out_stride[k] = f.col_out_stride[k - 1];
        f.col_extent[0] = f.batch_extent[i];
        f.col_out_stride[0] = f.batch_out_stride[i];
        ++f.col_rank;
        f.cols *= f.batch_extent[i];
        drop_batch(i);
        grew = true;
      }
    }
  }
  return f;
}

plan_geometry flatten_sides(const plan_geometry& g) {
  if (!g.compound()) return g;
  plan_geometry f = flatten_row_side(g);
  // The outer column axes become batch axes too; the fastest stays.
  for (int k = 0; k + 1 < g.col_rank; ++k) {
    f.batch_extent[f.batch_rank] = g.col_extent[k];
    f.batch_in_stride[f.batch_rank] = g.col_extent[g.col_rank - 1] * g.elem_words;  // nested in the input
    for (int j = k + 1; j + 1 < g.col_rank; ++j) f.batch_in_stride[f.batch_rank] *= g.col_extent[j];
    f.batch_out_stride[f.batch_rank] = g.col_out_stride[k];
    ++f.batch_rank;
  }
  f.cols = g.col_extent[g.col_rank - 1];
  f.col_rank = 1;
  f.col_extent[0] = f.cols;
  f.col_out_stride[0] = f.out_ld;
  return f;
}

result<plan_geometry> select(const canonical_form& c) {
  plan_geometry g{};
  g.word_bytes = c.word_bytes;

  if (c.rank == 0) {  // a single element
    g.algo = algorithm::copy;
    g.elem_words = 1;
    return g;
  }
  if (c.rank == 1 && c.in_stride[0] == 1 && c.out_stride[0] == 1) {
    g.algo = algorithm::copy;
    g.elem_words = c.extent[0];
    return g;
  }

  std::array<bool, max_canonical_rank> used{};
  const int ro = find_unit_axis(c, c.out_stride, 1, -1);
  const int ci = find_unit_axis(c, c.in_stride, 1, -1);
  if (ro < 0 || ci < 0) {
    // A strided view with no contiguous axis on one side: nothing can be moved in runs of more than one
    // word on that side, so every word is gathered (or scattered) by itself.
    g.algo = algorithm::rows;
    g.elem_words = 1;
    set_batch(g, c, used);
    return g;
  }

  if (ci == ro) {
    const std::int64_t n = c.extent[ci];
    if (n * c.word_bytes <= max_unit_bytes) {
      // Short rows: is the rest a 2-D transpose of row-sized units?
      if (std::optional<plan_geometry> t = rows_as_units(c, ci)) return *t;
    }
    g.algo = algorithm::rows;
    g.elem_words = n;
    used[ci] = true;
    set_batch(g, c, used);
    return g;
  }
  return tiled(c, ro, ci, 1, used);
}

}  // namespace xpose::detail
