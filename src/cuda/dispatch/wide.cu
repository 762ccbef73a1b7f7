// wide dispatch: 2-D transposes of units of at least wide_min_unit_bytes whose every pointer, stride and unit
// size is a multiple of 8 bytes -> transpose2d_wide_kernel<G> (kernels/wide.cuh, tuned by tuning/wide.hpp),
// G = 16 when that divides them all, else 8. Called from launch_transpose2d (dispatch/transpose2d.cu)
// before any other family, and from launch_rows (dispatch/rows.cu) for rows of 129-4096 bytes that are the
// units of a 2-D transpose (rows_as_transpose); what it declines (a 4-byte grid or finer, too many axes) goes on
// to gather16 or to the rows kernels.
#include <algorithm>
#include <cmath>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/wide.cuh"

namespace xpose::detail {

namespace {

// Near-square tiles of at most `budget` units, sides within the matrix, then balanced so that a side's last
// tile is not a sliver: runs of tile_cols U bytes in the input rows and tile_rows U in the output rows.
void wide_tile(std::int64_t rows, std::int64_t cols, std::int64_t budget, unsigned& tile_rows, unsigned& tile_cols) {
  const std::int64_t side_max = wide_policy::max_side;
  const auto balance = [](std::int64_t extent, std::int64_t side) {
    const std::int64_t tiles = (extent + side - 1) / side;
    return (extent + tiles - 1) / tiles;
  };
  const auto s = static_cast<std::int64_t>(std::sqrt(static_cast<double>(budget)));
  std::int64_t tc = std::clamp<std::int64_t>(s, 1, std::min(cols, side_max));
  std::int64_t tr = std::clamp<std::int64_t>(budget / tc, 1, std::min(rows, side_max));
  tc = std::clamp<std::int64_t>(budget / tr, 1, std::min(cols, side_max));  // a short matrix leaves room
  tc = balance(cols, tc);
  tr = balance(rows, std::clamp<std::int64_t>(budget / tc, 1, std::min(rows, side_max)));
  tile_rows = static_cast<unsigned>(tr);
  tile_cols = static_cast<unsigned>(tc);
}

template <int G>
status launch(wide_params p, bool compound, cudaStream_t stream) {
  const std::int64_t budget = wide_policy::tile_bytes(G) / p.unit_bytes;  // >= 1: try_launch_wide
  wide_tile(p.rows, p.cols, budget, p.tile_rows, p.tile_cols);
  p.unit_chunks = static_cast<unsigned>(p.unit_bytes / G);
  const std::int64_t tr = ceil_div(p.rows, p.tile_rows), tc = ceil_div(p.cols, p.tile_cols);
  p.tiles_r = fast_divmod(static_cast<std::uint64_t>(tr));
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tc));
  p.tiles_total = tr * tc * p.tiles_total;  // the batch count on entry
  p.line_div = div32(p.tile_rows * p.unit_chunks);
  p.unit_div = div32(p.unit_chunks);
  const unsigned grid = grid_for(p.tiles_total);
  if (compound) transpose2d_wide_kernel<G, true><<<grid, wide_policy::threads, 0, stream>>>(p);
  else transpose2d_wide_kernel<G, false><<<grid, wide_policy::threads, 0, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_wide launch");
  return status::ok();
}

}  // namespace

status try_launch_wide(const plan_geometry& g, const void* d_in, void* d_out, cudaStream_t stream,
                       const device_info& dev, bool& launched) {
  (void)dev;  // tiles are sized by the unit alone
  launched = false;
  const std::int64_t wb = g.word_bytes, unit = g.elem_words * wb;
  if (unit < wide_min_unit_bytes || g.rows < 1 || g.cols < 1) return status::ok();
  if (g.row_rank > transpose2d_max_side_rank || g.col_rank > transpose2d_max_side_rank ||
      g.batch_rank > transpose2d_max_batch_rank)
    return status::ok();
  wide_params p{};
  p.in = static_cast<const unsigned char*>(d_in);
  p.out = static_cast<unsigned char*>(d_out);
  p.rows = g.rows;
  p.cols = g.cols;
  p.in_ld = g.in_ld * wb;
  p.out_ld = g.out_ld * wb;
  p.unit_bytes = unit;
  std::uint64_t bits = reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out) |
                       static_cast<std::uint64_t>(unit) | static_cast<std::uint64_t>(p.in_ld) |
                       static_cast<std::uint64_t>(p.out_ld);
  p.batch.rank = g.batch_rank;
  for (int i = 0; i < g.batch_rank; ++i) {
    p.batch.extent[i] = fast_divmod(static_cast<std::uint64_t>(g.batch_extent[i]));
    p.batch.in_stride[i] = g.batch_in_stride[i] * wb;
    p.batch.out_stride[i] = g.batch_out_stride[i] * wb;
    bits |= static_cast<std::uint64_t>(p.batch.in_stride[i]) | static_cast<std::uint64_t>(p.batch.out_stride[i]);
  }
  p.row_map.rank = g.row_rank;
  for (int k = 0; k < g.row_rank; ++k) {
    p.row_map.extent[k] = fast_divmod(static_cast<std::uint64_t>(g.row_extent[k]));
    p.row_map.stride[k] = g.row_in_stride[k] * wb;
    bits |= static_cast<std::uint64_t>(p.row_map.stride[k]);
  }
  p.col_map.rank = g.col_rank;
  for (int k = 0; k < g.col_rank; ++k) {
    p.col_map.extent[k] = fast_divmod(static_cast<std::uint64_t>(g.col_extent[k]));
    p.col_map.stride[k] = g.col_out_stride[k] * wb;
    bits |= static_cast<std::uint64_t>(p.col_map.stride[k]);
  }
  const std::uint64_t chunk = bits == 0 ? 16 : std::min<std::uint64_t>(lowbit(bits), 16);
  if (chunk < wide_min_chunk_bytes || unit > wide_policy::tile_bytes(static_cast<int>(chunk))) return status::ok();
  p.tiles_total = g.batch_count();
  launched = true;
  const bool compound = g.compound();
  return chunk == 16 ? launch<16>(p, compound, stream) : launch<8>(p, compound, stream);
}

}  // namespace xpose::detail
