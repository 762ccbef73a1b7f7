// CPU executor of in-place transposes (include/xpose/inplace.hpp): `square` swaps tile pairs across the
// diagonal; `shuffle` runs the row / column passes of plan/inplace_maps.hpp with one staging buffer a thread;
// `tile_cycles` swaps the pairs of every tile, then moves units along the plan's cycles; `skinny_cycles`
// transposes chunks through a buffer and moves units the same way.
#include "cpu/inplace_cpu.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "cpu/cpu_executor.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/kernel_table.hpp"
#include "cpu/threads.hpp"
#include "plan/inplace.hpp"
#include "plan/inplace_maps.hpp"

namespace xpose::detail {

namespace {

// A unit of a compile-time size (memcpy of a constant size compiles to one move), or of the plan's size.
template <int Bytes>
struct fixed_unit {
  static void copy(unsigned char* dst, const unsigned char* src, std::int64_t) { std::memcpy(dst, src, Bytes); }
  static void swap(unsigned char* x, unsigned char* y, std::int64_t) {
    unsigned char t[Bytes];
    std::memcpy(t, x, Bytes);
    std::memcpy(x, y, Bytes);
    std::memcpy(y, t, Bytes);
  }
};
struct any_unit {
  static void copy(unsigned char* dst, const unsigned char* src, std::int64_t u) {
    std::memcpy(dst, src, static_cast<std::size_t>(u));
  }
  static void swap(unsigned char* x, unsigned char* y, std::int64_t u) {
    for (std::int64_t k = 0; k < u; ++k) std::swap(x[k], y[k]);
  }
};

// Swaps the tile pairs of `mats` square matrices of `side` units; `base(k)` is matrix k's first byte and
// `ld` its row pitch in bytes. A pair (A, B) through one buffer of a tile: A^T to the buffer, B^T over A,
// the buffer over B — each by the SIMD tile kernel, so any pitch and alignment runs at its speed (the
// element-by-element swap this replaced took 124 ms for u8 8192^2 on the dev VM, this 10-14 ms; fp32 4096^2
// 33 -> 8-9 ms, rgb8 4096^2 39 -> 6-7 ms). Tiles of at most 16 KiB: 128 units a side for bytes, 64 for 2-
// and 4-byte units, 32 for 8-16 (4 KiB tiles measured alike within the VM's noise).
template <class Base>
void square(std::int64_t u, std::int64_t side, std::int64_t ld, std::int64_t mats, const Base& base, int threads) {
  const std::int64_t N = side;
  std::int64_t T = 8;
  while (T < 128 && 4 * T * T * u <= 65536) T *= 2;
  const std::int64_t G = (N + T - 1) / T, pairs = G * (G + 1) / 2;
  const std::int64_t tasks = mats * pairs;
  const std::int64_t word = std::min<std::int64_t>(u & -u, 16);  // the unit's largest power-of-two word
  const tile_kernel k = unit_kernel(kernels_for(active_cpu_isa()), u, word);
  const std::int64_t words = u / word;
  const int nt = resolve_threads(threads, mats * N * N * u, tasks);
  parallel_slices(tasks, nt, [&](std::int64_t begin, std::int64_t end) {
    std::vector<unsigned char> buf(static_cast<std::size_t>(T * T * u));
    for (std::int64_t t = begin; t < end; ++t) {
      std::int64_t I = 0, J = 0;
      triangle_pair(static_cast<std::uint64_t>(t % pairs), I, J);
      unsigned char* b = base(t / pairs);
      const std::int64_t nr = std::min(T, N - I * T), nc = std::min(T, N - J * T);  // A: nr x nc, B: nc x nr
      unsigned char* A = b + I * T * ld + J * T * u;
      unsigned char* B = b + J * T * ld + I * T * u;
      k.tile(A, ld, buf.data(), nr * u, nr, nc, words, nullptr);
      if (I != J) k.tile(B, ld, A, ld, nc, nr, words, nullptr);
      for (std::int64_t c = 0; c < nc; ++c)
        std::memcpy(B + c * ld, buf.data() + c * nr * u, static_cast<std::size_t>(nr * u));
    }
  });
}

void square(const inplace_geometry& g, unsigned char* data, int threads) {
  const std::int64_t u = g.elem_bytes;
  square(u, g.rows, g.ld * u, g.batch, [&](std::int64_t k) { return data + k * g.batch_stride * u; }, threads);
}

// `buf` resized to `bytes`, or out_of_memory naming what it was for (the executors never abort).
status allocate(std::vector<unsigned char>& buf, std::int64_t bytes, const char* what) {
  try {
    buf.resize(static_cast<std::size_t>(bytes));
  } catch (const std::bad_alloc&) {
    return status(status_code::out_of_memory,
                  "execute_host: could not allocate " + std::to_string(bytes) + " bytes for " + what);
  }
  return status::ok();
}

// The unit pass of tile_cycles and skinny_cycles (include/xpose/inplace.hpp): units of t elements moved along
// the cycles of unit_cycle_map: segments of long cycles from their saved first units, cycles of at most
// short_cycle units from their leader.
status unit_cycles(const inplace_geometry& g, unsigned char* data, int threads) {
  const std::int64_t u = g.elem_bytes, unit = g.tile * u;
  const unit_cycle_map map(g.map_a, g.map_t, g.map_b);
  const std::int64_t K = static_cast<std::int64_t>(g.segments.size() / 2);
  const auto Ls = static_cast<std::uint32_t>(g.short_cycle);
  constexpr std::int64_t chunk = 1024;  // units whose leader test one task makes
  const std::int64_t chunks = Ls == 0 ? 0 : (g.units + chunk - 1) / chunk;  // 0: the plan lists every cycle
  std::vector<unsigned char> saved;
  if (status s = allocate(saved, g.batch * K * unit, "the first units of the cycles' segments"); !s) return s;
  auto matrix = [&](std::int64_t b) { return data + b * g.batch_stride * u; };
  const int nt = resolve_threads(threads, g.batch * g.rows * g.cols * u, g.batch * (K + chunks));
  parallel_slices(g.batch * K, nt, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t k = begin; k < end; ++k)
      std::memcpy(saved.data() + k * unit, matrix(k / K) + g.segments[static_cast<std::size_t>(2 * (k % K))] * unit,
                  static_cast<std::size_t>(unit));
  });
  parallel_slices(g.batch * (K + chunks), nt, [&](std::int64_t begin, std::int64_t end) {
    std::vector<unsigned char> carry(static_cast<std::size_t>(unit)), next(static_cast<std::size_t>(unit));
    // Moves the units from `start` on (carrying `carry`, the unit that was at `start`) until `stop`, which
    // receives the last one.
    auto walk = [&](unsigned char* mat, std::uint32_t start, std::uint32_t stop) {
      for (std::uint32_t x = start;;) {
        const std::uint32_t y = map.next(x);
        unsigned char* dst = mat + static_cast<std::int64_t>(y) * unit;
        if (y != stop) std::memcpy(next.data(), dst, static_cast<std::size_t>(unit));
        std::memcpy(dst, carry.data(), static_cast<std::size_t>(unit));
        if (y == stop) return;
        carry.swap(next);
        x = y;
      }
    };
    for (std::int64_t k = begin; k < end; ++k) {
      if (k < g.batch * K) {
        const std::size_t s = static_cast<std::size_t>(k % K);
        std::memcpy(carry.data(), saved.data() + k * unit, static_cast<std::size_t>(unit));
        walk(matrix(k / K), g.segments[2 * s], g.segments[2 * s + 1]);
        continue;
      }
      const std::int64_t c = k - g.batch * K, b = c / chunks;
      unsigned char* mat = matrix(b);
      const std::int64_t p_end = std::min<std::int64_t>(g.units, (c % chunks + 1) * chunk);
      for (auto p = static_cast<std::uint32_t>(c % chunks * chunk); p < p_end; ++p) {
        if (!leads_short_cycle(map, p, Ls)) continue;
        std::memcpy(carry.data(), mat + static_cast<std::int64_t>(p) * unit, static_cast<std::size_t>(unit));
        walk(mat, p, p);
      }
    }
  });
  return status::ok();
}

