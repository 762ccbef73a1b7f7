// Packed batches of small planes (b x r x c -> b x c x r with r x c x unit of at most a few KiB: 1e6 x 3 x 16
// bytes, 65536 x 4 x 8 floats, N-d permutations whose slow axes stay put) on the CPU, as one periodic byte
// permutation of the whole batch.
//
// When every plane is packed on both sides, output byte k comes from input byte src(k) = k - k % P + f(k % P)
// (P = plane bytes, f the transpose of one plane), so the map repeats every `period` = lcm(P, 64) bytes: a
// table of one period's 64-byte output vectors, each assembled from one or a few 128-byte input windows by
// two-source permutes (periodic_avx512.hpp: vpermt2b with VBMI, vpermt2d on 4-byte granules without), drives
// the whole batch. The tile path pays a kernel call, edge handling and a prefetch walk per plane instead: 150 ns
// for a 48-byte plane (u8 1e6 x 3 x 16 at 0.6 GB/s, 0.03 of the non-temporal copy on the dev VM).
//
// Output vectors are 64-byte aligned (the table starts at the output's first line boundary), streamed with
// non-temporal stores when the output is large (use_streaming). The bytes before the first line boundary and
// after the last whole period the loads can reach are copied byte by byte. Tasks are periods, one contiguous
// slice of them a thread.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "cpu/cpu_features.hpp"
#include "cpu/kernel_table.hpp"
#include "cpu/macrokernels.hpp"
#include "cpu/threads.hpp"
#include "cpu/tuning_cpu.hpp"

namespace xpose::detail {

namespace {

constexpr std::int64_t line = 64;

struct small_planes {
  std::int64_t rows = 0, cols = 0, unit = 0, bytes = 0;  // bytes = rows x cols x unit
};

// Walks output bytes k, k + 1, ... keeping the input byte each comes from (no division a byte).
struct byte_walk {
  const small_planes& s;
  std::int64_t plane = 0, c = 0, r = 0, b = 0;
  byte_walk(const small_planes& sp, std::int64_t k) : s(sp) {
    plane = k / s.bytes;
    std::int64_t rest = k - plane * s.bytes;
    c = rest / (s.rows * s.unit);
    rest -= c * s.rows * s.unit;
    r = rest / s.unit;
    b = rest - r * s.unit;
  }
  std::int64_t source() const { return plane * s.bytes + (r * s.cols + c) * s.unit + b; }
  void next() {
    if (++b < s.unit) return;
    b = 0;
    if (++r < s.rows) return;
    r = 0;
    if (++c < s.cols) return;
    c = 0;
    ++plane;
  }
};

void copy_bytes(const small_planes& s, const unsigned char* in, unsigned char* out, std::int64_t k0, std::int64_t k1) {
  byte_walk w(s, k0);
  for (std::int64_t k = k0; k < k1; ++k, w.next()) out[k] = in[w.source()];
}

// One period's table (see kernel_table.hpp, periodic_table) for output vectors starting `head` bytes into the
// output, with the permute's granule size.
struct built_table {
  small_planes s;
  std::int64_t head = -1;
  int granule = 0;
  std::int64_t period = 0, max_end = 0;  // max_end: one past the last input byte a period's loads touch
  std::vector<std::int32_t> first;
  std::vector<std::int64_t> src;
  std::vector<std::uint64_t> mask;
  std::vector<unsigned char> index;

  bool same(const small_planes& o, std::int64_t h, int g) const {
    return s.rows == o.rows && s.cols == o.cols && s.unit == o.unit && head == h && granule == g;
  }
  periodic_table view() const {
    return {period, static_cast<int>(first.size()) - 1, first.data(), src.data(), mask.data(), index.data()};
  }

