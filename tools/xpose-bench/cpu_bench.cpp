// xpose-bench: the CPU backend.
//
// Per case: n rotating input/output pairs (n = ceil(4 x last-level cache / payload) when the payload is
// smaller than 4 x LLC, memory permitting), inputs filled with the oracle pattern (a different seed per
// pair), then, on 1 thread and then on all threads, each on freshly poisoned outputs:
//   memcpy of the payload (a reference), then the non-temporal copy of the payload (the reference the CPU
//   targets are stated against: issue 6) and xpose, their samples interleaved (copy pass, xpose pass, copy
//   pass, ...) so that both medians come from the same stretch of time on a host whose memory bandwidth
//   drifts.
// A sample times one pass over the n pairs with std::chrono::steady_clock and divides by n; the median of
// `reps` samples is reported. After the samples, the last output of every pair is verified (copies: memcmp
// against the input; xpose: the host oracle, count_mismatches_host).
//
// Each case gives two rows: `xpose` with ratios to memcpy, and `xpose vs nt-copy` (case name suffixed
// "(vs nt-copy)") whose reference columns hold the non-temporal copy and whose ratios are to it.
#include "cpu_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <utility>

#include <unistd.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define XPOSE_BENCH_X86 1
#else
#define XPOSE_BENCH_X86 0
#endif

#include "common/oracle.hpp"
#include "xpose/plan.hpp"

#if XPOSE_BENCH_HAS_OPENMP
#include <omp.h>
#endif

namespace xpose::bench {

namespace {

constexpr std::int64_t page = 4096;

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

int hardware_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// "32768K" -> bytes; 0 when unreadable.
std::int64_t read_cache_size(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (!(f >> s) || s.empty()) return 0;
  std::int64_t mult = 1;
  if (s.back() == 'K') mult = 1 << 10;
  else if (s.back() == 'M') mult = 1 << 20;
  if (mult != 1) s.pop_back();
  std::int64_t v = 0;
  return parse_int(s, v) ? v * mult : 0;
}

// Size of the cache of `level` seen by cpu0 (sysfs), else sysconf, else 0.
std::int64_t cache_bytes(int level) {
  for (int idx = 0; idx < 8; ++idx) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
    std::ifstream lf(dir + "level");
    int l = 0;
    if (!(lf >> l)) break;
    std::ifstream tf(dir + "type");
    std::string type;
    tf >> type;
    if (l == level && type != "Instruction") return read_cache_size(dir + "size");
  }
#if defined(_SC_LEVEL3_CACHE_SIZE)
  const long v = sysconf(level == 2 ? _SC_LEVEL2_CACHE_SIZE : _SC_LEVEL3_CACHE_SIZE);
  if (v > 0) return v;
#endif
  return 0;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto s = line.substr(colon + 1);
        s.erase(0, s.find_first_not_of(" \t"));
        return s;
      }
    }
  }
  return "unknown CPU";
}

struct host_slab {
  std::unique_ptr<unsigned char, decltype(&std::free)> mem{nullptr, &std::free};
  std::int64_t pitch = 0;
  unsigned char* at(int i) const { return mem.get() + static_cast<std::int64_t>(i) * pitch; }
};

bool allocate(host_slab& s, std::int64_t bytes_each, int count) {
  s.pitch = round_up(std::max<std::int64_t>(bytes_each, 1), page);
  s.mem.reset(static_cast<unsigned char*>(std::aligned_alloc(page, static_cast<std::size_t>(s.pitch * count))));
  return s.mem != nullptr;
}

// Calls f(begin, end) on `threads` threads over 64-byte-aligned slices of [0, bytes).
template <class F>
void parallel_bytes(std::int64_t bytes, int threads, const F& f) {
  if (threads <= 1 || bytes < (std::int64_t{1} << 16)) {
    f(std::int64_t{0}, bytes);
    return;
  }
#if XPOSE_BENCH_HAS_OPENMP
#pragma omp parallel num_threads(threads)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const std::int64_t chunk = round_up((bytes + nt - 1) / nt, 64);
    const std::int64_t b = std::min(bytes, t * chunk), e = std::min(bytes, b + chunk);
    if (b < e) f(b, e);
  }
#else
  std::vector<std::thread> pool;
  const std::int64_t chunk = round_up((bytes + threads - 1) / threads, 64);
  for (int t = 0; t < threads; ++t) {
    const std::int64_t b = std::min(bytes, t * chunk), e = std::min(bytes, b + chunk);
    if (b < e) pool.emplace_back([&f, b, e] { f(b, e); });
  }
  for (auto& th : pool) th.join();
#endif
}

