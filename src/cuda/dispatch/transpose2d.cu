// transpose2d dispatch: run-time facts (unit size, pointer/pitch alignment) -> a compile-time instantiation
// of kernels/transpose2d.cuh, tuned by tuning/transpose2d.hpp.
//
//   units of >= 32 bytes, every pointer, stride and the unit on the 8-byte grid, any sides or batch
//                                                                                -> wide<G> (dispatch/wide.cu)
//   n x k or k x n, k <= 16 units, the k-unit rows contiguous, unit in {1,2,4,8,16} -> skinny16<unit, k, dir>
//     (dispatch/skinny16.cu); unit in {3,5,6,7,10,12,14}, k <= 40 (k x n: unless pixel48 fills >= 60 % of its
//     rows)                                                                      -> skinny_odd<unit, dir>
//     (dispatch/skinny_odd.cu); other units, k x n with 16 < k <= 40 (misaligned output rows: up to k = 96
//     for 8-byte units, and for 1-, 2-, 4-byte units whose tiles would fill their rows poorly), n x k with
//     16 < k and k-unit rows of <= 36 bytes (1-, 2-byte units)                  -> skinny<G, direction>
//   a packed batch of K x n matrices, K <= 16, n U whole 8/16-byte pieces, >= 2 a tile -> skinny16 flat
//   (dispatch/skinny16_flat.cu), before the skinny rule (which skips packed batches of < 4 KiB matrices)
//   a packed batch of 2-byte matrices, 8-byte aligned, vec16 tiles 20-50 % full (or not 16-byte aligned) -> vec8<2>
//   a packed batch of matrices of <= 74 KiB each (112 KiB of 2-, 4-, 8-byte units, 47 of 16-byte; before the
//   skinny rule for 16 < k <= 40 units but skinny_odd's n x k), unless vec16 tiles fill >= 50 % -> batched_flat
//   1-byte units filling >= 20 % of the tiles' slots: every base/pitch/batch stride 8-byte aligned -> vec8
//     (512-thread tiles from 48 MiB);
//   otherwise, output not 16-byte aligned, <= one tile row an SM when row tiles go first -> shift8
//     (512-thread tiles for single matrices of > 16 MiB with >= 12 tile rows, or >= 48 MiB and not wide;
//     branch-free interior tiles on plain sides);
//   otherwise, unless the units tiles take it (below)                           -> shift8 (512-thread tiles
//     on plain sides of >= 8 tile rows, else 256)
//   unit in {1,2,4,8,16} B, every base/pitch/batch stride 16-byte aligned,
//   and the matrix fills >= 20 % of the vec16 tiles' slots                       -> vec16<unit>
//     (2-byte units: 64-row tiles where the rows fill them better, transpose2d_short_policy; so shift16's)
//   unit 8 B, or 4 B up to 32 MiB, or 1 / 2 B up to 16 MiB off the 16-byte grid (plain sides), rows on the
//   unit's grid, the 64 x 64 / 64 x 32-unit tiles >= half full (so sides >= 32 / 16 units)  -> units<unit>
//   the same for 4-byte units over 32 MiB                                        -> unit_pairs
//   (compound sides too, off the 16-byte grid, tiles >= 60 % full: units<8>, units<4> / unit_pairs)
//   unit in {2,4,8,16} B, the same tile fill, any alignment, and unit = 2 B or
//   both sides >= 1024 units                                                     -> shift16<unit>
//   unit in {5, 7, 9, 11, 13, 15} B (and 3 B up to 48 MiB), every base/pitch/batch stride 16-byte aligned,
//   both sides >= 16 units, one axis a side                                      -> pieces<unit>
//     (dispatch/pieces.cu)
//   unit in {5, 7, 10, 14} B, both sides >= 16 units, one axis a side            -> skinny_odd tiles
//   unit in {3, 6, 12, 24} B, both sides >= 16 units, one axis a side            -> pixel48<unit>
//     (dispatch/pixel48.cu)
//   otherwise, both sides >= 16 units of <= 128 bytes                            -> gather16<G>, G = the
//     common alignment of unit, pointers and pitches (<= 4); rows of 32-128 chunks for units over 16 bytes
//   otherwise (skinny)                                                           -> words<A>, A = the largest
//     power of two <= word_bytes dividing all of them; a unit is then K = unit / A words.
// Compound tile sides (plan_geometry::row_* / col_*, N-d permutations with short fastest axes) take the same
// vec16 / gather16 / words choice with the Compound instantiation (row and column offsets from per-tile tables);
// batch axes nested right outside such a side join it first (absorb_nested_batch, plan/select.cpp).

#include <algorithm>
#include <climits>
#include <type_traits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/transpose2d.cuh"
#include "cuda/tuning/bulk.hpp"
#include "cuda/tuning/pixel48.hpp"
#include "cuda/tuning/skinny16.hpp"
#include "cuda/tuning/wide.hpp"
#include "plan/box.hpp"
#include "plan/planner.hpp"
#include "plan/span.hpp"

namespace xpose::detail {

namespace {

// Tile counts for tiles of tile_rows x tile_cols units; p.tiles_total holds the batch count on entry.
void set_tiles(transpose2d_params& p, std::int64_t tile_rows, std::int64_t tile_cols) {
  const std::int64_t tr = ceil_div(p.rows, tile_rows), tc = ceil_div(p.cols, tile_cols);
  p.tiles_r = fast_divmod(static_cast<std::uint64_t>(tr));
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tc));
  p.tiles_total = tr * tc * p.tiles_total;
}

// Fraction of the vec16 tiles' slots a rows x cols matrix fills. Below `min_fill` (n x 3, 5 x n, ...) most
// threads of a tile would idle and the bytes in flight per SM collapse; the words variant's rectangular tiles
// fit such shapes instead.
constexpr double vec16_min_fill = 0.2;

// shift16 for >= 4-byte units only when both sides have at least this many units (see launch_transpose2d).
constexpr std::int64_t shift16_min_side = 1024;

// vec16's tile (input rows x units a row) for `unit`; {0, 0} for units vec16 does not take.
struct tile_extent {
  std::int64_t rows = 0, cols = 0;
};
tile_extent vec16_tile(std::int64_t unit) {
  switch (unit) {
    case 1: return {vec16_shape<1>::tile_rows, vec16_shape<1>::tile_cols};
    case 2: return {vec16_shape<2>::tile_rows, vec16_shape<2>::tile_cols};
    case 4: return {vec16_shape<4>::tile_rows, vec16_shape<4>::tile_cols};
    case 8: return {vec16_shape<8>::tile_rows, vec16_shape<8>::tile_cols};
    case 16: return {vec16_shape<16>::tile_rows, vec16_shape<16>::tile_cols};
    default: return {};
  }
}


// Fraction of vec16's tile slots a rows x cols matrix fills; 0 for units vec16 does not take.
double vec16_tiles_fill(std::int64_t rows, std::int64_t cols, std::int64_t unit) {
  const tile_extent t = vec16_tile(unit);
  return tile_side_fill(rows, t.rows) * tile_side_fill(cols, t.cols);
}

// Fraction of vec16's tile rows a side of `rows` units fills (0 for units vec16 does not take).
double vec16_row_fill(std::int64_t rows, std::int64_t unit) { return tile_side_fill(rows, vec16_tile(unit).rows); }

bool vec16_tiles_filled(std::int64_t rows, std::int64_t cols, std::int64_t unit) {
  return vec16_tiles_fill(rows, cols, unit) >= vec16_min_fill;
}

template <int UnitBytes, bool Shift>
using tiles16_default_policy =
    std::conditional_t<Shift, transpose2d_shift16_policy<UnitBytes>, transpose2d_vec16_policy<UnitBytes>>;

// vec16 (aligned) or shift16 (any alignment): the same micro-tiles; shift16's tiles overlap by one micro-tile
// each way, so they step by V (MR - 1) rows and V (MC - 1) columns. Policy: the default tiles, or the short ones
// (transpose2d_short_policy, plain sides only).
template <int UnitBytes, bool Shift, class Policy = tiles16_default_policy<UnitBytes, Shift>>
status launch_tiles16(transpose2d_params p, bool compound, cudaStream_t stream, int sm_count) {
  using S = vec16_shape<UnitBytes, Policy>;
  constexpr bool default_tiles = std::is_same_v<Policy, tiles16_default_policy<UnitBytes, Shift>>;
  if (!default_tiles && compound) return status(status_code::internal, "short tiles16 on a compound side");
  set_tiles(p, Shift ? S::shift_step_rows : S::tile_rows, Shift ? S::shift_step_cols : S::tile_cols);
  const unsigned grid = grid_for(p.tiles_total);
  if constexpr (Shift) {
    static_assert(UnitBytes >= 2, "misaligned 1-byte units take shift8 (launch_transpose2d)");
    if constexpr (default_tiles)
      if (compound) transpose2d_shift16_kernel<UnitBytes, true><<<grid, S::threads, 0, stream>>>(p);
    if constexpr (UnitBytes == 2) {
      if (!compound)
        transpose2d_shift16_bounded_kernel<2, shift16_u16_min_blocks, Policy><<<grid, S::threads, 0, stream>>>(p);
    } else {
      if (!compound) transpose2d_shift16_kernel<UnitBytes, false, Policy><<<grid, S::threads, 0, stream>>>(p);
    }
  } else {
    if constexpr (default_tiles)
      if (compound) transpose2d_vec16_kernel<UnitBytes, true><<<grid, S::threads, 0, stream>>>(p);
    if (!compound) transpose2d_vec16_kernel<UnitBytes, false, Policy><<<grid, S::threads, 0, stream>>>(p);
  }
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    return cuda_failure(e, Shift ? "transpose2d_shift16 launch" : "transpose2d_vec16 launch");
  return status::ok();
}

// Fraction of 2-byte vec16 / shift16 tiles' slots (default or short) a rows x cols matrix fills: the rows by
// their tile rows' step, the columns by their tile columns' step.
template <class Policy>
double tiles16_u16_fill(std::int64_t rows, std::int64_t cols, bool shift) {
  using S = vec16_shape<2, Policy>;
  return tile_side_fill(rows, shift ? S::shift_step_rows : S::tile_rows) * tile_side_fill(cols, shift ? S::shift_step_cols : S::tile_cols);
}

