// Transposes whose byte map repeats along a contiguous output range, run as one periodic byte permutation:
//
//   planes        packed batches of small planes (b x r x c -> b x c x r, r x c x unit of at most a few KiB:
//                 1e6 x 3 x 16 bytes, 65536 x 4 x 8 floats, N-d permutations whose slow axes stay put);
//                 output byte k comes from input byte k - k % P + f(k % P) (P = plane bytes, f the transpose
//                 of one plane): the map repeats every lcm(P, 64) bytes, on both sides;
//   deinterleave  thin planes n x k -> k x n (AoS -> SoA) of units that the level's thin kernels do not take
//                 (3-, 5-, 6-, 7-byte pixels ...): output row j, byte o, comes from input byte (o / U) k U + j U
//                 + o % U: lcm(U, 64) output bytes a period, k times as many input bytes;
//   interleave    k x n -> n x k (SoA -> AoS), the same units: output byte o comes from row j = o % (k U) / U at
//                 (o / (k U)) U + o % U: lcm(k U, 64) output bytes a period, 1 / k of them from each input row.
//
// A table of one period's 64-byte output vectors, each assembled from one or a few 128-byte input windows by
// two-source permutes (periodic_avx512.hpp: vpermt2b with VBMI, vpermt2w / vpermt2d on 2- and 4-byte
// granules without), drives every period. The tile path pays a kernel call, edge handling and a prefetch walk
// per plane instead (150 ns for a 48-byte plane: u8 1e6 x 3 x 16 at 0.6 GB/s, 0.03 of the non-temporal copy on
// the dev VM), and the tile kernels of odd units move a unit at a time on thin planes.
//
// Output vectors are 64-byte aligned (a range's table starts at its first line boundary), streamed with
// non-temporal stores when the output is large (use_streaming). The bytes before a range's first line boundary
// and after its last whole period the loads can reach are copied byte by byte. Tasks are chunks of periods of
// the ranges (batch items x output rows).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <numeric>
#include <vector>

#include "cpu/batch_cursor.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/kernel_table.hpp"
#include "cpu/macrokernels.hpp"
#include "cpu/periodic_program.hpp"
#include "cpu/threads.hpp"
#include "cpu/tuning_cpu.hpp"

namespace xpose::detail {

namespace {

constexpr std::int64_t line = 64;

enum class map_kind { planes, deinterleave, interleave };

// The byte map of one output range, relative to the range's input and output bases.
struct byte_map {
  map_kind kind = map_kind::planes;
  std::int64_t rows = 0, cols = 0;  // planes: the plane's rows x cols; thin: n (long side), k (short side)
  std::int64_t unit = 0;
  std::int64_t in_rs = 0;  // interleave: bytes between input rows
  std::int64_t out_period() const {
    switch (kind) {
      case map_kind::planes: return std::lcm(rows * cols * unit, line);
      case map_kind::deinterleave: return std::lcm(unit, line);
      case map_kind::interleave: return std::lcm(cols * unit, line);
    }
    return 0;
  }
  std::int64_t in_period() const {
    const std::int64_t p = out_period();
    switch (kind) {
      case map_kind::planes: return p;
      case map_kind::deinterleave: return p * cols;
      case map_kind::interleave: return p / cols;
    }
    return 0;
  }
  bool operator==(const byte_map& o) const {
    return kind == o.kind && rows == o.rows && cols == o.cols && unit == o.unit && in_rs == o.in_rs;
  }
};

// Walks output bytes k, k + 1, ... of a range keeping the input byte each comes from (no division a byte).
// Digits, fastest first: planes (b, r, c, plane), deinterleave (b, unit), interleave (b, row j, record).
class byte_walk {
 public:
  byte_walk(const byte_map& m, std::int64_t k) : m_(m) {
    switch (m.kind) {
      case map_kind::planes: {
        const std::int64_t plane = m.rows * m.cols * m.unit, row = m.rows * m.unit;
        d_[3] = k / plane;
        k -= d_[3] * plane;
        d_[2] = k / row;  // output row = input column c
        k -= d_[2] * row;
        d_[1] = k / m.unit;  // input row r
        d_[0] = k - d_[1] * m.unit;
        break;
      }
      case map_kind::deinterleave:
        d_[1] = k / m.unit;
        d_[0] = k - d_[1] * m.unit;
        break;
      case map_kind::interleave: {
        const std::int64_t rec = m.cols * m.unit;
        d_[2] = k / rec;
        k -= d_[2] * rec;
        d_[1] = k / m.unit;
        d_[0] = k - d_[1] * m.unit;
        break;
      }
    }
  }
  std::int64_t source() const {
    switch (m_.kind) {
      case map_kind::planes:
        return d_[3] * m_.rows * m_.cols * m_.unit + (d_[1] * m_.cols + d_[2]) * m_.unit + d_[0];
      case map_kind::deinterleave: return d_[1] * m_.cols * m_.unit + d_[0];
      case map_kind::interleave: return d_[1] * m_.in_rs + d_[2] * m_.unit + d_[0];
    }
    return 0;
  }
  void next() {
    if (++d_[0] < m_.unit) return;
    d_[0] = 0;
    switch (m_.kind) {
      case map_kind::planes:
        if (++d_[1] < m_.rows) return;
        d_[1] = 0;
        if (++d_[2] < m_.cols) return;
        d_[2] = 0;
        ++d_[3];
        return;
      case map_kind::deinterleave: ++d_[1]; return;
      case map_kind::interleave:
        if (++d_[1] < m_.cols) return;
        d_[1] = 0;
        ++d_[2];
        return;
    }
  }

