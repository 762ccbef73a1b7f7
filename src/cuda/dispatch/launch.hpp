// Internal to the CUDA executor: per-family launchers and the facts they share.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <climits>
#include <cstdint>
#include <string>

#include "cuda/dispatch/per_device.hpp"
#include "cuda/index_math.hpp"
#include "xpose/plan.hpp"
#include "xpose/status.hpp"

namespace xpose::detail {

/// Facts about the current device that launch geometry depends on, read once per device.
struct device_info {
  int ordinal = 0;
  int sm_count = 0;
  int smem_optin = 0;  ///< shared memory a block may opt in to (cudaDevAttrMaxSharedMemoryPerBlockOptin)
  int cc_major = 0;    ///< compute capability (9: Hopper's tensor copies)
};

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// A 1-D grid over `tiles` blocks, capped at INT_MAX: the kernels' grid-stride loops take the rest.
inline unsigned grid_for(std::int64_t tiles) { return static_cast<unsigned>(tiles < INT_MAX ? tiles : INT_MAX); }

/// The current device's facts (thread-safe, cached).
status current_device(device_info& out);

/// Resident blocks an SM of `kernel` launched with `threads` threads and `smem` dynamic bytes on the current
/// device; 0 when the runtime cannot say (its error cleared).
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, std::size_t smem) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return blocks;
}

/// cuda_error status naming `what` and the runtime's message; clears the sticky-free error state.
status cuda_failure(cudaError_t err, const char* what);

/// invalid_argument when `p` is a host pointer unknown to CUDA (the runtime's message otherwise).
status require_device_accessible(const void* p, const char* name);

/// cuda_execute without its pointer checks and device query: for the in-place algorithms' inner out-of-place
/// steps (staged groups and blocks, near_square's write-back), whose pointers cuda_execute_inplace checked once.
status cuda_launch(const plan_geometry& g, const void* d_in, void* d_out, cudaStream_t stream, const device_info& dev);

/// A host model's results for the last N keys it was run on (a dispatcher keeps one thread_local instance):
/// the swizzle and pitch models cost 10-50 us, once per shape, instead of on every launch. Key needs ==.
template <class Key, class Value, int N = 8>
class recent_results {
 public:
  template <class Compute>
  Value get(const Key& key, Compute&& compute) {
    for (int i = 0; i < N; ++i)
      if (used_[i] && keys_[i] == key) return values_[i];
    const int i = static_cast<int>(next_++ % N);
    keys_[i] = key;
    values_[i] = compute();
    used_[i] = true;
    return values_[i];
  }

 private:
  std::array<Key, N> keys_{};
  std::array<Value, N> values_{};
  std::array<bool, N> used_{};
  unsigned next_ = 0;
};

/// Without the opt-in a block gets 48 KiB of shared memory, its static and dynamic parts together; past that a
/// kernel needs cudaFuncAttributeMaxDynamicSharedMemorySize >= `bytes` (per device and kernel; cheap to repeat).
/// The kernel's own static shared memory counts toward the 48 KiB (compound gather16's side tables, 2.5 KiB:
/// 46944 dynamic bytes for 84-byte units failed to launch without the opt-in), so launches within
/// max_static_smem of the limit opt in too: setting the attribute where it was not needed costs nothing, and
/// no query of the kernel's attributes sits on the launch path. No kernel that takes dynamic shared memory
/// declares more than max_static_smem bytes of static.
template <class Kernel>
status allow_dynamic_smem(Kernel* kernel, std::int64_t bytes, const char* what) {
  constexpr std::int64_t no_optin = 48 * 1024, max_static_smem = 8 * 1024;
  if (bytes <= no_optin - max_static_smem) return status::ok();
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
      e != cudaSuccess)
    return cuda_failure(e, what);
  return status::ok();
}

/// Lowest set bit of x (its power-of-two alignment); 0 for x == 0.
constexpr std::uint64_t lowbit(std::uint64_t x) { return x & (~x + 1); }

struct transpose2d_params;

status launch_transpose2d(const plan_geometry& g, const void* d_in, void* d_out, cudaStream_t stream,
                          const device_info& dev);
