// skinny_odd dispatch: (unit bytes, direction) -> a compile-time instantiation of kernels/skinny_odd.cuh, tuned
// by tuning/skinny_odd.hpp. Called from launch_transpose2d (dispatch/transpose2d.cu) for n x k <-> k x n
// problems (k-unit rows contiguous on the packed side) whose units are 3, 5, 6, 7, 10, 12 or 14 bytes, and
// (launch_skinny_odd_tiles) for plain 2-D transposes of 5-, 7-, 10- and 14-byte units.

#include <algorithm>
#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/skinny_odd.cuh"

namespace xpose::detail {

namespace {

// One block of skinny_odd_policy::threads a tile, `smem` bytes of dynamic shared memory (opted in above 48 KiB).
status start(void (*kernel)(transpose2d_params), const transpose2d_params& p, std::int64_t smem, cudaStream_t stream) {
  if (status s = allow_dynamic_smem(kernel, smem, "transpose2d_skinny_odd shared memory"); !s.is_ok()) return s;
  kernel<<<grid_for(p.tiles_total), skinny_odd_policy::threads, static_cast<std::size_t>(smem), stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_skinny_odd launch");
  return status::ok();
}

template <int UnitBytes, bool AosToSoa>
status launch(transpose2d_params p, std::int64_t k, cudaStream_t stream) {
  using S = skinny_odd_shape<UnitBytes>;
  constexpr skinny_odd_geometry geo(UnitBytes);
  constexpr std::int64_t Q = S::Q, U = UnitBytes;
  const std::int64_t n = AosToSoa ? p.rows : p.cols;
  p.skinny_span = geo.span(k, AosToSoa);
  p.halo_rows = geo.halo();  // output runs reach < 16 bytes past the span
  p.skinny_div = fast_divmod(static_cast<std::uint64_t>(k));
  const skinny_odd_layout layout = skinny_odd_choose_layout(UnitBytes, k, AosToSoa);
  p.skinny_pad_shift = layout.pad_shift;
  p.skinny_pad_bytes = layout.pad_bytes;
  const std::int64_t staged = p.skinny_span + p.halo_rows;
  // Units the slots hold: phase 1's periods whole (AoS -> SoA: of the packed range; else of each row), after
  // the k output rows' runs (16 bytes each) for AoS -> SoA.
  const std::int64_t cap = AosToSoa ? ceil_div(staged * k, Q) * Q : ceil_div(staged, Q) * Q * k;
  const std::int64_t smem = (AosToSoa ? 16 * k : 0) + (layout.slot(S::G, cap - 1) + S::G + 15) / 16 * 16;
  const std::int64_t run_bytes = (AosToSoa ? p.skinny_span : p.skinny_span * k) * U;
  p.skinny_chunks = ceil_div(run_bytes + 30, 16);  // chunks an output run of a tile covers, at most
  p.skinny_run32 = div32(static_cast<unsigned>(p.skinny_chunks));
  p.skinny_k32 = div32(static_cast<unsigned>(k));
  const std::int64_t tiles_n = ceil_div(n, p.skinny_span);
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tiles_n));
  p.tiles_total = tiles_n * p.tiles_total;  // p.tiles_total holds the batch count on entry
  return start(&transpose2d_skinny_odd_kernel<UnitBytes, AosToSoa>, p, smem, stream);
}

// Tiles of K columns (the least multiple of Q with K U >= 160 bytes: 64 RGB8 pixels, 32 RGB16, 16 RGB32F) and
// as many rows as keep the staged rows' periods within periods_per_tile.
template <int UnitBytes>
status launch_tiles(transpose2d_params p, cudaStream_t stream) {
  using S = skinny_odd_shape<UnitBytes>;
  constexpr skinny_odd_geometry geo(UnitBytes);
  constexpr std::int64_t Q = S::Q, U = UnitBytes;
  constexpr std::int64_t K = (160 + Q * U - 1) / (Q * U) * Q;
  const skinny_odd_layout layout = skinny_odd_choose_layout(UnitBytes, K, true);
  p.skinny_span = skinny_odd_policy::periods_per_tile * Q / K - geo.halo();
  p.halo_rows = geo.halo();
  p.skinny_div = fast_divmod(static_cast<std::uint64_t>(K));
  p.skinny_pad_shift = layout.pad_shift;
  p.skinny_pad_bytes = layout.pad_bytes;
  const std::int64_t cap = (p.skinny_span + p.halo_rows) * K;
  const std::int64_t smem = 16 * K + (layout.slot(S::G, cap - 1) + S::G + 15) / 16 * 16;
  p.skinny_chunks = ceil_div(p.skinny_span * U + 30, 16);
  p.skinny_run32 = div32(static_cast<unsigned>(p.skinny_chunks));
  p.skinny_k32 = div32(static_cast<unsigned>(K / Q));
  const std::int64_t tiles_n = ceil_div(p.rows, p.skinny_span), tiles_c = ceil_div(p.cols, K);
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tiles_n));
  p.tiles_r = fast_divmod(static_cast<std::uint64_t>(tiles_c));
  p.tiles_total = tiles_n * tiles_c * p.tiles_total;  // p.tiles_total holds the batch count on entry
  return start(&transpose2d_skinny_odd_kernel<UnitBytes, true, true>, p, smem, stream);
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

status launch_skinny_odd_tiles(transpose2d_params p, std::int64_t unit_bytes, cudaStream_t stream) {
  switch (unit_bytes) {
    case 5: return launch_tiles<5>(p, stream);
    case 7: return launch_tiles<7>(p, stream);
    case 10: return launch_tiles<10>(p, stream);
    case 14: return launch_tiles<14>(p, stream);
    default: return status(status_code::internal, "skinny_odd tiles: unit is not 5, 7, 10 or 14 bytes");
  }
}

}  // namespace xpose::detail
