// In-place family dispatch: pointer checks, the word size, and the passes of `square`, `shuffle` and
// `tile_cycles`
// (kernels/inplace.cuh, tuning/inplace.hpp).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "cuda/dispatch/dispatch.hpp"
#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/inplace.cuh"
#include "plan/inplace.hpp"

namespace xpose::detail {

namespace {

// Largest power of two <= 16 dividing every value.
std::int64_t common_word(std::initializer_list<std::uint64_t> values) {
  std::uint64_t w = 16;
  for (std::uint64_t v : values)
    if (v != 0) w = std::min<std::uint64_t>(w, lowbit(v));
  return static_cast<std::int64_t>(w);
}

// Calls f.template operator()<Word>() with the word type of `word` bytes (1, 2, 4, 8; 16 otherwise): every
// in-place kernel moves whole words of the largest size its unit and alignment allow.
template <class F>
status with_word(std::int64_t word, const F& f) {
  switch (word) {
    case 1: return f.template operator()<std::uint8_t>();
    case 2: return f.template operator()<std::uint16_t>();
    case 4: return f.template operator()<std::uint32_t>();
    case 8: return f.template operator()<uint2>();
    default: return f.template operator()<uint4>();
  }
}

// The caller's workspace rounded up to 256 bytes (the plans size it with workspace_slack for this).
unsigned char* aligned256(void* p) {
  auto* b = static_cast<unsigned char*>(p);
  return b == nullptr ? nullptr : b + (256 - reinterpret_cast<std::uintptr_t>(b) % 256) % 256;
}

// Word of the moves of `piece`-byte pieces of g's matrices: what the piece, the base and the batch stride allow.
std::int64_t data_word(const inplace_geometry& g, const void* data, std::int64_t piece) {
  return common_word({static_cast<std::uint64_t>(piece), reinterpret_cast<std::uint64_t>(data),
                      static_cast<std::uint64_t>(g.batch > 1 ? g.batch_stride * g.elem_bytes : 0)});
}

// Opts `kernel` into `smem` bytes of dynamic shared memory and launches it over `blocks` x `threads`.
template <class Kernel, class Params>
status launch(Kernel* kernel, std::int64_t blocks, int threads, std::int64_t smem, cudaStream_t stream,
              const Params& p, const char* what) {
  if (status s = allow_dynamic_smem(kernel, smem, what); !s) return s;
  kernel<<<static_cast<unsigned>(blocks), threads, static_cast<std::size_t>(smem), stream>>>(p);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, what);
  return status::ok();
}

// ---- square ----------------------------------------------------------------------------------------------

template <int U>
status launch_square_vec16(const inplace_square_params& p, cudaStream_t stream, const device_info& dev) {
  using S = square_shape<U>;
  return launch(inplace_square_vec16_kernel<U>, std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * 64),
                S::threads, 2 * std::int64_t{S::tile_rows} * S::MR * 16, stream, p, "inplace square_vec16");
}

status launch_square_vec8(const inplace_square_params& p, cudaStream_t stream, const device_info& dev) {
  using S = square_vec8_shape<>;
  return launch(inplace_square_vec8_kernel<>, std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * 64),
                S::threads, 0, stream, p, "inplace square_vec8");
}

// square_bulk8 on a batch of plain squares (p.grid 1 x 1) of 1-byte units on 16-byte aligned rows; false when the
// device, the build or the tensor does not qualify (nothing launched), else `launched` holds the launch's status.
bool try_launch_square_bulk8(const inplace_square_params& p, std::int64_t batch, cudaStream_t stream,
                             const device_info& dev, status& launched) {
  using S = square_vec8_shape<>;
  static const bool tensor_copies = built_with_tensor_copies(reinterpret_cast<const void*>(inplace_square_bulk8_kernel<>));
  if (dev.cc_major < 9 || !tensor_copies) return false;
  alignas(64) CUtensorMap map;
  const std::uint64_t dims[3] = {static_cast<std::uint64_t>(p.n), static_cast<std::uint64_t>(p.n),
                                 static_cast<std::uint64_t>(batch)};
  const std::uint64_t strides[2] = {static_cast<std::uint64_t>(p.ld),
                                    static_cast<std::uint64_t>(batch > 1 ? p.batch_stride : p.ld * p.n)};
  const std::uint32_t box[3] = {S::T, S::T, 1};
  if (!encode_tensor_map(&map, 1, 3, p.data, dims, strides, box)) return false;
  inplace_square_bulk8_kernel<><<<static_cast<unsigned>(std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * 64)),
                                  S::threads, 0, stream>>>(map, p);
  const cudaError_t e = cudaGetLastError();
  launched = e == cudaSuccess ? status::ok() : cuda_failure(e, "inplace square_bulk8 launch");
  return true;
}

