// Canonicalization (DESIGN §1-2), in the spirit of HPTT's axis fusion:
//   perm = 3,1,2,0 & size = 10,11,12,13  becomes  perm = 2,1,0 & size = 10,11*12,13
// Steps, each preserving the map "output word index -> input word offset":
//   1. order axes by output position; take extents and strides from the validated problem;
//   2. factor the element into K words of w = gcd(elem_bytes, 16) bytes: strides x K, plus a fastest
//      unpermuted axis of extent K (stride 1 on both sides);
//   3. drop extent-1 axes;
//   4. fuse output-adjacent axes i, i+1 whose strides are nested on both sides;
//   5. widen words while the fastest axis is unpermuted and every stride allows it (w <= 16), keeping that
//      axis (extent >= 2) unless it is the only one.
#include <algorithm>

#include "plan/planner.hpp"

namespace xpose::detail {

namespace {

void drop_axis(canonical_form& c, int i) {
  for (int k = i; k + 1 < c.rank; ++k) {
    c.extent[k] = c.extent[k + 1];
    c.in_stride[k] = c.in_stride[k + 1];
    c.out_stride[k] = c.out_stride[k + 1];
  }
  --c.rank;
}

void fuse_axes(canonical_form& c) {
  for (int i = c.rank - 2; i >= 0; --i) {
    const std::int64_t e = c.extent[i + 1];
    if (c.in_stride[i] == e * c.in_stride[i + 1] && c.out_stride[i] == e * c.out_stride[i + 1]) {
      c.extent[i + 1] = c.extent[i] * e;  // no overflow: bounded by the element count, checked in validate
      drop_axis(c, i);
    }
  }
}

}  // namespace

canonical_form canonicalize(const normalized_problem& n) {
  canonical_form c{};
  if (n.elements == 0) {  // empty problem: a copy of nothing
    c.word_bytes = 1;
    c.rank = 1;
    c.extent[0] = 0;
    c.in_stride[0] = c.out_stride[0] = 1;
    return c;
  }

  const std::int64_t lowbit = n.elem_bytes & -n.elem_bytes;
  const std::int64_t w = std::min<std::int64_t>(lowbit, 16);
  const std::int64_t k = n.elem_bytes / w;
  c.word_bytes = w;

  for (int i = 0; i < n.rank; ++i) {
    const int a = n.axes[i];
    c.extent[c.rank] = n.shape[a];
    c.in_stride[c.rank] = n.in_strides[a] * k;  // fits: the byte span was checked in validate
    c.out_stride[c.rank] = n.out_strides[i] * k;
    ++c.rank;
  }
  if (k > 1) {
    c.extent[c.rank] = k;
    c.in_stride[c.rank] = 1;
    c.out_stride[c.rank] = 1;
    ++c.rank;
  }

  for (int i = c.rank - 1; i >= 0; --i)
    if (c.extent[i] == 1) drop_axis(c, i);

  fuse_axes(c);

  // Widen words: only when the fastest output axis is contiguous on both sides.
  while (c.rank > 0 && c.word_bytes < 16) {
    const int last = c.rank - 1;
    if (c.in_stride[last] != 1 || c.out_stride[last] != 1 || c.extent[last] % 2 != 0) break;
    // Keep a contiguous axis of extent >= 2 while other axes exist: it is what marks the rows as
    // contiguous on both sides (select() looks for unit strides); the executors widen accesses themselves.
    if (c.extent[last] == 2 && c.rank > 1) break;
    bool ok = true;
    for (int i = 0; i < last; ++i) ok = ok && c.in_stride[i] % 2 == 0 && c.out_stride[i] % 2 == 0;
    if (!ok) break;
    c.word_bytes *= 2;
    c.extent[last] /= 2;
    for (int i = 0; i < last; ++i) {
      c.in_stride[i] /= 2;
      c.out_stride[i] /= 2;
    }
    if (c.extent[last] == 1) drop_axis(c, last);  // rank was 1: a single word
  }
  return c;
}

}  // namespace xpose::detail
