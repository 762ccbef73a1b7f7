// The index maps of the in-place algorithms — `square`'s tile pairs and the passes of `shuffle` (Catanzaro,
// Keller, Garland, PPoPP 2014) — shared by the CPU and CUDA executors and tested on the host
// (tests/host/test_inplace.cpp).
//
// A matrix's buffer is viewed as an m x n row-major grid (inplace_geometry: r2c has m = rows, n = cols;
// c2r the reverse). With c = gcd(m, n), a = m / c, b = n / c, transposing rows x cols in place is:
//
//   r2c (m = rows)                                   c2r (m = cols), the inverse steps in reverse order
//   1. if c > 1, columns: new[i][j] = old[rot_minus(i, j)][j]     1. columns: new[col_s(i, j)][j] = old[i][j]
//   2. rows:    new[i][row_d(i, j)] = old[i][j]                   2. rows:    new[i][j] = old[i][row_d(i, j)]
//   3. columns: new[i][j] = old[col_s(i, j)][j]                   3. if c > 1, columns:
//                                                                      new[i][j] = old[rot_plus(i, j)][j]
//
// Derivation (r2c): element (i, j) of the input must end at linear index j m + i. Step 1 moves it down its
// column by floor(j / b), to row i1; in row i1 the columns (j m + i) mod n of the elements it holds are then
// distinct (j m mod n = c (s a mod b) for j = q b + s, and the rotation separates the c values of q), so step 2
// moves each to its final column; step 3 moves each down its final column to its final row, which for the
// final linear index l = i' n + j' is the row i1 of element (l mod m, l div m). Every step permutes within one
// row or one column, so it needs a buffer of one row or column only. row_d_inv inverts step 2's row map
// (executors that gather where r2c scatters).
#pragma once

#include <cmath>
#include <cstdint>

#include "cuda/index_math.hpp"

namespace xpose::detail {

/// (x * y) mod d for x, y < d < 2^63, without 128-bit arithmetic on the slow path.
XPOSE_HD std::uint64_t mulmod(std::uint64_t x, std::uint64_t y, std::uint64_t d) {
  if (x < (std::uint64_t{1} << 32) && y < (std::uint64_t{1} << 32)) return (x * y) % d;
  std::uint64_t r = 0;
  for (x %= d; y != 0; y >>= 1) {
    if (y & 1) r = (r >= d - x) ? r - (d - x) : r + x;
    x = (x >= d - x) ? x - (d - x) : x + x;
  }
  return r;
}

/// `square`'s tile pairs: lower-triangle index t (row by row, diagonal included) -> tile (I, J), J <= I; the
/// pair is tile (I, J) and its mirror (J, I). The double square root is exact to +-1 below 2^52, then fixed up.
XPOSE_HD void triangle_pair(std::uint64_t t, std::int64_t& I, std::int64_t& J) {
  auto i = static_cast<std::int64_t>((std::sqrt(8.0 * static_cast<double>(t) + 1.0) - 1.0) * 0.5);
  const auto tt = static_cast<std::int64_t>(t);
  while (i * (i + 1) / 2 > tt) --i;
  while ((i + 1) * (i + 2) / 2 <= tt) ++i;
  I = i;
  J = tt - i * (i + 1) / 2;
}

/// `tile_cycles`' unit permutation: after its tile pass a matrix is an [A][t][B] array of units (t contiguous
/// elements) that must become [B][t][A]. next(p) is where the unit now at p goes: p = (x t + y) B + z ->
/// (z t + y) A + x. Units < 2^32 (the planner's limit).
struct unit_cycle_map {
  std::uint64_t A = 1, t = 1;
  fast_divmod div_B, div_t;

  unit_cycle_map() = default;
  unit_cycle_map(std::int64_t A_, std::int64_t t_, std::int64_t B_)
      : A(static_cast<std::uint64_t>(A_)), t(static_cast<std::uint64_t>(t_)),
        div_B(static_cast<std::uint64_t>(B_)), div_t(static_cast<std::uint64_t>(t_)) {}

  XPOSE_HD std::uint32_t next(std::uint32_t p) const {
    std::uint64_t z = 0, y = 0;
    const std::uint64_t q = div_B.divmod(p, z);
    const std::uint64_t x = div_t.divmod(q, y);
    return static_cast<std::uint32_t>((z * t + y) * A + x);
  }
};

/// A bijection of 32-bit unit indices that scatters them (multiplication by an odd constant mod 2^32).
XPOSE_HD std::uint32_t leader_rank(std::uint32_t p) { return p * 0x9E3779B1u; }

/// Whether unit p leads a cycle of 2 .. `limit` units of `map`: it has the cycle's smallest leader_rank. The
/// executors move those cycles from their leader; longer ones come as the plan's segments. Ranking by a
/// scattered index rather than the index itself spreads the leaders evenly over the units (the smallest
/// index of each cycle tends to be small, which would give all the work to the first few blocks).
template <class Map>
XPOSE_HD bool leads_short_cycle(const Map& map, std::uint32_t p, std::uint32_t limit) {
  const std::uint32_t rank = leader_rank(p);
  std::uint32_t y = p;
  for (std::uint32_t k = 1; k <= limit; ++k) {
    y = map.next(y);
    if (y == p) return k > 1;
    if (leader_rank(y) < rank) return false;
  }
  return false;
}

struct shuffle_maps {
  std::uint64_t m = 1, n = 1, c = 1, b = 1, a_inv = 0;
  fast_divmod div_m, div_n, div_b, div_c;