template <int U>
status launch_square_units(const inplace_square_params& p, cudaStream_t stream, const device_info& dev) {
  using P = inplace_square_units_policy<U>;
  return launch(inplace_square_units_kernel<U>, std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * 64),
                P::threads, square_units_smem<U>(), stream, p, "inplace square_units");
}

template <int U, class Policy = inplace_square_async_policy<U>>
status launch_square_async(const inplace_square_params& p, cudaStream_t stream, const device_info& dev) {
  using S = square_async_shape<U, Policy>;
  return launch(inplace_square_async_kernel<U, Policy>,
                std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * Policy::min_blocks), S::threads,
                S::smem_bytes, stream, p, "inplace square_async");
}
template <int U>
status launch_square_shift16(const inplace_square_params& p, cudaStream_t stream, const device_info& dev) {
  using S = square_shape<U>;
  return launch(inplace_square_shift16_kernel<U>, std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * 64),
                S::threads, 2 * std::int64_t{S::tile_cols} * S::MR * 16, stream, p, "inplace square_shift16");
}

template <int U>
status launch_square_permute(const inplace_square_params& p, cudaStream_t stream, const device_info& dev) {
  using S = square_permute_shape<U>;
  return launch(inplace_square_permute_kernel<U>, std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * 8),
                S::threads, S::smem_bytes, stream, p, "inplace square_permute");
}

template <class Word>
status launch_square_words(inplace_square_params p, cudaStream_t stream, const device_info& dev) {
  const std::int64_t smem = 2 * std::int64_t{p.tile} * (std::int64_t{p.tile} * p.unit_words + 1) * sizeof(Word);
  const bool single = p.unit_words == 1 && p.tile == square_words_single_tile;
  return launch(single ? inplace_square_words_kernel<Word, true> : inplace_square_words_kernel<Word, false>,
                std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * 32), square_words_threads, smem, stream, p,
                "inplace square_words");
}

// `mats` squares of `side` units with row pitch `ld` bytes: matrix k of the batch (batch_stride bytes apart)
// is a grid of A x B squares, `row_stride` / `col_stride` bytes apart (1 x 1 for `square`).
struct square_grid {
  std::int64_t side, ld, batch, batch_stride, A = 1, B = 1, row_stride = 0, col_stride = 0;
};

