// bulk dispatch: the input's tensor map, the tile order and the launch of kernels/bulk.cuh (bulk8 for 1-byte
// units, bulk16<U> for 2-, 4- and 8-byte ones), tuned by tuning/bulk.hpp. Called from launch_transpose2d
// (dispatch/transpose2d.cu) for large aligned plain transposes.
//
// The tensor map is encoded on every call (the input pointer comes with the call; encoding is host work of a
// few hundred nanoseconds, no driver round trip). The encoder is the driver's cuTensorMapEncodeTiled, reached
// through the runtime's entry-point query so that xpose links no libcuda.

#include <cudaTypedefs.h>

#include <algorithm>
#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/bulk.cuh"

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

constexpr std::int64_t max_coordinate = INT_MAX;                     // tensor coordinates are signed 32-bit
constexpr std::uint64_t max_tensor_stride = std::uint64_t{1} << 40;  // and strides below 2^40 bytes

CUtensorMapDataType element_type(int unit_bytes) {
  switch (unit_bytes) {
    case 1: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case 2: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case 4: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    default: return CU_TENSOR_MAP_DATA_TYPE_INT64;
  }
}

/// What the dispatcher needs to know of a bulk kernel, read once per kernel (first call; one architecture a
/// process is assumed: a later device of another one falls back or takes a different panel, never a wrong result,
/// since try_launch checks the device's own compute capability too).
struct kernel_facts {
  bool tensor_copies = false;  // built for sm_90 or later: below that the tensor copies are compiled out (a build
                               // for older targets JIT-compiled on a Hopper must not run it)
  int blocks_per_sm = 1;       // resident blocks an SM (the tile order's `resident`)
};

template <class Kernel>
kernel_facts facts_of(Kernel kernel, int threads) {
  kernel_facts f;
  if (!built_with_tensor_copies(reinterpret_cast<const void*>(kernel))) return f;
  const int n = resident_blocks(kernel, threads, 0);
  if (n == 0) return f;
  f.tensor_copies = true;
  f.blocks_per_sm = n;
  return f;
}

/// Shared by both kernels: checks, tensor map, tile order, launch. TR x TCu: the tile (rows x units).
template <int UnitBytes, int TR, int TCu, int OutAlign, class Kernel>
bool try_launch(Kernel kernel, int threads, const transpose2d_params& p, const device_info& dev, bool compound,
                cudaStream_t stream, status& launched, const char* what) {
  if (dev.cc_major < 9 || compound || p.batch.rank > 1) return false;
  static per_device<kernel_facts> facts_per_device;  // one kernel per instantiation of this function
  const kernel_facts facts = facts_per_device.get(dev.ordinal, [&] { return facts_of(kernel, threads); });
  if (!facts.tensor_copies) return false;
  const std::int64_t batch = p.batch.rank == 1 ? static_cast<std::int64_t>(p.batch.extent[0].divisor) : 1;
  const std::int64_t in_batch_stride = p.batch.rank == 1 ? p.batch.in_stride[0] : p.in_ld * p.rows;
  const std::int64_t out_batch_stride = p.batch.rank == 1 ? p.batch.out_stride[0] : 0;
  if (p.rows > max_coordinate || p.cols > max_coordinate || batch > max_coordinate) return false;
  // The copy engine reads 16-byte aligned rows; the stores are OutAlign-byte chunks.
  if ((reinterpret_cast<std::uintptr_t>(p.in) | static_cast<std::uint64_t>(p.in_ld) |
       static_cast<std::uint64_t>(in_batch_stride)) % 16 != 0 ||
      (reinterpret_cast<std::uintptr_t>(p.out) | static_cast<std::uint64_t>(p.out_ld) |
       static_cast<std::uint64_t>(out_batch_stride)) % OutAlign != 0)
    return false;
  if (static_cast<std::uint64_t>(p.in_ld) >= max_tensor_stride ||
      static_cast<std::uint64_t>(in_batch_stride) >= max_tensor_stride || in_batch_stride <= 0)
    return false;
  alignas(64) CUtensorMap map;
  const std::uint64_t dims[3] = {static_cast<std::uint64_t>(p.cols), static_cast<std::uint64_t>(p.rows),
                                 static_cast<std::uint64_t>(batch)};
  const std::uint64_t strides[2] = {static_cast<std::uint64_t>(p.in_ld), static_cast<std::uint64_t>(in_batch_stride)};
  const std::uint32_t box[3] = {TCu, TR, 1};
  if (!encode_tensor_map(&map, UnitBytes, 3, p.in, dims, strides, box)) return false;

  bulk_params q{};
  q.out = p.out;
  q.rows = p.rows;
  q.cols = p.cols;
  q.out_ld = p.out_ld;
  q.batch_out_stride = out_batch_stride;
  const std::int64_t tr = ceil_div(p.rows, TR), tc = ceil_div(p.cols, TCu);
  const std::int64_t panel = bulk_panel_rows(tr, tc, std::int64_t{facts.blocks_per_sm} * dev.sm_count);
  const std::int64_t panels = ceil_div(tr, panel);
  q.matrix_tiles = fast_divmod(static_cast<std::uint64_t>(tr * tc));
  q.panel_tiles = fast_divmod(static_cast<std::uint64_t>(panel * tc));
  q.panel_rows = fast_divmod(static_cast<std::uint64_t>(panel));
  q.last_rows = fast_divmod(static_cast<std::uint64_t>(tr - (panels - 1) * panel));
  q.last_panel = static_cast<std::uint64_t>(panels - 1);
  q.tiles_total = tr * tc * batch;
  kernel<<<grid_for(q.tiles_total), threads, 0, stream>>>(map, q);
  const cudaError_t e = cudaGetLastError();
  launched = e == cudaSuccess ? status::ok() : cuda_failure(e, what);
  return true;
}

}  // namespace

