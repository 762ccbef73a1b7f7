// wide dispatch: 2-D transposes of units of at least wide_min_unit_bytes whose every pointer, stride and unit
// size is a multiple of 8 bytes -> transpose2d_wide_kernel<G> (kernels/wide.cuh, tuned by tuning/wide.hpp),
// G = 16 when that divides them all, else 8; units of >= wide_gather_min_unit_bytes on the 4-byte grid ->
// transpose2d_wide_gather_kernel<4>. Called from launch_transpose2d (dispatch/transpose2d.cu) before any other
// family, and from launch_rows (dispatch/rows.cu) for rows of 129-4096 bytes that are the units of a 2-D
// transpose (rows_as_transpose); what it declines (shorter units on the 4-byte grid, a 2- or 1-byte grid, too
// many axes) goes on to gather16 or to the rows kernels.
#include <algorithm>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/wide.cuh"

namespace xpose::detail {

namespace {

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

template <int W>
status launch_gather(wide_params p, bool compound, cudaStream_t stream) {
  wide_gather_tile(p.rows, p.cols, p.unit_bytes, p.tile_rows, p.tile_cols);
  p.unit_chunks = wide_gather_row_chunks(p.tile_rows * p.unit_bytes);
  const std::int64_t tr = ceil_div(p.rows, p.tile_rows), tc = ceil_div(p.cols, p.tile_cols);
  p.tiles_r = fast_divmod(static_cast<std::uint64_t>(tr));
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tc));
  p.tiles_total = tr * tc * p.tiles_total;  // the batch count on entry
  p.line_div = div32(p.unit_chunks);
  p.unit_div = div32(static_cast<unsigned>(p.unit_bytes));
  const unsigned grid = grid_for(p.tiles_total);
  if (compound) transpose2d_wide_gather_kernel<W, true><<<grid, wide_policy::threads, 0, stream>>>(p);
  else transpose2d_wide_gather_kernel<W, false><<<grid, wide_policy::threads, 0, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_wide_gather launch");
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
  bits |= fill_index_maps(g, p.batch, p.row_map, p.col_map).all;
  const std::uint64_t chunk = bits == 0 ? 16 : std::min<std::uint64_t>(lowbit(bits), 16);
  p.tiles_total = g.batch_count();
  const bool compound = g.compound();
  // Off the 8-byte grid: the gather tiles for units on the 4-byte grid from wide_gather_min_unit_bytes
  // (tuning/wide.hpp: where they won, measured); the rest stay on gather16 and the rows kernels.
  if (chunk == 4 && unit >= wide_gather_min_unit_bytes && unit <= wide_policy::gather_tile_bytes / 4) {
    launched = true;
    return launch_gather<4>(p, compound, stream);
  }
  if (chunk < wide_min_chunk_bytes || unit > wide_policy::tile_bytes(static_cast<int>(chunk))) return status::ok();
  launched = true;
  return chunk == 16 ? launch<16>(p, compound, stream) : launch<8>(p, compound, stream);
}

}  // namespace xpose::detail