status run_squares(std::int64_t U, const square_grid& q, void* data, cudaStream_t stream, const device_info& dev) {
  inplace_square_params p{};
  p.data = static_cast<unsigned char*>(data);
  p.n = q.side;
  p.ld = q.ld;
  p.batch_stride = q.batch_stride;
  p.grid = fast_divmod(static_cast<std::uint64_t>(q.A * q.B));
  p.grid_b = fast_divmod(static_cast<std::uint64_t>(q.B));
  p.grid_row_stride = q.row_stride;
  p.grid_col_stride = q.col_stride;
  const std::uint64_t bs = static_cast<std::uint64_t>(q.batch > 1 ? p.batch_stride : 0);
  const auto rs = static_cast<std::uint64_t>(q.row_stride), cs = static_cast<std::uint64_t>(q.col_stride);
  const std::int64_t word = common_word({static_cast<std::uint64_t>(U), reinterpret_cast<std::uint64_t>(data),
                                         static_cast<std::uint64_t>(p.ld), bs, rs, cs});
  // Alignment of every row start (base, pitch, batch and grid strides): 16 bytes or less.
  const std::int64_t row_align =
      common_word({reinterpret_cast<std::uint64_t>(data), static_cast<std::uint64_t>(p.ld), bs, rs, cs});
  const bool rows_aligned16 = row_align == 16, rows_aligned8 = row_align >= 8;
  const std::int64_t mats = q.batch * q.A * q.B;
  // The squares' bytes, first to last (square_shift16's and square_gather_any's aligned chunks of rows off the
  // 16-byte grid may reach past both; they read bytewise there).
  p.lo = reinterpret_cast<std::uint64_t>(data);
  p.hi = p.lo + static_cast<std::uint64_t>((q.batch - 1) * q.batch_stride + (q.A - 1) * q.row_stride +
                                           (q.B - 1) * q.col_stride + (q.side - 1) * q.ld + q.side * U);
  auto pairs_for = [&](std::int64_t T) {  // tile pairs of all the squares with T-unit tiles
    const std::int64_t tiles = (q.side + T - 1) / T;
    return mats * (tiles * (tiles + 1) / 2);
  };
  auto set_tiles = [&](std::int64_t T) {
    p.tile = static_cast<int>(T);
    p.tiles = (q.side + T - 1) / T;
    p.pairs = fast_divmod(static_cast<std::uint64_t>(p.tiles * (p.tiles + 1) / 2));
    p.tasks = pairs_for(T);
  };
  // 1-byte units in 128 x 128-byte tiles (tuning/inplace.hpp): staged by tensor copies on 16-byte aligned rows of
  // plain squares up to bulk8_max_matrix_bytes, loaded into registers on 8-byte aligned ones.
  if (U == 1 && rows_aligned16 && q.A == 1 && q.B == 1 && q.side * q.ld <= bulk8_max_matrix_bytes) {
    set_tiles(square_vec8_shape<>::T);
    if (status launched; try_launch_square_bulk8(p, q.batch, stream, dev, launched)) return launched;
  }
  if (U == 1 && rows_aligned8 && !rows_aligned16) {
    set_tiles(square_vec8_shape<>::T);
    return launch_square_vec8(p, stream, dev);
  }
  if (rows_aligned16) {
    switch (U) {
      case 1: set_tiles(square_shape<1>::tile_rows); return launch_square_vec16<1>(p, stream, dev);
      case 2: set_tiles(square_async_shape<2>::T); return launch_square_async<2>(p, stream, dev);
      case 4: set_tiles(square_shape<4>::tile_rows); return launch_square_vec16<4>(p, stream, dev);
      case 8: set_tiles(square_shape<8>::tile_rows); return launch_square_vec16<8>(p, stream, dev);
      case 16: set_tiles(square_shape<16>::tile_rows); return launch_square_vec16<16>(p, stream, dev);
      default: break;
    }
  }
  // Rows off the 16-byte grid but on the unit's own, 4- and 8-byte units: square_units (tuning/inplace.hpp).
  if ((U == 4 || U == 8) && row_align % U == 0) {
    auto go = [&]<int V>() {
      set_tiles(32 * inplace_square_units_policy<V>::units_a_word);
      return launch_square_units<V>(p, stream, dev);
    };
    return U == 4 ? go.template operator()<4>() : go.template operator()<8>();
  }
  // Rows off the 16-byte grid, 1- and 2-byte units: realigned 16-byte accesses (tuning/inplace.hpp says why not
  // wider units).
  if (U == 1 || U == 2) {
    set_tiles(U == 1 ? square_shape<1>::shift_step_rows : square_shape<2>::shift_step_rows);
    return U == 1 ? launch_square_shift16<1>(p, stream, dev) : launch_square_shift16<2>(p, stream, dev);
  }
  // Odd units of 3-15 bytes on 16-byte aligned rows: square_permute where the pairs fill the
  // GPU many times over (a block holds one pair of 64-128-unit tiles) and the device lets a block have that much
  // shared memory, else square_gather (tuning/inplace.hpp gives the figures).
  const std::int64_t sms = dev.sm_count;
  if (rows_aligned16 && U <= 15 && inplace_square_permute_policy::runs(static_cast<int>(U))) {
    status launched = status::ok();
    bool taken = false;
    auto go = [&]<int V>() {
      using S = square_permute_shape<V>;
      if (S::smem_bytes > dev.smem_optin || pairs_for(S::T) < inplace_square_permute_policy::min_pairs_per_sm * sms)
        return;
      set_tiles(S::T);
      static_cast<void>(launched = launch_square_permute<V>(p, stream, dev));  // status is [[nodiscard]]
      taken = true;
    };
    switch (U) {
      case 3: go.template operator()<3>(); break;
      case 5: go.template operator()<5>(); break;
      case 7: go.template operator()<7>(); break;
      case 9: go.template operator()<9>(); break;
      case 11: go.template operator()<11>(); break;
      case 13: go.template operator()<13>(); break;
      case 15: go.template operator()<15>(); break;
      default: break;
    }
    if (taken) return launched;
  }
  if (rows_aligned16 && U <= square_gather_max_unit) {
    const std::int64_t G = common_word({static_cast<std::uint64_t>(U)});
    p.unit_words = static_cast<int>(U / G);
    const int u = static_cast<int>(U);
    // Wide tiles (13-15-byte units) where there are enough pairs an SM for one 1024-thread block each.
    const bool wide = square_gather_wide_unit(u) && square_gather_smem(u, true) <= dev.smem_optin &&
                      pairs_for(square_gather_tile(u, true)) >= square_gather_wide_min_pairs_per_sm * sms;
    set_tiles(square_gather_tile(u, wide));
    p.chunk_magic = magic_u16(static_cast<unsigned>(p.tile * U / 16));
    p.unit_magic = magic_u16(static_cast<unsigned>(U));
    const std::int64_t smem = square_gather_smem(u, wide);
    // Not only resident blocks: a block takes a pair or a few, and the next starts where one ends (wide tiles,
    // 15-byte 16384^2: 0.856 so, 0.820 with one persistent block an SM).
    const std::int64_t blocks = std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * 32);
    const int threads = square_gather_threads(u, wide), loads = square_gather_loads(u, wide);
    auto go = [&]<int L, int Threads>() {
      auto run = [&](auto kernel) { return launch(kernel, blocks, Threads, smem, stream, p, "inplace square_gather"); };
      switch (G) {
        case 1: return run(inplace_square_gather_kernel<1, L, Threads>);
        case 2: return run(inplace_square_gather_kernel<2, L, Threads>);
        case 4: return run(inplace_square_gather_kernel<4, L, Threads>);
        case 8: return run(inplace_square_gather_kernel<8, L, Threads>);
        default: return run(inplace_square_gather_kernel<16, L, Threads>);
      }
    };
    if (loads > (wide ? 8 : square_gather_max_loads))
      return status(status_code::internal, "inplace square_gather: tile too large");
    if (wide) {  // 13-15-byte units: 1- or 2-byte granules, 7-8 loads a thread (no builds for other granules)
      auto run = [&](auto kernel) { return launch(kernel, blocks, 1024, smem, stream, p, "inplace square_gather"); };
      return G == 2 ? run(inplace_square_gather_kernel<2, 8, 1024>) : run(inplace_square_gather_kernel<1, 8, 1024>);
    }
    if (threads == 512)  // 6-12-byte units: 6-12 loads a thread
      return loads <= 8 ? go.template operator()<8, 512>() : go.template operator()<12, 512>();
    return loads <= 4 ? go.template operator()<4, 256>() : loads <= 8 ? go.template operator()<8, 256>() : go.template operator()<12, 256>();
  }
  // Rows off the 16-byte grid where square_words would move 1- or 2-byte words, units of 3-64 bytes:
  // square_gather_any (byte gathers at each row's phase), with square_gather's tiles and threads, halved where a
  // pair's chunk slots would need more than square_gather_max_loads a thread (tuning/inplace.hpp has the
  // figures; with 4-byte words or wider square_words is faster).
  if (!rows_aligned16 && word < 4 && U >= 3 && U <= square_gather_max_unit) {
    const int u = static_cast<int>(U), threads = square_gather_threads(u);
    int T = square_gather_tile(u);
    auto loads_for = [&](int t) { return (2 * t * (t * u / 16 + 1) + threads - 1) / threads; };
    while (loads_for(T) > square_gather_max_loads && T > 16) T /= 2;
    const int loads = loads_for(T);
    if (loads > square_gather_max_loads) return status(status_code::internal, "inplace square_gather_any: tile too large");
    set_tiles(T);
    p.unit_words = u;
    p.unit_magic = magic_u16(static_cast<unsigned>(U));
    const std::int64_t smem = 2 * std::int64_t{T} * (std::int64_t{T} * U + 16);
    const std::int64_t blocks = std::min<std::int64_t>(p.tasks, std::int64_t{dev.sm_count} * 32);
    auto run = [&](auto kernel, int th) { return launch(kernel, blocks, th, smem, stream, p, "inplace square_gather_any"); };
    if (threads == 512)
      return loads <= 8 ? run(inplace_square_gather_any_kernel<8, 512>, 512) : run(inplace_square_gather_any_kernel<12, 512>, 512);
    return loads <= 4 ? run(inplace_square_gather_any_kernel<4, 256>, 256)
           : loads <= 8 ? run(inplace_square_gather_any_kernel<8, 256>, 256)
                        : run(inplace_square_gather_any_kernel<12, 256>, 256);
  }
  p.unit_words = static_cast<int>(U / word);
  set_tiles(U == word ? square_words_single_tile : U <= 16 ? 32 : (U <= 64 ? 16 : 8));
  return with_word(word, [&]<class Word>() { return launch_square_words<Word>(p, stream, dev); });
}

