// box dispatch: a box_plan (plan/box.hpp) -> box_kernel<unit bytes> (kernels/box.cuh), tuned by tuning/box.hpp.
// Called from launch_transpose2d for geometries the tile kernels would move in tiles with a side under 128
// bytes, when make_box finds a box with at least twice their shorter run.
#include <algorithm>
#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/box.cuh"
#include "plan/box.hpp"

namespace xpose::detail {

namespace {

template <int UnitBytes>
status launch(const box_params& p, unsigned grid, int smem, cudaStream_t stream) {
  // Above 48 KiB of dynamic shared memory a kernel needs the opt-in (per device; cheap to repeat).
  if (smem > 48 * 1024) {
    if (cudaError_t e = cudaFuncSetAttribute(box_kernel<UnitBytes>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        e != cudaSuccess)
      return cuda_failure(e, "box shared-memory opt-in");
  }
  box_kernel<UnitBytes><<<grid, box_policy::threads, static_cast<std::size_t>(smem), stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "box launch");
  return status::ok();
}

}  // namespace

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
  const int smem = box_smem_bytes(static_cast<int>(b.volume), static_cast<int>(b.unit_bytes));
  // As many blocks as fit an SM at once (shared memory or threads), each looping over boxes.
  const std::int64_t per_sm = std::max(1, std::min(box_policy::max_blocks_per_sm, box_policy::smem_per_sm / (smem + 1024)));
  const std::int64_t cap = static_cast<std::int64_t>(std::max(dev.sm_count, 1)) * per_sm;
  const auto grid = static_cast<unsigned>(std::max<std::int64_t>(1, std::min(p.boxes, cap)));
  switch (b.unit_bytes) {
    case 1: return launch<1>(p, grid, smem, stream);
    case 2: return launch<2>(p, grid, smem, stream);
    case 4: return launch<4>(p, grid, smem, stream);
    case 8: return launch<8>(p, grid, smem, stream);
    case 16: return launch<16>(p, grid, smem, stream);
    default: return status(status_code::internal, "box: unit is not 1, 2, 4, 8 or 16 bytes");
  }
}

}  // namespace xpose::detail
