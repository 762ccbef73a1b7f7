// The CPU transpose's tiling policy: a plain aggregate chosen by a closed-form heuristic from the plan and the
// micro-kernel's block. No autotuning: every constant says where it came from (the project's 2-core dev VM,
// AMD EPYC Zen 5, 48 KiB L1d, 1 MiB L2 per core).
#pragma once

#include <algorithm>
#include <cstdint>
#include <ostream>


namespace xpose::detail {

/// How cpu_transpose2d walks a plane: square-ish tiles of `tile_r` x `tile_c` units that fit L1, visited row
/// of tiles by row of tiles, every unit stored straight to the output.
struct transpose_tuning {
  std::int64_t tile_r = 1;  ///< input rows per tile (units along an output row)
  std::int64_t tile_c = 1;  ///< input columns per tile (output rows per tile)

  friend bool operator==(const transpose_tuning&, const transpose_tuning&) = default;
  friend std::ostream& operator<<(std::ostream& os, const transpose_tuning& t) {
    return os << "tiles " << t.tile_r << " x " << t.tile_c;
  }
};

/// The policy for a plane of rows x cols units of `unit` bytes, with a micro-kernel block of
/// block_r x block_c units.
inline transpose_tuning choose_transpose_tuning(std::int64_t rows, std::int64_t cols, std::int64_t unit,
                                                std::int64_t block_r, std::int64_t block_c) {
  auto round_up = [](std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; };
  transpose_tuning t;
  // Square tile of at most 32 KiB (1 B units: 128, 4 B: 64, 16 B: 32), measured on the dev VM with 4096^2
  // 1-byte, 2048^2 4-byte and 1024^2 16-byte transposes: 8 and 16 KiB tiles lose up to 20 %, 64 KiB gains
  // nothing. A plane thinner than the square keeps the tile's area by stretching the other side, so that a
  // 3 x 1e6 (SoA -> AoS) plane still moves thousands of units per task; stretched sides are rounded up to
  // the block.
  constexpr std::int64_t tile_bytes = std::int64_t{32} << 10;
  std::int64_t side = 8;
  while (4 * side * side * unit <= tile_bytes) side *= 2;
  const std::int64_t area = side * side, m = std::max(block_r, block_c);
  t.tile_r = std::min(rows, side);
  t.tile_c = std::min(cols, side);
  if (rows < side) t.tile_c = std::min(cols, round_up(area / std::max<std::int64_t>(rows, 1), m));
  if (cols < side) t.tile_r = std::min(rows, round_up(area / std::max<std::int64_t>(cols, 1), m));
  t.tile_r = std::max<std::int64_t>(t.tile_r, 1);
  t.tile_c = std::max<std::int64_t>(t.tile_c, 1);
  return t;
}

}  // namespace xpose::detail