status run_square(const inplace_geometry& g, void* data, cudaStream_t stream, const device_info& dev) {
  const std::int64_t U = g.elem_bytes;
  return run_squares(U, square_grid{g.rows, g.ld * U, g.batch, g.batch_stride * U}, data, stream, dev);
}

// ---- tile_cycles -----------------------------------------------------------------------------------------

template <class Word>
status run_cycles(const inplace_geometry& g, unsigned char* data, unsigned char* ws, cudaStream_t stream,
                  const device_info& dev) {
  constexpr int R = cycles_words_per_lane, D = sizeof(Word) <= 2 ? cycles_depth_narrow : cycles_depth;
  constexpr int warps = cycles_threads / 32;
  inplace_cycles_params p{};
  p.data = data;
  p.saved = ws;
  p.batch_stride = g.batch_stride * g.elem_bytes;
  p.unit_bytes = g.tile * g.elem_bytes;
  p.unit_words = p.unit_bytes / static_cast<std::int64_t>(sizeof(Word));
  p.map = unit_cycle_map(g.map_a, g.map_t, g.map_b);
  p.units = static_cast<std::uint32_t>(g.units);
  p.short_cycle = static_cast<std::uint32_t>(g.short_cycle);
  p.segments = static_cast<std::int64_t>(g.segments.size() / 2);
  p.batch = g.batch;
  const std::int64_t groups = (p.unit_words + 32 * R - 1) / (32 * R);
  // Leader tests for the short cycles, unless the plan listed every cycle (short_cycle 0).
  const std::int64_t chunks = g.short_cycle == 0 ? 0 : (g.units + cycles_chunk - 1) / cycles_chunk;
  p.div_segments = fast_divmod(static_cast<std::uint64_t>(std::max<std::int64_t>(p.segments, 1)));
  p.div_groups = fast_divmod(static_cast<std::uint64_t>(groups));
  p.div_chunks = fast_divmod(static_cast<std::uint64_t>(std::max<std::int64_t>(chunks, 1)));
  p.div_unit_words = fast_divmod(static_cast<std::uint64_t>(p.unit_words));
  p.segment_tasks = g.batch * p.segments * groups;
  p.block_tasks = (p.segment_tasks + warps - 1) / warps + g.batch * chunks;
  if (p.segments > inplace_tuning::max_cycle_segments)
    return status(status_code::internal, "inplace tile_cycles: more segments than the kernel parameters hold");
  if (p.segments > 0 && ws == nullptr)
    return status(status_code::internal, "inplace tile_cycles: segments need the workspace");
  std::copy(g.segments.begin(), g.segments.end(), p.table);
  const std::int64_t cap = std::int64_t{dev.sm_count} * (2048 / cycles_threads);
  if (p.segments > 0) {
    const std::int64_t words = g.batch * p.segments * p.unit_words;
    if (status s = launch(inplace_cycles_save_kernel<Word>, std::min<std::int64_t>((words + 255) / 256, cap * 4), 256,
                          0, stream, p, "inplace cycles_save");
        !s)
      return s;
  }
  return launch(inplace_cycles_kernel<Word, R, D>, std::min<std::int64_t>(p.block_tasks, cap * 8), cycles_threads, 0,
                stream, p, "inplace cycles");
}