// Short tiles (transpose2d_short_policy: 64 input rows of 256 units instead of 128 x 128) for plain 2-byte
// problems of at most short_max_rows rows that fill them better by more than short_min_gain (relative). H100,
// same call (benchmarks/suites/short_tiles.txt, mid_k2d.txt, every fp16 row of the 2-D / N-d / probe /
// batched suites), default -> short tiles: fp16 130 x 129055 0.546 -> 0.723, 136 x 123362 0.691 -> 0.866, 64 x
// 262144 0.795 -> 0.954, 244 x 68759 0.685 -> 0.813, 155 x 108240 0.607 -> 0.720, 204 x 82240 0.743 -> 0.809,
// 169 x 99273 0.656 -> 0.716, 255 x 65793 0.715 -> 0.770, 105 x 159783 0.678 -> 0.732, batched 577 x 255 x 228
// 0.652 -> 0.742; 215 x 78033 0.761 -> 0.740. Taller matrices gained nothing though better filled (326 x
// 51456 0.799 -> 0.771, 371 x 45221 0.795 -> 0.786: most of their default tiles are whole, and a short shift16
// tile stages 64 rows to move 56), and the column side counts too (93 x 83 matrices of a strided view: 0.522
// -> 0.378 when the rows alone decided). 4- and 8-byte units gained nothing (fp32 65 x 129056: 65 of 128 rows
// -> 65 of 96, 0.723 -> 0.720), so they keep the default tiles.
constexpr std::int64_t short_max_rows = 256;
constexpr double short_min_gain = 1.05;

bool tiles16_short(std::int64_t rows, std::int64_t cols, std::int64_t unit, bool shift, bool compound) {
  if (compound || unit != 2 || rows > short_max_rows) return false;
  const double fill_default = shift ? tiles16_u16_fill<transpose2d_shift16_policy<2>>(rows, cols, true)
                                    : tiles16_u16_fill<transpose2d_vec16_policy<2>>(rows, cols, false);
  return tiles16_u16_fill<transpose2d_short_policy<2>>(rows, cols, shift) > short_min_gain * fill_default;
}

// 2-byte units on misaligned sides: gather16's flat tiles instead of shift16 where shift16's tiles (default,
// or short ones where tiles16_short may take them) fill under 80 % of what the flat tiles fill: there most of
// shift16's tiles are first, last or edge tiles (the checked paths) and stage rows they do not move. H100, same
// call, shift16 -> flat gather16: N-d fp16 63[7*3*3] x 1209[403*3] 0.308 -> 0.534, 63[9*7] x 2400 0.342 ->
// 0.539, 156[12*13] x 145 batches 0.372 -> 0.626, batches 514 x 250 x 261 0.570 -> 0.721, 315 x 771 x 138
// 0.721 -> 0.777. By gather16's own fill rule instead, shapes that shift16's tiles fit lost (781 x 358 batches
// 0.820 -> 0.674, 2668 x 240 0.742 -> 0.557, 1168 x 478 0.847 -> 0.777); this rule keeps those on shift16.
// Mispredicted, within 5 %: packed batches 4888 x 132 x 52 0.837 -> 0.797, 263 x 506 x 252 views 0.708 -> 0.674.
bool u16_prefers_flat_gather(std::int64_t rows, std::int64_t cols, bool compound) {
  double shift = tiles16_u16_fill<transpose2d_shift16_policy<2>>(rows, cols, true);
  if (!compound && rows <= short_max_rows)
    shift = std::max(shift, tiles16_u16_fill<transpose2d_short_policy<2>>(rows, cols, true));
  const gather16_flat_shape f = gather16_flat_tile(2, rows, cols);
  return shift < 0.8 * tile_side_fill(rows, f.tile_rows) * tile_side_fill(cols, f.tile_cols);
}

template <bool Shift>
status launch_tiles16(transpose2d_params p, std::int64_t unit, bool compound, cudaStream_t stream, int sm_count) {
  const bool short_tiles = tiles16_short(p.rows, p.cols, unit, Shift, compound);
  switch (unit) {
    case 1:
      // shift16's 1-byte build (64-thread tiles of ~168 registers) lost to shift8 on every problem the H200 ran
      // it on, and the dispatcher no longer sends any there (launch_transpose2d).
      if constexpr (Shift) return status(status_code::internal, "shift16: 1-byte units take shift8");
      else return launch_tiles16<1, Shift>(p, compound, stream, sm_count);
    case 2:
      if (short_tiles) return launch_tiles16<2, Shift, transpose2d_short_policy<2>>(p, compound, stream, sm_count);
      return launch_tiles16<2, Shift>(p, compound, stream, sm_count);
    case 4: return launch_tiles16<4, Shift>(p, compound, stream, sm_count);
    case 8: return launch_tiles16<8, Shift>(p, compound, stream, sm_count);
    case 16: return launch_tiles16<16, Shift>(p, compound, stream, sm_count);
    default: return status(status_code::internal, "vec16/shift16: unit is not 1, 2, 4, 8 or 16 bytes");
  }
}

// vec8 / shift8 (1- and 2-byte units): vec16 / shift16's micro-tiles with 8-byte chunks. shift8 on plain sides
// always runs its branch-free interior tiles (the kernel's Fast; launch_transpose2d's measurements), so its
// general plain build is never launched, nor are its 512-thread tiles on compound sides (not built).
template <int UnitBytes, bool Shift, class Policy = transpose2d_tile8_policy<UnitBytes>>
status launch_tiles8(transpose2d_params p, bool compound, cudaStream_t stream) {
  using S = tile8_shape<UnitBytes, Policy>;
  constexpr bool default_tiles = std::is_same_v<Policy, transpose2d_tile8_policy<UnitBytes>>;
  set_tiles(p, Shift ? S::shift_step_rows : S::tile_rows, Shift ? S::shift_step_cols : S::tile_cols);
  const unsigned grid = grid_for(p.tiles_total);
  if (compound) {
    if constexpr (Shift && !default_tiles)
      return status(status_code::internal, "shift8's wide tiles on a compound side");
    else transpose2d_tile8_kernel<UnitBytes, Shift, true, Policy><<<grid, S::threads, 0, stream>>>(p);
  } else if constexpr (Shift) {
    transpose2d_tile8_kernel<UnitBytes, true, false, Policy, true><<<grid, S::threads, 0, stream>>>(p);
  } else {
    transpose2d_tile8_kernel<UnitBytes, false, false, Policy><<<grid, S::threads, 0, stream>>>(p);
  }
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    return cuda_failure(e, Shift ? "transpose2d_shift8 launch" : "transpose2d_vec8 launch");
  return status::ok();
}

// units (4- and 8-byte units, one access each) and unit_pairs (4-byte units in 8-byte pairs): one tile a block
// of Policy's shape (tuning/transpose2d.hpp), the kernel built for that policy.
template <class Policy>
status launch_unit_tiles(transpose2d_params p, void (*kernel)(transpose2d_params), const char* what,
                         cudaStream_t stream) {
  set_tiles(p, Policy::rows, Policy::cols);
  kernel<<<grid_for(p.tiles_total), Policy::threads, 0, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, what);
  return status::ok();
}

template <int WordBytes>
status launch_words(transpose2d_params p, bool compound, cudaStream_t stream) {
  const words_tile shape = words_tile_shape(p.rows, p.cols, p.unit_words * WordBytes);
  p.words_tile_rows = shape.rows;
  p.words_tile_cols = shape.cols;
  p.in_row_div = fast_divmod(static_cast<std::uint64_t>(shape.cols * p.unit_words));
  p.out_row_div = fast_divmod(static_cast<std::uint64_t>(shape.rows * p.unit_words));
  p.unit_div = fast_divmod(static_cast<std::uint64_t>(p.unit_words));
  set_tiles(p, shape.rows, shape.cols);
  constexpr int threads = transpose2d_words_policy::threads;
  const unsigned grid = grid_for(p.tiles_total);
  if (compound) {
    if (p.unit_words == 1) transpose2d_words_kernel<WordBytes, true, true><<<grid, threads, 0, stream>>>(p);
    else transpose2d_words_kernel<WordBytes, false, true><<<grid, threads, 0, stream>>>(p);
  } else {
    if (p.unit_words == 1) transpose2d_words_kernel<WordBytes, true, false><<<grid, threads, 0, stream>>>(p);
    else transpose2d_words_kernel<WordBytes, false, false><<<grid, threads, 0, stream>>>(p);
  }
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_words launch");
  return status::ok();
}

template <int PieceBytes, int UnitBytes, int RowChunks = 16>
status launch_gather16_kernel(const transpose2d_params& p, bool compound, std::size_t smem, cudaStream_t stream) {
  // Tiles of up to gather16_max_smem dynamic bytes; with a compound side's static tables that can pass 48 KiB.
  auto launch = [&](auto* kernel) {
    if (status s = allow_dynamic_smem(kernel, static_cast<std::int64_t>(smem), "transpose2d_gather16 smem"); !s) return s;
    kernel<<<grid_for(p.tiles_total), gather16_threads, smem, stream>>>(p);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_gather16 launch");
    return status::ok();
  };
  if (compound) return launch(transpose2d_gather16_kernel<PieceBytes, UnitBytes, true, RowChunks>);
  return launch(transpose2d_gather16_kernel<PieceBytes, UnitBytes, false, RowChunks>);
}

// Flat rows (rectangular tiles, gather16_flat_tile) for naturally aligned 1-, 2-, 4-, 8-, 16-byte units
// (piece = min(unit, 4)): the kernels built for them.
constexpr bool gather16_flat_applies(std::int64_t unit, std::int64_t piece) {
  return (unit == piece && unit <= 4 && unit != 3) || (piece == 4 && (unit == 8 || unit == 16));
}

