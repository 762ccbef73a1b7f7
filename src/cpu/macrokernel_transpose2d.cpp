// transpose2d on the CPU: a batch of rows x cols -> cols x rows transposes of units of
// elem_words x word_bytes bytes, cache-blocked.
//
// Each plane is cut into tiles of tile_r x tile_c units, small enough that the input lines a tile reads and
// the output lines it writes stay in L1/L2 until every unit of each line has been used (a naive loop
// fetches a whole line per unit on its strided side). Tasks are (batch item, tile row, tile column) in
// row-major order; each thread takes a contiguous slice, walked with a cursor so that no task pays for a
// division. Inside a tile, the micro-kernels of microkernels_scalar.hpp move the units: the word sizes
// (1, 2, 4, 8, 16 bytes) and the common odd element sizes get a compile-time kernel, every other unit
// size a word-by-word copy per unit.
#include <algorithm>
#include <cstdint>

#include "cpu/batch_cursor.hpp"
#include "cpu/macrokernels.hpp"
#include "cpu/microkernels_scalar.hpp"
#include "cpu/threads.hpp"

namespace xpose::detail {

namespace {

struct tiling {
  std::int64_t tile_r = 1, tile_c = 1;  // units per tile side
  std::int64_t tiles_r = 0, tiles_c = 0;
};

// Tile sides in units. `side` is the square tile for the unit size (tile_side below). A plane thinner than
// the square keeps the tile's area by stretching the other side, so that a 3 x 1e6 (SoA -> AoS) problem
// still moves thousands of units per task rather than 3 x side. Stretched sides are rounded up to the
// micro-kernel block `m` so that only plane edges take the narrower blocks.
tiling choose_tiling(std::int64_t rows, std::int64_t cols, std::int64_t side, std::int64_t m) {
  tiling t;
  const std::int64_t area = side * side;
  t.tile_r = std::min(rows, side);
  t.tile_c = std::min(cols, side);
  if (rows < side) t.tile_c = std::min(cols, (area / std::max<std::int64_t>(rows, 1) + m - 1) / m * m);
  if (cols < side) t.tile_r = std::min(rows, (area / std::max<std::int64_t>(cols, 1) + m - 1) / m * m);
  t.tile_r = std::max<std::int64_t>(t.tile_r, 1);
  t.tile_c = std::max<std::int64_t>(t.tile_c, 1);
  t.tiles_r = (rows + t.tile_r - 1) / t.tile_r;
  t.tiles_c = (cols + t.tile_c - 1) / t.tile_c;
  return t;
}

// Square tile side (units) for a unit of `unit_bytes` bytes: the largest power of two whose tile holds at
// most 32 KiB (1 B: 128, 4 B: 64, 16 B: 32). Measured on the 2-core EPYC dev box (48 KiB L1, 1 MiB L2 per
// core) with 4096^2 1-byte, 2048^2 4-byte and 1024^2 16-byte transposes: 8 and 16 KiB tiles lose up to 20 %,
// 64 KiB gains nothing.
std::int64_t tile_side(std::int64_t unit_bytes) {
  constexpr std::int64_t tile_bytes = std::int64_t{32} << 10;
  std::int64_t side = 8;
  while (4 * side * side * unit_bytes <= tile_bytes) side *= 2;
  return side;
}

// Runs every tile of the plan. `Kernel` moves one tile: kernel(in, out, nr, nc) with pointers at the tile's
// first unit on each side.
template <class Kernel>
void run_tiles(const plan_geometry& g, const unsigned char* in, unsigned char* out, int threads, std::int64_t m,
               const Kernel& kernel) {
  const std::int64_t wb = g.word_bytes;
  const std::int64_t unit = g.elem_words * wb;
  const std::int64_t in_rs = g.in_ld * wb, out_rs = g.out_ld * wb;
  const std::int64_t items = g.batch_count();
  const tiling t = choose_tiling(g.rows, g.cols, tile_side(unit), m);
  const std::int64_t per_item = t.tiles_r * t.tiles_c;
  const std::int64_t tasks = items * per_item;  // <= units in the problem: fits
  const int nt = resolve_threads(threads, items * g.rows * g.cols * unit, tasks);

  parallel_slices(tasks, nt, [&](std::int64_t begin, std::int64_t end) {
    batch_cursor b(g, begin / per_item);
    std::int64_t tr = begin % per_item / t.tiles_c;
    std::int64_t tc = begin % t.tiles_c;
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t r0 = tr * t.tile_r, c0 = tc * t.tile_c;
      const std::int64_t nr = std::min(t.tile_r, g.rows - r0), nc = std::min(t.tile_c, g.cols - c0);
      kernel(in + b.in_offset() * wb + r0 * in_rs + c0 * unit, out + b.out_offset() * wb + c0 * out_rs + r0 * unit,
             nr, nc);
      if (++tc == t.tiles_c) {
        tc = 0;
        if (++tr == t.tiles_r) {
          tr = 0;
          b.next();
        }
      }
    }
  });
}

// Micro-kernel block sides: 8 x 8 units up to 4 bytes (a block of at most 256 bytes, 16 SSE registers),
// 4 x 4 for larger units.
template <class W>
constexpr int block_side = sizeof(W) <= 4 ? 8 : 4;

template <class W>
void run_fixed(const plan_geometry& g, const unsigned char* in, unsigned char* out, int threads) {
  constexpr int m = block_side<W>;
  const std::int64_t in_rs = g.in_ld * g.word_bytes, out_rs = g.out_ld * g.word_bytes;
  run_tiles(g, in, out, threads, m, [=](const unsigned char* src, unsigned char* dst, std::int64_t nr, std::int64_t nc) {
    transpose_tile<W, m>(src, in_rs, dst, out_rs, nr, nc);
  });
}

template <class W>
void run_words(const plan_geometry& g, const unsigned char* in, unsigned char* out, int threads) {
  const std::int64_t in_rs = g.in_ld * g.word_bytes, out_rs = g.out_ld * g.word_bytes, words = g.elem_words;
  run_tiles(g, in, out, threads, 1, [=](const unsigned char* src, unsigned char* dst, std::int64_t nr, std::int64_t nc) {
    transpose_tile_words<W>(src, in_rs, dst, out_rs, nr, nc, words);
  });
}

}  // namespace