template <class Word>
status run_chunks(const inplace_geometry& g, unsigned char* data, cudaStream_t stream, const device_info& dev) {
  inplace_chunks_params p{};
  const std::int64_t U = g.elem_bytes, K = U / static_cast<std::int64_t>(sizeof(Word));
  const std::int64_t per_matrix = g.rows * g.cols / (g.chunk_rows * g.chunk_cols);
  p.data = data;
  p.batch_stride = g.batch_stride * U;
  p.chunk_bytes = g.chunk_rows * g.chunk_cols * U;
  p.chunks = g.batch * per_matrix;
  p.div_per_matrix = fast_divmod(static_cast<std::uint64_t>(per_matrix));
  p.div_row_words = fast_divmod(static_cast<std::uint64_t>(g.chunk_cols * K));
  p.div_K = fast_divmod(static_cast<std::uint64_t>(K));
  p.div_rows = fast_divmod(static_cast<std::uint64_t>(g.chunk_rows));
  p.words = static_cast<std::uint32_t>(g.chunk_rows * g.chunk_cols * K);
  p.pitch = static_cast<std::uint32_t>(g.chunk_cols * K) | 1u;
  p.K = static_cast<int>(K);
  const std::int64_t smem = g.chunk_rows * std::int64_t{p.pitch} * static_cast<std::int64_t>(sizeof(Word));
  return launch(inplace_chunks_kernel<Word>, std::min<std::int64_t>(p.chunks, std::int64_t{dev.sm_count} * 32), 256,
                smem, stream, p, "inplace chunks");
}

status run_unit_cycles(const inplace_geometry& g, void* data, void* workspace, cudaStream_t stream,
                       const device_info& dev) {
  auto* d = static_cast<unsigned char*>(data);
  unsigned char* ws = aligned256(workspace);
  return with_word(data_word(g, data, g.tile * g.elem_bytes),
                   [&]<class Word>() { return run_cycles<Word>(g, d, ws, stream, dev); });
}