// tile_cycles: t x t tiles transposed in place, then the unit pass.
template <class U>
status tile_cycles(const inplace_geometry& g, unsigned char* data, int threads) {
  const std::int64_t u = g.elem_bytes, t = g.tile, ld = g.cols * u;
  const std::int64_t A = g.tiles_a, B = g.tiles_b;
  square(u, t, ld, g.batch * A * B,
            [&](std::int64_t k) {
              const std::int64_t b = k / (A * B), i = k / B % A, j = k % B;
              return data + b * g.batch_stride * u + i * t * ld + j * t * u;
            },
            threads);
  return unit_cycles(g, data, threads);
}

// skinny_cycles: every chunk of chunk_rows x chunk_cols contiguous elements transposed through a buffer, and
// the unit pass (before the chunks for wide matrices).
template <class U>
status skinny_cycles(const inplace_geometry& g, unsigned char* data, int threads) {
  if (g.units_first)
    if (status s = unit_cycles(g, data, threads); !s) return s;
  const std::int64_t u = g.elem_bytes, R = g.chunk_rows, C = g.chunk_cols, bytes = R * C * u;
  const std::int64_t per_matrix = g.rows * g.cols / (R * C), tasks = g.batch * per_matrix;
  const int nt = resolve_threads(threads, g.batch * g.rows * g.cols * u, tasks);
  parallel_slices(tasks, nt, [&](std::int64_t begin, std::int64_t end) {
    std::vector<unsigned char> buf(static_cast<std::size_t>(bytes));
    for (std::int64_t k = begin; k < end; ++k) {
      unsigned char* chunk = data + (k / per_matrix) * g.batch_stride * u + (k % per_matrix) * bytes;
      std::memcpy(buf.data(), chunk, static_cast<std::size_t>(bytes));
      for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t c = 0; c < C; ++c) U::copy(chunk + (c * R + r) * u, buf.data() + (r * C + c) * u, u);
    }
  });
  return g.units_first ? status::ok() : unit_cycles(g, data, threads);
}

