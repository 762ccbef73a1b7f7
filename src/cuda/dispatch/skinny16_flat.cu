// skinny16 dispatch, flat batches (kernels/skinny16.cuh, transpose2d_skinny16_flat_kernel): b x K x n <->
// b x n x K with both sides packed, K <= 16, whole matrices a tile. Its own translation unit so that its 150
// instantiations compile beside dispatch/skinny16.cu's.

#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/dispatch/skinny16_table.cuh"

namespace xpose::detail {

std::int64_t skinny16_flat_matrices(std::int64_t unit_bytes, std::int64_t k, std::int64_t n) {
  if (!skinny16_applies(unit_bytes, k)) return 0;
  const std::int64_t piece = skinny16_policy::piece_bytes(static_cast<int>(unit_bytes), static_cast<int>(k));
  if ((n * unit_bytes) % piece != 0) return 0;
  const std::int64_t matrix = k * n * unit_bytes;
  const std::int64_t tile = static_cast<std::int64_t>(skinny16_policy::row_bytes(static_cast<int>(k), static_cast<int>(unit_bytes))) * k;
  const std::int64_t m = tile / matrix;
  return m >= 2 ? m : 0;
}

status launch_skinny16_flat(transpose2d_params p, std::int64_t unit_bytes, std::int64_t k, bool aos_to_soa,
                            cudaStream_t stream) {
  const std::int64_t n = aos_to_soa ? p.rows : p.cols;
  const std::int64_t m = skinny16_flat_matrices(unit_bytes, k, n);
  if (m == 0 || p.batch.rank != 1) return status(status_code::internal, "skinny16 flat: not a flat batch of small matrices");
  const skinny16_launcher launch = skinny16_launcher_for<true>(unit_bytes, k, aos_to_soa);
  const std::int64_t batch = static_cast<std::int64_t>(p.batch.extent[0].divisor);
  p.matrices_per_tile = m;
  p.skinny_div = fast_divmod(static_cast<std::uint64_t>(
      n * unit_bytes / skinny16_policy::piece_bytes(static_cast<int>(unit_bytes), static_cast<int>(k))));
  p.tiles_total = (batch + m - 1) / m;
  launch(p, grid_for(p.tiles_total), stream);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_skinny16_flat launch");
  return status::ok();
}

}  // namespace xpose::detail