status run_tile_cycles(const inplace_geometry& g, void* data, void* workspace, cudaStream_t stream,
                       const device_info& dev) {
  const std::int64_t U = g.elem_bytes, ld = g.cols * U;
  const square_grid q{g.tile, ld, g.batch, g.batch_stride * U, g.tiles_a, g.tiles_b, g.tile * ld, g.tile * U};
  if (status s = run_squares(U, q, data, stream, dev); !s) return s;
  return run_unit_cycles(g, data, workspace, stream, dev);
}

status run_skinny_cycles(const inplace_geometry& g, void* data, void* workspace, cudaStream_t stream,
                         const device_info& dev) {
  if (g.units_first)
    if (status s = run_unit_cycles(g, data, workspace, stream, dev); !s) return s;
  auto* d = static_cast<unsigned char*>(data);
  if (status s = with_word(data_word(g, data, g.elem_bytes),
                           [&]<class Word>() { return run_chunks<Word>(g, d, stream, dev); });
      !s || g.units_first)
    return s;
  return run_unit_cycles(g, data, workspace, stream, dev);
}

// ---- shuffle ---------------------------------------------------------------------------------------------

template <class Word>
status shuffle_pass_run(const inplace_geometry& g, const shuffle_staging& st, shuffle_params p, unsigned char* ws,
                        cudaStream_t stream, const device_info& dev) {
  const bool single = p.unit_words == 1;
  const std::int64_t U = g.elem_bytes, row_bytes = g.n * U;
  const bool rows = p.op == shuffle_pass::row_scatter || p.op == shuffle_pass::row_gather;
  if (rows && st.rows_in_smem) {
    p.lines_per_matrix = g.m;
    p.lines = g.batch * g.m;
    // Rows under 64 KiB: 256 threads, so up to 8 rows (blocks) an SM stage and permute at once rather than 4.
    // H200, against 512 (same call): u8 7919 x 7907 267 -> 248 us, u8 20011 x 3001 260 -> 246, fp16 8191 x 8193
    // 369 -> 354, fp16 12007 x 5003 271 -> 258, fp32 7919 x 5003 288 -> 275 (the H100 alike:
    // benchmarks/results/h100-4d27973-inplace-gcd1.txt); 128 threads helped bytes more (241 us) and cost fp32
    // (293 us); more loads in flight a thread (batches of 32) lost 8-45 %.
    const int threads = row_bytes >= (64 << 10) ? 1024 : 256;
    auto k = single ? inplace_shuffle_lines_kernel<Word, true, false> : inplace_shuffle_lines_kernel<Word, false, false>;
    return launch(k, std::min<std::int64_t>(p.lines, std::int64_t{dev.sm_count} * 32), threads, row_bytes, stream, p,
                  "inplace shuffle rows");
  }
  if (rows) {  // waves through the workspace
    p.lines_per_matrix = g.m;
    p.lines = g.batch * g.m;
    const std::int64_t K = p.unit_words;
    p.row_words_div = fast_divmod(static_cast<std::uint64_t>(g.n * K));
    p.unit_div = fast_divmod(static_cast<std::uint64_t>(K));
    const bool inverse = p.op == shuffle_pass::row_scatter;
    auto k = single ? (inverse ? inplace_shuffle_rows_gather_kernel<Word, true, true>
                               : inplace_shuffle_rows_gather_kernel<Word, true, false>)
                    : (inverse ? inplace_shuffle_rows_gather_kernel<Word, false, true>
                               : inplace_shuffle_rows_gather_kernel<Word, false, false>);
    for (std::int64_t l0 = 0; l0 < p.lines; l0 += st.wave_rows) {
      const std::int64_t count = std::min(st.wave_rows, p.lines - l0);
      // Copy the wave: rows of one matrix are contiguous; matrices may have gaps between them.
      for (std::int64_t l = l0; l < l0 + count;) {
        const std::int64_t b = l / g.m, i = l % g.m, run = std::min(g.m - i, l0 + count - l);
        const unsigned char* src = p.data + b * p.batch_stride + i * row_bytes;
        if (cudaError_t e = cudaMemcpyAsync(ws + (l - l0) * row_bytes, src, static_cast<std::size_t>(run * row_bytes),
                                            cudaMemcpyDeviceToDevice, stream);
            e != cudaSuccess)
          return cuda_failure(e, "inplace shuffle: wave copy");
        l += run;
      }
      p.wave = ws;
      p.wave_first = l0;
      p.wave_words = count * g.n * K;
      const std::int64_t blocks = std::min<std::int64_t>((p.wave_words + 255) / 256, std::int64_t{dev.sm_count} * 16);
      if (status s = launch(k, blocks, 256, 0, stream, p, "inplace shuffle row waves"); !s) return s;
    }
    return status::ok();
  }
  // Column strips.
  p.strip = static_cast<int>(st.strip);
  p.strip_shift = 0;
  while ((1 << p.strip_shift) < p.strip) ++p.strip_shift;
  p.lines_per_matrix = (g.n + st.strip - 1) / st.strip;
  p.lines = g.batch * p.lines_per_matrix;
  const std::int64_t stage_bytes = g.m * st.strip * U;
  if (st.strips_in_smem) {
    const int threads = stage_bytes >= (64 << 10) ? 1024 : 512;
    auto k = single ? inplace_shuffle_lines_kernel<Word, true, false> : inplace_shuffle_lines_kernel<Word, false, false>;
    return launch(k, std::min<std::int64_t>(p.lines, std::int64_t{dev.sm_count} * 32), threads, stage_bytes, stream, p,
                  "inplace shuffle columns");
  }
  p.slots = ws;
  p.slot_bytes = stage_bytes;
  auto k = single ? inplace_shuffle_lines_kernel<Word, true, true> : inplace_shuffle_lines_kernel<Word, false, true>;
  return launch(k, std::min(p.lines, st.strip_slots), 1024, 0, stream, p, "inplace shuffle columns (workspace)");
}

