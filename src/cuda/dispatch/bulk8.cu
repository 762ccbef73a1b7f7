// bulk8 dispatch: the input's tensor map and the launch of kernels/bulk8.cuh, tuned by tuning/bulk8.hpp.
// Called from launch_transpose2d (dispatch/transpose2d.cu) for 8-byte aligned byte transposes of >= 48 MiB.
//
// The tensor map is encoded on every call (the input pointer comes with the call; encoding is host work of a
// few hundred nanoseconds, no driver round trip). The encoder is the driver's cuTensorMapEncodeTiled, reached
// through the runtime's entry-point query so that xpose links no libcuda.

#include <cudaTypedefs.h>

#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/bulk8.cuh"

namespace xpose::detail {

namespace {

PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return PFN_cuTensorMapEncodeTiled_v12000{nullptr};
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

constexpr std::int64_t max_coordinate = INT_MAX;                  // tensor coordinates are signed 32-bit
constexpr std::uint64_t max_tensor_stride = std::uint64_t{1} << 40;  // and strides below 2^40 bytes

}  // namespace

bool try_launch_bulk8(const transpose2d_params& p, const device_info& dev, bool compound, cudaStream_t stream,
                      status& launched) {
  using P = bulk8_policy;
  if (dev.cc_major < 9 || compound || p.batch.rank > 1) return false;
  const std::int64_t batch = p.batch.rank == 1 ? static_cast<std::int64_t>(p.batch.extent[0].divisor) : 1;
  const std::int64_t in_batch_stride = p.batch.rank == 1 ? p.batch.in_stride[0] : p.in_ld * p.rows;
  const std::int64_t out_batch_stride = p.batch.rank == 1 ? p.batch.out_stride[0] : 0;
  if (p.rows > max_coordinate || p.cols > max_coordinate || batch > max_coordinate) return false;
  // The copy engine reads 16-byte aligned rows; the stores are vec8's 8-byte chunks.
  if ((reinterpret_cast<std::uintptr_t>(p.in) | static_cast<std::uint64_t>(p.in_ld) |
       static_cast<std::uint64_t>(in_batch_stride)) % 16 != 0 ||
      (reinterpret_cast<std::uintptr_t>(p.out) | static_cast<std::uint64_t>(p.out_ld) |
       static_cast<std::uint64_t>(out_batch_stride)) % 8 != 0)
    return false;
  if (static_cast<std::uint64_t>(p.in_ld) >= max_tensor_stride ||
      static_cast<std::uint64_t>(in_batch_stride) >= max_tensor_stride || in_batch_stride <= 0)
    return false;
  const auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;

  CUtensorMap map;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(p.cols), static_cast<cuuint64_t>(p.rows),
                              static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(p.in_ld), static_cast<cuuint64_t>(in_batch_stride)};
  const cuuint32_t box[3] = {P::tile_bytes, P::tile_rows, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  // Rows are read whole 256-byte L2 lines at a time (a tile row is 128 bytes; its neighbour tile reads the rest).
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, const_cast<unsigned char*>(p.in), dims, strides, box,
             element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;

  bulk8_params q{};
  q.out = p.out;
  q.rows = p.rows;
  q.cols = p.cols;
  q.out_ld = p.out_ld;
  q.batch_out_stride = out_batch_stride;
  const std::int64_t tr = (p.rows + P::tile_rows - 1) / P::tile_rows;
  const std::int64_t tc = (p.cols + P::tile_bytes - 1) / P::tile_bytes;
  const std::int64_t panel = bulk8_panel_rows(tr, tc, std::int64_t{P::min_blocks} * dev.sm_count);
  const std::int64_t panels = (tr + panel - 1) / panel;
  q.matrix_tiles = fast_divmod(static_cast<std::uint64_t>(tr * tc));
  q.panel_tiles = fast_divmod(static_cast<std::uint64_t>(panel * tc));
  q.panel_rows = fast_divmod(static_cast<std::uint64_t>(panel));
  q.last_rows = fast_divmod(static_cast<std::uint64_t>(tr - (panels - 1) * panel));
  q.last_panel = static_cast<std::uint64_t>(panels - 1);
  q.tiles_total = tr * tc * batch;
  const auto grid = static_cast<unsigned>(q.tiles_total < INT_MAX ? q.tiles_total : INT_MAX);
  transpose2d_bulk8_kernel<><<<grid, P::threads, 0, stream>>>(map, q);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) launched = cuda_failure(e, "transpose2d_bulk8 launch");
  else launched = status::ok();
  return true;
}

}  // namespace xpose::detail