// The non-temporal copy: plain copies up to the first 64-byte boundary of the destination and after the last,
// whole lines in between with streaming stores as wide as the CPU has (AVX-512, AVX2, else SSE2), then an
// sfence. Other architectures: memcpy (the row says so).
#if XPOSE_BENCH_X86 && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"))) void stream_lines_avx512(unsigned char* d, const unsigned char* s, std::int64_t n) {
  for (std::int64_t i = 0; i < n; i += 64) _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i), _mm512_loadu_si512(s + i));
}
__attribute__((target("avx2"))) void stream_lines_avx2(unsigned char* d, const unsigned char* s, std::int64_t n) {
  for (std::int64_t i = 0; i < n; i += 64) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 32), b);
  }
}
#endif
#if XPOSE_BENCH_X86
void stream_lines_sse2(unsigned char* d, const unsigned char* s, std::int64_t n) {
  for (std::int64_t i = 0; i < n; i += 64) {
    for (int k = 0; k < 64; k += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + k)));
  }
}

using stream_fn = void (*)(unsigned char*, const unsigned char*, std::int64_t);

std::pair<stream_fn, const char*> widest_stream() {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {&stream_lines_avx512, "64-byte AVX-512"};
  if (__builtin_cpu_supports("avx2")) return {&stream_lines_avx2, "32-byte AVX2"};
#endif
  return {&stream_lines_sse2, "16-byte SSE2"};
}
#endif

// What the non-temporal copy stores with, for the row note.
const char* nt_copy_kind() {
#if XPOSE_BENCH_X86
  static const auto w = widest_stream();
  return w.second;
#else
  return "memcpy: no streaming stores on this architecture";
#endif
}

void nt_copy(unsigned char* dst, const unsigned char* src, std::int64_t bytes) {
#if XPOSE_BENCH_X86
  static const stream_fn stream = widest_stream().first;
  const std::int64_t head = std::min<std::int64_t>(bytes, (64 - reinterpret_cast<std::uintptr_t>(dst) % 64) % 64);
  std::memcpy(dst, src, static_cast<std::size_t>(head));
  const std::int64_t body = (bytes - head) / 64 * 64;
  stream(dst + head, src + head, body);
  std::memcpy(dst + head + body, src + head + body, static_cast<std::size_t>(bytes - head - body));
  _mm_sfence();
#else
  std::memcpy(dst, src, static_cast<std::size_t>(bytes));
#endif
}

void parallel_nt_copy(void* dst, const void* src, std::int64_t bytes, int threads) {
  parallel_bytes(bytes, threads, [&](std::int64_t b, std::int64_t e) {
    nt_copy(static_cast<unsigned char*>(dst) + b, static_cast<const unsigned char*>(src) + b, e - b);
  });
}

void parallel_memcpy(void* dst, const void* src, std::int64_t bytes, int threads) {
  parallel_bytes(bytes, threads, [&](std::int64_t b, std::int64_t e) {
    std::memcpy(static_cast<unsigned char*>(dst) + b, static_cast<const unsigned char*>(src) + b,
                static_cast<std::size_t>(e - b));
  });
}

// fill_pattern_host, split over threads (slices start on 8-byte groups: one hash per group).
void parallel_fill_pattern(unsigned char* buf, std::int64_t bytes, std::uint64_t seed, int threads) {
  parallel_bytes(bytes, threads, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t g = b / 8; g * 8 < e; ++g) {
      const std::uint64_t h = xpose::test::pattern_hash(static_cast<std::uint64_t>(g), seed);
      for (std::int64_t k = std::max(b, g * 8); k < std::min(e, g * 8 + 8); ++k)
        buf[k] = xpose::test::pattern_byte_from_hash(h, static_cast<std::uint64_t>(k));
    }
  });
}

std::uint64_t seed_of(int pair) { return 0x243F6A8885A308D3ull + 0x9E3779B97F4A7C15ull * static_cast<unsigned>(pair); }

// One pass over the n pairs per sample, divided by n (see the file comment). `run(i)` returns "" or an error.
template <class F>
std::string time_samples(int n, const options& o, const F& run, std::vector<double>& us) {
  us.clear();
  for (int w = 0; w < std::max(o.warmup, 1); ++w)
    if (std::string e = run(w % n); !e.empty()) return e;
  for (int r = 0; r < o.reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      if (std::string e = run(i); !e.empty()) return e;
    const auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
  }
  return {};
}

