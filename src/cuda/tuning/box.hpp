// Tuning of the box family (kernels/box.cuh, dispatch/box.cu; box shapes: plan/box.hpp).
#pragma once

namespace xpose::detail {

struct box_policy {
  static constexpr int threads = 256;
  /// Loads a thread issues before their shared-memory stores (a box of 2048 elements: 8 per thread).
  static constexpr int loads_in_flight = 4;
  /// The grid is as many blocks as are resident at once: 2048 threads an SM, and shared memory (14 bytes an
  /// element for fp32 boxes; H100: 228 KiB an SM, 1 KiB reserved a block). Blocks loop over boxes, so the
  /// offset tables are built once per block, not per box. (6 fixed blocks an SM for 4096-element boxes of
  /// 56 KiB did not fit: fp32 4x51 tiles' boxes of 1428 elements ran 0.747 with 6, 0.682 with 4.)
  static constexpr int max_blocks_per_sm = 2048 / threads;
  static constexpr int smem_per_sm = 228 * 1024;
};

/// box16 (1- and 2-byte units): boxes staged together by a block, at most this many, and the shared memory
/// a block may then take.
inline constexpr long long box16_max_group = 16;
inline constexpr unsigned box16_group_smem = 64 * 1024;

}  // namespace xpose::detail