bool built_with_tensor_copies(const void* kernel) {
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.ptxVersion >= 90;
}

bool encode_tensor_map(void* map, int unit_bytes, int rank, const void* base, const std::uint64_t* dims,
                       const std::uint64_t* strides, const std::uint32_t* box) {
  const auto encode = tensor_map_encoder();
  if (encode == nullptr || rank < 1 || rank > 5) return false;
  cuuint64_t d[5] = {}, st[4] = {};
  cuuint32_t b[5] = {}, element_strides[5] = {1, 1, 1, 1, 1};
  for (int k = 0; k < rank; ++k) {
    if (dims[k] == 0 || dims[k] > static_cast<std::uint64_t>(max_coordinate)) return false;
    d[k] = dims[k], b[k] = box[k];
    if (k + 1 < rank) {
      if (strides[k] % 16 != 0 || strides[k] >= max_tensor_stride) return false;
      st[k] = strides[k];
    }
  }
  // Rows are read 256-byte L2 lines at a time (a bulk8 tile row is 128 bytes; the next tile reads the rest).
  return encode(static_cast<CUtensorMap*>(map), element_type(unit_bytes), static_cast<cuuint32_t>(rank),
                const_cast<void*>(base), d, st, b, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool try_launch_bulk8(const transpose2d_params& p, const device_info& dev, bool compound, cudaStream_t stream,
                      status& launched) {
  using P = bulk8_policy;
  return try_launch<1, P::tile_rows, P::tile_bytes, 8>(transpose2d_bulk8_kernel<P>, P::threads, p, dev, compound,
                                                        stream, launched, "transpose2d_bulk8 launch");
}

bool try_launch_bulk16(const transpose2d_params& p, std::int64_t unit_bytes, const device_info& dev, bool compound,
                       cudaStream_t stream, status& launched) {
  auto go = [&](auto unit) {
    constexpr int U = decltype(unit)::value;
    using S = vec16_shape<U>;
    return try_launch<U, S::tile_rows, S::tile_cols, 16>(transpose2d_bulk16_kernel<U>, S::threads, p, dev, compound,
                                                          stream, launched, "transpose2d_bulk16 launch");
  };
  switch (unit_bytes) {
    case 2: return go(std::integral_constant<int, 2>{});
    case 4: return go(std::integral_constant<int, 4>{});
    case 8: return go(std::integral_constant<int, 8>{});
    default: return false;
  }
}

}  // namespace xpose::detail
