// xpose-bench: the CPU backend.
//
// Per case: n rotating input/output pairs (n = ceil(4 x last-level cache / payload) when the payload is
// smaller than 4 x LLC, memory permitting), inputs filled with the oracle pattern (a different seed per
// pair), then four measurements, each on freshly poisoned outputs:
//   memcpy on 1 thread, memcpy on all threads (the references), xpose on 1 thread, xpose on all threads.
// A sample times one pass over the n pairs with std::chrono::steady_clock and divides by n; the median of
// `reps` samples is reported. After the samples, the last output of every pair is verified (memcpy: memcmp
// against its input; xpose: the host oracle, count_mismatches_host).
#include "cpu_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <unistd.h>

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
    if (!allocate(in, in_bytes, r.buffers) || !allocate(out, out_bytes, r.buffers)) {
      r.main.verified = r.main_1t.verified = verdict::no;
      r.main.note = "out of host memory for " + std::to_string(r.buffers) + " buffer pairs";
      rows.push_back(std::move(r));
      progress << " error\n";
      continue;
    }
    for (int i = 0; i < r.buffers; ++i) parallel_fill_pattern(in.at(i), in_bytes, seed_of(i), all);

    auto poison_all = [&] {
      for (int i = 0; i < r.buffers; ++i)
        parallel_bytes(out_bytes, all, [&](std::int64_t b, std::int64_t e) {
          std::memset(out.at(i) + b, xpose::test::poison_byte, static_cast<std::size_t>(e - b));
        });
    };
    std::vector<double> us;

    // The references: memcpy of the payload, same pairs, 1 thread and all threads.
    auto memcpy_ref = [&](int threads, double& median_us, double& gbps) {
      poison_all();
      const std::string err = time_samples(r.buffers, o, [&](int i) {
        parallel_memcpy(out.at(i), in.at(i), payload, threads);
        return std::string();
      }, us);
      median_us = err.empty() ? median(us) : not_measured;
      gbps = static_cast<double>(2 * payload) / (median_us * 1e3);
      bool ok = err.empty();
      for (int i = 0; ok && i < r.buffers; ++i)
        ok = std::memcmp(out.at(i), in.at(i), static_cast<std::size_t>(payload)) == 0;
      if (!ok) r.memcpy_verified = verdict::no;
      else if (r.memcpy_verified == verdict::na) r.memcpy_verified = verdict::yes;
    };
    memcpy_ref(1, r.memcpy_1t_us, r.memcpy_1t_gbps);
    memcpy_ref(all, r.memcpy_us, r.memcpy_gbps);

    // xpose: execute_host, 1 thread and all threads; the oracle checks every element of every pair.
    auto run_xpose = [&](int threads, double reference_us, measurement& m) {
      poison_all();
      const std::string err = time_samples(r.buffers, o, [&](int i) {
        const xpose::status s = plan->execute_host(in.at(i), out.at(i), threads);
        if (s) return std::string();
        std::ostringstream os;
        os << "execute_host: " << s;
        return os.str();
      }, us);
      if (!err.empty()) {
        m.verified = verdict::no;
        m.note = err;
        return;
      }
      std::int64_t wrong = 0;
      for (int i = 0; i < r.buffers; ++i) {
        const std::int64_t w = xpose::test::count_mismatches_host(out.at(i), p, seed_of(i), all);
        wrong += w < 0 ? plan->payload_bytes() : w;
      }
      m.set_time(median(us), r.bytes_moved, reference_us);
      m.verified = wrong == 0 ? verdict::yes : verdict::no;
      if (wrong != 0) m.note = std::to_string(wrong) + " wrong elements over " + std::to_string(r.buffers) + " outputs";
    };
    run_xpose(1, r.memcpy_1t_us, r.main_1t);
    run_xpose(all, r.memcpy_us, r.main);
    progress << (row_failed(r) ? " FAILED\n" : " ok\n");
    rows.push_back(std::move(r));
  }
}

}  // namespace xpose::bench