// Two implementations timed in alternation: a sample of `a`, a sample of `b`, ... (see time_samples).
template <class A, class B>
std::string time_interleaved(int n, const options& o, const A& run_a, const B& run_b, std::vector<double>& us_a,
                             std::vector<double>& us_b) {
  us_a.clear();
  us_b.clear();
  for (int w = 0; w < std::max(o.warmup, 1); ++w) {
    if (std::string e = run_a(w % n); !e.empty()) return e;
    if (std::string e = run_b(w % n); !e.empty()) return e;
  }
  auto pass = [&](const auto& run, std::vector<double>& us) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      if (std::string e = run(i); !e.empty()) return e;
    const auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
    return std::string();
  };
  for (int r = 0; r < o.reps; ++r) {
    if (std::string e = pass(run_a, us_a); !e.empty()) return e;
    if (std::string e = pass(run_b, us_b); !e.empty()) return e;
  }
  return {};
}

}  // namespace

run_info cpu_run_info(int threads) {
  run_info info;
  info.backend = "cpu";
  info.device = cpu_model();
  info.l2_bytes = cache_bytes(2);
  info.llc_bytes = cache_bytes(3);
  if (info.llc_bytes == 0) info.llc_bytes = info.l2_bytes;
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  info.memory_bytes = pages > 0 && page_size > 0 ? static_cast<std::int64_t>(pages) * page_size : 0;
  info.threads = threads > 0 ? threads : hardware_threads();
  return info;
}

