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

template <int UnitBytes, int LoadBytes, int StoreBytes>
status launch(const box_params& p, unsigned grid, int smem, cudaStream_t stream) {
  if (status s = allow_dynamic_smem(box_kernel<UnitBytes, LoadBytes, StoreBytes>, smem, "box shared-memory opt-in"); !s)
    return s;
  box_kernel<UnitBytes, LoadBytes, StoreBytes><<<grid, box_policy::threads, static_cast<std::size_t>(smem), stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "box launch");
  return status::ok();
}

template <int UnitBytes, int LoadBytes>
status launch_store(const box_params& p, int store_bytes, unsigned grid, int smem, cudaStream_t stream) {
  switch (store_bytes) {
    case 16: if constexpr (UnitBytes <= 16) return launch<UnitBytes, LoadBytes, 16>(p, grid, smem, stream); break;
    case 8: if constexpr (UnitBytes <= 8) return launch<UnitBytes, LoadBytes, 8>(p, grid, smem, stream); break;
    case 4: if constexpr (UnitBytes <= 4) return launch<UnitBytes, LoadBytes, 4>(p, grid, smem, stream); break;
    case 2: if constexpr (UnitBytes <= 2) return launch<UnitBytes, LoadBytes, 2>(p, grid, smem, stream); break;
    default: break;
  }
  return launch<UnitBytes, LoadBytes, UnitBytes>(p, grid, smem, stream);
}

template <int UnitBytes>
status launch_unit(const box_params& p, int load_bytes, int store_bytes, unsigned grid, int smem, cudaStream_t stream) {
  switch (load_bytes) {
    case 16: if constexpr (UnitBytes <= 16) return launch_store<UnitBytes, 16>(p, store_bytes, grid, smem, stream); break;
    case 8: if constexpr (UnitBytes <= 8) return launch_store<UnitBytes, 8>(p, store_bytes, grid, smem, stream); break;
    case 4: if constexpr (UnitBytes <= 4) return launch_store<UnitBytes, 4>(p, store_bytes, grid, smem, stream); break;
    case 2: if constexpr (UnitBytes <= 2) return launch_store<UnitBytes, 2>(p, store_bytes, grid, smem, stream); break;
    default: break;
  }
  return launch_store<UnitBytes, UnitBytes>(p, store_bytes, grid, smem, stream);
}

// Widest access (bytes, <= 16, a multiple of the unit) for one side: the run is a whole number of them, and
// every run starts aligned to it — the base pointer, the strides of the box axes outside the run (order:
// the side's order, ascending stride) and of the batch axes are multiples of it.
int access_bytes(const box_plan& b, bool input, std::uintptr_t base) {
  std::int64_t bits = static_cast<std::int64_t>(base);
  std::int64_t run = 1;
  bool in_run = true;
  for (int j = 0; j < b.rank; ++j) {
    const box_axis& a = b.axis[input ? j : b.out_order[j]];
    const std::int64_t stride = input ? a.in_stride : a.out_stride;
    if (in_run && stride == run * b.unit_bytes) {
      run *= a.extent;
      continue;
    }
    in_run = false;
    bits |= stride;
  }
  for (int i = 0; i < b.batch_rank; ++i) bits |= input ? b.batch[i].in_stride : b.batch[i].out_stride;
  bits |= run * b.unit_bytes;
  int w = 16;
  while (w > b.unit_bytes && (bits % w) != 0) w /= 2;
  return w;
}

}  // namespace

bool box_fits(const box_plan& b, const device_info& dev) {
  return box_smem_bytes(static_cast<int>(b.volume), static_cast<int>(b.unit_bytes)) <= dev.smem_optin;
}

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
  const int lw = access_bytes(b, true, reinterpret_cast<std::uintptr_t>(d_in));
  const int sw = access_bytes(b, false, reinterpret_cast<std::uintptr_t>(d_out));
  switch (b.unit_bytes) {
    case 1: return launch_unit<1>(p, lw, sw, grid, smem, stream);
    case 2: return launch_unit<2>(p, lw, sw, grid, smem, stream);
    case 4: return launch_unit<4>(p, lw, sw, grid, smem, stream);
    case 8: return launch_unit<8>(p, lw, sw, grid, smem, stream);
    case 16: return launch_unit<16>(p, lw, sw, grid, smem, stream);
    default: return status(status_code::internal, "box: unit is not 1, 2, 4, 8 or 16 bytes");
  }
}

}  // namespace xpose::detail