// near_square: the extra part saved, the square transposed at the matrix's pitch, the rows moved to the
// transposed pitch (in address order, so each row's move reads only bytes not yet overwritten), the extra
// part written back transposed.
status near_square(const inplace_geometry& g, unsigned char* data, int threads) {
  const std::int64_t u = g.elem_bytes, s = g.near_side, d = g.near_extra, n = s + d;
  const bool tall = g.rows > g.cols;
  std::vector<unsigned char> extra;
  if (status st = allocate(extra, s * d * u, "the extra part"); !st) return st;
  if (tall) {  // rows s.. are the extra d x s part
    std::memcpy(extra.data(), data + s * s * u, static_cast<std::size_t>(s * d * u));
    square(u, s, s * u, 1, [&](std::int64_t) { return data; }, threads);
    for (std::int64_t i = s - 1; i >= 1; --i) std::memmove(data + i * n * u, data + i * s * u, static_cast<std::size_t>(s * u));
  } else {  // columns s.. are the extra s x d part
    for (std::int64_t i = 0; i < s; ++i)
      std::memcpy(extra.data() + i * d * u, data + (i * n + s) * u, static_cast<std::size_t>(d * u));
    square(u, s, n * u, 1, [&](std::int64_t) { return data; }, threads);
    for (std::int64_t i = 1; i < s; ++i) std::memmove(data + i * s * u, data + i * n * u, static_cast<std::size_t>(s * u));
  }
  // The extra part written back transposed by the plan made for it (tall: after each row's s elements).
  return cpu_execute(g.near_extra_plan, extra.data(), data + (tall ? s : s * s) * u, threads);
}

