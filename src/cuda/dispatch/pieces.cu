// pieces dispatch: the unit size -> a compile-time instantiation of kernels/pieces.cuh, tuned by
// tuning/pieces.hpp. Called from launch_transpose2d (dispatch/transpose2d.cu) for plain (non-compound) 2-D
// transposes of odd units of 3-15 bytes whose pointers, pitches and batch strides are on the 16-byte grid.

#include <algorithm>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/pieces.cuh"

namespace xpose::detail {

namespace {

template <int UnitBytes>
status launch(transpose2d_params p, const device_info& dev, cudaStream_t stream) {
  using S = pieces_shape<UnitBytes>;
  // Row tiles fastest (tile_coords), whatever the output: blocks resident together complete output rows.
  // H200, same call, column tiles -> row tiles fastest (benchmarks/results/h200-pieces-vs-gather16.txt): 9-byte
  // 8192^2 0.795 -> 0.843, 2160 x 3840 0.782 -> 0.833, 11-byte 8192^2 0.808 -> 0.849, 13-byte 6000 x 4000 0.835 ->
  // 0.909, 15-byte 4096^2 0.924 -> 0.957, u8 6000 x 4000 x 9 0.726 -> 0.801; batched 64 x 304 x 512 0.852 / 0.850.
  p.rows_fastest = true;
  auto* kernel = transpose2d_pieces_kernel<UnitBytes>;
  const std::int64_t tr = (p.rows + S::T - 1) / S::T, tc = (p.cols + S::T - 1) / S::T;
  p.tiles_r = fast_divmod(static_cast<std::uint64_t>(tr));
  p.tiles_c = fast_divmod(static_cast<std::uint64_t>(tc));
  p.tiles_total = tr * tc * p.tiles_total;  // p.tiles_total holds the batch count on entry
  if (status s = allow_dynamic_smem(kernel, S::smem_bytes, "transpose2d_pieces smem"); !s) return s;
  // A block loops over tiles with two buffers (the next tile loads while this one is permuted and stored), so
  // the grid is the resident blocks.
  static per_device<int> resident_per_device;
  const int resident = std::max(
      1, resident_per_device.get(dev.ordinal, [&] { return resident_blocks(kernel, S::threads, S::smem_bytes); }));
  const std::int64_t blocks = std::min<std::int64_t>(p.tiles_total, std::int64_t{resident} * dev.sm_count);
  kernel<<<grid_for(blocks), S::threads, S::smem_bytes, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_pieces launch");
  return status::ok();
}

// f.template operator()<U>() for the compile-time U equal to `unit_bytes` (the one list of the units pieces is
// built for), else `otherwise`.
template <class F, class R>
R with_unit(std::int64_t unit_bytes, F&& f, R otherwise) {
  switch (unit_bytes) {
    case 3: return f.template operator()<3>();
    case 5: return f.template operator()<5>();
    case 7: return f.template operator()<7>();
    case 9: return f.template operator()<9>();
    case 11: return f.template operator()<11>();
    case 13: return f.template operator()<13>();
    case 15: return f.template operator()<15>();
    default: return otherwise;
  }
}

}  // namespace

bool pieces_applies(std::int64_t unit_bytes, std::int64_t problem_bytes, const device_info& dev) {
  // Its two buffers take 26-122 KiB (3-15-byte units): within the opt-in of Hopper and A100 (227 / 163 KiB),
  // not of every GPU (99 KiB on sm_86 / sm_89), where gather16 runs them instead.
  if (!pieces_policy::takes(unit_bytes, problem_bytes)) return false;
  return with_unit(unit_bytes, [&]<int U>() { return pieces_shape<U>::smem_bytes <= dev.smem_optin; }, false);
}

status launch_pieces(transpose2d_params p, std::int64_t unit_bytes, const device_info& dev, cudaStream_t stream) {
  return with_unit(unit_bytes, [&]<int U>() { return launch<U>(p, dev, stream); },
                   status(status_code::internal, "pieces: unit is not an odd 3-15 bytes"));
}

}  // namespace xpose::detail