// Launches the flat kernel into `s` and returns true where one is built for this unit and piece; otherwise
// returns false and leaves everything as it was (the caller's square path sets up its own parameters).
template <int PieceBytes>
bool launch_gather16_flat(transpose2d_params p, std::int64_t unit, bool compound, cudaStream_t stream, status& s) {
  if (!gather16_flat_applies(unit, PieceBytes)) return false;
  const gather16_flat_shape g = gather16_flat_tile(unit, p.rows, p.cols);
  p.unit_bytes = unit;
  p.words_tile_rows = g.tile_rows;
  p.words_tile_cols = g.tile_cols;
  p.halo_rows = static_cast<int>(g.halo);
  p.smem_pitch_words = static_cast<int>(g.pitch_words);
  p.flat_in_chunks = static_cast<unsigned>(g.in_chunks);
  p.flat_out_chunks = static_cast<unsigned>(g.out_chunks);
  p.flat_in_div = div32(p.flat_in_chunks);
  p.flat_out_div = div32(p.flat_out_chunks);
  set_tiles(p, g.tile_rows, g.tile_cols);
  const auto smem = static_cast<std::size_t>(g.smem_bytes);
  switch (unit) {
    case 1: if constexpr (PieceBytes == 1) s = launch_gather16_kernel<1, 1, 0>(p, compound, smem, stream); break;
    case 2: if constexpr (PieceBytes == 2) s = launch_gather16_kernel<2, 2, 0>(p, compound, smem, stream); break;
    case 4: if constexpr (PieceBytes == 4) s = launch_gather16_kernel<4, 4, 0>(p, compound, smem, stream); break;
    case 8: if constexpr (PieceBytes == 4) s = launch_gather16_kernel<4, 8, 0>(p, compound, smem, stream); break;
    case 16: if constexpr (PieceBytes == 4) s = launch_gather16_kernel<4, 16, 0>(p, compound, smem, stream); break;
    default: return false;
  }
  return true;
}

// Compile-time unit sizes for the common pixels and scalars: 1..4, 6 (RGB16), 8, 12 (RGB32F), 16.
// flat: gather16_flat_tile's tiles where gather16_flat_applies, else square tiles (gather16_tile).
template <int PieceBytes>
status launch_gather16(transpose2d_params p, std::int64_t unit, bool compound, cudaStream_t stream, bool flat) {
  if (status s; flat && launch_gather16_flat<PieceBytes>(p, unit, compound, stream, s)) return s;
  const gather16_shape g = gather16_tile(unit, p.rows, p.cols);
  p.unit_bytes = unit;
  p.words_tile_rows = p.words_tile_cols = g.side;
  p.halo_rows = static_cast<int>(g.halo);
  p.smem_pitch_words = static_cast<int>(g.pitch_words);
  set_tiles(p, g.side, g.side);
  const auto smem = static_cast<std::size_t>(g.smem_bytes);
  if (unit % PieceBytes != 0) return status(status_code::internal, "gather16: piece does not divide the unit");
  switch (unit) {
    case 1: if constexpr (PieceBytes <= 1) return launch_gather16_kernel<PieceBytes, 1>(p, compound, smem, stream); break;
    case 2: if constexpr (PieceBytes <= 2) return launch_gather16_kernel<PieceBytes, 2>(p, compound, smem, stream); break;
    case 3: if constexpr (PieceBytes <= 1) return launch_gather16_kernel<PieceBytes, 3>(p, compound, smem, stream); break;
    case 4: return launch_gather16_kernel<PieceBytes, 4>(p, compound, smem, stream);
    case 6: if constexpr (PieceBytes <= 2) return launch_gather16_kernel<PieceBytes, 6>(p, compound, smem, stream); break;
    case 8: return launch_gather16_kernel<PieceBytes, 8>(p, compound, smem, stream);
    case 12: return launch_gather16_kernel<PieceBytes, 12>(p, compound, smem, stream);
    case 16: return launch_gather16_kernel<PieceBytes, 16>(p, compound, smem, stream);
    default: break;
  }
  // Units of 17-128 bytes (N-d permutations that keep a short fastest axis: 5 x fp32, 7 x fp32, 5 x fp64, ...)
  // and 9-15-byte ones: run-time unit size, rows of 32, 64 or 128 chunks (16 for other units, gather16_tile).
  if (g.row_chunks == 32) return launch_gather16_kernel<PieceBytes, 0, 32>(p, compound, smem, stream);
  if (g.row_chunks == 64) return launch_gather16_kernel<PieceBytes, 0, 64>(p, compound, smem, stream);
  if (g.row_chunks == 128) return launch_gather16_kernel<PieceBytes, 0, 128>(p, compound, smem, stream);
  return launch_gather16_kernel<PieceBytes, 0>(p, compound, smem, stream);
}

template <int PieceBytes, int UnitBytes, bool Swizzled>
status launch_batched_flat_kernel(const transpose2d_params& p, std::size_t smem, cudaStream_t stream) {
  const auto kernel = transpose2d_batched_flat_kernel<PieceBytes, UnitBytes, Swizzled>;
  if (auto s = allow_dynamic_smem(kernel, static_cast<std::int64_t>(smem), "transpose2d_batched_flat smem"); !s)
    return s;
  kernel<<<grid_for(p.tiles_total), batched_flat_threads, smem, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_batched_flat launch");
  return status::ok();
}

template <int PieceBytes, int UnitBytes>
status launch_batched_flat_kernel(const transpose2d_params& p, std::size_t smem, cudaStream_t stream) {
  if (p.flat_swz_s1 > 0) return launch_batched_flat_kernel<PieceBytes, UnitBytes, true>(p, smem, stream);
  return launch_batched_flat_kernel<PieceBytes, UnitBytes, false>(p, smem, stream);
}

// The stage swizzle of tile 0 (choose_batched_flat_swizzle), remembered for the last few problems: the model
// costs ~10-50 us of host time, once per shape and pointer phase.
flat_swizzle batched_flat_swizzle(const transpose2d_params& p, std::int64_t unit, int piece) {
  struct key {
    std::int64_t r, c, u, m;
    int piece;
    unsigned stage0, out_phase;
    bool operator==(const key&) const = default;
  };
  thread_local recent_results<key, flat_swizzle> cache;
  const key k{p.rows, p.cols, unit, p.matrices_per_tile, piece,
              static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p.in) % 16),
              static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p.out) % 16)};
  return cache.get(k, [&] { return choose_batched_flat_swizzle(k.r, k.c, k.u, k.piece, k.m, k.stage0, k.out_phase); });
}

// Packed matrices whole: M per tile (M x matrix bytes <= 16 KiB), or one a tile up to batched_flat_max_smem(_words);
// compile-time unit sizes for the common element types.
template <int PieceBytes>
status launch_batched_flat(transpose2d_params p, std::int64_t unit, std::int64_t batch, cudaStream_t stream) {
  const std::int64_t matrix = p.rows * p.cols * unit;
  p.unit_bytes = unit;
  p.matrices_per_tile = std::max<std::int64_t>(1, batched_flat_tile_bytes / matrix);
  const auto smem = static_cast<std::size_t>(batched_flat_smem(p.matrices_per_tile, matrix));
  p.matrix_bytes_div = fast_divmod(static_cast<std::uint64_t>(matrix));
  p.out_row_bytes_div = fast_divmod(static_cast<std::uint64_t>(p.rows * unit));
  // The kernel's 32-bit splits of offsets x < (M + 1) S + 16 <= 2 * batched_flat_max_smem_words within a tile's
  // staged matrices (and the next one, for the window's last chunk): by S and by rows * U <= S with div40
  // (x S < 2^40), by U with div32 (x U < 2^32).
  static_assert(std::int64_t{2} * batched_flat_max_smem_words * batched_flat_max_smem_words < (std::int64_t{1} << 40) &&
                    std::int64_t{2} * batched_flat_max_smem_words * 16 < (std::int64_t{1} << 32),
                "batched_flat's div32 / div40 splits");
  p.flat_matrix_div = div40(static_cast<unsigned>(matrix));
  p.flat_row_div = div40(static_cast<unsigned>(p.rows * unit));
  p.flat_unit_div = div32(static_cast<unsigned>(unit));
  p.tiles_total = ceil_div(batch, p.matrices_per_tile);
  const flat_swizzle sw = batched_flat_swizzle(p, unit, PieceBytes);
  p.flat_swz_s1 = sw.on ? sw.s1 : 0;
  p.flat_swz_s2 = sw.on ? sw.s2 : 0;
  switch (unit) {
    case 1: if constexpr (PieceBytes <= 1) return launch_batched_flat_kernel<PieceBytes, 1>(p, smem, stream); break;
    case 2: if constexpr (PieceBytes <= 2) return launch_batched_flat_kernel<PieceBytes, 2>(p, smem, stream); break;
    case 3: if constexpr (PieceBytes == 1) return launch_batched_flat_kernel<PieceBytes, 3>(p, smem, stream); break;
    case 4: return launch_batched_flat_kernel<PieceBytes, 4>(p, smem, stream);
    case 6: if constexpr (PieceBytes <= 2) return launch_batched_flat_kernel<PieceBytes, 6>(p, smem, stream); break;
    case 8: return launch_batched_flat_kernel<PieceBytes, 8>(p, smem, stream);
    case 12: return launch_batched_flat_kernel<PieceBytes, 12>(p, smem, stream);
    case 16: return launch_batched_flat_kernel<PieceBytes, 16>(p, smem, stream);
    default: break;
  }
  return launch_batched_flat_kernel<PieceBytes, 0>(p, smem, stream);
}

template <int PieceBytes, int UnitBytes, bool AosToSoa>
status launch_skinny_kernel(const transpose2d_params& p, std::size_t smem, cudaStream_t stream) {
  transpose2d_skinny_kernel<PieceBytes, UnitBytes, AosToSoa><<<grid_for(p.tiles_total), skinny_threads, smem, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_skinny launch");
  return status::ok();
}