void run_cpu_cases(const std::vector<bench_case>& cases, const options& o, const run_info& info,
                   std::vector<row>& rows, std::ostream& progress) {
  const int all = info.threads;
  const std::int64_t llc = info.llc_bytes > 0 ? info.llc_bytes : std::int64_t{32} << 20;
  // Rotation memory budget: a quarter of RAM, at most 8 GiB.
  std::int64_t budget = std::int64_t{8} << 30;
  if (info.memory_bytes > 0) budget = std::min(budget, info.memory_bytes / 4);

  int index = 0;
  bool noted = false;  // the first "vs nt-copy" row says what its reference is
  for (const auto& c : cases) {
    ++index;
    if (c.table == table_kind::ladder) {
      progress << "[" << index << "/" << cases.size() << "] " << c.name
               << ": skipped (ladder rungs are GPU kernels)\n";
      continue;
    }
    progress << "[" << index << "/" << cases.size() << "] cpu: " << c.name << " ..." << std::flush;
    const xpose::problem p = c.to_problem();
    row r;
    r.table = "cpu";
    r.case_name = c.name;
    r.impl = "xpose";
    r.shape = c.shape_string();
    r.axes = c.axes_string();
    r.elem_bytes = c.elem_bytes;
    r.in_offset = c.in_offset, r.out_offset = c.out_offset;
    r.threads = all;
    r.category = c.category;
    r.target = c.target >= 0 ? c.target : not_measured;
    r.relative_to = c.relative_to;

    auto plan = xpose::make_plan(p);
    if (!plan) {  // validated when the suite was loaded; kept for safety
      std::ostringstream os;
      os << plan.error();
      r.main.verified = r.main_1t.verified = verdict::no;
      r.main.note = os.str();
      rows.push_back(std::move(r));
      progress << " error\n";
      continue;
    }
    const std::int64_t payload = plan->payload_bytes();
    r.bytes_moved = plan->bytes_moved();
    const std::int64_t in_bytes = std::max(plan->in_span_bytes(), payload);
    const std::int64_t out_bytes = std::max(plan->out_span_bytes(), payload);
    const std::int64_t pair_bytes = round_up(std::max<std::int64_t>(in_bytes, 1), page) +
                                    round_up(std::max<std::int64_t>(out_bytes, 1), page);
    std::int64_t n = payload > 0 && payload < 4 * llc ? (4 * llc + payload - 1) / payload : 1;
    n = std::clamp<std::int64_t>(std::min<std::int64_t>(n, budget / pair_bytes), 1, 1024);
    r.buffers = static_cast<int>(n);

    host_slab in, out;
    if (!allocate(in, in_bytes + c.in_offset, r.buffers) || !allocate(out, out_bytes + c.out_offset, r.buffers)) {
      r.main.verified = r.main_1t.verified = verdict::no;
      r.main.note = "out of host memory for " + std::to_string(r.buffers) + " buffer pairs";
      rows.push_back(std::move(r));
      progress << " error\n";
      continue;
    }
    // The views start c.in_offset / c.out_offset bytes past page-aligned bases (misaligned cases); the
    // references copy between the same pointers.
    auto ip = [&](int i) { return in.at(i) + c.in_offset; };
    auto op = [&](int i) { return out.at(i) + c.out_offset; };
    for (int i = 0; i < r.buffers; ++i) parallel_fill_pattern(ip(i), in_bytes, seed_of(i), all);

    auto poison_all = [&] {
      for (int i = 0; i < r.buffers; ++i)
        parallel_bytes(out_bytes, all, [&](std::int64_t b, std::int64_t e) {
          std::memset(op(i) + b, xpose::test::poison_byte, static_cast<std::size_t>(e - b));
        });
    };
    std::vector<double> us;

    // The memcpy reference: the payload, same pairs.
    auto memcpy_ref = [&](int threads, double& median_us, double& gbps) {
      poison_all();
      const std::string err = time_samples(r.buffers, o, [&](int i) {
        parallel_memcpy(op(i), ip(i), payload, threads);
        return std::string();
      }, us);
      median_us = err.empty() ? median(us) : not_measured;
      gbps = static_cast<double>(2 * payload) / (median_us * 1e3);
      bool ok = err.empty();
      for (int i = 0; ok && i < r.buffers; ++i)
        ok = std::memcmp(op(i), ip(i), static_cast<std::size_t>(payload)) == 0;
      if (!ok) r.memcpy_verified = verdict::no;
      else if (r.memcpy_verified == verdict::na) r.memcpy_verified = verdict::yes;
    };

    // The non-temporal copy and xpose (execute_host), interleaved; then the oracle checks every element of
    // every xpose output, and a last copy pass is checked with memcmp.
    row nt = r;  // the "vs nt-copy" row: its reference columns hold the non-temporal copy
    nt.case_name += " (vs nt-copy)";
    nt.impl = "xpose vs nt-copy";
    nt.memcpy_verified = verdict::na;
    // A suite's target (issue 6) is a ratio to the non-temporal copy: it is checked on this row only.
    r.target = not_measured;
    if (!nt.category.empty()) nt.category += " (vs nt-copy)";
    std::vector<double> us_nt;
    auto nt_and_xpose = [&](int threads, double& nt_us, double& nt_gbps, measurement& m) {
      poison_all();
      const std::string err = time_interleaved(r.buffers, o,
          [&](int i) {
            parallel_nt_copy(op(i), ip(i), payload, threads);
            return std::string();
          },
          [&](int i) {
            const xpose::status s = plan->execute_host(ip(i), op(i), threads);
            if (s) return std::string();
            std::ostringstream os;
            os << "execute_host: " << s;
            return os.str();
          },
          us_nt, us);
      if (!err.empty()) {
        m.verified = verdict::no;
        m.note = err;
        nt.memcpy_verified = verdict::no;
        return;
      }
      std::int64_t wrong = 0;
      for (int i = 0; i < r.buffers; ++i) {
        const std::int64_t w = xpose::test::count_mismatches_host(op(i), p, seed_of(i), all);
        wrong += w < 0 ? plan->payload_bytes() : w;
      }
      m.set_time(median(us), r.bytes_moved, not_measured);
      m.verified = wrong == 0 ? verdict::yes : verdict::no;
      if (wrong != 0) m.note = std::to_string(wrong) + " wrong elements over " + std::to_string(r.buffers) + " outputs";
      nt_us = median(us_nt);
      nt_gbps = static_cast<double>(2 * payload) / (nt_us * 1e3);
      bool ok = true;
      for (int i = 0; i < r.buffers; ++i) {
        parallel_nt_copy(op(i), ip(i), payload, threads);
        ok = ok && std::memcmp(op(i), ip(i), static_cast<std::size_t>(payload)) == 0;
      }
      if (!ok) nt.memcpy_verified = verdict::no;
      else if (nt.memcpy_verified == verdict::na) nt.memcpy_verified = verdict::yes;
    };
    memcpy_ref(1, r.memcpy_1t_us, r.memcpy_1t_gbps);
    nt_and_xpose(1, nt.memcpy_1t_us, nt.memcpy_1t_gbps, r.main_1t);
    memcpy_ref(all, r.memcpy_us, r.memcpy_gbps);
    nt_and_xpose(all, nt.memcpy_us, nt.memcpy_gbps, r.main);
    // Ratios: the same xpose times against each reference.
    nt.main_1t = r.main_1t;
    nt.main = r.main;
    if (r.main_1t.present) {
      r.main_1t.set_time(r.main_1t.time_us, r.bytes_moved, r.memcpy_1t_us);
      nt.main_1t.set_time(nt.main_1t.time_us, nt.bytes_moved, nt.memcpy_1t_us);
    }
    if (r.main.present) {
      r.main.set_time(r.main.time_us, r.bytes_moved, r.memcpy_us);
      nt.main.set_time(nt.main.time_us, nt.bytes_moved, nt.memcpy_us);
    }
    if (!noted) {
      noted = true;
      nt.note = std::string("reference columns of the (vs nt-copy) rows hold a non-temporal copy of the same "
                            "bytes (") + nt_copy_kind() + " stores), timed interleaved with xpose";
    }
    progress << (row_failed(r) || row_failed(nt) ? " FAILED\n" : " ok\n");
    rows.push_back(std::move(r));
    rows.push_back(std::move(nt));
  }
}

}  // namespace xpose::bench
