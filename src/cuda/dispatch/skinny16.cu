// skinny16 dispatch: (unit bytes, k, direction) -> a compile-time instantiation of kernels/skinny16.cuh, tuned
// by tuning/skinny16.hpp. Called from launch_transpose2d (dispatch/transpose2d.cu) for n x k <-> k x n
// problems whose packed side has k <= 16 units of 1, 2, 4, 8 or 16 bytes.

#include <array>
#include <climits>
#include <utility>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/skinny16.cuh"

namespace xpose::detail {

namespace {

using skinny16_launcher = void (*)(const transpose2d_params&, unsigned, cudaStream_t);

template <int UnitBytes, int K, bool AosToSoa>
void launch_one(const transpose2d_params& p, unsigned grid, cudaStream_t stream) {
  transpose2d_skinny16_kernel<UnitBytes, K, AosToSoa>
      <<<grid, skinny16_shape<UnitBytes, K>::threads, 0, stream>>>(p);
}

template <int UnitBytes, bool AosToSoa, int... Ks>
constexpr auto make_row(std::integer_sequence<int, Ks...>) {
  // k = 0 and 1 never reach here (size-1 axes are dropped); their slots stay empty.
  return std::array<skinny16_launcher, sizeof...(Ks) + 2>{nullptr, nullptr, &launch_one<UnitBytes, Ks + 2, AosToSoa>...};
}

template <int UnitBytes, bool AosToSoa>
constexpr auto row = make_row<UnitBytes, AosToSoa>(std::make_integer_sequence<int, skinny16_policy::max_k - 1>{});

template <int UnitBytes>
std::int64_t span_of(std::int64_t k) {
  switch (k) {
#define XPOSE_SKINNY16_SPAN(K) \
  case K: return skinny16_shape<UnitBytes, K>::span;
    XPOSE_SKINNY16_SPAN(2) XPOSE_SKINNY16_SPAN(3) XPOSE_SKINNY16_SPAN(4) XPOSE_SKINNY16_SPAN(5)
    XPOSE_SKINNY16_SPAN(6) XPOSE_SKINNY16_SPAN(7) XPOSE_SKINNY16_SPAN(8) XPOSE_SKINNY16_SPAN(9)
    XPOSE_SKINNY16_SPAN(10) XPOSE_SKINNY16_SPAN(11) XPOSE_SKINNY16_SPAN(12) XPOSE_SKINNY16_SPAN(13)
    XPOSE_SKINNY16_SPAN(14) XPOSE_SKINNY16_SPAN(15) XPOSE_SKINNY16_SPAN(16)
#undef XPOSE_SKINNY16_SPAN
    default: return 0;
  }
}

}  // namespace

bool skinny16_applies(std::int64_t unit_bytes, std::int64_t k) {
  const bool unit_ok = unit_bytes == 1 || unit_bytes == 2 || unit_bytes == 4 || unit_bytes == 8 || unit_bytes == 16;
  return unit_ok && k >= 2 && k <= skinny16_policy::max_k;
}

status launch_skinny16(transpose2d_params p, std::int64_t unit_bytes, std::int64_t k, bool aos_to_soa,
                       cudaStream_t stream) {
  if (!skinny16_applies(unit_bytes, k)) return status(status_code::internal, "skinny16: unit or k out of range");
  const std::int64_t n = aos_to_soa ? p.rows : p.cols;
  std::int64_t span = 0;
  skinny16_launcher launch = nullptr;
  switch (unit_bytes) {
    case 1: span = span_of<1>(k); launch = aos_to_soa ? row<1, true>[k] : row<1, false>[k]; break;
    case 2: span = span_of<2>(k); launch = aos_to_soa ? row<2, true>[k] : row<2, false>[k]; break;
    case 4: span = span_of<4>(k); launch = aos_to_soa ? row<4, true>[k] : row<4, false>[k]; break;
    case 8: span = span_of<8>(k); launch = aos_to_soa ? row<8, true>[k] : row<8, false>[k]; break;
    default: span = span_of<16>(k); launch = aos_to_soa ? row<16, true>[k] : row<16, false>[k]; break;
  }
  const std::int64_t tiles_n = (n + span - 1) / span;
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tiles_n));
  p.tiles_total = tiles_n * p.tiles_total;  // p.tiles_total holds the batch count on entry
  launch(p, static_cast<unsigned>(p.tiles_total < INT_MAX ? p.tiles_total : INT_MAX), stream);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_skinny16 launch");
  return status::ok();
}

}  // namespace xpose::detail