status launch_rows(const plan_geometry& g, const void* d_in, void* d_out, cudaStream_t stream,
                   const device_info& dev);

/// skinny16 (dispatch/skinny16.cu): n x k <-> k x n with a compiled micro-kernel for this unit size and k.
bool skinny16_applies(std::int64_t unit_bytes, std::int64_t k);
/// p: transpose2d parameters with tiles_total = the batch count; aos_to_soa: the input is the packed n x k side.
status launch_skinny16(transpose2d_params p, std::int64_t unit_bytes, std::int64_t k, bool aos_to_soa,
                       cudaStream_t stream);

/// skinny16 flat batches (dispatch/skinny16_flat.cu): matrices a tile for b x k x n <-> b x n x k packed
/// batches of small matrices, 0 when the flat kernel does not apply (n U not whole pieces, < 2 matrices a tile).
std::int64_t skinny16_flat_matrices(std::int64_t unit_bytes, std::int64_t k, std::int64_t n);
/// p: transpose2d parameters of a packed batch (batch_rank 1); aos_to_soa: the input matrices are n x k.
status launch_skinny16_flat(transpose2d_params p, std::int64_t unit_bytes, std::int64_t k, bool aos_to_soa,
                            cudaStream_t stream);

struct box_plan;
/// box (dispatch/box.cu): a box plan from make_box (plan/box.hpp).
/// 1-byte units take box16 (16-byte aligned accesses whatever the runs' alignment; its loads stay inside
/// the `in_span` bytes from d_in).
status launch_box(const box_plan& b, const void* d_in, void* d_out, std::int64_t in_span, cudaStream_t stream,
                  const device_info& dev);
/// Whether a box's shared memory (offset tables and data, up to ~72 KiB for 32 KiB boxes) fits the device's
/// opt-in limit (227 KiB on Hopper and Ampere A100, 64 KiB on Turing); the dispatcher takes tiles otherwise.
bool box_fits(const box_plan& b, const device_info& dev);

/// skinny_odd (dispatch/skinny_odd.cu): n x k <-> k x n of 3-, 5-, 6-, 7-, 10-, 12- and 14-byte units.
bool skinny_odd_applies(std::int64_t unit_bytes);
/// p: transpose2d parameters with tiles_total = the batch count; aos_to_soa: the input is the packed n x k side.
status launch_skinny_odd(transpose2d_params p, std::int64_t unit_bytes, std::int64_t k, bool aos_to_soa,
                         cudaStream_t stream);

/// skinny_odd tiles (dispatch/skinny_odd.cu): a plain 2-D transpose of 5-, 7-, 10- or 14-byte units, tiles of
/// K columns (~160-224 bytes) x up to ~125 rows.
status launch_skinny_odd_tiles(transpose2d_params p, std::int64_t unit_bytes, cudaStream_t stream);

/// pixel48 (dispatch/pixel48.cu): plain 2-D transposes of 3-, 6-, 12- and 24-byte units.
bool pixel48_applies(std::int64_t unit_bytes);
/// p: transpose2d parameters with tiles_total = the batch count; out_aligned16: the output's base, pitch and
/// batch strides are 16-byte multiples.
status launch_pixel48(transpose2d_params p, std::int64_t unit_bytes, bool out_aligned16, const device_info& dev,
                      cudaStream_t stream);

/// pieces (dispatch/pieces.cu): plain 2-D transposes of odd units of 3-15 bytes (3 only for problems of up to
/// pieces_policy::rgb8_max_bytes), every pointer, pitch and batch stride on the 16-byte grid, where the device
/// gives a block the kernel's shared memory.
bool pieces_applies(std::int64_t unit_bytes, std::int64_t problem_bytes, const device_info& dev);
/// p: transpose2d parameters with tiles_total = the batch count.
status launch_pieces(transpose2d_params p, std::int64_t unit_bytes, const device_info& dev, cudaStream_t stream);

