// Box tiles for transpose2d geometries whose tile sides stay short (N-d permutations whose fastest axes are
// each other's next nested axis: 7x3x2x109x41x7x2x51 axes 3,0,1,5,4,7,2,6 tiles as 4 x 51 units, 816 bytes).
// A box is a set of axes — both tile sides plus batch axes (or an exact divisor of one) nested right outside
// the box's input run or output run — moved as one tile: loaded in input order into shared memory, stored
// in output order through per-box offset tables (kernels/box.cuh). Pure host code, tested in tests/host.
#pragma once

#include <array>
#include <cstdint>

#include "xpose/plan.hpp"

namespace xpose::detail {

struct box_axis {
  std::int64_t extent = 1;
  std::int64_t in_stride = 0;   // bytes
  std::int64_t out_stride = 0;  // bytes
};

struct box_plan {
  std::int64_t unit_bytes = 0;  // bytes moved per element (elem_words x word_bytes)
  int rank = 0;                 // box axes, input order (ascending input stride)
  std::array<box_axis, 2 * max_canonical_rank> axis{};
  std::array<int, 2 * max_canonical_rank> out_order{};  // box axes by ascending output stride
  std::int64_t volume = 1;       // elements a box
  std::int64_t in_run = 1;       // elements of the box contiguous in the input (from its first axis on)
  std::int64_t out_run = 1;      // and in the output
  int batch_rank = 0;            // the axes left over: one box per batch index (row-major, slowest first)
  std::array<box_axis, 2 * max_canonical_rank> batch{};
  std::int64_t in_span = 0;      // bytes from a box's first input element to past its last (< 2^31)
  std::int64_t out_span = 0;
  // A ragged split (an axis of extent E boxed f at a time, f not dividing E): axis[tail_axis] is the f, and
  // batch[tail_batch] (extent E / f) steps over whole boxes; the last E % f = tail_extent indices of the axis
  // are one more set of boxes, box_tail's. tail_extent == 0: every box is whole.
  std::int64_t tail_extent = 0;
  int tail_axis = -1, tail_batch = -1;
};

/// Alignment facts of one side of a box (input or output), as bit patterns whose lowest set bit bounds the
/// alignment (box_align16): the strides of the box axes outside that side's run (the axes after the run's own,
/// in the side's order: the runs' offsets in a box are sums of their multiples), and the batch axes' strides
/// (the boxes' offsets from the base pointer).
inline std::int64_t box_run_offset_bits(const box_plan& b, bool input) {
  std::int64_t bits = 0, run = 1;
  bool in_run = true;
  for (int j = 0; j < b.rank; ++j) {
    const box_axis& a = b.axis[static_cast<std::size_t>(input ? j : b.out_order[static_cast<std::size_t>(j)])];
    const std::int64_t stride = input ? a.in_stride : a.out_stride;
    if (in_run && stride == run * b.unit_bytes) {
      run *= a.extent;
      continue;
    }
    in_run = false;
    bits |= stride;
  }
  return bits;
}
inline std::int64_t box_batch_offset_bits(const box_plan& b, bool input) {
  std::int64_t bits = 0;
  for (int i = 0; i < b.batch_rank; ++i)
    bits |= input ? b.batch[static_cast<std::size_t>(i)].in_stride : b.batch[static_cast<std::size_t>(i)].out_stride;
  return bits;
}
/// The largest power of two up to 16 that divides `bits` (16 for 0).
inline constexpr std::int64_t box_align16(std::int64_t bits) {
  const auto x = static_cast<std::uint64_t>(bits) | 16;
  return static_cast<std::int64_t>(x & (~x + 1));
}

/// The boxes a ragged box plan leaves (b.tail_extent > 0): b with its split axis at tail_extent and without
/// the split's batch axis, at byte offsets `in_offset` / `out_offset` from b's base pointers. Launched (or
/// simulated) after b's own boxes; together they move every element once.
box_plan box_tail(const box_plan& b, std::int64_t& in_offset, std::int64_t& out_offset);

/// Limits of a box: elements (offset tables of 10 bytes an element) and data bytes in shared memory. 4096
/// elements leave room for a second axis after the first (77x93x85 batches of 5 x 44: 220 x 5 x 3). 32 KiB
/// of data binds only for 8- and 16-byte units: with 16 KiB, c128 7x3x2x27x41x7x2x51 (tiles of 4 x 51) got
/// boxes of 204 elements, 0.611 of memcpy on the H100; with 32 KiB the next input axis (7) joins: 1428
/// elements, 0.889. 64 KiB measured the same on the N-d suite's fp64 and c128 rows, so the smaller stays.
inline constexpr std::int64_t box_max_volume = 4096;
/// 1-byte units (box16: 2 bytes of tables an element instead of 10): up to this many elements, so that runs
/// blocked at 80 bytes by the 4096 cap grow past 128 (u8 30x24x42x220x2x40 axes 2,3,1,4,5,0: tiles of 30 x 80
/// bytes; 30 x 80 x 3 bytes a box).
inline constexpr std::int64_t box16_max_volume = 8192;
/// The most elements a box of `unit_bytes` units may hold.
/// 2-byte units take box16's 8192 too (box_kernel; 16 KiB of data like box16's bytes). H100, same binary,
/// limit 8192 vs 4096 on every box row of benchmarks/suites/box_rows.txt whose box changes: fp16 30x24x42x110x2x40
/// (N-d r6 n18) 0.787 -> 0.878, 3x736x7x3x214x3x3x3 (r8 n27) 0.636 -> 0.676, nd_small q68 0.445 -> 0.579; RGB16
/// (as 2-byte words) probe r6 0.630 -> 0.594, q77 0.583 -> 0.567, the rest within 1 %. 4-byte units lost with
/// it (fp32 r7 n26 0.717 -> 0.584, q17 0.755 -> 0.497, p65 0.818 -> 0.553: 32 KiB boxes, two blocks an SM).
inline constexpr std::int64_t box_volume_limit(std::int64_t unit_bytes) {
  return unit_bytes <= 2 ? box16_max_volume : box_max_volume;
}
inline constexpr std::int64_t box_max_bytes = 32768;
/// A box that takes only part of the tile's long side must hold at least this many elements.
inline constexpr std::int64_t box_min_split_volume = 1024;
/// Whole boxes (every axis split by a divisor) of fewer units than this give way to a ragged split (box_tail)
/// when one holds more.
inline constexpr std::int64_t box_ragged_below = 512;
/// transpose2d geometries whose shorter tile side moves fewer bytes than this take a box when one has
/// longer runs: below ~128 bytes a run uses a fraction of its sectors and the tile kernels' rows idle.
inline constexpr std::int64_t box_short_side_bytes = 128;
/// Tiles of 16-byte elements are boxed up to a short side of 256 bytes (16 units): vec16's tiles of 16-byte
/// units hold so few of them a side that a 9-unit side left most of a tile idle. H100, same binary, switch on /
/// off: c128 1926 [642 3] x 9 [3 3] (N-d r8 n27) 0.671 -> 0.885, probe r6 0.346 -> 0.776, nd_small q64 r4 0.708 ->
/// 0.822, 466034 x 9 (skinny16) unchanged.
inline constexpr std::int64_t box_short_side_bytes_16 = 256;
inline constexpr std::int64_t box_short_side_limit(std::int64_t elem_bytes) {
  return elem_bytes == 16 ? box_short_side_bytes_16 : box_short_side_bytes;
}

/// The unit a box of `g` moves: the element when it is 1, 2, 4, 8 or 16 bytes, else its word (RGB pixels of 3
/// x 1, 3 x 2 or 3 x 4 bytes, fused axes of 5, 6, 12 ... bytes): the element's words are then one more box
/// axis, fastest on both sides. box_plan::volume and max_volume count these units.
std::int64_t box_unit_bytes(const plan_geometry& g);

/// A box for `g` (transpose2d) when one beats its tiles: true and `b` filled, else false. `max_volume`
/// (<= box_volume_limit(unit)) caps the elements a box; the GPU dispatch lowers it for small problems so that
/// there are boxes for every SM (box_volume_cap), and a split box then needs only that many elements.
bool make_box(const plan_geometry& g, box_plan& b, std::int64_t max_volume = box_max_volume);

/// The CPU's boxes (cpu/macrokernel_box.cpp): the same axes chosen under the CPU's limits. A box is staged in
/// L1 (cpu_box_max_bytes of data, any number of elements), and pays where the CPU's tiles would read or write
/// runs shorter than cpu_box_short_side_bytes while the box's runs are at least a cache line and longer than
/// the tiles' short side.
inline constexpr std::int64_t cpu_box_max_bytes = std::int64_t{16} << 10;
inline constexpr std::int64_t cpu_box_short_side_bytes = 256;
inline constexpr std::int64_t cpu_box_min_run_bytes = 64;
bool make_cpu_box(const plan_geometry& g, box_plan& b, std::int64_t max_bytes = cpu_box_max_bytes);

/// The box volume for a problem of `units` elements on `sm_count` SMs: box_max_volume, or for small
/// problems the largest power of two giving >= 2 boxes an SM, at least box_min_volume_cap.
inline constexpr std::int64_t box_min_volume_cap = 256;
inline std::int64_t box_volume_cap(std::int64_t units, int sm_count, std::int64_t limit = box_max_volume) {
  std::int64_t cap = limit;
  while (cap > box_min_volume_cap && units / cap < 2 * static_cast<std::int64_t>(sm_count)) cap /= 2;
  return cap;
}

}  // namespace xpose::detail