// staged: each group of matrices gathered packed into a buffer, then transposed back over them (the walk is
// plan/inplace.hpp's, shared with the GPU executor).
status staged(const inplace_geometry& g, unsigned char* data, int threads) {
  std::vector<unsigned char> buf;
  if (status s = allocate(buf, g.group * g.rows * g.cols * g.elem_bytes, "a group of matrices"); !s) return s;
  return staged_walk(g, data, buf.data(),
                     [&](const auto& plan, const void* src, void* dst) { return cpu_execute(plan, src, dst, threads); });
}

// staged_blocks: groups of blocks staged through a buffer, and the unit pass (first when units_first).
status staged_blocks(const inplace_geometry& g, unsigned char* data, int threads) {
  std::vector<unsigned char> buf;
  if (status s = allocate(buf, g.group * staged_block_bytes(g), "a group of blocks"); !s) return s;
  return staged_blocks_walk(
      g, data, buf.data(),
      [&](const auto& plan, const void* src, void* dst) { return cpu_execute(plan, src, dst, threads); },
      [&] { return unit_cycles(g, data, threads); });
}

// Units per column strip: 256 bytes of each row (at least one unit, at most the row).
std::int64_t strip_units(const inplace_geometry& g) {
  return std::min<std::int64_t>(g.n, std::max<std::int64_t>(1, 256 / g.elem_bytes));
}

enum class pass { rot_minus, rot_plus, row_scatter, row_gather, col_gather, col_scatter };

// One pass over every row (row passes) or column strip (column passes) of every matrix.
template <class U>
void run_pass(const inplace_geometry& g, const shuffle_maps& mp, pass op, unsigned char* data, int nt,
              std::vector<std::vector<unsigned char>>& bufs) {
  const std::int64_t u = g.elem_bytes, m = g.m, n = g.n, row_bytes = n * u;
  const bool rows = op == pass::row_scatter || op == pass::row_gather;
  const std::int64_t W = strip_units(g);
  const std::int64_t per_matrix = rows ? m : (n + W - 1) / W;
  const std::int64_t lines = g.batch * per_matrix;
  // One task per staging buffer (a smaller OpenMP team runs several tasks on one thread, one after another).
  parallel_slices(nt, nt, [&](std::int64_t part_begin, std::int64_t part_end) {
   for (std::int64_t part = part_begin; part < part_end; ++part) {
    std::int64_t begin = 0, end = 0;
    slice(lines, nt, static_cast<int>(part), begin, end);
    unsigned char* buf = bufs[static_cast<std::size_t>(part)].data();
    for (std::int64_t l = begin; l < end; ++l) {
      unsigned char* mat = data + (l / per_matrix) * g.batch_stride * u;
      const std::int64_t k = l % per_matrix;
      if (rows) {
        unsigned char* row = mat + k * row_bytes;
        const auto i = static_cast<std::uint64_t>(k);
        shuffle_cursor d(mp, shuffle_cursor::map::row_d, i, 0);
        if (op == pass::row_scatter) {
          for (std::int64_t j = 0; j < n; ++j, d.next()) U::copy(buf + static_cast<std::int64_t>(d.f) * u, row + j * u, u);
          std::memcpy(row, buf, static_cast<std::size_t>(row_bytes));
        } else {
          std::memcpy(buf, row, static_cast<std::size_t>(row_bytes));
          for (std::int64_t j = 0; j < n; ++j, d.next()) U::copy(row + j * u, buf + static_cast<std::int64_t>(d.f) * u, u);
        }
        continue;
      }
      const std::int64_t j0 = k * W, w_n = std::min(W, n - j0), seg = w_n * u;
      unsigned char* strip = mat + j0 * u;
      auto at = [&](std::int64_t i, std::int64_t w) { return buf + (i * W + w) * u; };
      // Row i of the strip: its units' map along j0, j0 + 1, ... (rotations, or col_s).
      const auto kind = op == pass::rot_minus  ? shuffle_cursor::map::rot_minus
                        : op == pass::rot_plus ? shuffle_cursor::map::rot_plus
                                               : shuffle_cursor::map::col_s;
      if (op == pass::col_scatter) {
        for (std::int64_t i = 0; i < m; ++i) {
          shuffle_cursor c(mp, kind, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(j0));
          for (std::int64_t w = 0; w < w_n; ++w, c.next())
            U::copy(at(static_cast<std::int64_t>(c.f), w), strip + i * row_bytes + w * u, u);
        }
        for (std::int64_t i = 0; i < m; ++i) std::memcpy(strip + i * row_bytes, at(i, 0), static_cast<std::size_t>(seg));
        continue;
      }
      for (std::int64_t i = 0; i < m; ++i) std::memcpy(at(i, 0), strip + i * row_bytes, static_cast<std::size_t>(seg));
      for (std::int64_t i = 0; i < m; ++i) {
        shuffle_cursor c(mp, kind, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(j0));
        for (std::int64_t w = 0; w < w_n; ++w, c.next())
          U::copy(strip + i * row_bytes + w * u, at(static_cast<std::int64_t>(c.f), w), u);
      }
    }
   }
  });
}

