// rows dispatch: rows of <= wide_max_row_bytes that are the units of a 2-D transpose of the other axes
// (rows_as_transpose) -> wide tiles (dispatch/wide.cu) when they take them; otherwise the widest chunk (16, 8,
// 4, 2, 1 bytes) dividing the row length, both base pointers and every batch stride -> rows_kernel<chunk>
// (kernels/rows.cuh); when that is < 16 and rows are >= 64 bytes, rows_shift16_kernel (16-byte accesses
// realigned in registers) instead.
#include <algorithm>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/rows.cuh"
#include "cuda/tuning/wide.hpp"
#include "plan/planner.hpp"
#include "plan/span.hpp"

namespace xpose::detail {

namespace {

template <int VecBytes>
status launch(rows_params p, std::uint64_t row_bytes, std::uint64_t rows, cudaStream_t stream,
              const device_info& dev) {
  const std::uint64_t per_row = row_bytes / VecBytes;
  p.chunks_per_row = fast_divmod(per_row);
  p.total_chunks = per_row * rows;
  // Enough blocks to fill every SM several times over; the grid-stride loop does the rest.
  const std::uint64_t wanted = (p.total_chunks + rows_threads - 1) / rows_threads;
  const std::uint64_t cap = static_cast<std::uint64_t>(std::max(dev.sm_count, 1)) * 32;
  const unsigned grid = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min(wanted, cap)));
  rows_kernel<VecBytes><<<grid, rows_threads, 0, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "rows launch");
  return status::ok();
}

}  // namespace

status launch_rows(const plan_geometry& g, const void* d_in, void* d_out, cudaStream_t stream,
                   const device_info& dev) {
  const std::int64_t wb = g.word_bytes;
  const auto row_bytes = static_cast<std::uint64_t>(g.elem_words * wb);
  // Rows that are the units of a 2-D transpose of the other axes (a permutation keeping its fastest axis:
  // [B, S, H, D] -> [B, H, S, D]): the wide tiles read and write runs of several rows on both sides.
  if (row_bytes <= wide_max_row_bytes) {
    const plan_geometry t = rows_as_transpose(g);
    bool launched = false;
    if (t.algo == algorithm::transpose2d)
      if (status s = try_launch_wide(t, d_in, d_out, stream, dev, launched); !s || launched) return s;
  }
  if (g.batch_rank > rows_max_batch_rank) return status(status_code::internal, "rows: batch rank too large");
  rows_params p{};
  p.in = static_cast<const unsigned char*>(d_in);
  p.out = static_cast<unsigned char*>(d_out);
  p.batch.rank = g.batch_rank;
  std::uint64_t align_bits = reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out) | row_bytes;
  for (int i = 0; i < g.batch_rank; ++i) {
    p.batch.extent[i] = fast_divmod(static_cast<std::uint64_t>(g.batch_extent[i]));
    p.batch.in_stride[i] = g.batch_in_stride[i] * wb;
    p.batch.out_stride[i] = g.batch_out_stride[i] * wb;
    align_bits |= static_cast<std::uint64_t>(p.batch.in_stride[i]) | static_cast<std::uint64_t>(p.batch.out_stride[i]);
  }
  const auto rows = static_cast<std::uint64_t>(g.batch_count());
  // 16-byte chunks realigned in registers, unless rows are so short (< 64 bytes, <= 5 chunks) that the
  // phases' extra chunk and bytewise ends cost more than narrow chunks.
  constexpr std::uint64_t shift16_min_row_bytes = 64;
  if (lowbit(align_bits) < 16 && row_bytes >= shift16_min_row_bytes) {
    p.row_bytes = row_bytes;
    p.rows = rows;
    // The input's bytes: the 16-byte loads may cover other rows' bytes, never others.
    p.in_lo = reinterpret_cast<std::uintptr_t>(d_in);
    p.in_hi = p.in_lo + input_span_bytes(g);
    const std::uint64_t chunks = (row_bytes + 30) / 16;  // of the output grid, worst phase
    const bool per_row = chunks > rows_flat_max_chunks;
    // Per row: warps over (row, segment), a segment the whole row when there are rows enough for 16 warps an
    // SM; flattened: threads over (row, chunk).
    const bool few_rows = rows < 16 * static_cast<std::uint64_t>(std::max(dev.sm_count, 1));
    p.segment_chunks = few_rows ? rows_segment_chunks : chunks;
    const std::uint64_t per = per_row ? (chunks + p.segment_chunks - 1) / p.segment_chunks : chunks;
    p.chunks_per_row = fast_divmod(per);
    p.total_chunks = per * rows;
    const std::uint64_t wanted = per_row ? (p.total_chunks + rows_threads / 32 - 1) / (rows_threads / 32)
                                         : (p.total_chunks + rows_threads - 1) / rows_threads;
    const std::uint64_t cap = static_cast<std::uint64_t>(std::max(dev.sm_count, 1)) * 32;
    const unsigned grid = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min(wanted, cap)));
    if (per_row) rows_shift16_kernel<true><<<grid, rows_threads, 0, stream>>>(p);
    else rows_shift16_kernel<false><<<grid, rows_threads, 0, stream>>>(p);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "rows_shift16 launch");
    return status::ok();
  }
  switch (std::min<std::uint64_t>(lowbit(align_bits), 16)) {
    case 16: return launch<16>(p, row_bytes, rows, stream, dev);
    case 8: return launch<8>(p, row_bytes, rows, stream, dev);
    case 4: return launch<4>(p, row_bytes, rows, stream, dev);
    case 2: return launch<2>(p, row_bytes, rows, stream, dev);
    default: return launch<1>(p, row_bytes, rows, stream, dev);
  }
}

}  // namespace xpose::detail