// n x k <-> k x n, k <= 16 units: tiles of ~16 KiB along n; the short side's rows are contiguous.
template <int PieceBytes, bool AosToSoa>
status launch_skinny(transpose2d_params p, std::int64_t unit, cudaStream_t stream) {
  const std::int64_t k = AosToSoa ? p.cols : p.rows, n = AosToSoa ? p.rows : p.cols;
  const std::int64_t short_bytes = k * unit;
  p.unit_bytes = unit;
  p.skinny_span = std::max<std::int64_t>(16, skinny_tile_bytes / short_bytes);
  p.halo_rows = static_cast<int>((16 + unit - 1) / unit);
  std::size_t smem = 0;
  if (AosToSoa) {
    p.skinny_chunks = (p.skinny_span * unit + 30) / 16 + 1;
    p.skinny_div = fast_divmod(static_cast<std::uint64_t>(k));
    smem = static_cast<std::size_t>(((p.skinny_span + p.halo_rows) * short_bytes + 32 + 15) / 16 * 16);
  } else {
    const std::int64_t per_row = (15 + (p.skinny_span + p.halo_rows) * unit + 15) / 16;
    p.skinny_div = fast_divmod(static_cast<std::uint64_t>(per_row));
    smem = static_cast<std::size_t>(k * (4 * per_row + 1) * 4);
  }
  const std::int64_t tiles_n = ceil_div(n, p.skinny_span);
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tiles_n));
  p.tiles_total = tiles_n * p.tiles_total;
  switch (unit) {
    case 1: if constexpr (PieceBytes <= 1) return launch_skinny_kernel<PieceBytes, 1, AosToSoa>(p, smem, stream); break;
    case 2: if constexpr (PieceBytes <= 2) return launch_skinny_kernel<PieceBytes, 2, AosToSoa>(p, smem, stream); break;
    case 4: return launch_skinny_kernel<PieceBytes, 4, AosToSoa>(p, smem, stream);
    case 8: return launch_skinny_kernel<PieceBytes, 8, AosToSoa>(p, smem, stream);
    default: break;
  }
  return launch_skinny_kernel<PieceBytes, 0, AosToSoa>(p, smem, stream);
}

}  // namespace