template <class U>
status shuffle(const inplace_geometry& g, unsigned char* data, int threads) {
  const std::int64_t u = g.elem_bytes;
  const std::int64_t W = strip_units(g);
  const std::int64_t buf_bytes = std::max(g.n, g.m * W) * u;
  const int nt = resolve_threads(threads, g.batch * g.m * g.n * u, g.batch * g.m);
  std::vector<std::vector<unsigned char>> bufs;
  try {
    bufs.assign(static_cast<std::size_t>(nt), std::vector<unsigned char>(static_cast<std::size_t>(buf_bytes)));
  } catch (const std::bad_alloc&) {
    return status(status_code::out_of_memory, "execute_host: could not allocate " + std::to_string(nt) +
                                                  " staging buffers of " + std::to_string(buf_bytes) + " bytes");
  }
  const shuffle_maps mp(g.m, g.n, g.c, g.b, g.a_inv_mod_b);
  if (!g.c2r) {
    if (g.c > 1) run_pass<U>(g, mp, pass::rot_minus, data, nt, bufs);
    run_pass<U>(g, mp, pass::row_scatter, data, nt, bufs);
    run_pass<U>(g, mp, pass::col_gather, data, nt, bufs);
  } else {
    run_pass<U>(g, mp, pass::col_scatter, data, nt, bufs);
    run_pass<U>(g, mp, pass::row_gather, data, nt, bufs);
    if (g.c > 1) run_pass<U>(g, mp, pass::rot_plus, data, nt, bufs);
  }
  return status::ok();
}

template <class U>
status run(const inplace_geometry& g, unsigned char* data, int threads) {
  if (g.algo == inplace_algorithm::square) {
    square(g, data, threads);
    return status::ok();
  }
  if (g.algo == inplace_algorithm::tile_cycles) return tile_cycles<U>(g, data, threads);
  if (g.algo == inplace_algorithm::skinny_cycles) return skinny_cycles<U>(g, data, threads);
  if (g.algo == inplace_algorithm::near_square) return near_square(g, data, threads);
  if (g.algo == inplace_algorithm::staged) return staged(g, data, threads);
  if (g.algo == inplace_algorithm::staged_blocks) return staged_blocks(g, data, threads);
  return shuffle<U>(g, data, threads);
}

}  // namespace

status cpu_execute_inplace(const inplace_geometry& g, void* data, int threads) {
  if (g.algo == inplace_algorithm::none) return status::ok();
  auto* d = static_cast<unsigned char*>(data);
  switch (g.elem_bytes) {
    case 1: return run<fixed_unit<1>>(g, d, threads);
    case 2: return run<fixed_unit<2>>(g, d, threads);
    case 4: return run<fixed_unit<4>>(g, d, threads);
    case 8: return run<fixed_unit<8>>(g, d, threads);
    case 16: return run<fixed_unit<16>>(g, d, threads);
    default: return run<any_unit>(g, d, threads);
  }
}

}  // namespace xpose::detail
