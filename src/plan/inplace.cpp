// In-place planner: validation, algorithm, direction and staging (see include/xpose/inplace.hpp).
#include "plan/inplace.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <vector>

#include "cuda/tuning/inplace.hpp"
#include "plan/inplace_maps.hpp"
#include "plan/planner.hpp"

namespace xpose::detail {

namespace {

// a^-1 mod b for gcd(a, b) == 1, b > 1 (extended Euclid; |coefficients| <= b, so 64 bits suffice).
std::int64_t inverse_mod(std::int64_t a, std::int64_t b) {
  std::int64_t old_r = a % b, r = b, old_s = 1, s = 0;
  while (r != 0) {
    const std::int64_t q = old_r / r;
    const std::int64_t tr = old_r - q * r;
    old_r = r, r = tr;
    const std::int64_t ts = old_s - q * s;
    old_s = s, s = ts;
  }
  std::int64_t x = old_s % b;
  return x < 0 ? x + b : x;
}

// The unit of tile_cycles and skinny_cycles: the divisor t of n (t >= 2) that `fits` accepts and whose t units
// of `unit` bytes are at least cycle_unit_min_bytes; among those, 16-byte multiples first (the passes then
// move 16-byte vectors), then the largest unit up to `target` bytes, else the smallest above it. 0 when no
// divisor qualifies. O(sqrt(n)): the callers bound n first.
template <class Fits>
std::int64_t pick_unit(std::int64_t n, std::int64_t unit, std::int64_t target, const Fits& fits) {
  std::int64_t below[2] = {0, 0}, above[2] = {0, 0};  // [aligned]
  auto consider = [&](std::int64_t t) {
    const std::int64_t bytes = t * unit;  // t <= n, a side of a validated matrix: fits
    if (t < 2 || bytes < inplace_tuning::cycle_unit_min_bytes || !fits(t)) return;
    const int aligned = bytes % 16 == 0;
    if (bytes <= target) below[aligned] = std::max(below[aligned], t);
    else if (above[aligned] == 0 || t < above[aligned]) above[aligned] = t;
  };
  for (std::int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) consider(d), consider(n / d);
  for (int aligned : {1, 0}) {
    if (below[aligned] != 0) return below[aligned];
    if (above[aligned] != 0) return above[aligned];
  }
  return 0;
}

// The unit pass shared by tile_cycles and skinny_cycles: N units of `unit` bytes permuted by
// unit_cycle_map(A, t, B). Enumerates the cycles, cuts the long ones into segments and fills g's unit-pass
// fields and workspace; false when the segments would not fit (the table, the workspace, the leader tests).
bool plan_unit_cycles(inplace_geometry& g, std::int64_t A, std::int64_t t, std::int64_t B, std::int64_t unit) {
  using namespace inplace_tuning;
  const std::int64_t N = A * t * B;  // <= max_cycle_units
  // Segments allowed: the table's limit and the workspace for their saved first units.
  std::int64_t k_cap = std::min(max_cycle_segments, cycle_workspace_budget / unit / g.batch);
  k_cap = std::min(k_cap, std::max<std::int64_t>(target_cycle_segments, 2));
  if (k_cap < 2) return false;
  // Cycles longer than Ls are cut into segments; there are at most N / (Ls + 1) <= k_cap / 2 of them.
  const std::int64_t Ls = std::max(min_short_cycle, (2 * N + k_cap - 1) / k_cap);
  std::int64_t steps = 0;
  if (!checked_mul(g.batch, N, steps) || !checked_mul(steps, Ls, steps) || steps > max_leader_test_steps)
    return false;
  const unit_cycle_map map(A, t, B);
  const auto n = static_cast<std::uint32_t>(N);
  std::vector<bool> seen(static_cast<std::size_t>(N));
  std::int64_t long_cycles = 0, long_units = 0, cycles = 0, cycle_units = 0;  // cycles: every one of >= 2 units
  for (std::uint32_t p = 0; p < n; ++p) {
    if (seen[p]) continue;
    std::int64_t L = 0;
    std::uint32_t q = p;
    do {
      seen[q] = true;
      q = map.next(q);
      ++L;
    } while (q != p);
    if (L > Ls) ++long_cycles, long_units += L;
    if (L > 1) ++cycles, cycle_units += L;
  }
  // Every cycle in the table where they all fit (at most all_cap segments, each at least min_segment_length
  // long or a whole cycle): the executors then test no unit for leading a short cycle (short_cycle 0), work
  // whose warps wait on their slowest lane and whose blocks wait at a barrier (H200, u8 4097 x 10001's unit
  // pass: 169 us at 7.5 % DRAM, 45 % of the stalls at that barrier). Otherwise the long cycles' segments
  // only, and the executors find the short cycles.
  const std::int64_t all_cap = std::min(max_cycle_segments, cycle_workspace_budget / unit / g.batch);
  const bool all = cycles > 0 && cycles < all_cap;
  std::int64_t S = min_segment_length;
  if (all) S = std::max(S, (cycle_units + (all_cap - cycles) - 1) / (all_cap - cycles));
  else if (long_cycles > 0) S = std::max(S, (long_units + (k_cap - long_cycles) - 1) / (k_cap - long_cycles));
  const std::int64_t cut = all ? 1 : Ls;  // cycles longer than this go into the table
  g.segments.clear();
  seen.assign(static_cast<std::size_t>(N), false);
  std::vector<std::uint32_t> cycle;
  for (std::uint32_t p = 0; p < n && (all || long_cycles > 0); ++p) {
    if (seen[p]) continue;
    cycle.clear();
    std::uint32_t q = p;
    do {
      seen[q] = true;
      cycle.push_back(q);
      q = map.next(q);
    } while (q != p);
    const auto L = static_cast<std::int64_t>(cycle.size());
    if (L <= cut) continue;
    const std::int64_t k = (L + S - 1) / S;  // segments of floor(i L / k) .. floor((i + 1) L / k)
    for (std::int64_t i = 0; i < k; ++i) {
      g.segments.push_back(cycle[static_cast<std::size_t>(i * L / k)]);
      g.segments.push_back(cycle[static_cast<std::size_t>((i + 1) % k * L / k)]);
    }
  }
  g.map_a = A, g.map_t = t, g.map_b = B;
  g.units = N;
  g.short_cycle = all ? 0 : Ls;
  g.segment_length = S;
  const auto segments = static_cast<std::int64_t>(g.segments.size() / 2);
  g.workspace_bytes = segments == 0 ? 0 : g.batch * segments * unit + workspace_slack;
  return true;
}

// tile_cycles (see inplace.hpp): true when the shape suits it.
bool plan_tile_cycles(inplace_geometry& g) {
  // units = rows cols / t >= max(rows, cols) (t <= gcd): nothing to search beyond that (and the divisor
  // search below stays within sqrt(max_cycle_units) steps).
  if (std::max(g.rows, g.cols) > inplace_tuning::max_cycle_units) return false;
  const std::int64_t elements = g.rows * g.cols;
  const std::int64_t t = pick_unit(g.c, g.elem_bytes, inplace_tuning::cycle_unit_target_bytes,
                                   [&](std::int64_t t) { return elements / t <= inplace_tuning::max_cycle_units; });
  if (t == 0 || !plan_unit_cycles(g, g.rows / t, t, g.cols / t, t * g.elem_bytes)) return false;
  g.algo = inplace_algorithm::tile_cycles;
  g.tile = t;
  g.tiles_a = g.rows / t;
  g.tiles_b = g.cols / t;
  return true;
}

// skinny_cycles (see inplace.hpp): the long side m = a h, chunks of h x k (k the short side) in shared
// memory: pick_unit's h with chunks within skinny_chunk_bytes and at most max_cycle_units units.
bool plan_skinny_cycles(inplace_geometry& g) {
  using namespace inplace_tuning;
  const bool tall = g.rows > g.cols;
  const std::int64_t m = tall ? g.rows : g.cols, k = tall ? g.cols : g.rows, U = g.elem_bytes;
  if (k > skinny_chunk_bytes / U / 2) return false;
  // m k / h <= max_cycle_units with h <= skinny_chunk_bytes / (U k): bounds m (and the divisor search).
  if (m / (skinny_chunk_bytes / U / k) > max_cycle_units / k) return false;
  const std::int64_t h = pick_unit(m, U, skinny_unit_target_bytes, [&](std::int64_t h) {
    return h <= skinny_chunk_bytes / U / k && m * k / h <= max_cycle_units;
  });
  if (h == 0) return false;
  const std::int64_t a = m / h;
  // tall: chunks [a][h][k] -> [a][k][h] first, then units [a][k] -> [k][a]; wide: units [k][a] -> [a][k]
  // first, then chunks [a][k][h] -> [a][h][k].
  if (!(tall ? plan_unit_cycles(g, a, k, 1, h * U) : plan_unit_cycles(g, k, a, 1, h * U))) return false;
  g.algo = inplace_algorithm::skinny_cycles;
  g.tile = h;
  g.units_first = !tall;
  g.chunk_rows = tall ? h : k;
  g.chunk_cols = tall ? k : h;
  return true;
}

// The out-of-place plan of `p` into `out` (validated, canonicalized, selected): false when it has none.
bool plan_out_of_place(const problem& p, plan_geometry& out) {
  normalized_problem np;
  if (!validate(p, np)) return false;
  auto geometry = select(canonicalize(np));
  if (!geometry) return false;
  out = *geometry;
  return true;
}

// near_square (see inplace.hpp): true when the shape suits it.
bool plan_near_square(inplace_geometry& g) {
  using namespace inplace_tuning;
  const std::int64_t s = std::min(g.rows, g.cols), d = std::max(g.rows, g.cols) - s, U = g.elem_bytes;
  const std::int64_t part = U >= 4 && (U & (U - 1)) == 0 ? near_square_part_bytes_words : near_square_part_bytes;
  if (g.batch != 1 || d > s / 2 || d > part / U / s) return false;
  // The square pass runs at the matrix's pitch: square_bulk8 / square_vec16 / square_gather where rows are 16-byte
  // multiples apart, else square_vec8 (1-byte units on 8-byte multiples), square_shift16 (1- and 2-byte units),
  // single-word square_words (4-16 bytes) or
  // square_gather_any (other units up to square_gather_max_unit bytes). Larger units would take square_words'
  // multi-word path.
  const std::int64_t pitch = (g.rows > g.cols ? s : s + d) * U;
  if ((U & (U - 1)) != 0 ? U > square_gather_max_unit : U > 16) return false;
  // The write-back of the extra part: tall, d x s -> s x d after each row's s elements (pitch n); wide,
  // s x d -> d x s, packed after the square.
  const std::int64_t n = s + d;
  const problem back = g.rows > g.cols ? problem{{d, s}, {1, 0}, U, {}, {n, 1}} : problem{{s, d}, {1, 0}, U, {}, {}};
  if (!plan_out_of_place(back, g.near_extra_plan)) return false;
  // Wide: the save of the extra columns, a rows gather (any alignment: cudaMemcpy2DAsync of rgb8 3001 x 4097's
  // 3001 rows of 3288 bytes at the odd pitch 12291 took ~25 us on the H100, a contiguous copy of the same bytes ~8).
  if (g.rows < g.cols && !plan_out_of_place({{s, d}, {0, 1}, U, {n, 1}, {}}, g.near_save_plan)) return false;
  g.algo = inplace_algorithm::near_square;
  g.near_side = s;
  g.near_extra = d;
  g.repitch_bands = repitch_bands(pitch, s * U, s);
  g.workspace_bytes = s * d * U + 4 * (repitch_flag_slots(g.repitch_bands) + 1) + 2 * workspace_slack;
  return true;
}

// The groups of staged and staged_blocks: `count` matrices of rows x cols elements, `stride` elements apart,
// staged as many at a time as the budget holds (g.group), each group gathered packed into the workspace (a copy
// when the matrices are packed) and transposed back to its place; the `_last` plans for a short last group.
// False when a plan fails.
bool plan_staged_groups(inplace_geometry& g, std::int64_t count, std::int64_t rows, std::int64_t cols,
                        std::int64_t stride) {
  const std::int64_t U = g.elem_bytes, elements = rows * cols;  // elements <= staged_budget_bytes / U
  g.group = std::min(count, inplace_tuning::staged_budget_bytes / (elements * U));
  auto plans = [&](std::int64_t n, plan_geometry& copy, plan_geometry& back) {
    return plan_out_of_place({{n, elements}, {0, 1}, U, {stride, 1}, {}}, copy) &&
           plan_out_of_place({{n, rows, cols}, {0, 2, 1}, U, {}, {stride, rows, 1}}, back);
  };
  if (!plans(g.group, g.staged_copy, g.staged_back)) return false;
  const std::int64_t last = count % g.group;
  return last == 0 || plans(last, g.staged_copy_last, g.staged_back_last);
}

// staged (see inplace.hpp): true when one matrix fits the budget.
bool plan_staged(inplace_geometry& g) {
  using namespace inplace_tuning;
  const std::int64_t U = g.elem_bytes, elements = g.rows * g.cols;  // fits: the span did
  if (elements > staged_budget_bytes / U || !plan_staged_groups(g, g.batch, g.rows, g.cols, g.batch_stride))
    return false;
  g.algo = inplace_algorithm::staged;
  g.workspace_bytes = g.group * elements * U + workspace_slack;
  return true;
}

// staged_blocks (see inplace.hpp): true when a side splits into blocks that fit the budget, with units of at
// least cycle_unit_min_bytes and at most max_cycle_units of them (the side with fewer units wins).
bool plan_staged_blocks(inplace_geometry& g) {
  using namespace inplace_tuning;
  const std::int64_t U = g.elem_bytes;
  bool by_rows = false;
  std::int64_t best_h = 0, best_units = 0;
  for (const bool rows : {true, false}) {
    const std::int64_t side = rows ? g.rows : g.cols, other = rows ? g.cols : g.rows;
    if (other > staged_budget_bytes / U) continue;
    const std::int64_t h_max = staged_budget_bytes / U / other;  // blocks of h x other fit the budget
    // units = (side / h) other <= max_cycle_units with h <= h_max bounds the side (and the divisor search).
    if (side / h_max > max_cycle_units / other) continue;
    std::int64_t h = 0;
    auto consider = [&](std::int64_t d) {
      if (d < side && d <= h_max && d * U >= cycle_unit_min_bytes && side / d <= max_cycle_units / other) h = std::max(h, d);
    };
    for (std::int64_t d = 1; d * d <= side; ++d)
      if (side % d == 0) consider(d), consider(side / d);
    if (h == 0) continue;
    const std::int64_t units = side / h * other;
    if (best_h == 0 || units < best_units) by_rows = rows, best_h = h, best_units = units;
  }
  if (best_h == 0) return false;
  const std::int64_t h = best_h, blocks = (by_rows ? g.rows : g.cols) / h;
  if (g.batch > max_staged_blocks / blocks) return false;  // kernel launches: two a block
  // Rows split: blocks [h][cols] -> [cols][h], then units [a][cols] -> [cols][a]. Columns split: units
  // [rows][a] -> [a][rows] first, then blocks [rows][h] -> [h][rows]. A matrix's blocks are contiguous and
  // staged as many at a time as the budget holds (one copy and one batched transpose a group: H100, u8 4097 x
  // 10001's 17 blocks one at a time ran 0.089 of memcpy).
  const std::int64_t r = by_rows ? h : g.rows, c = by_rows ? g.cols : h;
  if (!plan_staged_groups(g, blocks, r, c, r * c)) return false;
  // Last: plan_unit_cycles fills g's unit-pass fields and workspace only when it succeeds.
  if (!(by_rows ? plan_unit_cycles(g, blocks, 1, g.cols, h * U) : plan_unit_cycles(g, g.rows, 1, blocks, h * U)))
    return false;
  g.algo = inplace_algorithm::staged_blocks;
  g.tile = h;
  g.blocks = blocks;
  g.units_first = !by_rows;
  g.workspace_bytes = std::max(g.workspace_bytes, g.group * r * c * U + workspace_slack);
  return true;
}

}  // namespace

status make_inplace_geometry(const inplace_problem& p, inplace_geometry& g, std::int64_t& span_bytes,
                             inplace_choice choice) {
  g = inplace_geometry{};
  span_bytes = 0;
  if (p.rows < 0) return invalid("rows = ", p.rows, " is negative");
  if (p.cols < 0) return invalid("cols = ", p.cols, " is negative");
  if (p.elem_bytes < 1) return invalid("elem_bytes = ", p.elem_bytes, " must be at least 1");
  if (p.batch < 0) return invalid("batch = ", p.batch, " is negative");
  if (p.ld < 0) return invalid("ld = ", p.ld, " is negative (0 means cols)");
  if (p.batch_stride < 0) return invalid("batch_stride = ", p.batch_stride, " is negative (0 means rows * ld)");
  const std::int64_t ld = p.ld == 0 ? p.cols : p.ld;
  if (ld < p.cols) return invalid("ld = ", p.ld, " is smaller than cols = ", p.cols);
  if (ld != p.cols && p.rows != p.cols && p.rows > 1) {  // n x 1 too: its transpose is packed
    return invalid("ld = ", p.ld, " differs from cols = ", p.cols, ", but a pitched in-place transpose needs a square ",
                   "matrix: a ", p.rows, " x ", p.cols, " one changes its row length (pack it first)");
  }
  std::int64_t matrix_span = 0;  // elements from a matrix's first to one past its last element
  if (p.rows > 0 && p.cols > 0) {
    std::int64_t t = 0;
    if (!checked_mul(p.rows - 1, ld, t) || !checked_add(t, p.cols, matrix_span))
      return invalid("rows = ", p.rows, " x ld = ", ld, " overflows 64 bits");
  }
  std::int64_t bstride = p.batch_stride;
  if (bstride == 0 && !checked_mul(p.rows, ld, bstride))  // rows * ld can pass 2^63 where the span does not
    return invalid("rows = ", p.rows, " x ld = ", ld, " overflows 64 bits");
  if (p.batch > 1 && matrix_span > 0 && bstride < matrix_span) {
    return invalid("batch_stride = ", p.batch_stride, " is smaller than one matrix's span of ", matrix_span,
                   " elements: the matrices would overlap");
  }
  std::int64_t elements = 0, total = 0;
  if (p.batch > 0 && matrix_span > 0) {
    std::int64_t t = 0;
    if (!checked_mul(p.batch - 1, bstride, t) || !checked_add(t, matrix_span, total) ||
        !checked_mul(total, p.elem_bytes, span_bytes) || !checked_mul(p.rows, p.cols, t) ||
        !checked_mul(t, p.batch, elements))
      return invalid("batch = ", p.batch, " matrices of ", p.rows, " x ", p.cols, " x ", p.elem_bytes,
                     " bytes overflow 64 bits");
  }
  g.elem_bytes = p.elem_bytes;
  g.rows = p.rows, g.cols = p.cols, g.batch = p.batch, g.ld = ld, g.batch_stride = bstride;
  if (elements == 0 || p.rows == 1 || p.cols == 1) {
    g.algo = inplace_algorithm::none;
    return status::ok();
  }
  if (p.rows == p.cols) {
    g.algo = inplace_algorithm::square;
    return status::ok();
  }
  g.algo = inplace_algorithm::shuffle;
  g.c2r = p.cols < p.rows;  // the grid's columns (length m) are the shorter side
  g.m = g.c2r ? p.cols : p.rows;
  g.n = g.c2r ? p.rows : p.cols;
  g.c = std::gcd(g.m, g.n);
  g.a = g.m / g.c;
  g.b = g.n / g.c;
  g.a_inv_mod_b = g.b > 1 ? inverse_mod(g.a, g.b) : 0;
  g.workspace_bytes = shuffle_staging_for(g, inplace_tuning::portable_smem_bytes).workspace_bytes;
  // staged first: on the H100 its copy and out-of-place transpose (0.35-0.73 of memcpy, 2 x bytes / time) beat
  // the cycle algorithms (0.25-0.40) and shuffle (0.09-0.35) on every rectangle of the in-place suite it takes.
  if (choice == inplace_choice::shuffle_only || (choice == inplace_choice::any && plan_staged(g))) return status::ok();
  if (plan_tile_cycles(g) || plan_skinny_cycles(g) || plan_near_square(g)) return status::ok();
  // Over the budget, staged_blocks where shuffle moves 1- or 2-byte words. Since the shuffle's batched loads
  // the H100 runs u8 8191 x 8193 faster as shuffle (346 vs 412 us) but rgb8 4097 x 3001 slower (503 vs 392 us),
  // and the CPU executor runs u8 8191 x 8193 5.4x faster as staged_blocks (docs/perf-notes.md, fifth session):
  // one plan serves both executors, so staged_blocks stays.
  if (choice == inplace_choice::any && (g.elem_bytes & 3) != 0) plan_staged_blocks(g);
  return status::ok();
}

shuffle_staging shuffle_staging_for(const inplace_geometry& g, std::int64_t smem_capacity) {
  using namespace inplace_tuning;
  shuffle_staging s;
  if (g.algo != inplace_algorithm::shuffle) return s;
  const std::int64_t unit = g.elem_bytes;
  const std::int64_t row_bytes = g.n * unit;  // fits: the matrix's span did
  const std::int64_t lines = g.batch * g.m;
  std::int64_t ws = 0;
  s.rows_in_smem = row_bytes <= smem_capacity && lines >= min_rows_per_block_staging;
  if (!s.rows_in_smem) {
    s.wave_rows = std::clamp<std::int64_t>(workspace_budget / row_bytes, 1, lines);
    ws = s.wave_rows * row_bytes;
  }
  s.strip = strip_units(g.m, unit, smem_capacity, strip_bytes_smem);
  s.strips_in_smem = s.strip > 0;
  if (!s.strips_in_smem) {
    s.strip = floor_pow2(std::max<std::int64_t>(1, strip_bytes_global / unit));
    s.strip = std::min(s.strip, floor_pow2(g.n));
    while (s.strip > 1 && g.m * s.strip * unit > workspace_budget) s.strip /= 2;  // slot <= max(budget, m unit)
    const std::int64_t slot = g.m * s.strip * unit;
    const std::int64_t strips = g.batch * ((g.n + s.strip - 1) / s.strip);
    s.strip_slots = std::clamp<std::int64_t>(workspace_budget / slot, 1, std::min(strips, max_strip_slots));
    ws = std::max(ws, s.strip_slots * slot);
  }
  s.workspace_bytes = ws == 0 ? 0 : ws + workspace_slack;
  return s;
}

}  // namespace xpose::detail