 private:
  const byte_map& m_;
  std::array<std::int64_t, 4> d_{};
};

void copy_bytes(const byte_map& m, const unsigned char* in, unsigned char* out, std::int64_t k0, std::int64_t k1) {
  byte_walk w(m, k0);
  for (std::int64_t k = k0; k < k1; ++k, w.next()) out[k] = in[w.source()];
}

// One period's table (kernel_table.hpp, periodic_table) of a map for output vectors starting `head` bytes into
// the range, with the permute's granule size.
struct built_table {
  byte_map map;
  std::int64_t head = -1;
  periodic_program prog;

  bool same(const byte_map& m, std::int64_t h, int g) const { return map == m && head == h && prog.granule == g; }
  periodic_table view() const { return prog.view(map.out_period(), map.in_period()); }
  std::int64_t max_end() const { return prog.max_end; }

  void build(const byte_map& m, std::int64_t h, int g) {
    map = m;
    head = h;
    prog.clear(g);
    const int vectors = static_cast<int>(m.out_period() / line), per_vector = static_cast<int>(line / g);
    std::vector<std::pair<std::int64_t, int>> granules(static_cast<std::size_t>(per_vector));  // (source, slot)
    byte_walk w(map, head);
    for (int j = 0; j < vectors; ++j) {
      for (int i = 0; i < per_vector; ++i) {
        granules[static_cast<std::size_t>(i)] = {w.source(), i};
        for (int n = 0; n < g; ++n) w.next();
      }
      prog.add_vector(granules);
    }
  }
};

// The tables of the current problem, one per head (output rows of thin planes may start at any phase of a
// line), kept by the calling thread between calls: repeated executions of one plan build them once. Built
// before the workers start, which only read them (a deque: references stay valid as tables are added).
const built_table& table_for(const byte_map& m, std::int64_t head, int granule) {
  thread_local std::deque<built_table> tables;  // of one map and granule: at most 64 heads
  if (!tables.empty() && !tables.front().same(m, tables.front().head, granule)) tables.clear();
  for (const built_table& t : tables)
    if (t.same(m, head, granule)) return t;
  tables.emplace_back();
  tables.back().build(m, head, granule);
  return tables.back();
}

// One output range of the problem: `bytes` of output at `out` read from `in` through the map.
struct range {
  const unsigned char* in;
  unsigned char* out;
  std::int64_t in_bytes;  // input bytes from `in` the range's map may read (its loads stay below)
};

}  // namespace

bool cpu_transpose2d_periodic(const plan_geometry& g, const void* in_v, void* out_v, int threads) {
  if (g.algo != algorithm::transpose2d || g.compound()) return false;
  const isa_kernels& isa = kernels_for(active_cpu_isa());
  const std::int64_t wb = g.word_bytes, unit = g.elem_words * wb;
  const std::int64_t rows = g.rows, cols = g.cols, in_rs = g.in_ld * wb, out_rs = g.out_ld * wb;
  if (rows < 2 || cols < 2) return false;
  const auto* in = static_cast<const unsigned char*>(in_v);
  auto* out = static_cast<unsigned char*>(out_v);
  const std::int64_t items = g.batch_count();

  // Which map, its output ranges (per batch item: `lines` of `line_bytes` each) and their bases.
  byte_map m;
  m.unit = unit;
  std::int64_t lines = 1, line_bytes = 0;
  bool batch_as_one = false;  // planes: the whole packed batch is one range
  if (rows * cols * unit <= periodic_max_plane_bytes && in_rs == cols * unit && out_rs == rows * unit && items > 1) {
    line_bytes = nested_batch_bytes(g, rows * cols * unit, true);  // item i at i x plane bytes on both sides
    if (line_bytes == 0) return false;
    m.kind = map_kind::planes;
    m.rows = rows;
    m.cols = cols;
    batch_as_one = true;
  } else if (cols <= periodic_max_thin_k && in_rs == cols * unit && out_rs >= rows * unit) {
    m.kind = map_kind::deinterleave;  // n = rows packed input rows of k = cols units -> k output rows
    m.rows = rows;
    m.cols = cols;
    lines = cols;
    line_bytes = rows * unit;
  } else if (rows <= periodic_max_thin_k && out_rs == rows * unit && in_rs >= cols * unit) {
    m.kind = map_kind::interleave;  // k = rows input rows of n = cols units -> n packed output rows
    m.rows = cols;
    m.cols = rows;
    m.in_rs = in_rs;
    line_bytes = cols * rows * unit;
  } else {
    return false;
  }
  // The level's largest granule that divides the unit, every range's output address and the distances
  // between the sources of one range (planes, units and, for interleave, input rows are then whole granules).
  std::uint64_t addr_bits = reinterpret_cast<std::uintptr_t>(out) | static_cast<std::uint64_t>(unit);
  if (m.kind == map_kind::deinterleave) addr_bits |= static_cast<std::uint64_t>(out_rs);
  if (m.kind == map_kind::interleave) addr_bits |= static_cast<std::uint64_t>(in_rs);
  for (int i = 0; i < g.batch_rank; ++i) addr_bits |= static_cast<std::uint64_t>(g.batch_out_stride[i] * wb);
  const int lg = periodic_granule_lg(isa, addr_bits);
  const std::int64_t period = m.out_period();
  if (lg < 0 || period > periodic_max_period_bytes || line_bytes < periodic_min_periods * period) return false;
  const int gran = 1 << lg;
  // Too scattered (output vectors that gather from many input rows): the tile path. Judged on the first
  // range's table (every range has the same map; their heads differ at most).
  const auto head_of = [&](const unsigned char* o) {
    return static_cast<std::int64_t>((line - reinterpret_cast<std::uintptr_t>(o) % line) % line);
  };
  const built_table& first_table = table_for(m, head_of(out), gran);
  const std::int64_t max_windows = m.kind == map_kind::planes ? periodic_max_windows_per_vector : periodic_max_windows_thin;
  if (first_table.prog.windows() > max_windows * (period / line)) return false;

  // The ranges: item b (one range for a packed batch of planes), output row j.
  const std::int64_t ranges = batch_as_one ? 1 : items * lines;
  auto range_at = [&](std::int64_t r) -> range {
    if (batch_as_one) return {in, out, line_bytes};
    const batch_cursor b(g, r / lines);
    const std::int64_t j = r % lines;
    const unsigned char* ib = in + b.in_offset() * wb;
    unsigned char* ob = out + b.out_offset() * wb;
    if (m.kind == map_kind::deinterleave) return {ib + j * unit, ob + j * out_rs, rows * cols * unit - j * unit};
    return {ib, ob, (rows - 1) * in_rs + cols * unit};  // interleave: the k input rows
  };
  // Periods of each range whose loads stay inside its input and whose vectors inside its output.
  auto periods_of = [&](const range& rg, const built_table& t) {
    const std::int64_t h = t.head, in_p = m.in_period();
    const std::int64_t by_in = rg.in_bytes >= t.max_end() ? (rg.in_bytes - t.max_end()) / in_p + 1 : 0;
    return std::max<std::int64_t>(0, std::min(by_in, (line_bytes - h) / period));
  };
  // Every range's table, by head, before the workers start.
  std::array<const built_table*, line> by_head{};
  for (std::int64_t r = 0; r < ranges; ++r) {
    const std::int64_t h = head_of(range_at(r).out);
    if (by_head[static_cast<std::size_t>(h)] == nullptr) by_head[static_cast<std::size_t>(h)] = &table_for(m, h, gran);
  }
  // Tasks: chunks of periods reading ~256 KiB of input, plus one for each range's tail; the k rows of a
  // deinterleaved item take the same chunk in turn, so the input chunk they share is read from L2 k - 1 times
  // (one row at a time over the whole input read it k times from memory: rgb8 4194304 x 4 0.49 -> 0.35).
  const std::int64_t chunk_periods = std::max<std::int64_t>(1, (std::int64_t{256} << 10) / m.in_period());
  const std::int64_t chunks = (line_bytes / period + chunk_periods - 1) / chunk_periods + 1;
  const std::int64_t group = m.kind == map_kind::deinterleave ? lines : 1;  // ranges a task walks
  const std::int64_t total = ranges * line_bytes;
  const bool stream = isa.stream_lines != nullptr && use_streaming(total, line_bytes, host_caches());
  const int nt = resolve_threads(threads, total, ranges / group * chunks);
  parallel_slices(ranges / group * chunks, nt, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t c = task % chunks;
      for (std::int64_t r = task / chunks * group; r < (task / chunks + 1) * group; ++r) {
        const range rg = range_at(r);
        const built_table& t = *by_head[static_cast<std::size_t>(head_of(rg.out))];
        const std::int64_t periods = periods_of(rg, t);
        const std::int64_t q0 = std::min(periods, c * chunk_periods), q1 = std::min(periods, q0 + chunk_periods);
        if (q0 < q1) isa.periodic[lg](rg.in, rg.out + t.head, q0, q1, t.view(), stream);
        if (c == 0) copy_bytes(m, rg.in, rg.out, 0, std::min(t.head, line_bytes));
        if (c == chunks - 1) copy_bytes(m, rg.in, rg.out, std::min(line_bytes, t.head + periods * period), line_bytes);
      }
    }
    if (stream) isa.fence();
  });
  return true;
}

}  // namespace xpose::detail