template <class Word>
status run_shuffle_words(const inplace_geometry& g, const shuffle_staging& st, void* data, unsigned char* ws,
                         cudaStream_t stream, const device_info& dev) {
  shuffle_params p{};
  p.data = static_cast<unsigned char*>(data);
  p.batch_stride = g.batch_stride * g.elem_bytes;
  p.maps = shuffle_maps(g.m, g.n, g.c, g.b, g.a_inv_mod_b);
  p.unit_words = static_cast<int>(g.elem_bytes / static_cast<std::int64_t>(sizeof(Word)));
  const shuffle_pass r2c[] = {shuffle_pass::rot_minus, shuffle_pass::row_scatter, shuffle_pass::col_gather};
  const shuffle_pass c2r[] = {shuffle_pass::col_scatter, shuffle_pass::row_gather, shuffle_pass::rot_plus};
  for (shuffle_pass op : g.c2r ? c2r : r2c) {
    if ((op == shuffle_pass::rot_minus || op == shuffle_pass::rot_plus) && g.c == 1) continue;
    p.op = op;
    if (status s = shuffle_pass_run<Word>(g, st, p, ws, stream, dev); !s) return s;
  }
  return status::ok();
}

status run_shuffle(const inplace_geometry& g, void* data, void* workspace, cudaStream_t stream, const device_info& dev) {
  // Lines are staged in up to the device's opt-in maximum (the kernels have no static shared memory).
  const shuffle_staging st =
      shuffle_staging_for(g, std::max<std::int64_t>(inplace_tuning::portable_smem_bytes, dev.smem_optin));
  if (st.workspace_bytes > g.workspace_bytes)
    return status(status_code::internal, "inplace: staging needs more workspace than the plan sized");
  if (!st.strips_in_smem && g.m * st.strip * g.elem_bytes >= (std::int64_t{1} << 31))
    return status(status_code::unsupported, "inplace: a column strip of " + std::to_string(g.m) +
                                                " units exceeds 2 GiB of staging");
  unsigned char* ws = aligned256(workspace);
  return with_word(data_word(g, data, g.elem_bytes),
                   [&]<class Word>() { return run_shuffle_words<Word>(g, st, data, ws, stream, dev); });
}

// ---- near_square -----------------------------------------------------------------------------------------

// Rows 1 .. rows-1 of row_bytes from src_pitch to dst_pitch in place (kernels/inplace.cuh: bands of source
// bytes staged in shared memory; `flags`: scratch of 4 (repitch_flag_slots(bands) + 1) bytes, as the plan
// sized it from the same tuning functions).
status repitch(unsigned char* data, std::int64_t src_pitch, std::int64_t dst_pitch, std::int64_t row_bytes,
               std::int64_t rows, unsigned char* flags, cudaStream_t stream, const device_info& dev) {
  inplace_repitch_params p{};
  p.data = data;
  p.src_pitch = src_pitch, p.dst_pitch = dst_pitch;
  p.rows = rows;
  p.row_bytes = row_bytes;
  p.band_bytes = inplace_tuning::repitch_band_bytes;
  p.bands = inplace_tuning::repitch_bands(src_pitch, row_bytes, rows);
  p.lo = reinterpret_cast<std::uint64_t>(data);
  p.hi = p.lo + static_cast<std::uint64_t>(std::max(src_pitch, dst_pitch) * rows);  // the whole matrix
  if (p.bands >= (std::int64_t{1} << 32) - 1)
    return status(status_code::unsupported, "inplace near_square: more than 2^32 - 2 repitch bands");
  p.ticket = reinterpret_cast<unsigned int*>(flags);
  p.flags = p.ticket + 1;
  p.flag_slots = static_cast<unsigned>(inplace_tuning::repitch_flag_slots(p.bands));
  if (cudaError_t e = cudaMemsetAsync(flags, 0, static_cast<std::size_t>(4 * (p.flag_slots + 1)), stream); e != cudaSuccess)
    return cuda_failure(e, "inplace near_square: clearing the repitch flags");
  return launch(inplace_repitch_kernel, std::min<std::int64_t>(p.bands, std::int64_t{dev.sm_count} * inplace_tuning::repitch_blocks_per_sm),
                repitch_threads, repitch_smem_bytes(p.band_bytes), stream, p, "inplace near_square repitch");
}

