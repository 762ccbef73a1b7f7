// Tuning of the transpose2d family (kernels/transpose2d.cuh, dispatch/transpose2d.cu).
//
// vec16 path: a tile is (V*MR) input rows x (V*MC) input units, V = 16 / UnitBytes units per 16-byte
// vector; each thread moves `P` micro-tiles of V x V units (V 16-byte loads, a register transpose, V 16-byte
// shared-memory stores). Every tile is 16 KiB of shared memory: with <= 256 threads a block, an H100 SM keeps
// 6-8 tiles (96-128 KiB) in flight, which is what ~3 TB/s at ~1 us latency needs (HOPPER.md, METHOD.md).
// MR, MC >= 8 keep both the input row segment (16*MC bytes) and the output row segment (16*MR bytes) at
// >= 128 bytes (whole sectors) and make the XOR swizzle conflict-free (8 distinct 16-byte bank groups).
#pragma once

namespace xpose::detail {

template <int UnitBytes>
struct transpose2d_vec16_policy;

// 128 x 128 bytes; 64 threads x 256 bytes in flight each (16 x 16 byte register transpose).
template <>
struct transpose2d_vec16_policy<1> {
  static constexpr int mr = 8, mc = 8, per_thread = 1;
};
// 64 x 128 units; 128 threads.
template <>
struct transpose2d_vec16_policy<2> {
  static constexpr int mr = 8, mc = 16, per_thread = 1;
};
// 64 x 64 units; 256 threads.
template <>
struct transpose2d_vec16_policy<4> {
  static constexpr int mr = 16, mc = 16, per_thread = 1;
};
// 32 x 64 units; 256 threads x 2 micro-tiles.
template <>
struct transpose2d_vec16_policy<8> {
  static constexpr int mr = 16, mc = 32, per_thread = 2;
};
// 32 x 32 units; 256 threads x 4 micro-tiles.
template <>
struct transpose2d_vec16_policy<16> {
  static constexpr int mr = 32, mc = 32, per_thread = 4;
};

/// words path (any alignment, any unit of K words): square tiles of `tile` units, 256 threads.
/// 32 units a side while a unit is <= 16 bytes, 16 for units up to 64 bytes: at most 16 KiB of data.
struct transpose2d_words_policy {
  static constexpr int threads = 256;
  static constexpr int smem_bytes = 16384;
};

}  // namespace xpose::detail