  shuffle_maps() = default;
  shuffle_maps(std::int64_t m_, std::int64_t n_, std::int64_t c_, std::int64_t b_, std::int64_t a_inv_)
      : m(static_cast<std::uint64_t>(m_)), n(static_cast<std::uint64_t>(n_)), c(static_cast<std::uint64_t>(c_)),
        b(static_cast<std::uint64_t>(b_)), a_inv(static_cast<std::uint64_t>(a_inv_)), div_m(m), div_n(n),
        div_b(b), div_c(c) {}

  /// Rotation of column j (< c).
  XPOSE_HD std::uint64_t rot(std::uint64_t j) const { return div_b.div(j); }
  /// (i - rot(j)) mod m and (i + rot(j)) mod m.
  XPOSE_HD std::uint64_t rot_minus(std::uint64_t i, std::uint64_t j) const {
    const std::uint64_t k = rot(j);
    return i >= k ? i - k : i + m - k;
  }
  XPOSE_HD std::uint64_t rot_plus(std::uint64_t i, std::uint64_t j) const {
    const std::uint64_t s = i + rot(j);
    return s >= m ? s - m : s;
  }
  /// Row map: the column that element j of row i moves to in r2c step 2 (c2r step 2 gathers from it).
  XPOSE_HD std::uint64_t row_d(std::uint64_t i, std::uint64_t j) const {
    std::uint64_t r = 0;
    div_n.divmod(j * m + rot_minus(i, j), r);  // j m < m n: no overflow (validated spans)
    return r;
  }
  /// The j with row_d(i, j) == d.
  XPOSE_HD std::uint64_t row_d_inv(std::uint64_t i, std::uint64_t d) const {
    std::uint64_t im = 0, dm = 0;
    div_c.divmod(i, im);
    div_c.divmod(d, dm);
    const std::uint64_t q = im >= dm ? im - dm : im + c - dm;  // (i - d) mod c = rot(j)
    const std::uint64_t io = i >= q ? i - q : i + m - q;       // the element's original row
    std::uint64_t ion = 0;
    div_n.divmod(io, ion);
    const std::uint64_t t = div_c.div(d >= ion ? d - ion : d + n - ion);  // (d - io) mod n == c (s a mod b)
    return q * b + (b > 1 ? mulmod(t, a_inv, b) : 0);
  }
  /// Column map: the row that r2c step 3 gathers (i, j) from (c2r step 1 scatters to).
  XPOSE_HD std::uint64_t col_s(std::uint64_t i, std::uint64_t j) const {
    std::uint64_t r = 0;
    const std::uint64_t q = div_m.divmod(i * n + j, r);  // l = i n + j -> (l mod m, l div m)
    const std::uint64_t s = r + div_b.div(q);            // l div m < n, so its rotation is < c <= m
    return s >= m ? s - m : s;
  }
};

/// A shuffle map along a row, unit after unit (j, j + 1, ...), at an add and a compare a step instead of one
/// or two 64-bit divisions: row_d(i, j + 1) = row_d(i, j) + m mod n, and the rotations stay put, until j / b
/// changes (every b units); col_s(i, j + 1) = col_s(i, j) + 1 mod m until i n + j + 1 reaches a multiple of m
/// (every m units). At those points the map is computed whole. `f` is the map at `j`.
struct shuffle_cursor {
  enum class map : int { rot_minus, rot_plus, row_d, col_s };
  const shuffle_maps* mp;
  map kind;
  std::uint64_t i, j, f = 0, cnt = 0, period = 1, step = 0, mod = 1;

  XPOSE_HD shuffle_cursor(const shuffle_maps& maps, map k, std::uint64_t row, std::uint64_t col)
      : mp(&maps), kind(k), i(row), j(col) {
    f = at(j);
    if (kind == map::col_s) {
      maps.div_m.divmod(i * maps.n + j, cnt);  // i n + j < m n: fits (validated spans)
      period = maps.m, step = 1, mod = maps.m;
    } else {
      maps.div_b.divmod(j, cnt);
      period = maps.b;
      step = kind == map::row_d ? maps.m % maps.n : 0;
      mod = kind == map::row_d ? maps.n : maps.m;
    }
  }
  /// The map at (i, x), computed whole.
  XPOSE_HD std::uint64_t at(std::uint64_t x) const {
    switch (kind) {
      case map::rot_minus: return mp->rot_minus(i, x);
      case map::rot_plus: return mp->rot_plus(i, x);
      case map::row_d: return mp->row_d(i, x);
      default: return mp->col_s(i, x);
    }
  }
  /// To j + 1.
  XPOSE_HD void next() {
    ++j;
    if (++cnt == period) {
      cnt = 0;
      f = at(j);
    } else {
      f += step;
      if (f >= mod) f -= mod;
    }
  }
};

}  // namespace xpose::detail
