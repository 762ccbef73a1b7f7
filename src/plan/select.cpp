// Selection: canonical form -> algorithm + geometry (DESIGN §2).
//
// Let `ci` be the axis that is contiguous in the input (in_stride == 1) and `ro` the axis contiguous in the
// output (out_stride == 1).
//   * rank <= 1 with unit strides          -> copy
//   * ci == ro (the fastest axis stays)     -> rows, unless the rows are short and the other axes form a
//                                             2-D transpose of them: then transpose2d of row-sized units
//   * ci != ro                              -> transpose2d: r = ro, c = ci, every other axis is batch
//   * no unit-stride axis on a side          -> unsupported (strided views arrive with the N-d executor)
#include <sstream>

#include "plan/planner.hpp"

namespace xpose::detail {

namespace {

// Rows at most this long (bytes) are moved as units of a 2-D transpose when the remaining axes allow:
// a row gather of short rows wastes most of each 32-byte sector, the tiled transpose does not.
constexpr std::int64_t max_unit_bytes = 64;

int find_unit_axis(const canonical_form& c, const std::array<std::int64_t, max_canonical_rank>& stride,
                   std::int64_t unit, int skip) {
  for (int i = c.rank - 1; i >= 0; --i)
    if (i != skip && stride[i] == unit) return i;
  return -1;
}

// Every axis but the skipped ones becomes a batch axis (output order, slowest first).
void set_batch(plan_geometry& g, const canonical_form& c, int skip_a, int skip_b, int skip_c = -1) {
  g.batch_rank = 0;
  for (int i = 0; i < c.rank; ++i) {
    if (i == skip_a || i == skip_b || i == skip_c) continue;
    g.batch_extent[g.batch_rank] = c.extent[i];
    g.batch_in_stride[g.batch_rank] = c.in_stride[i];
    g.batch_out_stride[g.batch_rank] = c.out_stride[i];
    ++g.batch_rank;
  }
}

}  // namespace

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

  const int ro = find_unit_axis(c, c.out_stride, 1, -1);
  const int ci = find_unit_axis(c, c.in_stride, 1, -1);
  if (ro < 0 || ci < 0) {
    std::ostringstream os;
    os << "no axis is contiguous in the " << (ro < 0 ? "output" : "input") << " after canonicalization ("
       << c << "); gathers from strided views of this kind are not supported yet";
    return status(status_code::unsupported, os.str());
  }

  if (ci == ro) {
    const std::int64_t n = c.extent[ci];
    if (n * c.word_bytes <= max_unit_bytes) {
      // Short rows: is the rest a 2-D transpose of row-sized units?
      const int r2 = find_unit_axis(c, c.out_stride, n, ci);
      const int c2 = find_unit_axis(c, c.in_stride, n, ci);
      if (r2 >= 0 && c2 >= 0 && r2 != c2) {
        g.algo = algorithm::transpose2d;
        g.elem_words = n;
        g.rows = c.extent[r2];
        g.cols = c.extent[c2];
        g.in_ld = c.in_stride[r2];
        g.out_ld = c.out_stride[c2];
        set_batch(g, c, r2, c2, ci);
        return g;
      }
    }
    g.algo = algorithm::rows;
    g.elem_words = n;
    set_batch(g, c, ci, -1);
    return g;
  }

  g.algo = algorithm::transpose2d;
  g.elem_words = 1;
  g.rows = c.extent[ro];
  g.cols = c.extent[ci];
  g.in_ld = c.in_stride[ro];
  g.out_ld = c.out_stride[ci];
  set_batch(g, c, ro, ci);
  return g;
}

}  // namespace xpose::detail