status launch_transpose2d(const plan_geometry& planned, const void* d_in, void* d_out, cudaStream_t stream,
                          const device_info& dev) {
  const std::int64_t wb = planned.word_bytes;
  const std::int64_t unit = planned.elem_words * wb;
  // Wide units (a kept fastest axis, >= 32 bytes) on an 8-byte grid: wide tiles, whole chunks moved without a
  // stage (dispatch/wide.cu).
  if (unit >= wide_min_unit_bytes) {
    bool launched = false;
    if (status s = try_launch_wide(planned, d_in, d_out, stream, dev, launched); !s || launched) return s;
  }
  if (unit > gather16_max_unit) return status(status_code::internal, "transpose2d unit larger than 128 bytes");
  // Compound sides run in vec16 / gather16 (both sides >= 16 units of <= 16 bytes) or in words (rectangular
  // tiles: a short side whole, the other long), never in skinny / batched_flat, which take one axis a side.
  // Batch axes nested right outside a compound side join it (plan/select.cpp): tall matrices of whole tiles
  // instead of batches of matrices a few tiles long. H100, same call: see docs/perf-notes.md.
  // Plain matrices of 1-, 4-, 8- and 16-byte units whose rows span < 1536 bytes, with a batch axis nested
  // right outside the rows in the output (strided views and 3-D permutations: consecutive matrices' output
  // rows side by side), take that axis into a compound row side too: tiles then write whole output lines. H100,
  // same binary, switch on / off: fp64 145 x 324 batches of 178 (view) 0.719 -> 0.911, fp32 223 x 219 x 344
  // 0.843 -> 0.932, 71 x 55 x 4292 0.811 -> 0.916, c128 20 x 37 x 2860 0.910 -> 1.011, u8 478 x 2336 x 481
  // 0.600 -> 0.699; fp32 312 x 679 x 633 0.930 -> 0.918. Not under 4 MiB (fp32 64^3 reversed, 1 MiB: 4.2 ->
  // 4.6 us, the side tables' cost), nor for 2-byte units (fp16 506 x 252 x 263 0.675 -> 0.578), nor columns
  // under 16 units (fp64 164 x 7 x 7308 0.981 -> 0.845: skinny tiles), nor other unit sizes (RGB32F 109 x 17112
  // x 3 0.772 -> 0.630). The same for the column side (batch axes nested outside the columns in the input) was
  // mixed both ways (u8 2336 x 478 x 481 0.703 -> 0.747, fp32 5152 x 102 x 16 0.874 -> 0.915; u8 7084 x 202 x
  // 375 0.656 -> 0.611, fp32 5 x 256 x 105000 0.974 -> 0.866, fp16 781 x 358 x 60 0.827 -> 0.693): not taken.
  constexpr std::int64_t plain_rows_absorb_max_bytes = 1536;
  const bool plain_rows_absorb = !planned.compound() && (unit == 1 || unit == 4 || unit == 8 || unit == 16) &&
                                 planned.cols >= 16 &&
                                 planned.rows * planned.cols * planned.batch_count() * unit >= std::int64_t{4} << 20;
  const plan_geometry g =
      absorb_nested_batch(planned, transpose2d_max_side_rank, plain_rows_absorb ? plain_rows_absorb_max_bytes : 0);
  const bool compound = g.compound();
  if (g.row_rank > transpose2d_max_side_rank || g.col_rank > transpose2d_max_side_rank ||
      g.batch_rank > transpose2d_max_batch_rank)
    return status(status_code::internal, "transpose2d: too many axes for the kernel parameters");

  transpose2d_params p{};
  p.in = static_cast<const unsigned char*>(d_in);
  p.out = static_cast<unsigned char*>(d_out);
  p.rows = g.rows;
  p.cols = g.cols;
  p.in_ld = g.in_ld * wb;
  p.out_ld = g.out_ld * wb;
  const stride_bits maps = fill_index_maps(g, p.batch, p.row_map, p.col_map);
  std::uint64_t align_bits = reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out) |
                             static_cast<std::uint64_t>(p.in_ld) | static_cast<std::uint64_t>(p.out_ld) | maps.all;
  // The output side alone (shift8's choice): pointer, output pitch, batch and column output strides.
  const std::uint64_t out_align_bits =
      reinterpret_cast<std::uintptr_t>(d_out) | static_cast<std::uint64_t>(p.out_ld) | maps.out;
  // The input's strides alone (every row's phase relative to the first's).
  const std::uint64_t in_stride_bits = static_cast<std::uint64_t>(p.in_ld) | maps.in;
  p.tiles_total = g.batch_count();  // the launchers multiply in the tiles per matrix
  const std::uint64_t align = align_bits == 0 ? 16 : lowbit(align_bits);

  p.in_lo = reinterpret_cast<std::uintptr_t>(d_in);
  p.in_hi = p.in_lo + input_span_bytes(g);
  const std::uint64_t piece = std::min<std::uint64_t>(lowbit(align | static_cast<std::uint64_t>(unit)), 4);

  // Tile order. Column tiles vary fastest by default (blocks resident together read neighbouring pieces of the
  // same input rows). When the output is not 16-byte aligned, each tile writes every output row it touches
  // as a piece of ~112-128 bytes whose ends share sectors with the tiles above and below; with column tiles
  // fastest those neighbours run a whole row of tiles later, and the writes scatter over the output. Row
  // tiles fastest instead: blocks resident together complete output rows. H100, same call (vec16 / shift16 /
  // shift8 / gather16 as chosen): fp16 8191 x 8193 0.817 -> 0.911, fp32 0.859 -> 0.928, fp64 0.809 -> 0.930,
  // fp32 4097 x 3001 0.891 -> 0.957, u8 8191 x 8193 0.698 -> 0.793, 1001 x 65537 0.528 -> 0.822, 4097 x 8193
  // 0.674 -> 0.866; outputs 16-byte aligned and problems under rows_fastest_min_bytes (u8 2047 x 2049: 0.969
  // -> 0.936) keep the default.
  // Aligned outputs of short rows too (<= 8192 bytes: a handful of tile rows; each tile writes 128-256-byte
  // pieces of them, which only whole output lines when the tiles beside it run at the same time). H100, same
  // call, 2-D k x n (k of 45-300 units, ~32 MiB): fp32 100 x 167773 0.641 -> 0.948, fp64 50 x 83886 0.809 ->
  // 1.021, fp16 200 x 83886 0.696 -> 0.847, 136 x 123362 0.610 -> 0.691; no row of the 2-D, N-d, probe,
  // nd_small and batched_rand suites moved (> 3 %) but two 2-D rows of other shapes within their noise.
  // Raised from 512 to 8192 bytes (H100, same call, benchmarks/suites/rows_first_aligned.txt: 40 random aligned
  // k x n of 1-16-byte units with output rows of 0.5-8 KiB, ~32-40 MiB): u8 848 x 39568 0.731 -> 0.912, 5744 x
  // 7296 0.800 -> 0.915, fp16 2520 x 8320 0.930 -> 1.021, fp64 154 x 27234 0.884 -> 1.020, 990 x 5280 0.946 ->
  // 1.024, c128 93 x 22550 0.956 -> 1.048, RGB8 4K 2160 x 3840 (6480-byte rows) 0.839 -> 0.888; the worst
  // loss fp32 1408 x 7440 0.953 -> 0.943; no other row of the 2-D, N-d and batched_rand suites moved by more
  // than 2 %. Longer rows were mixed (4-64 KiB, 16 shapes: fp32 / fp64 / c128 +4-6 %, fp16 -2-5 %).
  constexpr std::int64_t rows_fastest_min_bytes = std::int64_t{8} << 20, rows_fastest_short_row_bytes = 8192;
  // Single matrices of 16-byte units, whatever their row length (H100, same call): c128 8191 x 8193 0.907 ->
  // 0.938, 7919 x 7907 0.906 -> 0.920 (cuBLAS geam: 0.932, 0.915), 4097 x 3001 0.999 -> 1.023; 512^3 axes 2,0,1
  // (512 x 262144) 0.975 -> 0.960; batches and N-d permutations of them unchanged. For every unit size it was
  // mixed (above); with batches of 16-byte units too, N-d 380x3x251x234 lost 0.945 -> 0.885.
  const bool rows_fastest_single16 = unit == 16 && g.batch_count() == 1 && !compound;
  p.rows_fastest = (out_align_bits % 16 != 0 || g.rows * unit <= rows_fastest_short_row_bytes || rows_fastest_single16) &&
                   g.rows * g.cols * unit * g.batch_count() >= rows_fastest_min_bytes;

  // Packed batches of matrices (batch stride = matrix bytes on both sides).
  const std::int64_t matrix_bytes = g.rows * g.cols * unit;
  const bool packed_batch = g.batch_rank == 1 && p.in_ld == g.cols * unit && p.out_ld == g.rows * unit &&
                            p.batch.in_stride[0] == matrix_bytes && p.batch.out_stride[0] == matrix_bytes;
  const std::int64_t flat_smem = batched_flat_smem(1, matrix_bytes);
  const bool flat_words = unit == 2 || unit == 4 || unit == 8;
  const std::int64_t flat_max = flat_words   ? batched_flat_max_smem_words
                                : unit == 16 ? batched_flat_max_smem_16
                                             : batched_flat_max_smem;
  const bool flat_fits = flat_smem <= flat_max && flat_smem <= dev.smem_optin;
  // Whole matrices per tile unless they are large enough for aligned 2-D tiles to fill at least half (vec16
  // fully fed). H100, 4096 x 100 x 100 fp32: 0.966 of memcpy as vec16 tiles (61 % filled) vs 0.807 as whole
  // matrices; 8192 x 64 x 72 fp16 (28 % filled): 0.483 vs 0.666; misaligned rows (100 x 100 fp16, u8) stay
  // whole matrices (shift16: 0.630 vs 0.686, 0.475 vs 0.560).
  const bool vec16_good = align % 16 == 0 && vec16_tiles_fill(g.rows, g.cols, unit) >= 0.5 && g.rows >= 64 &&
                          g.cols >= 64;
  // Batches of K x n matrices, K <= 16 (16 x 16 uint8, 8 x 8 fp16, ...): whole matrices a tile, register
  // transposes of K x V micro-tiles (skinny16's), where batched_flat would gather bytes.
  if (!compound && packed_batch && !vec16_good) {
    if (const auto m = skinny16_flat_matrices(unit, g.rows, g.cols); m > 0)
      return launch_skinny16_flat(p, unit, g.rows, false, stream);
    if (const auto m = skinny16_flat_matrices(unit, g.cols, g.rows); m > 0)
      return launch_skinny16_flat(p, unit, g.cols, true, stream);
  }
  // Batches of small matrices go whole-matrices-a-tile (above, or batched_flat below) or into boxes: skinny
  // tiles hold one matrix each, so a batch of 1e6 3 x 16 uint8 matrices made 48-byte tiles (0.013 of memcpy)
  // and 77x93x85 batches of 5 x 44 fp32 880-byte ones (0.16).
  constexpr std::int64_t small_batched_max_matrix_bytes = 4095;  // a quarter of skinny16's former 16 KiB tile
  const bool small_batched = g.batch_count() > 1 && matrix_bytes <= small_batched_max_matrix_bytes;
  // n x k <-> k x n with k <= 16 units and the k-unit rows contiguous: AoS <-> SoA streaming.
  constexpr std::int64_t skinny_max_k = 16;
  // n x k -> k x n of 1- and 2-byte units with 16 < k and k-unit rows of <= 36 bytes: the skinny kernel too.
  // H100, same call: u8 3355443 x 20 0.48 -> 0.70, 2796202 x 24 0.26 -> 0.57, 2097152 x 32 0.25 -> 0.40,
  // 1917396 x 35 0.39 -> 0.43, fp16 1864135 x 18 0.60 -> 0.76; longer rows lost (u8 x 40: 0.43 -> 0.39, fp16
  // x 33: 0.64 -> 0.42), as did wider units (fp32 524288 x 32: 0.95 -> 0.39).
  constexpr std::int64_t skinny_mid_aos_max_bytes = 36;
  // Packed batches whose matrices batched_flat stages whole take it over the skinny paths for 16 < k <= 40
  // below, which stage one matrix's k rows a tile. H100, same call (benchmarks/suites/batched_rand.txt and
  // seed 7's): u8 10901 x 38 x 324 0.56 -> 0.85, fp16 16760 x 26 x 154 0.54 -> 0.98, 13355 x 25 x 201 0.59 ->
  // 0.88, fp32 13981 x 24 x 100 0.68 -> 1.02, rgb16 24105 x 32 x 29 0.80 -> 0.98, 12311 x 23 x 79 0.70 ->
  // 0.84. skinny_odd's n x k direction kept its lead (rgb8 4371 x 445 x 23 0.88 vs 0.74, rgb32f 1939 x 206 x
  // 28 1.00 vs 0.96), so it stays.
  const bool flat_batch = packed_batch && flat_fits && g.batch_count() > 1;
  const bool skinny_mid_aos = unit <= 2 && g.cols > skinny_max_k && g.cols * unit <= skinny_mid_aos_max_bytes && !flat_batch;
  // n x k -> k x n of skinny_odd's units with 16 < k <= 40: skinny_odd too. H100, same call
  // (benchmarks/suites/skinny_odd_mid.txt), tiles -> skinny_odd: rgb8 986895 x 17 0.37 -> 0.99, 419430 x 40
  // 0.73 -> 0.96, 7-byte 508400 x 33 0.49 -> 0.89, rgb16 0.76-0.93 -> 0.92-1.00, rgb32f 0.70-0.89 -> 0.88-0.97.
  constexpr std::int64_t skinny_odd_max_k = 40;
  const bool skinny_odd_mid_aos = skinny_odd_applies(unit) && g.cols > skinny_max_k && g.cols <= skinny_odd_max_k;
  if (!compound && !small_batched && unit <= 16 && (g.cols <= skinny_max_k || skinny_mid_aos || skinny_odd_mid_aos) && g.rows > 4 * g.cols &&
      p.in_ld == g.cols * unit) {
    if (skinny16_applies(unit, g.cols)) return launch_skinny16(p, unit, g.cols, true, stream);
    if (skinny_odd_applies(unit)) return launch_skinny_odd(p, unit, g.cols, true, stream);
    switch (piece) {
      case 4: return launch_skinny<4, true>(p, unit, stream);
      case 2: return launch_skinny<2, true>(p, unit, stream);
      default: return launch_skinny<1, true>(p, unit, stream);
    }
  }
  // k x n -> n x k with 16 < k <= 40 units: the generic skinny kernel's 16 KiB windows beat tiles that k rows
  // fill by a third or less. H100, same call (benchmarks/suites/skinny_mid.txt): u8 35 x 1917396 0.19 -> 0.63,
  // fp16 18 x 1864135 0.53 -> 0.68, rgb8 24 x 932068 0.36 -> 0.49, fp32 33 x 508400 0.67 -> 0.78, fp64 23 x
  // 364722 0.67 -> 0.80; pixel48's rows of >= 128 bytes stay there (rgb16 24 x 466034: 0.71 vs 0.63). The
  // other direction (n x k) measured worse with skinny for most units (fp32 524288 x 32: 0.95 -> 0.39).
  // Aligned rows that fill vec16's tile rows to >= 80 % stay on vec16 tiles (H100, same call): fp64 30 x
  // 279620 (30 of 32 rows) 1.00 as tiles vs 0.80 skinny, c128 26 x 161319 (26 of 32) 1.01 vs 0.79; fp64 23
  // rows (72 %) 0.68 vs 0.80; misaligned ones stay on skinny (fp64 29 x 300000: gather16 0.52 vs 0.81).
  constexpr std::int64_t skinny_mid_max_k = 40;
  constexpr double skinny_mid_max_row_fill = 0.8;
  // pixel48's rows of >= 128 bytes go to skinny_odd instead unless they fill >= 60 % of its 64-row tiles. H100,
  // same call (skinny_odd_mid.txt), pixel48 -> skinny_odd: rgb16 24 x 699050 0.71 -> 0.90, 33 x 508400 0.58
  // -> 0.88, rgb32f 24 x 699050 0.75 -> 0.89, 33 x 508400 0.71 -> 0.85; but 40 rows (62 %): rgb16 0.90 -> 0.86,
  // rgb32f 0.93 -> 0.82.
  constexpr double pixel48_min_row_fill = 0.6;
  const bool pixel48_beats_skinny_odd =
      !skinny_odd_applies(unit) || static_cast<double>(g.rows) >= pixel48_min_row_fill * pixel48_policy::tile_rows;
  // 1- and 2-byte k x n with 40 < k <= 96 and output rows off the 16-byte grid: the skinny kernel too where the
  // tiles would fill their rows to < 80 % (shift8's 120-row steps; for 2-byte units the better of shift16's 120-
  // and the short tiles' 56-row steps). H100, same call (benchmarks/suites/skinny_narrow_mid.txt), tiles ->
  // skinny: u8 62 x 541201 0.376 -> 0.611, 69 x 486297 0.403 -> 0.605, 73 x 459649 0.423 -> 0.626, 78 x 430176
  // 0.490 -> 0.613, 57 x 588640 0.522 -> 0.615, fp16 41 x 409201 (73 % filled) 0.494 -> 0.675, 63 x 266305 0.526
  // -> 0.677, 75 x 223696 0.585 -> 0.666, 89 x 188496 (79 %) 0.664 -> 0.667; better filled fp16 tiles kept their
  // lead (52 x 322639, 93 %: 0.755 vs 0.663 skinny; 94 x 178480, 84 %: 0.712 vs 0.669). Aligned fp16 outputs
  // stay on vec16, which runs such shapes at 0.83-1.04 whatever their fill.
  // 8-byte units the same, whatever the fill (they ran gather16: H100, same call, gather16 -> skinny, fp64 59 x
  // 71089 0.694 -> 0.873, 41 x 102300 0.687 -> 0.891, 47 x 89241 0.755 -> 0.875, 63 x 66577 0.719 -> 0.867, 77
  // x 108942 0.792 -> 0.829, 83 x 50533 0.854 -> 0.865); 4-byte units only where gather16's tiles fill < 65 % of
  // their rows: skinny holds ~0.79 for fp32 there (63 x 133153 0.700 -> 0.794, 65 x 129056 0.714 -> 0.794), while
  // better filled gather16 tiles run 0.82-0.90 (53 x 158275 0.880 vs 0.787, 90 x 93206 0.900 vs 0.795).
  constexpr std::int64_t skinny_narrow_max_k = 96;
  constexpr double skinny_narrow_fp32_max_fill = 0.65;
  constexpr std::int64_t shift8_u8_step_rows = tile8_shape<1>::shift_step_rows;
  const double narrow_tile_row_fill =
      unit == 1 ? tile_side_fill(g.rows, shift8_u8_step_rows)
                : std::max(tile_side_fill(g.rows, vec16_shape<2, transpose2d_shift16_policy<2>>::shift_step_rows),
                           tile_side_fill(g.rows, vec16_shape<2, transpose2d_short_policy<2>>::shift_step_rows));
  const bool narrow_unit_takes_skinny =
      (unit <= 2 && narrow_tile_row_fill < skinny_mid_max_row_fill) || unit == 8 ||
      (unit == 4 && tile_side_fill(g.rows, gather16_tile(4).side) < skinny_narrow_fp32_max_fill);
  const bool skinny_narrow_mid = out_align_bits % 16 != 0 && g.rows > skinny_mid_max_k &&
                                 g.rows <= skinny_narrow_max_k && narrow_unit_takes_skinny;
  const bool skinny_mid = ((g.rows > skinny_max_k && g.rows <= skinny_mid_max_k) || skinny_narrow_mid) && !flat_batch &&
                          !(pixel48_applies(unit) && g.rows * unit >= 128 && pixel48_beats_skinny_odd) &&
                          !(align % 16 == 0 && vec16_row_fill(g.rows, unit) >= skinny_mid_max_row_fill);
  if (!compound && !small_batched && unit <= 16 && (g.rows <= skinny_max_k || skinny_mid) && g.cols > 4 * g.rows &&
      p.out_ld == g.rows * unit) {
    if (skinny16_applies(unit, g.rows)) return launch_skinny16(p, unit, g.rows, false, stream);
    if (skinny_odd_applies(unit)) return launch_skinny_odd(p, unit, g.rows, false, stream);
    switch (piece) {
      case 4: return launch_skinny<4, false>(p, unit, stream);
      case 2: return launch_skinny<2, false>(p, unit, stream);
      default: return launch_skinny<1, false>(p, unit, stream);
    }
  }

  // Packed batches of 2-byte matrices with 8-byte aligned rows that vec16 would not take (fp16 100 x 100:
  // 200-byte rows; 64 x 72: 28 % of vec16's 128 x 128 tiles): matrices of up to flat_u16_max_matrix_bytes go
  // whole a tile (batched_flat, below), larger ones take vec8's 64 x 64-unit tiles. H200, same call, vec8 (as
  // chosen below) -> batched_flat: 4096 x 100 x 100 0.735 -> 0.820, 3000 x 140 x 100 0.742 -> 0.856, 5000 x 76
  // x 100 0.647 -> 0.948, 4096 x 84 x 112 0.735 -> 0.834, 8192 x 64 x 72 0.730 -> 0.785, 2000 x 180 x 124 (44.6
  // KB) 0.764 -> 0.799, 3300 x 100 x 128 0.851 -> 0.849; 700 x 300 x 200 (120 KB) 0.868 -> 0.576, 300 x 500 x 300
  // 0.876 -> 0.606. (On the H100, before batched_flat's rework in the eighth session, whole matrices had lost:
  // 4096 x 100 x 100 0.684 vs 0.761-0.783, 8192 x 64 x 72 0.668 vs 0.945.)
  // vec8's tiles here are 64 x 128 units of 512 threads (transpose2d_tile8_wide_policy<2>): every matrix that
  // reaches them has more than flat_u16_max_matrix_bytes (smaller ones always fit batched_flat's stage), and on
  // the H100 the 64 x 64-unit tiles lost to them from 20000-byte matrices on.
  // H100, same calls, 64 x 64 -> 64 x 128 tiles: every batch of >= 20000-byte matrices measured gained or tied
  // (100 x 100 0.765 -> 0.916, 104 x 100 0.799 -> 0.928, 108 x 100 0.738 -> 0.920, 140 x 100 0.747 -> 0.890,
  // 100 x 120 0.734 -> 0.758, 100 x 128 0.740 -> 0.746, 300 x 200 and 500 x 300 0.72 both), every one under
  // it lost (96 x 100 0.955 -> 0.910, 100 x 92 0.928 -> 0.898, 84 x 112 0.912 -> 0.883, 76 x 100 0.841 ->
  // 0.802, 100 x 60 0.785 -> 0.654, 64 x 72 0.946 -> 0.895). Why the size separates them is not known yet.
  // Checked on ten other batches (same call, vs 64 x 64 everywhere): 100 x 116 0.736 -> 0.831, 156 x 100 0.731
  // -> 0.912, 180 x 124 0.718 -> 0.733, 100 x 100 0.783 -> 0.912, 300 x 200 0.720 -> 0.750; 120 x 84 lost
  // (0.957 -> 0.919); under 20000 bytes (92 x 80, 88 x 104, 64 x 72) and vec16's 112 x 96 unchanged.
  // H200, same call, 64 x 64 -> 64 x 128: 700 x 300 x 200 0.878 -> 0.868, 300 x 500 x 300 0.724 -> 0.876.
  constexpr std::int64_t flat_u16_max_matrix_bytes = std::int64_t{48} << 10;
  const bool u16_whole_matrices = flat_fits && matrix_bytes <= flat_u16_max_matrix_bytes;
  if (!compound && packed_batch && unit == 2 && align % 8 == 0 && !vec16_good && !u16_whole_matrices &&
      vec16_tiles_filled(g.rows, g.cols, unit))
    return launch_tiles8<2, false, transpose2d_tile8_wide_policy<2>>(p, compound, stream);
  // Many small packed matrices: whole matrices per tile, flat 16-byte accesses on both sides.
  if (!compound && packed_batch && flat_fits && unit <= 16 && !vec16_good) {
    const std::uint64_t piece_align = lowbit(reinterpret_cast<std::uintptr_t>(d_in) |
                                             reinterpret_cast<std::uintptr_t>(d_out) | static_cast<std::uint64_t>(unit));
    switch (std::min<std::uint64_t>(piece_align, 4)) {
      case 4: return launch_batched_flat<4>(p, unit, g.batch_extent[0], stream);
      case 2: return launch_batched_flat<2>(p, unit, g.batch_extent[0], stream);
      default: return launch_batched_flat<1>(p, unit, g.batch_extent[0], stream);
    }
  }
  // Tiles with a side under 128 bytes (N-d permutations whose fastest axes block each other): a box of
  // several axes with longer runs, when one exists (plan/box.hpp).
  // Elements of other sizes (3, 6, 12 ... bytes) are boxed as their words (box_unit_bytes).
  const std::int64_t box_unit = box_unit_bytes(planned);
  if (box_plan box; ((reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out)) %
                     static_cast<std::uintptr_t>(box_unit)) == 0 &&
                     make_box(planned, box,
                              box_volume_cap(g.rows * g.cols * g.batch_count() * (unit / box_unit), dev.sm_count,
                                             box_volume_limit(box_unit))) &&
                     box_fits(box, dev))
    return launch_box(box, d_in, d_out, input_span_bytes(g), stream, dev);
  // Small misaligned problems of 1-byte units: shift16's 128 x 128-byte tiles (64 threads, each a long chain
  // of realignment steps) leave most SMs idle; words' 64 x 64 tiles (256 threads) give four times as many.
  // H100, u8 100 x 300 (3 shift16 tiles): 10.7 us -> 6.7 us. Aligned vec16 tiles keep their lead (u8
  // 1024^2: 5.7 us vs 8.5 us as words; fp16 8 x 32 x 784: 4.9 vs 12.9 us).
  const bool few_tiles16 =
      unit == 1 && ceil_div(g.rows, 128) * ceil_div(g.cols, 128) * g.batch_count() * 2 < dev.sm_count;
  // Whether the units tiles (one access a unit, below) take the problem: 4- and 8-byte units on their own grid
  // but off the 16-byte one (compound sides too, better filled), 1- and 2-byte units on plain problems of up to
  // units_narrow_max_bytes. The 1-byte rules below leave these problems to them.
  const std::int64_t problem_bytes = g.rows * g.cols * g.batch_count() * unit;
  const bool narrow_units = unit <= 2 && !compound && align % 16 != 0 && problem_bytes <= units_narrow_max_bytes;
  const bool units_tiles =
      (unit == 4 || unit == 8 || narrow_units) && align % static_cast<std::uint64_t>(unit) == 0 &&
      (!compound || align % 16 != 0) &&
      units_tiles_fill(g.rows, g.cols, unit) >= (compound ? units_compound_min_fill : units_min_fill);
  // 2-byte units on misaligned sides that shift16's tiles fit badly: gather16's flat tiles (u16_prefers_flat_gather).
  // 1-byte units lost with them (H100, u8 161[7*23] x 1900 compound 0.387 -> 0.317) and keep vec8 / shift8.
  if (unit == 2 && piece == 2 && align % 16 != 0 && g.rows >= 16 && g.cols >= 16 &&
      u16_prefers_flat_gather(g.rows, g.cols, compound))
    return launch_gather16<2>(p, unit, compound, stream, /*flat=*/true);
  // 1-byte units: vec8 / shift8 (8-byte chunks, a third of vec16's registers a thread, ~2.5x the warps an SM).
  // H100, same call, vec16 -> vec8: u8 8192^2 0.922 -> 0.940, 32768 x 4096 0.926 -> 0.936, 256 x 624 x 480
  // 0.758 -> 0.780, NCHW -> NHWC 64x1024x56x56 0.960 -> 0.972 (8-byte aligned pitches that are not 16-byte
  // aligned left shift16 too). shift16 -> shift8 on misaligned matrices (column tiles fastest, before the tile
  // order below): 4097 x 3001 0.753 -> 0.860, 6001 x 4097 0.687 -> 0.751, batches 228 x 620 x 475 0.472 ->
  // 0.747, 64 x 1001 x 1003 0.614 -> 0.794, N-d 500[250*2] x 496[248*2] x 2164 0.405 -> 0.578. On the H100,
  // batches whose output rows are 16-byte aligned had kept shift16 (2336 x 478 x 481 with 1123616-byte output
  // pitch: 0.704 -> 0.609 as shift8); on the H200 they take shift8 too (the last rule of this block).
  if (unit == 1 && vec16_tiles_filled(g.rows, g.cols, unit)) {
    if (align % 8 == 0) {
      // Large ones whose input the copy engine can stage (16-byte aligned rows, sm_90): bulk8, vec8 with each
      // tile's loads one tensor copy, in panel order (tuning/bulk.hpp).
      if (status launched; g.rows * g.cols * g.batch_count() >= bulk_min_bytes &&
                           try_launch_bulk8(p, dev, compound, stream, launched))
        return launched;
      // 512-thread tiles (256 x 128 bytes) on problems of at least the L2's size; smaller ones keep twice as
      // many 256-thread tiles (see transpose2d_tile8_wide_policy).
      if (g.rows * g.cols * g.batch_count() >= vec8_wide_min_bytes)
        return launch_tiles8<1, false, transpose2d_tile8_wide_policy<1>>(p, compound, stream);
      return launch_tiles8<1, false>(p, compound, stream);
    }
    const bool out_aligned16 = out_align_bits % 16 == 0;
    // With row tiles fastest (below), shift8 while its resident tiles (4 an SM) still span >= 4 column strips,
    // i.e. <= one tile row an SM; taller matrices had kept shift16 on the H100 (same call: 16383 x 16385 0.773
    // as shift16 vs 0.672, 32767 x 2047 0.757 vs 0.736; 8191 x 8193 0.739 vs 0.789) and take the last rule of
    // this block now.
    const bool shift8_rows = !p.rows_fastest || ceil_div(g.rows, shift8_u8_step_rows) <= dev.sm_count;
    // Single matrices of >= 48 MiB take vec8's 512-thread tiles (256 x 128 bytes) when they have at least as
    // many rows as columns or more than half an SM's worth of tile rows (where the 256-thread tiles vary between
    // 0.68 and 0.83 from one shape to the next), up to one tile row an SM. H100, same call, 256 -> 512
    // threads: u8 14009 x 14011 0.678 -> 0.819, 10007 x 10009 0.739 -> 0.814, 9001 x 9007 0.803 -> 0.826,
    // 12007 x 6007 0.776-0.810 -> 0.829-0.834, 16001 x 4001 0.739 -> 0.826, 8001 x 24001 0.704 -> 0.818, 8193 x
    // 8191 0.820 -> 0.829; 7001 x 7003, 7919 x 7907, 11003 x 11001 the same; taller than one shift8 tile row
    // an SM (shift16 before): 16383 x 16385 0.763-0.769 -> 0.818-0.825, 20011 x 3001 0.743 -> 0.830, 24001 x
    // 8001 0.745 -> 0.801. Wide matrices of fewer rows keep 256 threads (6007 x 12007 0.855 vs 0.818, 3001 x
    // 20011 0.843 vs 0.791), as do batches (64 x 1001 x 1003 0.787 vs 0.649, 228 x 620 x 475 0.752 vs 0.64).
    // With their branch-free interior tiles (below), the 512-thread tiles also win on single matrices of
    // 16-48 MiB and on wider ones of >= 48 MiB once they have >= 12 tile rows. H100, same call, 256 threads
    // (general code) -> 512 (branch-free): u8 7001 x 7003 0.818 -> 0.889, 6007 x 12007 0.841 -> 0.895, 16383 x
    // 2049 0.727 -> 0.911, 8191 x 4097 0.870 -> 0.904, 9001 x 3001 0.860 -> 0.879, 4097 x 8193 0.848 -> 0.863;
    // with fewer tile rows they lose (2049 x 16383 0.866 -> 0.847, 1001 x 65537 0.804 -> 0.749).
    using wide8 = tile8_shape<1, transpose2d_tile8_wide_policy<1>>;
    constexpr std::int64_t wide8_step_rows = wide8::shift_step_rows;
    constexpr std::int64_t wide8_min_bytes = std::int64_t{16} << 20;
    constexpr std::int64_t wide8_min_tile_rows = 12;
    const std::int64_t wide8_tile_rows = ceil_div(g.rows, wide8_step_rows);
    const bool shift8_wide =
        !compound && g.batch_count() == 1 && (!p.rows_fastest || wide8_tile_rows <= dev.sm_count) &&
        ((g.rows * g.cols >= vec8_wide_min_bytes &&
          (g.rows >= g.cols || 2 * ceil_div(g.rows, shift8_u8_step_rows) > dev.sm_count)) ||
         (g.rows * g.cols > wide8_min_bytes && wide8_tile_rows >= wide8_min_tile_rows));
    if (!few_tiles16 && !out_aligned16 && shift8_wide)
      return launch_tiles8<1, true, transpose2d_tile8_wide_policy<1>>(p, compound, stream);
    // Interior tiles branch-free (transpose2d_tile8_kernel's Fast) on plain sides, 512- and 256-thread tiles alike.
    // H100, same call, general -> branch-free: 512 threads, u8 8191 x 8193 0.826 -> 0.894, 7919 x 7907 0.834 ->
    // 0.903, 12007 x 5003 0.824 -> 0.885, 16383 x 16385 0.823 -> 0.881; 256 threads, 4097 x 3001 0.89 -> 0.94,
    // 2047 x 2049 0.935 -> 0.982, 1999 x 3001 0.946 -> 1.006, but on the H100 larger ones lost with either half
    // (loads or stores) alone, on the same DRAM traffic and 25 % fewer instructions (issue 68 % -> 50 %): 4097 x
    // 8193 0.860 -> 0.784, 1001 x 65537 0.807 -> 0.702, batches 16 x 2001 x 2003 0.848 -> 0.740, 5003 x 4999 (25
    // MB) 0.884 -> 0.836, so the 256-thread tiles took them only up to 16 MiB there. On the H200 they win at any
    // size (same call, 2 rounds, `h200-shift8-branch-free.txt`): 2049 x 16383 0.704 -> 0.818, 1001 x 65537 0.633
    // -> 0.734, batches 16 x 2001 x 2003 0.674 -> 0.789, 64 x 1001 x 1003 0.603 -> 0.702, 228 x 620 x 475 0.571 ->
    // 0.637, 8 x 3001 x 2999 0.666 -> 0.785, N-d 7084 x 202 x 375 0.546 -> 0.596; nothing lost more than 0.005.
    if (!few_tiles16 && !out_aligned16 && shift8_rows) return launch_tiles8<1, true>(p, compound, stream);
    // What the rules above leave (outputs on the 16-byte grid, tall matrices with row tiles first, compound
    // sides), beyond the plain problems the units tiles take (below): shift8 too, on the H200. The rules above
    // were measured on the H100, where shift16's 64-thread tiles (~168 registers, 18.75 % occupancy) still kept
    // up with the memory; the H200's needs more bytes in flight. H200, same call (benchmarks/suites/
    // u8_shift16_reach.txt, benchmarks/results/h200-u8-shift8-vs-shift16.txt), shift16 -> shift8 256-thread /
    // 512-thread tiles: 2336 x 478 x 481 (N-d, output rows aligned) 0.546 -> 0.635 / 0.664, 8192 x 4001 0.585 ->
    // 0.701 / 0.727, 32767 x 2047 0.617 -> 0.726 / 0.795, 65537 x 1001 0.602 -> 0.716 / 0.797, batched 16 x 4096 x
    // 1003 0.598 -> 0.647 / 0.710, 64 x 1024 x 1001 0.551 -> 0.630 / 0.593; compound sides 0.53-0.61 -> 0.60-0.66
    // / 0.59-0.64 (N-d 1000x3x17x1001 axes 3,0,2,1 0.532 -> 0.644 / 0.609). Hence 512-thread tiles on plain
    // sides with at least shift8_wide_reach_min_tile_rows of their tile rows (64 x 1024 x 1001 has 5), 256-thread
    // ones on compound sides and fewer rows.
    constexpr std::int64_t shift8_wide_reach_min_tile_rows = 8;
    if (!few_tiles16 && !units_tiles) {
      if (!compound && wide8_tile_rows >= shift8_wide_reach_min_tile_rows)
        return launch_tiles8<1, true, transpose2d_tile8_wide_policy<1>>(p, compound, stream);
      return launch_tiles8<1, true>(p, compound, stream);
    }
  }
  // Large aligned problems of 2-, 4- and 8-byte units whose vec16 tiles are mostly full: bulk16, the same tiles
  // each staged by one tensor copy, in panel order (tuning/bulk.hpp; try_launch_bulk16 checks the alignment).
  constexpr double bulk16_min_fill = 0.8;
  if (status launched; g.rows * g.cols * unit * g.batch_count() >= bulk_min_bytes &&
                       vec16_tiles_fill(g.rows, g.cols, unit) >= bulk16_min_fill &&
                       !tiles16_short(p.rows, p.cols, unit, false, compound) &&
                       try_launch_bulk16(p, unit, dev, compound, stream, launched))
    return launched;
  // vec16_tiles_filled is false for units other than 1, 2, 4, 8, 16 bytes.
  if (align % 16 == 0 && vec16_tiles_filled(g.rows, g.cols, unit)) return launch_tiles16<false>(p, unit, compound, stream, dev.sm_count);
  // units: 4- and 8-byte units on rows off the 16-byte grid (but on their own), one access a unit: no
  // realignment instructions, which made shift16 and gather16 issue-bound on the H200 (fp64 8191 x 8193:
  // 234 M instructions for 1.05 GB, ~150 a 16-byte chunk, DRAM at 70 %). H200, same call
  // (benchmarks/suites/misaligned_units.txt), shift16 / gather16 -> units: fp64 8191 x 8193 0.818 -> 0.923,
  // 7919 x 7907 0.825 -> 0.930, 1001 x 65537 0.642 -> 0.939, 16383 x 16385 0.811 -> 0.902, 5003 x 777 0.739 ->
  // 1.032, 100 x 50001 0.674 -> 0.990, batched 64 x 301 x 503 0.601 -> 0.994; fp32 up to units_u4_max_bytes
  // 4097 x 3001 0.879 -> 0.914, 2047 x 2049 0.957 -> 1.074, 5003 x 777 0.951 -> 1.044, 64 x 301 x 503 0.774 ->
  // 0.950. Tiles of 128 x 32, 32 x 128, 32 x 64 units or 512 threads lost to 64 x 64 / 64 x 32 everywhere.
  // Larger fp32 matrices lost with units tiles (8191 x 8193 0.821 -> 0.795: 4 bytes a lane, twice fp64's
  // requests for the bytes) and take unit_pairs, the same tiles moved as 8-byte pairs on each row's own grid.
  // H200, same call, shift16 (> 64 MiB) or units (<= 64 MiB) -> unit_pairs: fp32 8191 x 8193 0.817 -> 0.863,
  // 7919 x 7907 0.821 -> 0.854, 12007 x 5003 0.813 -> 0.842, 3001 x 20011 0.827 -> 0.851, 4097 x 3001 0.851 ->
  // 0.899, batched 64 x 301 x 503 0.879 -> 0.892, 20011 x 3001 0.816 -> 0.810; under units_u4_max_bytes pairs
  // lost (2047 x 2049 1.037 -> 0.982, 519 x 1031 1.230 -> 1.088, 5003 x 777 1.005 -> 0.961).
  // The same tiles for compound sides (N-d permutations whose row or column side is a set of axes; the tiles
  // tabulate their rows' input and columns' output offsets), where gather16 ran them, at a higher fill: H200, same
  // call (N-d suite's misaligned compound rows and five of our own), gather16 -> unit_pairs (fp32) / units
  // (fp64): fp32 2120[40*53] x 114 x 560 0.708 -> 0.895, 19810[566*7*5] x 678 0.711 -> 0.868, 63[7*3*3] x
  // 1209[403*3] 0.620 -> 0.819, 9060[...] x 990 0.733 -> 0.851, 17126[8563*2] x 7837 0.727 -> 0.805, 753[251*3] x
  // 469 0.751 -> 0.813, 77[11*7] x 613 x 400 0.786 -> 0.891, 21021[1001*21] x 999 0.810 -> 0.829; fp64
  // 4005[801*5] x 1403 0.716 -> 0.929, 14985[1665*9] x 1001 0.620 -> 0.930; fp32 72[36*2] x 1334[29*46] x 1419
  // (tiles 56 % full: half the row tiles hold 8 of 64 rows) lost, 0.797 -> 0.618, hence units_compound_min_fill.
  // Compound sides on the 16-byte grid were not measured with them and go on to the kernels below, as before.
  // 1- and 2-byte units off the 16-byte grid too, plain problems of up to units_narrow_max_bytes
  // (tuning/transpose2d.hpp): there the units tiles beat shift16 / shift8. (units_tiles: computed before the
  // 1-byte rules, which leave these problems to this block.)
  if (units_tiles) {
    // Every input row 4 bytes off the 8-byte grid (a view from an odd column of an aligned matrix: strides
    // that are multiples of 8 bytes, a base that is not) and the output on the 16-byte grid: units at any size,
    // where unit_pairs loads each row's first unit on its own. H200, same call, unit_pairs -> units: fp32 8192^2
    // input +4 0.864 -> 0.900, 4096 x 16384 0.863 -> 0.890, 16384 x 4096 0.861 -> 0.901, 10000^2 0.839 ->
    // 0.882, 6000^2 +12 0.865 -> 0.910, batched 16 x 2048^2 0.878 -> 0.950 (cuBLAS geam: 0.891 at 8192^2 +4).
    // Outputs 8- but not 16-byte aligned lost (8000 x 12000 input +4, output +8: 0.838 -> 0.713), as did units
    // for the mirror case (output +4, input aligned: 0.880 -> 0.747) and for odd pitches (8191 x 8193 0.825 ->
    // 0.740).
    const bool inputs_off_the_pair_grid =
        in_stride_bits % 8 == 0 && reinterpret_cast<std::uintptr_t>(d_in) % 8 == 4 && out_align_bits % 16 == 0;
    auto units_tiles = [&]<bool Compound>() {
      auto units = [&]<int U>() {
        using P = transpose2d_units_policy<U>;
        return launch_unit_tiles<P>(p, transpose2d_units_kernel<U, P, Compound>, "transpose2d_units launch", stream);
      };
      switch (unit) {
        case 1: return units.template operator()<1>();
        case 2: return units.template operator()<2>();
        case 8: return units.template operator()<8>();
        default: break;
      }
      if (problem_bytes <= units_u4_max_bytes || inputs_off_the_pair_grid) return units.template operator()<4>();
      using Pairs = transpose2d_unit_pairs_policy;
      return launch_unit_tiles<Pairs>(p, transpose2d_unit_pairs_kernel<Pairs, Compound>,
                                      "transpose2d_unit_pairs launch", stream);
    };
    return compound ? units_tiles.template operator()<true>() : units_tiles.template operator()<false>();
  }
  // shift16: the same tiles when pointers or pitches are not 16-byte aligned (8191 x 8193, shifted views):
  // realigned in registers, so global accesses stay aligned 16-byte vectors. For 1- and 2-byte units it beats
  // gather16 (which gathers shared memory a byte or a half at a time) on every shape measured; for >= 4-byte
  // units only on large matrices: its tiles overlap by one micro-tile and its first, last and edge tiles take
  // the checked paths, which dominate when a side has few tiles (H100, N-d suite fp32: 312 x 679 x 633 0.83
  // vs gather16 0.93, 19810 x 678 0.83 vs 0.88; 4097 x 3001 0.90 vs 0.87, 101260 x 1325 0.87 vs 0.77).
  if (vec16_tiles_filled(g.rows, g.cols, unit) && !few_tiles16 &&
      (unit <= 2 || (g.rows >= shift16_min_side && g.cols >= shift16_min_side)))
    return launch_tiles16<true>(p, unit, compound, stream, dev.sm_count);
  // skinny_odd's tiles (K columns of ~160-224 bytes, unpacked a period at a time) for the units pixel48 does
  // not take: 5, 7, 10, 14 bytes (fused axes: 5 x u8, 7 x fp16, ...), which gather16 gathered a byte or a half
  // at a time. H100, same call, gather16 -> skinny_odd tiles: 5-byte 4096 x 4096 0.65 -> 0.89, 7-byte 4096 x
  // 4096 0.63 -> 0.84, 3001 x 4097 0.64 -> 0.86, 10-byte 0.71 -> 0.89, 14-byte 2048 x 3001 0.62 -> 0.83. For
  // pixel48's units they tied or lost (RGB8 3840 x 2160 0.88 -> 0.73, RGB16 4097 x 3001 0.92 -> 0.87; RGB32F
  // gained 0.91 -> 0.97 at 4K), so those stay on pixel48.
  // pieces: odd units of 3-15 bytes on the 16-byte grid as register permutes of 4 x 4-unit micro-tiles
  // (tuning/pieces.hpp; 3-byte units up to pieces_policy::rgb8_max_bytes); off the grid 5- and 7-byte units take
  // skinny_odd's tiles, 9-15 bytes gather16, 3 bytes pixel48.
  if (!compound && pieces_applies(unit, problem_bytes, dev) && align % 16 == 0 && g.rows >= 16 && g.cols >= 16)
    return launch_pieces(p, unit, dev, stream);
  if (!compound && skinny_odd_applies(unit) && !pixel48_applies(unit) && g.rows >= 16 && g.cols >= 16)
    return launch_skinny_odd_tiles(p, unit, stream);
  // pixel48: 3-, 6-, 12-, 24-byte units (RGB pixels) as register permutes of 48-byte row pieces.
  if (!compound && pixel48_applies(unit) && g.rows >= 16 && g.cols >= 16) return launch_pixel48(p, unit, out_align_bits % 16 == 0, dev, stream);
  // gather16: 16-byte global accesses whatever the alignment or unit size, when both sides fill its tiles.
  // Units of 17-64 bytes too (rows of 32 or 64 chunks), where the words kernel moved 4- or 8-byte words (or
  // bytes). H100, same call (benchmarks/suites/wide_units.txt), words -> gather16: fp32 5802 x 3305 x 7
  // axes 1,0,2 (28 B) 0.550 -> 0.900, 6000 x 4000 x 5 (20 B) 0.542 -> 0.947, 44 B 0.544 -> 0.927, fp16 x 13
  // (26 B) 0.290 -> 0.863, u8 x 23 0.150 -> 0.707, 32 B 4097 x 3001 0.790 -> 0.919, fp64 x 5 (40 B) 0.895 ->
  // 0.939, batched 32 x 1000 x 500 x 5 fp32 0.526 -> 0.974; 64 B 2500^2 0.955 -> 0.944 the only loss. Rows of
  // 65-128 bytes, which the rows kernel gathered one a time, are units here too (plan/select.cpp): fp32 x 20
  // (80 B) 0.749 -> 0.931, fp64 x 9 0.652 -> 0.889, u8 x 100 0.544 -> 0.891, fp32 x 31 0.686 -> 0.922.
  // Flat tiles where square ones fit the sides badly (gather16_prefers_flat): H100, same call
  // (benchmarks/suites/gather16_fill.txt), square -> flat: N-d fp32 63[7*3*3] x 1209[403*3] 0.542 -> 0.780, fp64
  // 0.517 -> 0.879, 65[13*5] x 1100 0.581 -> 0.847, fp64 35[5*7] x 1200 0.462 -> 0.829, strided batches 4000 x 63
  // x 63 0.508 -> 0.675; the N-d suite's fp32 r6 n4 0.769 -> 0.916; no 4-16-byte row of the 2-D, N-d, probe,
  // nd_small and batched_rand suites lost more than 4 %.
  if (g.rows >= 16 && g.cols >= 16 && unit <= gather16_max_unit && !few_tiles16) {
    const bool flat = gather16_prefers_flat(unit, g.rows, g.cols);
    switch (piece) {
      case 4: return launch_gather16<4>(p, unit, compound, stream, flat);
      case 2: return launch_gather16<2>(p, unit, compound, stream, flat);
      default: return launch_gather16<1>(p, unit, compound, stream, flat);
    }
  }
  std::int64_t a = wb;
  while (a > 1 && align % static_cast<std::uint64_t>(a) != 0) a /= 2;
  p.unit_words = unit / a;
  switch (a) {
    case 1: return launch_words<1>(p, compound, stream);
    case 2: return launch_words<2>(p, compound, stream);
    case 4: return launch_words<4>(p, compound, stream);
    case 8: return launch_words<8>(p, compound, stream);
    case 16: return launch_words<16>(p, compound, stream);
    default: return status(status_code::internal, "transpose2d: bad word size");
  }
}

}  // namespace xpose::detail
