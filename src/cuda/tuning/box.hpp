// Tuning of the box family (kernels/box.cuh, dispatch/box.cu; box shapes: plan/box.hpp).
#pragma once

namespace xpose::detail {

struct box_policy {
  static constexpr int threads = 256;
  /// Loads a thread issues before their shared-memory stores (a box of 2048 elements: 8 per thread).
  static constexpr int loads_in_flight = 4;
  /// Resident blocks an SM the grid aims at (36 KiB of shared memory a block: 6 fit on an H100 SM); blocks
  /// loop over boxes, so the offset tables are built once per block, not per box.
  static constexpr int blocks_per_sm = 6;
};

}  // namespace xpose::detail
