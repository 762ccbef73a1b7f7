// skinny16 dispatch, flat batches (kernels/skinny16.cuh, transpose2d_skinny16_flat_kernel): b x K x n <->
// b x n x K with both sides packed, K <= 16, whole matrices a tile. Its own translation unit so that its 150
// instantiations compile beside dispatch/skinny16.cu's.

#include <array>
#include <climits>
#include <utility>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/skinny16.cuh"

namespace xpose::detail {

namespace {

using flat_launcher = void (*)(const transpose2d_params&, unsigned, cudaStream_t);

template <int UnitBytes, int K, bool AosToSoa>
void launch_one(const transpose2d_params& p, unsigned grid, cudaStream_t stream) {
  transpose2d_skinny16_flat_kernel<UnitBytes, K, AosToSoa>
      <<<grid, skinny16_shape<UnitBytes, K>::threads, 0, stream>>>(p);
}

template <int UnitBytes, bool AosToSoa, int... Ks>
constexpr auto make_row(std::integer_sequence<int, Ks...>) {
  return std::array<flat_launcher, sizeof...(Ks) + 2>{nullptr, nullptr, &launch_one<UnitBytes, Ks + 2, AosToSoa>...};
}

template <int UnitBytes, bool AosToSoa>
constexpr auto row = make_row<UnitBytes, AosToSoa>(std::make_integer_sequence<int, skinny16_policy::max_k - 1>{});

}  // namespace

std::int64_t skinny16_flat_matrices(std::int64_t unit_bytes, std::int64_t k, std::int64_t n) {
  if (!skinny16_applies(unit_bytes, k)) return 0;
  const std::int64_t piece = skinny16_policy::piece_bytes(static_cast<int>(unit_bytes), static_cast<int>(k));
  if ((n * unit_bytes) % piece != 0) return 0;
  const std::int64_t matrix = k * n * unit_bytes;
  const std::int64_t tile = static_cast<std::int64_t>(skinny16_policy::tile_bytes) / k / 16 * 16 * k;
  const std::int64_t m = tile / matrix;
  return m >= 2 ? m : 0;
}

status launch_skinny16_flat(transpose2d_params p, std::int64_t unit_bytes, std::int64_t k, bool aos_to_soa,
                            cudaStream_t stream) {
  const std::int64_t n = aos_to_soa ? p.rows : p.cols;
  const std::int64_t m = skinny16_flat_matrices(unit_bytes, k, n);
  if (m == 0 || p.batch.rank != 1) return status(status_code::internal, "skinny16 flat: not a flat batch of small matrices");
  flat_launcher launch = nullptr;
  switch (unit_bytes) {
    case 1: launch = aos_to_soa ? row<1, true>[k] : row<1, false>[k]; break;
    case 2: launch = aos_to_soa ? row<2, true>[k] : row<2, false>[k]; break;
    case 4: launch = aos_to_soa ? row<4, true>[k] : row<4, false>[k]; break;
    case 8: launch = aos_to_soa ? row<8, true>[k] : row<8, false>[k]; break;
    default: launch = aos_to_soa ? row<16, true>[k] : row<16, false>[k]; break;
  }
  const std::int64_t batch = static_cast<std::int64_t>(p.batch.extent[0].divisor);
  p.matrices_per_tile = m;
  p.skinny_div = fast_divmod(static_cast<std::uint64_t>(
      n * unit_bytes / skinny16_policy::piece_bytes(static_cast<int>(unit_bytes), static_cast<int>(k))));
  p.tiles_total = (batch + m - 1) / m;
  launch(p, static_cast<unsigned>(p.tiles_total < INT_MAX ? p.tiles_total : INT_MAX), stream);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_skinny16_flat launch");
  return status::ok();
}

}  // namespace xpose::detail