/// The alignment bits of a transpose2d geometry's strides in bytes: all of them, the input side's (batch input
/// strides, row side) and the output side's (batch output strides, column side).
struct stride_bits {
  std::uint64_t all = 0, in = 0, out = 0;
};

/// Fills a kernel's batch map and row / column side maps from `g` (strides in bytes: words x word_bytes) and
/// returns their strides' alignment bits. Every transpose2d family's launcher shares it.
template <class BatchMap, class SideMap>
stride_bits fill_index_maps(const plan_geometry& g, BatchMap& batch, SideMap& row_map, SideMap& col_map) {
  const std::int64_t wb = g.word_bytes;
  stride_bits bits;
  batch.rank = g.batch_rank;
  for (int i = 0; i < g.batch_rank; ++i) {
    batch.extent[i] = fast_divmod(static_cast<std::uint64_t>(g.batch_extent[i]));
    batch.in_stride[i] = g.batch_in_stride[i] * wb;
    batch.out_stride[i] = g.batch_out_stride[i] * wb;
    bits.in |= static_cast<std::uint64_t>(batch.in_stride[i]);
    bits.out |= static_cast<std::uint64_t>(batch.out_stride[i]);
  }
  row_map.rank = g.row_rank;
  for (int k = 0; k < g.row_rank; ++k) {
    row_map.extent[k] = fast_divmod(static_cast<std::uint64_t>(g.row_extent[k]));
    row_map.stride[k] = g.row_in_stride[k] * wb;
    bits.in |= static_cast<std::uint64_t>(row_map.stride[k]);
  }
  col_map.rank = g.col_rank;
  for (int k = 0; k < g.col_rank; ++k) {
    col_map.extent[k] = fast_divmod(static_cast<std::uint64_t>(g.col_extent[k]));
    col_map.stride[k] = g.col_out_stride[k] * wb;
    bits.out |= static_cast<std::uint64_t>(col_map.stride[k]);
  }
  bits.all = bits.in | bits.out;
  return bits;
}

/// wide (dispatch/wide.cu): transpose2d of units of >= wide_min_unit_bytes whose pointers, strides and unit size
/// are 8-byte multiples (plain or compound sides). `launched` false (status ok): the problem does not qualify.
status try_launch_wide(const plan_geometry& g, const void* d_in, void* d_out, cudaStream_t stream,
                       const device_info& dev, bool& launched);

/// bulk (dispatch/bulk.cu): plain 2-D (or singly batched) transposes whose input tiles the copy engine stages
/// (sm_90 and later; input 16-byte aligned). bulk8: 1-byte units, output 8-byte aligned; bulk16: 2-, 4- and
/// 8-byte units, output 16-byte aligned. Each returns false, launching nothing, when the problem or the device
/// does not qualify; otherwise `launched` holds the launch's status.
/// p: transpose2d parameters with tiles_total = the batch count.
bool try_launch_bulk8(const transpose2d_params& p, const device_info& dev, bool compound, cudaStream_t stream,
                      status& launched);
bool try_launch_bulk16(const transpose2d_params& p, std::int64_t unit_bytes, const device_info& dev, bool compound,
                       cudaStream_t stream, status& launched);
/// The tensor of `rank` (<= 5) dimensions of unit_bytes-byte elements (1, 2, 4; 8 otherwise) at `base` (dims[0]
/// contiguous elements; strides[k] bytes between steps of dimension k + 1, 16-byte multiples below 2^40),
/// copied in boxes of box[0] x ... elements: the driver's cuTensorMapEncodeTiled into `map` (a CUtensorMap,
/// 64-byte aligned, 128 bytes), for the tensor copies of kernels/bulk.cuh. False when the driver has no encoder or
/// refuses the tensor.
bool encode_tensor_map(void* map, int unit_bytes, int rank, const void* base, const std::uint64_t* dims,
                       const std::uint64_t* strides, const std::uint32_t* box);
/// Whether `kernel` was built for sm_90 or later: below that its tensor copies are compiled out (a build for older
/// targets JIT-compiled on a Hopper must not run it).
bool built_with_tensor_copies(const void* kernel);

}  // namespace xpose::detail
