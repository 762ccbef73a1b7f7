// xpose — the description of one layout change.
//
// ## The axes convention (stated once; everything else refers here)
//
// Arrays are row-major with NumPy semantics: the last axis is the fastest when the array is packed.
// `problem{shape, axes}` means exactly `numpy.ascontiguousarray(numpy.transpose(in, axes))`:
//
//   out.shape[i]            == in.shape[axes[i]]
//   out[j_0, ..., j_{n-1}]  == in[i_0, ..., i_{n-1}]   where i_{axes[k]} = j_k
//
// Worked example: NCHW -> NHWC on a 2x3x4x5 float array is
//   problem{.shape = {2, 3, 4, 5}, .axes = {0, 2, 3, 1}, .elem_bytes = 4}
// and the output has shape {2, 4, 5, 3}. A plain matrix transpose of `rows x cols` is
// `shape = {rows, cols}, axes = {1, 0}`. Empty `axes` means "reverse all axes" (NumPy's default);
// negative axes count from the end (-1 is the last axis).
//
// Column-major (Fortran, BLAS) callers: a column-major m x n matrix is a row-major n x m one, so transposing
// it is `shape = {n, m}, axes = {1, 0}`: reverse the shape, keep the axes.
//
// ## Strides
// Optional, counted in *elements* (not bytes), 64-bit. `in_strides[k]` belongs to input axis k;
// `out_strides[i]` belongs to output axis i (output order!). Empty means packed row-major. Input strides
// must be >= 0 (0 broadcasts); output strides must be >= 1 and the output must not overlap itself. An axis of
// extent 1 takes any stride (it is never stepped). Byte offsets one step past the end of every axis must fit
// in 64 bits. A pitched (leading-dimension) matrix is `in_strides = {ld, 1}`. Every error: docs/errors.md.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

namespace xpose {

/// Largest number of axes a problem may have (before size-1 axes are dropped and axes fused).
inline constexpr int max_rank = 8;

/// One layout change: `out = transpose(in, axes)` on arrays of `elem_bytes`-byte elements.
struct problem {
  std::vector<std::int64_t> shape;        ///< input extents, slowest axis first
  std::vector<std::int64_t> axes;         ///< output axis i takes input axis axes[i]; empty = reversed
  std::int64_t elem_bytes = 0;            ///< any size >= 1: 1, 2, 4, 8, 16 natively, others factored
  std::vector<std::int64_t> in_strides;   ///< per input axis, in elements; empty = packed
  std::vector<std::int64_t> out_strides;  ///< per output axis, in elements; empty = packed
};

std::ostream& operator<<(std::ostream& os, const problem& p);

}  // namespace xpose