  void build(const small_planes& sp, std::int64_t h, int g) {
    s = sp;
    head = h;
    granule = g;
    period = std::lcm(s.bytes, line);
    const int vectors = static_cast<int>(period / line), per_vector = static_cast<int>(line / g);
    first.assign(1, 0);
    src.clear();
    mask.clear();
    index.clear();
    max_end = 0;
    std::vector<std::pair<std::int64_t, int>> granules(static_cast<std::size_t>(per_vector));  // (source, slot)
    byte_walk w(s, head);
    for (int j = 0; j < vectors; ++j) {
      for (int i = 0; i < per_vector; ++i) {
        granules[static_cast<std::size_t>(i)] = {w.source(), i};
        for (int n = 0; n < g; ++n) w.next();
      }
      std::sort(granules.begin(), granules.end());
      // Greedy windows: each starts at the lowest source not covered yet and takes every granule within 128
      // bytes of it.
      for (std::size_t i = 0; i < granules.size();) {
        const std::int64_t start = granules[i].first;
        unsigned char idx[64] = {};
        std::uint64_t m = 0;
        for (; i < granules.size() && granules[i].first + g <= start + 2 * line; ++i) {
          const int slot = granules[i].second;
          const auto v = static_cast<std::uint32_t>((granules[i].first - start) / g);
          if (g == 1) {
            idx[slot] = static_cast<unsigned char>(v);
          } else if (g == 2) {
            const auto v16 = static_cast<std::uint16_t>(v);
            std::memcpy(idx + slot * g, &v16, 2);
          } else {
            std::memcpy(idx + slot * g, &v, 4);
          }
          m |= ((std::uint64_t{1} << g) - 1) << (slot * g);
        }
        src.push_back(start);
        mask.push_back(m);
        index.insert(index.end(), idx, idx + 64);
        max_end = std::max(max_end, start + 2 * line);
      }
      first.push_back(static_cast<std::int32_t>(src.size()));
    }
  }
};

}  // namespace

bool cpu_transpose2d_periodic(const plan_geometry& g, const void* in_v, void* out_v, int threads) {
  if (g.algo != algorithm::transpose2d || g.compound() || g.batch_rank == 0) return false;
  const isa_kernels& isa = kernels_for(active_cpu_isa());
  const std::int64_t wb = g.word_bytes;
  small_planes s;
  s.rows = g.rows;
  s.cols = g.cols;
  s.unit = g.elem_words * wb;
  s.bytes = s.rows * s.cols * s.unit;
  if (s.rows < 2 || s.cols < 2 || s.bytes > periodic_max_plane_bytes) return false;
  if (g.in_ld * wb != s.cols * s.unit || g.out_ld * wb != s.rows * s.unit) return false;
  // Item i at i x plane bytes on both sides: the batch axes nest, fastest last.
  std::int64_t nested = s.bytes;
  for (int i = g.batch_rank - 1; i >= 0; --i) {
    if (g.batch_in_stride[i] * wb != nested || g.batch_out_stride[i] * wb != nested) return false;
    nested *= g.batch_extent[i];
  }
  const std::int64_t total = nested;
  const std::int64_t period = std::lcm(s.bytes, line);
  auto* out = static_cast<unsigned char*>(out_v);
  const auto* in = static_cast<const unsigned char*>(in_v);
  // The level's largest granule that divides the unit and the output's address (the sources then fall on
  // granules too: planes, rows and units are whole granules).
  int lg = -1;
  for (int i = 2; i >= 0 && lg < 0; --i)
    if (isa.periodic[i] != nullptr && (s.unit | static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(out) % line)) % (1 << i) == 0)
      lg = i;
  if (lg < 0 || period > periodic_max_period_bytes || total < periodic_min_periods * period) return false;
  const int gran = 1 << lg;
  const std::int64_t head = static_cast<std::int64_t>((line - reinterpret_cast<std::uintptr_t>(out) % line) % line);

  thread_local built_table table;  // kept between calls: repeated executions of one plan build it once
  if (!table.same(s, head, gran)) table.build(s, head, gran);
  // Too scattered (large planes whose output vectors gather from many rows): the tile path.
  if (static_cast<std::int64_t>(table.src.size()) > periodic_max_windows_per_vector * (period / line)) return false;

  // Periods whose loads stay inside the input and whose vectors inside the output.
  const std::int64_t periods = std::max<std::int64_t>(
      0, std::min(total >= table.max_end ? (total - table.max_end) / period + 1 : 0, (total - head) / period));
  const bool stream = isa.stream_lines != nullptr && use_streaming(total, total, host_caches());
  const periodic_table view = table.view();
  const int nt = resolve_threads(threads, total, periods);
  parallel_slices(periods, nt, [&](std::int64_t begin, std::int64_t end) {
    isa.periodic[lg](in, out + head, begin, end, view, stream);
    if (stream) isa.fence();
  });
  copy_bytes(s, in, out, 0, std::min(head, total));
  copy_bytes(s, in, out, std::min(total, head + periods * period), total);
  return true;
}

}  // namespace xpose::detail
