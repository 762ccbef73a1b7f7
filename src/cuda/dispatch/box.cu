// box dispatch: a box_plan (plan/box.hpp) -> box_kernel<unit bytes> (kernels/box.cuh), tuned by tuning/box.hpp.
// Called from launch_transpose2d for geometries the tile kernels would move in tiles with a side under 128
// bytes, when make_box finds a box with at least twice their shorter run.
#include <algorithm>
#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/box.cuh"
#include "plan/box.hpp"

namespace xpose::detail {

status launch_box(const box_plan& b, const void* d_in, void* d_out, cudaStream_t stream, const device_info& dev) {
  if (b.rank > box_max_rank || b.batch_rank > box_max_rank || b.volume > box_table_entries ||
      b.volume * b.unit_bytes > box_data_bytes)
    return status(status_code::internal, "box: larger than the kernel's tables");
  box_params p{};
  p.in = static_cast<const unsigned char*>(d_in);
  p.out = static_cast<unsigned char*>(d_out);
  p.rank = b.rank;
  for (int k = 0; k < b.rank; ++k) {
    p.extent[k] = static_cast<unsigned>(b.axis[k].extent);
    p.in_stride[k] = static_cast<unsigned>(b.axis[k].in_stride);
    p.out_stride[k] = static_cast<unsigned>(b.axis[k].out_stride);
    p.out_order[k] = b.out_order[k];
  }
  p.volume = static_cast<unsigned>(b.volume);
  p.boxes = 1;
  p.batch.rank = b.batch_rank;
  for (int i = 0; i < b.batch_rank; ++i) {
    p.batch.extent[i] = fast_divmod(static_cast<std::uint64_t>(b.batch[i].extent));
    p.batch.in_stride[i] = b.batch[i].in_stride;
    p.batch.out_stride[i] = b.batch[i].out_stride;
    p.boxes *= b.batch[i].extent;
  }
  const std::int64_t cap = static_cast<std::int64_t>(std::max(dev.sm_count, 1)) * box_policy::blocks_per_sm;
  const auto grid = static_cast<unsigned>(std::max<std::int64_t>(1, std::min(p.boxes, cap)));
  switch (b.unit_bytes) {
    case 1: box_kernel<1><<<grid, box_policy::threads, 0, stream>>>(p); break;
    case 2: box_kernel<2><<<grid, box_policy::threads, 0, stream>>>(p); break;
    case 4: box_kernel<4><<<grid, box_policy::threads, 0, stream>>>(p); break;
    case 8: box_kernel<8><<<grid, box_policy::threads, 0, stream>>>(p); break;
    case 16: box_kernel<16><<<grid, box_policy::threads, 0, stream>>>(p); break;
    default: return status(status_code::internal, "box: unit is not 1, 2, 4, 8 or 16 bytes");
  }
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "box launch");
  return status::ok();
}

}  // namespace xpose::detail
