// skinny16 dispatch: (unit bytes, k, direction) -> a compile-time instantiation of kernels/skinny16.cuh, tuned
// by tuning/skinny16.hpp. Called from launch_transpose2d (dispatch/transpose2d.cu) for n x k <-> k x n
// problems whose packed side has k <= 16 units of 1, 2, 4, 8 or 16 bytes.

#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/dispatch/skinny16_table.cuh"

namespace xpose::detail {

bool skinny16_applies(std::int64_t unit_bytes, std::int64_t k) {
  const bool unit_ok = unit_bytes == 1 || unit_bytes == 2 || unit_bytes == 4 || unit_bytes == 8 || unit_bytes == 16;
  return unit_ok && k >= 2 && k <= skinny16_policy::max_k;
}

status launch_skinny16(transpose2d_params p, std::int64_t unit_bytes, std::int64_t k, bool aos_to_soa,
                       cudaStream_t stream) {
  if (!skinny16_applies(unit_bytes, k)) return status(status_code::internal, "skinny16: unit or k out of range");
  const std::int64_t n = aos_to_soa ? p.rows : p.cols;
  const std::int64_t span = skinny16_policy::row_bytes(static_cast<int>(k), static_cast<int>(unit_bytes)) / unit_bytes;  // skinny16_shape::span
  const skinny16_launcher launch = skinny16_launcher_for<false>(unit_bytes, k, aos_to_soa);
  const std::int64_t tiles_n = (n + span - 1) / span;
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tiles_n));
  p.tiles_total = tiles_n * p.tiles_total;  // p.tiles_total holds the batch count on entry
  launch(p, grid_for(p.tiles_total), stream);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_skinny16 launch");
  return status::ok();
}

}  // namespace xpose::detail
