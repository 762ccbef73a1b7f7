// CPU feature and cache probing for the CPU executor (see cpu_features.hpp).
#include "cpu/cpu_features.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#define XPOSE_CPU_X86_64 1
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#else
#define XPOSE_CPU_X86_64 0
#endif

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace xpose::detail {

namespace {

#if XPOSE_CPU_X86_64
struct cpuid_regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

cpuid_regs cpuid(unsigned leaf, unsigned sub) {
  cpuid_regs r;
#if defined(_MSC_VER) && !defined(__clang__)
  int v[4];
  __cpuidex(v, static_cast<int>(leaf), static_cast<int>(sub));
  r = {static_cast<unsigned>(v[0]), static_cast<unsigned>(v[1]), static_cast<unsigned>(v[2]),
       static_cast<unsigned>(v[3])};
#else
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
#endif
  return r;
}

// XCR0: which register states the OS saves on a context switch (bit 1 SSE, 2 AVX, 5..7 AVX-512).
std::uint64_t xcr0() {
#if defined(_MSC_VER) && !defined(__clang__)
  return _xgetbv(0);
#else
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
#endif
}

cpu_isa detect() {
  const unsigned max_leaf = cpuid(0, 0).a;
  const cpuid_regs l1 = cpuid(1, 0);
  const bool osxsave = (l1.c >> 27) & 1, avx = (l1.c >> 28) & 1;
  if (!osxsave || !avx || max_leaf < 7) return cpu_isa::sse2;
  const std::uint64_t xcr = xcr0();
  if ((xcr & 0x6) != 0x6) return cpu_isa::sse2;  // the OS does not save YMM state
  const cpuid_regs l7 = cpuid(7, 0);
  const bool avx2 = (l7.b >> 5) & 1;
  if (!avx2) return cpu_isa::sse2;
  // AVX-512: F (b16), DQ (b17), BW (b30), VL (b31), and opmask + ZMM state enabled by the OS (XCR0 bits 5..7).
  const bool avx512 = ((l7.b >> 16) & 1) && ((l7.b >> 17) & 1) && ((l7.b >> 30) & 1) && ((l7.b >> 31) & 1) &&
                      (xcr & 0xE0) == 0xE0;
  if (!avx512) return cpu_isa::avx2;
  const bool vbmi = (l7.c >> 1) & 1;  // AVX512_VBMI: vpermb, vpermt2b
  return vbmi ? cpu_isa::avx512vbmi : cpu_isa::avx512;
}

cpu_vendor detect_vendor() {
  const cpuid_regs l0 = cpuid(0, 0);  // the vendor string in EBX, EDX, ECX
  char id[13] = {};
  std::memcpy(id, &l0.b, 4);
  std::memcpy(id + 4, &l0.d, 4);
  std::memcpy(id + 8, &l0.c, 4);
  if (std::strcmp(id, "GenuineIntel") == 0) return cpu_vendor::intel;
  if (std::strcmp(id, "AuthenticAMD") == 0) return cpu_vendor::amd;
  return cpu_vendor::other;
}
#else
cpu_isa detect() { return cpu_isa::scalar; }
cpu_vendor detect_vendor() { return cpu_vendor::other; }
#endif

// The executor's level: -1 until first use, then a cpu_isa value.
std::atomic<int> g_active{-1};
std::atomic<int> g_streaming{0};
std::atomic<int> g_boxes{0};  // box_mode

cpu_isa initial_isa() {
  const cpu_isa best = best_cpu_isa();
  const char* env = std::getenv("XPOSE_CPU_ISA");
  if (env == nullptr || *env == '\0') return best;
  cpu_isa wanted = best;
  if (!parse_cpu_isa(env, wanted)) {
    std::fprintf(stderr, "xpose: XPOSE_CPU_ISA=%s is not one of scalar, sse2, avx2, avx512, avx512vbmi; using %s\n", env,
                 to_string(best));
    return best;
  }
  return static_cast<int>(wanted) <= static_cast<int>(best) ? wanted : best;
}

#if defined(__linux__)
// "32768K" -> bytes; 0 when unreadable.
std::int64_t read_size_file(const char* path) {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 0;
  long long v = 0;
  char unit = 0;
  const int n = std::fscanf(f, "%lld%c", &v, &unit);
  std::fclose(f);
  if (n < 1 || v <= 0) return 0;
  if (unit == 'K') v <<= 10;
  else if (unit == 'M') v <<= 20;
  else if (unit == 'G') v <<= 30;
  return v;
}

// The data or unified cache of `level` seen by cpu0 (sysfs); 0 when there is none.
std::int64_t sysfs_cache(int level) {
  for (int idx = 0; idx < 8; ++idx) {
    char path[96];
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
    std::FILE* f = std::fopen(path, "r");
    if (f == nullptr) break;
    int l = 0;
    const int n = std::fscanf(f, "%d", &l);
    std::fclose(f);
    if (n != 1 || l != level) continue;
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", idx);
    char type[32] = {};
    if ((f = std::fopen(path, "r")) != nullptr) {
      if (std::fscanf(f, "%31s", type) != 1) type[0] = '\0';
      std::fclose(f);
    }
    if (std::strcmp(type, "Instruction") == 0) continue;
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
    return read_size_file(path);
  }
  return 0;
}
#endif

cpu_caches probe_caches() {
  cpu_caches c;
  std::int64_t l1 = 0, l2 = 0, l3 = 0;
  // sysfs first: it describes the caches cpu0 actually shares. glibc's sysconf can report the sum over all
  // of an AMD package's L3 slices (384 MiB on a 32 MiB-per-CCX EPYC VM), which no core can use alone.
#if defined(__linux__)
  l1 = sysfs_cache(1);
  l2 = sysfs_cache(2);
  l3 = sysfs_cache(3);
#endif
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  if (l1 <= 0) l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
  if (l2 <= 0) l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l3 <= 0) l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  if (l1 > 0) c.l1d = l1;
  if (l2 > 0) c.l2 = l2;
  if (l3 > 0) c.llc = l3;
  else if (l2 > 0) c.llc = l2;  // no L3: the L2 is the last level
  c.known = l1 > 0 && l2 > 0;
  return c;
}

}  // namespace