status run_near_square(const inplace_geometry& g, void* data, void* workspace, cudaStream_t stream,
                       const device_info& dev) {
  const std::int64_t U = g.elem_bytes, s = g.near_side, d = g.near_extra, n = s + d;
  const bool tall = g.rows > g.cols;  // tall: rows s.. are the extra d x s part; wide: columns s.. (s x d)
  auto* base = static_cast<unsigned char*>(data);
  unsigned char* extra = aligned256(workspace);
  unsigned char* flags = aligned256(extra + s * d * U);
  // The extra part, packed into the workspace: rows s.. of s elements (tall) or columns s.. of n-element rows.
  if (tall) {
    if (cudaError_t e = cudaMemcpyAsync(extra, base + s * s * U, static_cast<std::size_t>(s * d * U),
                                        cudaMemcpyDeviceToDevice, stream);
        e != cudaSuccess)
      return cuda_failure(e, "inplace near_square: saving the extra part");
  } else if (status st = cuda_launch(g.near_save_plan, base + s * U, extra, stream, dev); !st) {
    return st;
  }
  const std::int64_t pitch = (tall ? s : n) * U, new_pitch = (tall ? n : s) * U;
  if (status st = run_squares(U, square_grid{s, pitch, 1, 0}, data, stream, dev); !st) return st;
  if (status st = repitch(base, pitch, new_pitch, s * U, s, flags, stream, dev); !st) return st;
  // The extra part transposed: tall, s x d after each row's s elements (pitch n); wide, d x s after the square.
  return cuda_launch(g.near_extra_plan, extra, base + (tall ? s : s * s) * U, stream, dev);
}

// ---- staged ----------------------------------------------------------------------------------------------

// The walks are plan/inplace.hpp's (shared with the CPU executor); the workspace is the buffer.
status run_staged(const inplace_geometry& g, void* data, void* workspace, cudaStream_t stream,
                  const device_info& dev) {
  return staged_walk(g, static_cast<unsigned char*>(data), aligned256(workspace),
                     [&](const auto& plan, const void* src, void* dst) { return cuda_launch(plan, src, dst, stream, dev); });
}

status run_staged_blocks(const inplace_geometry& g, void* data, void* workspace, cudaStream_t stream,
                         const device_info& dev) {
  return staged_blocks_walk(
      g, static_cast<unsigned char*>(data), aligned256(workspace),
      [&](const auto& plan, const void* src, void* dst) { return cuda_launch(plan, src, dst, stream, dev); },
      [&] { return run_unit_cycles(g, data, workspace, stream, dev); });
}

}  // namespace

status cuda_execute_inplace(const inplace_geometry& g, void* d_data, void* d_workspace, stream_t stream_handle) {
  if (status s = require_device_accessible(d_data, "d_data"); !s) return s;
  if (d_workspace != nullptr)
    if (status s = require_device_accessible(d_workspace, "d_workspace"); !s) return s;
  device_info dev;
  if (status s = current_device(dev); !s) return s;
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  switch (g.algo) {
    case inplace_algorithm::none: return status::ok();
    case inplace_algorithm::square: return run_square(g, d_data, stream, dev);
    case inplace_algorithm::shuffle: return run_shuffle(g, d_data, d_workspace, stream, dev);
    case inplace_algorithm::tile_cycles: return run_tile_cycles(g, d_data, d_workspace, stream, dev);
    case inplace_algorithm::skinny_cycles: return run_skinny_cycles(g, d_data, d_workspace, stream, dev);
    case inplace_algorithm::near_square: return run_near_square(g, d_data, d_workspace, stream, dev);
    case inplace_algorithm::staged: return run_staged(g, d_data, d_workspace, stream, dev);
    case inplace_algorithm::staged_blocks: return run_staged_blocks(g, d_data, d_workspace, stream, dev);
  }
  return status(status_code::internal, "cuda_execute_inplace: unknown algorithm");
}

}  // namespace xpose::detail
