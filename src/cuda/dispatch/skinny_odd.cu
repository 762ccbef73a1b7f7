// skinny_odd dispatch: (unit bytes, direction) -> a compile-time instantiation of kernels/skinny_odd.cuh, tuned
// by tuning/skinny_odd.hpp. Called from launch_transpose2d (dispatch/transpose2d.cu) for n x k <-> k x n
// problems (k-unit rows contiguous on the packed side) whose units are 3, 5, 6, 7, 10, 12 or 14 bytes.

#include <algorithm>
#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/skinny_odd.cuh"

namespace xpose::detail {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

template <int UnitBytes, bool AosToSoa>
status launch(transpose2d_params p, std::int64_t k, cudaStream_t stream) {
  using S = skinny_odd_shape<UnitBytes>;
  constexpr std::int64_t Q = S::Q, U = UnitBytes;
  const std::int64_t n = AosToSoa ? p.rows : p.cols;
  constexpr std::int64_t m = skinny_odd_policy::span_multiple;
  const std::int64_t tile_units = Q * skinny_odd_policy::periods_per_tile;
  p.skinny_span = std::max<std::int64_t>(m, tile_units / k / m * m);
  p.halo_rows = static_cast<int>((16 + U - 1) / U + 1);  // output runs reach < 16 bytes past the span
  p.skinny_div = fast_divmod(static_cast<std::uint64_t>(k));
  const std::int64_t staged = p.skinny_span + p.halo_rows;
  // Units the slots hold: phase 1's periods whole (AoS -> SoA: of the packed range; else of each row).
  const std::int64_t cap = AosToSoa ? ceil_div(staged * k, Q) * Q : ceil_div(staged, Q) * Q * k;
  const std::int64_t smem = cap / Q * (Q + 1) * S::G;
  const std::int64_t run_bytes = (AosToSoa ? p.skinny_span : p.skinny_span * k) * U;
  p.skinny_chunks = ceil_div(run_bytes + 30, 16);  // chunks an output run of a tile covers, at most
  p.skinny_run_div = fast_divmod(static_cast<std::uint64_t>(p.skinny_chunks));
  const std::int64_t tiles_n = ceil_div(n, p.skinny_span);
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tiles_n));
  p.tiles_total = tiles_n * p.tiles_total;  // p.tiles_total holds the batch count on entry
  auto* kernel = &transpose2d_skinny_odd_kernel<UnitBytes, AosToSoa>;
  if (status s = allow_dynamic_smem(kernel, smem, "transpose2d_skinny_odd shared memory"); !s.is_ok()) return s;
  const auto grid = static_cast<unsigned>(p.tiles_total < INT_MAX ? p.tiles_total : INT_MAX);
  kernel<<<grid, S::threads, static_cast<std::size_t>(smem), stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_skinny_odd launch");
  return status::ok();
}

template <int UnitBytes>
status launch_unit(const transpose2d_params& p, std::int64_t k, bool aos_to_soa, cudaStream_t stream) {
  return aos_to_soa ? launch<UnitBytes, true>(p, k, stream) : launch<UnitBytes, false>(p, k, stream);
}

}  // namespace

bool skinny_odd_applies(std::int64_t unit_bytes) {
  switch (unit_bytes) {
    case 3: case 5: case 6: case 7: case 10: case 12: case 14: return true;
    default: return false;
  }
}

status launch_skinny_odd(transpose2d_params p, std::int64_t unit_bytes, std::int64_t k, bool aos_to_soa,
                         cudaStream_t stream) {
  switch (unit_bytes) {
    case 3: return launch_unit<3>(p, k, aos_to_soa, stream);
    case 5: return launch_unit<5>(p, k, aos_to_soa, stream);
    case 6: return launch_unit<6>(p, k, aos_to_soa, stream);
    case 7: return launch_unit<7>(p, k, aos_to_soa, stream);
    case 10: return launch_unit<10>(p, k, aos_to_soa, stream);
    case 12: return launch_unit<12>(p, k, aos_to_soa, stream);
    case 14: return launch_unit<14>(p, k, aos_to_soa, stream);
    default: return status(status_code::internal, "skinny_odd: unit is not 3, 5, 6, 7, 10, 12 or 14 bytes");
  }
}

}  // namespace xpose::detail