const char* to_string(cpu_isa isa) noexcept {
  switch (isa) {
    case cpu_isa::scalar: return "scalar";
    case cpu_isa::sse2: return "sse2";
    case cpu_isa::avx2: return "avx2";
    case cpu_isa::avx512: return "avx512";
    case cpu_isa::avx512vbmi: return "avx512vbmi";
  }
  return "unknown";
}

bool parse_cpu_isa(const char* text, cpu_isa& out) noexcept {
  if (text == nullptr) return false;
  for (int i = 0; i < cpu_isa_count; ++i) {
    if (std::strcmp(text, to_string(static_cast<cpu_isa>(i))) == 0) {
      out = static_cast<cpu_isa>(i);
      return true;
    }
  }
  return false;
}

cpu_isa best_cpu_isa() noexcept {
  static const cpu_isa best = detect();
  return best;
}

bool cpu_isa_supported(cpu_isa isa) noexcept { return static_cast<int>(isa) <= static_cast<int>(best_cpu_isa()); }

cpu_isa active_cpu_isa() noexcept {
  int v = g_active.load(std::memory_order_relaxed);
  if (v < 0) {
    int expected = -1;
    g_active.compare_exchange_strong(expected, static_cast<int>(initial_isa()), std::memory_order_relaxed);
    v = g_active.load(std::memory_order_relaxed);
  }
  return static_cast<cpu_isa>(v);
}

bool set_cpu_isa(cpu_isa isa) noexcept {
  if (!cpu_isa_supported(isa)) return false;
  g_active.store(static_cast<int>(isa), std::memory_order_relaxed);
  return true;
}

streaming_mode cpu_streaming_mode() noexcept {
  return static_cast<streaming_mode>(g_streaming.load(std::memory_order_relaxed));
}

void set_cpu_streaming_mode(streaming_mode m) noexcept {
  g_streaming.store(static_cast<int>(m), std::memory_order_relaxed);
}

box_mode cpu_box_mode() noexcept { return static_cast<box_mode>(g_boxes.load(std::memory_order_relaxed)); }

void set_cpu_box_mode(box_mode m) noexcept { g_boxes.store(static_cast<int>(m), std::memory_order_relaxed); }

const cpu_caches& host_caches() noexcept {
  static const cpu_caches c = probe_caches();
  return c;
}

cpu_vendor host_cpu_vendor() noexcept {
  static const cpu_vendor v = detect_vendor();
  return v;
}

}  // namespace xpose::detail