void cpu_transpose2d(const plan_geometry& g, const void* in_v, void* out_v, int threads) {
  const auto* in = static_cast<const unsigned char*>(in_v);
  auto* out = static_cast<unsigned char*>(out_v);
  if (g.rows == 0 || g.cols == 0 || g.elem_words == 0 || g.batch_count() == 0) return;

  // Unit sizes with a compile-time kernel: the five word sizes, and the odd sizes that common element
  // types produce (RGB8 = 3, 3 x fp16 = 6, xyz fp32 = 12, 3 x fp64 = 24, 2..4 x 16-byte words). Every
  // other size (long rows the planner turned into units, up to 64 bytes) copies units word by word.
  switch (g.elem_words * g.word_bytes) {
    case 1: return run_fixed<std::uint8_t>(g, in, out, threads);
    case 2: return run_fixed<std::uint16_t>(g, in, out, threads);
    case 4: return run_fixed<std::uint32_t>(g, in, out, threads);
    case 8: return run_fixed<std::uint64_t>(g, in, out, threads);
    case 16: return run_fixed<unit_bytes<16>>(g, in, out, threads);
    case 3: return run_fixed<unit_bytes<3>>(g, in, out, threads);
    case 6: return run_fixed<unit_bytes<6>>(g, in, out, threads);
    case 12: return run_fixed<unit_bytes<12>>(g, in, out, threads);
    case 24: return run_fixed<unit_bytes<24>>(g, in, out, threads);
    case 32: return run_fixed<unit_bytes<32>>(g, in, out, threads);
    case 48: return run_fixed<unit_bytes<48>>(g, in, out, threads);
    case 64: return run_fixed<unit_bytes<64>>(g, in, out, threads);
    default: break;
  }
  switch (g.word_bytes) {
    case 1: return run_words<std::uint8_t>(g, in, out, threads);
    case 2: return run_words<std::uint16_t>(g, in, out, threads);
    case 4: return run_words<std::uint32_t>(g, in, out, threads);
    case 8: return run_words<std::uint64_t>(g, in, out, threads);
    default: return run_words<unit_bytes<16>>(g, in, out, threads);
  }
}

}  // namespace xpose::detail
