// Tuning of the skinny_odd family (kernels/skinny_odd.cuh, dispatch/skinny_odd.cu): n x k <-> k x n of units
// that are not powers of two (3, 5, 6, 7, 10, 12, 14 bytes), periodic register permutes through unit slots.
// Pure host C++ (no CUDA): the slot layout's bank model is unit-tested on the host (tests/host/test_skinny_odd.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

namespace xpose::detail {

struct skinny_odd_policy {
  /// Threads a block.
  static constexpr int threads = 256;
  /// Periods (lcm(U, 16) bytes: 48 for RGB8, 112 for 7-byte units) a tile holds on its packed side, before
  /// the halo: one per thread in the unpack phase. RGB8: 12 KiB of data, 16 KiB of slots; 7-byte units: 28
  /// KiB, 32 KiB of slots.
  static constexpr int periods_per_tile = 256;
  /// Tiles along n are whole multiples of this many units (so that, with an aligned base, every tile's
  /// packed range starts on the 16-byte grid).
  static constexpr int span_multiple = 16;
  /// Largest k whose slot layout is cached (the dispatcher sends k <= 40).
  static constexpr int max_cached_k = 64;
};

/// Geometry of a unit size: a period is lcm(U, 16) bytes = q units in p chunks; a slot is g bytes.
struct skinny_odd_geometry {
  int unit, q, p, g, log2_q;
  explicit constexpr skinny_odd_geometry(int u)
      : unit(u),
        q(16 / (u % 16 == 0 ? 16 : u % 8 == 0 ? 8 : u % 4 == 0 ? 4 : u % 2 == 0 ? 2 : 1)),
        p(u / (u % 16 == 0 ? 16 : u % 8 == 0 ? 8 : u % 4 == 0 ? 4 : u % 2 == 0 ? 2 : 1)),
        g(u <= 4 ? 4 : u <= 8 ? 8 : 16),
        log2_q(q == 16 ? 4 : q == 8 ? 3 : q == 4 ? 2 : q == 2 ? 1 : 0) {}
  /// Slots a phase-2 chunk reads (its bytes [phi, phi + 16) of the units from its first, phi < U).
  constexpr int chunk_slots() const { return (unit + 14) / unit + 1; }
  /// Units along n staged past a tile's span (its output runs reach < 16 bytes past it).
  constexpr int halo() const { return (16 + unit - 1) / unit + 1; }
  /// Units along n a tile owns for this k: the most (a multiple of span_multiple) whose staged units, halo
  /// included, make at most periods_per_tile unpack periods: of the packed range for AoS -> SoA, of each of
  /// the k rows for SoA -> AoS. (Without the halo in the count, 256-thread blocks met 257-272 periods: a
  /// second round of loads for a few threads. H100, successive calls: RGB8 16 x 1048576 0.836 -> 0.904 of memcpy,
  /// 8 x 2097152 0.865 -> 0.928, 5-byte 8 x 2097152 0.849 -> 0.859.)
  constexpr std::int64_t span(std::int64_t k, bool aos_to_soa) const {
    const std::int64_t m = skinny_odd_policy::span_multiple, t = skinny_odd_policy::periods_per_tile;
    const std::int64_t most = aos_to_soa ? t * q / k : q * (t / k);  // staged units along n
    return std::max<std::int64_t>(m, (most - halo()) / m * m);
  }
};

/// Where tile unit m (packed order, m = n k + i) lives in shared memory: byte g m + pad_bytes (m >> pad_shift).
/// The pads move units that lanes read or write together off each other's banks; which spacing does that
/// depends on U, k and the direction (lanes step ~16 / U units along an output row, i.e. ~16 k / U slots, for
/// AoS -> SoA; k slots a lane for SoA -> AoS's unpack), so the dispatcher picks it with the model below.
struct skinny_odd_layout {
  int pad_shift = 4;
  int pad_bytes = 16;
  constexpr std::int64_t slot(int g, std::int64_t m) const { return g * m + pad_bytes * (m >> pad_shift); }
  /// A period's slots are one 16-byte aligned run (no pad inside it): the unpack stores them as vectors.
  constexpr bool vector_periods(const skinny_odd_geometry& geo) const {
    return pad_shift >= geo.log2_q && pad_bytes % 16 == 0;
  }
};

/// Shared-memory wavefronts of one warp-wide access of `width` bytes a lane (4, 8 or 16) at byte addresses
/// addr[0..n) (n <= 32, negative = lane inactive): 32 banks of 4 bytes; 64-bit accesses go a half-warp, 128-bit
/// a quarter-warp at a time, each group taking as many wavefronts as the most distinct words in one bank.
inline int skinny_odd_wavefronts(const std::int64_t* addr, int n, int width) {
  const int group = 128 / width;
  int total = 0;
  for (int g0 = 0; g0 < n; g0 += group) {
    std::array<std::array<std::int64_t, 32>, 32> words;  // words[bank][0 .. count[bank]) only are read
    std::array<int, 32> count{};
    int worst = 0;
    for (int l = g0; l < std::min(n, g0 + group); ++l) {
      if (addr[l] < 0) continue;
      for (int b = 0; b < width; b += 4) {
        const std::int64_t w = (addr[l] + b) / 4;
        const auto bank = static_cast<int>(w % 32);
        bool seen = false;
        for (int c = 0; c < count[bank]; ++c) seen = seen || words[bank][c] == w;
        if (!seen && count[bank] < 32) words[bank][count[bank]++] = w;
        worst = std::max(worst, count[bank]);
      }
    }
    total += worst;
  }
  return total;
}

/// Modelled shared-memory wavefronts a 16-byte output chunk costs (unpack stores and pack loads) with layout
/// `l`, from a few warps of each phase's access pattern (kernels/skinny_odd.cuh), with representative output
/// phases.
inline double skinny_odd_layout_cost(const skinny_odd_geometry& geo, std::int64_t k, bool aos_to_soa,
                                     const skinny_odd_layout& l) {
  const int U = geo.unit, G = geo.g, Q = geo.q, NS = geo.chunk_slots();
  const std::int64_t staged = geo.span(k, aos_to_soa) + geo.halo();
  constexpr int warps = 3;
  std::int64_t a[32];
  long wavefronts = 0, unpack = 0;
  // Phase 1 (unpack): `periods` periods of 32 lanes.
  long periods = 0;
  if (aos_to_soa) {
    const bool vec = l.vector_periods(geo);
    for (int w = 0; w < warps; ++w, periods += 32) {
      if (vec) {
        for (int v = 0; v < Q * G / 16; ++v) {
          for (int j = 0; j < 32; ++j) a[j] = l.slot(G, std::int64_t{Q} * (32 * w + j)) + 16 * v;
          wavefronts += skinny_odd_wavefronts(a, 32, 16);
        }
      } else {
        for (int s = 0; s < Q; ++s) {
          for (int j = 0; j < 32; ++j) a[j] = l.slot(G, std::int64_t{Q} * (32 * w + j) + s);
          wavefronts += skinny_odd_wavefronts(a, 32, G);
        }
      }
    }
  } else {
    for (int w = 0; w < warps; ++w) {
      for (int s = 0; s < Q; ++s) {
        for (int x = 0; x < 32; ++x) {
          const std::int64_t lane = 32 * w + x, j = lane / k, i = lane % k;
          a[x] = l.slot(G, (Q * j + s) * k + i);
        }
        wavefronts += skinny_odd_wavefronts(a, 32, G);
      }
    }
    periods = 32 * warps;
  }
  unpack = wavefronts;
  wavefronts = 0;
  // Phase 2 (pack): `warps` warps of 32 consecutive chunks of one output run; AoS -> SoA: of rows 0, 1, 2
  // (a run is one row) at different byte phases.
  for (int w = 0; w < warps; ++w) {
    const std::int64_t row = aos_to_soa ? std::min<std::int64_t>(w, k - 1) : 0;
    const int e = 16 * U + (7 * w + 3) % 16;  // chunk 0 - run start + 16 U
    for (int s = 0; s < NS; ++s) {
      for (int q = 0; q < 32; ++q) {
        const std::int64_t u = (16 * (32 * w + q) + e) / U - 16 + s;  // unit along the run
        const bool inside = aos_to_soa ? u < staged : u < staged * k;
        a[q] = u < 0 || !inside ? -1 : l.slot(G, aos_to_soa ? u * k + row : u);
      }
      wavefronts += skinny_odd_wavefronts(a, 32, G);
    }
  }
  // Phase 1 covered `periods` periods (p chunks each), phase 2 32 chunks a warp.
  return static_cast<double>(unpack) / (static_cast<double>(periods) * geo.p) + static_cast<double>(wavefronts) / (32.0 * warps);
}

/// The layout with the fewest modelled wavefronts among pads of g, 2 g, 16, 32 or 48 bytes every 2^2 .. 2^7
/// units (ties: the default, then the first found); cached per (unit, k, direction) up to max_cached_k (a
/// search takes ~0.1-0.3 ms).
inline skinny_odd_layout skinny_odd_choose_layout(int unit, std::int64_t k, bool aos_to_soa) {
  const skinny_odd_geometry geo(unit);
  auto search = [&] {
    skinny_odd_layout best;
    double best_cost = skinny_odd_layout_cost(geo, k, aos_to_soa, best);
    for (int shift = 2; shift <= 7; ++shift)
      for (int pad : {geo.g, 2 * geo.g, 16, 32, 48}) {
        if (pad % geo.g != 0 || (pad < 16 && pad > 2 * geo.g)) continue;
        const skinny_odd_layout l{shift, pad};
        const double c = skinny_odd_layout_cost(geo, k, aos_to_soa, l);
        if (c < best_cost - 1e-9) best = l, best_cost = c;
      }
    return best;
  };
  if (unit > 16 || k > skinny_odd_policy::max_cached_k) return search();
  // 0 = not computed yet; else shift << 8 | pad. Two threads may both search; they store the same value.
  static std::array<std::atomic<int>, 17 * (skinny_odd_policy::max_cached_k + 1) * 2> cache{};
  std::atomic<int>& slot = cache[(static_cast<std::size_t>(unit) * (skinny_odd_policy::max_cached_k + 1) +
                                  static_cast<std::size_t>(k)) * 2 + (aos_to_soa ? 1 : 0)];
  if (const int v = slot.load(std::memory_order_relaxed); v != 0) return skinny_odd_layout{v >> 8, v & 0xff};
  const skinny_odd_layout l = search();
  slot.store(l.pad_shift << 8 | l.pad_bytes, std::memory_order_relaxed);
  return l;
}

}  // namespace xpose::detail
