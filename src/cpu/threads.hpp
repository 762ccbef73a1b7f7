// Fork-join over a range of independent tasks for the CPU executor: OpenMP when the build has it
// (XPOSE_HAS_OPENMP, linked by CMake), std::thread otherwise.
//
// Every thread receives one contiguous slice [begin, end) of the task range. Contiguous slices keep each
// thread's reads and writes in neighbouring memory (tiles of the same rows, consecutive batch items), which
// matters more for a bandwidth-bound copy than the load balance a dynamic schedule would buy: all tasks of
// one executor call have the same size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#if XPOSE_HAS_OPENMP
#include <omp.h>
#endif

namespace xpose::detail {

/// Below this many payload bytes per thread, an extra thread costs more (start-up, a cold cache) than it
/// saves. 32 KiB is ~3 us of memcpy on one core; waking an OpenMP worker costs a few us, creating a
/// std::thread tens of us.
#if XPOSE_HAS_OPENMP
inline constexpr std::int64_t min_bytes_per_thread = std::int64_t{32} << 10;
#else
inline constexpr std::int64_t min_bytes_per_thread = std::int64_t{256} << 10;
#endif

/// The number of threads to use: `requested` (0 = all hardware threads), at most the hardware threads, at
/// most one per `min_bytes_per_thread` of payload and at most one per task, at least 1.
/// More threads than the hardware runs never help a bandwidth-bound copy, and a request for thousands could
/// end the process (libgomp exits when it cannot create a thread), so requests are capped here, where every
/// macro-kernel asks.
inline int resolve_threads(int requested, std::int64_t payload_bytes, std::int64_t tasks) {
  // Read once: glibc's hardware_concurrency opens and parses /sys/devices/system/cpu/online on every call,
  // which was half of a 100 x 100 fp32 transpose's 8.5 us (perf, 2-core EPYC VM).
  static const std::int64_t hardware = std::max(1u, std::thread::hardware_concurrency());
  std::int64_t t = requested;
  if (t <= 0 || t > hardware) t = hardware;
  t = std::min(t, std::max<std::int64_t>(1, payload_bytes / min_bytes_per_thread));
  t = std::min(t, std::max<std::int64_t>(1, tasks));
  return static_cast<int>(t);
}

/// Slice `part` of `parts` of [0, n): sizes differ by at most one.
inline void slice(std::int64_t n, int parts, int part, std::int64_t& begin, std::int64_t& end) {
  const std::int64_t q = n / parts, r = n % parts;
  begin = part * q + std::min<std::int64_t>(part, r);
  end = begin + q + (part < r ? 1 : 0);
}

/// Calls f(begin, end) on `threads` threads, one contiguous slice of [0, tasks) each; returns when all are
/// done. `f` must not throw.
template <class F>
void parallel_slices(std::int64_t tasks, int threads, const F& f) {
  if (tasks <= 0) return;
  if (threads <= 1) {
    f(std::int64_t{0}, tasks);
    return;
  }
#if XPOSE_HAS_OPENMP
  // The team may be smaller than asked (nested regions, OMP_THREAD_LIMIT): slice by the team's real size.
#pragma omp parallel num_threads(threads)
  {
    std::int64_t begin = 0, end = 0;
    slice(tasks, omp_get_num_threads(), omp_get_thread_num(), begin, end);
    if (begin < end) f(begin, end);
  }
#else
  std::vector<std::thread> workers;
  workers.reserve(static_cast<std::size_t>(threads - 1));
  int started = 1;  // slice 0 runs on the calling thread
#if defined(__cpp_exceptions)
  try {
#endif
    for (; started < threads; ++started) {
      std::int64_t begin = 0, end = 0;
      slice(tasks, threads, started, begin, end);
      workers.emplace_back([&f, begin, end] { f(begin, end); });
    }
#if defined(__cpp_exceptions)
  } catch (...) {  // the system refused a thread: the calling thread does the slices nobody took
  }
#endif
  for (int part = 0; part < threads; ++part) {
    if (part != 0 && part < started) continue;
    std::int64_t begin = 0, end = 0;
    slice(tasks, threads, part, begin, end);
    f(begin, end);
  }
  for (auto& w : workers) w.join();
#endif
}

}  // namespace xpose::detail
