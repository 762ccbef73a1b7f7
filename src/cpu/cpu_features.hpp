// What the CPU executor knows about the host: the SIMD level its micro-kernels may use, and the cache sizes
// its tiling heuristic starts from. Both are probed once, on first use.
//
// The SIMD level is the best one the CPU and the OS support (cpuid + xgetbv), unless the environment
// variable XPOSE_CPU_ISA names a lower one (scalar, sse2, avx2, avx512) — so that every level can be run,
// and tested, on one machine. A level above what the CPU supports is never used: it falls back to the best
// supported one. Tests switch levels in process with set_cpu_isa().
#pragma once

#include <cstdint>

namespace xpose::detail {

/// SIMD levels of the CPU micro-kernels, lowest first. Each one is compiled in its own translation unit
/// with its own ISA flags (microkernels_{sse2,avx2,avx512,avx512vbmi}.cpp) and only called when the CPU has it.
enum class cpu_isa : int {
  scalar = 0,  ///< portable C++ (any CPU, any architecture)
  sse2 = 1,    ///< x86-64 baseline: 128-bit unpack networks, 16-byte non-temporal stores
  avx2 = 2,    ///< 256-bit (Haswell, Zen 1 and later)
  avx512 = 3,  ///< AVX-512 F + BW + DQ + VL (Skylake-SP, Ice Lake, Zen 4 and later)
  avx512vbmi = 4,  ///< the above + VBMI's byte permutes (Ice Lake, Sapphire Rapids, Zen 4 and later)
};

inline constexpr int cpu_isa_count = 5;

const char* to_string(cpu_isa isa) noexcept;

/// Parses "scalar", "sse2", "avx2", "avx512", "avx512vbmi" (case-sensitive). Returns false for anything else.
bool parse_cpu_isa(const char* text, cpu_isa& out) noexcept;

/// The best level the CPU and the OS support, whatever XPOSE_CPU_ISA says.
cpu_isa best_cpu_isa() noexcept;

/// Whether this build and this CPU can run `isa` (scalar: always).
bool cpu_isa_supported(cpu_isa isa) noexcept;

/// The level the executor uses now: XPOSE_CPU_ISA (read once) or set_cpu_isa, capped at best_cpu_isa().
cpu_isa active_cpu_isa() noexcept;

/// Makes the executor use `isa` from now on (all threads). Returns false, and changes nothing, when the CPU
/// or the build lacks it. For tests and benchmarks; not meant to race with running executions.
bool set_cpu_isa(cpu_isa isa) noexcept;

/// When the CPU transpose streams its output (tuning_cpu.hpp): by the heuristic (`automatic`), or forced —
/// for tests, which must cover the streaming path on problems far smaller than a last-level cache.
enum class streaming_mode : int { automatic = 0, never = 1, always = 2 };

streaming_mode cpu_streaming_mode() noexcept;
void set_cpu_streaming_mode(streaming_mode m) noexcept;

/// Whether the CPU executor moves N-d permutations whose tile sides stay short as boxes (macrokernel_box.cpp):
/// where its rule says so (`automatic`), or never — for tests of the paths the boxes would otherwise take —
/// or where the rule says so but always through the element gather (`gather`: never the permute path), for
/// tests and measurements of the two box paths.
enum class box_mode : int { automatic = 0, never = 1, gather = 2 };

box_mode cpu_box_mode() noexcept;
void set_cpu_box_mode(box_mode m) noexcept;

/// Cache sizes of the core the caller runs on (bytes). Read from sysconf / sysfs; a field that cannot be
/// read takes a common default (48 KiB L1d, 1 MiB L2, 32 MiB LLC) and `known` is false.
struct cpu_caches {
  std::int64_t l1d = 48 << 10;
  std::int64_t l2 = 1 << 20;
  std::int64_t llc = 32 << 20;
  bool known = false;
};

const cpu_caches& host_caches() noexcept;

/// The CPU's maker (cpuid leaf 0), for tuning rules that were measured to differ between them
/// (tuning_cpu.hpp). `other`: another vendor, or not x86-64.
enum class cpu_vendor : int { other = 0, intel = 1, amd = 2 };

cpu_vendor host_cpu_vendor() noexcept;

}  // namespace xpose::detail
