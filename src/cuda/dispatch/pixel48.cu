// pixel48 dispatch: the unit size -> a compile-time instantiation of kernels/pixel48.cuh, tuned by
// tuning/pixel48.hpp. Called from launch_transpose2d (dispatch/transpose2d.cu) for plain (non-compound) 2-D
// transposes of 3-, 6-, 12- and 24-byte units.

#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/pixel48.cuh"

namespace xpose::detail {

namespace {

template <int UnitBytes>
status launch(transpose2d_params p, bool out_aligned16, const device_info& dev, cudaStream_t stream) {
  using S = pixel48_shape<UnitBytes>;
  const std::int64_t tr = (p.rows + S::T - 1) / S::T, tc = (p.cols + S::Tc - 1) / S::Tc;
  p.tiles_r = fast_divmod(static_cast<std::uint64_t>(tr));
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tc));
  p.tiles_total = tr * tc * p.tiles_total;  // p.tiles_total holds the batch count on entry
  static_assert(S::smem_bytes <= 48 * 1024, "above 48 KiB the launch would need the shared-memory opt-in");
  const unsigned grid = grid_for(p.tiles_total);
  if (out_aligned16) {
    // Tiles of outputs on the 16-byte grid prefetch the input of the tile half a wave of resident blocks on
    // into L2 (pixel48_policy::prefetch_waves).
    static per_device<int> resident_per_device;
    const int resident = resident_per_device.get(dev.ordinal, [] {
      return resident_blocks(transpose2d_pixel48_kernel<UnitBytes, true>, S::threads, S::smem_bytes);
    });
    p.prefetch_ahead = static_cast<std::int64_t>(resident * pixel48_policy::prefetch_waves * dev.sm_count);
  }
  // Outputs on the 16-byte grid (RGB8 3840 x 2160: rows of 6480 bytes) stage no halo rows. H100, same call:
  // see docs/perf-notes.md (eleventh session).
  if (out_aligned16) transpose2d_pixel48_kernel<UnitBytes, true><<<grid, S::threads, S::smem_bytes, stream>>>(p);
  else transpose2d_pixel48_kernel<UnitBytes, false><<<grid, S::threads, S::smem_bytes, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_pixel48 launch");
  return status::ok();
}

}  // namespace

bool pixel48_applies(std::int64_t unit_bytes) {
  return unit_bytes == 3 || unit_bytes == 6 || unit_bytes == 12 || unit_bytes == 24;
}

status launch_pixel48(transpose2d_params p, std::int64_t unit_bytes, bool out_aligned16, const device_info& dev,
                      cudaStream_t stream) {
  switch (unit_bytes) {
    case 3: return launch<3>(p, out_aligned16, dev, stream);
    case 6: return launch<6>(p, out_aligned16, dev, stream);
    case 12: return launch<12>(p, out_aligned16, dev, stream);
    case 24: return launch<24>(p, out_aligned16, dev, stream);
    default: return status(status_code::internal, "pixel48: unit is not 3, 6, 12 or 24 bytes");
  }
}

}  // namespace xpose::detail
