// transpose2d dispatch: run-time facts (unit size, pointer/pitch alignment) -> a compile-time instantiation
// of kernels/transpose2d.cuh, tuned by tuning/transpose2d.hpp.
//
//   unit in {1,2,4,8,16} B and every base/pitch/batch stride 16-byte aligned  -> vec16<unit>
//   otherwise                                                                    -> words<A>, A = the largest
//     power of two <= word_bytes dividing all of them; a unit is then K = unit / A words.
#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/transpose2d.cuh"

namespace xpose::detail {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

unsigned grid_for(std::int64_t tiles) { return static_cast<unsigned>(tiles < INT_MAX ? tiles : INT_MAX); }

template <int UnitBytes>
status launch_vec16(transpose2d_params p, cudaStream_t stream) {
  using S = vec16_shape<UnitBytes>;
  p.tiles_r = ceil_div(p.rows, S::tile_rows);
  p.tiles_c = ceil_div(p.cols, S::tile_cols);
  p.tiles_total = p.tiles_r * p.tiles_c * static_cast<std::int64_t>(p.tiles_total);  // tiles_total held batch
  transpose2d_vec16_kernel<UnitBytes><<<grid_for(p.tiles_total), S::threads, 0, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_vec16 launch");
  return status::ok();
}

template <int WordBytes>
status launch_words(transpose2d_params p, cudaStream_t stream) {
  const std::int64_t unit_bytes = p.unit_words * WordBytes;
  const int tile = words_tile_side(unit_bytes);
  p.tiles_r = ceil_div(p.rows, tile);
  p.tiles_c = ceil_div(p.cols, tile);
  p.tiles_total = p.tiles_r * p.tiles_c * static_cast<std::int64_t>(p.tiles_total);
  if (tile == 32)
    transpose2d_words_kernel<WordBytes, 32><<<grid_for(p.tiles_total), transpose2d_words_policy::threads, 0, stream>>>(p);
  else
    transpose2d_words_kernel<WordBytes, 16><<<grid_for(p.tiles_total), transpose2d_words_policy::threads, 0, stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "transpose2d_words launch");
  return status::ok();
}

}  // namespace

status launch_transpose2d(const plan_geometry& g, const void* d_in, void* d_out, cudaStream_t stream,
                          const device_info&) {
  const std::int64_t wb = g.word_bytes;
  const std::int64_t unit = g.elem_words * wb;
  if (unit > 64) return status(status_code::internal, "transpose2d unit larger than 64 bytes");

  transpose2d_params p{};
  p.in = static_cast<const unsigned char*>(d_in);
  p.out = static_cast<unsigned char*>(d_out);
  p.rows = g.rows;
  p.cols = g.cols;
  p.in_ld = g.in_ld * wb;
  p.out_ld = g.out_ld * wb;
  p.batch.rank = g.batch_rank;
  std::uint64_t align_bits = reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out) |
                             static_cast<std::uint64_t>(p.in_ld) | static_cast<std::uint64_t>(p.out_ld);
  for (int i = 0; i < g.batch_rank; ++i) {
    p.batch.extent[i] = fast_divmod(static_cast<std::uint64_t>(g.batch_extent[i]));
    p.batch.in_stride[i] = g.batch_in_stride[i] * wb;
    p.batch.out_stride[i] = g.batch_out_stride[i] * wb;
    align_bits |= static_cast<std::uint64_t>(p.batch.in_stride[i]) | static_cast<std::uint64_t>(p.batch.out_stride[i]);
  }
  p.tiles_total = g.batch_count();  // the launchers multiply in the tiles per matrix
  const std::uint64_t align = align_bits == 0 ? 16 : lowbit(align_bits);

  if (align % 16 == 0) {
    switch (unit) {
      case 1: return launch_vec16<1>(p, stream);
      case 2: return launch_vec16<2>(p, stream);
      case 4: return launch_vec16<4>(p, stream);
      case 8: return launch_vec16<8>(p, stream);
      case 16: return launch_vec16<16>(p, stream);
      default: break;
    }
  }
  std::int64_t a = wb;
  while (a > 1 && align % static_cast<std::uint64_t>(a) != 0) a /= 2;
  p.unit_words = unit / a;
  switch (a) {
    case 1: return launch_words<1>(p, stream);
    case 2: return launch_words<2>(p, stream);
    case 4: return launch_words<4>(p, stream);
    case 8: return launch_words<8>(p, stream);
    case 16: return launch_words<16>(p, stream);
    default: return status(status_code::internal, "transpose2d: bad word size");
  }
}

}  // namespace xpose::detail
